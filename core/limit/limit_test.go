package limit

import (
	"encoding/binary"
	"fmt"
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
