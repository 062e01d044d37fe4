package api

import (
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// Signed quote ids (docs/quote-token.md): GET /quotes signs its quote's inputs, total,
// inventory version, issue and expiry times and a nonce into quoteId; GET
// /quotes/{quoteId} verifies one and re-prices it.

// errNoKeys is the 503 of the quote operations without QUOTE_SIGNING_KEYS.
var errNoKeys = &rental.Error{Kind: rental.KindUnavailable, Message: "quotes are unavailable: this deployment has no quote signing key (the Worker secret QUOTE_SIGNING_KEYS is not set); the other operations work"}

// quoteIDError returns the 400 of a quote id Verify refused with r, made on its first
// use (not with the Server: every isolate pays that before its first answer).
func (s *Server) quoteIDError(r quotetoken.Result) *rental.Error {
	if s.errQuoteID[r] == nil {
		s.errQuoteID[r] = rental.Invalid("quoteId", "path parameter quoteId is not a valid quote id: "+r.String()+"; quote ids come from GET "+s.cfg.BasePath+"/quotes")
	}
	return s.errQuoteID[r]
}

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
	t.Inventory = s.invTag // the inventory version it is priced under
	t.IssuedAt = wire.FloorDiv(nowMs, 1000)
	t.ExpiresAt = t.IssuedAt + s.cfg.QuoteTTLSeconds
	s.random(t.Nonce[:])
	return s.cfg.QuoteKeys.Sign(b, t)
}

// The statuses of a checked quote and what each means, for the body's reason.
const (
	reasonValid   = "The quote holds: the vehicle is still available at the same total and the quote has not expired. quote is the same hire quoted again, with a new quoteId and expiry; either id can be used at checkout until it expires."
	reasonChanged = "The price has changed since this quote: originalTotalAmount was quoted, quote.totalAmount is the price now, and the vehicle is still available. Show the customer the new total; quote carries a new quoteId and checkoutUrl."
	reasonExpired = "This quote expired at originalExpiresAt. quote is the same hire priced now (compare its totalAmount with originalTotalAmount), with a new quoteId and expiry."
)

// getQuoteCheck answers GET /quotes/{quoteId}: verify the id, re-price its inputs on
// the current catalog and inventory, and say whether the quote still holds.
func (s *Server) getQuoteCheck(req *wire.Request, w *wire.Response, id string, nowMs int64) *rental.Error {
	if s.cfg.QuoteKeys == nil {
		return errNoKeys
	}
	if e := s.checkParams(); e != nil {
		return e
	}
	t := &s.checked
	if r := s.cfg.QuoteKeys.Verify(id, t); r != quotetoken.OK {
		return s.quoteIDError(r)
	}
	var qr rental.QuoteRequest
	qr.Search = rental.Search{PickUpDepot: t.PickUpDepot, DropOffDepot: t.DropOffDepot,
		PickUp: rental.Date(t.PickUp), DropOff: rental.Date(t.DropOff),
		Today: s.nzToday(nowMs), Refs: &s.refs}
	qr.VehicleID, qr.InsuranceID = t.VehicleID, t.InsuranceID
	s.picks = s.picks[:0]
	for i := 0; i < t.NLines; i++ {
		s.picks = append(s.picks, rental.Pick{ID: t.Lines[i].ID, Quantity: int(t.Lines[i].Quantity)})
	}
	qr.Accessories = s.picks
	e := s.cat.Quote(&qr, &s.quote)
	if e != nil && e.Kind == rental.KindInternal {
		return e
	}
	expired := wire.FloorDiv(nowMs, 1000) >= t.ExpiresAt
	w.Status = 200
	s.common(w, s.op.Cache)
	b := w.Body[:0]
	switch {
	case e != nil:
		b = wire.Put(b, `{"status":"unavailable","reason":`)
		b = wire.AppendJSONString(b, e.Message)
		b = wire.Put(b, `,"code":"`)
		b = wire.Put(b, e.DefaultCode())
		b = wire.PutByte(b, '"')
	case expired:
		b = wire.Put(b, `{"status":"expired","reason":`)
		b = wire.AppendJSONString(b, reasonExpired)
	case s.quote.TotalCents != t.TotalCents:
		b = wire.Put(b, `{"status":"changed","reason":`)
		b = wire.AppendJSONString(b, reasonChanged)
	default:
		b = wire.Put(b, `{"status":"valid","reason":`)
		b = wire.AppendJSONString(b, reasonValid)
	}
	b = wire.Put(b, `,"originalTotalAmount":`)
	b = wire.AppendMoney(b, t.TotalCents)
	b = wire.Put(b, `,"originalExpiresAt":"`)
	b = appendRFC3339(b, t.ExpiresAt)
	b = wire.Put(b, `","quote":`)
	if e != nil {
		b = wire.Put(b, "null")
		b = s.appendCheckSuggestions(b, qr, e)
		w.Body = wire.PutByte(b, '}')
		return nil
	}
	b = s.appendQuote(b, &qr.Search, &s.quote, nowMs)
	w.Body = wire.PutByte(b, '}')
	return nil
}

// appendCheckSuggestions appends "suggestions" (as in an error body) when the catalog
// knows ways forward for the quote that can no longer be had: each a GET /quotes URL
// with the quote's accessories and insurance.
func (s *Server) appendCheckSuggestions(b []byte, qr rental.QuoteRequest, e *rental.Error) []byte {
	s.alts = s.cat.Alternatives(qr, true, e, s.alts)
	if len(s.alts) == 0 {
		return b
	}
	b = wire.Put(b, `,"suggestions":[`)
	for i := range s.alts {
		a := &s.alts[i]
		if i > 0 {
			b = wire.PutByte(b, ',')
		}
		b = wire.Put(b, `{"url":"`)
		b = s.appendSearchURL(b, "/quotes", &a.Search, a.VehicleID) // digits and dates only
		if len(qr.Accessories) > 0 {
			b = wire.Put(b, "&accessory_ids=")
			for j, p := range qr.Accessories {
				for k := 0; k < p.Quantity; k++ {
					if j > 0 || k > 0 {
						b = wire.PutByte(b, ',')
					}
					b = wire.AppendInt(b, p.ID)
				}
			}
		}
		if qr.InsuranceID != 0 {
			b = wire.Put(b, "&insurance_id=")
			b = wire.AppendInt(b, qr.InsuranceID)
		}
		b = wire.AppendMember(b, `","reason":`, a.Reason)
		b = wire.PutByte(b, '}')
	}
	return wire.PutByte(b, ']')
}
