package rental

import (
	"strconv"
	"strings"

	"github.com/campervan/agent-api/core/text"
)

// A search is checked in this order; the first failing rule is reported:
// pick-up depot, drop-off depot, the one-way route (checkRoute: what holds for every
// date), date order, pick-up in the past, the pick-up depot's notice days,
// MaxAdvanceDays, the season calendar's range, MaxHireDays (checkDates), and depot
// closures (pick-up then drop-off).
//
// Hire days count both the pick-up and the drop-off day (drop_off - pick_up + 1),
// the "calendar day" basis New Zealand campervan operators charge on.

// searchCtx is a Search resolved against the Catalog.
type searchCtx struct {
	pd, dd int // depot indices
	a, b   int // calendar day indices of pick-up and drop-off
	days   int
	season int // season index of the pick-up day
	route  int64
	counts [maxSeasons]int32 // hire days per season
}

// CheckSearch returns nil when the criteria that do not depend on a vehicle are
// acceptable, else a KindInvalid error naming the offending parameter.
func (c *Catalog) CheckSearch(s Search) *Error {
	var sc searchCtx
	return c.check(&s, &sc)
}

func depotRef(d *Depot) string {
	return d.Name + " (depot " + strconv.FormatInt(d.ID, 10) + ")"
}

// choices lists n items as "1 (Auckland Airport), 2 (...)"; item returns the id and
// name of the i-th. It builds every "use one of these ids" list of the messages.
func choices(n int, item func(i int) (int64, string)) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		id, name := item(i)
		b.WriteString(text.Sprintf("%d (%s)", id, name))
	}
	return b.String()
}

// depotChoices lists the active depots.
func (c *Catalog) depotChoices() string {
	return choices(len(c.active), func(i int) (int64, string) { return c.active[i].ID, c.active[i].Name })
}

// closedOn returns the closure of depot index di on d, or nil.
func (c *Catalog) closedOn(di int, d Date) *closure {
	cs := c.depotX[di].closed
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].date < d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && cs[lo].date == d {
		return &cs[lo]
	}
	return nil
}

// openNear returns the nearest days before and after d on which depot di is open.
func (c *Catalog) openNear(di int, d Date) (before, after Date) {
	before, after = d-1, d+1
	for i := 0; i < 30 && c.closedOn(di, before) != nil; i++ {
		before--
	}
	for i := 0; i < 30 && c.closedOn(di, after) != nil; i++ {
		after++
	}
	return before, after
}

// check checks s and fills sc, its context for the search's loops. Both by pointer:
// TinyGo passes and returns a struct by value through a copy in linear memory, each
// word a checked load and store in workerd.
func (c *Catalog) check(s *Search, sc *searchCtx) *Error {
	pi, di, fee, err := c.checkRoute(s)
	if err != nil {
		return err
	}
	if err := c.checkDates(s.PickUp, s.DropOff, s.Today, c.depotX[pi].notice, &c.depots[pi]); err != nil {
		return err
	}
	if c.closedOn(pi, s.PickUp) != nil || c.closedOn(di, s.DropOff) != nil {
		return c.closedError(pi, di, s)
	}
	days := int(s.DropOff) - int(s.PickUp) + 1
	first, _ := c.CalendarRange()
	sc.pd, sc.dd = pi, di
	sc.a, sc.b = int(s.PickUp)-int(first), int(s.DropOff)-int(first)
	sc.days = days
	sc.season = int(c.seasonOf[sc.a])
	if days >= c.waiver && c.waiver > 0 {
		fee = 0
	}
	sc.route = fee
	n1 := c.calDays + 1
	for k := range c.seasonNames {
		sc.counts[k] = c.seasonPre[k*n1+sc.b+1] - c.seasonPre[k*n1+sc.a]
	}
	return nil
}

