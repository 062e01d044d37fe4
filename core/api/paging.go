package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// Paging of the list answers (availability, the calendar, a vehicle's accessories and
// insurance plans): limit is the most items a page holds, page the position of a page
// after the first. The body stays the JSON array; a Link header (RFC 8288, rel="next")
// carries the URL of the next page, and an MCP result its token (nextPage).
//
// A page token is "<offset>.<16 hex digits>": the offset of the page's first item in
// the list and a hash of what the list is a function of (the operation, its path
// parameter, every query parameter but limit and page, the catalog and the inventory
// version, as pageKey says). The list is sorted the same way for the same inputs, so a
// token whose hash matches names a consistent page; one made for another search, or
// before the inventory changed, is a 400 page_expired that says to start again without
// page. New Zealand's date is left out: it decides whether a search is answered at all
// (dates in the past, the notice period), not which vehicles a list holds, and a
// calendar's entries are its dates whatever today is.

const (
	// defaultLimit keeps every list of the bundled catalog whole (12 vehicles, at
	// most 8 extras) and a first page small at any fleet size: 20 vehicles are ~8 KB,
	// ~20 KB with include=insurance. maxLimit bounds a page at ~40 KB (~100 KB with
	// insurance).
	defaultLimit = 20
	maxLimit     = 100
	// A calendar pages over its entries (start dates x hire lengths): the default is
	// every start date of one hire length, the most a calendar answers at once.
	defaultCalendarLimit = maxCalendarSpan + 1
	maxCalendarLimit     = (maxCalendarSpan + 1) * maxCalendarLengths
	// A calendar page's entries times the fleet's vehicles are bounded, so that a
	// page's work does not grow with the fleet. With detail=full each row is written:
	// 12 vehicles keep every limit up to maxCalendarLimit, 2,000 get one entry a page.
	// A summary only searches each row: 2,000 vehicles keep a default page of 63
	// entries, and 500 or fewer every limit.
	fullDetailRows = 12 * maxCalendarLimit
	summaryRows    = 2000 * defaultCalendarLimit
	// mcpPageBytes ends a page of an MCP tool's result once its body reaches this
	// many bytes (a page may pass it by one item): the result carries the body twice,
	// as structuredContent and as its JSON text, within ~8 KB.
	mcpPageBytes = 3000
)

// page is a request's page of a list: its first item, the most it may hold, and,
// once the page is written, where the next one starts (0: it is the last).
type page struct {
	off, limit, next int
	given            bool   // a page parameter was given
	key              uint64 // the hash a token carries (pageKey), once computed
	keyed            bool
	bytes            int // the MCP byte budget of a page (0: none)
}

// pageParams reads limit (1 to max, default def) and page; seed is what the list is
// a function of beyond the query (the catalog and inventory versions).
func (s *Server) pageParams(c *call, def, max int, seed uint64) *rental.Error {
	p := &c.pg
	p.off, p.limit, p.next, p.given, p.keyed = 0, def, 0, false, false
	if v, ok := c.q.get("limit"); ok {
		n, i := text.ScanDigits(v, 1<<20)
		if i != len(v) || n < 1 || n > int64(max) {
			return limitError(max, v)
		}
		p.limit = int(n)
	}
	v, ok := c.q.get("page")
	if !ok {
		return nil
	}
	p.given = true
	off, i := text.ScanDigits(v, 1<<30)
	if i == 0 || i != len(v)-17 || v[i] != '.' {
		return pageError(v)
	}
	var h uint64
	for j := i + 1; j < len(v); j++ {
		ch := v[j]
		d := text.Unhex(ch)
		if d < 0 || ch >= 'A' && ch <= 'F' {
			return pageError(v)
		}
		h = h<<4 | uint64(d)
	}
	if h != c.pageKey(seed) {
		return pageExpired()
	}
	p.off = int(off)
	return nil
}

// pageRange returns the items [off, end) of a list of n items the page may hold
// (limit of them): an offset past the list is a token of another list.
func (c *call) pageRange(n int) (int, int, *rental.Error) {
	p := &c.pg
	if p.off > n || p.off == n && p.off > 0 {
		return 0, 0, pageExpired()
	}
	return p.off, min(n, p.off+p.limit), nil
}

//go:noinline
func limitError(max int, v string) *rental.Error {
	return invalidGot("limit", "query parameter limit must be an integer from 1 to "+string(jsonw.AppendInt(nil, int64(max))), " (the most items of a page)", v)
}

// calendarLimits returns the default and the largest limit of a calendar page that
// may read rows vehicle rows (fullDetailRows or summaryRows), for a fleet of n vehicles.
func calendarLimits(rows, n int) (def, max int) {
	max = maxCalendarLimit
	if n > 0 {
		max = min(maxCalendarLimit, rows/n)
	}
	if max < 1 {
		max = 1
	}
	return min(defaultCalendarLimit, max), max
}

