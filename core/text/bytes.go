// Package text holds the text and number helpers of core: the strconv and fmt
// stand-ins (ScanDigits, Digits, Unhex, AppendHex64, Sprintf, Errorf, Clean), integer
// floor division (FloorDiv), hashing (FNV64a, Hash64), and the string helpers that
// compare and scan a word at a time (Same, IndexByte, BytesString). It imports nothing
// of the project, and nothing in it allocates except Sprintf, Errorf and Clean, which
// build messages.
package text

import (
	"math/bits"
	"unsafe"
)

// BytesString returns b as a string without copying; b must not change while the
// string is in use (the request buffer is only rewritten between requests).
func BytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Same reports whether a and b are the same bytes, compared a word at a time: TinyGo
// compiles == on strings to a byte loop, and workerd's V8 bounds-checks every load.
//
//go:inline
func Same(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	switch {
	case n >= 8:
		for i := 0; i+8 < n; i += 8 {
			if ld64(a, i) != ld64(b, i) {
				return false
			}
		}
		return ld64(a, n-8) == ld64(b, n-8) // the last eight, overlapping the word before
	case n >= 4:
		return ld32(a, 0) == ld32(b, 0) && ld32(a, n-4) == ld32(b, n-4)
	}
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// IndexByte is strings.IndexByte eight bytes at a time: the index of the first c in s,
// or -1 (TinyGo's is a byte loop). A word's bytes equal to c are the zero bytes of
// x = word ^ c*0x01..: (x - 0x01..) &^ x & 0x80.. marks them, and can mark wrongly only
// above a true one, so the lowest mark is exact.
func IndexByte(s string, c byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if s[i] == c {
				return i
			}
		}
		return -1
	}
	pat := uint64(c) * ones
	i := 0
	for ; i+8 < n; i += 8 {
		if x := ld64(s, i) ^ pat; (x-ones)&^x&highs != 0 {
			return i + bits.TrailingZeros64((x-ones)&^x&highs)>>3
		}
	}
	i = n - 8 // the last eight, overlapping the word before (none of whose bytes is c)
	if x := ld64(s, i) ^ pat; (x-ones)&^x&highs != 0 {
		return i + bits.TrailingZeros64((x-ones)&^x&highs)>>3
	}
	return -1
}

// ld64 and ld32 read the little-endian word of s at i (one load once compiled). The
// inline directive (TinyGo) makes them part of their callers: at -opt s they would
// stay calls.
//
//go:inline
func ld64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

//go:inline
func ld32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

//go:inline
func put64(d []byte, v uint64) {
	_ = d[7]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	d[4], d[5], d[6], d[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// grow returns b with room for m more bytes: make and copy, not append, whose growth
// TinyGo cannot evaluate at compile time (math/bits.Len), which would move package
// initialisers that use it to run time.
func grow(b []byte, m int) []byte {
	nb := make([]byte, len(b), 2*cap(b)+m)
	copy(nb, b)
	return nb
}
