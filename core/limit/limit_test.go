package limit

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"net/netip"
	"strings"
	"testing"
	"unsafe"
)

// t0 is the start of a 60-s window: 2026-11-22T00:00:00Z in unix ms.
const t0 = int64(1795305600000)

var (
	ipA = ClientOf("203.0.113.7")
	ipC = ClientOf("192.0.2.1")
)

// fakeKV is Workers KV as the glue sees it: puts and bulk gets, with failures on demand.
// Puts are visible to later gets at once (the best case of KV's eventual consistency).
type fakeKV struct {
	data               map[string]string
	ttl                map[string]string
	failPut, failGet   bool
	puts, gets         int
	putsByKeyAndSecond map[string]int
}

func newFakeKV() *fakeKV {
	return &fakeKV{data: map[string]string{}, ttl: map[string]string{}, putsByKeyAndSecond: map[string]int{}}
}

// pending decodes a KVPending buffer into its wait (ms) and ops.
func pending(t testing.TB, b []byte) (wait uint32, ops [][]string) {
	t.Helper()
	if len(b) < 12 || int(binary.LittleEndian.Uint32(b)) != len(b) {
		t.Fatalf("KVPending: bad total in % x", b)
	}
	wait = binary.LittleEndian.Uint32(b[4:])
	n := binary.LittleEndian.Uint32(b[8:])
	off, ok := 12, true
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		nf, off, ok = readU32(b, off)
		op := make([]string, nf)
		for j := range op {
			var f []byte
			f, off, ok = readField(b, off)
			op[j] = string(f)
		}
		ops = append(ops, op)
	}
	if !ok || off != len(b) {
		t.Fatalf("KVPending: malformed buffer")
	}
	return wait, ops
}

func encodeRecords(recs [][]string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(recs)))
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
		for _, f := range r {
			b = appendField(b, f)
		}
	}
	return b
}

// run applies ops to kv (as the glue does) and returns the records for KVDone.
func (kv *fakeKV) run(t testing.TB, ops [][]string, nowMs int64) [][]string {
	var recs [][]string
	for _, op := range ops {
		switch op[0] {
		case "put":
			if len(op) != 4 {
				t.Fatalf("put op %q", op)
			}
			kv.puts++
			if kv.failPut {
				recs = append(recs, []string{"put", op[1], "0"})
				continue
			}
			kv.putsByKeyAndSecond[fmt.Sprint(op[1], "@", nowMs/1000)]++
			kv.data[op[1]], kv.ttl[op[1]] = op[2], op[3]
			recs = append(recs, []string{"put", op[1], "1"})
		case "get":
			if len(op) != 1+kvSlots {
				t.Fatalf("get op %q", op)
			}
			kv.gets++
			for _, k := range op[1:] {
				if kv.failGet {
					recs = append(recs, []string{"get", k, "0", ""})
				} else {
					recs = append(recs, []string{"get", k, "1", kv.data[k]})
				}
			}
		default:
			t.Fatalf("unknown op %q", op)
		}
	}
	return recs
}

// sync does what the glue does: runs the due operations against kv and hands the
// outcomes back. It returns the wait KVDone gave and the ops run.
func (kv *fakeKV) sync(t testing.TB, l *Limiter, nowMs int64) (int64, [][]string) {
	t.Helper()
	_, ops := pending(t, l.KVPending(nil, nowMs))
	return l.KVDone(encodeRecords(kv.run(t, ops, nowMs)), nowMs), ops
}

// isolate returns a limiter whose instance id draws slot.
func isolate(limit, window int64, slot, tag byte) *Limiter {
	return New(limit, window, func(b []byte) {
		for i := range b {
			b[i] = tag
		}
		b[1] = slot
	})
}

func TestEntrySize(t *testing.T) {
	if s := unsafe.Sizeof(entry{}); s != entrySize {
		t.Fatalf("entry is %d bytes, entrySize says %d", s, entrySize)
	}
	l := New(100, 60, nil)
	if b := len(l.table) * entrySize; b > TableBytes || b < TableBytes*99/100 {
		t.Errorf("the table takes %d bytes, want about %d", b, TableBytes)
	}
	if len(l.table)%ways != 0 {
		t.Errorf("%d entries: not whole sets of %d", len(l.table), ways)
	}
}

