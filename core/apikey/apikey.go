// Package apikey mints and verifies partner keys: a self-verifying bearer token that
// carries its partner's name, the partner's limit (requests per rate-limit window) and
// an optional expiry, with a truncated HMAC-SHA256 under the secret API_KEY_SECRET
// (the form of QUOTE_SIGNING_KEYS, "kid:base64url-key[,kid:key...]": the first key
// signs, every one verifies). Verification needs no lookup: the MAC and the expiry
// against the request's clock, and the name against REVOKED_KEYS.
//
// A key is "ck_" and the base64url (no padding) of:
//
//	version (1 byte, 1), key id (1 byte), uvarint limit, uvarint expiry (unix seconds;
//	0: none), the name (1-64 bytes of a-z 0-9 . _ -), then the MAC's first 16 bytes
//	over all of that.
//
// Verify allocates nothing: it decodes into the Verifier's scratch (so a Verifier is
// not safe for concurrent use, like the api.Server that holds it).
package apikey

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"unsafe"

	"github.com/campervan/agent-api/core/quotetoken"
)

const (
	// Prefix starts every key (a reader, a secret scanner, can tell one).
	Prefix = "ck_"
	// MaxName is the longest partner name.
	MaxName = 64
	// MaxLimit is the highest limit a key carries.
	MaxLimit = 1 << 31
	// MaxLen is the longest key Mint writes (and Verify reads): 2 + 5 + 6 + 64 + 16
	// bytes in base64url after the prefix.
	MaxLen  = len(Prefix) + (maxRaw*8+5)/6
	version = 1
	maxRaw  = 2 + 5 + 6 + MaxName + macLen
	macLen  = quotetoken.MACLen
	maxUnix = 1 << 40
)

// Result is the outcome of Verify.
type Result uint8

const (
	OK        Result = iota
	Malformed        // not a key this service writes
	Forged           // an unknown key id, or a MAC that does not match
	Expired          // past its expiry at the request's time
	Revoked          // its name is in REVOKED_KEYS
)

// Reason is the refusal's text for a 401's message (never the key itself).
func (r Result) Reason() string {
	switch r {
	case Malformed:
		return "the key is malformed: a partner key starts with ck_ and is sent as Authorization: Bearer <key>"
	case Forged:
		return "the key was not issued by this service (or under a secret since retired)"
	case Expired:
		return "the key has expired"
	case Revoked:
		return "the key has been revoked"
	}
	return "the key is valid"
}

// Key is what a key says. Name is a view of the Verifier's scratch after Verify (valid
// until its next call).
type Key struct {
	Name    []byte
	Limit   int64
	Expires int64 // unix seconds; 0: none
}

// Verifier verifies keys under a secret's keys and a list of revoked names.
type Verifier struct {
	ring    *quotetoken.Keyring
	revoked []string
	raw     [maxRaw]byte
	mac     [macLen]byte
}

// NewVerifier parses the secret (API_KEY_SECRET's form) and the revoked names
// (REVOKED_KEYS, comma-separated). An error never contains a key.
func NewVerifier(secret, revoked string) (*Verifier, error) {
	ring, err := quotetoken.ParseKeys(secret)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "the quote signing keys: "))
	}
	v := &Verifier{ring: ring}
	v.SetRevoked(revoked)
	return v, nil
}

// ValidName reports whether name is a partner name: 1-64 bytes of a-z 0-9 . _ -.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Mint returns the key of a partner: name (ValidName), limit (1 to MaxLimit), expires
// (unix seconds, 0 for none), signed with the secret's first key.
func (v *Verifier) Mint(name string, limit, expires int64) (string, error) {
	if !ValidName(name) {
		return "", errors.New("the name must be 1-64 characters of a-z, 0-9, '.', '_' and '-'")
	}
	if limit < 1 || limit > MaxLimit {
		return "", errors.New("the limit must be a whole number from 1 to 2147483648")
	}
	if expires < 0 || expires >= maxUnix {
		return "", errors.New("the expiry must be a unix time in seconds")
	}
	b := make([]byte, 0, maxRaw)
	b = append(b, version, v.ring.KeyID())
	b = binary.AppendUvarint(b, uint64(limit))
	b = binary.AppendUvarint(b, uint64(expires))
	b = append(b, name...)
	var mac [macLen]byte
	v.ring.MAC(v.ring.KeyID(), b, &mac)
	b = append(b, mac[:]...)
	return string(quotetoken.AppendBase64URL([]byte(Prefix), b)), nil
}

var enc = base64.RawURLEncoding.Strict()

// Verify checks key (the token after "Bearer ") at unix time nowSec and fills k. The
// MAC is compared in constant time; the revoked names are compared after it (only a
// key this service issued has a name worth looking up).
func (v *Verifier) Verify(key string, nowSec int64, k *Key) Result {
	if len(key) <= len(Prefix) || len(key) > MaxLen || key[:len(Prefix)] != Prefix {
		return Malformed
	}
	body := key[len(Prefix):]
	if !quotetoken.Base64URL(body) {
		return Malformed
	}
	n, err := enc.Decode(v.raw[:], unsafe.Slice(unsafe.StringData(body), len(body)))
	if err != nil || n < 2+1+1+1+macLen || v.raw[0] != version {
		return Malformed
	}
	msg := v.raw[:n-macLen]
	if !v.ring.MAC(v.raw[1], msg, &v.mac) || subtle.ConstantTimeCompare(v.mac[:], v.raw[n-macLen:n]) != 1 {
		return Forged
	}
	if !decode(msg[2:], k) {
		return Malformed
	}
	if k.Expires != 0 && nowSec >= k.Expires {
		return Expired
	}
	if v.isRevoked(k.Name) {
		return Revoked
	}
	return OK
}

// isRevoked reports whether name is in REVOKED_KEYS.
func (v *Verifier) isRevoked(name []byte) bool {
	n := unsafe.String(unsafe.SliceData(name), len(name)) // a view: TinyGo copies string(name)
	for _, r := range v.revoked {
		if n == r {
			return true
		}
	}
	return false
}

// decode reads a signed key's limit, expiry and name.
func decode(b []byte, k *Key) bool {
	limit, n := binary.Uvarint(b)
	if n <= 0 || limit < 1 || limit > MaxLimit {
		return false
	}
	b = b[n:]
	exp, n := binary.Uvarint(b)
	if n <= 0 || exp >= maxUnix {
		return false
	}
	name := b[n:]
	if !ValidName(unsafe.String(unsafe.SliceData(name), len(name))) {
		return false
	}
	k.Name, k.Limit, k.Expires = name, int64(limit), int64(exp)
	return true
}

// Bearer returns the token of an Authorization value "Bearer <token>" (the scheme in
// any case, RFC 7235), and whether the value has that form.
func Bearer(h string) (string, bool) {
	const s = "bearer "
	if len(h) <= len(s) || !strings.EqualFold(h[:len(s)], s) {
		return "", false
	}
	return strings.TrimLeft(h[len(s):], " "), true
}

// SetRevoked replaces the revoked names (REVOKED_KEYS, comma-separated).
func (v *Verifier) SetRevoked(revoked string) {
	v.revoked = v.revoked[:0]
	for _, n := range strings.Split(revoked, ",") {
		if n = strings.TrimSpace(n); n != "" {
			v.revoked = append(v.revoked, n)
		}
	}
}
