package api

import (
	"strings"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// GET /vehicles/availability/calendar: every start date from earliest_pick_up_date to
// latest_pick_up_date, for each hire length of days, in one call (and one request
// against the rate limit): by default how many vehicles are free and the cheapest
// calendarCheapest of them; with detail=full every vehicle free, cheapest first. The
// entries (start date x hire length) page by limit and page (paging.go).

const (
	// maxCalendarSpan bounds the work of one call: latest_pick_up_date is at most this
	// many days after earliest_pick_up_date (63 start dates), each for up to
	// maxCalendarLengths hire lengths: 252 searches at most.
	maxCalendarSpan    = 62
	maxCalendarLengths = 4
	// calendarCheapest is how many vehicles a summary entry names: with 63 entries
	// (the default page) of ~100 bytes and three vehicles of ~60 bytes and their name,
	// a default answer stays under ~32 KB at any fleet size (~19 KB with names of 30
	// characters).
	calendarCheapest = 3
)

// Reasons of an empty day that no single rule explains (no allocation per day).
const (
	reasonNoneFree     = "no vehicle is free at the pick-up depot for these dates (booked out, or the hire is shorter than its minimum)"
	reasonNoneFiltered = "no vehicle that passes the filters (vehicle_id, min_berths, transmission, class, max_total, driver_age) is free for these dates"
)

func (s *Server) getCalendar(c *call) *rental.Error {
	w := c.w
	var sr rental.Search
	earliest, latest, lengths, e := s.calendarQuery(c, &sr)
	if e != nil {
		return e
	}
	n := int(latest-earliest+1) * len(lengths)
	if _, _, e = c.pageRange(n); e != nil {
		return e
	}
	// The ETag comes from what the answer is a function of (the catalog, the inventory
	// version, today's date and the parsed parameters, the page's among them), not
	// from the body: a client that has the answer gets its 304 without the searches.
	etag := s.calendarETag(c, &sr, earliest, latest, lengths)
	if notModified(c.req, etag) {
		s.notModifiedAnswer(w, c.op.Cache, etag)
		return nil
	}
	w.Body = s.appendCalendar(c, w.Body, &sr, earliest, latest, lengths)
	c.pageDone(c.written, n, s.offersSeed)
	w.Status = 200
	s.common(w, c.op.Cache)
	w.SetHeader("etag", etag)
	s.setLink(c)
	return nil
}

// calendarQuery reads a calendar's parameters: its depots into sr (with today), its
// range of start dates, its hire lengths (ascending) and its filters into c.filter.
func (s *Server) calendarQuery(c *call, sr *rental.Search) (earliest, latest rental.Date, lengths []int, e *rental.Error) {
	if sr.PickUpDepot, e = s.requiredID(c, "pick_up_depot_id"); e != nil {
		return
	}
	if sr.DropOffDepot, e = s.requiredID(c, "drop_off_depot_id"); e != nil {
		return
	}
	if earliest, e = c.q.requiredDate("earliest_pick_up_date"); e != nil {
		return
	}
	if latest, e = c.q.requiredDate("latest_pick_up_date"); e != nil {
		return
	}
	if lengths, e = s.calendarDays(c); e != nil {
		return
	}
	vehicle, e := c.q.optionalID("vehicle_id")
	if e != nil {
		return
	}
	if e = c.q.filter(&c.filter, s.cat.Classes(), s.classList); e != nil {
		return
	}
	c.filter.VehicleID = vehicle
	if e = c.termsParams(); e != nil {
		return
	}
	if c.fullDetail, e = c.q.detailParam(); e != nil {
		return
	}
	sr.Today = s.nzToday(c.now)
	sr.Refs = &s.refs
	if e = s.calendarPage(c); e != nil {
		return
	}
	if e = c.checkParams(); e != nil {
		return
	}
	e = s.checkCalendar(c, sr, vehicle, earliest, latest)
	return
}

// calendarPage reads a calendar's limit and page, the limit bounded by the fleet's size
// (calendarLimits).
func (s *Server) calendarPage(c *call) *rental.Error {
	rows := summaryRows
	if c.fullDetail {
		rows = fullDetailRows
	}
	n := len(s.cat.Vehicles())
	def, max := calendarLimits(rows, n)
	e := s.pageParams(c, def, maxCalendarLimit, s.offersSeed)
	if e == nil && c.pg.limit > max {
		v, _ := c.q.get("limit")
		return calendarLimitError(c.fullDetail, max, n, v)
	}
	return e
}

// detailParam reads detail: summary (the default) or full.
func (q *query) detailParam() (bool, *rental.Error) {
	v, ok := q.get("detail")
	if !ok || v == "summary" {
		return false, nil
	}
	if v == "full" {
		return true, nil
	}
	return false, invalidGot("detail", "query parameter detail must be summary (each entry's number of vehicles free and the cheapest 3) or full (every vehicle free)", "", v)
}

// checkCalendar refuses a calendar whose route, vehicle or range of start dates no
// search could answer; a range the wrong way round or too long comes with the one to
// ask for instead.
func (s *Server) checkCalendar(c *call, sr *rental.Search, vehicle int64, earliest, latest rental.Date) *rental.Error {
	if e := s.cat.CheckRoute(*sr); e != nil {
		return e
	}
	if vehicle != 0 && s.cat.Vehicle(vehicle) == nil {
		return rental.InvalidCode(rental.CodeUnknownID, "vehicle_id", "vehicle_id "+string(jsonw.AppendInt(nil, vehicle))+" is not a vehicle; leave vehicle_id out for every vehicle, or use a vehicleId from GET "+s.cfg.BasePath+"/vehicles/availability")
	}
	if latest < earliest {
		c.suggestParams("latest_pick_up_date", earliest, "earliest_pick_up_date", latest, "the two dates the other way round")
		return rental.InvalidCode(rental.CodeDateOrder, "latest_pick_up_date", "latest_pick_up_date "+latest.String()+" is before earliest_pick_up_date "+earliest.String()+"; give the range from its first to its last start date")
	}
	if int(latest-earliest) > maxCalendarSpan {
		last := earliest.AddDays(maxCalendarSpan)
		c.suggestParams("latest_pick_up_date", last, "", 0, "the first 63 start dates of the range")
		return rental.InvalidCode(rental.CodeTooLong, "latest_pick_up_date", "the range from "+earliest.String()+" to "+latest.String()+" has "+string(jsonw.AppendInt(nil, int64(latest-earliest)+1))+" start dates; a calendar covers at most 63 (latest_pick_up_date at most 62 days after earliest_pick_up_date), so ask for "+earliest.String()+" to "+last.String()+" and then the rest")
	}
	return nil
}

// appendCalendar appends the page's entries to b: for each start date from earliest
// to latest and each hire length, from entry c.pg.off on, at most c.pg.limit of them
// (and up to the page's byte budget), the vehicles free for it (sr's dates move
// along). c.written is where the page ends.
func (s *Server) appendCalendar(c *call, b []byte, sr *rental.Search, earliest, latest rental.Date, lengths []int) []byte {
	filtered := c.filter != (rental.Filter{})
	nl := len(lengths)
	off := c.pg.off
	end := min(int(latest-earliest+1)*nl, off+c.pg.limit)
	b = bytebuf.PutByte(b, '[')
	start := len(b)
	k := off
	for ; k < end; k++ {
		if k > off {
			if c.pg.bytes > 0 && len(b)-start >= c.pg.bytes {
				break
			}
			b = bytebuf.PutByte(b, ',')
		}
		days := lengths[k%nl]
		sr.PickUp = earliest.AddDays(k / nl)
		sr.DropOff = sr.PickUp.AddDays(days - 1)
		e := s.calendarOffers(c, sr)
		if c.fullDetail {
			sortOffers(c.offers, sortPrice)
			b = s.appendCalendarDay(c, b, sr, days, e, filtered)
		} else {
			b = s.appendCalendarSummary(c, b, sr, days, e, filtered)
		}
	}
	c.written = k
	return bytebuf.PutByte(b, ']')
}

// calendarOffers puts the vehicles free for search sr into c.offers, in vehicle id
// order, or returns the error of a rule that rules the day out. Such an error comes
// from the cache after the first time (building the message allocates; the rules
// depend only on the key).
func (s *Server) calendarOffers(c *call, sr *rental.Search) (e *rental.Error) {
	key := dayKey{sr.PickUpDepot, sr.DropOffDepot, sr.PickUp, sr.DropOff, sr.Today}
	if e = s.dayFail(&key); e != nil {
		c.offers = c.offers[:0]
	} else if c.offers, e = s.cat.AvailabilityFiltered(*sr, &c.filter, c.offers[:0]); e != nil {
		s.keepDayFail(&key, e)
	}
	return e
}

// appendCalendarHead opens an entry: its dates and hire length.
func appendCalendarHead(b []byte, sr *rental.Search, days int) []byte {
	b = bytebuf.Put(b, `{"pick_up_date":"`)
	b = sr.PickUp.AppendTo(b)
	b = bytebuf.Put(b, `","drop_off_date":"`)
	b = sr.DropOff.AppendTo(b)
	b = bytebuf.Put(b, `","days":`)
	return jsonw.AppendInt(b, int64(days))
}

// appendCalendarDay appends one entry with every vehicle free (detail=full): search
// sr's dates, its hire length, the vehicles in c.offers, and why there are none when
// there are none (e, or the filters when filtered).
func (s *Server) appendCalendarDay(c *call, b []byte, sr *rental.Search, days int, e *rental.Error, filtered bool) []byte {
	b = appendCalendarHead(b, sr, days)
	b = bytebuf.Put(b, `,"vehicles":[`)
	for i := range c.offers {
		o := &c.offers[i]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = bytebuf.PutBytes(b, s.vehicleJSON(o).cal)
		b = appendFees(b, o)
		if c.withOptions {
			b = s.appendOptions(b, o)
		}
		b = bytebuf.PutByte(b, '}')
	}
	b = bytebuf.PutByte(b, ']')
	return appendCalendarReason(b, e, len(c.offers), filtered)
}

// appendCalendarSummary appends one entry of the summary: search sr's dates, its hire
// length, how many vehicles are free and the cheapest of them (cheapest), and why
// there are none when there are none.
func (s *Server) appendCalendarSummary(c *call, b []byte, sr *rental.Search, days int, e *rental.Error, filtered bool) []byte {
	b = appendCalendarHead(b, sr, days)
	b = bytebuf.Put(b, `,"free":`)
	b = jsonw.AppendInt(b, int64(len(c.offers)))
	b = bytebuf.Put(b, `,"cheapest":[`)
	var top [calendarCheapest]int
	k := cheapest(c.offers, &top)
	for i := 0; i < k; i++ {
		o := &c.offers[top[i]]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = bytebuf.PutBytes(b, s.vehicleJSON(o).short)
		b = bytebuf.Put(b, `,"totalAmount":`)
		b = jsonw.AppendMoney(b, o.TotalCents)
		if c.withOptions {
			b = s.appendOptions(b, o)
		}
		b = bytebuf.PutByte(b, '}')
	}
	b = bytebuf.PutByte(b, ']')
	return appendCalendarReason(b, e, len(c.offers), filtered)
}

// cheapest puts into top the indices in offers of the len(top) cheapest (or all of
// them, when fewer), cheapest first; an equal total keeps the order of offers (vehicle
// id), as sortOffers's price order does. It returns how many it put: one pass, no sort
// of the whole list.
func cheapest(offers []rental.Offer, top *[calendarCheapest]int) int {
	k := 0
	for i := range offers {
		t := offers[i].TotalCents
		j := k
		if k < len(top) {
			k++
		} else if t >= offers[top[k-1]].TotalCents {
			continue
		} else {
			j = k - 1
		}
		for j > 0 && offers[top[j-1]].TotalCents > t {
			top[j] = top[j-1]
			j--
		}
		top[j] = i
	}
	return k
}

// appendCalendarReason closes an entry of n vehicles: why there are none when there
// are none (e, or the filters when filtered).
func appendCalendarReason(b []byte, e *rental.Error, n int, filtered bool) []byte {
	switch {
	case e != nil:
		b = jsonw.AppendMember(b, `,"reason":`, e.Message)
		b = bytebuf.Put(b, `,"code":"`)
		b = bytebuf.Put(b, e.DefaultCode())
		b = bytebuf.PutByte(b, '"')
	case n == 0 && filtered:
		b = bytebuf.Put(b, `,"reason":"`+reasonNoneFiltered+`"`)
	case n == 0:
		b = bytebuf.Put(b, `,"reason":"`+reasonNoneFree+`"`)
	}
	return bytebuf.PutByte(b, '}')
}

// calendarETag returns the strong ETag of a calendar answer from its inputs: the
// catalog's version, the inventory version, New Zealand's date (the date rules depend
// on it) and every parsed parameter. The same inputs give the same bytes.
func (s *Server) calendarETag(c *call, sr *rental.Search, earliest, latest rental.Date, lengths []int) string {
	k := bytebuf.Put(c.etagKey[:0], "cal:")
	k = jsonw.AppendInt(k, sr.PickUpDepot)
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, sr.DropOffDepot)
	k = bytebuf.PutByte(k, ':')
	k = earliest.AppendTo(k)
	k = latest.AppendTo(k)
	k = sr.Today.AppendTo(k)
	for _, n := range lengths {
		k = bytebuf.PutByte(k, ',')
		k = jsonw.AppendInt(k, int64(n))
	}
	f := &c.filter
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, int64(f.MinBerths))
	k = bytebuf.PutByte(k, ':')
	k = bytebuf.Put(k, f.Transmission)
	k = bytebuf.PutByte(k, ':')
	k = bytebuf.Put(k, f.Class)
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, f.MaxTotalCents)
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, f.VehicleID)
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, int64(f.DriverAge))
	if c.withOptions {
		k = bytebuf.Put(k, ":insurance")
	}
	if c.fullDetail {
		k = bytebuf.Put(k, ":full")
	}
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, int64(c.pg.off))
	k = bytebuf.PutByte(k, ':')
	k = jsonw.AppendInt(k, int64(c.pg.limit))
	c.etagKey = k
	h := text.FNV64a(text.FNVOffset, s.cat.Version())
	h = text.FNV64a(h, s.invVersion)
	h = text.FNV64a(h, text.BytesString(k))
	c.searchETag = bytebuf.PutByte(text.AppendHex64(bytebuf.PutByte(c.searchETag[:0], '"'), h), '"')
	return text.BytesString(c.searchETag)
}

