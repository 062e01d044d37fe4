package api

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// Quotes (docs/quote-token.md): GET /quotes prices a hire and signs its inputs, total,
// inventory version, issue and expiry times and a nonce into quoteId; GET
// /quotes/{quoteId} verifies one and re-prices it.

// quoteNote is a quote's note: what its amounts mean.
const quoteNote = "All amounts are in New Zealand dollars (NZD), converted exactly from the reservation system's integer cents; totalAmount is the sum of the four fees in priceBreakdown; gstIncluded is the 15% GST it contains (totalAmount x 3/23, rounded half up to the cent). A quote is not a booking: complete it at checkoutUrl before expiresAt."

// errNoKeys is the 503 of the quote operations without QUOTE_SIGNING_KEYS.
var errNoKeys = &rental.Error{Kind: rental.KindUnavailable, Message: "quotes are unavailable: this deployment has no quote signing key (the Worker secret QUOTE_SIGNING_KEYS is not set); the other operations work"}

func (s *Server) getQuote(c *call) *rental.Error {
	if s.cfg.QuoteKeys == nil {
		return errNoKeys
	}
	var qr rental.QuoteRequest
	var e *rental.Error
	if e = s.search(c, &qr.Search); e != nil {
		return e
	}
	if qr.VehicleID, e = s.requiredID(c, "vehicle_id"); e != nil {
		return e
	}
	ids, _ := c.q.get("accessory_ids")
	if c.picks, e = parsePicks(ids, c.picks); e != nil {
		return e
	}
	qr.Accessories = c.picks
	if qr.InsuranceID, e = c.q.optionalID("insurance_id"); e != nil {
		return e
	}
	if qr.DriverAge, e = c.q.driverAge(); e != nil {
		return e
	}
	c.driverAge = qr.DriverAge
	if e = c.checkParams(); e != nil {
		return e
	}
	if e = s.cat.Quote(&qr, &c.quote); e != nil {
		return s.suggestFor(c, e, &qr.Search, qr.VehicleID)
	}
	w := c.w
	w.Status = 200
	s.common(w, c.op.Cache)
	w.Body = s.appendQuote(c, w.Body[:0], &qr.Search, &c.quote)
	return nil
}

// quoteFixed bounds the literal text of a quote (member names, punctuation, "null",
// the checkout link's parameter names) around its variable parts, which appendQuote
// sizes from their lengths and the Max* bounds; TestQuoteAtRoom renders the
// largest values on the tightest room.
const quoteFixed = 512

// appendQuote writes quote q of search sr with a new signed quoteId, issued now: the
// id first, then room for the rest, which quoteAt writes with the cursor writers.
func (s *Server) appendQuote(c *call, b []byte, sr *rental.Search, q *rental.Quote) []byte {
	b = bytebuf.Put(b, `{"quoteId":"`)
	idStart := len(b)
	b = s.signQuote(c, b, sr, q)
	idEnd := len(b)
	b = bytebuf.Room(b, s.quoteRoom(idEnd-idStart, q))
	buf := b[:cap(b)]
	return buf[:s.quoteAt(c, buf, len(b), b[idStart:idEnd], sr, q)]
}

// quoteRoom bounds what quoteAt writes for quote q with an id of idLen bytes.
func (s *Server) quoteRoom(idLen int, q *rental.Quote) int {
	need := quoteFixed + 2*idLen + len(quoteNoteJSON) + 8*jsonw.MaxMoney + 6*jsonw.MaxInt + 2*rental.DateLen +
		rfc3339Len + len(s.cfg.WebURL) + hireTermsMax
	for i := range q.Accessories {
		a := &q.Accessories[i]
		need += 64 + 2*jsonw.MaxInt + jsonw.MaxMoney + jsonw.MaxJSONString(len(a.Accessory.Name)) + (jsonw.MaxInt+1)*max(a.Quantity, 0)
	}
	if q.Insurance != nil {
		need += 64 + 2*jsonw.MaxInt + jsonw.MaxMoney + jsonw.MaxJSONString(len(q.Insurance.Name))
	}
	return need
}

