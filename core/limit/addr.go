package limit

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

// Key is a client's identity: an IPv4 address, an IPv6 /64 prefix, or the shared bucket.
type Key struct{ Hi, Lo uint64 }

// Shared is the one bucket of every request whose CF-Connecting-IP is absent or is not
// an IP address (Cloudflare's edge always sets it; only direct requests lack it).
var Shared = Key{0, 1}

// ClientOf returns the client identity of a CF-Connecting-IP value: an IPv4 address
// (also when written IPv4-mapped, ::ffff:a.b.c.d) by its 32 bits, an IPv6 address by its
// /64 prefix (one subscriber's allocation: a client cannot count as 2^64 clients), in
// any spelling (case, leading zeros, ::). Anything else is Shared. It accepts exactly
// what netip.ParseAddr accepts, zones aside (a test compares them on fuzzed input).
func ClientOf(h string) Key {
	if len(h) == 39 { // the full form, as most clients' addresses arrive (parseV6Full)
		if hi, lo, ok := parseV6Full(h); ok {
			return keyOf64(hi, lo)
		}
	}
	ip, ok := parseIP(h)
	if !ok {
		return Shared
	}
	return keyOf(&ip)
}

func keyOf(ip *[16]byte) Key {
	return keyOf64(binary.BigEndian.Uint64(ip[:8]), binary.BigEndian.Uint64(ip[8:]))
}

func keyOf64(hi, lo uint64) Key {
	if hi == 0 && lo>>32 == 0xffff {
		return Key{0, lo} // IPv4 (IPv4-mapped)
	}
	return Key{hi, 0}
}

// parseIP parses an IP address as netip.ParseAddr does, without zones, into 16 bytes
// (IPv4 as ::ffff:a.b.c.d). Hand-written rather than net/netip, whose code would be a
// large share of the module and whose error values are heap allocations (RATIONALE.md,
// "Why hand-written pieces where a library exists?").
func parseIP(s string) (ip [16]byte, ok bool) {
	if len(s) > 45 { // the longest address: 8 groups with an IPv4 tail
		return ip, false
	}
	if len(s) == 39 {
		if hi, lo, ok := parseV6Full(s); ok {
			binary.BigEndian.PutUint64(ip[:8], hi)
			binary.BigEndian.PutUint64(ip[8:], lo)
			return ip, true
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			ip[10], ip[11] = 0xff, 0xff
			ok = parseV4(s, ip[12:]) // before the return: its operands' order is unspecified
			return ip, ok
		case ':':
			return parseV6(s)
		}
	}
	return ip, false
}

// parseV6Full parses the full form of an IPv6 address, eight groups of four hex digits
// (39 bytes), the way privacy addresses, most clients' addresses, arrive in
// CF-Connecting-IP, into its two 64-bit halves. It fails on anything else, which parseV6
// then reads, so the two agree on every 39-byte string (TestParseV6FullEveryByte).
//
// Two groups at a time as one 64-bit word, their eight digits tested and converted
// together (hexPair), rather than byte by byte or through a table: each byte load and
// each lookup is a bounds-checked access under workerd, on every request (RATIONALE.md,
// "Why cursor writers and word-at-a-time code?").
func parseV6Full(s string) (hi, lo uint64, ok bool) {
	s = s[:39]
	// the seven colons, each 0 after the xor when it is one
	bad := uint32(s[4]^':') | uint32(s[9]^':') | uint32(s[14]^':') | uint32(s[19]^':') |
		uint32(s[24]^':') | uint32(s[29]^':') | uint32(s[34]^':')
	v0, b0 := hexPair(uint64(ld32(s, 0)) | uint64(ld32(s, 5))<<32)
	v1, b1 := hexPair(uint64(ld32(s, 10)) | uint64(ld32(s, 15))<<32)
	v2, b2 := hexPair(uint64(ld32(s, 20)) | uint64(ld32(s, 25))<<32)
	v3, b3 := hexPair(uint64(ld32(s, 30)) | uint64(ld32(s, 35))<<32)
	if uint64(bad)|b0|b1|b2|b3 != 0 {
		return 0, 0, false
	}
	return v0<<32 | v1, v2<<32 | v3, true
}

