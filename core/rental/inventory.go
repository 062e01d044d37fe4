package rental

// The live inventory: what changes between deploys, kept apart from the
// reference data of the Catalog. Availability needs, per (vehicle, depot) pair, only
// the days on which every unit is taken, so that is all an Inventory holds, and all its
// binary form (the blob build/publish writes to Workers KV) carries:
//
//	"CVIX" 0x01                       magic and format version
//	uvarint n, n bytes                as_of: when the feed was exported (UTF-8, may be empty)
//	uvarint n, n bytes                source: where the feed came from
//	uvarint                           number of records in the feed
//	8 bytes (little endian)           the Catalog's fleetHash it was built for
//	uvarint                           number of pairs
//	uvarint                           number of spans, all pairs together
//	then per pair in (vehicle id, depot id) order:
//	  uvarint vehicle id, uvarint depot id, uvarint number of spans (>= 1), then per span:
//	    first span: varint (zigzag) its first day (days since 1970-01-01);
//	    later spans: uvarint the days between the previous span's last day and its first, minus 1;
//	    uvarint its length in days minus 1.
//
// The version of a blob is its content hash (FNV-64a, 16 hex digits):
// the same feed gives the same blob and the same version. The blob references the
// catalog by ids; DecodeInventory checks every id, the fleet it was built for and every
// count against the bytes left, so a bad blob is an error and never a partial state.

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/text"
)

// Inventory is one version of the bookings: per (vehicle, depot) pair the sorted,
// disjoint spans of days on which every unit is taken. It is immutable once built.
type Inventory struct {
	version  string
	asOf     string
	source   string
	bookings int
	// blocked[blockOff[p]:blockOff[p+1]] are the spans (calendar day indices) of pair p.
	blockOff []int32
	blocked  []span
}

// Version is the inventory's content hash (16 hex digits), "bundled-" followed by the
// hash for the bookings bundled with the deploy.
func (inv *Inventory) Version() string { return inv.version }

// AsOf is when the feed was exported, as the publisher was told ("" when unknown).
func (inv *Inventory) AsOf() string { return inv.asOf }

// Source says where the feed came from.
func (inv *Inventory) Source() string { return inv.source }

// Bookings is the number of records of the feed.
func (inv *Inventory) Bookings() int { return inv.bookings }

// Spans is the number of booked-out spans (a pair's run of days with every unit taken).
func (inv *Inventory) Spans() int { return len(inv.blocked) }

// Bundled reports whether this is the inventory bundled with the deploy.
func (inv *Inventory) Bundled() bool { return BundledVersion(inv.version) }

// BundledVersion reports whether v (an Inventory's Version) names the bookings bundled
// with the deploy.
func BundledVersion(v string) bool { return len(v) > 8 && v[:8] == "bundled-" }

// Inventory returns the bookings the catalog answers with.
func (c *Catalog) Inventory() *Inventory { return c.inv }

// WithInventory returns a copy of c that answers with inv (built for c: see
// DecodeInventory). The reference data is shared, not copied; c is unchanged.
func (c *Catalog) WithInventory(inv *Inventory) *Catalog {
	cc := *c
	cc.inv = inv
	return &cc
}

// Limits of a blob and of its fields.
const (
	MaxInventoryBytes = 16 << 20
	maxFeedText       = 256
	maxDay            = 1 << 22 // |a day| and a gap between spans, in days
	inventoryMagic    = "CVIX"
	inventoryFormat   = 1
)

// referenceHash is what an inventory depends on in the reference data: the fleet of
// every pair and the calendar's range (spans are clipped to it).
func (c *Catalog) referenceHash() uint64 {
	var buf [8]byte
	h := text.FNVOffset
	put := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h = text.FNV64a(h, text.BytesString(buf[:]))
	}
	put(int64(c.calStart))
	put(int64(c.calDays))
	nd := len(c.depots)
	for p, u := range c.fleet {
		if u > 0 {
			put(c.vehicles[p/nd].ID)
			put(c.depots[p%nd].ID)
			put(int64(u))
		}
	}
	return h
}

// blobVersion returns the version of a blob: its FNV-64a hash, in hex (the hash of the
// catalog's version and of the ETags). No version needs to resist a forger (only the
// publisher writes KV), so it is not SHA-256, which costs far more in wasm.
func blobVersion(blob []byte) string {
	return string(text.AppendHex64(nil, text.FNV64a(text.FNVOffset, text.BytesString(blob))))
}

// InventoryVersion returns the version a blob has (whether or not it is valid).
func InventoryVersion(blob []byte) string { return blobVersion(blob) }