// closedError reports the closure check's failure: the pick-up depot closed on the
// pick-up date, else the drop-off depot on the drop-off date.
//
// The messages of the checks are built out of line (here, dateError and routeError):
// V8 compiles a function whole on its first call, and text.Sprintf with its boxed
// arguments would otherwise be most of check, checkDates and checkRoute, compiled by
// every isolate's first search.
//
//go:noinline
func (c *Catalog) closedError(pi, di int, s *Search) *Error {
	if cl := c.closedOn(pi, s.PickUp); cl != nil {
		b, a := c.openNear(pi, s.PickUp)
		return InvalidCode(CodeDepotClosed, "pick_up_date", text.Sprintf("%s is closed on pick_up_date %s (%s); choose another pick_up_date, for example %s or %s.", depotRef(&c.depots[pi]), s.PickUp, cl.name, b, a))
	}
	cl := c.closedOn(di, s.DropOff)
	b, a := c.openNear(di, s.DropOff)
	return InvalidCode(CodeDepotClosed, "drop_off_date", text.Sprintf("%s is closed on drop_off_date %s (%s); choose another drop_off_date, for example %s or %s.", depotRef(&c.depots[di]), s.DropOff, cl.name, b, a))
}

// CheckHireDates applies the hire-date rules that need no depot to a pick-up and a
// drop-off date: the order of the dates, not in the past, at most MaxAdvanceDays ahead,
// inside the published rates, at most MaxHireDays long. Searches and quotes apply the
// same rules (plus the depot's notice days and closures); the dated accessory and
// insurance lists apply these.
func (c *Catalog) CheckHireDates(pickUp, dropOff, today Date) *Error {
	return c.checkDates(pickUp, dropOff, today, 0, nil)
}

// checkDates is the one place of the hire-date rules, in the order they are reported:
// date order, past, the pick-up depot's notice days (pd, when not nil), how far ahead,
// the published rates, the hire length.
func (c *Catalog) checkDates(pickUp, dropOff, today Date, notice int, pd *Depot) *Error {
	if r := c.dateRule(pickUp, dropOff, today, notice, pd); r != dateOK {
		return c.dateError(r, pickUp, dropOff, today, notice, pd)
	}
	return nil
}

// The hire-date rules, in the order checkDates reports them.
const (
	dateOK = iota
	dateOrder
	datePast
	dateNotice
	dateTooFar
	dateNoRatesPickUp
	dateNoRatesDropOff
	dateTooLong
)

// dateRule returns the first hire-date rule the dates break, or dateOK.
func (c *Catalog) dateRule(pickUp, dropOff, today Date, notice int, pd *Depot) int {
	first, last := c.CalendarRange()
	switch {
	case dropOff < pickUp:
		return dateOrder
	case pickUp < today:
		return datePast
	case pd != nil && int(pickUp)-int(today) < notice:
		return dateNotice
	case int(pickUp)-int(today) > c.maxAdvance:
		return dateTooFar
	case pickUp < first || pickUp > last:
		return dateNoRatesPickUp
	case dropOff > last:
		return dateNoRatesDropOff
	case int(dropOff)-int(pickUp)+1 > c.maxHire:
		return dateTooLong
	}
	return dateOK
}

