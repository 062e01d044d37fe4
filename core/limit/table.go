package limit

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/campervan/agent-api/core/text"
)

// Limiter counts requests per client exactly in this instance's memory and merges the
// counts other isolates shared through KV. It is not safe for concurrent use; a Worker
// isolate runs one request at a time through the module.
type Limiter struct {
	limit, window int64   // requests; seconds
	step          uint32  // a write when a client's count crosses a multiple of it
	near          int64   // re-read a client whose estimated remaining allowance is at most this
	table         []entry // sets x ways, allocated once
	sets          uint64
	seed          uint64
	start         int64 // unix seconds at which the current window began
	win           uint32
	due           []uint32 // indexes of entries with a KV operation scheduled; cap dueCap
	nextDue       int64    // unix ms of the earliest scheduled operation; kvNoDue if none
	pauseUntil    int64    // unix ms: no KV operation before (after a failure)
	announced     bool     // the glue was given a delay for nextDue (its timer runs)
	id            uint64   // this instance's id in KV values (0 until first needed)
	slot          int      // this instance's default slot in each client's key family
	random        func([]byte)
	evictions     int64 // live entries taken by another client (Stats)
}

// New returns a limiter of limit requests per window seconds over a table of
// TableBytes. random (may be nil: then a fixed seed and id) seeds the table's hash and
// draws this instance's KV id and slot.
func New(limit, window int64, random func([]byte)) *Limiter {
	return NewSized(limit, window, TableBytes, random)
}

// NewSized is New with a table of about bytes (tests use small tables).
func NewSized(limit, window int64, bytes int, random func([]byte)) *Limiter {
	limit = clampLimit(limit)
	window = min(max(window, 1), maxWindowSec)
	step := (limit + 10) / 11
	sets := max(bytes/(entrySize*ways), 1)
	l := &Limiter{limit: limit, window: window, step: uint32(step), near: max(limit/2, 1),
		table: newTable(sets * ways), sets: uint64(sets), nextDue: kvNoDue,
		due: make([]uint32, 0, dueCap), random: random}
	var b [8]byte
	if random != nil {
		random(b[:])
	}
	l.seed = binary.LittleEndian.Uint64(b[:]) | 1
	return l
}

// Verdict is the outcome of Take: the limit, the requests left in the window after this
// one, the seconds until the window resets, and whether this request is allowed.
type Verdict struct {
	Limit, Remaining, Reset int64
	Allowed                 bool
	Kind                    Kind // the bucket that counted
}

// Stats reports the table: its entries, those in use in the current window, and the
// live entries evicted so far.
func (l *Limiter) Stats() (entries, inUse int, evictions int64) {
	for i := range l.table {
		if l.table[i].win == l.win {
			inUse++
		}
	}
	return len(l.table), inUse, l.evictions
}

// Take counts one request of client k (an address's bucket, at the limiter's limit) at
// unix time nowMs (milliseconds) and returns the verdict. It allocates nothing.
func (l *Limiter) Take(k Key, nowMs int64) Verdict {
	return l.TakeIn(Bucket{Key: k, Limit: l.limit}, nowMs)
}

// TakeIn is Take for any bucket: b's key counted against b's limit, exactly as an
// address's (the same table, the same KV sharing). It allocates nothing.
func (l *Limiter) TakeIn(b Bucket, nowMs int64) Verdict {
	k, limit, step, near := b.Key, l.limit, l.step, l.near
	if b.Limit != l.limit {
		limit = clampLimit(b.Limit)
		step, near = uint32((limit+10)/11), max(limit/2, 1)
	}
	now := text.FloorDiv(nowMs, 1000)
	l.advance(now)
	rel := l.rel(nowMs)
	i := l.find(k, true)
	e := &l.table[i]
	e.seen = rel
	total := int64(e.n) + int64(e.remote)
	v := Verdict{Limit: limit, Reset: l.start + l.window - now, Kind: b.Kind}
	if total >= limit {
		if e.flags&fLimited == 0 { // first refusal: record the final count, once
			e.flags |= fLimited
			if e.n != e.written && e.nw < maxWrites {
				l.wantWrite(i, e, nowMs, false)
			}
		}
		return v
	}
	e.n++
	v.Allowed, v.Remaining = true, limit-total-1
	switch {
	case e.n%step == 0 && e.nw < maxWrites-1:
		l.wantWrite(i, e, nowMs, true)
	case v.Remaining <= near && e.remote > 0 && e.flags&(fDirty|fReadDue) == 0:
		// Near the limit, when another isolate serves the client too: this isolate's
		// latest count and the others' are worth a write and a read each second
		// (while requests come). A client seen by this isolate only costs none.
		if rel-e.readAt >= reReadMs {
			e.flags |= fReadDue
			l.schedule(i, e, nowMs)
		}
		// Only from the writes the steps still to come leave over: a step's write,
		// and the final count's, always have their place in the 12. This isolate
		// allows at most Remaining more (the others' counts only grow), so no more
		// steps than those up to n + Remaining are to come.
		stepsLeft := (e.n+uint32(v.Remaining))/step - e.n/step
		if e.n != e.written && uint32(e.nw)+stepsLeft < maxWrites-1 {
			l.wantWrite(i, e, nowMs, false)
		}
	}
	return v
}

// wantWrite schedules a write of e's count and, with read, a read of the others'.
func (l *Limiter) wantWrite(i uint32, e *entry, nowMs int64, read bool) {
	e.flags |= fDirty
	if read {
		e.flags |= fReadDue
	}
	l.schedule(i, e, max(nowMs, l.abs(e.writeAt)))
}

// Peek returns the verdict client k would get at nowMs without counting a request (for
// answers that do not count: preflights, other methods, paths outside the API).
func (l *Limiter) Peek(k Key, nowMs int64) Verdict {
	return l.PeekIn(Bucket{Key: k, Limit: l.limit}, nowMs)
}