//go:noinline
func calendarLimitError(full bool, max, vehicles int, v string) *rental.Error {
	rows, how := summaryRows, "searches at most "
	if full {
		rows, how = fullDetailRows, "with detail=full holds at most "
	}
	return invalidGot("limit", "query parameter limit must be an integer from 1 to "+string(jsonw.AppendInt(nil, int64(max)))+" here: a calendar page "+how+string(jsonw.AppendInt(nil, int64(rows)))+" vehicle rows, and each entry has up to "+string(jsonw.AppendInt(nil, int64(vehicles)))+" vehicles; page through the rest", "", v)
}

//go:noinline
func pageError(v string) *rental.Error {
	return invalidGot("page", "query parameter page must be a page token, as the next page's URL in the Link header (or an MCP result's nextPage) gives it", "", v)
}

//go:noinline
func pageExpired() *rental.Error {
	return rental.InvalidCode(rental.CodePageExpired, "page", "query parameter page belongs to another search, or the inventory has changed since it was made; start again without page")
}

// pageKey hashes what a list is a function of: seed, the operation, its path
// parameter and every query parameter but limit and page, in any order (a sum of
// each pair's hash). Empty values count as absent, as get reads them.
func (c *call) pageKey(seed uint64) uint64 {
	p := &c.pg
	if p.keyed {
		return p.key
	}
	var sum uint64
	for i := 0; i < c.q.n; i++ {
		q := &c.q.p[i]
		if q.val == "" || q.key == "limit" || q.key == "page" {
			continue
		}
		sum += mix64(text.Hash64(text.Hash64(0x6a09e667f3bcc908, q.key), q.val), 1)
	}
	h := text.Hash64(text.Hash64(seed, c.op.Path), c.pathParam)
	p.key, p.keyed = text.Hash64(mix64(h, sum), ""), true
	return p.key
}

// pageDone records that the page written ends before item end of a list of n items,
// and when a next page follows, makes its token (c.nextPage: an MCP result carries it).
func (c *call) pageDone(end, n int, seed uint64) {
	p := &c.pg
	p.next = 0
	c.nextPage = c.nextPage[:0]
	if end >= n {
		return
	}
	p.next = end
	tok := bytebuf.PutByte(jsonw.AppendInt(c.nextPage, int64(end)), '.')
	c.nextPage = text.AppendHex64(tok, c.pageKey(seed))
}

// setLink sets the Link header of the next page's URL on a 200 that has one.
func (s *Server) setLink(c *call) {
	if w := c.w; c.pg.next > 0 && w.Status == 200 {
		w.SetHeader("link", text.BytesString(s.appendNextLink(c)))
	}
}

// pageTag continues an answer's ETag hash h with the page's place in its list, when
// the page is not the whole list (a whole list keeps the hash it had without paging).
func (c *call) pageTag(h uint64) uint64 {
	if p := &c.pg; p.paged() {
		h = text.Hash64(mix64(h, uint64(p.off)<<32|uint64(p.next)), "")
	}
	return h
}

// paged reports whether the page is not the whole list.
//
//go:inline
func (p *page) paged() bool { return p.off > 0 || p.next > 0 }

// appendNextLink writes the Link header's value into c.link: the next page's URL (the
// path below the base path with the request's query, page replaced), rel="next".
func (s *Server) appendNextLink(c *call) []byte {
	o := c.op
	b := bytebuf.PutByte(c.link[:0], '<')
	b = bytebuf.Put(b, s.cfg.BasePath)
	if o.pathParam == "" {
		b = bytebuf.Put(b, o.Path)
	} else {
		b = bytebuf.Put(bytebuf.Put(bytebuf.Put(b, o.prefix), c.pathParam), o.suffix)
	}
	b = bytebuf.PutByte(b, '?')
	for i := 0; i < c.q.n; i++ {
		q := &c.q.p[i]
		if q.val == "" || q.key == "page" {
			continue
		}
		b = appendQueryPart(b, q.key)
		b = bytebuf.PutByte(b, '=')
		b = appendQueryPart(b, q.val)
		b = bytebuf.PutByte(b, '&')
	}
	b = bytebuf.Put(b, "page=")
	b = bytebuf.PutBytes(b, c.nextPage)
	c.link = bytebuf.Put(b, `>; rel="next"`)
	return c.link
}

const upperHex = "0123456789ABCDEF"

// appendQueryPart appends s percent-encoded for a query: unreserved characters and
// the comma (the calendar's days, accessory_ids) as they are, every other byte %XX.
func appendQueryPart(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9',
			ch == '-', ch == '.', ch == '_', ch == '~', ch == ',':
			b = bytebuf.PutByte(b, ch)
		default:
			b = bytebuf.PutByte(bytebuf.PutByte(bytebuf.PutByte(b, '%'), upperHex[ch>>4]), upperHex[ch&15])
		}
	}
	return b
}
