package api

import (
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
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

// suggestFor fills s.sugg with the alternatives to the refused search sr (vehicle 0)
// or quote of vehicle, and returns e.
func (s *Server) suggestFor(e *rental.Error, sr *rental.Search, vehicle int64) *rental.Error {
	quote := vehicle != 0 || s.op.Path == "/quotes"
	q := rental.QuoteRequest{Search: *sr, VehicleID: vehicle}
	if quote {
		q.Accessories = s.picks
		q.DriverAge = s.driverAge
		q.InsuranceID, _ = s.q.optionalID("insurance_id")
	}
	s.alts = s.cat.Alternatives(q, quote, e, s.alts)
	for i := range s.alts {
		a := &s.alts[i]
		if len(s.sugg) == cap(s.sugg) {
			s.sugg = append(s.sugg, suggestion{})
		} else {
			s.sugg = s.sugg[:len(s.sugg)+1]
		}
		g := &s.sugg[len(s.sugg)-1]
		g.url = s.appendSearchURL(g.url[:0], s.op.Path, &a.Search, a.VehicleID)
		g.reason = a.Reason
	}
	return e
}

// appendSearchURL appends path?{the search}[&vehicle_id=]{the pass-through parameters}.
func (s *Server) appendSearchURL(b []byte, path string, sr *rental.Search, vehicle int64) []byte {
	b = s.appendSearchQuery(wire.PutByte(wire.Put(b, path), '?'), sr)
	if vehicle != 0 {
		b = wire.Put(b, "&vehicle_id=")
		b = wire.AppendInt(b, vehicle)
	}
	for _, k := range passThrough {
		for i := 0; i < s.q.n; i++ {
			if p := &s.q.p[i]; p.key == k && p.val != "" {
				b = wire.PutByte(b, '&')
				b = wire.Put(b, k)
				b = wire.PutByte(b, '=')
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
		b = append(b, '%', wire.HexDigits[c>>4], wire.HexDigits[c&0xf])
	}
	return b
}
