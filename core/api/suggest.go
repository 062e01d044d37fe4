package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// Suggestions: the ways forward an error body lists, each a ready-to-call URL relative
// to the base path and a one-line reason. They come from rental.Alternatives, which
// checks each against the catalog before offering it (TestSuggestionsAreTrue follows
// every one over HTTP and expects a 200).

type suggestion struct {
	url    []byte
	reason string
}

// passThrough are the parameters a suggestion keeps as the client gave them: the
// extras of a quote and the filters and order of a search.
var passThrough = [...]string{"accessory_ids", "insurance_id", "min_berths", "transmission", "class", "max_total", "sort", "driver_age", "include"}

// suggestFor fills c.sugg with the alternatives to the refused search sr (vehicle 0)
// or quote of vehicle, and returns e.
func (s *Server) suggestFor(c *call, e *rental.Error, sr *rental.Search, vehicle int64) *rental.Error {
	quote := vehicle != 0 || c.op.Path == "/quotes"
	q := rental.QuoteRequest{Search: *sr, VehicleID: vehicle}
	if quote {
		q.Accessories = c.picks
		q.DriverAge = c.driverAge
		q.InsuranceID, _ = c.q.optionalID("insurance_id")
	}
	c.alts = s.cat.Alternatives(q, quote, e, c.alts)
	for i := range c.alts {
		a := &c.alts[i]
		if len(c.sugg) == cap(c.sugg) {
			c.sugg = append(c.sugg, suggestion{})
		} else {
			c.sugg = c.sugg[:len(c.sugg)+1]
		}
		g := &c.sugg[len(c.sugg)-1]
		g.url = c.appendSearchURL(g.url[:0], c.op.Path, &a.Search, a.VehicleID)
		g.reason = a.Reason
	}
	return e
}

// suggestParams adds one suggestion: c's operation with the date parameter k1
// set to v1 (and k2 to v2 when k2 is not ""), every other parameter as given.
func (c *call) suggestParams(k1 string, v1 rental.Date, k2 string, v2 rental.Date, reason string) {
	if len(c.sugg) == cap(c.sugg) {
		c.sugg = append(c.sugg, suggestion{})
	} else {
		c.sugg = c.sugg[:len(c.sugg)+1]
	}
	g := &c.sugg[len(c.sugg)-1]
	b := bytebuf.Put(g.url[:0], c.op.Path)
	sep := byte('?')
	for i := 0; i < c.q.n; i++ {
		p := &c.q.p[i]
		if p.val == "" {
			continue
		}
		b = append(b, sep)
		sep = '&'
		b = appendQueryEscape(b, p.key)
		b = bytebuf.PutByte(b, '=')
		switch p.key {
		case k1:
			b = v1.AppendTo(b)
		case k2:
			b = v2.AppendTo(b)
		default:
			b = appendQueryEscape(b, p.val)
		}
	}
	g.url, g.reason = b, reason
}

// appendSearchURL appends path?{the search}[&vehicle_id=]{the pass-through parameters}.
func (c *call) appendSearchURL(b []byte, path string, sr *rental.Search, vehicle int64) []byte {
	b = c.appendSearchQuery(bytebuf.PutByte(bytebuf.Put(b, path), '?'), sr)
	if vehicle != 0 {
		b = bytebuf.Put(b, "&vehicle_id=")
		b = jsonw.AppendInt(b, vehicle)
	}
	for _, k := range passThrough {
		for i := 0; i < c.q.n; i++ {
			if p := &c.q.p[i]; p.key == k && p.val != "" {
				b = bytebuf.PutByte(b, '&')
				b = bytebuf.Put(b, k)
				b = bytebuf.PutByte(b, '=')
				b = appendQueryEscape(b, p.val)
			}
		}
	}
	return b
}

// appendQueryEscape appends v escaped for a query value (RFC 3986 unreserved bytes and
// the comma of accessory_ids stay as they are).
func appendQueryEscape(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == ',' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', text.HexDigits[c>>4], text.HexDigits[c&0xf])
	}
	return b
}
