// Package quotetoken signs and verifies quote ids: a quote's inputs, its total in
// cents, the inventory version that priced it, its issue and expiry times, a nonce and
// a key id, followed by a truncated HMAC-SHA256 under a secret key, all base64url.
// Anyone holding a key can check an id without a lookup (docs/quote-token.md gives the
// byte layout and a reference verifier; worker/quotetoken_verify.mjs is one in Node).
//
// Nothing here allocates once a Keyring exists: Sign appends to the caller's buffer,
// Verify decodes into the caller's Quote, and both work in the Keyring's scratch space
// (so a Keyring is not safe for concurrent use, like the api.Server that holds it).
package quotetoken

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"unsafe"
)

const (
	// Version is the first byte of every token's payload (the format's version).
	Version = 1
	// MACLen is how many bytes of the HMAC-SHA256 a token carries (128 bits).
	MACLen = 16
	// NonceLen is the length of the random nonce that makes every id unique.
	NonceLen = 8
	// MaxLines is the most accessory lines a quote carries (accessory_ids takes at
	// most 20 ids, so at most 20 different accessories).
	MaxLines = 20
	// MaxLen is the longest token Sign writes when every id and date (days since
	// 1970-01-01) is below 2^21 (2,097,152): 146 bytes, 195 characters
	// (TestWorstCaseLength). Verify refuses anything longer than MaxLen.
	MaxLen = 200
	// MinKeyLen is the shortest key ParseKeys accepts (bytes).
	MinKeyLen = 16

	maxRaw = MaxLen * 3 / 4
	maxID  = 1<<31 - 1
	// bounds of the numbers a payload may carry: anything outside is not one Sign wrote
	maxCents = 1 << 52
	maxDays  = 1 << 22 // a date, a hire's length
	maxUnix  = 1 << 40 // issue time (unix s) and lifetime (s)
)

// Line is one accessory of a quote: its id and how many units.
type Line struct {
	ID       int64
	Quantity int64
}

// Quote is what a token says. Sign reads every field but KeyID (it signs with the
// first key and sets KeyID); Verify fills every field.
type Quote struct {
	PickUpDepot, DropOffDepot int64
	PickUp, DropOff           int64 // civil dates: days since 1970-01-01
	VehicleID                 int64
	InsuranceID               int64 // 0: none
	NLines                    int
	Lines                     [MaxLines]Line
	TotalCents                int64
	Inventory                 uint32 // the inventory version that priced it (InventoryTag)
	IssuedAt, ExpiresAt       int64  // unix seconds
	Nonce                     [NonceLen]byte
	KeyID                     uint8
}

// InventoryTag is how a token names an inventory version: the top 32 bits of the
// FNV-64a hash of the version string (X-Inventory-Version).
func InventoryTag(version string) uint32 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(version); i++ {
		h ^= uint64(version[i])
		h *= 1099511628211
	}
	return uint32(h >> 32)
}

// Result is the outcome of Verify: OK, or why the token was refused.
type Result uint8

const (
	OK           Result = iota
	Malformed           // not base64url, too short or too long
	UnknownKey          // its key id is none of the keyring's
	BadSignature        // the MAC does not match: tampered with, or another key
	BadPayload          // signed, but the fields are not a quote (never written by Sign)
)

// String says what went wrong, for messages; it never contains key material.
func (r Result) String() string {
	switch r {
	case OK:
		return "valid"
	case Malformed:
		return "it is not a quote id (quote ids are base64url, at most 200 characters)"
	case UnknownKey:
		return "it was signed with a key this service does not hold"
	case BadSignature:
		return "its signature does not match (the id was altered or not issued here)"
	}
	return "its fields are not a quote"
}

type key struct {
	id           uint8
	b64          string    // the key as configured until prepare decodes it; "" after (a key is never empty)
	inner, outer [8]uint32 // SHA-256 states after the key XOR ipad / opad block
}

