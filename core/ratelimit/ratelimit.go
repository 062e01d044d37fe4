// Package ratelimit is the per-client rate limit: exact counts in the instance's
// memory, shared between isolates through Workers KV by write-behind (the glue runs
// the KV operations the Limiter lists). The API uses New, Take, Peek, Due,
// KVPending and KVDone.
package ratelimit

import (
	"encoding/binary"
	"strings"

	"github.com/campervan/agent-api/core/wire"
)

// The rate limit: every GET and HEAD of a client (CF-Connecting-IP) counts in fixed
// windows aligned to multiples of the window length (unix time).
//
// Within one isolate the count is exact: the Limiter holds it in the module's memory
// and decides every request synchronously. Across isolates and locations the counts are
// shared through Workers KV by write-behind, never on the request path:
//
//   - Once a client's count in this isolate reaches the share threshold (a tenth of the
//     limit), the Limiter asks the glue to write this isolate's count to a KV key of
//     its own, at most once a second per key (KV's limit), and to read the other
//     isolates' keys of that client and window in one bulk get(). Clients below the
//     threshold cost no KV operation at all.
//   - The keys of a client and window are a fixed family of kvSlots keys
//     "rl:<window start>:<slot>:<client>"; each isolate writes only the slot it drew at
//     random, as "<isolate id hex>:<count>", so reading a client's counts is one bulk
//     get of known keys (no list(), which the Free plan allows 1,000 times a day).
//   - The counts read are merged into the decision: a request is allowed while this
//     isolate's count plus the other isolates' known counts is at most the limit.
//
// The Go side decides everything (which keys, values, TTLs, when); the glue only runs
// the KV operations that KVPending lists and hands the outcomes to KVDone. A failed
// operation never fails a request: it is retried after kvBackoffMs.
// RATIONALE.md ("The rate limit across isolates") gives the guarantees and bounds.
const (
	kvSlots        = 8       // keys per client and window; one bulk get reads them all
	kvWriteGapMs   = 1000    // at most one write per key per second (KV's limit)
	kvRefreshMs    = 60000   // re-read a client's counts at most this often (KV's edge cache TTL)
	kvBackoffMs    = 10000   // after a failed KV operation, none for this long
	kvMinTTL       = 60      // KV's minimum expirationTtl, seconds
	kvMaxOps       = 20      // operations per KVPending batch (subrequest limits)
	kvMaxClientLen = 64      // longer client keys are counted locally only
	kvNoDue        = 1 << 62 // "nothing scheduled"
)

// Limiter counts requests per client exactly in this instance's memory and merges the
// counts other isolates shared through KV. It is not safe for concurrent use; a Worker
// isolate runs one request at a time through the module.
type Limiter struct {
	limit, window int64               // requests; seconds
	share         int64               // a client's local count from which it is shared through KV
	start         int64               // unix seconds at which the current window began
	counts        map[uint64]*rlEntry // by hashKey of the client; same-hash entries chain through next
	due           []string            // clients with a KV operation scheduled (write or read)
	nextDue       int64               // unix ms of the earliest scheduled operation; kvNoDue if none
	pauseUntil    int64               // unix ms: no KV operation before (after a failure)
	announced     bool                // the last KVPending gave the glue a delay (its timer runs)
	id            uint64              // this instance's id in KV values (0 until first needed)
	slot          int                 // this instance's slot in each client's key family
	random        func([]byte)
}

// rlEntry is one client in the current window.
type rlEntry struct {
	key      string   // the client (a copy, never the request buffer)
	next     *rlEntry // the next entry whose key has the same hash
	local    int64    // requests this instance counted (exact)
	written  int64    // local count last handed to the glue for KV
	writeAt  int64    // unix ms: the earliest time of the next write
	readDue  int64    // unix ms: a read of the client's keys is due (0: none)
	lastRead int64    // unix ms of the last read handed to the glue (0: never)
	dirty    bool     // local != what KV was last asked to hold
	queued   bool     // in Limiter.due
	remote   *[kvSlots]slotCount
}

