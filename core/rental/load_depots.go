package rental

// Loading depots.json (opening times, closed dates) and routes.json (one-way fees).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
)

// validTime reports whether s is "HH:MM" on a 24-hour clock.
func validTime(s string) bool {
	if len(s) != 5 || s[2] != ':' {
		return false
	}
	h, ok1 := twoOrFour(s[:2])
	m, ok2 := twoOrFour(s[3:])
	return ok1 && ok2 && h < 24 && m < 60
}

func (c *Catalog) loadDepots(root jsonv.Result) error {
	const file = "depots.json"
	rs, seen, err := idRecords(file, root, "")
	if err != nil {
		return err
	}
	for i, e := range rs {
		r, name, err := namedRecord(file, "", i, e, seen)
		if err != nil {
			return err
		}
		d, x, err := loadDepot(r, name, e)
		if err != nil {
			return err
		}
		c.depots = append(c.depots, d)
		c.depotX = append(c.depotX, x)
	}
	if len(c.depots) == 0 {
		return fmt.Errorf("%s: lists no depots", file)
	}
	c.sortDepots()
	return nil
}

// loadDepot reads depot record e (r, named name).
func loadDepot(r rec, name string, e jsonv.Result) (Depot, depotData, error) {
	d := Depot{ID: r.id, Name: name}
	var x depotData
	var err error
	if x.active, err = r.boolean(e, "active"); err != nil {
		return d, x, err
	}
	n, err := r.integer(e, "notice_days", 0, maxNoticeDays, "a non-negative integer (days)")
	if err != nil {
		return d, x, err
	}
	x.notice = int(n)
	if d.OpeningHours, err = r.str(e, "opening_hours_description"); err != nil {
		return d, x, err
	}
	if d.PickupTimes, err = timeSlots(r, e, "pickup_times"); err != nil {
		return d, x, err
	}
	if d.DropOffTimes, err = timeSlots(r, e, "drop_off_times"); err != nil {
		return d, x, err
	}
	x.closed, err = closedDates(r, e)
	return d, x, err
}

// timeSlots reads the array of times f of depot record e.
func timeSlots(r rec, e jsonv.Result, f string) ([]TimeSlot, error) {
	ts, err := r.array(e, f)
	if err != nil {
		return nil, err
	}
	slots := make([]TimeSlot, 0, len(ts))
	for j, t := range ts {
		tf, df := fmt.Sprintf("%s[%d].time", f, j), fmt.Sprintf("%s[%d].day", f, j)
		tm, day := t.Get("time"), t.Get("day")
		if tm.Type != jsonv.String || !validTime(tm.Str) {
			return nil, r.fail(tf, "must be a 24-hour time \"HH:MM\" (got %s)", orMissing(tm))
		}
		if day.Type != jsonv.String || (day.Str != "weekday" && day.Str != "weekend") {
			return nil, r.fail(df, "must be \"weekday\" or \"weekend\" (got %s)", orMissing(day))
		}
		slots = append(slots, TimeSlot{Time: tm.Str, Day: day.Str})
	}
	return slots, nil
}

// closedDates reads the closed dates of depot record e, sorted by date.
func closedDates(r rec, e jsonv.Result) ([]closure, error) {
	cds, err := r.array(e, "closed_dates")
	if err != nil {
		return nil, err
	}
	var closed []closure
	for j, cd := range cds {
		dv := cd.Get("date")
		day, ok := ParseDate(dv.Str)
		if dv.Type != jsonv.String || !ok {
			return nil, r.fail(fmt.Sprintf("closed_dates[%d].date", j), "must be a real calendar date \"YYYY-MM-DD\" (got %s)", orMissing(dv))
		}
		nv := cd.Get("name")
		if nv.Type != jsonv.String || strings.TrimSpace(nv.Str) == "" {
			return nil, r.fail(fmt.Sprintf("closed_dates[%d].name", j), "must be a non-empty string naming the holiday")
		}
		closed = append(closed, closure{date: day, name: nv.Str})
	}
	sort.SliceStable(closed, func(a, b int) bool { return closed[a].date < closed[b].date })
	return closed, nil
}

// sortDepots sorts the depots by id, keeping depots and depotX parallel, and makes
// the id index and the list of active depots.
func (c *Catalog) sortDepots() {
	ord := make([]int, len(c.depots))
	for i := range ord {
		ord[i] = i
	}
	sort.Slice(ord, func(a, b int) bool { return c.depots[ord[a]].ID < c.depots[ord[b]].ID })
	ds, xs := make([]Depot, len(ord)), make([]depotData, len(ord))
	ids := make([]int64, len(ord))
	for i, o := range ord {
		ds[i], xs[i] = c.depots[o], c.depotX[o]
		ids[i] = ds[i].ID
		if xs[i].active {
			c.active = append(c.active, ds[i])
		}
	}
	c.depots, c.depotX, c.depotIdx = ds, xs, newIDIndex(ids)
}

func (c *Catalog) loadRoutes(root jsonv.Result) error {
	const file = "routes.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	top := rec{file: file, idx: -1}
	w, err := top.integer(root, "waiver_min_days", 0, maxPolicyDays, "a non-negative integer (days; 0 for no waiver)")
	if err != nil {
		return err
	}
	c.waiver = int(w)
	rs, err := records(file, root, "routes")
	if err != nil {
		return err
	}
	nd := len(c.depots)
	c.routeFee = make([]int64, nd*nd)
	for i := range c.routeFee {
		c.routeFee[i] = -1
	}
	for i := 0; i < nd; i++ {
		c.routeFee[i*nd+i] = 0
	}
	for i, e := range rs {
		r := rec{file: file, list: "routes", idx: i}
		var idx [2]int32
		for k, f := range []string{"from_depot_id", "to_depot_id"} {
			id, err := r.integer(e, f, 1, 1<<53, "a depot id")
			if err != nil {
				return err
			}
			di, ok := c.depotIdx.find(id)
			if !ok {
				return r.fail(f, "depot %d does not exist in depots.json", id)
			}
			idx[k] = di
		}
		if idx[0] == idx[1] {
			return r.fail("to_depot_id", "must differ from from_depot_id (a same-depot hire has no route fee)")
		}
		fee, err := r.integer(e, "fee_cents", 0, maxPriceCents, "a non-negative integer (cents)")
		if err != nil {
			return err
		}
		p := int(idx[0])*nd + int(idx[1])
		if c.routeFee[p] >= 0 {
			return r.fail("to_depot_id", "duplicate route from depot %d to depot %d", c.depots[idx[0]].ID, c.depots[idx[1]].ID)
		}
		c.routeFee[p] = fee
	}
	return nil
}
