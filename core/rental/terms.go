package rental

import (
	"fmt"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/text"
)

// The operator's rental terms (terms.json, docs/terms.md): each insurance plan's excess,
// bond and cover, the cancellation tiers, the payment schedule, the minimum driver age
// of each vehicle class, the licence rules and what every hire includes. HireTerms
// applies them to one priced hire.

// MaxCancellationTiers bounds the cancellation tiers of terms.json (HireTerms holds
// them in an array: a quote's terms allocate nothing).
const MaxCancellationTiers = 8

// Driver ages a search or quote accepts (driver_age) and terms.json's minimum ages.
const (
	MinDriverAge = 16
	MaxDriverAge = 99
)

// CancellationRule is one cancellation tier: a cancellation made MinDaysBefore days or
// more before the pick-up date (and fewer than the tier before's) costs PercentOfTotal
// percent of the total, rounded half up to the cent, plus FixedFeeCents; never less
// than the tier before, never more than the total (CancellationFee).
type CancellationRule struct {
	MinDaysBefore  int
	PercentOfTotal int64
	FixedFeeCents  int64
}

// PaymentRule is when a hire is paid: DepositPercent of the total at booking (rounded
// half up to the cent), the balance BalanceDaysBefore days before the pick-up date, all
// of it at booking when that day is not after the booking. A card payment adds
// CardSurchargeBasisPoints hundredths of a percent, which no total includes.
type PaymentRule struct {
	DepositPercent           int64
	BalanceDaysBefore        int
	CardSurchargeBasisPoints int64
}

// Terms are the terms that hold for every hire; each insurance plan's own are in
// InsurancePlan, each vehicle's minimum driver age in Vehicle.
type Terms struct {
	Cancellation []CancellationRule // MinDaysBefore descending, the last 0
	Payment      PaymentRule
	MinimumAge   []int // per vehicle class, in Classes order
	Licence      string
	Includes     []string
}

// Terms returns the catalog's terms.
func (c *Catalog) Terms() *Terms { return &c.terms }

// ClassInsurancePlans returns the insurance plans of vehicle class i (an index into
// Classes), sorted by id.
func (c *Catalog) ClassInsurancePlans(i int) []InsurancePlan {
	if i < 0 || i >= len(c.insByClass) {
		return nil
	}
	return c.insByClass[i]
}

// Tier is a cancellation tier of one hire: a cancellation on or before Until (and
// after the tier before's Until) costs FeeCents.
type Tier struct {
	Until    Date
	FeeCents int64
}

// Payment is one payment of a hire: AmountCents due on Due.
type Payment struct {
	Due         Date
	AmountCents int64
}

// HireTerms are the terms of one priced hire (Quote.Terms): the excess and bond of its
// insurance plan (of the standard cover when none was chosen), its cancellation tiers
// in date order from today (tiers that ended before today are left out; the last ends
// on the pick-up date), its payments in date order (they add up to the total), and
// the vehicle's minimum driver age.
type HireTerms struct {
	ExcessCents  int64
	BondCents    int64
	MinDriverAge int
	NTiers       int
	Tiers        [MaxCancellationTiers]Tier
	NPayments    int
	Payments     [2]Payment
}

// shareOf returns pct percent of cents, rounded half up to the cent (cents <= maxCents:
// no overflow).
func shareOf(cents, pct int64) int64 {
	if cents <= 0 || pct <= 0 {
		return 0
	}
	return (cents*pct + 50) / 100
}

// CancellationFee returns the fee of cancellation rule i of rules for a hire of
// totalCents: PercentOfTotal of the total plus FixedFeeCents, at least the fee of rule
// i-1 and at most the total.
func CancellationFee(rules []CancellationRule, i int, totalCents int64) int64 {
	var fee int64
	for k := 0; k <= i && k < len(rules); k++ {
		f := satAdd(shareOf(totalCents, rules[k].PercentOfTotal), rules[k].FixedFeeCents)
		fee = max(fee, min(f, totalCents))
	}
	return fee
}

