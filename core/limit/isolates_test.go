package limit

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// glueSim drives one limiter as the glue does: a sync when a response says KV work is
// due, and one timer at the delay KVPending/KVDone gave.
type glueSim struct {
	l     *Limiter
	kv    *fakeKV
	timer int64 // unix ms of the glue's timer; -1: none
}

func (g *glueSim) syncAt(t testing.TB, now int64) {
	_, ops := pending(t, g.l.KVPending(nil, now))
	wait := g.l.KVDone(encodeRecords(g.kv.run(t, ops, now)), now)
	if wait > 0 && (g.timer < 0 || now+wait < g.timer) {
		g.timer = now + wait
	}
}

// take counts one request at now, after firing the timer if it is due.
func (g *glueSim) take(t testing.TB, k Key, now int64) Verdict {
	g.tick(t, now)
	v := g.l.Take(k, now)
	if g.l.Due(now) {
		g.syncAt(t, now)
	}
	return v
}

func (g *glueSim) tick(t testing.TB, now int64) {
	for g.timer >= 0 && now >= g.timer {
		at := g.timer
		g.timer = -1
		g.syncAt(t, at)
	}
}

// TestLimiterKVWritesBounded: a busy client causes at most 12 writes per isolate and
// window, at most one per key and second; the last holds the exact count; once limited
// it causes no KV operation at all.
func TestLimiterKVWritesBounded(t *testing.T) {
	for _, pace := range []int64{7, 100, 500, 600, 2000} { // ms between requests
		g := &glueSim{l: isolate(100, 60, 3, 1), kv: newFakeKV(), timer: -1}
		allowed := 0
		var putsAtLimit, getsAtLimit int
		for ms := int64(0); ms < 60_000; ms += pace {
			if g.take(t, ipA, t0+ms).Allowed {
				allowed++
			} else if putsAtLimit == 0 {
				g.tick(t, t0+ms+kvWriteGapMs)
				putsAtLimit, getsAtLimit = g.kv.puts, g.kv.gets
			}
		}
		g.tick(t, t0+59_999)
		for k, c := range g.kv.putsByKeyAndSecond {
			if c > 1 {
				t.Errorf("pace %d: %d writes to %s in one second", pace, c, k)
			}
		}
		if g.kv.puts > maxWrites {
			t.Errorf("pace %d ms: %d writes in one window, want at most %d", pace, g.kv.puts, maxWrites)
		}
		if putsAtLimit > 0 && (g.kv.puts != putsAtLimit || g.kv.gets != getsAtLimit) {
			t.Errorf("pace %d ms: the limited client caused %d writes and %d reads after its final count", pace, g.kv.puts-putsAtLimit, g.kv.gets-getsAtLimit)
		}
		key := "rl:1795305600:3:203.0.113.7"
		if v := g.kv.data[key]; !strings.HasSuffix(v, fmt.Sprintf(":%d", allowed)) {
			t.Errorf("pace %d ms: KV %s = %q, want the exact count %d", pace, key, v, allowed)
		}
		t.Logf("pace %d ms: %d allowed, %d writes, %d reads", pace, allowed, g.kv.puts, g.kv.gets)
	}
}