// ld32 is s[i:i+4] as a little-endian word (s is a 39-byte address, i at most 35):
// one 32-bit load. LLVM keeps four byte loads shifted into the top half of a 64-bit
// word as four loads (it joins byte loads into one only from bit 0 up).
// Unaligned, and fine so: wasm, amd64 and arm64 load a word at any address, and the
// Go checker of unsafe conversions (checkptr) tests alignment only for types that
// hold pointers. The module and these tests' hosts are little-endian; a big-endian
// host would fail TestParseV6FullEveryByte, not serve wrong keys unnoticed.
//
//go:inline
func ld32(s string, i int) uint32 {
	_ = s[i+3]
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}

// hexPair reads the eight hex digits in the bytes of x (the first digit in the lowest
// byte) as a 32-bit number, big-endian as written; bad is 0 when all eight are hex
// digits (either case), and not 0 otherwise. Per byte c below 0x80 no sum carries into
// the next byte: c+0x50 has its top bit set when c >= '0', c+0x46 when c > '9';
// y = c|0x20 folds the capitals ('A'-'F' and only they become 'a'-'f'), y+0x1f has its
// top bit set when y >= 'a', y+0x19 when y > 'f'. A byte of 0x80 or more is neither a
// digit nor a letter by these sums (each either keeps its top bit in both or wraps to
// clear it in the first), so it makes bad by itself; the carry it may pass upwards
// changes only bytes whose value is discarded with it.
//
//go:inline
func hexPair(x uint64) (v, bad uint64) {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	digit := (x + (0x80-'0')*ones) &^ (x + (0x80-'9'-1)*ones)
	y := x | 0x20*ones
	letter := (y + (0x80-'a')*ones) &^ (y + (0x80-'f'-1)*ones)
	bad = (digit|letter)&tops ^ tops
	n := x&(0x0f*ones) + (letter&tops)>>7*9                 // each byte its digit's value
	t := n&0x000f000f000f000f<<4 | n>>8&0x000f000f000f000f  // bytes 0, 2, 4, 6: two digits each
	u := t&0x000000ff000000ff<<8 | t>>16&0x000000ff000000ff // 16-bit lanes at bits 0 and 32: the groups
	return u&0xffff<<16 | u>>32, bad
}

// parseV4 parses four decimal fields of 0..255 without leading zeros into out[:4].
func parseV4(s string, out []byte) bool {
	field, digits, val := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || field > 3 {
				return false
			}
			out[field] = byte(val)
			field, digits, val = field+1, 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || (digits == 1 && val == 0) {
			return false
		}
		val, digits = val*10+int(c-'0'), digits+1
		if val > 255 {
			return false
		}
	}
	return field == 4
}

// parseV6 parses up to eight groups of 1-4 hex digits, at most one "::" standing for at
// least one zero group, and an optional IPv4 tail in place of the last two groups.
func parseV6(s string) (ip [16]byte, ok bool) {
	ellipsis, i := -1, 0 // where "::" is (bytes); bytes filled
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		ellipsis, s = 0, s[2:]
		if s == "" {
			return ip, true
		}
	}
	for i < 16 {
		off, acc := hexGroup(s)
		if off == 0 {
			return ip, false
		}
		if off < len(s) && s[off] == '.' { // an IPv4 tail
			if !v4Tail(s, &ip, i, ellipsis) {
				return ip, false
			}
			i, s = i+4, ""
			break
		}
		ip[i], ip[i+1] = byte(acc>>8), byte(acc)
		i += 2
		s = s[off:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return ip, false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis >= 0 {
				return ip, false
			}
			ellipsis, s = i, s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return ip, false
	}
	ok = expandEllipsis(&ip, i, ellipsis) // before the return: its operands' order is unspecified
	return ip, ok
}

