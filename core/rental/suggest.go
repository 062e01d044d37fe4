package rental

import (
	"strconv"

	"github.com/campervan/agent-api/core/text"
)

// Alternative is a way forward from a refused search or quote: criteria near the
// refused ones that the catalog accepts. Alternatives verifies every one it returns
// (the search passes every check; the quote, with the same extras, is priced), so a
// client that follows one gets an answer, not another error.
type Alternative struct {
	Search    Search
	VehicleID int64 // the vehicle of a quote (0 for a search)
	Reason    string
}

// maxAlternatives bounds the alternatives of one error.
const maxAlternatives = 5

// how far (days) alternatives look for other dates
const (
	nearDays   = 14 // a closed depot, the notice period, the calendar's edges
	bookedDays = 60 // a booked-out vehicle
)

// Alternatives appends to dst[:0] up to maxAlternatives alternatives to q for err, the
// error Availability (quote false) or Quote (quote true) returned for it. Errors it
// knows no way forward for get none.
func (c *Catalog) Alternatives(q QuoteRequest, quote bool, err *Error, dst []Alternative) []Alternative {
	dst = dst[:0]
	if err == nil {
		return dst
	}
	x := altCtx{c: c, q: q, quote: quote, dst: dst}
	s := q.Search
	days := int(s.DropOff) - int(s.PickUp) + 1
	switch err.Code {
	case CodeDepotClosed:
		if err.Param == "pick_up_date" {
			x.shiftNearest(s, days, nearDays, "%[1]s is open on %[2]s: the same %[4]d-day hire from %[2]s to %[3]s")
		} else {
			x.dropNearest(s, nearDays)
		}
	case CodeDateInPast, CodeNoticePeriod:
		x.earliestPickUp(s, days)
	case CodeTooFarAhead, CodeNoRates:
		if err.Param == "drop_off_date" {
			_, last := c.CalendarRange()
			x.dropBack(s, last)
		} else {
			x.latestPickUp(s, days)
		}
	case CodeTooLong:
		x.dropBack(s, s.PickUp.AddDays(c.maxHire-1))
	case CodeDateOrder:
		t := s
		t.PickUp, t.DropOff = s.DropOff, s.PickUp
		x.try(t, q.VehicleID, text.Sprintf("the dates the other way round: from %s to %s", t.PickUp, t.DropOff))
	case CodeRouteNotOffered:
		x.dropDepots(s)
	case CodeUnknownID:
		x.otherID(s, err.Param)
	case CodeMinHire:
		x.minimumHire(s)
		x.otherVehicles(s, q.VehicleID)
	case CodeBookedOut:
		x.shiftNearest(s, days, bookedDays, "the vehicle is free for the same %[4]d days from %[2]s to %[3]s")
		x.otherVehicles(s, q.VehicleID)
	case CodeNotBasedHere:
		x.pickUpWhereBased(s)
		x.otherVehicles(s, q.VehicleID)
	}
	return x.dst
}

type altCtx struct {
	c     *Catalog
	q     QuoteRequest
	quote bool
	dst   []Alternative
	scr   Quote
	sc    searchCtx // check's context, not read
}

// try appends t (with vehicle v for a quote) when there is room and it is accepted.
func (x *altCtx) try(t Search, v int64, reason string) bool {
	if len(x.dst) >= maxAlternatives {
		return false
	}
	for _, a := range x.dst {
		if a.Search == t && a.VehicleID == v {
			return false
		}
	}
	if x.quote {
		r := x.q
		r.Search, r.VehicleID = t, v
		x.scr.Accessories = x.scr.Accessories[:0]
		if x.c.Quote(&r, &x.scr) != nil {
			return false
		}
	} else if err := x.c.check(&t, &x.sc); err != nil {
		return false
	}
	x.dst = append(x.dst, Alternative{Search: t, VehicleID: v, Reason: reason})
	return true
}

// hireReason formats f with the pick-up depot, the new dates and the length.
func (x *altCtx) hireReason(f string, t Search, days int) string {
	name := strconv.FormatInt(t.PickUpDepot, 10)
	if d := x.c.Depot(t.PickUpDepot); d != nil {
		name = depotRef(d)
	}
	return text.Sprintf(f, name, t.PickUp, t.DropOff, days)
}

// shiftNearest moves the whole hire (same length) to the nearest accepted start
// before and the nearest after, looking at most span days each way.
func (x *altCtx) shiftNearest(s Search, days, span int, f string) {
	for _, dir := range [2]int{-1, 1} {
		for k := 1; k <= span; k++ {
			t := s
			t.PickUp, t.DropOff = s.PickUp.AddDays(dir*k), s.DropOff.AddDays(dir*k)
			if x.try(t, x.q.VehicleID, x.hireReason(f, t, days)) {
				break
			}
		}
	}
}

// firstFrom moves the whole hire to start at start, or the first accepted day from
// there in direction dir.
func (x *altCtx) firstFrom(s Search, start Date, days, dir int, f string) {
	for k := 0; k <= nearDays; k++ {
		t := s
		t.PickUp = start.AddDays(dir * k)
		t.DropOff = t.PickUp.AddDays(days - 1)
		if x.try(t, x.q.VehicleID, x.hireReason(f, t, days)) {
			return
		}
	}
}

// dropNearest moves only the drop-off date to the nearest accepted day before and after.
func (x *altCtx) dropNearest(s Search, span int) {
	for _, dir := range [2]int{-1, 1} {
		for k := 1; k <= span; k++ {
			t := s
			t.DropOff = s.DropOff.AddDays(dir * k)
			if x.try(t, x.q.VehicleID, text.Sprintf("drop off on %s, when the depot is open", t.DropOff)) {
				break
			}
		}
	}
}