// dayKey is what decides whether a rule rules out every vehicle on a calendar day: the
// depots, the dates and today (the catalog's depots, closures, calendar and policy do
// not change for a Server; a new inventory changes bookings only, and bookings never
// make a search invalid).
type dayKey struct {
	pickUpDepot, dropOffDepot int64
	pickUp, dropOff, today    rental.Date
}

// hash is unsigned: int is 32 bits in wasm, where int(uint32) can be negative and a
// negative index traps the instance.
func (k *dayKey) hash() uint32 {
	h := uint64(k.pickUp)*0x9e3779b97f4a7c15 ^ uint64(k.dropOff)*0xc2b2ae3d27d4eb4f ^ uint64(k.pickUpDepot)<<40 ^ uint64(k.dropOffDepot)<<48 ^ uint64(k.today)*0x165667b19e3779f9
	return uint32(h>>32 ^ h)
}

// dayFailProbe is how many slots from its hash a day's error may sit (open addressing).
const dayFailProbe = 4

// dayFail returns the cached error of a ruled-out day, or nil.
func (s *Server) dayFail(k *dayKey) *rental.Error {
	h := k.hash()
	for i := 0; i < dayFailProbe; i++ {
		slot := &s.dayFails[(h+uint32(i))%uint32(len(s.dayFails))]
		if slot.e != nil && slot.key == *k {
			return slot.e
		}
	}
	return nil
}

