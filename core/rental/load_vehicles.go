package rental

// Loading vehicles.json: each vehicle, its rates and its fleet at each depot.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
)

// fleetEntry is a vehicle's units at one depot, as vehicles.json lists them.
type fleetEntry struct {
	depot int32
	units int32
}

func (c *Catalog) loadVehicles(root jsonv.Result) error {
	const file = "vehicles.json"
	rs, seen, err := idRecords(file, root, "")
	if err != nil {
		return err
	}
	var fleets [][]fleetEntry
	for i, e := range rs {
		r, name, err := namedRecord(file, "", i, e, seen)
		if err != nil {
			return err
		}
		v, x, err := c.loadVehicle(r, name, e)
		if err != nil {
			return err
		}
		entries, err := c.vehicleFleet(r, e)
		if err != nil {
			return err
		}
		c.vehicles = append(c.vehicles, v)
		c.vehicleX = append(c.vehicleX, x)
		fleets = append(fleets, entries)
	}
	c.sortVehicles(fleets)
	return nil
}

// loadVehicle reads vehicle record e (r, named name), its fleet aside.
func (c *Catalog) loadVehicle(r rec, name string, e jsonv.Result) (Vehicle, vehicleData, error) {
	v := Vehicle{ID: r.id, Name: name}
	var x vehicleData
	var err error
	if v.ImageURL, err = r.str(e, "image_url"); err != nil {
		return v, x, err
	}
	if !strings.HasPrefix(v.ImageURL, "https://") || strings.ContainsAny(v.ImageURL, " \"<>") {
		return v, x, r.fail("image_url", "must be an https:// URL")
	}
	cls, err := r.str(e, "class")
	if err != nil {
		return v, x, err
	}
	ci := c.classIndex(cls)
	if ci < 0 {
		return v, x, r.fail("class", "unknown vehicle class %q; policy.json defines %s", cls, strings.Join(c.classes, ", "))
	}
	x.class = int32(ci)
	v.Class = c.classes[ci]
	berths, err := r.integer(e, "berths", 1, 20, "a positive integer")
	if err != nil {
		return v, x, err
	}
	v.Berths = int(berths)
	if v.Transmission, err = r.str(e, "transmission"); err != nil {
		return v, x, err
	}
	if v.Transmission != Transmissions[0] && v.Transmission != Transmissions[1] {
		return v, x, r.fail("transmission", "must be %q or %q, got %q", Transmissions[0], Transmissions[1], v.Transmission)
	}
	return v, x, c.vehicleRates(r, e, &x)
}

// vehicleRates reads the daily rate and the minimum hire of each season of vehicle
// record e into x.
func (c *Catalog) vehicleRates(r rec, e jsonv.Result, x *vehicleData) error {
	for s, sn := range c.seasonNames {
		n, err := r.integer(e, "rates."+sn, 1, maxRateCents, "a positive integer (cents)")
		if err != nil {
			return err
		}
		x.rates[s] = n
		n, err = r.integer(e, "min_hire_days."+sn, 1, int64(c.maxHire), fmt.Sprintf("an integer from 1 to max_hire_days (%d)", c.maxHire))
		if err != nil {
			return err
		}
		x.minDays[s] = int32(n)
	}
	return nil
}

// vehicleFleet reads the fleet of vehicle record e: its units per depot, each depot
// once.
func (c *Catalog) vehicleFleet(r rec, e jsonv.Result) ([]fleetEntry, error) {
	fl, err := r.array(e, "fleet")
	if err != nil {
		return nil, err
	}
	var entries []fleetEntry
	for j, f := range fl {
		df := fmt.Sprintf("fleet[%d].depot_id", j)
		did, err := r.integer(f, "depot_id", 1, 1<<53, "a positive integer")
		if err != nil {
			return nil, r.fail(df, "must be a depot id")
		}
		di, ok := c.depotIdx.find(did)
		if !ok {
			return nil, r.fail(df, "depot %d does not exist in depots.json", did)
		}
		for _, en := range entries {
			if en.depot == di {
				return nil, r.fail(df, "depot %d is listed twice", did)
			}
		}
		u, err := r.integer(f, "units", 1, maxUnits, "a positive integer")
		if err != nil {
			return nil, r.fail(fmt.Sprintf("fleet[%d].units", j), "must be a positive integer, at most %d", maxUnits)
		}
		entries = append(entries, fleetEntry{depot: di, units: int32(u)})
	}
	return entries, nil
}

// sortVehicles sorts the vehicles by id, keeping vehicles and vehicleX parallel, and
// makes the id index and the fleet table from fleets (one list per vehicle, in the
// order they were read).
func (c *Catalog) sortVehicles(fleets [][]fleetEntry) {
	ord := make([]int, len(c.vehicles))
	for i := range ord {
		ord[i] = i
	}
	sort.Slice(ord, func(a, b int) bool { return c.vehicles[ord[a]].ID < c.vehicles[ord[b]].ID })
	nd := len(c.depots)
	vs, xs := make([]Vehicle, len(ord)), make([]vehicleData, len(ord))
	c.fleet = make([]int32, len(ord)*nd)
	ids := make([]int64, len(ord))
	for i, o := range ord {
		vs[i], xs[i] = c.vehicles[o], c.vehicleX[o]
		ids[i] = vs[i].ID
		for _, en := range fleets[o] {
			c.fleet[i*nd+int(en.depot)] = en.units
		}
	}
	c.vehicles, c.vehicleX, c.vehicleIdx = vs, xs, newIDIndex(ids)
}
