package quotetoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"
)

// TestKeys is the key of the tests and of `make dev`'s first .dev.vars (bytes 0..31).
const TestKeys = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func mustKeys(t testing.TB, s string) *Keyring {
	t.Helper()
	k, err := ParseKeys(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// example is the worked example of docs/pricing.md as a quote issued at
// 2026-11-23T00:00:00Z for 1800 s.
func example() Quote {
	q := Quote{PickUpDepot: 2, DropOffDepot: 3, PickUp: 20795, DropOff: 20806, VehicleID: 5, InsuranceID: 33,
		NLines: 2, TotalCents: 332300, Inventory: InventoryTag("bundled-0123456789abcdef"),
		IssuedAt: 1795392000, ExpiresAt: 1795393800, Nonce: [NonceLen]byte{1, 2, 3, 4, 5, 6, 7, 8}}
	q.Lines[0] = Line{1, 2}
	q.Lines[1] = Line{2, 2}
	return q
}

func TestSHA256MatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		msg := make([]byte, n)
		r.Read(msg)
		var d digest
		d.reset(&init256, 0)
		// in pieces, to cover the buffering
		for p := msg; len(p) > 0; {
			c := 1 + r.Intn(len(p))
			d.write(p[:c])
			p = p[c:]
		}
		var got [32]byte
		d.finish(&got)
		if want := sha256.Sum256(msg); got != want {
			t.Fatalf("len %d: %x, crypto/sha256 %x", n, got, want)
		}
	}
}

func TestHMACMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		secret := make([]byte, MinKeyLen+r.Intn(120)) // longer than a block too
		msg := make([]byte, r.Intn(200))
		r.Read(secret)
		r.Read(msg)
		k := mustKeys(t, "7:"+base64.RawURLEncoding.EncodeToString(secret))
		k.mac(&k.keys[0], msg)
		m := hmac.New(sha256.New, secret)
		m.Write(msg)
		if want := m.Sum(nil); string(k.sum[:]) != string(want) {
			t.Fatalf("key %d bytes, msg %d bytes: %x, crypto/hmac %x", len(secret), len(msg), k.sum, want)
		}
	}
}

// TestHMACEveryLength runs one Keyring over every message length from 0 to 130, short
// and long in turn (macShort below 56 bytes, the digest above it), so that neither
// path may lean on what the other left in the digest.
func TestHMACEveryLength(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	secret := make([]byte, 40)
	r.Read(secret)
	k := mustKeys(t, "9:"+base64.RawURLEncoding.EncodeToString(secret))
	for i := 0; i <= 130; i++ {
		for _, n := range []int{i, 130 - i} {
			msg := make([]byte, n)
			r.Read(msg)
			k.mac(&k.keys[0], msg)
			m := hmac.New(sha256.New, secret)
			m.Write(msg)
			if want := m.Sum(nil); string(k.sum[:]) != string(want) {
				t.Fatalf("msg %d bytes: %x, crypto/hmac %x", n, k.sum, want)
			}
		}
	}
}

// TestHMACInScratch: a message at the start of a block's room (as Sign and Verify
// pass theirs, in the keyring's scratch), with random bytes after it, every length
// macShort takes: the padding is made in the words (innerWords) over whatever follows.
func TestHMACInScratch(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, kl := range []int{MinKeyLen, 40, 64, 100} {
		secret := make([]byte, kl)
		r.Read(secret)
		k := mustKeys(t, "3:"+base64.RawURLEncoding.EncodeToString(secret))
		for n := 0; n <= blockSize-9; n++ {
			for rep := 0; rep < 4; rep++ {
				buf := make([]byte, blockSize+r.Intn(16))
				r.Read(buf)
				if rep == 0 {
					for i := n; i < len(buf); i++ {
						buf[i] = 0xff // every bit set past the message
					}
				}
				msg := buf[:n]
				k.mac(&k.keys[0], msg)
				m := hmac.New(sha256.New, secret)
				m.Write(msg)
				if want := m.Sum(nil); string(k.sum[:]) != string(want) {
					t.Fatalf("key %d bytes, msg %d bytes in a %d-byte array: %x, crypto/hmac %x", kl, n, len(buf), k.sum, want)
				}
			}
		}
	}
}