func TestClientOf(t *testing.T) {
	v4 := func(a, b, c, d byte) Key {
		return Key{0, 0xffff<<32 | uint64(a)<<24 | uint64(b)<<16 | uint64(c)<<8 | uint64(d)}
	}
	v6 := func(hi uint64) Key { return Key{hi, 0} }
	cases := []struct {
		in   string
		want Key
		text string
	}{
		{"203.0.113.7", v4(203, 0, 113, 7), "203.0.113.7"},
		{"::ffff:203.0.113.7", v4(203, 0, 113, 7), "203.0.113.7"},
		{"0.0.0.0", v4(0, 0, 0, 0), "0.0.0.0"},
		{"2001:db8::1", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:DB8::1", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:0db8:0000:0000:ffff:ffff:ffff:ffff", v6(0x20010db800000000), "2001:db8::/64"},
		{"2001:db8:0:1::1", v6(0x20010db800000001), "2001:db8:0:1::/64"},
		{"2001:db8:0:1:2:3:4.5.6.7", v6(0x20010db800000001), "2001:db8:0:1::/64"},
		{"::1", v6(0), "::/64"},
		{"", Shared, "unknown"},
		{"unknown", Shared, "unknown"},
		{"1.2.3", Shared, "unknown"},
		{"1.2.3.4.5", Shared, "unknown"},
		{"01.2.3.4", Shared, "unknown"},
		{" 1.2.3.4", Shared, "unknown"},
		{"256.1.1.1", Shared, "unknown"},
		{"fe80::1%eth0", Shared, "unknown"},
		{"2001:db8::/64", Shared, "unknown"},
		{"2001:db8::1, 2001:db8::2", Shared, "unknown"},
		{strings.Repeat("1", 1000), Shared, "unknown"},
		{"2001:db8::g", Shared, "unknown"},
	}
	for _, c := range cases {
		got := ClientOf(c.in)
		if got != c.want {
			t.Errorf("ClientOf(%q) = %x, want %x", c.in, got, c.want)
		}
		if text := string(appendClient(nil, got)); text != c.text {
			t.Errorf("ClientOf(%q) reads %q in KV keys, want %q", c.in, text, c.text)
		}
		if back, ok := parseClient(c.text); !ok || back != got {
			t.Errorf("parseClient(%q) = %x %v, want %x", c.text, back, ok, got)
		}
	}
	for _, bad := range []string{"", "x", "2001:db8::1", "2001:db8::1/48", "1.2.3.4/64", "::ffff:1.2.3.4/64", "::ffff:1.2.3.4"} {
		if k, ok := parseClient(bad); ok {
			t.Errorf("parseClient(%q) = %x, want not ok", bad, k)
		}
	}
}

func TestClientOfAllocatesNothing(t *testing.T) {
	for _, h := range []string{"203.0.113.7", "2001:db8::1", ""} {
		if n := testing.AllocsPerRun(100, func() { ClientOf(h) }); n != 0 {
			t.Errorf("ClientOf(%q): %v allocations", h, n)
		}
	}
}

func TestLimiterExactInOneWindow(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	allowed := 0
	for i := 1; i <= 130; i++ {
		v := l.Take(ipA, t0+int64(i)) // all in the window's first second
		if v.Allowed {
			allowed++
		}
		wantRem := max(int64(100-i), 0)
		if v.Remaining != wantRem || v.Limit != 100 || v.Reset != 60 || v.Allowed != (i <= 100) {
			t.Fatalf("request %d: %+v, want remaining %d reset 60 allowed %v", i, v, wantRem, i <= 100)
		}
	}
	if allowed != 100 {
		t.Errorf("allowed %d of 130, want 100", allowed)
	}
	// Another client has its own count.
	if v := l.Take(ClientOf("198.51.100.1"), t0+5); !v.Allowed || v.Remaining != 99 {
		t.Errorf("second client: %+v", v)
	}
	// Another address of the same IPv6 /64 is the same client; of another /64 not.
	for i := 0; i < 3; i++ {
		l.Take(ClientOf(fmt.Sprintf("2001:db8:0:7::%x", i+1)), t0+6)
	}
	if v := l.Peek(ClientOf("2001:DB8:0:7:ffff::"), t0+7); v.Remaining != 97 {
		t.Errorf("IPv6 /64: %+v, want 3 counted", v)
	}
	if v := l.Peek(ClientOf("2001:db8:0:8::1"), t0+7); v.Remaining != 100 {
		t.Errorf("another /64: %+v", v)
	}
}