// hexDigit returns the value of hex digit c (either case), or -1: text.Unhex, inlined,
// as parseV6 runs it for every digit.
//
//go:inline
func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// v4Tail parses the IPv4 tail s into ip[i:i+4], where parseV6 has filled i bytes and
// seen "::" at ellipsis (-1 for none): the tail stands for the last two groups. It and
// expandEllipsis are steps of parseV6, inlined into it.
//
//go:inline
func v4Tail(s string, ip *[16]byte, i, ellipsis int) bool {
	return (ellipsis >= 0 || i == 12) && i+4 <= 16 && parseV4(s, ip[i:i+4])
}

// hexGroup reads the group of one to four hex digits at the start of s: its length
// and value; length 0 when there is none or more than four digits follow.
//
//go:inline
func hexGroup(s string) (off, acc int) {
	for ; off < len(s); off++ {
		d := hexDigit(s[off])
		if d < 0 {
			break
		}
		if off == 4 {
			return 0, 0
		}
		acc = acc<<4 | d
	}
	return off, acc
}

// expandEllipsis completes an address of which parseV6 filled i bytes: the bytes
// after the "::" at ellipsis (-1 for none) move to the end and zeros take their place.
// It reports whether the address is whole: 16 bytes without "::", or fewer with one.
//
//go:inline
func expandEllipsis(ip *[16]byte, i, ellipsis int) bool {
	if i < 16 {
		if ellipsis < 0 {
			return false
		}
		n := 16 - i
		copy(ip[ellipsis+n:], ip[ellipsis:i])
		clear(ip[ellipsis : ellipsis+n])
	} else if ellipsis >= 0 {
		return false
	}
	return true
}

// appendClient appends the client's text form in KV keys: "203.0.113.7",
// "2001:db8:1:2::/64" (RFC 5952) or "unknown".
func appendClient(b []byte, k Key) []byte {
	switch {
	case k == Shared:
		return append(b, "unknown"...)
	case named(k):
		return appendNamed(b, k)
	case k.Hi == 0 && k.Lo>>32 == 0xffff:
		for i := 3; i >= 0; i-- {
			b = jsonw.AppendInt(b, int64(k.Lo>>(8*i)&0xff))
			if i > 0 {
				b = append(b, '.')
			}
		}
		return b
	}
	// Groups 4-7 are zero: the longest run of zero groups is the trailing one.
	last := -1
	for g := 0; g < 4; g++ {
		if k.Hi>>(48-16*g)&0xffff != 0 {
			last = g
		}
	}
	for g := 0; g <= last; g++ {
		if g > 0 {
			b = append(b, ':')
		}
		v := k.Hi >> (48 - 16*g) & 0xffff
		started := false
		for sh := 12; sh >= 0; sh -= 4 {
			if d := v >> sh & 0xf; d != 0 || started || sh == 0 {
				b = append(b, text.HexDigits[d])
				started = true
			}
		}
	}
	return append(b, "::/64"...)
}

// parseClient is the inverse of appendClient.
func parseClient(s string) (Key, bool) {
	if s == "unknown" {
		return Shared, true
	}
	if k, ok := parseNamed(s); ok {
		return k, true
	}
	if p, ok := strings.CutSuffix(s, "/64"); ok {
		ip, ok := parseIP(p)
		k := keyOf(&ip)
		return k, ok && k.Lo == 0 && strings.IndexByte(p, '.') < 0 && k == Key{binary.BigEndian.Uint64(ip[:8]), binary.BigEndian.Uint64(ip[8:])}
	}
	ip, ok := parseIP(s)
	k := keyOf(&ip)
	return k, ok && k.Hi == 0 && k.Lo>>32 == 0xffff && strings.IndexByte(s, ':') < 0
}
