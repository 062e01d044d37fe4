package text

// HexDigits are the lower-case hexadecimal digits.
const HexDigits = "0123456789abcdef"

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

// Hash64 returns hash h continued over s, 8 bytes at a time, for hashing whole answers
// (ETags). Not a stable format: only equality between two answers of one deployment
// matters. From 32 bytes on, four lanes run side by side, so their multiplies do not
// wait on each other, and are folded together at the end.
func Hash64(h uint64, s string) uint64 {
	h ^= uint64(len(s)) * 0x9E3779B97F4A7C15
	if len(s) >= 32 {
		h1, h2, h3 := h^0x94D049BB133111EB, h^0xBF58476D1CE4E5B9, h^0x9E3779B97F4A7C15
		for ; len(s) >= 32; s = s[32:] {
			h = (h ^ ld64(s, 0)) * 0xBF58476D1CE4E5B9
			h1 = (h1 ^ ld64(s, 8)) * 0xBF58476D1CE4E5B9
			h2 = (h2 ^ ld64(s, 16)) * 0xBF58476D1CE4E5B9
			h3 = (h3 ^ ld64(s, 24)) * 0xBF58476D1CE4E5B9
			h ^= h >> 31
			h1 ^= h1 >> 31
			h2 ^= h2 >> 31
			h3 ^= h3 >> 31
		}
		h = ((h*31+h1)*31+h2)*31 + h3
		h ^= h >> 29
	}
	for ; len(s) >= 8; s = s[8:] {
		h = (h ^ ld64(s, 0)) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x94D049BB133111EB
	}
	h ^= h >> 29
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>32
}

// AppendHex64 appends v as 16 lower-case hexadecimal digits, eight at a time: each
// eight made in one 64-bit word (hexWord) and stored as one.
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
