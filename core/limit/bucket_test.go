package limit

import (
	"strings"
	"testing"
)

// TestBucketsSeparate: one address, a partner's key and an agent, each counted in a
// bucket of its own with its own limit, in one table.
func TestBucketsSeparate(t *testing.T) {
	l := isolate(100, 60, 0, 0xa)
	addr := Bucket{Key: ClientOf("203.0.113.7"), Limit: 100}
	partner := Bucket{Key: Named(Partner, "acme"), Limit: 250, Kind: Partner}
	agent := Bucket{Key: Named(Agent, "https://agent.example"), Limit: 3000, Kind: Agent}
	for _, c := range []struct {
		b    Bucket
		kind Kind
	}{{addr, Address}, {partner, Partner}, {agent, Agent}} {
		var v Verdict
		for i := int64(0); i < c.b.Limit; i++ {
			if v = l.TakeIn(c.b, t0+i); !v.Allowed {
				t.Fatalf("%s: request %d refused", c.kind.Name(), i+1)
			}
		}
		if v.Limit != c.b.Limit || v.Remaining != 0 || v.Kind != c.kind {
			t.Fatalf("%s: last verdict %+v", c.kind.Name(), v)
		}
		if v = l.TakeIn(c.b, t0+5000); v.Allowed {
			t.Fatalf("%s: over its limit allowed", c.kind.Name())
		}
		if p := l.PeekIn(c.b, t0+5000); p.Allowed || p.Limit != c.b.Limit || p.Kind != c.kind {
			t.Fatalf("%s: peek %+v", c.kind.Name(), p)
		}
	}
	// Each bucket's use left the others' alone: a fresh address is unaffected too.
	if v := l.Take(ClientOf("203.0.113.8"), t0+6000); !v.Allowed || v.Remaining != 99 || v.Kind != Address {
		t.Fatalf("another address: %+v", v)
	}
}

// TestNamedKeys: a named bucket's key is never an address's, differs by kind and name,
// and round-trips through its KV text form.
func TestNamedKeys(t *testing.T) {
	seen := map[Key]string{}
	for _, n := range []string{"", "acme", "acme2", "https://chatgpt.com", "http://127.0.0.1:8788"} {
		for _, kind := range []Kind{Partner, Agent} {
			k := Named(kind, n)
			if !named(k) {
				t.Fatalf("Named(%d, %q) = %x: not a named key", kind, n, k)
			}
			if o, dup := seen[k]; dup {
				t.Fatalf("Named(%d, %q) = Named of %s", kind, n, o)
			}
			seen[k] = kind.Name() + " " + n
			txt := string(appendClient(nil, k))
			if !strings.HasPrefix(txt, kind.Name()+"-") || len(txt) != len(kind.Name())+17 {
				t.Fatalf("text form %q", txt)
			}
			if back, ok := parseClient(txt); !ok || back != k {
				t.Fatalf("parseClient(%q) = %x %v, want %x", txt, back, ok, k)
			}
		}
	}
	for _, a := range []string{"203.0.113.7", "2001:db8::1", "bogus", "::ffff:1.2.3.4"} {
		if named(ClientOf(a)) {
			t.Fatalf("address %q has a named key", a)
		}
	}
	for _, bad := range []string{"partner-", "agent-0000000000000000", "partner-ABCDEF0123456789", "partner-0123456789abcdeg", "robot-0123456789abcdef"} {
		if k, ok := parseClient(bad); ok && named(k) {
			t.Errorf("parseClient(%q) = %x, want not ok", bad, k)
		}
	}
}

// TestNamedBucketSharedThroughKV: a partner's count written by one isolate is merged
// by another, under the partner's limit.
func TestNamedBucketSharedThroughKV(t *testing.T) {
	kv := newFakeKV()
	a, b := isolate(100, 60, 0, 0xa), isolate(100, 60, 1, 0xb)
	p := Bucket{Key: Named(Partner, "acme"), Limit: 1100, Kind: Partner}
	for i := 0; i < 600; i++ {
		a.TakeIn(p, t0+int64(i))
		kv.sync(t, a, t0+int64(i))
	}
	kv.sync(t, a, t0+7000)
	kv.sync(t, a, t0+7001)
	var wrote bool
	for k, v := range kv.data {
		wrote = wrote || strings.Contains(k, ":partner-") && strings.HasSuffix(v, ":600")
	}
	if !wrote {
		t.Fatalf("isolate a wrote %v", kv.data)
	}
	for i := 0; i < 100; i++ { // b's first step: a write and a read
		b.TakeIn(p, t0+8000)
	}
	kv.sync(t, b, t0+8000)
	if v := b.TakeIn(p, t0+8001); v.Remaining != 1100-600-101 {
		t.Fatalf("b after merging a's count: %+v", v)
	}
}

func TestTakeInAllocatesNothing(t *testing.T) {
	l := isolate(100, 60, 0, 0xa)
	b := Bucket{Key: Named(Agent, "https://agent.example"), Limit: 3000, Kind: Agent}
	var k Key
	if n := testing.AllocsPerRun(100, func() { l.TakeIn(b, t0); k = Named(Partner, "acme") }); n != 0 || k == (Key{}) {
		t.Fatalf("TakeIn allocates %v", n)
	}
}