// OptionTotal is the total of an offer of offerCents with an insurance plan costing
// insuranceCents and no accessories: the quote's totalAmount for them (Quote).
func OptionTotal(offerCents, insuranceCents int64) int64 { return satAdd(offerCents, insuranceCents) }

// hireTerms fills dst.Terms for the quote dst of q.
func (c *Catalog) hireTerms(q *QuoteRequest, dst *Quote) {
	t := &dst.Terms
	*t = HireTerms{}
	if dst.Vehicle != nil {
		t.MinDriverAge = dst.Vehicle.MinDriverAge
	}
	if p := dst.Insurance; p != nil {
		t.ExcessCents, t.BondCents = p.ExcessCents, p.BondCents
	} else if p := c.standardPlan(dst.Vehicle); p != nil {
		t.ExcessCents, t.BondCents = p.ExcessCents, p.BondCents
	}
	total, pickUp, today := dst.TotalCents, q.PickUp, q.Today
	rules := c.terms.Cancellation
	var fee int64
	for i := range rules {
		f := satAdd(shareOf(total, rules[i].PercentOfTotal), rules[i].FixedFeeCents)
		fee = max(fee, min(f, total))
		until := pickUp.AddDays(-rules[i].MinDaysBefore)
		if until < today || t.NTiers == len(t.Tiers) {
			continue
		}
		t.Tiers[t.NTiers] = Tier{Until: until, FeeCents: fee}
		t.NTiers++
	}
	pay := &c.terms.Payment
	deposit := shareOf(total, pay.DepositPercent)
	due := pickUp.AddDays(-pay.BalanceDaysBefore)
	if due <= today || deposit <= 0 || deposit >= total {
		t.Payments[0] = Payment{Due: today, AmountCents: total}
		t.NPayments = 1
		return
	}
	t.Payments[0] = Payment{Due: today, AmountCents: deposit}
	t.Payments[1] = Payment{Due: due, AmountCents: total - deposit}
	t.NPayments = 2
}

// standardPlan returns v's plan with price 0 (the standard cover), or nil.
func (c *Catalog) standardPlan(v *Vehicle) *InsurancePlan {
	plans := c.InsurancePlans(v)
	for i := range plans {
		if plans[i].PriceCents == 0 {
			return &plans[i]
		}
	}
	return nil
}

// tooYoung is the 404 of a quote for vehicle v by a driver of age (below its minimum).
//
//go:noinline
func (c *Catalog) tooYoung(v *Vehicle, age int) *Error {
	return &Error{Kind: KindNotFound, Code: CodeDriverTooYoung, Param: "vehicle_id", Message: text.Sprintf(
		"The %s (vehicle %d) is a %s: every driver must be at least %d, and driver_age is %d. Choose a vehicle the driver may hire: a search with driver_age %d lists only those.",
		v.Name, v.ID, v.Class, v.MinDriverAge, age, age)}
}

// loadTerms reads terms.json: every insurance plan's terms (each plan of extras.json
// exactly once), the cancellation tiers, the payment rule, the minimum driver age of
// each vehicle class, the licence rules and the inclusions.
func (c *Catalog) loadTerms(root jsonv.Result) error {
	const file = "terms.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	top := rec{file: file, idx: -1}
	if err := c.loadPlanTerms(file, root); err != nil {
		return err
	}
	if err := c.loadCancellation(file, root); err != nil {
		return err
	}
	if err := c.loadPayment(file, root); err != nil {
		return err
	}
	drivers := root.Get("drivers")
	if !drivers.IsObject() {
		return top.fail("drivers", "must be an object with minimum_age and licence")
	}
	if err := c.loadDriverAges(file, drivers); err != nil {
		return err
	}
	var err error
	if c.terms.Licence, err = (rec{file: file + ": drivers", idx: -1}).str(drivers, "licence"); err != nil {
		return err
	}
	return c.loadIncludes(top, root)
}

