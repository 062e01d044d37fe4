package jsonw

import (
	"math/bits"

	"github.com/campervan/agent-api/core/text"
)

// The cursor writers, for the hot loops of an answer (a search's offers, a quote's
// lines): the loop first makes room for all it will write (Room, the one call that may
// allocate), then writes at an index into the buffer's whole capacity, each writer
// returning the index after what it wrote.
//
// Why not the appenders: they may grow their buffer, so they may allocate, and under
// TinyGo every function that may allocate, and every caller of one that holds a
// pointer, pushes a frame on the collector's stack chain at each call (transform/gc.go
// places frames by "may allocate", without liveness). They also return a slice, which
// wasm gets back through memory. The frame and the result are loads and stores to
// linear memory, each bounds-checked by workerd's V8. A cursor writer never allocates
// and returns an int: TinyGo gives it no frame, nor a loop that only calls cursor
// writers.
//
// A writer that outgrows its room panics (an index out of range, a trap the glue answers
// with a 500 and a new instance); it never truncates. The callers size their room from
// the lengths they write and the Max* bounds below; their tests render the largest
// values.

// MaxInt is the most bytes IntAt writes (math.MinInt64).
const MaxInt = 20

// MaxMoney is the most bytes MoneyAt writes: a sign, 17 digits of whole dollars and
// ".dd" (math.MinInt64 cents).
const MaxMoney = 21

// PutAt writes s at buf[n:] and returns n + len(s): up to 16 bytes with at most two
// overlapping word loads and stores, longer with copy (put.go says why).
//
//go:inline
func PutAt(buf []byte, n int, s string) int { return putAt(buf, n, s) }

// BytesAt writes p at buf[n:] and returns n + len(p); p may lie in buf before n. It is
// PutAt for a byte slice, instantiated rather than called through BytesString: that
// conversion may panic, which would give the wrapper a collector frame.
//
//go:inline
func BytesAt(buf []byte, n int, p []byte) int { return putAt(buf, n, p) }

// CopyAt writes p at buf[n:] with copy (memory.copy) and returns n + len(p): BytesAt
// for pieces that are always longer than its word paths (a vehicle's parts, a booking
// link), small enough to be inlined into the writer's loop where BytesAt, with its
// cases, is a call.
//
//go:inline
func CopyAt(buf []byte, n int, p []byte) int { return n + copy(buf[n:n+len(p)], p) }

// Short is a piece of at most 16 bytes held as two little-endian words, for ShortAt:
// a piece a loop writes many times (a vehicle's id and the end of its offer, the
// search's days and the name after them), which BytesAt would copy through a call and
// its cases by length.
type Short struct {
	w0, w1 uint64
	n      int
}

// MakeShort returns p as a Short, and false (and an empty Short) when p is longer than
// 16 bytes.
func MakeShort(p []byte) (Short, bool) {
	if len(p) > 16 {
		return Short{}, false
	}
	var b [16]byte
	copy(b[:], p)
	return Short{w0: ld64(b[:], 0), w1: ld64(b[:], 8), n: len(p)}, true
}

// Len returns the length of s.
func (s *Short) Len() int { return s.n }

// ShortAt writes s at buf[n:] with two 8-byte stores and returns n + s.Len(). It
// writes 16 bytes: buf must have 16 bytes of room at n, and what follows s there is
// overwritten (the caller's room has 16 bytes to spare). The stores go through unsafe
// (st64), so each is one store in every caller; MakeShort's words assume a
// little-endian host, as the module and the tests' hosts are.
//
//go:inline
func ShortAt(buf []byte, n int, s *Short) int {
	d := buf[n : n+16 : n+16]
	st64(d, s.w0)
	st64(d[8:], s.w1)
	return n + s.n
}

// ShortOrBytesAt writes p at buf[n:]: as ShortAt(s) when s holds p (MakeShort took
// it: s.Len() == len(p)), else as BytesAt. The same room rule as ShortAt.
//
//go:inline
func ShortOrBytesAt(buf []byte, n int, s *Short, p []byte) int {
	if s.n == len(p) {
		return ShortAt(buf, n, s)
	}
	return BytesAt(buf, n, p)
}

func putAt[S byteString](buf []byte, n int, s S) int {
	m := len(s)
	d := buf[n : n+m]
	switch {
	case m > 16:
		copy(d, s)
	case m >= 8:
		t := d[m-8:] // every bounds check before the loads, so each word is one load and one store
		w0, w1 := ld64(s, 0), ld64(s, m-8)
		put64(d, w0)
		put64(t, w1)
	case m >= 4:
		t := d[m-4:]
		w0, w1 := ld32(s, 0), ld32(s, m-4)
		put32(d, w0)
		put32(t, w1)
	case m > 0:
		d[0], d[m>>1], d[m-1] = s[0], s[m>>1], s[m-1]
	}
	return n + m
}

// ByteAt writes c at buf[n] and returns n + 1.
func ByteAt(buf []byte, n int, c byte) int {
	buf[n] = c
	return n + 1
}

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
			return PutAt(buf, n, "9223372036854775808")
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
		put16(d, ld16(digitPairs, 2*v))
		return n + 2
	case v < 1000:
		q := v / 100
		d := buf[n : n+3]
		w := ld16(digitPairs, 2*(v-q*100))
		d[0] = byte('0' + q)
		put16(d[1:3], w)
		return n + 3
	case v < 10000:
		q := v / 100
		d := buf[n : n+4]
		w := ld16(digitPairs, 2*q) | ld16(digitPairs, 2*(v-q*100))<<16
		put32(d, w)
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
		put16(out[i:i+2], ld16(digitPairs, 2*(v-q*100)))
		v = q
	}
	if v >= 10 {
		put16(out[:2], ld16(digitPairs, 2*v))
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
		put64(buf[n:n+8], w)
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
			return PutAt(buf, n, "92233720368547758.08")
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
	dot := '.' | ld16(digitPairs, 2*frac)<<8 // the point and the two digits
	if frac%10 != 0 {
		d := buf[n : n+3]
		put16(d[0:2], dot)
		d[2] = byte(dot >> 16)
		return n + 3
	}
	put16(buf[n:n+2], dot)
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
		n = PutAt(buf, n, s[start:i])
		switch c {
		case '"', '\\':
			n = ByteAt(buf, ByteAt(buf, n, '\\'), c)
		case '\n':
			n = PutAt(buf, n, `\n`)
		case '\r':
			n = PutAt(buf, n, `\r`)
		case '\t':
			n = PutAt(buf, n, `\t`)
		default: // control characters and <, >, & (safe to embed in HTML)
			n = PutAt(buf, n, `\u00`)
			n = ByteAt(buf, ByteAt(buf, n, text.HexDigits[c>>4]), text.HexDigits[c&0xf])
		}
		start = i + 1
	}
	return ByteAt(buf, PutAt(buf, n, s[start:]), '"')
}
