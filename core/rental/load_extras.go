package rental

// Loading extras.json: the accessories and insurance plans, by class.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
)

// eachExtra reads the records of list in extras.json: each has an id, a name and
// price_cents (at least minPrice; what describes it), read into an Accessory that f
// completes from the record's other fields.
func eachExtra(file string, root jsonv.Result, list string, minPrice int64, what string, f func(r rec, e jsonv.Result, a Accessory) error) error {
	rs, seen, err := idRecords(file, root, list)
	if err != nil {
		return err
	}
	for i, e := range rs {
		r, name, err := namedRecord(file, list, i, e, seen)
		if err != nil {
			return err
		}
		a := Accessory{ID: r.id, Name: name}
		if a.PriceCents, err = r.integer(e, "price_cents", minPrice, maxPriceCents, what); err != nil {
			return err
		}
		if err = f(r, e, a); err != nil {
			return err
		}
	}
	return nil
}

// offer adds item to the list of every vehicle class its record's "classes" names,
// and its name to ids (for messages about ids a vehicle does not offer).
func offer[T any](c *Catalog, r rec, e jsonv.Result, byClass [][]T, item T, ids map[int64]string, name string) error {
	cls, err := c.classList(r, e)
	if err != nil {
		return err
	}
	ids[r.id] = name
	for _, ci := range cls {
		byClass[ci] = append(byClass[ci], item)
	}
	return nil
}

// classList reads a "classes" field into class indices.
func (c *Catalog) classList(r rec, e jsonv.Result) ([]int, error) {
	cl, err := r.array(e, "classes")
	if err != nil {
		return nil, err
	}
	if len(cl) == 0 {
		return nil, r.fail("classes", "must list at least one vehicle class")
	}
	var out []int
	for j, v := range cl {
		ci := c.classIndex(v.Str)
		if v.Type != jsonv.String || ci < 0 {
			return nil, r.fail(fmt.Sprintf("classes[%d]", j), "unknown vehicle class %s; policy.json defines %s", orMissing(v), strings.Join(c.classes, ", "))
		}
		out = append(out, ci)
	}
	return out, nil
}

func (c *Catalog) loadExtras(root jsonv.Result) error {
	const file = "extras.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	c.accByClass = make([][]Accessory, len(c.classes))
	c.insByClass = make([][]InsurancePlan, len(c.classes))
	accIDs, insIDs := map[int64]string{}, map[int64]string{}
	if err := eachExtra(file, root, "accessories", 1, "a positive integer (cents)", func(r rec, e jsonv.Result, a Accessory) error {
		ch, err := r.str(e, "charge")
		if err != nil {
			return err
		}
		switch ch {
		case "per_day":
			a.PerDay = true
		case "per_hire":
		default:
			return r.fail("charge", "must be \"per_day\" or \"per_hire\" (got %q)", ch)
		}
		if a.MaxChargeCents, err = r.integer(e, "max_charge_cents", 0, maxPriceCents, "a non-negative integer (cents; 0 for no cap)"); err != nil {
			return err
		}
		if a.MaxChargeCents != 0 && !a.PerDay {
			return r.fail("max_charge_cents", "must be 0 for a per_hire accessory (the cap applies to per_day charges)")
		}
		if a.MaxChargeCents != 0 && a.MaxChargeCents < a.PriceCents {
			return r.fail("max_charge_cents", "must be 0 (no cap) or at least price_cents (%d)", a.PriceCents)
		}
		q, err := r.integer(e, "max_quantity", 1, maxQuantityLimit, "a positive integer")
		if err != nil {
			return err
		}
		a.MaxQuantity = int(q)
		return offer(c, r, e, c.accByClass, a, accIDs, a.Name)
	}); err != nil {
		return err
	}
	if err := eachExtra(file, root, "insurance", 0, "a non-negative integer (cents per day)", func(r rec, e jsonv.Result, a Accessory) error {
		n, err := r.integer(e, "max_days", 0, maxPolicyDays, "a non-negative integer (days; 0 for no cap)")
		if err != nil {
			return err
		}
		p := InsurancePlan{ID: a.ID, Name: a.Name, PriceCents: a.PriceCents, MaxDays: int(n)}
		return offer(c, r, e, c.insByClass, p, insIDs, p.Name)
	}); err != nil {
		return err
	}
	for ci, cl := range c.classes {
		sort.Slice(c.accByClass[ci], func(a, b int) bool { return c.accByClass[ci][a].ID < c.accByClass[ci][b].ID })
		ps := c.insByClass[ci]
		sort.Slice(ps, func(a, b int) bool { return ps[a].ID < ps[b].ID })
		free := false
		for _, p := range ps {
			free = free || p.PriceCents == 0
		}
		if !free {
			return fmt.Errorf("%s: field \"insurance\": vehicle class %q has no plan with price_cents 0 (the standard cover every hire includes)", file, cl)
		}
	}
	c.accessoryIDs, c.insuranceIDs = newIDNames(accIDs), newIDNames(insIDs)
	return nil
}