// TestLimiterSharedBucket: every request without a usable CF-Connecting-IP counts
// against one bucket.
func TestLimiterSharedBucket(t *testing.T) {
	l := isolate(5, 60, 0, 1)
	for i, h := range []string{"", "garbage", "1.2.3", "::1%lo", "x"} {
		if v := l.Take(ClientOf(h), t0); !v.Allowed || v.Remaining != int64(4-i) {
			t.Fatalf("request %d (%q): %+v", i, h, v)
		}
	}
	if v := l.Take(ClientOf("nonsense"), t0); v.Allowed {
		t.Error("the shared bucket's sixth request was allowed")
	}
	if v := l.Take(ipA, t0); !v.Allowed {
		t.Error("a real address was limited by the shared bucket")
	}
}

func TestLimiterWindowEdges(t *testing.T) {
	l := isolate(3, 60, 0, 1)
	cases := []struct {
		at            int64 // ms after t0
		allowed       bool
		remaining, rs int64
	}{
		{0, true, 2, 60},
		{59_000, true, 1, 1},
		{59_999, true, 0, 1},
		{59_999, false, 0, 1},
		{60_000, true, 2, 60}, // a new window: the count starts again
		{119_999, true, 1, 1},
		{120_000 + 60_000*10, true, 2, 60}, // many windows later
		{-1, true, 2, 1},                   // a clock that went back: the window before
	}
	for _, c := range cases {
		v := l.Take(ipC, t0+c.at)
		if v.Allowed != c.allowed || v.Remaining != c.remaining || v.Reset != c.rs {
			t.Errorf("Take at t0%+d ms = %+v, want allowed %v remaining %d reset %d", c.at, v, c.allowed, c.remaining, c.rs)
		}
	}
}

func TestLimiterNoKVBelowStep(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	kv := newFakeKV()
	for i := 0; i < 9; i++ {
		l.Take(ipA, t0+int64(i))
		if l.Due(t0 + int64(i)) {
			t.Fatalf("KV work due after %d requests (step 10)", i+1)
		}
	}
	if wait, ops := kv.sync(t, l, t0+100); wait != 0 || len(ops) != 0 {
		t.Errorf("KVPending below the step = wait %d, ops %q", wait, ops)
	}
	l.Take(ipA, t0+200)
	if !l.Due(t0 + 200) {
		t.Fatal("no KV work due at the step")
	}
	// First a read of the client's keys: the isolate's slot is chosen from it.
	wait, ops := kv.sync(t, l, t0+200)
	if len(ops) != 1 || ops[0][0] != "get" || wait != 1 {
		t.Fatalf("ops at the step = %q (wait %d), want a get, then a put 1 ms later", ops, wait)
	}
	for s := 0; s < kvSlots; s++ {
		if want := fmt.Sprintf("rl:1795305600:%d:203.0.113.7", s); ops[0][1+s] != want {
			t.Errorf("get key %d = %q, want %q", s, ops[0][1+s], want)
		}
	}
	_, ops = kv.sync(t, l, t0+201)
	if want := "rl:1795305600:0:203.0.113.7"; len(ops) != 1 || ops[0][0] != "put" || ops[0][1] != want || !strings.HasSuffix(ops[0][2], ":10") || ops[0][3] != "120" {
		t.Errorf("ops %q, want a put of key %s, value <id>:10, ttl 120", ops, want)
	}
}