// slotCount is what one slot of a client's key family held when last read.
type slotCount struct {
	id uint64
	n  int64
}

// New returns a limiter of limit requests per window seconds. random (may be
// nil: then KV sharing uses a fixed id) draws this instance's id and slot.
func New(limit, window int64, random func([]byte)) *Limiter {
	if limit < 1 {
		limit = 1
	}
	if window < 1 {
		window = 1
	}
	share := limit / 10
	if share < 1 {
		share = 1
	}
	return &Limiter{limit: limit, window: window, share: share, nextDue: kvNoDue,
		counts: make(map[uint64]*rlEntry), random: random}
}

// Verdict is the outcome of Take: the limit, the requests left in the window after this
// one, the seconds until the window resets, and whether this request is allowed.
type Verdict struct {
	Limit, Remaining, Reset int64
	Allowed                 bool
}

// Take counts one request from key at unix time nowMs (milliseconds) and returns the
// verdict. key may alias a request buffer: it is copied when first stored.
func (l *Limiter) Take(key string, nowMs int64) Verdict {
	now := wire.FloorDiv(nowMs, 1000)
	l.advance(now)
	e := l.entry(key)
	if e == nil {
		e = &rlEntry{key: strings.Clone(key), next: l.counts[hashKey(key)]}
		l.counts[hashKey(key)] = e
	}
	key = e.key // the stored copy: key may alias the request buffer, and schedule keeps it
	e.local++
	total := e.local + e.remoteSum(l.id)
	v := Verdict{Limit: l.limit, Remaining: l.limit - total, Reset: l.start + l.window - now, Allowed: total <= l.limit}
	if v.Remaining < 0 {
		v.Remaining = 0
	}
	if e.local >= l.share && len(key) <= kvMaxClientLen {
		e.dirty = true
		when := e.writeAt
		if e.lastRead == 0 && e.readDue == 0 {
			e.readDue = nowMs // first time over the threshold in this window: read the others
		} else if e.lastRead != 0 && e.readDue == 0 && nowMs-e.lastRead >= kvRefreshMs {
			e.readDue = nowMs
		}
		if e.readDue != 0 && e.readDue < when {
			when = e.readDue
		}
		l.schedule(key, e, when)
	}
	return v
}

// Peek returns the verdict key would get at nowMs without counting a request (for
// answers that do not count: preflights, other methods, paths outside the API).
func (l *Limiter) Peek(key string, nowMs int64) Verdict {
	now := wire.FloorDiv(nowMs, 1000)
	l.advance(now)
	total := int64(0)
	if e := l.entry(key); e != nil {
		total = e.local + e.remoteSum(l.id)
	}
	v := Verdict{Limit: l.limit, Remaining: l.limit - total, Reset: l.start + l.window - now, Allowed: total < l.limit}
	if v.Remaining < 0 {
		v.Remaining = 0
	}
	return v
}

// Due reports whether the shell should call KVPending at nowMs (the Worker's glue
// does, after the response is made): an operation is due, or one was scheduled that
// the last KVPending did not announce (so the glue's timer does not cover it).
func (l *Limiter) Due(nowMs int64) bool {
	return nowMs >= l.pauseUntil && (nowMs >= l.nextDue || (l.nextDue != kvNoDue && !l.announced))
}

// advance starts a new window when now is past the current one: the counts of an
// ended window, and its pending KV operations, are never needed again.
func (l *Limiter) advance(now int64) {
	start := wire.FloorDiv(now, l.window) * l.window
	if start != l.start {
		l.start = start
		clear(l.counts)
		clear(l.due)
		l.due = l.due[:0]
		l.nextDue = kvNoDue
	}
}

func (l *Limiter) schedule(key string, e *rlEntry, when int64) {
	if !e.queued {
		e.queued = true
		l.due = append(l.due, key)
	}
	if when < l.nextDue {
		l.nextDue = when
	}
}