// TestLimiterMergesIsolates: counts written by other isolates are merged into the
// decision once read.
func TestLimiterMergesIsolates(t *testing.T) {
	kv := newFakeKV()
	a, b, c := isolate(100, 60, 0, 0xa), isolate(100, 60, 1, 0xb), isolate(100, 60, 2, 0xc)
	ip := ClientOf("2001:db8::1") // colons in the client key
	for i := 0; i < 60; i++ {
		a.Take(ip, t0+int64(i)*100)
		kv.sync(t, a, t0+int64(i)*100)
	}
	kv.sync(t, a, t0+7000) // the read of the 60th request's step, then its write
	kv.sync(t, a, t0+7001)
	if !strings.HasSuffix(kv.data["rl:1795305600:0:2001:db8::/64"], ":60") {
		t.Fatalf("isolate a wrote %v", kv.data)
	}
	// b sees the client for the first time: it counts alone until its read returns.
	var v Verdict
	for i := 0; i < 10; i++ {
		v = b.Take(ip, t0+8000)
	}
	if v.Remaining != 90 {
		t.Fatalf("b before its read: remaining %d, want 90", v.Remaining)
	}
	kv.sync(t, b, t0+8000) // reads a's 60 (and chooses its slot)
	v = b.Take(ip, t0+8001)
	if v.Remaining != 100-60-11 {
		t.Fatalf("b after merging a's count: remaining %d, want 29", v.Remaining)
	}
	for i := 0; i < 29; i++ {
		if v = b.Take(ip, t0+8002); !v.Allowed {
			t.Fatalf("b refused request %d of the remaining 29", i+1)
		}
	}
	if v = b.Take(ip, t0+8003); v.Allowed || v.Remaining != 0 {
		t.Fatalf("b allowed a request over the shared limit: %+v", v)
	}
	// c reads both after 10 of its own: every further request is refused.
	for i := 0; i < 10; i++ {
		c.Take(ip, t0+10000)
	}
	kv.sync(t, b, t0+10000) // b's read of its last step, then the write of its final 40
	kv.sync(t, b, t0+10000)
	kv.sync(t, c, t0+10000) // c's read, then its write
	kv.sync(t, c, t0+10000)
	if !strings.HasSuffix(kv.data["rl:1795305600:1:2001:db8::/64"], ":40") {
		t.Fatalf("b's final count: %v", kv.data)
	}
	kv.sync(t, c, t0+10000)
	if v = c.Take(ip, t0+10001); v.Allowed {
		t.Fatalf("c allowed a request with a:60 b:40 c:10: %+v", v)
	}
}

// TestLimiterSameDefaultSlot: an isolate whose default slot holds another isolate's
// count takes the next free one, and counts the other's.
func TestLimiterSameDefaultSlot(t *testing.T) {
	kv := newFakeKV()
	a, b := isolate(100, 60, 5, 0xa), isolate(100, 60, 5, 0xb)
	for i := 0; i < 50; i++ {
		a.Take(ipC, t0+int64(i)*100)
		kv.sync(t, a, t0+int64(i)*100)
	}
	for _, at := range []int64{10_000, 10_001, 12_000, 12_001} {
		kv.sync(t, a, t0+at)
	}
	if v := kv.data["rl:1795305600:5:192.0.2.1"]; !strings.HasSuffix(v, ":50") {
		t.Fatalf("a's count in slot 5: %q, want 50 (%v)", v, kv.data)
	}
	for i := 0; i < 10; i++ {
		b.Take(ipC, t0+50_000)
	}
	kv.sync(t, b, t0+50_000) // reads a's 50 in slot 5
	kv.sync(t, b, t0+50_001) // writes its 10 in slot 6
	if v := b.Take(ipC, t0+50_002); v.Remaining != 100-50-11 {
		t.Errorf("b: remaining %d, want 39", v.Remaining)
	}
	if v := kv.data["rl:1795305600:6:192.0.2.1"]; !strings.HasPrefix(v, "0b") || !strings.HasSuffix(v, ":10") {
		t.Errorf("slot 6 = %q, want b's 10", v)
	}
}