// TestLimiterSlotChoice: an isolate takes the first slot from its default on that no
// other isolate's count holds; two isolates that took one slot at once part.
func TestLimiterSlotChoice(t *testing.T) {
	kv := newFakeKV()
	a, b, c := isolate(100, 60, 2, 0xa), isolate(100, 60, 2, 0xb), isolate(100, 60, 2, 0xc)
	for i := 0; i < 10; i++ {
		a.Take(ipC, t0)
		b.Take(ipC, t0)
	}
	// a and b read at once (both see slot 2 free) and both write slot 2.
	_, opsA := pending(t, a.KVPending(nil, t0))
	_, opsB := pending(t, b.KVPending(nil, t0))
	a.KVDone(encodeRecords(kv.run(t, opsA, t0)), t0)
	b.KVDone(encodeRecords(kv.run(t, opsB, t0)), t0)
	kv.sync(t, a, t0+1)
	kv.sync(t, b, t0+1) // b's put overwrites a's count
	if v := kv.data["rl:1795305600:2:192.0.2.1"]; !strings.HasPrefix(v, "0b") {
		t.Fatalf("slot 2 = %q, want b's count", v)
	}
	// c comes later: slot 2 is taken, it takes 3.
	for i := 0; i < 10; i++ {
		c.Take(ipC, t0+2000)
	}
	kv.sync(t, c, t0+2000)
	kv.sync(t, c, t0+2001)
	if v := kv.data["rl:1795305600:3:192.0.2.1"]; !strings.HasPrefix(v, "0c") {
		t.Fatalf("slot 3 = %q, want c's count (%v)", v, kv.data)
	}
	// a reads again (its next step), finds b in its slot, and moves to a free one (4).
	for i := 0; i < 10; i++ {
		a.Take(ipC, t0+3000)
	}
	kv.sync(t, a, t0+3000)
	kv.sync(t, a, t0+3001)
	if v := kv.data["rl:1795305600:4:192.0.2.1"]; !strings.HasPrefix(v, "0a") || !strings.HasSuffix(v, ":20") {
		t.Fatalf("slot 4 = %q, want a's count 20 (%v)", v, kv.data)
	}
	// Now every isolate's count is visible to the others: c's next step reads them.
	for i := 0; i < 10; i++ {
		c.Take(ipC, t0+4000)
	}
	kv.sync(t, c, t0+4000)
	kv.sync(t, c, t0+4001)
	if v := c.Take(ipC, t0+4002); v.Remaining != 100-20-10-21 {
		t.Errorf("c sees remaining %d, want 49 (a 20, b 10, c 21)", v.Remaining)
	}
	if !strings.HasSuffix(kv.data["rl:1795305600:3:192.0.2.1"], ":20") {
		t.Errorf("c did not write its 20 in its slot: %v", kv.data)
	}
}

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

func TestLimiterPeekDoesNotCount(t *testing.T) {
	l := isolate(2, 60, 0, 1)
	if v := l.Peek(ipC, t0); v.Remaining != 2 || v.Reset != 60 || !v.Allowed {
		t.Errorf("Peek of an unseen client = %+v", v)
	}
	l.Take(ipC, t0)
	l.Take(ipC, t0)
	for i := 0; i < 3; i++ {
		if v := l.Peek(ipC, t0+1000); v.Remaining != 0 || v.Reset != 59 || v.Allowed {
			t.Errorf("Peek after the limit = %+v", v)
		}
	}
	if v := l.Take(ipC, t0+60_000); !v.Allowed || v.Remaining != 1 {
		t.Errorf("Peek counted: %+v", v)
	}
}

// TestLimiterEviction: in a full set, a new client takes the entry with the smallest
// count, the least recently seen among equals; expired entries are free.
func TestLimiterEviction(t *testing.T) {
	l := NewSized(100, 60, entrySize*ways, nil) // one set
	keys := make([]Key, ways+2)
	for i := range keys {
		keys[i] = ClientOf(fmt.Sprintf("198.51.100.%d", i+1))
	}
	for i := 0; i < ways; i++ { // client i sends i+2 requests; client 0 also the latest
		for j := 0; j <= i+1; j++ {
			l.Take(keys[i], t0+int64(i))
		}
	}
	if _, inUse, ev := l.Stats(); inUse != ways || ev != 0 {
		t.Fatalf("after %d clients: %d in use, %d evictions", ways, inUse, ev)
	}
	l.Take(keys[ways], t0+100) // evicts client 0 (2 requests, the fewest)
	if v := l.Peek(keys[0], t0+101); v.Remaining != 100 {
		t.Errorf("client 0 should have been evicted: %+v", v)
	}
	if v := l.Peek(keys[1], t0+101); v.Remaining != 97 {
		t.Errorf("client 1 (3 requests) was evicted: %+v", v)
	}
	// Two entries with 1 request each: the new one (seen last) stays, ...
	l.Take(keys[0], t0+200) // evicts keys[ways] (1 request, seen at 100)
	if v := l.Peek(keys[ways], t0+201); v.Remaining != 100 {
		t.Errorf("the least recently seen one-request client stayed: %+v", v)
	}
	if _, _, ev := l.Stats(); ev != 2 {
		t.Errorf("%d evictions, want 2", ev)
	}
	// In the next window every entry is free: no eviction.
	for _, k := range keys {
		l.Take(k, t0+60_000)
	}
	if _, inUse, ev := l.Stats(); inUse != ways || ev != 2+2 {
		t.Errorf("next window: %d in use, %d evictions (want %d, 4)", inUse, ev, ways)
	}
}

