package rental

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// Pricing rules (docs/pricing.md explains them to users):
//   - rentalFee: the sum over every hire day of that day's season rate.
//   - routeFee: 0 for a same-depot hire; else the route's fee, waived (0) when the
//     hire is at least routes.json's waiver_min_days days.
//   - accessoriesFee: AccessoryCost of each selected accessory.
//   - insuranceFee: InsuranceCost of the selected plan (0 when none).
//   - total: the sum of the four fees.
// Every amount is int64 cents and saturates at maxCents instead of wrapping.

// satMul returns a*b for non-negative operands, 0 when either is <= 0, and
// maxCents when the product would exceed it.
func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > maxCents/b {
		return maxCents
	}
	return a * b
}

// satAdd returns a+b for non-negative operands, capped at maxCents.
func satAdd(a, b int64) int64 {
	if a < 0 {
		a = 0
	}
	if b < 0 {
		b = 0
	}
	if a > maxCents-b {
		return maxCents
	}
	return a + b
}

// AccessoryCost returns the charge for qty units of a over a hire of days days:
// per day, price*days capped at MaxChargeCents (when set) per unit, times qty;
// per hire, price*qty. It returns 0 for a nil accessory or non-positive days or qty.
//
//go:inline
func AccessoryCost(a *Accessory, days, qty int) int64 {
	if a == nil || days <= 0 || qty <= 0 {
		return 0
	}
	if !a.PerDay {
		return satMul(a.PriceCents, int64(qty))
	}
	unit := satMul(a.PriceCents, int64(days))
	if a.MaxChargeCents > 0 && unit > a.MaxChargeCents {
		unit = a.MaxChargeCents
	}
	return satMul(unit, int64(qty))
}

// InsuranceCost returns the charge for plan p over a hire of days days: its daily
// price times the days, counting at most MaxDays days when MaxDays is set.
func InsuranceCost(p *InsurancePlan, days int) int64 {
	if p == nil || days <= 0 {
		return 0
	}
	if p.MaxDays > 0 && days > p.MaxDays {
		days = p.MaxDays
	}
	return satMul(p.PriceCents, int64(days))
}

// Quote checks q and fills *dst with the priced hire. Errors: those of
// CheckSearch; KindInvalid "vehicle_id" for an unknown vehicle; KindInvalid
// "accessory_ids" for an accessory the vehicle does not offer, a quantity below 1
// or a total quantity above MaxQuantity (an id given k times, or Picks of one id
// whose quantities sum to k, mean k units); KindInvalid "insurance_id" for a plan
// the vehicle does not offer; KindNotFound "vehicle_id" when the vehicle is not
// available for the search (the message says why). dst.Accessories is reused and
// lists the accessories in the order they first appear in q.Accessories.
func (c *Catalog) Quote(q *QuoteRequest, dst *Quote) *Error {
	if dst == nil {
		return &Error{Kind: KindInternal, Message: "Quote called with a nil destination."}
	}
	var sc searchCtx
	if err := c.check(&q.Search, &sc); err != nil {
		return err
	}
	vi32, ok := c.vehicleIdx.find(q.VehicleID)
	if !ok {
		return InvalidCode(CodeUnknownID, "vehicle_id", text.Sprintf("vehicle_id %d is not a vehicle; use a vehicleId returned by %s.", q.VehicleID, q.refs().Vehicles))
	}
	vi := int(vi32)
	v := &c.vehicles[vi]
	cls := c.vehicleX[vi].class
	if err := c.pickAccessories(q, c.accByClass[cls], v, dst); err != nil {
		return err
	}
	lines := dst.Accessories
	var plan *InsurancePlan
	if q.InsuranceID != 0 {
		plans := c.insByClass[cls]
		for i := range plans {
			if plans[i].ID == q.InsuranceID {
				plan = &plans[i]
				break
			}
		}
		if plan == nil {
			return InvalidCode(c.notOfferedCode(q.InsuranceID, c.insuranceIDs), "insurance_id", c.notOffered("insurance_id", q.InsuranceID, c.insuranceIDs, v,
				planChoices(plans), q.refs(), q.refs().Insurance))
		}
	}
	if q.DriverAge != 0 && q.DriverAge < v.MinDriverAge {
		return c.tooYoung(v, q.DriverAge)
	}
	if !c.available(vi, &sc) {
		code, msg := c.reason(vi, &sc)
		return &Error{Kind: KindNotFound, Code: code, Param: "vehicle_id", Message: msg}
	}

	dst.Vehicle = v
	dst.Days = sc.days
	dst.RentalCents = c.rental(vi, &sc)
	dst.RouteCents = sc.route
	var acc int64
	for i := range lines {
		lines[i].CostCents = AccessoryCost(lines[i].Accessory, sc.days, lines[i].Quantity)
		acc = satAdd(acc, lines[i].CostCents)
	}
	dst.AccessoriesCents = acc
	dst.Insurance = plan
	dst.InsuranceCents = InsuranceCost(plan, sc.days)
	dst.TotalCents = satAdd(satAdd(dst.RentalCents, dst.RouteCents), satAdd(acc, dst.InsuranceCents))
	c.hireTerms(q, dst)
	return nil
}

