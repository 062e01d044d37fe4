package limit

import "encoding/binary"

// The hand-over of an instance's counts (issue 16). The Worker's module is built with
// TinyGo's leaking allocator (nothing is ever freed: no GC bookkeeping on the request
// path), so the glue replaces an instance whose memory has grown past a bound with a
// fresh one. The counts must not be lost with it: a client could otherwise reset its
// own limit by making the instance grow. AppendState writes what the Limiter knows, and
// LoadState gives it to the fresh instance's Limiter.
//
// The state: the configuration it applies to (table size, limit, window), the window,
// the hash seed (an entry's place in the table depends on it), this instance's KV id and
// slot, the KV schedule, and every entry of the current window with its index. All
// integers little endian; an entry is 51 bytes, so a full table (43,688 entries) is
// ~2.2 MB.
//
// What is in flight when the state is taken belongs to the old instance: the outcome of
// a bulk get on its way is dropped, so such an entry is marked to read again; the
// outcome of a put on its way is dropped too, and the count counts as written (as when
// KV took it; a failed put is then not retried, and the other isolates see this
// isolate's count at the client's next step).

const stateMagic = 0x31534c52 // "RLS1"

const stateEntrySize = 4 + 16 + 7*4 + 3

// AppendState appends the Limiter's state to dst (see above) and returns dst.
func (l *Limiter) AppendState(dst []byte) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, stateMagic)
	dst = le.AppendUint32(dst, uint32(len(l.table)))
	dst = le.AppendUint64(dst, uint64(l.limit))
	dst = le.AppendUint64(dst, uint64(l.window))
	dst = le.AppendUint64(dst, l.seed)
	dst = le.AppendUint64(dst, uint64(l.start))
	dst = le.AppendUint32(dst, l.win)
	dst = le.AppendUint64(dst, uint64(l.pauseUntil))
	dst = le.AppendUint64(dst, l.id)
	dst = le.AppendUint32(dst, uint32(l.slot))
	dst = le.AppendUint64(dst, uint64(l.evictions))
	dst = le.AppendUint32(dst, uint32(len(l.due)))
	for _, i := range l.due {
		dst = le.AppendUint32(dst, i)
	}
	live := 0
	for i := range l.table {
		if l.win != 0 && l.table[i].win == l.win {
			live++
		}
	}
	dst = le.AppendUint32(dst, uint32(live))
	for i := range l.table {
		e := &l.table[i]
		if l.win == 0 || e.win != l.win {
			continue
		}
		dst = le.AppendUint32(dst, uint32(i))
		dst = le.AppendUint64(dst, e.key.Hi)
		dst = le.AppendUint64(dst, e.key.Lo)
		for _, v := range [7]uint32{e.win, e.n, e.remote, e.written, e.seen, e.writeAt, e.readAt} {
			dst = le.AppendUint32(dst, v)
		}
		dst = append(dst, e.flags, e.nw, e.slot)
	}
	return dst
}

// LoadState replaces the Limiter's state with b, from AppendState of a Limiter of the
// same table size, limit and window. It reports whether it took b; a b it cannot read
// whole, or of another configuration, changes nothing.
func (l *Limiter) LoadState(b []byte) bool {
	le := binary.LittleEndian
	const head = 4 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 8 + 4 + 8 + 4
	if len(b) < head || le.Uint32(b) != stateMagic || le.Uint32(b[4:]) != uint32(len(l.table)) ||
		int64(le.Uint64(b[8:])) != l.limit || int64(le.Uint64(b[16:])) != l.window {
		return false
	}
	nDue := int(le.Uint32(b[head-4:]))
	p := head + 4*nDue
	if nDue > cap(l.due) || len(b) < p+4 {
		return false
	}
	live := int(le.Uint32(b[p:]))
	p += 4
	if live > len(l.table) || len(b) != p+live*stateEntrySize {
		return false
	}
	for k := 0; k < nDue; k++ { // indexes in range, checked before anything changes
		if le.Uint32(b[head+4*k:]) >= uint32(len(l.table)) {
			return false
		}
	}
	for k := 0; k < live; k++ {
		if le.Uint32(b[p+k*stateEntrySize:]) >= uint32(len(l.table)) {
			return false
		}
	}
	l.seed = le.Uint64(b[24:])
	l.start = int64(le.Uint64(b[32:]))
	l.win = le.Uint32(b[40:])
	l.pauseUntil = int64(le.Uint64(b[44:]))
	l.id = le.Uint64(b[52:])
	l.slot = int(le.Uint32(b[60:]) % kvSlots)
	l.evictions = int64(le.Uint64(b[64:]))
	clear(l.table)
	l.due = l.due[:0]
	for k := 0; k < nDue; k++ {
		l.due = append(l.due, le.Uint32(b[head+4*k:]))
	}
	for k := 0; k < live; k++ {
		q := b[p+k*stateEntrySize:]
		e := &l.table[le.Uint32(q)]
		e.key = Key{le.Uint64(q[4:]), le.Uint64(q[12:])}
		f := q[20:]
		e.win, e.n, e.remote, e.written = le.Uint32(f), le.Uint32(f[4:]), le.Uint32(f[8:]), le.Uint32(f[12:])
		e.seen, e.writeAt, e.readAt = le.Uint32(f[16:]), le.Uint32(f[20:]), le.Uint32(f[24:])
		e.flags, e.nw, e.slot = f[28], f[29], f[30]
		if e.flags&fReading != 0 { // its outcome went to the old instance: read again
			e.flags = e.flags&^fReading | fReadDue
		}
		if e.slot > kvSlots {
			e.slot = 0
		}
	}
	// The schedule: each live entry with an operation to do, once (fQueued marks the
	// entries in it; a hand-made b could name others, or one twice).
	for i := range l.table {
		l.table[i].flags &^= fQueued
	}
	kept := l.due[:0]
	for _, i := range l.due {
		if e := &l.table[i]; e.win == l.win && e.win != 0 && e.flags&fQueued == 0 && e.flags&(fDirty|fReadDue) != 0 {
			e.flags |= fQueued
			kept = append(kept, i)
		}
	}
	l.due = kept
	// The glue's timer belonged to the old instance: the next KVPending is due at once.
	l.nextDue = kvNoDue
	if len(l.due) > 0 {
		l.nextDue = 0
	}
	l.announced = false
	return true
}