func TestRoundTripAndDeterminism(t *testing.T) {
	k := mustKeys(t, TestKeys)
	q := example()
	tok := string(k.Sign(nil, &q))
	// The example of docs/quote-token.md: the same bytes for the same inputs, key,
	// clock and nonce, on every platform (worker/ checks the wasm module's).
	const want = "AQECA7uiAQsFIQIBAgICjKQUrLQLv4CEjtgGiA4BAgMEBQYHCK-ISz7ECXO7fcr5n-zoQlM"
	if tok != want {
		t.Errorf("token %s\nwant  %s", tok, want)
	}
	if len(tok) > MaxLen {
		t.Errorf("%d characters", len(tok))
	}
	var got Quote
	if r := k.Verify(tok, &got); r != OK {
		t.Fatalf("Verify: %v", r)
	}
	if got != q {
		t.Errorf("decoded %+v\nsigned  %+v", got, q)
	}
	q.Nonce[7]++
	if other := string(k.Sign(nil, &q)); other == tok {
		t.Error("another nonce, the same id")
	}
}

// Changing any character, or any byte of the decoded token, is refused.
func TestTamperingRejected(t *testing.T) {
	k := mustKeys(t, TestKeys)
	q := example()
	tok := string(k.Sign(nil, &q))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var got Quote
	for i := 0; i < len(tok); i++ {
		for _, c := range []byte(alphabet + "=+/.~ %") {
			if c == tok[i] {
				continue
			}
			bad := tok[:i] + string(c) + tok[i+1:]
			if r := k.Verify(bad, &got); r == OK {
				t.Fatalf("character %d changed to %q: accepted", i, c)
			}
		}
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), raw...)
			b[i] ^= 1 << bit
			if r := k.Verify(base64.RawURLEncoding.EncodeToString(b), &got); r == OK {
				t.Fatalf("byte %d bit %d flipped: accepted", i, bit)
			}
		}
	}
	for _, bad := range []string{"", "A", tok[:len(tok)-1], tok + "A", tok + "AA", tok[:20], strings.Repeat("A", 201), tok + "="} {
		if r := k.Verify(bad, &got); r == OK {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestKeyRotation(t *testing.T) {
	old := mustKeys(t, TestKeys)
	const newKey = "2:" + "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	rotated := mustKeys(t, newKey+", "+TestKeys) // the new one signs, both verify
	q := example()
	oldTok := string(old.Sign(nil, &q))
	newTok := string(rotated.Sign(nil, &q))
	if q.KeyID != 2 || rotated.KeyID() != 2 {
		t.Fatalf("signed with key %d", q.KeyID)
	}
	var got Quote
	if r := rotated.Verify(oldTok, &got); r != OK || got.KeyID != 1 {
		t.Errorf("an id of the old key after rotation: %v (key %d)", r, got.KeyID)
	}
	if r := rotated.Verify(newTok, &got); r != OK || got.KeyID != 2 {
		t.Errorf("an id of the new key: %v", r)
	}
	if r := old.Verify(newTok, &got); r != UnknownKey {
		t.Errorf("the new key's id under the old keyring: %v, want UnknownKey", r)
	}
	retired := mustKeys(t, newKey)
	if r := retired.Verify(oldTok, &got); r != UnknownKey {
		t.Errorf("the old key retired: %v, want UnknownKey", r)
	}
	// The same key id with another secret: a forgery, not an unknown key.
	forger := mustKeys(t, "1:"+base64.RawURLEncoding.EncodeToString([]byte("not the real secret, 32 bytes!!!")))
	forged := string(forger.Sign(nil, &q))
	if r := old.Verify(forged, &got); r != BadSignature {
		t.Errorf("forged id: %v, want BadSignature", r)
	}
}

func TestParseKeys(t *testing.T) {
	secret := "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	for _, s := range []string{TestKeys, " 1:" + secret + " ", "1:" + secret + "=", "0:" + secret + ",255:" + secret + ",", "3:AAECAwQFBgcICQoLDA0ODw"} {
		if _, err := ParseKeys(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", " , ", secret, ":" + secret, "256:" + secret, "1a:" + secret, "1:" + secret + ",1:" + secret,
		"1:" + secret[:20], "1:" + secret + "!", "1:" + strings.Replace(secret, "A", "+", 1), "1234:" + secret} {
		_, err := ParseKeys(s)
		if err == nil {
			t.Errorf("%q accepted", s)
			continue
		}
		if strings.Contains(err.Error(), secret[:8]) || strings.Contains(err.Error(), secret[4:12]) {
			t.Errorf("%q: the error shows the key: %v", s, err)
		}
	}
}

// TestWorstCaseLength: the longest quote (every id and date just below 2^21, 20
// accessory lines of 20 units, the largest total, issue time and lifetime) is at most
// MaxLen characters.
func TestWorstCaseLength(t *testing.T) {
	k := mustKeys(t, TestKeys)
	const big = 1<<21 - 1
	q := Quote{PickUpDepot: big, DropOffDepot: big, PickUp: big, DropOff: big + 3660, VehicleID: big, InsuranceID: big,
		NLines: MaxLines, TotalCents: maxCents, IssuedAt: 1<<34 - 1, ExpiresAt: 1<<34 - 1 + 1<<31}
	for i := range q.Lines {
		q.Lines[i] = Line{big - int64(i), 20}
	}
	tok := k.Sign(nil, &q)
	t.Logf("worst case: %d characters; the example: %d", len(tok), len(k.Sign(nil, ptr(example()))))
	if len(tok) > MaxLen {
		t.Errorf("worst case %d characters > %d", len(tok), MaxLen)
	}
	var got Quote
	if r := k.Verify(string(tok), &got); r != OK || got != q {
		t.Errorf("worst case does not round-trip: %v", r)
	}
}

func ptr(q Quote) *Quote { return &q }

func TestSignVerifyAllocs(t *testing.T) {
	k := mustKeys(t, TestKeys)
	q := example()
	buf := make([]byte, 0, 256)
	tok := string(k.Sign(nil, &q))
	var got Quote
	if a := testing.AllocsPerRun(100, func() { buf = k.Sign(buf[:0], &q) }); a != 0 {
		t.Errorf("Sign allocates %v times", a)
	}
	if a := testing.AllocsPerRun(100, func() { k.Verify(tok, &got) }); a != 0 {
		t.Errorf("Verify allocates %v times", a)
	}
}

func BenchmarkSign(b *testing.B) {
	k := mustKeys(b, TestKeys)
	q := example()
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = k.Sign(buf[:0], &q)
	}
}

func BenchmarkVerify(b *testing.B) {
	k := mustKeys(b, TestKeys)
	q := example()
	tok := string(k.Sign(nil, &q))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if k.Verify(tok, &q) != OK {
			b.Fatal("refused")
		}
	}
}

// TestDecodedLen holds decodedLen to what base64.RawURLEncoding.DecodeString does, on
// every string of up to 3 bytes over a small alphabet and on random longer ones.
func TestDecodedLen(t *testing.T) {
	alphabet := []byte("Az09-_=+/ \r\n.\x00\xff")
	check := func(s string) {
		t.Helper()
		b, err := base64.RawURLEncoding.DecodeString(s)
		n, ok := decodedLen(s)
		if ok != (err == nil) || ok && n != len(b) {
			t.Fatalf("decodedLen(%q) = %d, %v; DecodeString: %d bytes, error %v", s, n, ok, len(b), err)
		}
	}
	var rec func(prefix []byte, depth int)
	rec = func(prefix []byte, depth int) {
		check(string(prefix))
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			rec(append(prefix, c), depth-1)
		}
	}
	rec(nil, 3)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.Intn(90))
		for j := range b {
			if rng.Intn(40) == 0 {
				b[j] = alphabet[rng.Intn(len(alphabet))]
			} else {
				b[j] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[rng.Intn(64)]
			}
		}
		check(string(b))
	}
}