// TestLimiterChurn: a million distinct clients through a full table allocate nothing,
// keep a limited client limited, and never over-estimate a client under the limit.
func TestLimiterChurn(t *testing.T) {
	l := New(100, 60, nil)
	entries, _, _ := l.Stats()
	heavy, light := ClientOf("203.0.113.99"), ClientOf("2001:db8:5::1")
	for i := 0; i < 100; i++ {
		l.Take(heavy, t0)
	}
	for i := 0; i < 40; i++ {
		l.Take(light, t0)
	}
	var ip [4]byte
	n := 0
	churn := func() {
		n++
		binary.BigEndian.PutUint32(ip[:], uint32(0x0a000000+n))
		k := Key{0, 0xffff<<32 | uint64(binary.BigEndian.Uint32(ip[:]))}
		if v := l.Take(k, t0+int64(n/20)); !v.Allowed || v.Remaining != 99 {
			t.Fatalf("new client %d: %+v", n, v)
		}
	}
	if a := testing.AllocsPerRun(1_000_000, churn); a != 0 {
		t.Errorf("%v allocations per new client", a)
	}
	if v := l.Take(heavy, t0+59_000); v.Allowed {
		t.Error("the limited client was allowed after a million others")
	}
	if v := l.Take(light, t0+59_000); !v.Allowed || v.Remaining != 59 {
		t.Errorf("the client with 40 requests after a million others: %+v, want remaining 59", v)
	}
	e2, inUse, ev := l.Stats()
	if e2 != entries || inUse != entries || ev < int64(n-entries) {
		t.Errorf("table: %d entries (was %d), %d in use, %d evictions", e2, entries, inUse, ev)
	}
	t.Logf("%d entries, %d new clients, %d evictions", entries, n, ev)
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

// refClientOf is ClientOf by net/netip: the reference the hand-written parser must match.
func refClientOf(h string) Key {
	a, err := netip.ParseAddr(h)
	if err != nil || a.Zone() != "" {
		return Shared
	}
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		return Key{0, 0xffff<<32 | uint64(binary.BigEndian.Uint32(b[:]))}
	}
	b := a.As16()
	return Key{binary.BigEndian.Uint64(b[:8]), 0}
}

// refText is the KV text of k by net/netip.
func refText(k Key) string {
	if k == Shared {
		return "unknown"
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], k.Hi)
	binary.BigEndian.PutUint64(b[8:], k.Lo)
	if k.Hi == 0 && k.Lo>>32 == 0xffff {
		return netip.AddrFrom16(b).Unmap().String()
	}
	return netip.PrefixFrom(netip.AddrFrom16(b), 64).String()
}

func checkClientOf(t *testing.T, h string) {
	got, want := ClientOf(h), refClientOf(h)
	if got != want {
		t.Fatalf("ClientOf(%q) = %x, net/netip says %x", h, got, want)
	}
	text := string(appendClient(nil, got))
	if text != refText(got) {
		t.Fatalf("KV text of %q = %q, net/netip says %q", h, text, refText(got))
	}
	if back, ok := parseClient(text); !ok || back != got {
		t.Fatalf("parseClient(%q) = %x %v, want %x", text, back, ok, got)
	}
}