// entry returns the client's entry, or nil. The map is keyed by a hash, not by the
// string: under TinyGo a map lookup with a string key is a heap allocation (measured:
// one per lookup under wazero), an integer key is not.
func (l *Limiter) entry(key string) *rlEntry {
	for e := l.counts[hashKey(key)]; e != nil; e = e.next {
		if e.key == key {
			return e
		}
	}
	return nil
}

// hashKey is FNV-64a of s.
func hashKey(s string) uint64 { return wire.FNV64a(wire.FNVOffset, s) }

// remoteSum is the sum of the counts other instances wrote for this client.
func (e *rlEntry) remoteSum(self uint64) int64 {
	if e.remote == nil {
		return 0
	}
	var n int64
	for _, s := range e.remote {
		if s.id != self {
			n += s.n
		}
	}
	return n
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

// The KV operation lists exchanged with the glue. All integers little endian; a
// string is u32 length + bytes.
//
// KVPending: u32 total | u32 ms until the next operation falls due (0: none
// scheduled) | u32 n ops | n x (u32 n strings | strings). An op is
// ["put", key, value, expirationTtl seconds] or ["get", key1, ..., keyN] (one bulk get).
//
// KVDone: u32 n records | n x (u32 n strings | strings). A record is
// ["put", key, "1" ok | "0" failed] or ["get", key, "1" | "0", value ("" when absent)].

// KVPending appends to dst the KV operations due at nowMs, marks them as handed over,
// and returns dst. It never blocks and never fails.
func (l *Limiter) KVPending(dst []byte, nowMs int64) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	ops := 0
	now := wire.FloorDiv(nowMs, 1000)
	if l.start != wire.FloorDiv(now, l.window)*l.window {
		l.advance(now) // the window ended without a request: its operations are moot
	}
	next := int64(kvNoDue)
	if nowMs < l.pauseUntil {
		if len(l.due) > 0 {
			next = l.pauseUntil
		}
	} else {
		l.ensureID()
		kept := l.due[:0]
		for _, key := range l.due {
			e := l.entry(key)
			if e == nil {
				continue
			}
			if ops < kvMaxOps && e.readDue != 0 && nowMs >= e.readDue {
				dst = binary.LittleEndian.AppendUint32(dst, 1+kvSlots)
				dst = wire.AppendField(dst, "get")
				for s := 0; s < kvSlots; s++ {
					dst = l.appendKey(dst, s, key)
				}
				e.readDue, e.lastRead = 0, nowMs
				ops++
			}
			if ops < kvMaxOps && e.dirty && nowMs >= e.writeAt {
				dst = binary.LittleEndian.AppendUint32(dst, 4)
				dst = wire.AppendField(dst, "put")
				dst = l.appendKey(dst, l.slot, key)
				dst = appendLenPrefixed(dst, func(b []byte) []byte {
					b = wire.AppendHex64(b, l.id)
					b = append(b, ':')
					return wire.AppendInt(b, e.local)
				})
				ttl := l.start + l.window - now + kvMinTTL
				dst = appendLenPrefixed(dst, func(b []byte) []byte { return wire.AppendInt(b, ttl) })
				e.written, e.dirty, e.writeAt = e.local, false, nowMs+kvWriteGapMs
				ops++
			}
			if !e.dirty && e.readDue == 0 {
				e.queued = false
				continue
			}
			kept = append(kept, key)
			if e.dirty && e.writeAt < next {
				next = e.writeAt
			}
			if e.readDue != 0 && e.readDue < next {
				next = e.readDue
			}
		}
		clear(l.due[len(kept):])
		l.due = kept
	}
	l.nextDue = next
	l.announced = next != kvNoDue
	wait := int64(0)
	if next != kvNoDue {
		wait = next - nowMs
		if wait < 1 {
			wait = 1
		}
		if wait > 1<<31 {
			wait = 1 << 31
		}
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	binary.LittleEndian.PutUint32(dst[at+4:], uint32(wait))
	binary.LittleEndian.PutUint32(dst[at+8:], uint32(ops))
	return dst
}

// KVDone takes the outcomes of operations KVPending listed (in the form described
// above) at nowMs. Counts read are merged; a failed operation is retried after
// kvBackoffMs. Malformed input is ignored as far as it is malformed.
func (l *Limiter) KVDone(buf []byte, nowMs int64) {
	n, off, ok := wire.ReadU32(buf, 0)
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		nf, off, ok = wire.ReadU32(buf, off)
		if !ok || nf < 3 || nf > 8 {
			return
		}
		var f [8]string
		for j := uint32(0); j < nf && ok; j++ {
			var b []byte
			b, off, ok = wire.ReadField(buf, off)
			f[j] = string(b)
		}
		if !ok {
			return
		}
		l.done(f[0], f[1], f[2] == "1", f[3], nowMs)
	}
}

