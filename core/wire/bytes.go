package wire

import (
	"unicode/utf8"
	"unsafe"
)

// Byte and number helpers shared by every package of core. Each is written once,
// here, and allocates nothing (except Clean, which builds a message).

// BytesString returns b as a string without copying; b must not change while the
// string is in use (the request buffer is only rewritten between requests).
func BytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// FNVOffset is the initial value of an FNV-64a hash.
const FNVOffset uint64 = 14695981039346656037

// FNV64a returns hash h (FNVOffset to start) continued over s: the one FNV-64a of
// core, used for the snapshot version, ETags and the rate limiter's client table.
// hash/fnv would return its state behind an interface, a heap allocation under TinyGo.
func FNV64a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Hash64 returns hash h continued over s, 8 bytes at a time (an availability ETag
// hashed its whole ~5 KB body with it until session 15; FNV-64a's byte loop had been
// ~5 us of its time in V8, at one multiply a byte). Not a stable format: only equality between two
// answers of one deployment matters. From 32 bytes on, four lanes run side by side
// (their multiplies do not wait on each other: a 4.6 KB answer ~1.5 -> ~0.5 us in V8)
// and are folded together at the end.
func Hash64(h uint64, s string) uint64 {
	h ^= uint64(len(s)) * 0x9E3779B97F4A7C15
	if len(s) >= 32 {
		h1, h2, h3 := h^0x94D049BB133111EB, h^0xBF58476D1CE4E5B9, h^0x9E3779B97F4A7C15
		for ; len(s) >= 32; s = s[32:] {
			h = (h ^ le64(s[0:8])) * 0xBF58476D1CE4E5B9
			h1 = (h1 ^ le64(s[8:16])) * 0xBF58476D1CE4E5B9
			h2 = (h2 ^ le64(s[16:24])) * 0xBF58476D1CE4E5B9
			h3 = (h3 ^ le64(s[24:32])) * 0xBF58476D1CE4E5B9
			h ^= h >> 31
			h1 ^= h1 >> 31
			h2 ^= h2 >> 31
			h3 ^= h3 >> 31
		}
		h = ((h*31+h1)*31+h2)*31 + h3
		h ^= h >> 29
	}
	for ; len(s) >= 8; s = s[8:] {
		h = (h ^ le64(s)) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x94D049BB133111EB
	}
	h ^= h >> 29
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>32
}

// Mix64 continues hash h over the word v (Hash64's step): for hashes of what an answer
// is made of rather than of its bytes. Finish with Hash64(h, "").
func Mix64(h, v uint64) uint64 {
	h = (h ^ v) * 0xBF58476D1CE4E5B9
	return h ^ h>>31
}

// le64 reads the first 8 bytes of s as a little-endian word (one load once compiled).
// go:inline (TinyGo) makes these helpers part of their callers: at -opt s they stayed
// calls.
//
//go:inline
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// AppendHex64 appends v as 16 lower-case hexadecimal digits: eight at a time, made in
// one 64-bit word (hexWord) and stored as one, where a digit at a time was a table
// load and a byte store each, every one bounds-checked by workerd's V8 (issue 16,
// session 29: a search's ETag). TestAppendHex64 holds it to fmt's %016x.
func AppendHex64(b []byte, v uint64) []byte {
	at := len(b)
	if cap(b)-at < 16 {
		b = grow(b, 16)
	}
	b = b[:at+16]
	out := b[at : at+16 : at+16]
	put64(out[:8], hexWord(uint32(v>>32)))
	put64(out[8:], hexWord(uint32(v)))
	return b
}

// hexWord returns the eight lower-case hexadecimal digits of v, the most significant
// in the low byte (the first in memory once stored little-endian): the nibbles spread
// one a byte, most significant first, then '0' + d, +39 more where d >= 10 (each byte
// stays below 0x80 before the test, so no lane carries into the next).
//
//go:inline
func hexWord(v uint32) uint64 {
	x := uint64(v>>16) | uint64(v&0xffff)<<32                                       // the high half first
	x = x>>8&0x000000ff000000ff | (x&0x000000ff000000ff)<<16                        // then its high byte
	x = x>>4&0x000f000f000f000f | (x&0x000f000f000f000f)<<8                         // then its high nibble
	return x + 0x3030303030303030 + (x+0x7676767676767676)&0x8080808080808080>>7*39 // '0'+d, 'a'+d-10
}

// FloorDiv returns a/b rounded towards negative infinity (b != 0).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ScanDigits reads the ASCII digits at the start of s while their value stays at
// most max, and returns that value and how many bytes it read: i == len(s) when s
// is all digits within max; otherwise s[i] is the first non-digit, or the digit
// that would have exceeded max. It is the one digit scanner of core.
//
//go:inline
func ScanDigits(s string, max int64) (n int64, i int) {
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return n, i
		}
		d := int64(c - '0')
		if d > max || n > (max-d)/10 { // n*10+d > max, asked without computing n*10 (it may overflow)
			return n, i
		}
		n = n*10 + d
	}
	return n, i
}

// Digits returns the value of s when s is a non-empty run of ASCII digits of value
// at most max.
//
//go:inline
func Digits(s string, max int64) (int64, bool) {
	n, i := ScanDigits(s, max)
	return n, i == len(s) && s != ""
}

// maxEcho is how many runes of client input an error message echoes.
const maxEcho = 40

// QuoteClean returns client input for an error message: Clean, in double quotes.
// JSON escaping happens when the message is written.
func QuoteClean(s string) string { return `"` + Clean(s) + `"` }

// Clean returns client input for an error message: cut to 40 runes, control
// characters and invalid UTF-8 replaced by '?'.
func Clean(s string) string {
	out := make([]byte, 0, len(s))
	n := 0
	for i := 0; i < len(s); {
		if n == maxEcho {
			out = append(out, "..."...)
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			r = '?'
		}
		out = utf8.AppendRune(out, r)
		i += size
		n++
	}
	return string(out)
}