// PeekIn is Peek for any bucket.
func (l *Limiter) PeekIn(b Bucket, nowMs int64) Verdict {
	limit := l.limit
	if b.Limit != l.limit {
		limit = clampLimit(b.Limit)
	}
	now := text.FloorDiv(nowMs, 1000)
	l.advance(now)
	total := int64(0)
	if i := l.find(b.Key, false); i != noEntry {
		total = int64(l.table[i].n) + int64(l.table[i].remote)
	}
	return Verdict{Limit: limit, Remaining: max(limit-total, 0), Reset: l.start + l.window - now, Allowed: total < limit, Kind: b.Kind}
}

// Due reports whether the shell should call KVPending at nowMs (the Worker's glue
// does, after the response is made): an operation is due, or one was scheduled that
// the glue's timer does not cover.
func (l *Limiter) Due(nowMs int64) bool {
	return nowMs >= l.pauseUntil && (nowMs >= l.nextDue || (l.nextDue != kvNoDue && !l.announced))
}

const noEntry = ^uint32(0)

// find returns the index of k's entry in the current window; when there is none it
// returns noEntry, or with insert a fresh entry (evicting as described above).
func (l *Limiter) find(k Key, insert bool) uint32 {
	h := (k.Hi^l.seed)*0x9E3779B97F4A7C15 ^ (k.Lo+l.seed)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	base := uint32((h>>32)*l.sets>>32) * ways
	victim, vScore, vSeen := noEntry, uint64(1<<63), uint32(0)
	for i := base; i < base+ways; i++ {
		e := &l.table[i]
		if e.win != l.win {
			if victim == noEntry || vScore != 0 {
				victim, vScore = i, 0 // free: an ended window's entry, or never used
			}
			continue
		}
		if e.key == k {
			return i
		}
		if s := uint64(e.n) + uint64(e.remote); victim == noEntry || s < vScore || (s == vScore && vScore != 0 && e.seen < vSeen) {
			victim, vScore, vSeen = i, s, e.seen
		}
	}
	if !insert {
		return noEntry
	}
	e := &l.table[victim]
	if e.win == l.win {
		l.evictions++ // a live entry: its pending KV operations are dropped with it (KVPending skips it)
	}
	*e = entry{key: k, win: l.win}
	return victim
}

// advance starts a new window when now is past the current one: the counts of an
// ended window, and its pending KV operations, are never needed again (its entries
// are free from now on).
func (l *Limiter) advance(now int64) {
	start := text.FloorDiv(now, l.window) * l.window
	if start != l.start || l.win == 0 {
		l.start = start
		l.win = uint32(start/l.window) + 1
		if l.win == 0 {
			l.win = 1
		}
		l.due = l.due[:0]
		l.nextDue = kvNoDue
	}
}

// rel and abs convert between unix ms and the window-relative ms of entries.
func (l *Limiter) rel(nowMs int64) uint32 {
	return uint32(min(max(nowMs-l.start*1000, 0), 1<<32-1))
}
func (l *Limiter) abs(rel uint32) int64 { return l.start*1000 + int64(rel) }

func (l *Limiter) schedule(i uint32, e *entry, when int64) {
	if e.flags&fQueued == 0 {
		if len(l.due) == cap(l.due) {
			return // full: the client's counts stay local until a later request
		}
		e.flags |= fQueued
		l.due = append(l.due, i)
	}
	if when < l.nextDue {
		l.nextDue = when
		l.announced = false
	}
}

// ensureID draws this instance's id and slot once.
func (l *Limiter) ensureID() {
	if l.id != 0 {
		return
	}
	var b [8]byte
	if l.random != nil {
		l.random(b[:])
	}
	l.id = binary.LittleEndian.Uint64(b[:]) | 1 // never 0: 0 is "no id"
	l.slot = int((l.id >> 8) % kvSlots)
}

// Bound is the most requests of one client that k isolates on one consistent KV allow
// in a window of limit requests, each isolate seeing rate requests per second of it and
// KV operations taking latency seconds (RATIONALE.md, "Why is the rate limit counted in
// the isolate and shared through KV?"). What an isolate has not seen of another when it allows its last request
// is at most: what the other has not written yet (less than a step), plus what the
// other allowed after this isolate's last read (this isolate reads at each of its steps,
// and near the limit, once it has seen another isolate, every re-read period: at most
// a step, or rate x the period), plus what the other allowed while its write and this
// isolate's read were on their way (the write gap and four KV latencies: the other's
// read before its write, the write, this isolate's read).
func Bound(limit int64, k int, rate, latency float64) int64 {
	step := float64((limit + 10) / 11)
	missed := step - 1 + max(step, rate*reReadMs/1000) + rate*(kvWriteGapMs/1000.0+4*latency)
	b := float64(limit) + float64(k-1)*missed
	return min(int64(b), int64(k)*limit)
}

// staticTable is the table of the process's first full-size Limiter (the Worker's one
// per instance): a zero-initialised global, so an instance starts without allocating
// and zeroing 2 MiB (the engine's fresh memory is already zero; its pages are touched
// as sets are used). The module is built without a collector (-gc=leaking), so
// nothing scans these 2 MiB.
var (
	staticTable [TableBytes / (entrySize * ways) * ways]entry
	staticTaken atomic.Bool
)

// newTable returns a zeroed table of n entries: staticTable the first time one of its
// size is asked for, a new slice after that (tests build many Limiters; no two share).
func newTable(n int) []entry {
	if n == len(staticTable) && staticTaken.CompareAndSwap(false, true) {
		return staticTable[:]
	}
	return make([]entry, n)
}