func (l *Limiter) done(kind, key string, ok bool, value string, nowMs int64) {
	start, slot, client, good := parseKey(key)
	if !good || start != l.start {
		return // another window's key: its counts no longer matter
	}
	e := l.entry(client)
	if e == nil {
		return
	}
	if !ok {
		l.pauseUntil = nowMs + kvBackoffMs
		switch kind {
		case "put":
			e.dirty = true
			if e.writeAt < l.pauseUntil {
				e.writeAt = l.pauseUntil
			}
			l.schedule(client, e, e.writeAt)
		case "get":
			if e.readDue == 0 || e.readDue > l.pauseUntil {
				e.readDue = l.pauseUntil
			}
			l.schedule(client, e, e.readDue)
		}
		return
	}
	if kind != "get" || value == "" {
		return
	}
	id, cnt, good := parseValue(value)
	if !good || id == l.id {
		return
	}
	if e.remote == nil {
		e.remote = new([kvSlots]slotCount)
	}
	s := &e.remote[slot]
	if s.id != id || cnt > s.n { // a slot's count only grows, unless another instance took it
		*s = slotCount{id: id, n: cnt}
	}
}

// appendKey appends the length-prefixed KV key of client's slot in the current window.
func (l *Limiter) appendKey(dst []byte, slot int, client string) []byte {
	return appendLenPrefixed(dst, func(b []byte) []byte {
		b = append(b, "rl:"...)
		b = wire.AppendInt(b, l.start)
		b = append(b, ':')
		b = wire.AppendInt(b, int64(slot))
		b = append(b, ':')
		return append(b, client...)
	})
}

// parseKey splits "rl:<start>:<slot>:<client>".
func parseKey(k string) (start int64, slot int, client string, ok bool) {
	if len(k) < 3 || k[:3] != "rl:" {
		return 0, 0, "", false
	}
	k = k[3:]
	i := strings.IndexByte(k, ':')
	if i < 0 {
		return 0, 0, "", false
	}
	start, ok = parseDecimal(k[:i])
	k = k[i+1:]
	j := strings.IndexByte(k, ':')
	if !ok || j < 0 {
		return 0, 0, "", false
	}
	s, ok := parseDecimal(k[:j])
	if !ok || s >= kvSlots {
		return 0, 0, "", false
	}
	return start, int(s), k[j+1:], true
}

// parseValue splits "<16 hex id>:<count>".
func parseValue(v string) (id uint64, n int64, ok bool) {
	i := strings.IndexByte(v, ':')
	if i != 16 {
		return 0, 0, false
	}
	for k := 0; k < 16; k++ {
		c := v[k]
		switch {
		case c >= '0' && c <= '9':
			id = id<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			id = id<<4 | uint64(c-'a'+10)
		default:
			return 0, 0, false
		}
	}
	n, ok = parseDecimal(v[17:])
	return id, n, ok && id != 0
}

// parseDecimal parses a non-negative decimal of at most 18 digits.
func parseDecimal(s string) (int64, bool) {
	if len(s) > 18 {
		return 0, false
	}
	return wire.Digits(s, 1<<62)
}

// appendLenPrefixed appends a u32 length and what f appends.
func appendLenPrefixed(dst []byte, f func([]byte) []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = f(dst)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}
