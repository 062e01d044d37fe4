package api

import (
	"strings"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// GET /vehicles/availability/calendar: every start date from earliest_pick_up_date to
// latest_pick_up_date, for each hire length of days, with the vehicles free for it,
// cheapest first, in one call (and one request against the rate limit).

const (
	// maxCalendarSpan bounds the work of one call: latest_pick_up_date is at most this
	// many days after earliest_pick_up_date (63 start dates), each for up to
	// maxCalendarLengths hire lengths: 252 searches at most.
	maxCalendarSpan    = 62
	maxCalendarLengths = 4
)

// Reasons of an empty day that no single rule explains (no allocation per day).
const (
	reasonNoneFree     = "no vehicle is free at the pick-up depot for these dates (booked out, or the hire is shorter than its minimum)"
	reasonNoneFiltered = "no vehicle that passes the filters (vehicle_id, min_berths, transmission, class, max_total) is free for these dates"
)

func (s *Server) getCalendar(req *wire.Request, w *wire.Response, pathParam string, nowMs int64) *rental.Error {
	var sr rental.Search
	var e *rental.Error
	if sr.PickUpDepot, e = s.requiredID("pick_up_depot_id"); e != nil {
		return e
	}
	if sr.DropOffDepot, e = s.requiredID("drop_off_depot_id"); e != nil {
		return e
	}
	earliest, e := s.q.requiredDate("earliest_pick_up_date")
	if e != nil {
		return e
	}
	latest, e := s.q.requiredDate("latest_pick_up_date")
	if e != nil {
		return e
	}
	lengths, e := s.calendarDays()
	if e != nil {
		return e
	}
	vehicle, e := s.q.optionalID("vehicle_id")
	if e != nil {
		return e
	}
	if e = s.q.filter(&s.filter, s.cat.Classes(), s.classList); e != nil {
		return e
	}
	s.filter.VehicleID = vehicle
	if e = s.checkParams(); e != nil {
		return e
	}
	sr.Today = s.nzToday(nowMs)
	sr.Refs = &s.refs
	if e = s.cat.CheckRoute(sr); e != nil {
		return e
	}
	if vehicle != 0 && s.cat.Vehicle(vehicle) == nil {
		return rental.InvalidCode(rental.CodeUnknownID, "vehicle_id", "vehicle_id "+string(wire.AppendInt(nil, vehicle))+" is not a vehicle; leave vehicle_id out for every vehicle, or use a vehicleId from GET "+s.cfg.BasePath+"/vehicles/availability")
	}
	if latest < earliest {
		s.suggestParams("latest_pick_up_date", earliest, "earliest_pick_up_date", latest, "the two dates the other way round")
		return rental.InvalidCode(rental.CodeDateOrder, "latest_pick_up_date", "latest_pick_up_date "+latest.String()+" is before earliest_pick_up_date "+earliest.String()+"; give the range from its first to its last start date")
	}
	if int(latest-earliest) > maxCalendarSpan {
		last := earliest.AddDays(maxCalendarSpan)
		s.suggestParams("latest_pick_up_date", last, "", 0, "the first 63 start dates of the range")
		return rental.InvalidCode(rental.CodeTooLong, "latest_pick_up_date", "the range from "+earliest.String()+" to "+latest.String()+" has "+string(wire.AppendInt(nil, int64(latest-earliest)+1))+" start dates; a calendar covers at most 63 (latest_pick_up_date at most 62 days after earliest_pick_up_date), so ask for "+earliest.String()+" to "+last.String()+" and then the rest")
	}
	// The ETag comes from what the answer is a function of (the catalog, the inventory
	// version, today's date and the parsed parameters), not from the body: hashing
	// ~476 KB of the largest answer byte by byte was 58% of its time natively, and a
	// client that has the answer gets its 304 without the 252 searches.
	etag := s.calendarETag(&sr, earliest, latest, lengths)
	if notModified(req, etag) {
		s.notModifiedAnswer(w, s.op.Cache, etag)
		return nil
	}
	filtered := s.filter != (rental.Filter{})
	b := wire.PutByte(w.Body, '[')
	n := 0
	for d := earliest; d <= latest; d++ {
		for _, days := range lengths {
			sr.PickUp, sr.DropOff = d, d.AddDays(days-1)
			// A day a rule rules out: its error comes from the cache after the first time
			// (building the message allocates; the rules depend only on the key).
			key := dayKey{sr.PickUpDepot, sr.DropOffDepot, sr.PickUp, sr.DropOff, sr.Today}
			if e = s.dayFail(&key); e != nil {
				s.offers = s.offers[:0]
			} else if s.offers, e = s.cat.AvailabilityFiltered(sr, &s.filter, s.offers[:0]); e != nil {
				s.keepDayFail(&key, e)
			}
			sortOffers(s.offers, sortPrice)
			if n > 0 {
				b = wire.PutByte(b, ',')
			}
			n++
			b = wire.Put(b, `{"pick_up_date":"`)
			b = sr.PickUp.AppendTo(b)
			b = wire.Put(b, `","drop_off_date":"`)
			b = sr.DropOff.AppendTo(b)
			b = wire.Put(b, `","days":`)
			b = wire.AppendInt(b, int64(days))
			b = wire.Put(b, `,"vehicles":[`)
			for i := range s.offers {
				o := &s.offers[i]
				if i > 0 {
					b = wire.PutByte(b, ',')
				}
				b = wire.PutBytes(b, s.vehicleJSON(o).cal)
				b = appendFees(b, o)
				b = wire.PutByte(b, '}')
			}
			b = wire.PutByte(b, ']')
			switch {
			case e != nil:
				b = wire.AppendMember(b, `,"reason":`, e.Message)
				b = wire.Put(b, `,"code":"`)
				b = wire.Put(b, e.DefaultCode())
				b = wire.PutByte(b, '"')
			case len(s.offers) == 0 && filtered:
				b = wire.Put(b, `,"reason":"`+reasonNoneFiltered+`"`)
			case len(s.offers) == 0:
				b = wire.Put(b, `,"reason":"`+reasonNoneFree+`"`)
			}
			b = wire.PutByte(b, '}')
		}
	}
	w.Body = wire.PutByte(b, ']')
	w.Status = 200
	s.common(w, s.op.Cache)
	w.SetHeader("etag", etag)
	return nil
}

// calendarETag returns the strong ETag of a calendar answer from its inputs: the
// catalog's version, the inventory version, New Zealand's date (the date rules depend
// on it) and every parsed parameter. The same inputs give the same bytes.
func (s *Server) calendarETag(sr *rental.Search, earliest, latest rental.Date, lengths []int) string {
	k := wire.Put(s.etagKey[:0], "cal:")
	k = wire.AppendInt(k, sr.PickUpDepot)
	k = wire.PutByte(k, ':')
	k = wire.AppendInt(k, sr.DropOffDepot)
	k = wire.PutByte(k, ':')
	k = earliest.AppendTo(k)
	k = latest.AppendTo(k)
	k = sr.Today.AppendTo(k)
	for _, n := range lengths {
		k = wire.PutByte(k, ',')
		k = wire.AppendInt(k, int64(n))
	}
	f := &s.filter
	k = wire.PutByte(k, ':')
	k = wire.AppendInt(k, int64(f.MinBerths))
	k = wire.PutByte(k, ':')
	k = wire.Put(k, f.Transmission)
	k = wire.PutByte(k, ':')
	k = wire.Put(k, f.Class)
	k = wire.PutByte(k, ':')
	k = wire.AppendInt(k, f.MaxTotalCents)
	k = wire.PutByte(k, ':')
	k = wire.AppendInt(k, f.VehicleID)
	s.etagKey = k
	h := wire.FNV64a(wire.FNVOffset, s.cat.Version())
	h = wire.FNV64a(h, s.invVersion)
	h = wire.FNV64a(h, wire.BytesString(k))
	s.searchETag = wire.PutByte(wire.AppendHex64(wire.PutByte(s.searchETag[:0], '"'), h), '"')
	return wire.BytesString(s.searchETag)
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
// longest hire without a leading zero, no repeats; returned ascending in s.lengths.
func (s *Server) calendarDays() ([]int, *rental.Error) {
	raw, ok := s.q.get("days")
	if !ok {
		return nil, rental.InvalidCode(rental.CodeMissingParameter, "days", "missing required query parameter days (a hire length in days, such as 10, or a comma list of up to 4, such as 7,10,14)")
	}
	max := s.cat.MaxHireDays()
	ls := s.lengths[:0]
	for v := raw; ; {
		item := v
		i := strings.IndexByte(v, ',')
		if i >= 0 {
			item, v = v[:i], v[i+1:]
		}
		n, j := wire.ScanDigits(item, int64(max)+1)
		if item == "" || item[0] == '0' || j != len(item) || n < 1 || n > int64(max) { // no leading zero: the pattern of openapi.json
			return nil, rental.Invalid("days", "query parameter days must be hire lengths from 1 to "+string(wire.AppendInt(nil, int64(max)))+" days, one or a comma list such as 7,10,14, got "+wire.QuoteClean(raw))
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
	s.lengths = ls
	return ls, nil
}

// suggestParams adds one suggestion: the current operation with the date parameter k1
// set to v1 (and k2 to v2 when k2 is not ""), every other parameter as given.
func (s *Server) suggestParams(k1 string, v1 rental.Date, k2 string, v2 rental.Date, reason string) {
	if len(s.sugg) == cap(s.sugg) {
		s.sugg = append(s.sugg, suggestion{})
	} else {
		s.sugg = s.sugg[:len(s.sugg)+1]
	}
	g := &s.sugg[len(s.sugg)-1]
	b := wire.Put(g.url[:0], s.op.Path)
	sep := byte('?')
	for i := 0; i < s.q.n; i++ {
		p := &s.q.p[i]
		if p.val == "" {
			continue
		}
		b = append(b, sep)
		sep = '&'
		b = appendQueryEscape(b, p.key)
		b = wire.PutByte(b, '=')
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