// TestLimiterKVErrors: failed operations never fail a request; they stop KV traffic
// for kvBackoffMs and are retried.
func TestLimiterKVErrors(t *testing.T) {
	kv := newFakeKV()
	kv.failPut, kv.failGet = true, true
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take(ipC, t0)
	}
	wait, ops := kv.sync(t, l, t0)
	if len(ops) != 1 || wait != kvBackoffMs {
		t.Fatalf("ops %q, wait %d", ops, wait)
	}
	for i := 0; i < 90; i++ { // decisions go on from the local count
		if v := l.Take(ipC, t0+100); !v.Allowed {
			t.Fatalf("request %d refused while KV fails", 11+i)
		}
	}
	if v := l.Take(ipC, t0+100); v.Allowed {
		t.Fatal("request 101 allowed while KV fails")
	}
	if l.Due(t0 + kvBackoffMs - 1) {
		t.Fatal("KV work due during the backoff")
	}
	if wait, ops := kv.sync(t, l, t0+5000); len(ops) != 0 || wait != kvBackoffMs-5000 {
		t.Fatalf("during the backoff: wait %d ops %q", wait, ops)
	}
	kv.failPut, kv.failGet = false, false
	if !l.Due(t0 + kvBackoffMs) {
		t.Fatal("nothing due after the backoff")
	}
	_, ops = kv.sync(t, l, t0+kvBackoffMs)
	_, ops2 := kv.sync(t, l, t0+kvBackoffMs+1)
	if len(ops) != 1 || ops[0][0] != "get" || len(ops2) != 1 || ops2[0][0] != "put" || !strings.HasSuffix(ops2[0][2], ":100") {
		t.Fatalf("retry after the backoff: %q then %q", ops, ops2)
	}
}

// TestLimiterIgnoresOtherWindows: results for keys of an ended window change nothing,
// and an ended window's pending writes are dropped.
func TestLimiterIgnoresOtherWindows(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take(ipC, t0)
	}
	if wait, ops := pending(t, l.KVPending(nil, t0+60_000)); wait != 0 || len(ops) != 0 {
		t.Fatalf("an ended window's operations: wait %d, ops %q", wait, ops)
	}
	l.Take(ipC, t0+60_000)
	l.KVDone(encodeRecords([][]string{{"get", "rl:1795305600:3:192.0.2.1", "1", "0000000000000abc:99"}}), t0+60_001)
	if v := l.Take(ipC, t0+60_002); v.Remaining != 98 {
		t.Errorf("an old window's count was merged: %+v", v)
	}
}

// TestLimiterMalformedKVDone: whatever the glue hands back, nothing panics.
func TestLimiterMalformedKVDone(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take(ipC, t0)
	}
	good := encodeRecords([][]string{{"get", "rl:1795305600:3:192.0.2.1", "1", "00000000000000ab:7"}})
	inputs := [][]byte{nil, {1}, {1, 0, 0, 0}, {1, 0, 0, 0, 9, 0, 0, 0}, {255, 255, 255, 255, 3, 0, 0, 0, 255, 255, 255, 255}}
	for i := 0; i < len(good); i++ {
		inputs = append(inputs, good[:i])
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), good...)
		b[rnd.Intn(len(b))] = byte(rnd.Intn(256))
		inputs = append(inputs, b)
	}
	for _, v := range []string{"", ":", "x:1", "00000000000000ab:", "00000000000000ab:-1", "00000000000000AB:1", "0000000000000000:5", "00000000000000ab:99999999999999999999"} {
		inputs = append(inputs, encodeRecords([][]string{{"get", "rl:1795305600:3:192.0.2.1", "1", v}}))
	}
	for _, k := range []string{"", "rl:", "rl:x:1:c", "rl:1795305600:8:192.0.2.1", "rl:1795305600:-1:192.0.2.1", "rl:1795305600", "rl:1795305600:1:c"} {
		inputs = append(inputs, encodeRecords([][]string{{"get", k, "1", "00000000000000ab:7"}, {"put", k, "0"}}))
	}
	for _, in := range inputs {
		l.KVDone(in, t0+1)
	}
	l.KVDone(good, t0+1)
	if v := l.Take(ipC, t0+2); v.Remaining > 100-11-7 {
		t.Errorf("a well-formed record was not merged: %+v", v)
	}
}

// isoSim is one isolate in TestIsolatesSim: a limiter, the glue's one timer, and the
// KV operations in flight (they complete latency ms after they were handed out).
type isoSim struct {
	l      *Limiter
	timer  int64
	flight []flight
}

