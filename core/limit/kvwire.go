package limit

import (
	"encoding/binary"
	"strings"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

// The KV operation lists exchanged with the glue. All integers little endian; a
// string is u32 length + bytes.
//
// KVPending: u32 total | u32 ms until the next operation falls due (0: none
// scheduled) | u32 n ops | n x (u32 n strings | strings). An op is
// ["put", key, value, expirationTtl seconds] or ["get", key1, ..., keyN] (one bulk get).
//
// KVDone: u32 n records | n x (u32 n strings | strings). A record is
// ["put", key, "1" ok | "0" failed] or ["get", key, "1" | "0", value ("" when absent)];
// the records of one bulk get follow each other.

// KVPending appends to dst the KV operations due at nowMs, marks them as handed over,
// and returns dst. It never blocks and never fails.
func (l *Limiter) KVPending(dst []byte, nowMs int64) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	ops := 0
	now := text.FloorDiv(nowMs, 1000)
	if l.start != text.FloorDiv(now, l.window)*l.window {
		l.advance(now) // the window ended without a request: its operations are moot
	}
	if nowMs >= l.pauseUntil {
		l.ensureID()
		rel := l.rel(nowMs)
		kept := l.due[:0]
		for _, i := range l.due {
			e := &l.table[i]
			if e.win != l.win || e.flags&fQueued == 0 {
				continue // evicted meanwhile
			}
			if ops < kvMaxOps && e.flags&fReadDue != 0 && (e.flags&fDirty == 0 || rel >= e.writeAt || e.slot == 0) {
				dst = binary.LittleEndian.AppendUint32(dst, 1+kvSlots)
				dst = appendField(dst, "get")
				for s := 0; s < kvSlots; s++ {
					dst = l.appendKey(dst, s, e.key)
				}
				e.flags = e.flags&^fReadDue | fReading
				e.readAt = max(rel, 1)
				ops++
			}
			if ops < kvMaxOps && e.flags&(fDirty|fReading) == fDirty && rel >= e.writeAt && e.slot != 0 {
				dst = binary.LittleEndian.AppendUint32(dst, 4)
				dst = appendField(dst, "put")
				dst = l.appendKey(dst, int(e.slot-1), e.key)
				dst = appendLenPrefixed(dst, func(b []byte) []byte {
					b = text.AppendHex64(b, l.id)
					b = append(b, ':')
					return jsonw.AppendInt(b, int64(e.n))
				})
				ttl := l.start + l.window - now + kvMinTTL
				dst = appendLenPrefixed(dst, func(b []byte) []byte { return jsonw.AppendInt(b, ttl) })
				e.written, e.writeAt = e.n, rel+kvWriteGapMs
				e.flags &^= fDirty
				e.nw++
				ops++
			}
			if e.flags&(fDirty|fReadDue|fReading) == 0 {
				e.flags &^= fQueued
				continue
			}
			kept = append(kept, i)
		}
		l.due = kept
	}
	l.recompute(nowMs)
	wait := l.wait(nowMs)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	binary.LittleEndian.PutUint32(dst[at+4:], uint32(wait))
	binary.LittleEndian.PutUint32(dst[at+8:], uint32(ops))
	return dst
}

// appendField appends s as a string of the KV operation lists: u32 length + bytes.
func appendField(dst []byte, s string) []byte {
	return bytebuf.Put(bytebuf.PutU32(dst, uint32(len(s))), s)
}

// readU32 reads the u32 at off; it returns the value, the offset after it, and false
// when buf is too short.
func readU32(buf []byte, off int) (uint32, int, bool) {
	if off < 0 || len(buf)-off < 4 {
		return 0, off, false
	}
	return binary.LittleEndian.Uint32(buf[off:]), off + 4, true
}

// readField reads the string at off (u32 length + bytes); it returns its bytes
// (aliasing buf), the offset after it, and false when buf is too short.
func readField(buf []byte, off int) ([]byte, int, bool) {
	n, at, ok := readU32(buf, off)
	if !ok || uint64(n) > uint64(len(buf)-at) {
		return nil, off, false
	}
	return buf[at : at+int(n)], at + int(n), true
}

// recompute sets nextDue from the due list (at most dueCap entries).
func (l *Limiter) recompute(nowMs int64) {
	next := int64(kvNoDue)
	for _, i := range l.due {
		e := &l.table[i]
		switch {
		case e.flags&fReading != 0: // its read is on its way: KVDone reschedules it
		case e.flags&fReadDue != 0 && (e.flags&fDirty == 0 || e.slot == 0):
			next = min(next, nowMs)
		case e.flags&(fDirty|fReadDue) != 0:
			next = min(next, l.abs(e.writeAt))
		}
	}
	if len(l.due) > 0 && next < l.pauseUntil {
		next = l.pauseUntil
	}
	l.nextDue = next
}

// wait returns the ms until nextDue (at least 1; 0: nothing scheduled) and marks it
// announced: the glue's timer covers it.
func (l *Limiter) wait(nowMs int64) int64 {
	if l.nextDue == kvNoDue {
		l.announced = false
		return 0
	}
	l.announced = true
	return min(max(l.nextDue-nowMs, 1), 1<<31)
}

