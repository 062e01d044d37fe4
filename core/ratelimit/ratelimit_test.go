package ratelimit

import (
	"github.com/campervan/agent-api/core/wire"

	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// t0 is the start of a 60-s window: 2026-11-22T00:00:00Z in unix ms.
const t0 = int64(1795305600000)

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
func pending(t *testing.T, b []byte) (wait uint32, ops [][]string) {
	t.Helper()
	if len(b) < 12 || int(binary.LittleEndian.Uint32(b)) != len(b) {
		t.Fatalf("KVPending: bad total in % x", b)
	}
	wait = binary.LittleEndian.Uint32(b[4:])
	n := binary.LittleEndian.Uint32(b[8:])
	off, ok := 12, true
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		nf, off, ok = wire.ReadU32(b, off)
		op := make([]string, nf)
		for j := range op {
			var f []byte
			f, off, ok = wire.ReadField(b, off)
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
			b = wire.AppendField(b, f)
		}
	}
	return b
}

// sync does what the glue does: runs the due operations against kv and hands the
// outcomes back. It returns the wait and the ops run.
func (kv *fakeKV) sync(t *testing.T, l *Limiter, nowMs int64) (uint32, [][]string) {
	t.Helper()
	wait, ops := pending(t, l.KVPending(nil, nowMs))
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
	l.KVDone(encodeRecords(recs), nowMs)
	return wait, ops
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

func TestLimiterExactInOneWindow(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	allowed := 0
	for i := 1; i <= 130; i++ {
		v := l.Take("203.0.113.7", t0+int64(i)) // all in the window's first second
		if v.Allowed {
			allowed++
		}
		wantRem := int64(100 - i)
		if wantRem < 0 {
			wantRem = 0
		}
		if v.Remaining != wantRem || v.Limit != 100 || v.Reset != 60 || v.Allowed != (i <= 100) {
			t.Fatalf("request %d: %+v, want remaining %d reset 60 allowed %v", i, v, wantRem, i <= 100)
		}
	}
	if allowed != 100 {
		t.Errorf("allowed %d of 130, want 100", allowed)
	}
	// Another client has its own count.
	if v := l.Take("198.51.100.1", t0+5); !v.Allowed || v.Remaining != 99 {
		t.Errorf("second client: %+v", v)
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
		v := l.Take("c", t0+c.at)
		if v.Allowed != c.allowed || v.Remaining != c.remaining || v.Reset != c.rs {
			t.Errorf("Take at t0%+d ms = %+v, want allowed %v remaining %d reset %d", c.at, v, c.allowed, c.remaining, c.rs)
		}
	}
}

func TestLimiterNoKVBelowShareThreshold(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	kv := newFakeKV()
	for i := 0; i < 9; i++ {
		l.Take("203.0.113.7", t0+int64(i))
		if l.Due(t0 + int64(i)) {
			t.Fatalf("KV work due after %d requests (threshold 10)", i+1)
		}
	}
	if wait, ops := kv.sync(t, l, t0+100); wait != 0 || len(ops) != 0 {
		t.Errorf("KVPending below the threshold = wait %d, ops %q", wait, ops)
	}
	l.Take("203.0.113.7", t0+200)
	if !l.Due(t0 + 200) {
		t.Fatal("no KV work due at the threshold")
	}
	_, ops := kv.sync(t, l, t0+200)
	if len(ops) != 2 || ops[0][0] != "get" || ops[1][0] != "put" {
		t.Fatalf("ops at the threshold = %q, want a get and a put", ops)
	}
	if want := "rl:1795305600:0:203.0.113.7"; ops[1][1] != want || !strings.HasSuffix(ops[1][2], ":10") || ops[1][3] != "120" {
		t.Errorf("put %q, want key %s, value <id>:10, ttl 120", ops[1], want)
	}
	for s := 0; s < kvSlots; s++ {
		if want := fmt.Sprintf("rl:1795305600:%d:203.0.113.7", s); ops[0][1+s] != want {
			t.Errorf("get key %d = %q, want %q", s, ops[0][1+s], want)
		}
	}
}

// TestLimiterWriteBehindOncePerSecond: a busy client's count reaches KV at most once a
// second per key, and the last write holds the exact count.
func TestLimiterWriteBehindOncePerSecond(t *testing.T) {
	l := isolate(1000, 60, 3, 1)
	kv := newFakeKV()
	timer := int64(-1) // when the glue's delayed kvSync fires
	n := int64(0)
	for ms := int64(0); ms < 5000; ms += 7 {
		now := t0 + ms
		if timer >= 0 && now >= timer {
			timer = -1
			if wait, _ := kv.sync(t, l, now); wait > 0 {
				timer = now + int64(wait)
			}
		}
		l.Take("203.0.113.7", now)
		n++
		if l.Due(now) {
			if wait, _ := kv.sync(t, l, now); wait > 0 && timer < 0 {
				timer = now + int64(wait)
			}
		}
	}
	for timer >= 0 { // requests stopped: the delayed flushes run
		now := timer
		timer = -1
		if wait, _ := kv.sync(t, l, now); wait > 0 {
			timer = now + int64(wait)
		}
	}
	for k, c := range kv.putsByKeyAndSecond {
		if c > 1 {
			t.Errorf("%d writes to %s in one second", c, k)
		}
	}
	if kv.puts > 6 {
		t.Errorf("%d writes in 5 s, want at most 6", kv.puts)
	}
	key := "rl:1795305600:3:203.0.113.7"
	if v := kv.data[key]; !strings.HasSuffix(v, fmt.Sprintf(":%d", n)) {
		t.Errorf("KV %s = %q, want the exact count %d", key, v, n)
	}
	if kv.gets != 1 {
		t.Errorf("%d reads in one window, want 1", kv.gets)
	}
}

// TestLimiterMergesIsolates: counts written by other isolates are merged into the
// decision once read.
func TestLimiterMergesIsolates(t *testing.T) {
	kv := newFakeKV()
	a, b, c := isolate(100, 60, 0, 0xa), isolate(100, 60, 1, 0xb), isolate(100, 60, 2, 0xc)
	const ip = "2001:db8::1" // colons in the client key
	for i := 0; i < 60; i++ {
		a.Take(ip, t0+int64(i))
	}
	kv.sync(t, a, t0+100)
	if !strings.HasSuffix(kv.data["rl:1795305600:0:"+ip], ":60") {
		t.Fatalf("isolate a wrote %v", kv.data)
	}
	// b sees the client for the first time: it counts alone until its read returns.
	var v Verdict
	for i := 0; i < 10; i++ {
		v = b.Take(ip, t0+1000)
	}
	if v.Remaining != 90 {
		t.Fatalf("b before its read: remaining %d, want 90", v.Remaining)
	}
	kv.sync(t, b, t0+1000) // reads a's 60, writes its own 10
	v = b.Take(ip, t0+1001)
	if v.Remaining != 100-60-11 {
		t.Fatalf("b after merging a's count: remaining %d, want 29", v.Remaining)
	}
	for i := 0; i < 29; i++ {
		if v = b.Take(ip, t0+1002); !v.Allowed {
			t.Fatalf("b refused request %d of the remaining 29", i+1)
		}
	}
	if v = b.Take(ip, t0+1003); v.Allowed || v.Remaining != 0 {
		t.Fatalf("b allowed a request over the shared limit: %+v", v)
	}
	// c reads both after 10 of its own: every further request is refused.
	for i := 0; i < 10; i++ {
		c.Take(ip, t0+3000)
	}
	kv.sync(t, b, t0+3000) // b's write-behind of its 41
	kv.sync(t, c, t0+3000)
	if v = c.Take(ip, t0+3001); v.Allowed {
		t.Fatalf("c allowed a request with a:60 b:41 c:11: %+v", v)
	}
	// a refreshes after kvRefreshMs and sees the others.
	a.Take(ip, t0+200)
	kv.sync(t, a, t0+200)
	if a.Take(ip, t0+kvRefreshMs-1).Remaining == 0 {
		t.Fatal("a refreshed before kvRefreshMs")
	}
	// (the window ends at 60 s = kvRefreshMs: a refresh is only ever due inside longer windows)
}

func TestLimiterRefreshInLongWindows(t *testing.T) {
	kv := newFakeKV()
	a, b := isolate(100, 3600, 0, 0xa), isolate(100, 3600, 1, 0xb)
	start := t0 - t0%3_600_000
	for i := 0; i < 10; i++ {
		a.Take("c", start)
	}
	kv.sync(t, a, start) // a reads nothing yet
	for i := 0; i < 80; i++ {
		b.Take("c", start+10)
	}
	kv.sync(t, b, start+10)
	if v := a.Take("c", start+30_000); v.Remaining != 89 {
		t.Fatalf("a before its refresh: %+v", v)
	}
	if _, ops := kv.sync(t, a, start+30_000); len(ops) != 1 || ops[0][0] != "put" {
		t.Fatalf("before kvRefreshMs: ops %q, want only a put", ops)
	}
	a.Take("c", start+kvRefreshMs)
	if !a.Due(start + kvRefreshMs) {
		t.Fatal("no refresh due after kvRefreshMs")
	}
	kv.sync(t, a, start+kvRefreshMs)
	if v := a.Take("c", start+kvRefreshMs+1); v.Remaining != 100-13-80 {
		t.Fatalf("a after its refresh: remaining %d, want 7", v.Remaining)
	}
}

// TestLimiterSlotCollision: two isolates that drew the same slot overwrite each other
// in KV, but each still counts the other's value as remote when it reads it.
func TestLimiterSlotCollision(t *testing.T) {
	kv := newFakeKV()
	a, b := isolate(100, 60, 5, 0xa), isolate(100, 60, 5, 0xb)
	for i := 0; i < 50; i++ {
		a.Take("c", t0)
	}
	kv.sync(t, a, t0)
	for i := 0; i < 10; i++ {
		b.Take("c", t0+10)
	}
	kv.sync(t, b, t0+10) // reads a's 50 in slot 5, then overwrites slot 5 with its 10
	if v := b.Take("c", t0+20); v.Remaining != 100-50-11 {
		t.Errorf("b: remaining %d, want 39", v.Remaining)
	}
}

// TestLimiterKVErrors: failed operations never fail a request; they stop KV traffic
// for kvBackoffMs and are retried.
func TestLimiterKVErrors(t *testing.T) {
	kv := newFakeKV()
	kv.failPut, kv.failGet = true, true
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take("c", t0)
	}
	_, ops := kv.sync(t, l, t0)
	if len(ops) != 2 {
		t.Fatalf("ops %q", ops)
	}
	for i := 0; i < 90; i++ { // decisions go on from the local count
		if v := l.Take("c", t0+100); !v.Allowed {
			t.Fatalf("request %d refused while KV fails", 11+i)
		}
	}
	if v := l.Take("c", t0+100); v.Allowed {
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
	if len(ops) != 2 || ops[0][0] != "get" || ops[1][0] != "put" || !strings.HasSuffix(ops[1][2], ":101") {
		t.Fatalf("retry after the backoff: %q", ops)
	}
	if kv.puts != 2 || kv.gets != 2 {
		t.Errorf("puts %d gets %d, want 2 and 2", kv.puts, kv.gets)
	}
}

// TestLimiterIgnoresOtherWindows: results for keys of an ended window change nothing,
// and an ended window's pending writes are dropped.
func TestLimiterIgnoresOtherWindows(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take("c", t0)
	}
	if wait, ops := pending(t, l.KVPending(nil, t0+60_000)); wait != 0 || len(ops) != 0 {
		t.Fatalf("an ended window's operations: wait %d, ops %q", wait, ops)
	}
	l.Take("c", t0+60_000)
	l.KVDone(encodeRecords([][]string{{"get", "rl:1795305600:3:c", "1", "0000000000000abc:99"}}), t0+60_001)
	if v := l.Take("c", t0+60_002); v.Remaining != 98 {
		t.Errorf("an old window's count was merged: %+v", v)
	}
}