// quoteAt writes the quote after its id (id) at buf[n:].
func (s *Server) quoteAt(c *call, buf []byte, n int, id []byte, sr *rental.Search, q *rental.Quote) int {
	n = bytebuf.PutAt(buf, n, `","expiresAt":"`)
	n = s.expiresAt(buf, n, c.tok.ExpiresAt)
	n = bytebuf.PutAt(buf, n, `","currency":"NZD","priceBreakdown":{"rentalFee":`)
	n = jsonw.MoneyAt(buf, n, q.RentalCents)
	n = bytebuf.PutAt(buf, n, `,"routeFee":`)
	n = jsonw.MoneyAt(buf, n, q.RouteCents)
	n = bytebuf.PutAt(buf, n, `,"accessoriesFee":`)
	n = jsonw.MoneyAt(buf, n, q.AccessoriesCents)
	n = bytebuf.PutAt(buf, n, `,"insuranceFee":`)
	n = jsonw.MoneyAt(buf, n, q.InsuranceCents)
	n = bytebuf.PutAt(buf, n, `},"accessories":[`)
	for i := range q.Accessories {
		a := &q.Accessories[i]
		if i > 0 {
			n = bytebuf.ByteAt(buf, n, ',')
		}
		n = itemFromAt(buf, n, itemHead(s.accHeads, s.cat.AccessoryIndex(a.Accessory.ID)), a.Accessory.ID, a.Accessory.Name, a.CostCents)
		n = bytebuf.PutAt(buf, n, `,"quantity":`)
		n = jsonw.IntAt(buf, n, int64(a.Quantity))
		n = bytebuf.ByteAt(buf, n, '}')
	}
	n = bytebuf.PutAt(buf, n, `],"insurance":`)
	if q.Insurance == nil {
		n = bytebuf.PutAt(buf, n, "null")
	} else {
		n = bytebuf.ByteAt(buf, itemFromAt(buf, n, itemHead(s.insHeads, s.cat.InsuranceIndex(q.Insurance.ID)), q.Insurance.ID, q.Insurance.Name, q.InsuranceCents), '}')
	}
	n = bytebuf.PutAt(buf, n, `,"totalAmount":`)
	n = jsonw.MoneyAt(buf, n, q.TotalCents)
	n = bytebuf.PutAt(buf, n, `,"gstIncluded":`)
	n = jsonw.MoneyAt(buf, n, rental.GSTIncluded(q.TotalCents))
	n = bytebuf.PutAt(buf, n, `,"note":`)
	n = bytebuf.BytesAt(buf, n, quoteNoteJSON)
	n = bytebuf.PutAt(buf, n, `,"vehicleId":`)
	n = jsonw.IntAt(buf, n, q.Vehicle.ID)
	n = bytebuf.PutAt(buf, n, `,"days":`)
	n = jsonw.IntAt(buf, n, int64(q.Days))
	n = s.termsAt(buf, n, &q.Terms)
	n = bytebuf.PutAt(buf, n, `,"checkoutUrl":"`)
	n = bytebuf.PutAt(buf, n, s.cfg.WebURL)
	n = c.searchQueryAt(buf, bytebuf.PutAt(buf, n, "/book?"), sr)
	n = bytebuf.PutAt(buf, n, "&vehicle_id=")
	n = jsonw.IntAt(buf, n, q.Vehicle.ID)
	if q.Insurance != nil {
		n = bytebuf.PutAt(buf, n, "&insurance_id=")
		n = jsonw.IntAt(buf, n, q.Insurance.ID)
	}
	if len(q.Accessories) > 0 {
		n = bytebuf.PutAt(buf, n, "&accessory_ids=")
		k := 0
		for i := range q.Accessories {
			a := &q.Accessories[i]
			for j := 0; j < a.Quantity; j++ {
				if k > 0 {
					n = bytebuf.ByteAt(buf, n, ',')
				}
				n = jsonw.IntAt(buf, n, a.Accessory.ID)
				k++
			}
		}
	}
	n = bytebuf.PutAt(buf, n, "&quote_id=")
	n = bytebuf.BytesAt(buf, n, id) // base64url: nothing to escape
	return bytebuf.PutAt(buf, n, `"}`)
}

// itemAt writes a quoted accessory or insurance plan up to its cost: {"id":N,"name":"...","cost":X
// A quote writes the catalog's items from their pre-rendered heads (itemFromAt); itemAt
// only if one were missing.
func itemAt(buf []byte, n int, id int64, name string, costCents int64) int {
	n = bytebuf.PutAt(buf, n, `{"id":`)
	n = jsonw.IntAt(buf, n, id)
	n = bytebuf.PutAt(buf, n, `,"name":`)
	n = jsonw.JSONStringAt(buf, n, name)
	n = bytebuf.PutAt(buf, n, `,"cost":`)
	return jsonw.MoneyAt(buf, n, costCents)
}

// buildItemHeads renders {"id":N,"name":"...","cost": for each id and its name (the
// catalog's accessories or insurance plans, in id order): a quote copies its items'
// heads instead of writing the id and escaping the name each time.
func buildItemHeads(ids []int64, names []string) [][]byte {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		b := jsonw.AppendInt(bytebuf.Put([]byte(nil), `{"id":`), id)
		b = jsonw.AppendJSONString(bytebuf.Put(b, `,"name":`), names[i])
		out[i] = bytebuf.Put(b, `,"cost":`)
	}
	return out
}

