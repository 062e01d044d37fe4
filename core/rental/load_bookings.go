package rental

// Loading bookings.json: the bundled bookings as an Inventory.

import "github.com/campervan/agent-api/core/jsonv"

type booking struct {
	pair     int32
	from, to int32 // calendar day indices, clipped
	units    int32
}

func (c *Catalog) loadBookings(root jsonv.Result) error {
	bs, n, err := c.parseBookings("bookings.json", "", root)
	if err != nil {
		return err
	}
	c.fleetHash = c.referenceHash()
	inv := c.newInventory(bs, n, "", "bundled data/bookings.json")
	inv.version = "bundled-" + blobVersion(c.EncodeInventory(inv))
	c.inv = inv
	return nil
}

// parseBookings validates the booking records of file (the array list of root, or root
// itself when list is "") against the catalog and returns them clipped to the season
// calendar, with the number of records. Errors name the file, the record and the field.
func (c *Catalog) parseBookings(file, list string, root jsonv.Result) ([]booking, int, error) {
	rs, seen, err := idRecords(file, root, list)
	if err != nil {
		return nil, 0, err
	}
	nd := len(c.depots)
	bs := make([]booking, 0, len(rs))
	for i, e := range rs {
		r, err := recordID(file, list, i, e, seen)
		if err != nil {
			return nil, 0, err
		}
		vid, err := r.integer(e, "vehicle_id", 1, 1<<53, "a vehicle id")
		if err != nil {
			return nil, 0, err
		}
		vi, ok := c.vehicleIdx.find(vid)
		if !ok {
			return nil, 0, r.fail("vehicle_id", "vehicle %d does not exist in vehicles.json", vid)
		}
		did, err := r.integer(e, "depot_id", 1, 1<<53, "a depot id")
		if err != nil {
			return nil, 0, err
		}
		di, ok := c.depotIdx.find(did)
		if !ok {
			return nil, 0, r.fail("depot_id", "depot %d does not exist in depots.json", did)
		}
		pair := int(vi)*nd + int(di)
		if c.fleet[pair] == 0 {
			return nil, 0, r.fail("depot_id", "vehicle %d has no fleet at depot %d (see vehicles.json fleet)", vid, did)
		}
		from, err := r.date(e, "pick_up_date")
		if err != nil {
			return nil, 0, err
		}
		to, err := r.date(e, "drop_off_date")
		if err != nil {
			return nil, 0, err
		}
		if to < from {
			return nil, 0, r.fail("drop_off_date", "must not be before pick_up_date (%s)", from)
		}
		u, err := r.integer(e, "units", 1, maxUnits, "a positive integer")
		if err != nil {
			return nil, 0, err
		}
		// Clip to the calendar; a booking wholly outside it cannot affect a search.
		a, b := int(from)-int(c.calStart), int(to)-int(c.calStart)
		if b < 0 || a >= c.calDays {
			continue
		}
		if a < 0 {
			a = 0
		}
		if b >= c.calDays {
			b = c.calDays - 1
		}
		bs = append(bs, booking{pair: int32(pair), from: int32(a), to: int32(b), units: int32(u)})
	}
	return bs, len(rs), nil
}

// newInventory turns bookings into an Inventory: per (vehicle, depot) pair, the sorted
// spans of days on which the booked units reach the fleet.
func (c *Catalog) newInventory(bs []booking, records int, asOf, source string) *Inventory {
	np := len(c.fleet)
	// Counting sort of the bookings by pair.
	start := make([]int32, np+1)
	for _, b := range bs {
		start[b.pair+1]++
	}
	for p := 0; p < np; p++ {
		start[p+1] += start[p]
	}
	sorted := make([]booking, len(bs))
	fill := make([]int32, np)
	copy(fill, start[:np])
	for _, b := range bs {
		sorted[fill[b.pair]] = b
		fill[b.pair]++
	}
	inv := &Inventory{asOf: asOf, source: source, bookings: records, blockOff: make([]int32, np+1)}
	diff := make([]int64, c.calDays+1)
	for p := 0; p < np; p++ {
		inv.blockOff[p] = int32(len(inv.blocked))
		group := sorted[start[p]:start[p+1]]
		if len(group) == 0 {
			continue
		}
		lo, hi := int32(c.calDays), int32(0)
		for _, b := range group {
			diff[b.from] += int64(b.units)
			diff[b.to+1] -= int64(b.units)
			if b.from < lo {
				lo = b.from
			}
			if b.to+1 > hi {
				hi = b.to + 1
			}
		}
		fleet := int64(c.fleet[p])
		var run int64
		open := int32(-1)
		for d := lo; d <= hi; d++ {
			run += diff[d]
			diff[d] = 0
			full := run >= fleet && d < int32(c.calDays)
			if full && open < 0 {
				open = d
			} else if !full && open >= 0 {
				inv.blocked = append(inv.blocked, span{from: open, to: d - 1})
				open = -1
			}
		}
	}
	inv.blockOff[np] = int32(len(inv.blocked))
	return inv
}
