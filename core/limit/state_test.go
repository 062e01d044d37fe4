package limit

import (
	"fmt"
	"reflect"
	"testing"
)

// TestStateHandOver: an instance's counts, schedule and KV identity go to a fresh
// Limiter whole: every client's verdict is the same after LoadState, a limited client
// stays limited, a bulk get that was on its way is asked again, and the fresh Limiter
// writes under the old one's id and slot.
func TestStateHandOver(t *testing.T) {
	kv := newFakeKV()
	a := isolate(20, 60, 3, 0xa)
	now := t0
	clients := make([]Key, 500)
	for i := range clients {
		clients[i] = ClientOf(fmt.Sprintf("2001:db8:%x::1", i))
		for j := 0; j <= i%25; j++ { // 1 to 25 requests: some limited
			a.Take(clients[i], now)
		}
		now += 3
	}
	kv.sync(t, a, now) // the steps' reads and writes
	kv.sync(t, a, now+1000)
	// Put more on the schedule, and hand out one more round without its outcome: the
	// reads are then on their way when the state is taken.
	for i := 0; i < 50; i++ {
		a.Take(clients[i], now+2000)
	}
	_, inFlight := pending(t, a.KVPending(nil, now+2000))
	reads := 0
	for _, op := range inFlight {
		if op[0] == "get" {
			reads++
		}
	}
	if reads == 0 {
		t.Fatalf("no bulk get on its way to test with: %q", inFlight)
	}
	state := a.AppendState(nil)

	b := isolate(20, 60, 5, 0xb) // another seed, id and slot until it loads the state
	copy(b.Table(), a.Table())
	if !b.LoadState(state) {
		t.Fatal("LoadState refused AppendState's output")
	}
	for i, k := range clients {
		if va, vb := a.Peek(k, now+2001), b.Peek(k, now+2001); va != vb {
			t.Fatalf("client %d: %+v before the hand-over, %+v after", i, va, vb)
		}
	}
	if b.id != a.id || b.slot != a.slot || b.seed != a.seed {
		t.Fatalf("KV identity not handed over: id %x/%x slot %d/%d", a.id, b.id, a.slot, b.slot)
	}
	if !b.Due(now + 2001) {
		t.Fatal("the schedule of the old instance is not due at once on the new one")
	}
	_, again := pending(t, b.KVPending(nil, now+2001))
	gets := map[string]bool{}
	for _, op := range again {
		if op[0] == "get" {
			gets[op[1]] = true
		}
	}
	for _, op := range inFlight {
		if op[0] == "get" && !gets[op[1]] {
			t.Errorf("the bulk get of %s was on its way at the hand-over and is not asked again", op[1])
		}
	}
	// The limited stay limited, the others count on from where they were.
	for i, k := range clients {
		va, vb := a.Take(k, now+3000), b.Take(k, now+3000)
		if va.Allowed != vb.Allowed || va.Remaining != vb.Remaining {
			t.Fatalf("client %d after the hand-over: %+v, before it %+v", i, vb, va)
		}
	}
	// A state of another configuration, or cut short, changes nothing.
	for _, c := range []struct {
		name string
		l    *Limiter
	}{{"another limit", isolate(21, 60, 0, 1)}, {"another window", isolate(20, 61, 0, 1)}, {"another size", NewSized(20, 60, 64<<10, nil)}} {
		copy(c.l.Table(), a.Table())
		if c.l.LoadState(state) {
			t.Errorf("%s: LoadState took the state", c.name)
		}
		if v := c.l.Peek(clients[24], now+3001); v.Remaining != v.Limit {
			t.Errorf("%s: a refused state left counts in the table: %+v", c.name, v)
		}
	}
	fresh := isolate(20, 60, 5, 0xb)
	fresh.Peek(ipA, now+3001) // Peek starts the window: the checks below Peek too
	want := fresh.AppendState(nil)
	for _, n := range []int{0, 3, 40, 79, 80, len(state) / 2, len(state) - 1} {
		copy(fresh.Table(), a.Table())
		if fresh.LoadState(state[:n]) {
			t.Fatalf("LoadState took the first %d of %d bytes", n, len(state))
		}
		if got := fresh.AppendState(nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("a refused state (%d bytes) changed the Limiter", n)
		}
		if v := fresh.Peek(clients[24], now+3001); v.Remaining != v.Limit {
			t.Fatalf("a refused state (%d bytes) left counts in the table: %+v", n, v)
		}
	}
	copy(fresh.Table(), a.Table())
	if fresh.LoadState(append(state[:len(state):len(state)], 0)) {
		t.Fatal("LoadState took a state with a byte too many")
	}
}

// TestStateEmpty: a Limiter that never counted hands over an empty state.
func TestStateEmpty(t *testing.T) {
	a, b := isolate(20, 60, 0, 1), isolate(20, 60, 1, 2)
	copy(b.Table(), a.Table())
	if !b.LoadState(a.AppendState(nil)) {
		t.Fatal("LoadState refused an empty Limiter's state")
	}
	if v := b.Take(ipA, t0); !v.Allowed || v.Remaining != 19 {
		t.Fatalf("after an empty hand-over: %+v", v)
	}
}