// keepDayFail caches e for k: in a free slot near its hash, else in the first.
func (s *Server) keepDayFail(k *dayKey, e *rental.Error) {
	h := k.hash()
	for i := 0; i < dayFailProbe; i++ {
		if slot := &s.dayFails[(h+uint32(i))%uint32(len(s.dayFails))]; slot.e == nil {
			slot.key, slot.e = *k, e
			return
		}
	}
	slot := &s.dayFails[h%uint32(len(s.dayFails))]
	slot.key, slot.e = *k, e
}

// calendarDays reads days: one hire length or a comma list of up to 4, each 1 to the
// longest hire without a leading zero, no repeats; returned ascending in c.lengths.
func (s *Server) calendarDays(c *call) ([]int, *rental.Error) {
	raw, ok := c.q.get("days")
	if !ok {
		return nil, rental.InvalidCode(rental.CodeMissingParameter, "days", "missing required query parameter days (a hire length in days, such as 10, or a comma list of up to 4, such as 7,10,14)")
	}
	max := s.cat.MaxHireDays()
	ls := c.lengths[:0]
	for v := raw; ; {
		item := v
		i := strings.IndexByte(v, ',')
		if i >= 0 {
			item, v = v[:i], v[i+1:]
		}
		n, j := text.ScanDigits(item, int64(max)+1)
		if item == "" || item[0] == '0' || j != len(item) || n < 1 || n > int64(max) { // no leading zero: the pattern of openapi.json
			return nil, rental.Invalid("days", "query parameter days must be hire lengths from 1 to "+string(jsonw.AppendInt(nil, int64(max)))+" days, one or a comma list such as 7,10,14, got "+text.QuoteClean(raw))
		}
		if len(ls) == maxCalendarLengths {
			return nil, rental.InvalidCode(rental.CodeTooMany, "days", "query parameter days lists more than 4 hire lengths (the limit of one calendar)")
		}
		for _, l := range ls {
			if l == int(n) {
				return nil, rental.Invalid("days", "query parameter days lists "+item+" twice; give each hire length once")
			}
		}
		ls = append(ls, int(n))
		for k := len(ls) - 1; k > 0 && ls[k] < ls[k-1]; k-- {
			ls[k], ls[k-1] = ls[k-1], ls[k]
		}
		if i < 0 {
			break
		}
	}
	c.lengths = ls
	return ls, nil
}