// Keyring holds the signing keys: the first signs, every one verifies.
type Keyring struct {
	keys []key
	d    digest
	sum  [32]byte
	raw  []byte // payload + MAC scratch, cap max(maxRaw, maxPayload) + MACLen
}

// enc is RFC 4648 base64url without padding, strict: a token has one spelling.
var enc = base64.RawURLEncoding.Strict()

// ParseKeys reads "kid:key[,kid:key...]": kid a decimal 0-255, key base64url (padding
// optional) of at least MinKeyLen bytes. Error messages never contain a key.
func ParseKeys(s string) (*Keyring, error) {
	k := &Keyring{raw: make([]byte, 0, max(maxRaw, maxPayload)+MACLen)}
	entry := 0
	for len(s) > 0 {
		var e string
		if i := strings.IndexByte(s, ','); i >= 0 {
			e, s = s[:i], s[i+1:]
		} else {
			e, s = s, ""
		}
		e = strings.TrimSpace(e)
		entry++
		if e == "" {
			continue
		}
		c := strings.IndexByte(e, ':')
		if c <= 0 || c > 3 {
			return nil, keyError{entry, "is not kid:key (kid a number from 0 to 255)"}
		}
		id := 0
		for _, ch := range []byte(e[:c]) {
			if ch < '0' || ch > '9' {
				return nil, keyError{entry, "has a key id that is not a number from 0 to 255"}
			}
			id = id*10 + int(ch-'0')
		}
		if id > 255 {
			return nil, keyError{entry, "has a key id above 255"}
		}
		for _, o := range k.keys {
			if int(o.id) == id {
				return nil, keyError{entry, "repeats a key id"}
			}
		}
		b64 := e[c+1:]
		for len(b64) > 0 && b64[len(b64)-1] == '=' {
			b64 = b64[:len(b64)-1]
		}
		n, ok := decodedLen(b64)
		if !ok {
			return nil, keyError{entry, "has a key that is not base64url"}
		}
		if n < MinKeyLen {
			return nil, keyError{entry, "has a key shorter than 16 bytes"}
		}
		k.keys = append(k.keys, newKey(uint8(id), b64))
	}
	if len(k.keys) == 0 {
		return nil, keyError{0, "holds no key"}
	}
	return k, nil
}

type keyError struct {
	entry int
	what  string
}

func (e keyError) Error() string {
	if e.entry == 0 {
		return "the quote signing keys: the list " + e.what
	}
	return "the quote signing keys: entry " + strconv.Itoa(e.entry) + " " + e.what
}

// decodedLen returns the length of what base64.RawURLEncoding.DecodeString(s) returns,
// and whether it returns no error: the same answer without decoding (TestDecodedLen
// holds the two alike), so that ParseKeys checks a key in every instance's configure
// without running the decoder, which then runs on the key's first use (prepare).
func decodedLen(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
			n++
		case c == '\r', c == '\n': // the decoder skips them
		default:
			return 0, false
		}
	}
	if n%4 == 1 {
		return 0, false
	}
	return n * 6 / 8, true
}

// newKey keeps the key's base64url text for prepare. The key is decoded and its HMAC
// states computed on its first use, not when the keys are parsed: parsing runs in every
// instance's configure, and the SHA-256 block is one of the module's larger functions,
// which V8 compiles on its first call, as it does the base64 decoder. An isolate whose
// first request is not a quote (the depots, a search) then compiles neither during its
// cold start.
func newKey(id uint8, b64 string) key {
	return key{id: id, b64: b64}
}

// prepare decodes the key (ParseKeys checked it: decodedLen) and computes its HMAC
// states (RFC 2104: a key longer than the block is hashed first).
func (k *key) prepare() {
	var d digest
	var block [blockSize]byte
	secret, _ := base64.RawURLEncoding.DecodeString(k.b64)
	if len(secret) > blockSize {
		var sum [32]byte
		d.reset(&init256, 0)
		d.write(secret)
		d.finish(&sum)
		secret = sum[:]
	}
	for _, pad := range [2]byte{0x36, 0x5c} {
		for i := range block {
			block[i] = pad
		}
		for i, c := range secret {
			block[i] ^= c
		}
		d.reset(&init256, 0)
		d.block(block[:])
		if pad == 0x36 {
			k.inner = d.h
		} else {
			k.outer = d.h
		}
	}
	k.b64 = ""
}