// TestClientOfMatchesNetip: random addresses in many spellings, and their mutations.
func TestClientOfMatchesNetip(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	for i := 0; i < 200_000; i++ {
		var b [16]byte
		rnd.Read(b[:])
		for j := range b { // many zero bytes: runs of zero groups
			if rnd.Intn(3) == 0 {
				b[j] = 0
			}
		}
		a := netip.AddrFrom16(b)
		if rnd.Intn(4) == 0 {
			a = netip.AddrFrom4([4]byte(b[:4]))
		}
		forms := []string{a.String(), a.StringExpanded(), strings.ToUpper(a.String())}
		if a.Is6() {
			forms = append(forms, netip.AddrFrom16(b).String()[:0]+a.StringExpanded()[:30]+netip.AddrFrom4([4]byte(b[12:])).String())
		} else {
			forms = append(forms, "::ffff:"+a.String(), "::FFFF:"+a.String())
		}
		for _, f := range forms {
			checkClientOf(t, f)
			m := []byte(f) // one mutation: a byte changed, dropped or doubled
			switch p := rnd.Intn(len(m)); rnd.Intn(3) {
			case 0:
				m[p] = "0123456789abcdefABCDEF:.%x /"[rnd.Intn(28)]
			case 1:
				m = append(m[:p], m[p+1:]...)
			case 2:
				m = append(m[:p+1], m[p:]...)
			}
			checkClientOf(t, string(m))
		}
	}
}

func FuzzClientOf(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "::", "::1", "1::", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6::8",
		"1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4", "::1.2.3.4",
		"1.2.3.04", "fe80::1%eth0", "1:2:3:4:5:6:7:1.2.3.4", "12345::", "1:::2", ":1::", "1::2::3", "0.0.0.0", "255.255.255.256"} {
		f.Add(s)
	}
	f.Fuzz(checkClientOf)
}

// The cost of Take natively: every request from a new client (an insert, evicting once
// the table is full) against 100 clients in turn (a hit).
func BenchmarkTakeNewClient(b *testing.B) {
	l := New(1<<30, 60, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l.Take(Key{uint64(i) << 16, 0}, t0)
	}
}

func BenchmarkTake100Clients(b *testing.B) {
	l := New(1<<30, 60, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l.Take(Key{uint64(i%100) << 16, 0}, t0)
	}
}

func BenchmarkClientOfIPv6(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ClientOf("2001:db8:85a3:8d3:1319:8a2e:370:7348")
	}
}

// TestParseIPFullForm holds parseIP to net/netip on all 16 bytes for addresses written
// in full (parseV6Full's fast path, whose errors fall back to parseV6) and for each
// with one byte changed, in upper and lower case.
func TestParseIPFullForm(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	for i := 0; i < 100_000; i++ {
		var b [16]byte
		rnd.Read(b[:])
		s := netip.AddrFrom16(b).StringExpanded()
		if rnd.Intn(2) == 0 {
			s = strings.ToUpper(s)
		}
		m := []byte(s)
		m[rnd.Intn(len(m))] = "0123456789abcdefABCDEFgG:.% "[rnd.Intn(28)]
		for _, f := range []string{s, string(m)} {
			got, ok := parseIP(f)
			a, err := netip.ParseAddr(f)
			if ok != (err == nil && a.Zone() == "") || (ok && got != a.As16()) {
				t.Fatalf("parseIP(%q) = %x %v, net/netip %v %v", f, got, ok, a, err)
			}
		}
	}
}

// TestParseV6FullEveryByte holds parseIP and ClientOf to net/netip for full-form
// addresses with each of their 39 bytes replaced by every byte value in turn: a wrong
// range in hexPair's tests, a carry between its bytes or a colon not checked shows here.
func TestParseV6FullEveryByte(t *testing.T) {
	rnd := rand.New(rand.NewSource(30))
	for i := 0; i < 24; i++ {
		var b [16]byte
		rnd.Read(b[:])
		s := netip.AddrFrom16(b).StringExpanded()
		if i%2 == 1 {
			s = strings.ToUpper(s)
		}
		if hi, lo, ok := parseV6Full(s); !ok || hi != binary.BigEndian.Uint64(b[:8]) || lo != binary.BigEndian.Uint64(b[8:]) {
			t.Fatalf("parseV6Full(%q) = %x %x %v", s, hi, lo, ok)
		}
		m := []byte(s)
		for pos := range m {
			for c := 0; c < 256; c++ {
				m[pos] = byte(c)
				f := string(m)
				got, ok := parseIP(f)
				a, err := netip.ParseAddr(f)
				if ok != (err == nil && a.Zone() == "") || (ok && got != a.As16()) {
					t.Fatalf("parseIP(%q) = %x %v, net/netip %v %v", f, got, ok, a, err)
				}
				if k, want := ClientOf(f), refClientOf(f); k != want {
					t.Fatalf("ClientOf(%q) = %x, net/netip says %x", f, k, want)
				}
			}
			m[pos] = s[pos]
		}
	}
}