// dateError is the error of hire-date rule r.
//
//go:noinline
func (c *Catalog) dateError(r int, pickUp, dropOff, today Date, notice int, pd *Depot) *Error {
	first, last := c.CalendarRange()
	switch r {
	case dateOrder:
		return InvalidCode(CodeDateOrder, "drop_off_date", text.Sprintf("drop_off_date %s is before pick_up_date %s; drop_off_date must be on or after pick_up_date (a same-day hire counts as 1 day).", dropOff, pickUp))
	case datePast:
		return InvalidCode(CodeDateInPast, "pick_up_date", text.Sprintf("pick_up_date %s is in the past; today in New Zealand is %s. Choose a pick_up_date on or after %s.", pickUp, today, today.AddDays(notice)))
	case dateNotice:
		n := "1 day's"
		if notice != 1 {
			n = strconv.Itoa(notice) + " days'"
		}
		return InvalidCode(CodeNoticePeriod, "pick_up_date", text.Sprintf("pick_up_date %s is too soon: %s needs %s notice, so the earliest pick_up_date there is %s (today in New Zealand is %s).", pickUp, depotRef(pd), n, today.AddDays(notice), today))
	case dateTooFar:
		return InvalidCode(CodeTooFarAhead, "pick_up_date", text.Sprintf("pick_up_date %s is too far ahead: hires can be booked at most %d days ahead, so the latest pick_up_date is %s.", pickUp, c.maxAdvance, today.AddDays(c.maxAdvance)))
	case dateNoRatesPickUp:
		return InvalidCode(CodeNoRates, "pick_up_date", text.Sprintf("pick_up_date %s has no published rates yet; rates are published for %s to %s.", pickUp, first, last))
	case dateNoRatesDropOff:
		return InvalidCode(CodeNoRates, "drop_off_date", text.Sprintf("drop_off_date %s has no published rates yet; rates are published up to %s, so choose a drop_off_date on or before %s.", dropOff, last, last))
	}
	days := int(dropOff) - int(pickUp) + 1
	return InvalidCode(CodeTooLong, "drop_off_date", text.Sprintf("the hire from %s to %s is %d days, longer than the maximum of %d days (both the pick-up and the drop-off day count); choose a drop_off_date on or before %s.", pickUp, dropOff, days, c.maxHire, pickUp.AddDays(c.maxHire-1)))
}

// CheckRoute checks what of a search holds for every date: both depots exist and are
// active, and the route between them is offered. The calendar checks it once.
func (c *Catalog) CheckRoute(s Search) *Error {
	_, _, _, err := c.checkRoute(&s)
	return err
}

// checkRoute returns the depot indices and the route fee (before any waiver).
func (c *Catalog) checkRoute(s *Search) (pi, di int, fee int64, err *Error) {
	p, ok := c.depotIdx.find(s.PickUpDepot)
	d, ok2 := c.depotIdx.find(s.DropOffDepot)
	if ok && ok2 && c.depotX[p].active && c.depotX[d].active {
		pi, di = int(p), int(d)
		if fee = c.routeFee[pi*len(c.depots)+di]; fee >= 0 {
			return pi, di, fee, nil
		}
	}
	return 0, 0, 0, c.routeError(s)
}

// routeError reports checkRoute's failure: the pick-up depot, else the drop-off
// depot, else the route between them.
//
//go:noinline
func (c *Catalog) routeError(s *Search) *Error {
	refs := s.refs()
	p, ok := c.depotIdx.find(s.PickUpDepot)
	if !ok || !c.depotX[p].active {
		return InvalidCode(CodeUnknownID, "pick_up_depot_id", text.Sprintf("pick_up_depot_id %d is not an active depot; use one of the ids listed by %s: %s.", s.PickUpDepot, refs.Depots, c.depotChoices()))
	}
	d, ok := c.depotIdx.find(s.DropOffDepot)
	if !ok || !c.depotX[d].active {
		return InvalidCode(CodeUnknownID, "drop_off_depot_id", text.Sprintf("drop_off_depot_id %d is not an active depot; use one of the ids listed by %s: %s.", s.DropOffDepot, refs.Depots, c.depotChoices()))
	}
	pi, di := int(p), int(d)
	return InvalidCode(CodeRouteNotOffered, "drop_off_depot_id", text.Sprintf("one-way hires from %s to %s are not offered; choose a drop_off_depot_id from: %s.", depotRef(&c.depots[pi]), depotRef(&c.depots[di]), c.routesFrom(pi)))
}