// dropBack moves the drop-off date to latest, or the first accepted day before it.
func (x *altCtx) dropBack(s Search, latest Date) {
	for k := 0; k <= nearDays; k++ {
		t := s
		t.DropOff = latest.AddDays(-k)
		if x.try(t, x.q.VehicleID, text.Sprintf("the longest hire possible from %s: to %s", t.PickUp, t.DropOff)) {
			return
		}
	}
}

// dropDepots tries the drop-off depots reachable from the pick-up depot, the same
// depot first.
func (x *altCtx) dropDepots(s Search) {
	c := x.c
	pi, ok := c.depotIdx.find(s.PickUpDepot)
	if !ok {
		return
	}
	t := s
	t.DropOffDepot = s.PickUpDepot
	x.try(t, x.q.VehicleID, text.Sprintf("a round trip: drop off at %s too", depotRef(&c.depots[pi])))
	nd := len(c.depots)
	for j := range c.depots {
		if !c.depotX[j].active || c.routeFee[int(pi)*nd+j] < 0 {
			continue
		}
		t.DropOffDepot = c.depots[j].ID
		x.try(t, x.q.VehicleID, text.Sprintf("one-way to %s is offered", depotRef(&c.depots[j])))
	}
}

// otherVehicles adds, for a quote, the cheapest other vehicles free for s.
func (x *altCtx) otherVehicles(s Search, not int64) {
	if !x.quote {
		return
	}
	offers, err := x.c.AvailabilityFiltered(s, &noFilter, nil)
	if err != nil {
		return
	}
	// cheapest first (a few vehicles: insertion sort, stable)
	for i := 1; i < len(offers); i++ {
		for j := i; j > 0 && offers[j].TotalCents < offers[j-1].TotalCents; j-- {
			offers[j], offers[j-1] = offers[j-1], offers[j]
		}
	}
	for _, o := range offers {
		if o.Vehicle.ID == not {
			continue
		}
		x.try(s, o.Vehicle.ID, text.Sprintf("the %s (vehicle %d) is free for the same dates", o.Vehicle.Name, o.Vehicle.ID))
	}
}

// earliestPickUp moves the whole hire to the earliest pick-up the notice period of the
// pick-up depot allows, or the first accepted day after it.
func (x *altCtx) earliestPickUp(s Search, days int) {
	start := s.Today
	if pi, ok := x.c.depotIdx.find(s.PickUpDepot); ok {
		start = start.AddDays(x.c.depotX[pi].notice)
	}
	x.firstFrom(s, start, days, 1, "the earliest pick-up possible: the same %[4]d-day hire from %[2]s to %[3]s")
}

// latestPickUp moves the whole hire to the latest pick-up the booking horizon and the
// calendar allow, or the first accepted day before it.
func (x *altCtx) latestPickUp(s Search, days int) {
	_, last := x.c.CalendarRange()
	latest := s.Today.AddDays(x.c.maxAdvance)
	if last < latest {
		latest = last
	}
	x.firstFrom(s, latest, days, -1, "the latest pick-up possible: the same %[4]d-day hire from %[2]s to %[3]s")
}

// otherID replaces the unknown id of param: another pick-up depot, drop-off depot or
// vehicle.
func (x *altCtx) otherID(s Search, param string) {
	switch param {
	case "pick_up_depot_id":
		c := x.c
		for i := range c.active {
			t := s
			t.PickUpDepot = c.active[i].ID
			x.try(t, x.q.VehicleID, text.Sprintf("pick up at %s", depotRef(&c.active[i])))
		}
	case "drop_off_depot_id":
		x.dropDepots(s)
	case "vehicle_id":
		x.otherVehicles(s, 0)
	}
}

// minimumHire lengthens the hire to the vehicle's minimum for the season of the
// pick-up day, or the first accepted length above it.
func (x *altCtx) minimumHire(s Search) {
	c := x.c
	first, _ := c.CalendarRange()
	vi, ok := c.vehicleIdx.find(x.q.VehicleID)
	i := int(s.PickUp) - int(first)
	if !ok || i < 0 || i >= c.calDays {
		return
	}
	min := int(c.vehicleX[vi].minDays[c.seasonOf[i]])
	for k := 0; k < nearDays && len(x.dst) < 1; k++ {
		t := s
		t.DropOff = s.PickUp.AddDays(min - 1 + k)
		x.try(t, x.q.VehicleID, text.Sprintf("the minimum hire of %d days: from %s to %s", min, t.PickUp, t.DropOff))
	}
}

// pickUpWhereBased moves the pick-up (and a round trip's drop-off) to each active
// depot where the vehicle has a fleet.
func (x *altCtx) pickUpWhereBased(s Search) {
	c := x.c
	vi, ok := c.vehicleIdx.find(x.q.VehicleID)
	if !ok {
		return
	}
	nd := len(c.depots)
	for j := range c.depots {
		if !c.depotX[j].active || c.fleet[int(vi)*nd+j] == 0 {
			continue
		}
		t := s
		t.PickUpDepot = c.depots[j].ID
		if s.DropOffDepot == s.PickUpDepot {
			t.DropOffDepot = t.PickUpDepot
		}
		x.try(t, x.q.VehicleID, text.Sprintf("the vehicle is based at %s", depotRef(&c.depots[j])))
	}
}