// TestLimiterMalformedKVDone: whatever the glue hands back, nothing panics.
func TestLimiterMalformedKVDone(t *testing.T) {
	l := isolate(100, 60, 0, 1)
	for i := 0; i < 10; i++ {
		l.Take("c", t0)
	}
	good := encodeRecords([][]string{{"get", "rl:1795305600:3:c", "1", "00000000000000ab:7"}})
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
		inputs = append(inputs, encodeRecords([][]string{{"get", "rl:1795305600:3:c", "1", v}}))
	}
	for _, k := range []string{"", "rl:", "rl:x:1:c", "rl:1795305600:8:c", "rl:1795305600:-1:c", "rl:1795305600"} {
		inputs = append(inputs, encodeRecords([][]string{{"get", k, "1", "00000000000000ab:7"}, {"put", k, "0"}}))
	}
	for _, in := range inputs {
		l.KVDone(in, t0+1)
	}
	l.KVDone(good, t0+1)
	if v := l.Take("c", t0+2); v.Remaining > 100-11-7 {
		t.Errorf("a well-formed record was not merged: %+v", v)
	}
}

func TestLimiterLongClientKeyStaysLocal(t *testing.T) {
	l := isolate(10, 60, 0, 1)
	long := strings.Repeat("x", kvMaxClientLen+1)
	for i := 0; i < 10; i++ {
		l.Take(long, t0)
	}
	if l.Due(t0) {
		t.Error("a client key longer than kvMaxClientLen is shared through KV")
	}
}

func TestLimiterPeekDoesNotCount(t *testing.T) {
	l := isolate(2, 60, 0, 1)
	if v := l.Peek("c", t0); v.Remaining != 2 || v.Reset != 60 || !v.Allowed {
		t.Errorf("Peek of an unseen client = %+v", v)
	}
	l.Take("c", t0)
	l.Take("c", t0)
	for i := 0; i < 3; i++ {
		if v := l.Peek("c", t0+1000); v.Remaining != 0 || v.Reset != 59 || v.Allowed {
			t.Errorf("Peek after the limit = %+v", v)
		}
	}
	if v := l.Take("c", t0+60_000); !v.Allowed || v.Remaining != 1 {
		t.Errorf("Peek counted: %+v", v)
	}
}
