package api

import (
	"cmp"
	"slices"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// The handlers of the operations (ops.go), one function each, over the parsed query
// in s.q. Each returns nil after writing a 2xx/304 into w, or the error to answer with.

func (s *Server) getIndex(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	if e := s.checkParams(); e != nil {
		return e
	}
	idx := s.index()
	s.static(req, w, idx.body, idx.etag)
	return nil
}

func (s *Server) getDepots(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	if e := s.checkParams(); e != nil {
		return e
	}
	s.static(req, w, s.depots.body, s.depots.etag)
	return nil
}

// appendDepots writes the Depot array of the spec.
func appendDepots(b []byte, depots []rental.Depot) []byte {
	b = wire.PutByte(b, '[')
	for i := range depots {
		d := &depots[i]
		if i > 0 {
			b = wire.PutByte(b, ',')
		}
		b = wire.Put(b, `{"id":`)
		b = wire.AppendInt(b, d.ID)
		b = wire.AppendMember(b, `,"name":`, d.Name)
		b = wire.Put(b, `,"pickup_times":`)
		b = appendSlots(b, d.PickupTimes)
		b = wire.Put(b, `,"drop_off_times":`)
		b = appendSlots(b, d.DropOffTimes)
		b = wire.AppendMember(b, `,"opening_hours_description":`, d.OpeningHours)
		b = wire.PutByte(b, '}')
	}
	return wire.PutByte(b, ']')
}

func appendSlots(b []byte, slots []rental.TimeSlot) []byte {
	b = wire.PutByte(b, '[')
	for i, t := range slots {
		if i > 0 {
			b = wire.PutByte(b, ',')
		}
		b = wire.AppendMember(b, `{"time":`, t.Time)
		b = wire.AppendMember(b, `,"day":`, t.Day)
		b = wire.PutByte(b, '}')
	}
	return wire.PutByte(b, ']')
}

// search reads the four search parameters shared by availability and quotes.
// search reads the search's four parameters into sr (a pointer, not a result: TinyGo
// returns a struct through a copy in linear memory; issue 16, session 32).
func (s *Server) search(nowMs int64, sr *rental.Search) *rental.Error {
	var e *rental.Error
	if sr.PickUpDepot, e = s.requiredID("pick_up_depot_id"); e != nil {
		return e
	}
	if sr.DropOffDepot, e = s.requiredID("drop_off_depot_id"); e != nil {
		return e
	}
	var text string
	if sr.PickUp, text, e = s.q.requiredDateText("pick_up_date"); e != nil {
		return e
	}
	s.keepDateText(0, sr.PickUp, text)
	if sr.DropOff, text, e = s.q.requiredDateText("drop_off_date"); e != nil {
		return e
	}
	s.keepDateText(1, sr.DropOff, text)
	sr.Today = s.nzToday(nowMs)
	sr.Refs = &s.refs
	return nil
}

func (s *Server) getAvailability(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	var sr rental.Search
	e := s.search(nowMs, &sr)
	if e != nil {
		return e
	}
	if e = s.q.filter(&s.filter, s.cat.Classes(), s.classList); e != nil {
		return e
	}
	order, e := s.q.sortParam()
	if e != nil {
		return e
	}
	if e = s.termsParams(); e != nil {
		return e
	}
	if e = s.checkParams(); e != nil {
		return e
	}
	s.offers, e = s.cat.AvailabilityFiltered(sr, &s.filter, s.offers[:0])
	if e != nil {
		return s.suggestFor(e, &sr, 0)
	}
	sortOffers(s.offers, order)
	// The booking link is the same for every offer up to the vehicle id: built once,
	// with the member's name (fewer, longer copies per offer: issue 16).
	s.bookingLink = s.appendHandoffSearch(wire.Put(s.bookingLink[:0], `,"bookingUrl":"`), &sr)
	w.Body = s.writeOffers(w.Body)
	s.answerSearch(req, w, s.offersHash())
	return nil
}

// offerNumbers bounds what writeOffers adds to an offer's pre-rendered parts: the
// comma, the five numbers and the fee members' names.
const offerNumbers = 1 + 4*wire.MaxMoney + wire.MaxInt + len(`,"rentalFee":,"routeFee":,"totalAmount":`)

// writeOffers appends the Offer array of s.offers to b: room for all of it first, then
// offersAt writes it.
func (s *Server) writeOffers(b []byte) []byte {
	// at most the longest vehicle's parts an offer: one product, not a pass over the
	// offers (the buffer is kept between requests, so the slack costs nothing after)
	if len(s.offers) > 0 { // the days and the route fee: the same in every offer of a search
		o := &s.offers[0]
		s.sharedDays, s.sharedRoute = o.Days, o.RouteCents
		s.daysRental = wire.Put(wire.AppendInt(s.daysRental[:0], int64(o.Days)), `,"rentalFee":`)
		s.daysRentalW, _ = wire.MakeShort(s.daysRental)
		s.routeTotal = wire.Put(wire.AppendMoney(wire.Put(s.routeTotal[:0], `,"routeFee":`), o.RouteCents), `,"totalAmount":`)
	}
	b = wire.Room(b, 2+len(s.offers)*(s.partsMax+len(s.bookingLink)+offerNumbers+s.optionsRoom())+16) // +16: wire.ShortAt's second word
	buf := b[:cap(b)]
	return buf[:s.offersAt(buf, len(b))]
}

// offersAt writes the Offer array of s.offers at buf[n:] with the cursor writers
// (core/wire/cursor.go): it allocates nothing, so TinyGo gives it no collector frame.
// What every offer reads from s is taken into locals first: a store into buf may alias
// any field as far as the compiler knows, so each was loaded again from memory for
// every offer, each load bounds-checked by V8 (issue 16, session 29).
func (s *Server) offersAt(buf []byte, n int) int {
	offers, parts := s.offers, s.vehicleParts
	sharedDays, sharedRoute := s.sharedDays, s.sharedRoute
	daysRental, routeTotal, bookingLink := s.daysRental, s.routeTotal, s.bookingLink
	daysRentalW := s.daysRentalW
	opts, withOptions := s.optionParts, s.withOptions
	n = wire.ByteAt(buf, n, '[')
	for i := range offers {
		o := &offers[i]
		if i > 0 {
			n = wire.ByteAt(buf, n, ',')
		}
		vj := partsOf(parts, o)
		n = wire.CopyAt(buf, n, vj.head) // {"vehicleId":N,"name":"...","rentalDailyRate":
		n = wire.MoneyAt(buf, n, o.DailyRateCents)
		n = wire.CopyAt(buf, n, vj.mid) // ,"imageUrl":"...","class":...,"berths":N,"transmission":"...","days":
		if o.Days == sharedDays && o.RouteCents == sharedRoute {
			// the search's days and route fee, written once (writeOffers): two copies
			// instead of formatting both and writing three member names (issue 16,
			// session 28: ~100 instructions an offer)
			n = wire.ShortOrBytesAt(buf, n, &daysRentalW, daysRental) // 16 bytes or fewer: two word stores
			start := n
			n = wire.MoneyAt(buf, n, o.RentalCents)
			end := n
			n = wire.CopyAt(buf, n, routeTotal)
			if o.TotalCents == o.RentalCents { // no route fee: the rental fee's digits again
				n = wire.BytesAt(buf, n, buf[start:end])
			} else {
				n = wire.MoneyAt(buf, n, o.TotalCents)
			}
		} else {
			n = wire.IntAt(buf, n, int64(o.Days))
			n = feesAt(buf, n, o)
		}
		n = wire.CopyAt(buf, n, bookingLink)                  // ,"bookingUrl":"https://.../book?...&vehicle_id=
		n = wire.ShortOrBytesAt(buf, n, &vj.idEndW, vj.idEnd) // N"}
		if withOptions {
			n = optionsAt(buf, n-1, opts, o) // in place of the offer's closing brace
		}
	}
	return wire.ByteAt(buf, n, ']')
}

// feesAt is appendFees with the cursor writers, for writeOffers.
func feesAt(buf []byte, n int, o *rental.Offer) int {
	n = wire.PutAt(buf, n, `,"rentalFee":`)
	start := n
	n = wire.MoneyAt(buf, n, o.RentalCents)
	end := n
	if o.RouteCents == 0 && o.TotalCents == o.RentalCents {
		n = wire.PutAt(buf, n, `,"routeFee":0,"totalAmount":`)
		return wire.BytesAt(buf, n, buf[start:end])
	}
	n = wire.PutAt(buf, n, `,"routeFee":`)
	n = wire.MoneyAt(buf, n, o.RouteCents)
	n = wire.PutAt(buf, n, `,"totalAmount":`)
	return wire.MoneyAt(buf, n, o.TotalCents)
}

// answerSearch answers a search whose body is in w.Body: 200 with the ETag of hash h,
// or 304 when the client has it.
func (s *Server) answerSearch(req *wire.Request, w *wire.Response, h uint64) {
	s.searchETag = wire.PutByte(s.searchETag[:0], '"')
	s.searchETag = wire.AppendHex64(s.searchETag, h)
	s.searchETag = wire.PutByte(s.searchETag, '"')
	etag := wire.BytesString(s.searchETag)
	if notModified(req, etag) {
		w.Body = w.Body[:0]
		s.notModifiedAnswer(w, s.op.Cache, etag)
		return
	}
	w.Status = 200
	s.common(w, s.op.Cache)
	w.SetHeader("etag", etag)
}

// offersHash is what an availability answer's strong ETag carries: a hash of what
// offersAt makes the body from, not of the body's bytes (4.6 KB a word at a time was
// 5.9 K instructions of a search under node with workerd's bounds checks). Its inputs:
// the catalog's version (the vehicles' pre-rendered parts are the catalog's alone) and
// the inventory version (the ETag follows the inventory even where the offers do not
// change: s.offersSeed), the booking link (the web URL and the search), and per offer
// its vehicle and its five numbers. Equal inputs write equal bytes;
// TestAvailabilityETagFollowsBody holds the converse over many searches.
func (s *Server) offersHash() uint64 {
	h := wire.Hash64(s.offersSeed, wire.BytesString(s.bookingLink))
	h = wire.Mix64(h, uint64(len(s.offers)))
	if s.withOptions {
		h = wire.Mix64(h, 1)
	}
	for i := range s.offers {
		o := &s.offers[i]
		h = wire.Mix64(h, uint64(uint32(o.Index))|uint64(uint32(o.Days))<<32) // both below 2^31: an index into the vehicles, a hire's days
		h = wire.Mix64(h, uint64(o.DailyRateCents))
		h = wire.Mix64(h, uint64(o.RentalCents))
		h = wire.Mix64(h, uint64(o.RouteCents))
		h = wire.Mix64(h, uint64(o.TotalCents))
	}
	return wire.Hash64(h, "")
}

// appendFees appends an offer's rentalFee, routeFee and totalAmount. Without a route
// fee the total is the rental fee: its digits are copied, not formatted again (money
// formatting was a third of the largest calendar's time).
func appendFees(b []byte, o *rental.Offer) []byte {
	b = wire.Put(b, `,"rentalFee":`)
	start := len(b)
	b = wire.AppendMoney(b, o.RentalCents)
	end := len(b)
	if o.RouteCents == 0 && o.TotalCents == o.RentalCents {
		b = wire.Put(b, `,"routeFee":0,"totalAmount":`)
		return wire.PutBytes(b, b[start:end])
	}
	b = wire.Put(b, `,"routeFee":`)
	b = wire.AppendMoney(b, o.RouteCents)
	b = wire.Put(b, `,"totalAmount":`)
	return wire.AppendMoney(b, o.TotalCents)
}

// sortOffers orders offers (by vehicle id on entry) stably; sortNone keeps them.
func sortOffers(offers []rental.Offer, order sortOrder) {
	switch order {
	case sortPrice:
		byPriceInsertion(offers)
	case sortPriceDesc:
		slices.SortStableFunc(offers, byPriceDesc)
	case sortBerths:
		slices.SortStableFunc(offers, byBerths)
	}
}

// byPriceInsertion sorts offers by TotalCents, stably. Hand-written for the calendar's
// hot loop (252 sorts of up to a fleet's vehicles per call): slices.SortStableFunc
// calls its comparison through a function value and was 12% of the largest calendar's
// time natively; this loop compares the field in place.
func byPriceInsertion(offers []rental.Offer) {
	for i := 1; i < len(offers); i++ {
		if offers[i].TotalCents >= offers[i-1].TotalCents {
			continue
		}
		o := offers[i]
		j := i
		for ; j > 0 && offers[j-1].TotalCents > o.TotalCents; j-- {
			offers[j] = offers[j-1]
		}
		offers[j] = o
	}
}

func byPriceDesc(a, b rental.Offer) int { return cmp.Compare(b.TotalCents, a.TotalCents) }
func byBerths(a, b rental.Offer) int {
	if c := cmp.Compare(a.Vehicle.Berths, b.Vehicle.Berths); c != 0 {
		return c
	}
	return cmp.Compare(a.TotalCents, b.TotalCents)
}

// vehicleJSONParts are the parts of a search result that depend only on the vehicle,
// rendered once per Server: under TinyGo, escaping names and URLs and formatting ids
// on every request was the larger part of an availability search's time in wasm.
type vehicleJSONParts struct {
	head, mid []byte
	idEnd     []byte     // the vehicle id and the end of the offer: N"}
	idEndW    wire.Short // idEnd as words, for wire.ShortAt; empty (Len 0) when idEnd is longer than 16 bytes
	cal       []byte     // a calendar entry up to rentalFee: {"vehicleId":N,"name":...,"transmission":"..."
}

func buildVehicleJSON(vs []rental.Vehicle) []vehicleJSONParts {
	out := make([]vehicleJSONParts, len(vs))
	for i := range vs {
		v := &vs[i]
		id := wire.AppendInt(wire.Put([]byte(nil), `{"vehicleId":`), v.ID)
		id = wire.AppendJSONString(wire.Put(id, `,"name":`), v.Name)
		h := wire.Put(wire.PutBytes([]byte(nil), id), `,"rentalDailyRate":`)
		facts := wire.AppendJSONString(wire.Put([]byte(nil), `,"class":`), v.Class)
		facts = wire.AppendInt(wire.Put(facts, `,"berths":`), int64(v.Berths))
		facts = wire.AppendJSONString(wire.Put(facts, `,"transmission":`), v.Transmission)
		m := wire.PutBytes(wire.AppendJSONString(wire.Put([]byte(nil), `,"imageUrl":`), v.ImageURL), facts)
		m = wire.Put(m, `,"days":`)
		idEnd := wire.Put(wire.AppendInt(nil, v.ID), `"}`)
		idEndW, _ := wire.MakeShort(idEnd)
		out[i] = vehicleJSONParts{head: h, mid: m, idEnd: idEnd, idEndW: idEndW, cal: wire.PutBytes(id, facts)}
	}
	return out
}

// vehicleJSON returns the pre-rendered parts for v (v comes from the catalog, so
// its index is always in range; the check only keeps a bug from trapping the instance).
func (s *Server) vehicleJSON(o *rental.Offer) *vehicleJSONParts { return partsOf(s.vehicleParts, o) }

// partsOf returns offer o's vehicle's parts from parts (the server's, or a loop's local
// copy of the slice: offersAt), or empty parts for an index outside them.
//
//go:inline
func partsOf(parts []vehicleJSONParts, o *rental.Offer) *vehicleJSONParts {
	if i := o.Index; i >= 0 && i < len(parts) {
		return &parts[i]
	}
	return &noVehicleParts
}

var noVehicleParts vehicleJSONParts

// appendHandoffSearch appends the hand-off link up to and including "&vehicle_id=".
func (s *Server) appendHandoffSearch(b []byte, sr *rental.Search) []byte {
	b = wire.Put(b, s.cfg.WebURL)
	b = s.appendSearchQuery(wire.Put(b, "/book?"), sr)
	return wire.Put(b, "&vehicle_id=")
}

// keepDateText keeps date d's text (from the query: how Date.At writes d) in slot i,
// for dateAt.
func (s *Server) keepDateText(i int, d rental.Date, text string) {
	if len(text) == rental.DateLen {
		s.dateText[i].d = d
		copy(s.dateText[i].text[:], text)
	}
}

// dateAt writes d at buf[n:] as Date.At does: a copy of the text kept for it when
// there is one (the search's two dates, as the query gave them), else from the day
// count. Issue 16, session 28: Date.At's conversion of a day count to a civil date was
// ~300 instructions a date under node, twice for every search's booking link and
// every quote's checkout link.
//
//go:inline
func (s *Server) dateAt(buf []byte, n int, d rental.Date) int {
	for i := range s.dateText {
		if t := &s.dateText[i]; t.d == d && t.text[0] != 0 {
			return wire.BytesAt(buf, n, t.text[:])
		}
	}
	return d.At(buf, n)
}

// appendSearchQuery appends the search's four parameters as a query (without "?"), in
// the order the spec lists them: the hand-off links and the suggestions share it
// (searchQueryAt after making room).
func (s *Server) appendSearchQuery(b []byte, sr *rental.Search) []byte {
	b = wire.Room(b, searchQueryMax)
	buf := b[:cap(b)]
	return buf[:s.searchQueryAt(buf, len(b), sr)]
}

func (s *Server) getAccessories(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	return s.getExtras(req, w, pathParam, true, nowMs)
}

func (s *Server) getInsurance(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	return s.getExtras(req, w, pathParam, false, nowMs)
}

// getExtras answers accessories and insurance-types. Without dates the lists are
// static (cacheable, ETag); with both dates each item also carries its cost.
func (s *Server) getExtras(req *wire.Request, w *wire.Response, vehicle string, accessories bool, nowMs int64) *rental.Error {
	id, e := parseID(s.op.pathParam, "path parameter ", vehicle)
	if e != nil {
		return e
	}
	pick, hasPick := s.q.get("pick_up_date")
	drop, hasDrop := s.q.get("drop_off_date")
	if e = s.checkParams(); e != nil {
		return e
	}
	v := s.cat.Vehicle(id)
	if v == nil {
		return rental.InvalidCode(rental.CodeUnknownID, "vehicleId", "path parameter vehicleId: vehicle "+string(wire.AppendInt(nil, id))+" does not exist; vehicle ids come from GET "+s.cfg.BasePath+"/vehicles/availability")
	}
	days := 0
	if hasPick || hasDrop {
		if !hasPick {
			return rental.InvalidCode(rental.CodeMissingParameter, "pick_up_date", "missing query parameter pick_up_date: give pick_up_date and drop_off_date together, or neither")
		}
		if !hasDrop {
			return rental.InvalidCode(rental.CodeMissingParameter, "drop_off_date", "missing query parameter drop_off_date: give pick_up_date and drop_off_date together, or neither")
		}
		p, e := parseDateParam("pick_up_date", pick)
		if e != nil {
			return e
		}
		d, e := parseDateParam("drop_off_date", drop)
		if e != nil {
			return e
		}
		// The hire-date rules of searches and quotes (those that need no depot).
		if e = s.cat.CheckHireDates(p, d, s.nzToday(nowMs)); e != nil {
			return e
		}
		days = int(d-p) + 1
	}
	b := wire.PutByte(s.extrasBody[:0], '[')
	if accessories {
		for i, a := range s.cat.Accessories(v) {
			b = appendExtraHead(b, i, a.ID, a.Name, a.PriceCents)
			if a.PerDay {
				b = wire.Put(b, `,"priceUnit":"day"`)
			} else {
				b = wire.Put(b, `,"priceUnit":"hire"`)
			}
			if a.MaxChargeCents > 0 {
				b = wire.Put(b, `,"maxCharge":`)
				b = wire.AppendMoney(b, a.MaxChargeCents)
			}
			b = wire.Put(b, `,"maxQuantity":`)
			b = wire.AppendInt(b, int64(a.MaxQuantity))
			b = appendExtraTail(b, days, rental.AccessoryCost(&a, days, 1))
		}
	} else {
		for i, p := range s.cat.InsurancePlans(v) {
			b = appendExtraHead(b, i, p.ID, p.Name, p.PriceCents)
			b = wire.Put(b, `,"priceUnit":"day"`)
			if p.MaxDays > 0 {
				b = wire.Put(b, `,"maxChargedDays":`)
				b = wire.AppendInt(b, int64(p.MaxDays))
			}
			b = appendPlanTerms(b, &p)
			b = appendExtraTail(b, days, rental.InsuranceCost(&p, days))
		}
	}
	b = wire.PutByte(b, ']')
	s.extrasBody = b
	if days > 0 {
		w.Status = 200
		s.common(w, cacheSearch)
		w.Body = wire.PutBytes(w.Body, b)
		return nil
	}
	s.extrasETag = appendETag(s.extrasETag[:0], b)
	s.static(req, w, b, wire.BytesString(s.extrasETag))
	return nil
}

// appendExtraHead opens item i of an accessory or insurance list: id, name, price.
func appendExtraHead(b []byte, i int, id int64, name string, priceCents int64) []byte {
	if i > 0 {
		b = wire.PutByte(b, ',')
	}
	b = wire.Put(b, `{"id":`)
	b = wire.AppendInt(b, id)
	b = wire.AppendMember(b, `,"name":`, name)
	b = wire.Put(b, `,"price":`)
	return wire.AppendMoney(b, priceCents)
}

// appendExtraTail closes an item: its cost for a hire of days days, when dated.
func appendExtraTail(b []byte, days int, costCents int64) []byte {
	if days > 0 {
		b = wire.Put(b, `,"cost":`)
		b = wire.AppendMoney(b, costCents)
	}
	return wire.PutByte(b, '}')
}

func (s *Server) getQuote(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	if s.cfg.QuoteKeys == nil {
		return errNoKeys
	}
	var qr rental.QuoteRequest
	var e *rental.Error
	if e = s.search(nowMs, &qr.Search); e != nil {
		return e
	}
	if qr.VehicleID, e = s.requiredID("vehicle_id"); e != nil {
		return e
	}
	ids, _ := s.q.get("accessory_ids")
	if s.picks, e = parsePicks(ids, s.picks); e != nil {
		return e
	}
	qr.Accessories = s.picks
	if qr.InsuranceID, e = s.q.optionalID("insurance_id"); e != nil {
		return e
	}
	if qr.DriverAge, e = s.q.driverAge(); e != nil {
		return e
	}
	s.driverAge = qr.DriverAge
	if e = s.checkParams(); e != nil {
		return e
	}
	if e = s.cat.Quote(&qr, &s.quote); e != nil {
		return s.suggestFor(e, &qr.Search, qr.VehicleID)
	}
	w.Status = 200
	s.common(w, s.op.Cache)
	w.Body = s.appendQuote(w.Body[:0], &qr.Search, &s.quote, nowMs)
	return nil
}

// quoteFixed bounds the literal text of a quote (member names, punctuation, "null",
// the checkout link's parameter names) around its variable parts, which appendQuote
// sizes from their lengths and the Max* bounds; TestAppendQuoteRoom renders the
// largest values on the tightest room.
const quoteFixed = 512

// appendQuote writes quote q of search sr with a new signed quoteId, issued now: the
// id first, then room for the rest, which quoteAt writes with the cursor writers
// (core/wire/cursor.go).
func (s *Server) appendQuote(b []byte, sr *rental.Search, q *rental.Quote, nowMs int64) []byte {
	b = wire.Put(b, `{"quoteId":"`)
	idStart := len(b)
	b = s.signQuote(b, sr, q, nowMs)
	idEnd := len(b)
	b = wire.Room(b, s.quoteRoom(idEnd-idStart, q))
	buf := b[:cap(b)]
	return buf[:s.quoteAt(buf, len(b), b[idStart:idEnd], sr, q)]
}

// quoteRoom bounds what quoteAt writes for quote q with an id of idLen bytes.
func (s *Server) quoteRoom(idLen int, q *rental.Quote) int {
	need := quoteFixed + 2*idLen + len(quoteNoteJSON) + 8*wire.MaxMoney + 6*wire.MaxInt + 2*rental.DateLen +
		rfc3339Len + len(s.cfg.WebURL) + hireTermsMax
	for i := range q.Accessories {
		a := &q.Accessories[i]
		need += 64 + 2*wire.MaxInt + wire.MaxMoney + wire.MaxJSONString(len(a.Accessory.Name)) + (wire.MaxInt+1)*max(a.Quantity, 0)
	}
	if q.Insurance != nil {
		need += 64 + 2*wire.MaxInt + wire.MaxMoney + wire.MaxJSONString(len(q.Insurance.Name))
	}
	return need
}

// quoteAt writes the quote after its id (id) at buf[n:].
func (s *Server) quoteAt(buf []byte, n int, id []byte, sr *rental.Search, q *rental.Quote) int {
	n = wire.PutAt(buf, n, `","expiresAt":"`)
	n = s.expiresAt(buf, n, s.tok.ExpiresAt)
	n = wire.PutAt(buf, n, `","currency":"NZD","priceBreakdown":{"rentalFee":`)
	n = wire.MoneyAt(buf, n, q.RentalCents)
	n = wire.PutAt(buf, n, `,"routeFee":`)
	n = wire.MoneyAt(buf, n, q.RouteCents)
	n = wire.PutAt(buf, n, `,"accessoriesFee":`)
	n = wire.MoneyAt(buf, n, q.AccessoriesCents)
	n = wire.PutAt(buf, n, `,"insuranceFee":`)
	n = wire.MoneyAt(buf, n, q.InsuranceCents)
	n = wire.PutAt(buf, n, `},"accessories":[`)
	for i := range q.Accessories {
		a := &q.Accessories[i]
		if i > 0 {
			n = wire.ByteAt(buf, n, ',')
		}
		n = itemFromAt(buf, n, itemHead(s.accHeads, s.cat.AccessoryIndex(a.Accessory.ID)), a.Accessory.ID, a.Accessory.Name, a.CostCents)
		n = wire.PutAt(buf, n, `,"quantity":`)
		n = wire.IntAt(buf, n, int64(a.Quantity))
		n = wire.ByteAt(buf, n, '}')
	}
	n = wire.PutAt(buf, n, `],"insurance":`)
	if q.Insurance == nil {
		n = wire.PutAt(buf, n, "null")
	} else {
		n = wire.ByteAt(buf, itemFromAt(buf, n, itemHead(s.insHeads, s.cat.InsuranceIndex(q.Insurance.ID)), q.Insurance.ID, q.Insurance.Name, q.InsuranceCents), '}')
	}
	n = wire.PutAt(buf, n, `,"totalAmount":`)
	n = wire.MoneyAt(buf, n, q.TotalCents)
	n = wire.PutAt(buf, n, `,"gstIncluded":`)
	n = wire.MoneyAt(buf, n, rental.GSTIncluded(q.TotalCents))
	n = wire.PutAt(buf, n, `,"note":`)
	n = wire.BytesAt(buf, n, quoteNoteJSON)
	n = wire.PutAt(buf, n, `,"vehicleId":`)
	n = wire.IntAt(buf, n, q.Vehicle.ID)
	n = wire.PutAt(buf, n, `,"days":`)
	n = wire.IntAt(buf, n, int64(q.Days))
	n = s.termsAt(buf, n, &q.Terms)
	n = wire.PutAt(buf, n, `,"checkoutUrl":"`)
	n = wire.PutAt(buf, n, s.cfg.WebURL)
	n = s.searchQueryAt(buf, wire.PutAt(buf, n, "/book?"), sr)
	n = wire.PutAt(buf, n, "&vehicle_id=")
	n = wire.IntAt(buf, n, q.Vehicle.ID)
	if q.Insurance != nil {
		n = wire.PutAt(buf, n, "&insurance_id=")
		n = wire.IntAt(buf, n, q.Insurance.ID)
	}
	if len(q.Accessories) > 0 {
		n = wire.PutAt(buf, n, "&accessory_ids=")
		k := 0
		for i := range q.Accessories {
			a := &q.Accessories[i]
			for j := 0; j < a.Quantity; j++ {
				if k > 0 {
					n = wire.ByteAt(buf, n, ',')
				}
				n = wire.IntAt(buf, n, a.Accessory.ID)
				k++
			}
		}
	}
	n = wire.PutAt(buf, n, "&quote_id=")
	n = wire.BytesAt(buf, n, id) // base64url: nothing to escape
	return wire.PutAt(buf, n, `"}`)
}

// itemAt writes a quoted accessory or insurance plan up to its cost: {"id":N,"name":"...","cost":X
// A quote writes the catalog's items from their pre-rendered heads (itemFromAt); itemAt
// only if one were missing.
func itemAt(buf []byte, n int, id int64, name string, costCents int64) int {
	n = wire.PutAt(buf, n, `{"id":`)
	n = wire.IntAt(buf, n, id)
	n = wire.PutAt(buf, n, `,"name":`)
	n = wire.JSONStringAt(buf, n, name)
	n = wire.PutAt(buf, n, `,"cost":`)
	return wire.MoneyAt(buf, n, costCents)
}

// buildItemHeads renders {"id":N,"name":"...","cost": for each id and its name (the
// catalog's accessories or insurance plans, in id order): a quote copies its items'
// heads instead of writing the id and escaping the name each time (issue 16: ~600
// instructions an item under V8).
func buildItemHeads(ids []int64, names []string) [][]byte {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		b := wire.AppendInt(wire.Put([]byte(nil), `{"id":`), id)
		b = wire.AppendJSONString(wire.Put(b, `,"name":`), names[i])
		out[i] = wire.Put(b, `,"cost":`)
	}
	return out
}

