package api

import (
	"cmp"
	"slices"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// GET /vehicles/availability: the vehicles free for a search, with their prices and
// booking links; and what availability shares with quotes and suggestions: reading a
// search's four parameters and writing them back as a query.

func (s *Server) getAvailability(c *call) *rental.Error {
	var sr rental.Search
	e := s.search(c, &sr)
	if e != nil {
		return e
	}
	if e = c.q.filter(&c.filter, s.cat.Classes(), s.classList); e != nil {
		return e
	}
	order, e := c.q.sortParam()
	if e != nil {
		return e
	}
	if e = c.termsParams(); e != nil {
		return e
	}
	seed := s.offersSeed
	if e = s.pageParams(c, defaultLimit, maxLimit, seed); e != nil {
		return e
	}
	if e = c.checkParams(); e != nil {
		return e
	}
	c.offers, e = s.cat.AvailabilityFiltered(sr, &c.filter, c.offers[:0])
	if e != nil {
		return s.suggestFor(c, e, &sr, 0)
	}
	sortOffers(c.offers, order)
	off, end, e := c.pageRange(len(c.offers))
	if e != nil {
		return e
	}
	// The booking link is the same for every offer up to the vehicle id: built once,
	// with the member's name, so each offer copies it in one piece.
	c.bookingLink = s.appendHandoffSearch(c, bytebuf.Put(c.bookingLink[:0], `,"bookingUrl":"`), &sr)
	// The page is written (and hashed) from c.offers cut to it; the whole list is
	// given back to c.offers after, so that its buffer keeps its capacity.
	all := c.offers
	c.offers = all[off:end]
	c.w.Body = s.writeOffers(c, c.w.Body)
	end = off + c.written
	c.offers = all[off:end]
	c.pageDone(end, len(all), seed)
	h := c.pageTag(s.offersHash(c))
	c.offers = all
	s.answerSearch(c, h)
	s.setLink(c)
	return nil
}

// search reads the four search parameters shared by availability and quotes into sr
// (a pointer, not a result: TinyGo returns a struct through a copy in linear memory).
func (s *Server) search(c *call, sr *rental.Search) *rental.Error {
	var e *rental.Error
	if sr.PickUpDepot, e = s.requiredID(c, "pick_up_depot_id"); e != nil {
		return e
	}
	if sr.DropOffDepot, e = s.requiredID(c, "drop_off_depot_id"); e != nil {
		return e
	}
	var text string
	if sr.PickUp, text, e = c.q.requiredDateText("pick_up_date"); e != nil {
		return e
	}
	c.keepDateText(0, sr.PickUp, text)
	if sr.DropOff, text, e = c.q.requiredDateText("drop_off_date"); e != nil {
		return e
	}
	c.keepDateText(1, sr.DropOff, text)
	sr.Today = s.nzToday(c.now)
	sr.Refs = &s.refs
	return nil
}

// nzToday is rental.NZToday of the second of nowMs, made once a second (s.clock).
func (s *Server) nzToday(nowMs int64) rental.Date {
	c := &s.clock
	if sec := text.FloorDiv(nowMs, 1000); sec != c.todaySec || !c.todayOK {
		c.todaySec, c.today, c.todayOK = sec, rental.NZToday(sec), true
	}
	return c.today
}

// keepDateText keeps date d's text (from the query: how Date.At writes d) in slot i,
// for dateAt.
func (c *call) keepDateText(i int, d rental.Date, text string) {
	if len(text) == rental.DateLen {
		c.dateText[i].d = d
		copy(c.dateText[i].text[:], text)
	}
}

// dateAt writes d at buf[n:] as Date.At does: a copy of the text kept for it when
// there is one (the search's two dates, as the query gave them), else from the day
// count. Every booking and checkout link writes both dates, and the copy skips
// converting a day count to a civil date.
//
//go:inline
func (c *call) dateAt(buf []byte, n int, d rental.Date) int {
	for i := range c.dateText {
		if t := &c.dateText[i]; t.d == d && t.text[0] != 0 {
			return bytebuf.BytesAt(buf, n, t.text[:])
		}
	}
	return d.At(buf, n)
}

// offerNumbers bounds what writeOffers adds to an offer's pre-rendered parts: the
// comma, the five numbers and the fee members' names.
const offerNumbers = 1 + 4*jsonw.MaxMoney + jsonw.MaxInt + len(`,"rentalFee":,"routeFee":,"totalAmount":`)

// writeOffers appends the Offer array of c.offers to b: room for all of it first, then
// offersAt writes it.
func (s *Server) writeOffers(c *call, b []byte) []byte {
	// at most the longest vehicle's parts an offer: one product, not a pass over the
	// offers (the buffer is kept between requests, so the slack costs nothing after)
	if len(c.offers) > 0 { // the days and the route fee: the same in every offer of a search
		o := &c.offers[0]
		c.sharedDays, c.sharedRoute = o.Days, o.RouteCents
		c.daysRental = bytebuf.Put(jsonw.AppendInt(c.daysRental[:0], int64(o.Days)), `,"rentalFee":`)
		c.daysRentalW, _ = bytebuf.MakeShort(c.daysRental)
		c.routeTotal = bytebuf.Put(jsonw.AppendMoney(bytebuf.Put(c.routeTotal[:0], `,"routeFee":`), o.RouteCents), `,"totalAmount":`)
	}
	b = bytebuf.Room(b, 2+len(c.offers)*(s.partsMax+len(c.bookingLink)+offerNumbers+s.optionsRoom(c))+16) // +16: bytebuf.ShortAt's second word
	buf := b[:cap(b)]
	n, written := s.offersAt(c, buf, len(b))
	c.written = written
	return buf[:n]
}

// offersAt writes the Offer array of c.offers at buf[n:] with the cursor writers: it
// allocates nothing, so TinyGo gives it no collector frame. What every offer reads
// from s and c is taken into locals first: a store into buf may alias any field as far as
// the compiler knows, so a field would be loaded (and bounds-checked by V8) again for
// every offer. It stops before an offer once the array has reached the page's byte
// budget (an MCP tool's), and returns how many offers it wrote.
func (s *Server) offersAt(c *call, buf []byte, n int) (int, int) {
	offers, parts := c.offers, s.vehicleParts
	start, budget := n, c.pg.bytes
	sharedDays, sharedRoute := c.sharedDays, c.sharedRoute
	daysRental, routeTotal, bookingLink := c.daysRental, c.routeTotal, c.bookingLink
	daysRentalW := c.daysRentalW
	opts, withOptions := s.optionParts, c.withOptions
	n = bytebuf.ByteAt(buf, n, '[')
	written := len(offers)
	for i := range offers {
		o := &offers[i]
		if i > 0 {
			if budget > 0 && n-start >= budget {
				written = i
				break
			}
			n = bytebuf.ByteAt(buf, n, ',')
		}
		vj := partsOf(parts, o)
		n = bytebuf.CopyAt(buf, n, vj.head) // {"vehicleId":N,"name":"...","rentalDailyRate":
		n = jsonw.MoneyAt(buf, n, o.DailyRateCents)
		n = bytebuf.CopyAt(buf, n, vj.mid) // ,"imageUrl":"...","class":...,"berths":N,"transmission":"...","days":
		if o.Days == sharedDays && o.RouteCents == sharedRoute {
			// the search's days and route fee, written once (writeOffers): two copies
			// instead of formatting both and writing three member names
			n = bytebuf.ShortOrBytesAt(buf, n, &daysRentalW, daysRental) // 16 bytes or fewer: two word stores
			start := n
			n = jsonw.MoneyAt(buf, n, o.RentalCents)
			end := n
			n = bytebuf.CopyAt(buf, n, routeTotal)
			if o.TotalCents == o.RentalCents { // no route fee: the rental fee's digits again
				n = bytebuf.BytesAt(buf, n, buf[start:end])
			} else {
				n = jsonw.MoneyAt(buf, n, o.TotalCents)
			}
		} else {
			n = jsonw.IntAt(buf, n, int64(o.Days))
			n = feesAt(buf, n, o)
		}
		n = bytebuf.CopyAt(buf, n, bookingLink)                  // ,"bookingUrl":"https://.../book?...&vehicle_id=
		n = bytebuf.ShortOrBytesAt(buf, n, &vj.idEndW, vj.idEnd) // N"}
		if withOptions {
			n = optionsAt(buf, n-1, opts, o) // in place of the offer's closing brace
		}
	}
	return bytebuf.ByteAt(buf, n, ']'), written
}

// feesAt is appendFees with the cursor writers, for writeOffers.
func feesAt(buf []byte, n int, o *rental.Offer) int {
	n = bytebuf.PutAt(buf, n, `,"rentalFee":`)
	start := n
	n = jsonw.MoneyAt(buf, n, o.RentalCents)
	end := n
	if o.RouteCents == 0 && o.TotalCents == o.RentalCents {
		n = bytebuf.PutAt(buf, n, `,"routeFee":0,"totalAmount":`)
		return bytebuf.BytesAt(buf, n, buf[start:end])
	}
	n = bytebuf.PutAt(buf, n, `,"routeFee":`)
	n = jsonw.MoneyAt(buf, n, o.RouteCents)
	n = bytebuf.PutAt(buf, n, `,"totalAmount":`)
	return jsonw.MoneyAt(buf, n, o.TotalCents)
}

// appendFees appends an offer's rentalFee, routeFee and totalAmount. Without a route
// fee the total is the rental fee: its digits are copied, not formatted again.
func appendFees(b []byte, o *rental.Offer) []byte {
	b = bytebuf.Put(b, `,"rentalFee":`)
	start := len(b)
	b = jsonw.AppendMoney(b, o.RentalCents)
	end := len(b)
	if o.RouteCents == 0 && o.TotalCents == o.RentalCents {
		b = bytebuf.Put(b, `,"routeFee":0,"totalAmount":`)
		return bytebuf.PutBytes(b, b[start:end])
	}
	b = bytebuf.Put(b, `,"routeFee":`)
	b = jsonw.AppendMoney(b, o.RouteCents)
	b = bytebuf.Put(b, `,"totalAmount":`)
	return jsonw.AppendMoney(b, o.TotalCents)
}

// answerSearch answers a search whose body is in w.Body: 200 with the ETag of hash h,
// or 304 when the client has it.
func (s *Server) answerSearch(c *call, h uint64) {
	w := c.w
	c.searchETag = bytebuf.PutByte(c.searchETag[:0], '"')
	c.searchETag = text.AppendHex64(c.searchETag, h)
	c.searchETag = bytebuf.PutByte(c.searchETag, '"')
	etag := text.BytesString(c.searchETag)
	if notModified(c.req, etag) {
		w.Body = w.Body[:0]
		s.notModifiedAnswer(w, c.op.Cache, etag)
		return
	}
	w.Status = 200
	s.common(w, c.op.Cache)
	w.SetHeader("etag", etag)
}

// offersHash is what an availability answer's strong ETag carries: a hash of what
// offersAt makes the body from, which is far shorter than the body. Its inputs:
// the catalog's version (the vehicles' pre-rendered parts are the catalog's alone) and
// the inventory version (the ETag follows the inventory even where the offers do not
// change: s.offersSeed), the booking link (the web URL and the search), include
// (insurance options, which follow the catalog, the vehicle and the days), and per offer
// its vehicle and its five numbers. Equal inputs write equal bytes;
// TestAvailabilityETagFollowsBody holds the converse over many searches.
func (s *Server) offersHash(c *call) uint64 {
	h := text.Hash64(s.offersSeed, text.BytesString(c.bookingLink))
	h = mix64(h, uint64(len(c.offers)))
	if c.withOptions {
		h = mix64(h, 1)
	}
	for i := range c.offers {
		o := &c.offers[i]
		h = mix64(h, uint64(uint32(o.Index))|uint64(uint32(o.Days))<<32) // both below 2^31: an index into the vehicles, a hire's days
		h = mix64(h, uint64(o.DailyRateCents))
		h = mix64(h, uint64(o.RentalCents))
		h = mix64(h, uint64(o.RouteCents))
		h = mix64(h, uint64(o.TotalCents))
	}
	return text.Hash64(h, "")
}

// mix64 continues hash h over the word v (text.Hash64's step): for the ETags and page
// tokens that hash what an answer is made of rather than its bytes. Finish with
// text.Hash64(h, "").
func mix64(h, v uint64) uint64 {
	h = (h ^ v) * 0xBF58476D1CE4E5B9
	return h ^ h>>31
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

// byPriceInsertion sorts offers by TotalCents, stably. Hand-written for the calendar,
// which sorts up to 252 short lists a call: slices.SortStableFunc calls its comparison
// through a function value, this loop compares the field in place.
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
// rendered once per Server so that a search neither escapes names and URLs nor
// formats ids.
type vehicleJSONParts struct {
	head, mid []byte
	idEnd     []byte        // the vehicle id and the end of the offer: N"}
	idEndW    bytebuf.Short // idEnd as words, for bytebuf.ShortAt; empty (Len 0) when idEnd is longer than 16 bytes
	cal       []byte        // a calendar entry up to rentalFee: {"vehicleId":N,"name":...,"transmission":"..."
	short     []byte        // a calendar summary's entry up to totalAmount: {"vehicleId":N,"name":"..."
}

func buildVehicleJSON(vs []rental.Vehicle) []vehicleJSONParts {
	out := make([]vehicleJSONParts, len(vs))
	for i := range vs {
		v := &vs[i]
		id := jsonw.AppendInt(bytebuf.Put([]byte(nil), `{"vehicleId":`), v.ID)
		id = jsonw.AppendJSONString(bytebuf.Put(id, `,"name":`), v.Name)
		h := bytebuf.Put(bytebuf.PutBytes([]byte(nil), id), `,"rentalDailyRate":`)
		facts := jsonw.AppendJSONString(bytebuf.Put([]byte(nil), `,"class":`), v.Class)
		facts = jsonw.AppendInt(bytebuf.Put(facts, `,"berths":`), int64(v.Berths))
		facts = jsonw.AppendJSONString(bytebuf.Put(facts, `,"transmission":`), v.Transmission)
		m := bytebuf.PutBytes(jsonw.AppendJSONString(bytebuf.Put([]byte(nil), `,"imageUrl":`), v.ImageURL), facts)
		m = bytebuf.Put(m, `,"days":`)
		idEnd := bytebuf.Put(jsonw.AppendInt(nil, v.ID), `"}`)
		idEndW, _ := bytebuf.MakeShort(idEnd)
		short := id[:len(id):len(id)] // cal appends to id: short keeps its own end
		out[i] = vehicleJSONParts{head: h, mid: m, idEnd: idEnd, idEndW: idEndW, cal: bytebuf.PutBytes(id, facts), short: short}
	}
	return out
}

// vehicleJSON returns the pre-rendered parts of offer o's vehicle (its index comes from
// the catalog, so it is always in range; the check only keeps a bug from trapping the
// instance).
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
func (s *Server) appendHandoffSearch(c *call, b []byte, sr *rental.Search) []byte {
	b = bytebuf.Put(b, s.cfg.WebURL)
	b = c.appendSearchQuery(bytebuf.Put(b, "/book?"), sr)
	return bytebuf.Put(b, "&vehicle_id=")
}

// appendSearchQuery appends the search's four parameters as a query (without "?"), in
// the order the spec lists them: the hand-off links and the suggestions share it
// (searchQueryAt after making room).
func (c *call) appendSearchQuery(b []byte, sr *rental.Search) []byte {
	b = bytebuf.Room(b, searchQueryMax)
	buf := b[:cap(b)]
	return buf[:c.searchQueryAt(buf, len(b), sr)]
}

// searchQueryMax is the most bytes searchQueryAt writes.
const searchQueryMax = 65 + 2*jsonw.MaxInt + 2*rental.DateLen

// searchQueryAt writes the search's query at buf[n:] with the cursor writers (at most
// searchQueryMax bytes), its dates through dateAt.
func (c *call) searchQueryAt(buf []byte, n int, sr *rental.Search) int {
	n = bytebuf.PutAt(buf, n, "pick_up_depot_id=")
	n = jsonw.IntAt(buf, n, sr.PickUpDepot)
	n = bytebuf.PutAt(buf, n, "&drop_off_depot_id=")
	n = jsonw.IntAt(buf, n, sr.DropOffDepot)
	n = bytebuf.PutAt(buf, n, "&pick_up_date=")
	n = c.dateAt(buf, n, sr.PickUp)
	n = bytebuf.PutAt(buf, n, "&drop_off_date=")
	return c.dateAt(buf, n, sr.DropOff)
}
