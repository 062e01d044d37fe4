package abi

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// The interned response form: what the Worker's module hands the JS glue.
//
// Most response headers repeat from one response to the next (content-type, the CORS
// and cache headers, the inventory version, the rate-limit policy; under a crowd of new
// clients even the remaining count). Decoding them afresh would cost the glue a
// TextDecoder call per header, whose two-byte strings workerd then converts back to
// UTF-8. So the module and the shell keep the same table of headerSlots (name, value)
// pairs: a header whose pair is in its slot crosses as 4 bytes, and the shell reuses the
// strings it made the first time.
//
// Form: u32 total | u16 status | u16 n headers | u32 body offset | n x entry | body.
// Entry: u16 slot | u16 kind, then for kind 1 and 2 the pair (u32 len, name | u32 len,
// value):
//
//	kind 0 (entryHit):     the pair in the shell's slot
//	kind 1 (entryStore):   this pair; the shell stores it in the slot (replacing it)
//	kind 2 (entryLiteral): this pair, not stored (longer than maxSlotPair)
//
// The header count's top bit (sameHeaders) says the headers are those of the previous
// answer, pair for pair: this answer's entries are all hits, in the slots the previous
// one's were, whose entries were all hits too (so neither changed a slot). The entries
// follow as usual; a shell that kept the previous answer's header list may take it
// instead of reading them.
//
// The module picks the slots (a hash of the pair's bytes chooses a set of four); it
// keeps the bytes of every slot and compares them whole, so a hit is never a collision.
// Both halves start empty with the instance; a shell that drops an instance (a trap)
// drops its table with it.
const (
	headerSlots  = 128
	maxSlotPair  = 256 // the most bytes of a pair kept in a slot (its ABI form: 8 + name + value)
	entryHit     = 0
	entryStore   = 1
	entryLiteral = 2
	sameHeaders  = 0x8000
)

// HeaderTable is the module's half of the table. Its zero value is empty; it never
// allocates (the slots are one fixed array). A pair may sit in any of the headerWays
// slots of its set; a new pair replaces the set's least recently used one, so the dozen
// headers of a response that hash to one set do not evict each other at every answer.
type HeaderTable struct {
	n     [headerSlots]uint16
	used  [headerSlots]uint32 // the answer that last used the slot (for LRU)
	clock uint32
	data  [headerSlots * maxSlotPair]byte
	// last is the slot of each header position of the previous answer: answers of one
	// route set their headers in one order, so the pair at position i is most often
	// the one in last[i], found by comparing it, without hashing it.
	last [maxLast]uint8
	gen  [headerSlots]uint32 // bumped when a slot's pair is replaced
	// lastN is the previous answer's header count when every header of it was a hit
	// recorded in last (-1 otherwise): an answer whose headers are all hits in those
	// slots, in that order, is marked sameHeaders
	lastN int
	// blocks remembers where the pairs of header blocks (Headers) went.
	blocks    [maxFixedBlocks]fixedBlock
	nextBlock int
}

const maxLast = 32

// A fixedBlock says where the pairs of a Headers block at version ver were last sent:
// pair i in slot[i], while that slot's gen is still gen[i]. A version's bytes never
// change, so while every gen holds, the shell has every pair in its slot and the block
// goes as hits without its bytes compared (the common block's five pairs are ~270
// bytes).
type fixedBlock struct {
	h    *Headers
	ver  uint64
	slot [maxFixedPairs]uint8
	gen  [maxFixedPairs]uint32
}

const (
	maxFixedBlocks = 8
	maxFixedPairs  = 8
)

// fixedHits writes the hits of block h at out[n:] and returns how many pairs it wrote
// (0: not known at its version, or a slot changed since; the pairs then go the usual
// way). h.at says which entry of t.blocks to look in.
//
// same reports whether each pair went in the slot of its position in the previous
// answer (last).
func (t *HeaderTable) fixedHits(h *Headers, out []byte, n, k int) (m int, same bool) {
	b := h.at
	if b < 0 || b >= len(t.blocks) {
		return 0, false
	}
	c := &t.blocks[b]
	if c.h != h || c.ver != h.ver {
		return 0, false
	}
	for i := 0; i < h.n; i++ {
		if t.gen[c.slot[i]] != c.gen[i] {
			return 0, false
		}
	}
	same = k+h.n <= maxLast
	for i := 0; i < h.n; i++ {
		s := c.slot[i]
		st32(out[n+4*i:], uint32(s)|entryHit<<16)
		t.used[s] = t.clock
		if k+i < maxLast {
			same = same && t.last[k+i] == s
			t.last[k+i] = s
		}
	}
	return h.n, same
}