// loadCancellation reads the cancellation tiers: 1 to MaxCancellationTiers of them,
// min_days_before descending to 0 in the last, percent_of_total never going down.
func (c *Catalog) loadCancellation(file string, root jsonv.Result) error {
	tiers, err := records(file, root, "cancellation")
	if err != nil {
		return err
	}
	if len(tiers) == 0 || len(tiers) > MaxCancellationTiers {
		return (rec{file: file, idx: -1}).fail("cancellation", "must list 1 to %d tiers", MaxCancellationTiers)
	}
	t := &c.terms
	for i, e := range tiers {
		r := rec{file: file, list: "cancellation", idx: i}
		rule, err := cancellationRule(r, e)
		if err != nil {
			return err
		}
		if i > 0 {
			prev := t.Cancellation[i-1]
			if rule.MinDaysBefore >= prev.MinDaysBefore {
				return r.fail("min_days_before", "must be less than the tier before's (%d): tiers run from the earliest cancellation to the pick-up date", prev.MinDaysBefore)
			}
			if rule.PercentOfTotal < prev.PercentOfTotal {
				return r.fail("percent_of_total", "must be at least the tier before's (%d): a fee never goes down as the pick-up date nears", prev.PercentOfTotal)
			}
		}
		if i == len(tiers)-1 && rule.MinDaysBefore != 0 {
			return r.fail("min_days_before", "must be 0 in the last tier (a cancellation on the pick-up date)")
		}
		t.Cancellation = append(t.Cancellation, rule)
	}
	return nil
}

// cancellationRule reads one cancellation tier's fields, each in its range.
func cancellationRule(r rec, e jsonv.Result) (CancellationRule, error) {
	var rule CancellationRule
	n, err := r.integer(e, "min_days_before", 0, maxPolicyDays, "a non-negative integer (days)")
	if err != nil {
		return rule, err
	}
	rule.MinDaysBefore = int(n)
	if rule.PercentOfTotal, err = r.integer(e, "percent_of_total", 0, 100, "an integer from 0 to 100"); err != nil {
		return rule, err
	}
	rule.FixedFeeCents, err = r.integer(e, "fixed_fee_cents", 0, maxPriceCents, "a non-negative integer (cents)")
	return rule, err
}

// loadPayment reads the payment rule.
func (c *Catalog) loadPayment(file string, root jsonv.Result) error {
	pay := root.Get("payment")
	if !pay.IsObject() {
		return (rec{file: file, idx: -1}).fail("payment", "must be an object with deposit_percent, balance_days_before and card_surcharge_basis_points")
	}
	t := &c.terms
	pr := rec{file: file + ": payment", idx: -1}
	var err error
	if t.Payment.DepositPercent, err = pr.integer(pay, "deposit_percent", 1, 100, "an integer from 1 to 100"); err != nil {
		return err
	}
	n, err := pr.integer(pay, "balance_days_before", 0, maxPolicyDays, "a non-negative integer (days)")
	if err != nil {
		return err
	}
	t.Payment.BalanceDaysBefore = int(n)
	t.Payment.CardSurchargeBasisPoints, err = pr.integer(pay, "card_surcharge_basis_points", 0, 1000, "an integer from 0 to 1000 (hundredths of a percent)")
	return err
}

// loadIncludes reads includes: at least one inclusion, each a non-empty string.
func (c *Catalog) loadIncludes(top rec, root jsonv.Result) error {
	inc, err := top.array(root, "includes")
	if err != nil {
		return err
	}
	if len(inc) == 0 {
		return top.fail("includes", "must list at least one inclusion")
	}
	for j, v := range inc {
		if v.Type != jsonv.String || strings.TrimSpace(v.Str) == "" {
			return top.fail(fmt.Sprintf("includes[%d]", j), "must be a non-empty string")
		}
		c.terms.Includes = append(c.terms.Includes, v.Str)
	}
	return nil
}

