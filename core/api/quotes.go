package api

import (
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// Signed quote ids (docs/quote-token.md): GET /quotes signs its quote's inputs, total,
// inventory version, issue and expiry times and a nonce into quoteId; GET
// /quotes/{quoteId} verifies one and re-prices it.

// initQuotes prepares the messages of the quote operations (NewServer).
func (s *Server) initQuotes() {
	s.errNoKeys = &rental.Error{Kind: rental.KindUnavailable, Message: "quotes are unavailable: this deployment has no quote signing key (the Worker secret QUOTE_SIGNING_KEYS is not set); the other operations work"}
	from := "; quote ids come from GET " + s.cfg.BasePath + "/quotes"
	for r := quotetoken.Malformed; r <= quotetoken.BadPayload; r++ {
		s.errQuoteID[r] = rental.Invalid("quoteId", "path parameter quoteId is not a valid quote id: "+r.String()+from)
	}
}

// quoteInventoryVersion is the inventory version a quote is priced under.
func (s *Server) quoteInventoryVersion() string { return s.InventoryVersion() }

// signQuote appends the signed id of quote q of search sr, issued at nowMs, and
// leaves its fields in s.tok.
func (s *Server) signQuote(b []byte, sr *rental.Search, q *rental.Quote, nowMs int64) []byte {
	t := &s.tok
	t.PickUpDepot, t.DropOffDepot = sr.PickUpDepot, sr.DropOffDepot
	t.PickUp, t.DropOff = int64(sr.PickUp), int64(sr.DropOff)
	t.VehicleID = q.Vehicle.ID
	t.InsuranceID = 0
	if q.Insurance != nil {
		t.InsuranceID = q.Insurance.ID
	}
	t.NLines = 0
	for i := range q.Accessories {
		if t.NLines < quotetoken.MaxLines {
			t.Lines[t.NLines] = quotetoken.Line{ID: q.Accessories[i].Accessory.ID, Quantity: int64(q.Accessories[i].Quantity)}
			t.NLines++
		}
	}
	t.TotalCents = q.TotalCents
	t.Inventory = quotetoken.InventoryTag(s.quoteInventoryVersion())
	t.IssuedAt = wire.FloorDiv(nowMs, 1000)
	t.ExpiresAt = t.IssuedAt + s.cfg.QuoteTTLSeconds
	s.random(t.Nonce[:])
	return s.cfg.QuoteKeys.Sign(b, t)
}