// routesFrom lists the active drop-off depots reachable from depot index pi.
func (c *Catalog) routesFrom(pi int) string {
	nd := len(c.depots)
	var b strings.Builder
	for j := range c.depots {
		if !c.depotX[j].active || c.routeFee[pi*nd+j] < 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(text.Sprintf("%d (%s", c.depots[j].ID, c.depots[j].Name))
		if j == pi {
			b.WriteString(", same depot")
		}
		b.WriteByte(')')
	}
	return b.String()
}

// blockedIn returns the first span of pair p that overlaps day indices [a, b],
// or nil when some unit is free on every one of those days.
func (c *Catalog) blockedIn(p, a, b int) *span {
	inv := c.inv
	if inv == nil || p < 0 || p+1 >= len(inv.blockOff) {
		return nil
	}
	ss := inv.blocked[inv.blockOff[p]:inv.blockOff[p+1]]
	lo, hi := 0, len(ss)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(ss[m].to) < a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ss) && int(ss[lo].from) <= b {
		return &ss[lo]
	}
	return nil
}

// rental returns the rental fee of vehicle index vi for the resolved search:
// the sum over hire days of each day's season rate.
//
//go:inline
func (c *Catalog) rental(vi int, sc *searchCtx) int64 {
	return rentalOf(&c.vehicleX[vi], &sc.counts, min(len(c.seasonNames), maxSeasons))
}

// rentalOf is rental on what it reads: the vehicle's rates, the hire days per season
// and the number of seasons (offers passes its locals).
//
//go:inline
func rentalOf(x *vehicleData, counts *[maxSeasons]int32, ns int) int64 {
	var sum int64
	for k := 0; k < ns; k++ {
		sum += x.rates[k] * int64(counts[k])
	}
	return sum
}

// dailyRate returns rental/days rounded half up to the cent.
func dailyRate(rental int64, days int) int64 {
	if days <= 0 || rental <= 0 {
		return 0
	}
	d := int64(days)
	q, r := rental/d, rental%d
	if 2*r >= d {
		q++
	}
	return q
}

// available reports whether vehicle index vi can be hired for sc.
//
//go:inline
func (c *Catalog) available(vi int, sc *searchCtx) bool {
	return c.availableAt(&c.vehicleX[vi], c.fleet, vi*len(c.depots)+sc.pd, sc.days, sc.season, sc.a, sc.b)
}

// availableAt is available on what it reads: the vehicle, the fleet table and its
// index p (vehicle x pick-up depot), the hire's days, season and day range (offers
// passes its locals).
//
//go:inline
func (c *Catalog) availableAt(x *vehicleData, fleet []int32, p, days, season, a, b int) bool {
	return fleet[p] > 0 && int32(days) >= x.minDays[season] && c.blockedIn(p, a, b) == nil
}

// Availability checks s and appends to dst[:0] one Offer per available vehicle,
// sorted by vehicle id. A vehicle is available when the hire is at least its
// minimum hire days for the pick-up day's season and on every hire day its fleet
// at the pick-up depot exceeds the units booked that day.
func (c *Catalog) Availability(s Search, dst []Offer) ([]Offer, *Error) {
	return c.AvailabilityFiltered(s, &noFilter, dst)
}

var noFilter Filter

// AvailabilityFiltered is Availability keeping only the offers that pass f.
func (c *Catalog) AvailabilityFiltered(s Search, f *Filter, dst []Offer) ([]Offer, *Error) {
	dst = dst[:0]
	var sc searchCtx
	err := c.check(&s, &sc)
	if err != nil {
		return dst, err
	}
	return c.offers(&sc, f, dst), nil
}