// KeyID returns the id of the signing key.
func (k *Keyring) KeyID() uint8 { return k.keys[0].id }

// mac writes HMAC-SHA256(key, msg) into k.sum.
func (k *Keyring) mac(key *key, msg []byte) {
	if key.b64 != "" {
		key.prepare()
	}
	if len(msg) <= blockSize-9 { // every payload of a token Sign writes or Verify takes
		k.macShort(key, msg)
		return
	}
	k.d.reset(&key.inner, blockSize)
	k.d.write(msg)
	k.d.finish(&k.sum)
	k.d.reset(&key.outer, blockSize)
	k.d.write(k.sum[:])
	k.d.finish(&k.sum)
}

// macShort is mac for a message that fits one block with its padding (at most 55
// bytes): the inner hash is one compression of msg padded in place, and the outer one
// compression of the inner digest's eight words as they are, with its padding as
// constant words. digest's write and finish would zero the padding byte by byte, write
// the inner digest out as bytes and read it back as words.
//
// When msg's array has a block's room (the keyring's scratch, where Sign and Verify
// put every payload), the inner block's words are read from it eight bytes a load and
// byte-swapped in registers, and the padding is made in the words (innerWords), not
// copied into a buffer (a memory.copy, a call out of wasm in V8) and read back a byte
// at a time.
func (k *Keyring) macShort(key *key, msg []byte) {
	d := &k.d
	w := &d.w
	d.h = key.inner
	if cap(msg) >= blockSize {
		innerWords(w, msg[:blockSize:blockSize], len(msg))
		compress(&d.h, w)
	} else {
		d.buf = [blockSize]byte{} // constant length: word stores, not a call out of wasm
		n := copy(d.buf[:], msg)
		d.buf[n] = 0x80
		binary.BigEndian.PutUint64(d.buf[blockSize-8:], uint64(blockSize+n)<<3)
		d.block(d.buf[:])
	}
	*(*[8]uint32)(w[:8]) = d.h
	*(*[8]uint32)(w[8:]) = [8]uint32{0x80000000, 0, 0, 0, 0, 0, 0, (blockSize + 32) << 3}
	d.h = key.outer
	compress(&d.h, w)
	// The digest big-endian, two words a store rather than 32 byte stores, each
	// bounds-checked by workerd's V8. An 8-byte store through unsafe: from PutUint64 of
	// the swapped words, LLVM sees through the swap and stores the bytes one by one.
	h := &d.h
	for i := 0; i < 8; i += 2 {
		*(*uint64)(unsafe.Pointer(&k.sum[4*i : 4*i+8 : 4*i+8][0])) = swap32x2(uint64(h[i]) | uint64(h[i+1])<<32)
	}
}

// swap32x2 reverses the bytes of each 32-bit half of v: two big-endian words read
// with one little-endian load, or written with one store. Ten operations: wasm has no
// byte swap, and LLVM's lowering of bits.ReverseBytes64 is longer.
//
//go:inline
func swap32x2(v uint64) uint64 {
	v = v&0xffff0000ffff0000>>16 | v&0x0000ffff0000ffff<<16
	return v&0xff00ff00ff00ff00>>8 | v&0x00ff00ff00ff00ff<<8
}