// loadPlanTerms reads the insurance list: each plan of extras.json once, its excess and
// bond, and what it covers and excludes; the terms go into every class's copy of the plan.
func (c *Catalog) loadPlanTerms(file string, root jsonv.Result) error {
	rs, err := records(file, root, "insurance")
	if err != nil {
		return err
	}
	seen := map[int64]bool{}
	for i, e := range rs {
		r := rec{file: file, list: "insurance", idx: i}
		id, err := r.integer(e, "insurance_id", 1, 1<<53, "an insurance plan id of extras.json")
		if err != nil {
			return err
		}
		r.id, r.hasID = id, true
		name, ok := c.insuranceIDs.name(id)
		if !ok {
			return r.fail("insurance_id", "insurance plan %d does not exist in extras.json", id)
		}
		if seen[id] {
			return r.fail("insurance_id", "insurance plan %d is listed twice", id)
		}
		seen[id] = true
		var p InsurancePlan
		if p.ExcessCents, err = r.integer(e, "excess_cents", 0, maxPriceCents, "a non-negative integer (cents)"); err != nil {
			return err
		}
		if stated, ok := statedExcess(name); ok && stated != p.ExcessCents {
			return r.fail("excess_cents", "is %d, but the plan's name %q states an excess of %d cents", p.ExcessCents, name, stated)
		}
		if p.BondCents, err = r.integer(e, "bond_cents", 0, maxPriceCents, "a non-negative integer (cents)"); err != nil {
			return err
		}
		if p.Covers, err = r.str(e, "covers"); err != nil {
			return err
		}
		if p.Excludes, err = r.str(e, "excludes"); err != nil {
			return err
		}
		for ci := range c.insByClass {
			for k := range c.insByClass[ci] {
				if q := &c.insByClass[ci][k]; q.ID == id {
					q.ExcessCents, q.BondCents, q.Covers, q.Excludes = p.ExcessCents, p.BondCents, p.Covers, p.Excludes
				}
			}
		}
	}
	for _, id := range c.insuranceIDs.idx.ids {
		if !seen[id] {
			return fmt.Errorf("%s: field \"insurance\": insurance plan %d of extras.json has no terms (excess, bond, covers, excludes)", file, id)
		}
	}
	return nil
}

// loadDriverAges reads drivers.minimum_age: one record per vehicle class, each vehicle
// taking its class's age.
func (c *Catalog) loadDriverAges(file string, drivers jsonv.Result) error {
	const list = "drivers.minimum_age"
	rs, err := records(file, drivers, "minimum_age")
	if err != nil {
		return fmt.Errorf("%s: field %q: must be an array of {class, age} records", file, list)
	}
	ages := make([]int, len(c.classes))
	for i, e := range rs {
		r := rec{file: file, list: list, idx: i}
		cls, err := r.str(e, "class")
		if err != nil {
			return err
		}
		ci := c.classIndex(cls)
		if ci < 0 {
			return r.fail("class", "unknown vehicle class %q; policy.json defines %s", cls, strings.Join(c.classes, ", "))
		}
		if ages[ci] != 0 {
			return r.fail("class", "class %q is listed twice", cls)
		}
		n, err := r.integer(e, "age", MinDriverAge, MaxDriverAge, fmt.Sprintf("an integer from %d to %d (years)", MinDriverAge, MaxDriverAge))
		if err != nil {
			return err
		}
		ages[ci] = int(n)
	}
	for ci, a := range ages {
		if a == 0 {
			return fmt.Errorf("%s: field %q: vehicle class %q has no minimum age", file, list, c.classes[ci])
		}
	}
	c.terms.MinimumAge = ages
	for i := range c.vehicles {
		c.vehicles[i].MinDriverAge = ages[c.vehicleX[i].class]
	}
	return nil
}

// statedExcess reads the excess a plan's name states ("Standard cover (NZ$3,000
// excess)": 300000 cents), if it states one.
func statedExcess(name string) (int64, bool) {
	i := strings.Index(name, "NZ$")
	if i < 0 {
		return 0, false
	}
	rest := name[i+3:]
	num := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789,"))]
	if !strings.HasPrefix(rest[len(num):], " excess") {
		return 0, false
	}
	n, ok := text.Digits(strings.ReplaceAll(num, ",", ""), maxPriceCents/100)
	return n * 100, ok
}
