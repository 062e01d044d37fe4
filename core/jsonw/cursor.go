package jsonw

import (
	"math/bits"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// MaxInt is the most bytes IntAt writes (math.MinInt64).
const MaxInt = 20

// MaxMoney is the most bytes MoneyAt writes: a sign, 17 digits of whole dollars and
// ".dd" (math.MinInt64 cents).
const MaxMoney = 21

// IntAt writes the decimal form of v at buf[n:] (at most MaxInt bytes) and returns the
// index after it.
//
//go:inline
func IntAt(buf []byte, n int, v int64) int {
	if uint64(v) < 10 { // most ids, quantities and counts: no call
		buf[n] = byte('0' + v)
		return n + 1
	}
	if v >= 0 && v <= 1<<32-1 {
		return uint32At(buf, n, uint32(v))
	}
	return int64At(buf, n, v)
}

// int64At is IntAt beyond 32 bits, a call apart: its digit array on the stack would
// otherwise cost every IntAt a stack frame.
//
//go:noinline
func int64At(buf []byte, n int, v int64) int {
	if v < 0 {
		buf[n] = '-'
		n++
		if v == -v { // math.MinInt64
			return bytebuf.PutAt(buf, n, "9223372036854775808")
		}
		v = -v
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return n + copy(buf[n:n+len(tmp)-i], tmp[i:])
}

// uint32At writes v in decimal at buf[n:] (appendUint32 is uint32At after making
// room). Each pair of digits is one 16-bit load from digitPairs, and the digits are
// stored two or four at a time, since workerd checks the bounds of every wasm load and
// store. Up to four digits (days, ids, most amounts in whole dollars) it writes them
// straight; beyond, their count first, then two at a time from the last.
func uint32At(buf []byte, n int, v uint32) int {
	switch {
	case v < 10:
		buf[n] = byte('0' + v)
		return n + 1
	case v < 100:
		d := buf[n : n+2]
		bytebuf.Store16(d, bytebuf.Load16(digitPairs, 2*v))
		return n + 2
	case v < 1000:
		q := v / 100
		d := buf[n : n+3]
		w := bytebuf.Load16(digitPairs, 2*(v-q*100))
		d[0] = byte('0' + q)
		bytebuf.Store16(d[1:3], w)
		return n + 3
	case v < 10000:
		q := v / 100
		d := buf[n : n+4]
		w := bytebuf.Load16(digitPairs, 2*q) | bytebuf.Load16(digitPairs, 2*(v-q*100))<<16
		bytebuf.Store32(d, w)
		return n + 4
	}
	d := 5
	for p := uint32(100000); d < 10 && v >= p; p *= 10 {
		d++
	}
	out := buf[n : n+d]
	i := d
	for v >= 100 {
		q := v / 100
		i -= 2
		bytebuf.Store16(out[i:i+2], bytebuf.Load16(digitPairs, 2*(v-q*100)))
		v = q
	}
	if v >= 10 {
		bytebuf.Store16(out[:2], bytebuf.Load16(digitPairs, 2*v))
	} else {
		out[0] = byte('0' + v)
	}
	return n + d
}

// digitPairs is "00", "01" ... "99": the two digits of n at 2n.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// MoneyAt writes cents as AppendMoney does (NZD, at most two decimals, no trailing
// zeros; at most MaxMoney bytes) at buf[n:] and returns the index after it. Amounts
// under 10,000 dollars (every price of a search and a quote) are made in one word
// (moneyWord) and written with one 8-byte store when buf has 8 bytes of room at n;
// the rest, and a buffer with less room, go through moneyAt (two calls, a cascade of
// compares, two table loads and four stores, each bounds-checked by workerd).
//
//go:inline
func MoneyAt(buf []byte, n int, cents int64) int {
	if uint64(cents) < 1_000_000 && n >= 0 && len(buf)-n >= 8 {
		w, m := moneyWord(uint32(cents))
		bytebuf.Store64(buf[n:n+8], w)
		return n + m
	}
	return moneyAt(buf, n, cents)
}

// moneyWord returns the text of cents (0 <= cents < 1,000,000: at most 9999.99) in the
// low bytes of a word, its first character lowest, and its length (1 to 7). The
// dollars' four digits are made together: their two pairs in the halves of a 32-bit
// word, each pair's tens by (v*103)>>10 (exact for v < 179; the halves cannot carry
// into each other), its units by subtraction. The leading zeros are the low zero bytes,
// counted with one trailing-zeros instruction and shifted out.
//
//go:inline
func moneyWord(cents uint32) (uint64, int) {
	d := cents / 100
	f := cents - d*100
	hi := d / 100
	x := hi | (d-hi*100)<<16          // the pairs of the dollars, the high one in the low half
	t := (x * 103) >> 10 & 0x000F000F // each pair's tens
	x = t | (x-t*10)<<8               // four digits, the first in the low byte
	z := uint32(bits.TrailingZeros32(x)) &^ 7
	if z > 24 { // 0 dollars: one digit
		z = 24
	}
	w := uint64((x | 0x30303030) >> z)
	nd := int(4 - z>>3)
	if f == 0 {
		return w, nd
	}
	ft := (f * 103) >> 10
	fu := f - ft*10
	w |= uint64('.'|('0'+ft)<<8|('0'+fu)<<16) << (8 * uint(nd))
	if fu == 0 {
		return w, nd + 2
	}
	return w, nd + 3
}

// moneyAt is MoneyAt for any amount and any room.
func moneyAt(buf []byte, n int, cents int64) int {
	if cents < 0 {
		buf[n] = '-'
		n++
		if cents == -cents { // math.MinInt64: its whole dollars and cents, apart
			return bytebuf.PutAt(buf, n, "92233720368547758.08")
		}
		cents = -cents
	}
	var frac uint32
	if cents <= 1<<32-1 { // 32-bit division, as IntAt
		d := uint32(cents) / 100
		frac = uint32(cents) - d*100
		n = uint32At(buf, n, d)
	} else {
		n = int64At(buf, n, cents/100)
		frac = uint32(cents % 100)
	}
	if frac == 0 {
		return n
	}
	dot := '.' | bytebuf.Load16(digitPairs, 2*frac)<<8 // the point and the two digits
	if frac%10 != 0 {
		d := buf[n : n+3]
		bytebuf.Store16(d[0:2], dot)
		d[2] = byte(dot >> 16)
		return n + 3
	}
	bytebuf.Store16(buf[n:n+2], dot)
	return n + 2
}

// MaxJSONString is the most bytes JSONStringAt writes for a string of n bytes: the
// quotes and a \u00XX escape for every byte.
func MaxJSONString(n int) int { return 2 + 6*n }

// JSONStringAt writes s as AppendJSONString does (quoted, escaped; at most
// MaxJSONString(len(s)) bytes) at buf[n:] and returns the index after it.
func JSONStringAt(buf []byte, n int, s string) int {
	buf[n] = '"'
	n++
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		n = bytebuf.PutAt(buf, n, s[start:i])
		switch c {
		case '"', '\\':
			n = bytebuf.ByteAt(buf, bytebuf.ByteAt(buf, n, '\\'), c)
		case '\n':
			n = bytebuf.PutAt(buf, n, `\n`)
		case '\r':
			n = bytebuf.PutAt(buf, n, `\r`)
		case '\t':
			n = bytebuf.PutAt(buf, n, `\t`)
		default: // control characters and <, >, & (safe to embed in HTML)
			n = bytebuf.PutAt(buf, n, `\u00`)
			n = bytebuf.ByteAt(buf, bytebuf.ByteAt(buf, n, text.HexDigits[c>>4]), text.HexDigits[c&0xf])
		}
		start = i + 1
	}
	return bytebuf.ByteAt(buf, bytebuf.PutAt(buf, n, s[start:]), '"')
}