// fixedSent records that the pairs of block h went to slots, at gens: in the entry h
// had (a block changed in place keeps its entry), or the next one in turn.
func (t *HeaderTable) fixedSent(h *Headers, slots *[maxFixedPairs]uint8, gens *[maxFixedPairs]uint32) {
	b := h.at
	if b < 0 || b >= len(t.blocks) || t.blocks[b].h != h {
		b = t.nextBlock
		t.nextBlock = (t.nextBlock + 1) % maxFixedBlocks
	}
	h.at = b
	t.blocks[b] = fixedBlock{h: h, ver: h.ver, slot: *slots, gen: *gens}
}

const headerWays = 4

// setOf returns the first slot of a pair's set (32 sets of 4 slots), by its bytes.
func setOf(e []byte) int {
	return int(text.Hash64(0, text.BytesString(e))>>59) * headerWays
}

// find returns e's slot and true, or the slot to store it in and false.
func (t *HeaderTable) find(e []byte) (int, bool) {
	set := setOf(e)
	victim := set
	for s := set; s < set+headerWays; s++ {
		if t.holds(s, e) {
			return s, true
		}
		if t.used[s] < t.used[victim] {
			victim = s
		}
	}
	return victim, false
}

// holds reports whether slot s holds pair e.
func (t *HeaderTable) holds(s int, e []byte) bool {
	n := int(t.n[s])
	return n == len(e) && n > 0 && sameBytes(t.data[s*maxSlotPair:s*maxSlotPair+n], e)
}