// pickAccessories fills dst.Accessories with q's picks, one line per accessory in the
// order of its first pick, each one of offered (the vehicle v's) and within its
// MaxQuantity. Inlined: it runs on every quote.
//
//go:inline
func (c *Catalog) pickAccessories(q *QuoteRequest, offered []Accessory, v *Vehicle, dst *Quote) *Error {
	lines := dst.Accessories[:0]
	for _, p := range q.Accessories {
		var a *Accessory
		for i := range offered {
			if offered[i].ID == p.ID {
				a = &offered[i]
				break
			}
		}
		if a == nil {
			dst.Accessories = lines
			return InvalidCode(c.notOfferedCode(p.ID, c.accessoryIDs), "accessory_ids", c.notOffered("accessory_ids", p.ID, c.accessoryIDs, v,
				accessoryChoices(offered), q.refs(), q.refs().Accessories))
		}
		if p.Quantity < 1 {
			dst.Accessories = lines
			return Invalid("accessory_ids", text.Sprintf("accessory_ids: the quantity of accessory %d (%s) must be at least 1.", a.ID, a.Name))
		}
		j := -1
		for i := range lines {
			if lines[i].Accessory.ID == a.ID {
				j = i
				break
			}
		}
		have := 0
		if j >= 0 {
			have = lines[j].Quantity
		}
		if p.Quantity > a.MaxQuantity || have > a.MaxQuantity-p.Quantity {
			dst.Accessories = lines
			want := int64(have) + int64(p.Quantity)
			times := text.Sprintf("at most %d times", a.MaxQuantity)
			if a.MaxQuantity == 1 {
				times = "only once"
			}
			return InvalidCode(CodeTooMany, "accessory_ids", text.Sprintf("accessory_ids asks for %d units of accessory %d (%s), but at most %d can be added to one hire; list its id %s.", want, a.ID, a.Name, a.MaxQuantity, times))
		}
		if j >= 0 {
			lines[j].Quantity += p.Quantity
		} else {
			lines = bytebuf.Push(lines, QuotedAccessory{Accessory: a, Quantity: p.Quantity})
		}
	}
	dst.Accessories = lines
	return nil
}

// accessoryChoices and planChoices list the ids and names a vehicle offers, for
// messages. They are functions of their own, never inlined: under TinyGo a variable
// that a closure captures is allocated on the heap where it is declared, so a closure
// over Quote's locals would cost every quote two allocations, error or not.
//
//go:noinline
func accessoryChoices(offered []Accessory) string {
	return choices(len(offered), func(i int) (int64, string) { return offered[i].ID, offered[i].Name })
}

//go:noinline
func planChoices(plans []InsurancePlan) string {
	return choices(len(plans), func(i int) (int64, string) { return plans[i].ID, plans[i].Name })
}

// notOfferedCode is unknown_id for an id that is no accessory (plan) at all, else
// not_offered.
func (c *Catalog) notOfferedCode(id int64, known idNames) string {
	if _, ok := known.name(id); ok {
		return CodeNotOffered
	}
	return CodeUnknownID
}

// GSTIncluded returns the GST contained in a GST-inclusive amount of cents: New Zealand's
// GST is 15%, so the tax in a price is price x 15/115 = price x 3/23, rounded half up
// to the cent (a tax invoice shows this figure).
func GSTIncluded(totalCents int64) int64 {
	if totalCents <= 0 {
		return 0
	}
	// (6t + 23) / 46 = floor(3t/23 + 1/2); t <= maxCents keeps 6t far from overflow.
	return (6*totalCents + 23) / 46
}

// notOffered explains that id is not one of the vehicle's accessories or plans.
func (c *Catalog) notOffered(param string, id int64, known idNames, v *Vehicle, choices string, refs *Refs, list string) string {
	var what string
	if name, ok := known.name(id); ok {
		what = text.Sprintf("(%s) is not offered with", name)
	} else {
		what = "does not exist and is not offered with"
	}
	return text.Sprintf("%s: %d %s the %s (vehicle %d); use ids listed by %s%d%s: %s.", param, id, what, v.Name, v.ID, refs.VehiclesPath, v.ID, list, choices)
}