type flight struct {
	at  int64
	ops [][]string
}

// SimIsolates sends n requests of one client round-robin to k isolates over spanMs
// (starting at the window's start), with KV operations taking latencyMs, and returns
// the requests allowed and the KV writes and reads of the busiest isolate.
func SimIsolates(t testing.TB, k, n int, spanMs, latencyMs int64, sameSlot bool) (allowed, maxPuts, maxGets int) {
	kv := newFakeKV()
	isos := make([]*isoSim, k)
	puts, gets := make([]int, k), make([]int, k)
	for i := range isos {
		slot := byte(i)
		if sameSlot {
			slot = 3 // every isolate's default slot is the same: the slot choice parts them
		}
		isos[i] = &isoSim{l: isolate(100, 60, slot, byte(0x10+i)), timer: -1}
	}
	sync := func(i int, now int64) {
		s := isos[i]
		wait, ops := pending(t, s.l.KVPending(nil, now))
		for _, op := range ops {
			if op[0] == "put" {
				puts[i]++
			} else {
				gets[i]++
			}
		}
		if len(ops) > 0 {
			s.flight = append(s.flight, flight{now + latencyMs, ops})
		}
		if wait > 0 && (s.timer < 0 || now+int64(wait) < s.timer) {
			s.timer = now + int64(wait)
		}
	}
	next := 0
	for ms := int64(0); ms < 60_000; ms++ {
		now := t0 + ms
		for i, s := range isos {
			for len(s.flight) > 0 && s.flight[0].at <= now {
				f := s.flight[0]
				s.flight = s.flight[1:]
				wait := s.l.KVDone(encodeRecords(kv.run(t, f.ops, now)), now)
				if wait > 0 && (s.timer < 0 || now+wait < s.timer) {
					s.timer = now + wait
				}
			}
			if s.timer >= 0 && now >= s.timer {
				s.timer = -1
				sync(i, now)
			}
		}
		for next < n && int64(next)*spanMs/int64(n) <= ms {
			i := next % k
			if isos[i].l.Take(ipA, now).Allowed {
				allowed++
			}
			if isos[i].l.Due(now) {
				sync(i, now)
			}
			next++
		}
	}
	for i := range isos {
		maxPuts, maxGets = max(maxPuts, puts[i]), max(maxGets, gets[i])
	}
	return allowed, maxPuts, maxGets
}

// TestIsolatesSim: one client's requests round-robin over k isolates sharing a
// consistent KV: allowed at least the limit and at most the bound of RATIONALE.md, at
// most 12 writes per isolate.
func TestIsolatesSim(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		span, lat int64
		same      bool
	}{{4, 600, 55_000, 20, false}, {4, 600, 55_000, 20, true}, {4, 600, 55_000, 200, false}, {4, 6000, 55_000, 20, false},
		{2, 600, 55_000, 20, false}, {8, 600, 55_000, 20, false}, {8, 600, 55_000, 20, true}, {4, 200, 20_000, 50, false}, {4, 130, 2_000, 20, false}} {
		allowed, puts, gets := SimIsolates(t, c.k, c.n, c.span, c.lat, c.same)
		bound := Bound(100, c.k, float64(c.n)/float64(c.span)*1000/float64(c.k), float64(c.lat)/1000)
		t.Logf("k=%d, %d requests over %d ms, KV latency %d ms, same default slot %v: %d allowed (bound %d), busiest isolate %d writes %d reads", c.k, c.n, c.span, c.lat, c.same, allowed, bound, puts, gets)
		if allowed < 100 || int64(allowed) > bound {
			t.Errorf("k=%d n=%d: %d allowed, want 100..%d", c.k, c.n, allowed, bound)
		}
		if puts > maxWrites {
			t.Errorf("k=%d n=%d: %d writes in one isolate", c.k, c.n, puts)
		}
	}
}