// EncodeInventory returns the binary form of inv, built for c.
func (c *Catalog) EncodeInventory(inv *Inventory) []byte {
	b := append([]byte(inventoryMagic), inventoryFormat)
	b = binary.AppendUvarint(b, uint64(len(inv.asOf)))
	b = append(b, inv.asOf...)
	b = binary.AppendUvarint(b, uint64(len(inv.source)))
	b = append(b, inv.source...)
	b = binary.AppendUvarint(b, uint64(inv.bookings))
	b = binary.LittleEndian.AppendUint64(b, c.fleetHash)
	np := len(inv.blockOff) - 1
	pairs := 0
	for p := 0; p < np; p++ {
		if inv.blockOff[p+1] > inv.blockOff[p] {
			pairs++
		}
	}
	b = binary.AppendUvarint(b, uint64(pairs))
	b = binary.AppendUvarint(b, uint64(len(inv.blocked)))
	nd := len(c.depots)
	for p := 0; p < np; p++ {
		ss := inv.blocked[inv.blockOff[p]:inv.blockOff[p+1]]
		if len(ss) == 0 {
			continue
		}
		b = binary.AppendUvarint(b, uint64(c.vehicles[p/nd].ID))
		b = binary.AppendUvarint(b, uint64(c.depots[p%nd].ID))
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for i, s := range ss {
			if i == 0 {
				b = binary.AppendVarint(b, int64(c.calStart)+int64(s.from))
			} else {
				b = binary.AppendUvarint(b, uint64(s.from-ss[i-1].to-1))
			}
			b = binary.AppendUvarint(b, uint64(s.to-s.from))
		}
	}
	return b
}

// blobReader reads a blob; the first error sticks.
type blobReader struct {
	b   []byte
	off int
	err error
}

func (r *blobReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = text.Errorf("inventory blob: at byte %d: %s", r.off, text.Sprintf(format, args...))
	}
}

// failInts is fail with the first n of a, b, c as its arguments. DecodeInventory's
// checks call it, not fail: a call to fail boxes its arguments where it is made, and
// V8 compiles the decoder when an isolate takes its first live inventory, on the path
// of a first search. Out of line, the boxing is compiled only when a blob is refused.
//
//go:noinline
func (r *blobReader) failInts(format string, n int, a, b, c int64) {
	switch n {
	case 0:
		r.fail(format)
	case 1:
		r.fail(format, a)
	case 2:
		r.fail(format, a, b)
	default:
		r.fail(format, a, b, c)
	}
}

// failFleet refuses a blob built for another fleet or calendar (out of line: see
// failInts).
//
//go:noinline
func (r *blobReader) failFleet(h, want uint64) {
	r.fail("built for another fleet or season calendar (fleet hash %016x, this deploy has %016x); publish the feed again with this deploy's data", h, want)
}

// blobHeaderError says why blob's size or first bytes are not an inventory's, in the
// order DecodeInventory checks them (out of line: see failInts).
//
//go:noinline
func blobHeaderError(blob []byte) error {
	if len(blob) > MaxInventoryBytes {
		return text.Errorf("inventory blob: %d bytes, more than the limit of %d", len(blob), MaxInventoryBytes)
	}
	if len(blob) < len(inventoryMagic)+1 || string(blob[:len(inventoryMagic)]) != inventoryMagic {
		return text.Errorf("inventory blob: does not start with %q (not an inventory)", inventoryMagic)
	}
	return text.Errorf("inventory blob: format %d, this Worker reads format %d", blob[len(inventoryMagic)], inventoryFormat)
}

func (r *blobReader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("%s: truncated or overlong number", what)
		return 0
	}
	if v > max {
		r.fail("%s: %d is more than %d", what, v, max)
		return 0
	}
	r.off += n
	return v
}

func (r *blobReader) varint(what string, max int64) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail("%s: truncated or overlong number", what)
		return 0
	}
	if v > max || v < -max {
		r.fail("%s: %d is out of range", what, v)
		return 0
	}
	r.off += n
	return v
}

func (r *blobReader) text(what string) string {
	n := int(r.uvarint(what+" length", maxFeedText))
	if r.err != nil {
		return ""
	}
	if n > len(r.b)-r.off {
		r.fail("%s: truncated", what)
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	if !printable(s) {
		r.fail("%s: not printable UTF-8", what)
		return ""
	}
	r.off += n
	return s
}

// fastUvarint reads a uvarint at b[i:]: one byte inline, binary.Uvarint otherwise.
func fastUvarint(b []byte, i int) (uint64, int, bool) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, true
	}
	if i >= len(b) {
		return 0, i, false
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, i, false
	}
	return v, i + n, true
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, ch := range s {
		if ch < 0x20 || ch == 0x7f {
			return false
		}
	}
	return true
}

