package apikey

import (
	"encoding/base64"
	"strings"
	"testing"
)

const (
	secretA = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	secretB = "2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	now     = int64(1795305600)
)

func verifier(t *testing.T, secret, revoked string) *Verifier {
	t.Helper()
	v, err := NewVerifier(secret, revoked)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mint(t *testing.T, v *Verifier, name string, limit, exp int64) string {
	t.Helper()
	k, err := v.Mint(name, limit, exp)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestMintVerify(t *testing.T) {
	v := verifier(t, secretA, "")
	for _, c := range []struct {
		name       string
		limit, exp int64
	}{{"acme", 1000, 0}, {"a", 1, now + 1}, {strings.Repeat("z", MaxName), MaxLimit, maxUnix - 1}, {"travel-app.v2_x", 3000, now + 86400}} {
		key := mint(t, v, c.name, c.limit, c.exp)
		if !strings.HasPrefix(key, Prefix) || len(key) > MaxLen {
			t.Fatalf("key %q: prefix or length (max %d)", key, MaxLen)
		}
		var k Key
		if r := v.Verify(key, now, &k); r != OK {
			t.Fatalf("%s: %v", c.name, r.Reason())
		}
		if string(k.Name) != c.name || k.Limit != c.limit || k.Expires != c.exp {
			t.Fatalf("verified %q %d %d, minted %+v", k.Name, k.Limit, k.Expires, c)
		}
	}
}

// TestRefusals: every reason a key is refused.
func TestRefusals(t *testing.T) {
	v := verifier(t, secretA, "gone, old-partner")
	good := mint(t, v, "acme", 100, now+60)
	raw, _ := base64.RawURLEncoding.DecodeString(good[len(Prefix):])
	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 1
		return Prefix + base64.RawURLEncoding.EncodeToString(b)
	}
	other := verifier(t, "7:"+strings.Repeat("Q", 43), "")
	cases := []struct {
		name, key string
		now       int64
		want      Result
	}{
		{"valid", good, now, OK},
		{"expired at its second", good, now + 60, Expired},
		{"expired later", good, now + 3600, Expired},
		{"revoked", mint(t, v, "gone", 100, 0), now, Revoked},
		{"revoked, second name", mint(t, v, "old-partner", 100, 0), now, Revoked},
		{"another secret", mint(t, other, "acme", 100, 0), now, Forged},
		{"name changed", flip(len(raw) - macLen - 1), now, Forged},
		{"limit changed", flip(2), now, Forged},
		{"mac changed", flip(len(raw) - 1), now, Forged},
		{"kid changed", flip(1), now, Forged},
		{"version changed", flip(0), now, Malformed},
		{"empty", "", now, Malformed},
		{"prefix only", Prefix, now, Malformed},
		{"no prefix", good[len(Prefix):], now, Malformed},
		{"padding", good + "=", now, Malformed},
		{"not base64url", good[:10] + "+" + good[11:], now, Malformed},
		{"truncated", Prefix + base64.RawURLEncoding.EncodeToString(raw[:len(raw)-3]), now, Forged},
		{"100 KB", Prefix + strings.Repeat("A", 100<<10), now, Malformed},
		{"short", Prefix + "AQE", now, Malformed},
		{"space inside", good[:8] + " " + good[9:], now, Malformed},
	}
	for _, c := range cases {
		var k Key
		if got := v.Verify(c.key, c.now, &k); got != c.want {
			t.Errorf("%s: %d (%s), want %d", c.name, got, got.Reason(), c.want)
		}
	}
}

// TestRotation: the first key signs, every one verifies; a key minted under a retired
// secret is refused.
func TestRotation(t *testing.T) {
	old := verifier(t, secretA, "")
	keyA := mint(t, old, "acme", 100, 0)
	both := verifier(t, secretB+","+secretA, "")
	keyB := mint(t, both, "acme", 100, 0)
	var k Key
	for _, key := range []string{keyA, keyB} {
		if r := both.Verify(key, now, &k); r != OK {
			t.Fatalf("during rotation: %s", r.Reason())
		}
	}
	newOnly := verifier(t, secretB, "")
	if r := newOnly.Verify(keyB, now, &k); r != OK {
		t.Fatalf("after rotation, the new key: %s", r.Reason())
	}
	if r := newOnly.Verify(keyA, now, &k); r != Forged {
		t.Fatalf("after rotation, the retired key: %d", r)
	}
}

func TestMintRefuses(t *testing.T) {
	v := verifier(t, secretA, "")
	for _, c := range []struct {
		name       string
		limit, exp int64
	}{{"", 1, 0}, {"Acme", 1, 0}, {"a b", 1, 0}, {strings.Repeat("a", MaxName+1), 1, 0}, {"a", 0, 0}, {"a", MaxLimit + 1, 0}, {"a", 1, -1}} {
		if _, err := v.Mint(c.name, c.limit, c.exp); err == nil {
			t.Errorf("Mint(%q, %d, %d) minted", c.name, c.limit, c.exp)
		}
	}
	for _, s := range []string{"", "x", "1:short", "1:" + strings.Repeat("A", 22) + "+"} {
		if _, err := NewVerifier(s, ""); err == nil {
			t.Errorf("NewVerifier(%q) accepted", s)
		} else if strings.Contains(err.Error(), "quote") {
			t.Errorf("error names the quote keys: %v", err)
		}
	}
}

func TestBearer(t *testing.T) {
	for _, c := range []struct {
		h, tok string
		ok     bool
	}{{"Bearer ck_x", "ck_x", true}, {"bearer  ck_x", "ck_x", true}, {"BEARER ck_x", "ck_x", true}, {"Basic abc", "", false}, {"Bearer", "", false}, {"Bearer ", "", false}, {"", "", false}} {
		if tok, ok := Bearer(c.h); tok != c.tok || ok != c.ok {
			t.Errorf("Bearer(%q) = %q %v", c.h, tok, ok)
		}
	}
}

func TestVerifyAllocatesNothing(t *testing.T) {
	v := verifier(t, secretA, "gone")
	key := mint(t, v, "acme", 100, 0)
	var k Key
	if n := testing.AllocsPerRun(100, func() { v.Verify(key, now, &k) }); n != 0 {
		t.Fatalf("Verify allocates %v", n)
	}
}

func FuzzVerify(f *testing.F) {
	v, _ := NewVerifier(secretA, "gone")
	good, _ := v.Mint("acme", 100, 0)
	for _, s := range []string{good, "", Prefix, Prefix + strings.Repeat("_", 200), good[:20]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var k Key
		if r := v.Verify(s, now, &k); r == OK && s != good {
			// another spelling of a valid key would be a forgery the MAC missed
			t.Fatalf("accepted %q", s)
		}
	})
}
