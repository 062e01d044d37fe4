package quotetoken

import "encoding/binary"

// appendBase64 appends src in base64url without padding (RFC 4648 §5), exactly as
// base64.RawURLEncoding.AppendEncode does, six bytes a step: the eight sextets are put
// one a byte in a 64-bit word and mapped to their characters in that word at once,
// then stored as one word. Hand-written because encoding/base64 looks each character
// up in its table and stores it alone, each load and store bounds-checked by workerd's
// V8. TestAppendBase64 and FuzzAppendBase64 hold it to encoding/base64.
func appendBase64(dst, src []byte) []byte {
	n := len(src)
	out := (n*8 + 5) / 6
	at := len(dst)
	if cap(dst)-at < out+8 { // +8: the last word is stored whole
		grown := make([]byte, at, at+out+8)
		copy(grown, dst)
		dst = grown
	}
	buf := dst[:cap(dst)]
	i, o := 0, at
	for ; i+8 <= n; i, o = i+6, o+8 {
		binary.LittleEndian.PutUint64(buf[o:o+8], chars64(sextets(binary.LittleEndian.Uint64(src[i:i+8]))))
	}
	for ; i < n; i, o = i+6, o+8 { // the last one to seven bytes, zero-padded into a word
		var w [8]byte
		copy(w[:], src[i:])
		binary.LittleEndian.PutUint64(buf[o:o+8], chars64(sextets(binary.LittleEndian.Uint64(w[:]))))
	}
	return dst[:at+out]
}

// sextets returns the eight 6-bit groups of the first six bytes of w (the first in
// w's low byte), one a byte, the first group in the low byte.
//
//go:inline
func sextets(w uint64) uint64 {
	t0 := triple(uint32(w))
	t1 := triple(uint32(w >> 24))
	return uint64(t0) | uint64(t1)<<32
}

// triple returns the four 6-bit groups of the three bytes in w's low 24 bits (the
// first in the low byte), one a byte.
//
//go:inline
func triple(w uint32) uint32 {
	b0, b1, b2 := w&0xff, w>>8&0xff, w>>16&0xff
	return b0>>2 | ((b0&3)<<4|b1>>4)<<8 | ((b1&15)<<2|b2>>6)<<16 | (b2&63)<<24
}

// chars64 maps eight sextets (one a byte) to their base64url characters: 'A' + x,
// then +6 from 26 (a-z), -75 from 52 (0-9), -13 from 62 ('-') and +49 at 63 ('_').
// Every byte stays within 0..183, so no lane carries into the next.
//
//go:inline
func chars64(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ge := func(t uint64) uint64 { return (x + (128-t)*ones) & highs >> 7 }
	return x + 65*ones + 6*ge(26) + 49*ge(63) - (75*ge(52) + 13*ge(62))
}