// DecodeInventory checks a blob against c and returns its Inventory. Any error (a
// wrong magic or format, an id c does not have, a pair without fleet, pairs out of
// order, a blob built for another fleet or calendar, a truncated or over-long blob)
// rejects the whole blob.
func (c *Catalog) DecodeInventory(blob []byte) (*Inventory, error) {
	if len(blob) > MaxInventoryBytes || len(blob) < len(inventoryMagic)+1 ||
		string(blob[:len(inventoryMagic)]) != inventoryMagic || blob[len(inventoryMagic)] != inventoryFormat {
		return nil, blobHeaderError(blob)
	}
	r := &blobReader{b: blob, off: len(inventoryMagic) + 1}
	inv := &Inventory{}
	pairs, total := c.readBlobHeader(r, inv)
	if r.err != nil {
		return nil, r.err
	}
	np := len(c.fleet)
	inv.blockOff = make([]int32, np+1)
	inv.blocked = make([]span, 0, total)
	prev := c.readPairs(r, inv, pairs, total)
	if r.err != nil {
		return nil, r.err
	}
	for q := prev + 1; q <= np; q++ {
		inv.blockOff[q] = int32(len(inv.blocked))
	}
	inv.version = blobVersion(blob)
	return inv, nil
}

// readBlobHeader reads what follows the magic and format into inv (as_of, source, the
// number of records), checks the fleet hash, and returns the numbers of pairs and of
// spans the blob announces, each bounded by the bytes left.
func (c *Catalog) readBlobHeader(r *blobReader, inv *Inventory) (pairs, total int) {
	inv.asOf = r.text("as_of")
	inv.source = r.text("source")
	inv.bookings = int(r.uvarint("number of records", 1<<31))
	if r.err != nil {
		return 0, 0
	}
	if len(r.b)-r.off < 8 {
		r.failInts("truncated before the fleet hash", 0, 0, 0, 0)
		return 0, 0
	}
	if h := binary.LittleEndian.Uint64(r.b[r.off:]); h != c.fleetHash {
		r.failFleet(h, c.fleetHash)
		return 0, 0
	}
	r.off += 8
	// Every pair takes at least 4 bytes (ids, a count, a span), every span at least 2.
	pairs = int(r.uvarint("number of pairs", uint64(len(r.b)-r.off)/4))
	total = int(r.uvarint("number of spans", uint64(len(r.b)-r.off)/2))
	return pairs, total
}

// readPairs reads the pairs into inv.blockOff and inv.blocked, checks that their spans
// add up to total and that nothing follows them, and returns the index of the last
// pair read (-1 for none).
func (c *Catalog) readPairs(r *blobReader, inv *Inventory, pairs, total int) (prev int) {
	prev = -1
	seen := 0
	vi := 0 // vehicles and depots are sorted by id, and so are the pairs: a cursor, no map
	for i := 0; i < pairs && r.err == nil; i++ {
		vid := int64(r.uvarint("vehicle id", 1<<53))
		did := int64(r.uvarint("depot id", 1<<53))
		n := int(r.uvarint("number of spans", uint64(total-seen)))
		if r.err != nil {
			break
		}
		var p int
		if p, vi = c.pairOf(r, i, vid, did, vi); p < 0 {
			break
		}
		if p <= prev {
			r.failInts("pair %d: vehicle %d at depot %d is out of order or repeated", 3, int64(i), vid, did)
			break
		}
		if n == 0 {
			r.failInts("pair %d: no spans", 1, int64(i), 0, 0)
			break
		}
		for q := prev + 1; q <= p; q++ {
			inv.blockOff[q] = int32(len(inv.blocked))
		}
		prev = p
		seen += n
		c.readSpans(r, inv, n)
	}
	if r.err == nil && seen != total {
		r.failInts("%d spans, the header says %d", 2, int64(seen), int64(total), 0)
	}
	if r.err == nil && r.off != len(r.b) {
		r.failInts("%d bytes after the last pair", 1, int64(len(r.b)-r.off), 0, 0)
	}
	return prev
}