// KVDone takes the outcomes of operations KVPending listed (in the form described
// above) at nowMs, and returns the ms until the next operation falls due (0: none
// scheduled): the glue sets its timer to it. Counts read are merged; a failed
// operation is retried after kvBackoffMs. Malformed input is ignored as far as it is
// malformed.
func (l *Limiter) KVDone(buf []byte, nowMs int64) int64 {
	n, off, ok := readU32(buf, 0)
	g := getSum{i: noEntry}
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		nf, off, ok = readU32(buf, off)
		if !ok || nf < 3 || nf > 4 {
			break
		}
		var f [4][]byte
		for j := uint32(0); j < nf && ok; j++ {
			f[j], off, ok = readField(buf, off)
		}
		if !ok {
			break
		}
		l.done(&g, text.BytesString(f[0]), text.BytesString(f[1]), len(f[2]) == 1 && f[2][0] == '1', text.BytesString(f[3]), nowMs)
	}
	l.finishGet(&g, nowMs)
	l.recompute(nowMs)
	return l.wait(nowMs)
}

// getSum adds up the records of one bulk get of a client's keys.
type getSum struct {
	i      uint32 // the entry (noEntry: none)
	ids    [kvSlots]uint64
	counts [kvSlots]uint64 // the largest count of each other isolate (ids) read
	taken  uint8           // slots holding another isolate's count
	failed bool
}

// finishGet merges one bulk get: the others' counts, and this isolate's slot for the
// client. The slot is chosen after the first read, free of other isolates' counts
// (from the isolate's default slot on), so two isolates rarely share one; when a read
// shows another isolate's count in this isolate's slot (both chose it at once), this
// isolate moves to a free slot and writes its whole count there.
func (l *Limiter) finishGet(g *getSum, nowMs int64) {
	if g.i != noEntry {
		l.table[g.i].flags &^= fReading
	}
	if g.i != noEntry && !g.failed {
		e := &l.table[g.i]
		sum := uint64(0)
		for _, c := range g.counts {
			sum += c
		}
		if uint64(e.remote) < sum { // a sum of counts never shrinks in a window
			e.remote = uint32(min(sum, 1<<32-1))
		}
		if e.slot == 0 || g.taken&(1<<(e.slot-1)) != 0 {
			moved := e.slot != 0
			for k := 0; k < kvSlots; k++ {
				if c := (l.slot + k) % kvSlots; g.taken&(1<<c) == 0 {
					e.slot = uint8(c + 1)
					break
				}
			}
			if e.slot == 0 {
				e.slot = uint8(l.slot + 1) // all taken: share the default
			}
			if moved && e.n > 0 && e.nw < maxWrites {
				e.flags |= fDirty
			}
		}
		if e.flags&fDirty != 0 {
			l.schedule(g.i, e, max(nowMs, l.abs(e.writeAt)))
		}
	}
	*g = getSum{i: noEntry}
}

func (l *Limiter) done(g *getSum, kind, key string, ok bool, value string, nowMs int64) {
	start, slot, client, good := parseKey(key)
	if !good || start != l.start || slot >= kvSlots {
		return // another window's key: its counts no longer matter
	}
	i := l.find(client, false)
	if i == noEntry {
		return
	}
	e := &l.table[i]
	if kind == "get" && g.i != i {
		l.finishGet(g, nowMs)
		g.i = i
	}
	if !ok {
		if kind == "get" {
			g.failed = true
		}
		l.pauseUntil = nowMs + kvBackoffMs
		switch kind {
		case "put":
			e.flags |= fDirty
			e.writeAt = max(e.writeAt, l.rel(l.pauseUntil))
		case "get":
			e.flags |= fReadDue
		}
		l.schedule(i, e, l.pauseUntil)
		return
	}
	if kind != "get" || value == "" {
		return
	}
	// An isolate's count is counted once, even if it is in two slots (it moved).
	if id, cnt, good := parseValue(value); good && id != l.id {
		g.taken |= 1 << slot
		for k := range g.ids {
			if g.ids[k] == id || g.ids[k] == 0 {
				g.ids[k], g.counts[k] = id, max(g.counts[k], uint64(cnt))
				break
			}
		}
	}
}

// appendKey appends the length-prefixed KV key of client's slot in the current window.
func (l *Limiter) appendKey(dst []byte, slot int, client Key) []byte {
	return appendLenPrefixed(dst, func(b []byte) []byte {
		b = append(b, "rl:"...)
		b = jsonw.AppendInt(b, l.start)
		b = append(b, ':')
		b = jsonw.AppendInt(b, int64(slot))
		b = append(b, ':')
		return appendClient(b, client)
	})
}

// parseKey splits "rl:<start>:<slot>:<client>".
func parseKey(k string) (start int64, slot int, client Key, ok bool) {
	if len(k) < 3 || k[:3] != "rl:" {
		return 0, 0, Key{}, false
	}
	k = k[3:]
	i := strings.IndexByte(k, ':')
	if i < 0 {
		return 0, 0, Key{}, false
	}
	start, ok = parseDecimal(k[:i])
	k = k[i+1:]
	j := strings.IndexByte(k, ':')
	if !ok || j < 0 {
		return 0, 0, Key{}, false
	}
	s, ok := parseDecimal(k[:j])
	if !ok || s >= kvSlots {
		return 0, 0, Key{}, false
	}
	client, ok = parseClient(k[j+1:])
	return start, int(s), client, ok
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
	return text.Digits(s, 1<<62)
}

// appendLenPrefixed appends a u32 length and what f appends.
func appendLenPrefixed(dst []byte, f func([]byte) []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = f(dst)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}