// innerWords sets w to the block of HMAC's inner hash over the n bytes (n at most 55)
// at the start of blk (a block's bytes, past n whatever they hold), after the key's
// block: the message's words big-endian, the 0x80 after it, zeros, and the length in
// bits of the key's block and the message.
func innerWords(w *[16]uint32, blk []byte, n int) {
	blk = blk[:blockSize:blockSize]
	for i := 0; i < 8; i++ {
		v := swap32x2(binary.LittleEndian.Uint64(blk[8*i : 8*i+8]))
		w[2*i], w[2*i+1] = uint32(v), uint32(v>>32)
	}
	wi, j := n>>2&15, uint(n&3) // the word of byte n, and its place in the word
	w[wi] = w[wi]&^(0xffffffff>>(8*j)) | 0x80000000>>(8*j)
	for i := wi + 1; i < 14; i++ {
		w[i] = 0
	}
	w[14], w[15] = 0, uint32(blockSize+n)<<3
}

// Sign appends the token of q, signed with the first key, to dst; it sets q.KeyID.
func (k *Keyring) Sign(dst []byte, q *Quote) []byte {
	key := &k.keys[0]
	q.KeyID = key.id
	b := k.raw[:cap(k.raw)]
	n := payloadAt(b, 0, q)
	k.mac(key, b[:n])
	// an array assignment: a copy of constant length, which LLVM writes as word loads
	// and stores rather than a memory.copy (a call out to C in V8)
	*(*[MACLen]byte)(b[n:]) = [MACLen]byte(k.sum[:])
	return appendBase64(dst, b[:n+MACLen])
}

// Verify decodes tok into q when it is a token signed by one of the keys. It does not
// look at the expiry: the caller decides what an expired quote means.
func (k *Keyring) Verify(tok string, q *Quote) Result {
	if len(tok) < 4 || len(tok) > MaxLen || enc.DecodedLen(len(tok)) > cap(k.raw) {
		return Malformed
	}
	if !Base64URL(tok) {
		return Malformed
	}
	src := unsafe.Slice(unsafe.StringData(tok), len(tok)) // read only
	n, err := enc.Decode(k.raw[:cap(k.raw)], src)
	if err != nil || n < 2+MACLen {
		return Malformed
	}
	b := k.raw[:n]
	if b[0] != Version {
		return Malformed
	}
	key := k.byID(b[1])
	if key == nil {
		return UnknownKey
	}
	body := b[:n-MACLen]
	k.mac(key, body)
	if subtle.ConstantTimeCompare(k.sum[:MACLen], b[n-MACLen:]) != 1 {
		return BadSignature
	}
	if !decodePayload(body, q) {
		return BadPayload
	}
	return OK
}