// sameBytes reports whether a and b (of one length) are equal, 8 bytes a step: TinyGo
// compares strings a byte at a time. It indexes a and b rather than reslicing them:
// a pointer that changes in a loop is one TinyGo keeps in a collector frame, pushed
// at every call (core/bytebuf/at.go), and holds runs for every header of every answer.
func sameBytes(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for ; i+8 <= len(a); i += 8 {
		if word(a, i) != word(b, i) {
			return false
		}
	}
	for ; i < len(a); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// word returns the 8 bytes of p from i as one little-endian word (one load once
// compiled), without making a string of them (a pointer TinyGo would track).
//
//go:inline
func word(p []byte, i int) uint64 {
	p = p[i : i+8]
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

// EncodeInterned returns the response in the interned form, in a buffer owned by w and
// valid until the next Reset, and updates t as the shell will.
func (w *Response) EncodeInterned(t *HeaderTable) []byte {
	inPlace := w.bodyInPlace()
	// The entries are written at an index into room made first (at most 4 bytes more
	// than its pair each), with cursor writers: appenders, which may grow, would cost a
	// collector frame and a slice returned through memory per header.
	out := w.internedRoom(inPlace)
	binary.LittleEndian.PutUint16(out[4:], uint16(w.Status))
	binary.LittleEndian.PutUint16(out[6:], uint16(w.nhdr))
	t.clock++
	n := internedHead
	k := 0 // the header's position
	// the blocks: sent as hits, or the slots of one recorded as its pairs go (rec, and
	// recAt: the position of its first pair while recording, -1 otherwise)
	nf := 0
	var rec *Headers
	recAt := -1
	var recSlots [maxFixedPairs]uint8
	var recGens [maxFixedPairs]uint32
	// hits: every header so far a hit recorded in last; same: and in the slot of its
	// position in the previous answer
	hits := w.nhdr <= maxLast
	same := true
	for off := 0; off < len(w.hdr); {
		if nf < w.nfixed && off == w.fixAt[nf] {
			h := w.fixed[nf]
			nf++
			if m, sm := t.fixedHits(h, out, n, k); m > 0 {
				same = same && sm // a block's hits are recorded in last up to maxLast
				n += 4 * m
				k += m
				off += len(h.enc)
				continue
			}
			rec, recAt = h, k
		}
		// w.hdr holds only what SetHeader* wrote: the two lengths are read in place,
		// without ReadField's checks.
		next := off + 4 + int(binary.LittleEndian.Uint32(w.hdr[off:]))
		next += 4 + int(binary.LittleEndian.Uint32(w.hdr[next:]))
		e := w.hdr[off:next]
		off = next
		if len(e) > maxSlotPair {
			st32(out[n:], entryLiteral<<16)
			n = bytebuf.BytesAt(out, n+4, e)
			k++
			hits = false
			recAt = -1 // a pair in no slot: the block is not remembered
			continue
		}
		var s int
		var hit bool
		if k < maxLast && t.holds(int(t.last[k]), e) {
			s, hit = int(t.last[k]), true
		} else {
			s, hit = t.find(e)
		}
		if k < maxLast {
			same = same && int(t.last[k]) == s
			t.last[k] = uint8(s)
		}
		k++
		t.used[s] = t.clock
		if hit {
			st32(out[n:], uint32(s)&0xffff|entryHit<<16)
			n += 4
		} else {
			hits = false
			t.n[s] = uint16(copy(t.data[s*maxSlotPair:], e))
			t.gen[s]++
			st32(out[n:], uint32(s)&0xffff|entryStore<<16)
			n = bytebuf.BytesAt(out, n+4, e)
		}
		if recAt >= 0 {
			// the slot and its gen as this pair is placed: a later pair that replaces
			// it moves the gen, so the block is then not taken for hits
			i := k - 1 - recAt
			recSlots[i], recGens[i] = uint8(s), t.gen[s]
			if i == rec.n-1 {
				t.fixedSent(rec, &recSlots, &recGens)
				recAt = -1
			}
		}
	}
	return w.finishInterned(t, out[:n], hits, same, inPlace)
}

// internedHead is the size of the interned form's head: u32 total | u16 status |
// u16 n headers | u32 body offset.
const internedHead = 12

// internedRoom returns w.out at its capacity, grown to hold the interned form's head
// and entries, and the body unless it stays in place. Inlined: every answer runs it.
//
//go:inline
func (w *Response) internedRoom(inPlace bool) []byte {
	max := internedHead + len(w.hdr) + 4*w.nhdr
	if !inPlace {
		max += len(w.Body)
	}
	if cap(w.out) < max {
		w.out = make([]byte, 0, max+max/4)
	}
	return w.out[:cap(w.out)]
}

// finishInterned completes the interned form whose head and entries are out: it marks
// the headers sameHeaders when they are the previous answer's (hits, same), records
// for the next answer whether every header was a hit, writes the lengths, and joins
// the body, in place behind the headers when there is room. Inlined: every answer
// runs it.
//
//go:inline
func (w *Response) finishInterned(t *HeaderTable, out []byte, hits, same, inPlace bool) []byte {
	if hits && same && w.nhdr > 0 && w.nhdr == t.lastN {
		binary.LittleEndian.PutUint16(out[6:], uint16(w.nhdr)|sameHeaders)
	}
	t.lastN = -1
	if hits {
		t.lastN = w.nhdr
	}
	binary.LittleEndian.PutUint32(out[8:], uint32(len(out)))
	binary.LittleEndian.PutUint32(out[0:], uint32(len(out)+len(w.Body)))
	if n := len(out); n <= bodyReserve && inPlace {
		// The headers go before the body, which stays where it was made.
		start := bodyReserve - n
		copy(w.front[start:], out)
		w.out = out
		return w.front[start : bodyReserve+len(w.Body)]
	}
	out = append(out, w.Body...)
	w.out = out
	return out
}

// HeaderCache is the shell's half of the table, in Go: the tests' wazero harness reads
// the module's answers through it, as the glue does in JS (worker/glue/abi.mjs).
type HeaderCache struct {
	slot   [headerSlots][]byte
	prev   []byte // the previous answer's headers, expanded (sameHeaders)
	prevOK bool
}

var errInterned = errors.New("abi: malformed interned response")

// Expand turns an interned response into the plain ABI form (a new buffer), storing
// the pairs it is told to.
func (c *HeaderCache) Expand(buf []byte) ([]byte, error) {
	if len(buf) < 12 {
		return nil, errInterned
	}
	total := int(binary.LittleEndian.Uint32(buf))
	bodyOff := int(binary.LittleEndian.Uint32(buf[8:]))
	if total > len(buf) || bodyOff < 12 || bodyOff > total {
		return nil, errInterned
	}
	nh := int(binary.LittleEndian.Uint16(buf[6:]) &^ sameHeaders)
	same := binary.LittleEndian.Uint16(buf[6:])&sameHeaders != 0
	out := append([]byte(nil), buf[:12]...)
	off := 12
	for i := 0; i < nh; i++ {
		if bodyOff-off < 4 {
			return nil, errInterned
		}
		s := int(binary.LittleEndian.Uint16(buf[off:]))
		kind := binary.LittleEndian.Uint16(buf[off+2:])
		off += 4
		if s >= headerSlots {
			return nil, errInterned
		}
		if kind == entryHit {
			if c.slot[s] == nil {
				return nil, errors.New("abi: interned response names an empty slot")
			}
			out = append(out, c.slot[s]...)
			continue
		}
		_, next, ok1 := ReadField(buf[:bodyOff], off)
		_, next, ok2 := ReadField(buf[:bodyOff], next)
		if !ok1 || !ok2 || kind > entryLiteral {
			return nil, errInterned
		}
		e := buf[off:next]
		off = next
		if kind == entryStore {
			c.slot[s] = append(c.slot[s][:0], e...)
		}
		out = append(out, e...)
	}
	if off != bodyOff {
		return nil, errInterned
	}
	// a shell may answer with the previous headers when told they are the same: they
	// must be, byte for byte
	if same && (!c.prevOK || !bytes.Equal(out[12:], c.prev)) {
		return nil, errors.New("abi: interned response marked sameHeaders has other headers than the previous one")
	}
	c.prev, c.prevOK = append(c.prev[:0], out[12:]...), true
	binary.LittleEndian.PutUint16(out[6:], uint16(nh))
	binary.LittleEndian.PutUint32(out[8:], uint32(len(out)))
	out = append(out, buf[bodyOff:total]...)
	binary.LittleEndian.PutUint32(out[0:], uint32(len(out)))
	return out, nil
}
