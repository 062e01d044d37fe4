package limit

import (
	"encoding/binary"
	"unsafe"
)

// The hand-over of an instance's counts. The Worker's module is built with
// TinyGo's leaking allocator (nothing is ever freed: no GC bookkeeping on the request
// path), so the glue replaces an instance whose memory has grown past a bound with a
// fresh one. The counts must not be lost with it: a client could otherwise reset its
// own limit by making the instance grow. AppendState writes what the Limiter knows, and
// LoadState gives it to the fresh instance's Limiter.
//
// The state is in two parts. The head (AppendState): the configuration it applies to
// (table size, entry size, limit, window), the window, the hash seed (an entry's place
// in the table depends on it), this instance's KV id and slot, and the KV schedule; all
// integers little endian. The table itself goes as its bytes (Table: an entry holds no
// pointer), copied from the old instance's memory into the new one's: both are the same
// module, so the layout is the same, and a copy of 2 MiB is far cheaper than encoding
// the entries one by one. LoadState then checks the head and fixes up the entries the
// hand-over changes.
//
// What is in flight when the state is taken belongs to the old instance: the outcome of
// a bulk get on its way is dropped, so such an entry is marked to read again; the
// outcome of a put on its way is dropped too, and the count counts as written (as when
// KV took it; a failed put is then not retried, and the other isolates see this
// isolate's count at the client's next step).

const stateMagic = 0x32534c52 // "RLS2"

const stateHead = 4 + 4 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 8 + 4 + 8 + 4

// Table returns the bytes of the Limiter's table (the second part of the state; see
// above). The Limiter keeps using them: copy them out before it counts again.
func (l *Limiter) Table() []byte {
	if len(l.table) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&l.table[0])), len(l.table)*entrySize)
}

// AppendState appends the head of the Limiter's state to dst (see above) and returns dst.
func (l *Limiter) AppendState(dst []byte) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, stateMagic)
	dst = le.AppendUint32(dst, uint32(len(l.table)))
	dst = le.AppendUint32(dst, entrySize)
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
	return dst
}

// LoadState takes the head of a state (AppendState) of a Limiter of the same table
// size, limit and window, whose Table bytes the caller has already copied into this
// Limiter's Table. It reports whether it took it; when it does not (another
// configuration, a head not whole), the table is cleared: the counts start from zero,
// as after a trap, never from bytes the head does not vouch for.
func (l *Limiter) LoadState(b []byte) bool {
	if !l.loadState(b) {
		clear(l.table)
		return false
	}
	return true
}

func (l *Limiter) loadState(b []byte) bool {
	le := binary.LittleEndian
	if len(b) < stateHead || le.Uint32(b) != stateMagic || le.Uint32(b[4:]) != uint32(len(l.table)) ||
		le.Uint32(b[8:]) != entrySize || int64(le.Uint64(b[12:])) != l.limit || int64(le.Uint64(b[20:])) != l.window {
		return false
	}
	nDue := int(le.Uint32(b[stateHead-4:]))
	if nDue > cap(l.due) || len(b) != stateHead+4*nDue {
		return false
	}
	for k := 0; k < nDue; k++ {
		if le.Uint32(b[stateHead+4*k:]) >= uint32(len(l.table)) {
			return false
		}
	}
	l.seed = le.Uint64(b[28:])
	l.start = int64(le.Uint64(b[36:]))
	l.win = le.Uint32(b[44:])
	l.pauseUntil = int64(le.Uint64(b[48:]))
	l.id = le.Uint64(b[56:])
	l.slot = int(le.Uint32(b[64:]) % kvSlots)
	l.evictions = int64(le.Uint64(b[68:]))
	// The table's bytes are the old instance's, so its invariants hold: the entries in
	// the schedule (due) are the live ones marked fQueued, and an entry whose bulk get is
	// on its way is among them. Only those need a look.
	l.due = l.due[:0]
	for k := 0; k < nDue; k++ {
		i := le.Uint32(b[stateHead+4*k:])
		e := &l.table[i]
		if l.win == 0 || e.win != l.win || e.flags&fQueued == 0 {
			continue
		}
		if e.flags&fReading != 0 { // its outcome went to the old instance: read again
			e.flags = e.flags&^fReading | fReadDue
		}
		l.due = append(l.due, i)
	}
	// The glue's timer belonged to the old instance: the next KVPending is due at once.
	l.nextDue = kvNoDue
	if len(l.due) > 0 {
		l.nextDue = 0
	}
	l.announced = false
	return true
}