// Base64URL reports whether tok is only characters of the base64url alphabet:
// encoding/base64 skips '\r' and '\n', and a token (or a partner key, core/apikey) has
// one spelling only. Inlined: Verify runs it on every token.
//
//go:inline
func Base64URL(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// byID returns the key of id, or nil.
//
//go:inline
func (k *Keyring) byID(id byte) *key {
	for i := range k.keys {
		if k.keys[i].id == id {
			return &k.keys[i]
		}
	}
	return nil
}

// maxPayload bounds what payloadAt writes whatever q holds: every uvarint at its
// longest.
const maxPayload = 2 + (7+2*MaxLines+3)*binary.MaxVarintLen64 + 4 + NonceLen

// payloadAt writes the signed fields of q at b[n:], which has room for maxPayload bytes,
// and returns the index after them:
//
//	version, key id (1 byte each); uvarints: pick-up depot, drop-off depot, pick-up
//	date, drop-off - pick-up, vehicle, insurance (0: none), number of accessory lines,
//	then per line id and quantity, total cents; the inventory tag (4 bytes, big-endian);
//	uvarints: issued at, expires at - issued at; the nonce (8 bytes).
//
// Written at an index rather than appended: binary.AppendUvarint is a call to
// runtime.sliceAppend per byte under TinyGo.
func payloadAt(b []byte, n int, q *Quote) int {
	_ = b[n+maxPayload-1]
	b[n], b[n+1] = Version, q.KeyID
	n = uvarintAt(b, n+2, uint64(q.PickUpDepot))
	n = uvarintAt(b, n, uint64(q.DropOffDepot))
	n = uvarintAt(b, n, uint64(q.PickUp))
	n = uvarintAt(b, n, uint64(q.DropOff-q.PickUp))
	n = uvarintAt(b, n, uint64(q.VehicleID))
	n = uvarintAt(b, n, uint64(q.InsuranceID))
	lines := q.NLines
	if lines < 0 {
		lines = 0
	} else if lines > MaxLines {
		lines = MaxLines
	}
	n = uvarintAt(b, n, uint64(lines))
	for i := 0; i < lines; i++ {
		n = uvarintAt(b, n, uint64(q.Lines[i].ID))
		n = uvarintAt(b, n, uint64(q.Lines[i].Quantity))
	}
	n = uvarintAt(b, n, uint64(q.TotalCents))
	binary.BigEndian.PutUint32(b[n:], q.Inventory)
	n = uvarintAt(b, n+4, uint64(q.IssuedAt))
	n = uvarintAt(b, n, uint64(q.ExpiresAt-q.IssuedAt))
	binary.LittleEndian.PutUint64(b[n:], binary.LittleEndian.Uint64(q.Nonce[:])) // one word, not memory.copy
	return n + NonceLen
}

// uvarintAt writes v as a uvarint (encoding/binary's) at b[n:] and returns the index
// after it.
//
//go:inline
func uvarintAt(b []byte, n int, v uint64) int {
	for v >= 0x80 {
		b[n] = byte(v) | 0x80
		v >>= 7
		n++
	}
	b[n] = byte(v)
	return n + 1
}

// decodePayload is payloadAt's inverse; it accepts only what payloadAt writes
// for a quote within the bounds (minimal uvarints, ids 1 to 2^31-1, at least one unit
// per line, nothing after the nonce).
func decodePayload(b []byte, q *Quote) bool {
	if len(b) < 2 || b[0] != Version {
		return false
	}
	q.KeyID = b[1]
	p := 2
	var ok bool
	if q.PickUpDepot, p, ok = uvarint(b, p, 1, maxID); !ok {
		return false
	}
	if q.DropOffDepot, p, ok = uvarint(b, p, 1, maxID); !ok {
		return false
	}
	if q.PickUp, p, ok = uvarint(b, p, 0, maxDays); !ok {
		return false
	}
	var days int64
	if days, p, ok = uvarint(b, p, 0, maxDays); !ok {
		return false
	}
	q.DropOff = q.PickUp + days
	if q.VehicleID, p, ok = uvarint(b, p, 1, maxID); !ok {
		return false
	}
	if q.InsuranceID, p, ok = uvarint(b, p, 0, maxID); !ok {
		return false
	}
	var n int64
	if n, p, ok = uvarint(b, p, 0, MaxLines); !ok {
		return false
	}
	q.NLines = int(n)
	for i := 0; i < q.NLines; i++ {
		l := &q.Lines[i]
		if l.ID, p, ok = uvarint(b, p, 1, maxID); !ok {
			return false
		}
		if l.Quantity, p, ok = uvarint(b, p, 1, maxID); !ok {
			return false
		}
	}
	if q.TotalCents, p, ok = uvarint(b, p, 0, maxCents); !ok {
		return false
	}
	if len(b)-p < 4 {
		return false
	}
	q.Inventory = binary.BigEndian.Uint32(b[p:])
	p += 4
	if q.IssuedAt, p, ok = uvarint(b, p, 0, maxUnix); !ok {
		return false
	}
	var ttl int64
	if ttl, p, ok = uvarint(b, p, 0, maxUnix); !ok {
		return false
	}
	q.ExpiresAt = q.IssuedAt + ttl
	if len(b)-p != NonceLen {
		return false
	}
	copy(q.Nonce[:], b[p:])
	return true
}

// uvarint reads a minimally encoded uvarint at b[p:] within [min, max].
func uvarint(b []byte, p int, min, max uint64) (int64, int, bool) {
	v, n := binary.Uvarint(b[p:])
	if n <= 0 || (n > 1 && b[p+n-1] == 0) || v < min || v > max {
		return 0, p, false
	}
	return int64(v), p + n, true
}