// itemFromAt is itemAt from the item's pre-rendered head, or written out when it has
// none (head nil).
func itemFromAt(buf []byte, n int, head []byte, id int64, name string, costCents int64) int {
	if head != nil {
		return wire.MoneyAt(buf, wire.BytesAt(buf, n, head), costCents)
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

// searchQueryMax is the most bytes searchQueryAt writes.
const searchQueryMax = 65 + 2*wire.MaxInt + 2*rental.DateLen

// searchQueryAt writes the search's query at buf[n:] with the cursor writers (at most
// searchQueryMax bytes), its dates through dateAt.
func (s *Server) searchQueryAt(buf []byte, n int, sr *rental.Search) int {
	n = wire.PutAt(buf, n, "pick_up_depot_id=")
	n = wire.IntAt(buf, n, sr.PickUpDepot)
	n = wire.PutAt(buf, n, "&drop_off_depot_id=")
	n = wire.IntAt(buf, n, sr.DropOffDepot)
	n = wire.PutAt(buf, n, "&pick_up_date=")
	n = s.dateAt(buf, n, sr.PickUp)
	n = wire.PutAt(buf, n, "&drop_off_date=")
	return s.dateAt(buf, n, sr.DropOff)
}

// nzToday is rental.NZToday of the second of nowMs, made once a second (s.clock).
func (s *Server) nzToday(nowMs int64) rental.Date {
	c := &s.clock
	if sec := wire.FloorDiv(nowMs, 1000); sec != c.todaySec || !c.todayOK {
		c.todaySec, c.today, c.todayOK = sec, rental.NZToday(sec), true
	}
	return c.today
}

// expiresAt is rfc3339At for a quote's expiry, rendered once a second (s.clock) and
// written as two wire.Shorts: 32 bytes stored at buf[n:], 20 of them the expiry (a
// quote's room has far more than that after it).
func (s *Server) expiresAt(buf []byte, n int, unix int64) int {
	c := &s.clock
	if unix != c.expSec || !c.expOK {
		var t [rfc3339Len]byte
		rfc3339At(t[:], 0, unix)
		c.exp[0], _ = wire.MakeShort(t[:16])
		c.exp[1], _ = wire.MakeShort(t[16:])
		c.expSec, c.expOK = unix, true
	}
	return wire.ShortAt(buf, wire.ShortAt(buf, n, &c.exp[0]), &c.exp[1])
}

// rfc3339Len is how many bytes rfc3339At writes.
const rfc3339Len = 20

// rfc3339At writes unix seconds as "YYYY-MM-DDTHH:MM:SSZ" at buf[n:] (appendRFC3339).
func rfc3339At(buf []byte, n int, unix int64) int {
	day := wire.FloorDiv(unix, 86400)
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
	day := wire.FloorDiv(unix, 86400)
	sec := unix - day*86400
	b = rental.Date(day).AppendTo(b)
	b = wire.PutByte(b, 'T')
	b = append2(b, sec/3600)
	b = wire.PutByte(b, ':')
	b = append2(b, sec/60%60)
	b = wire.PutByte(b, ':')
	b = append2(b, sec%60)
	return wire.PutByte(b, 'Z')
}

func append2(b []byte, n int64) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