// itemFromAt is itemAt from the item's pre-rendered head, or written out when it has
// none (head nil).
func itemFromAt(buf []byte, n int, head []byte, id int64, name string, costCents int64) int {
	if head != nil {
		return jsonw.MoneyAt(buf, bytebuf.BytesAt(buf, n, head), costCents)
	}
	return itemAt(buf, n, id, name, costCents)
}

// itemHead returns heads[i], or nil when i is outside them (an item the parts do not
// have: the catalog's, so never, but a bug must not trap the instance).
func itemHead(heads [][]byte, i int) []byte {
	if i >= 0 && i < len(heads) {
		return heads[i]
	}
	return nil
}

// signQuote appends the signed id of quote q of search sr, issued at the request's
// clock, and
// leaves its fields in c.tok.
func (s *Server) signQuote(c *call, b []byte, sr *rental.Search, q *rental.Quote) []byte {
	t := &c.tok
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
	t.IssuedAt = text.FloorDiv(c.now, 1000)
	t.ExpiresAt = t.IssuedAt + s.cfg.QuoteTTLSeconds
	s.random(t.Nonce[:])
	return s.cfg.QuoteKeys.Sign(b, t)
}

// expiresAt is rfc3339At for a quote's expiry, rendered once a second (s.clock) and
// written as two bytebuf.Shorts: 32 bytes stored at buf[n:], 20 of them the expiry (a
// quote's room has far more than that after it).
func (s *Server) expiresAt(buf []byte, n int, unix int64) int {
	c := &s.clock
	if unix != c.expSec || !c.expOK {
		var t [rfc3339Len]byte
		rfc3339At(t[:], 0, unix)
		c.exp[0], _ = bytebuf.MakeShort(t[:16])
		c.exp[1], _ = bytebuf.MakeShort(t[16:])
		c.expSec, c.expOK = unix, true
	}
	return bytebuf.ShortAt(buf, bytebuf.ShortAt(buf, n, &c.exp[0]), &c.exp[1])
}

// rfc3339Len is how many bytes rfc3339At writes.
const rfc3339Len = 20

// rfc3339At writes unix seconds as "YYYY-MM-DDTHH:MM:SSZ" at buf[n:] (appendRFC3339).
func rfc3339At(buf []byte, n int, unix int64) int {
	day := text.FloorDiv(unix, 86400)
	sec := unix - day*86400
	n = rental.Date(day).At(buf, n)
	h, m, x := sec/3600, sec/60%60, sec%60
	out := buf[n : n+10]
	out[0], out[1], out[2], out[3] = 'T', byte('0'+h/10), byte('0'+h%10), ':'
	out[4], out[5], out[6] = byte('0'+m/10), byte('0'+m%10), ':'
	out[7], out[8], out[9] = byte('0'+x/10), byte('0'+x%10), 'Z'
	return n + 10
}

// appendRFC3339 appends unix seconds as "YYYY-MM-DDTHH:MM:SSZ".
func appendRFC3339(b []byte, unix int64) []byte {
	day := text.FloorDiv(unix, 86400)
	sec := unix - day*86400
	b = rental.Date(day).AppendTo(b)
	b = bytebuf.PutByte(b, 'T')
	b = append2(b, sec/3600)
	b = bytebuf.PutByte(b, ':')
	b = append2(b, sec/60%60)
	b = bytebuf.PutByte(b, ':')
	b = append2(b, sec%60)
	return bytebuf.PutByte(b, 'Z')
}

func append2(b []byte, n int64) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// quoteIDError returns the 400 of a quote id Verify refused with r, made on its first
// use (not with the Server: every isolate pays that before its first answer).
func (s *Server) quoteIDError(r quotetoken.Result) *rental.Error {
	if s.errQuoteID[r] == nil {
		s.errQuoteID[r] = rental.Invalid("quoteId", "path parameter quoteId is not a valid quote id: "+r.String()+"; quote ids come from GET "+s.cfg.BasePath+"/quotes")
	}
	return s.errQuoteID[r]
}

// The statuses of a checked quote and what each means, for the body's reason.
const (
	reasonValid   = "The quote holds: the vehicle is still available at the same total and the quote has not expired. quote is the same hire quoted again, with a new quoteId and expiry; either id can be used at checkout until it expires."
	reasonChanged = "The price has changed since this quote: originalTotalAmount was quoted, quote.totalAmount is the price now, and the vehicle is still available. Show the customer the new total; quote carries a new quoteId and checkoutUrl."
	reasonExpired = "This quote expired at originalExpiresAt. quote is the same hire priced now (compare its totalAmount with originalTotalAmount), with a new quoteId and expiry."
)