// offers appends the available vehicles of a resolved search that pass f. It is
// available and rental over every vehicle (availableAt, rentalOf), with what they read
// from c and sc taken into locals first: a store into dst may alias any field as far as
// the compiler knows, so a field would be loaded (and bounds-checked by V8) again for
// every vehicle. TestOffersMatchAvailable holds it to available and rental.
func (c *Catalog) offers(sc *searchCtx, f *Filter, dst []Offer) []Offer {
	vx, vs, fleet := c.vehicleX, c.vehicles, c.fleet
	nd, pd, season, days := len(c.depots), sc.pd, sc.season, sc.days
	a, b, route := sc.a, sc.b, sc.route
	counts := sc.counts
	ns := min(len(c.seasonNames), maxSeasons)
	if len(vs) < len(vx) || season < 0 || season >= maxSeasons {
		return dst
	}
	for vi := range vx {
		x := &vx[vi]
		p := vi*nd + pd
		if !c.availableAt(x, fleet, p, days, season, a, b) {
			continue
		}
		r := rentalOf(x, &counts, ns)
		total := satAdd(r, route)
		v := &vs[vi]
		if !f.Keep(v, total) {
			continue
		}
		// Written in place once dst has room (it is kept between requests): under TinyGo
		// an append is a call whose copy V8 runs as a call out to C (bytebuf.Put).
		n := len(dst)
		if n == cap(dst) {
			dst = append(dst, Offer{})
		} else {
			dst = dst[:n+1]
		}
		o := &dst[n]
		o.Vehicle, o.Index, o.Days = v, vi, days
		o.RentalCents, o.DailyRateCents, o.RouteCents, o.TotalCents = r, dailyRate(r, days), route, total
	}
	return dst
}

// Unavailable returns "" when the vehicle can be hired for s, else the reason as
// a sentence (an invalid search, an unknown vehicle, no fleet at the pick-up
// depot, the minimum hire, or the dates on which it is booked out).
func (c *Catalog) Unavailable(s Search, vehicleID int64) string {
	var sc searchCtx
	err := c.check(&s, &sc)
	if err != nil {
		return err.Message
	}
	vi, ok := c.vehicleIdx.find(vehicleID)
	if !ok {
		return text.Sprintf("vehicle_id %d is not a vehicle; use a vehicleId returned by %s.", vehicleID, s.refs().Vehicles)
	}
	_, msg := c.reason(int(vi), &sc)
	return msg
}

// reason returns the code and the sentence of why vehicle index vi cannot be hired for
// sc ("" when it can).
func (c *Catalog) reason(vi int, sc *searchCtx) (code, msg string) {
	v := &c.vehicles[vi]
	x := &c.vehicleX[vi]
	nd := len(c.depots)
	name := text.Sprintf("The %s (vehicle %d)", v.Name, v.ID)
	pd := &c.depots[sc.pd]
	p := vi*nd + sc.pd
	if c.fleet[p] == 0 {
		var at []string
		for j := range c.depots {
			if c.depotX[j].active && c.fleet[vi*nd+j] > 0 {
				at = append(at, depotRef(&c.depots[j]))
			}
		}
		where := "no active depot"
		if len(at) > 0 {
			where = strings.Join(at, ", ")
		}
		return CodeNotBasedHere, text.Sprintf("%s is not based at %s, so it cannot be picked up there; it can be picked up at %s.", name, depotRef(pd), where)
	}
	first, _ := c.CalendarRange()
	pickUp := first.AddDays(sc.a)
	if min := int(x.minDays[sc.season]); sc.days < min {
		return CodeMinHire, text.Sprintf("%s needs a minimum hire of %d days for pick-ups in the %s season; this hire is %d days (both the pick-up and the drop-off day count). Choose a drop_off_date on or after %s.",
			name, min, c.seasonNames[sc.season], sc.days, pickUp.AddDays(min-1))
	}
	if sp := c.blockedIn(p, sc.a, sc.b); sp != nil {
		day := int(sp.from)
		if day < sc.a {
			day = sc.a
		}
		return CodeBookedOut, text.Sprintf("%s is booked out at %s on %s: every unit there is hired from %s to %s. Try other dates or another pick-up depot.",
			name, depotRef(pd), first.AddDays(day), first.AddDays(int(sp.from)), first.AddDays(int(sp.to)))
	}
	return "", ""
}
