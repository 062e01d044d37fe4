package limit

import "github.com/campervan/agent-api/core/text"

// Kind is who a bucket counts: an address (IPv4, IPv6 /64 or the shared bucket), a
// partner's key, or a signed agent's origin.
type Kind uint8

const (
	Address Kind = iota
	Partner
	Agent
)

// Name is the bucket's name in RateLimit-Policy: "default" (an address), "partner" or
// "agent".
func (k Kind) Name() string {
	switch k {
	case Partner:
		return "partner"
	case Agent:
		return "agent"
	}
	return "default"
}

// Bucket is one identity's count: its key in the table, its limit per window, and its
// kind.
type Bucket struct {
	Key   Key
	Limit int64
	Kind  Kind
}

// The Lo word of a named bucket's key: an address's key never has these (an IPv6
// prefix has Lo 0, an IPv4 address 0xffff in Lo's high half, Shared is {0, 1}).
const (
	tagPartner = 2
	tagAgent   = 3
)

// Named returns the key of a partner's (kind Partner) or an agent's (Agent) bucket: a
// 64-bit FNV-1a hash of name, never 0, with the kind's tag. The hash is not seeded:
// every isolate must name the bucket alike in KV. Names come from the operator (a
// key's name, a listed origin), so no client chooses them. It allocates nothing.
func Named(kind Kind, name string) Key {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	if h == 0 {
		h = 1
	}
	tag := uint64(tagPartner)
	if kind == Agent {
		tag = tagAgent
	}
	return Key{Hi: h, Lo: tag}
}

// named reports whether k is a named bucket's key.
func named(k Key) bool { return k.Hi != 0 && (k.Lo == tagPartner || k.Lo == tagAgent) }

// appendNamed appends a named bucket's text form in KV keys: "partner-" or "agent-"
// and the hash's 16 hex digits.
func appendNamed(b []byte, k Key) []byte {
	if k.Lo == tagPartner {
		b = append(b, "partner-"...)
	} else {
		b = append(b, "agent-"...)
	}
	for sh := 60; sh >= 0; sh -= 4 {
		b = append(b, text.HexDigits[k.Hi>>sh&0xf])
	}
	return b
}

// parseNamed is the inverse of appendNamed.
func parseNamed(s string) (Key, bool) {
	var tag uint64
	switch {
	case len(s) == 8+16 && s[:8] == "partner-":
		tag, s = tagPartner, s[8:]
	case len(s) == 6+16 && s[:6] == "agent-":
		tag, s = tagAgent, s[6:]
	default:
		return Key{}, false
	}
	var h uint64
	for i := 0; i < 16; i++ {
		d := hexDigit(s[i])
		if d < 0 || 'A' <= s[i] && s[i] <= 'F' {
			return Key{}, false
		}
		h = h<<4 | uint64(d)
	}
	return Key{Hi: h, Lo: tag}, h != 0
}

// clampLimit bounds a limit to what the table's counts hold.
func clampLimit(limit int64) int64 { return min(max(limit, 1), 1<<31) }