// getQuoteCheck answers GET /quotes/{quoteId}: verify the id, re-price its inputs on
// the current catalog and inventory, and say whether the quote still holds.
func (s *Server) getQuoteCheck(c *call) *rental.Error {
	if s.cfg.QuoteKeys == nil {
		return errNoKeys
	}
	if e := c.checkParams(); e != nil {
		return e
	}
	t := &c.checked
	if r := s.cfg.QuoteKeys.Verify(c.pathParam, t); r != quotetoken.OK {
		return s.quoteIDError(r)
	}
	var qr rental.QuoteRequest
	qr.Search = rental.Search{PickUpDepot: t.PickUpDepot, DropOffDepot: t.DropOffDepot,
		PickUp: rental.Date(t.PickUp), DropOff: rental.Date(t.DropOff),
		Today: s.nzToday(c.now), Refs: &s.refs}
	qr.VehicleID, qr.InsuranceID = t.VehicleID, t.InsuranceID
	c.picks = c.picks[:0]
	for i := 0; i < t.NLines; i++ {
		c.picks = append(c.picks, rental.Pick{ID: t.Lines[i].ID, Quantity: int(t.Lines[i].Quantity)})
	}
	qr.Accessories = c.picks
	e := s.cat.Quote(&qr, &c.quote)
	if e != nil && e.Kind == rental.KindInternal {
		return e
	}
	expired := text.FloorDiv(c.now, 1000) >= t.ExpiresAt
	w := c.w
	w.Status = 200
	s.common(w, c.op.Cache)
	b := w.Body[:0]
	switch {
	case e != nil:
		b = bytebuf.Put(b, `{"status":"unavailable","reason":`)
		b = jsonw.AppendJSONString(b, e.Message)
		b = bytebuf.Put(b, `,"code":"`)
		b = bytebuf.Put(b, e.DefaultCode())
		b = bytebuf.PutByte(b, '"')
	case expired:
		b = bytebuf.Put(b, `{"status":"expired","reason":`)
		b = jsonw.AppendJSONString(b, reasonExpired)
	case c.quote.TotalCents != t.TotalCents:
		b = bytebuf.Put(b, `{"status":"changed","reason":`)
		b = jsonw.AppendJSONString(b, reasonChanged)
	default:
		b = bytebuf.Put(b, `{"status":"valid","reason":`)
		b = jsonw.AppendJSONString(b, reasonValid)
	}
	b = bytebuf.Put(b, `,"originalTotalAmount":`)
	b = jsonw.AppendMoney(b, t.TotalCents)
	b = bytebuf.Put(b, `,"originalExpiresAt":"`)
	b = appendRFC3339(b, t.ExpiresAt)
	b = bytebuf.Put(b, `","quote":`)
	if e != nil {
		b = bytebuf.Put(b, "null")
		b = s.appendCheckSuggestions(c, b, qr, e)
		w.Body = bytebuf.PutByte(b, '}')
		return nil
	}
	b = s.appendQuote(c, b, &qr.Search, &c.quote)
	w.Body = bytebuf.PutByte(b, '}')
	return nil
}

// appendCheckSuggestions appends "suggestions" (as in an error body) when the catalog
// knows ways forward for the quote that can no longer be had: each a GET /quotes URL
// with the quote's accessories and insurance.
func (s *Server) appendCheckSuggestions(c *call, b []byte, qr rental.QuoteRequest, e *rental.Error) []byte {
	c.alts = s.cat.Alternatives(qr, true, e, c.alts)
	if len(c.alts) == 0 {
		return b
	}
	b = bytebuf.Put(b, `,"suggestions":[`)
	for i := range c.alts {
		a := &c.alts[i]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = bytebuf.Put(b, `{"url":"`)
		b = c.appendSearchURL(b, "/quotes", &a.Search, a.VehicleID) // digits and dates only
		if len(qr.Accessories) > 0 {
			b = bytebuf.Put(b, "&accessory_ids=")
			for j, p := range qr.Accessories {
				for k := 0; k < p.Quantity; k++ {
					if j > 0 || k > 0 {
						b = bytebuf.PutByte(b, ',')
					}
					b = jsonw.AppendInt(b, p.ID)
				}
			}
		}
		if qr.InsuranceID != 0 {
			b = bytebuf.Put(b, "&insurance_id=")
			b = jsonw.AppendInt(b, qr.InsuranceID)
		}
		b = jsonw.AppendMember(b, `","reason":`, a.Reason)
		b = bytebuf.PutByte(b, '}')
	}
	return bytebuf.PutByte(b, ']')
}