// pairOf returns the index in c.fleet of pair i, vehicle vid at depot did, and the
// vehicle cursor moved on from vi; the index is -1, with r failed, when c has no such
// vehicle or depot, the vehicle comes before vi, or it has no fleet there.
func (c *Catalog) pairOf(r *blobReader, i int, vid, did int64, vi int) (p, next int) {
	for vi < len(c.vehicles) && c.vehicles[vi].ID < vid {
		vi++
	}
	if vi == len(c.vehicles) || c.vehicles[vi].ID != vid {
		if _, ok := c.vehicleIdx.find(vid); ok {
			r.failInts("pair %d: vehicle %d at depot %d is out of order or repeated", 3, int64(i), vid, did)
		} else {
			r.failInts("pair %d: vehicle %d is not in this deploy's vehicles.json", 2, int64(i), vid, 0)
		}
		return -1, vi
	}
	nd := len(c.depots)
	lo, hi := 0, nd
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.depots[m].ID < did {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == nd || c.depots[lo].ID != did {
		r.failInts("pair %d: depot %d is not in this deploy's depots.json", 2, int64(i), did, 0)
		return -1, vi
	}
	p = vi*nd + lo
	if c.fleet[p] == 0 {
		r.failInts("pair %d: vehicle %d has no fleet at depot %d", 3, int64(i), vid, did)
		return -1, vi
	}
	return p, vi
}

// readSpans reads the n spans of one pair and appends them to inv.blocked, clipped to
// the calendar (a span wholly outside it is left out).
func (c *Catalog) readSpans(r *blobReader, inv *Inventory, n int) {
	blob := r.b
	last := int64(c.calDays - 1)
	// The spans are most of a blob: read with the one-byte fast path inline rather
	// than through blobReader's method calls, which cost a call each under TinyGo.
	day := r.varint("first day", maxDay)
	off := r.off
	for k := 0; k < n && r.err == nil; k++ {
		if k > 0 {
			g, next, ok := fastUvarint(blob, off)
			if !ok || g > maxDay {
				r.off = off
				r.failInts("gap: truncated or out of range", 0, 0, 0, 0)
				break
			}
			day += int64(g) + 1
			off = next
		}
		l, next, ok := fastUvarint(blob, off)
		if !ok || l > maxCalendarDays {
			r.off = off
			r.failInts("span length: truncated or out of range", 0, 0, 0, 0)
			break
		}
		off = next
		length := int64(l)
		from, to := day-int64(c.calStart), day+length-int64(c.calStart)
		day += length
		if to < 0 || from > last {
			continue
		}
		if from < 0 {
			from = 0
		}
		if to > last {
			to = last
		}
		inv.blocked = append(inv.blocked, span{from: int32(from), to: int32(to)})
	}
	if r.err == nil {
		r.off = off
	}
}

// Feed is what a publisher knows of a feed besides its records.
type Feed struct {
	File   string // the file name, for messages
	AsOf   string // when it was exported, unless the feed says ("as_of")
	Source string // where it came from, unless the feed says ("source")
}

// BuildInventory validates a reservation feed against c and returns its blob (see
// EncodeInventory). A feed is either the record array of bookings.json as it is, or an
// object {"as_of": "...", "source": "...", "bookings": [records]}; errors name the
// file, the record and the field, as LoadCatalog's do.
func (c *Catalog) BuildInventory(feed []byte, f Feed) ([]byte, *Inventory, error) {
	if !jsonv.ValidBytes(feed) {
		return nil, nil, text.Errorf("%s: not valid JSON", f.File)
	}
	// The records are read in place, not from a copy of the feed (a feed of 100,000
	// bookings is ~11 MB, and the scheduled pull's instance never frees): feed must not
	// change while BuildInventory runs; nothing it returns refers to it.
	root := jsonv.Parse(text.BytesString(feed))
	list := ""
	asOf, source := f.AsOf, f.Source
	if root.IsObject() {
		list = "bookings"
		top := rec{file: f.File, idx: -1}
		for _, fld := range []struct {
			name string
			p    *string
		}{{"as_of", &asOf}, {"source", &source}} {
			v := root.Get(fld.name)
			if !v.Exists() {
				continue
			}
			if v.Type != jsonv.String || len(v.Str) > maxFeedText || !printable(v.Str) {
				return nil, nil, top.fail(fld.name, "must be a string of at most %d printable characters", maxFeedText)
			}
			*fld.p = string([]byte(v.Str)) // a copy: v.Str may be in feed
		}
	} else if !root.IsArray() {
		return nil, nil, text.Errorf("%s: must be a JSON array of booking records, or an object with \"bookings\"", f.File)
	}
	if len(asOf) > maxFeedText || !printable(asOf) || len(source) > maxFeedText || !printable(source) {
		return nil, nil, text.Errorf("%s: as_of and source must be at most %d printable characters", f.File, maxFeedText)
	}
	bs, n, err := c.parseBookings(f.File, list, root)
	if err != nil {
		return nil, nil, err
	}
	inv := c.newInventory(bs, n, asOf, source)
	blob := c.EncodeInventory(inv)
	inv.version = blobVersion(blob)
	return blob, inv, nil
}
