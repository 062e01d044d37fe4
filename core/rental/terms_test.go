package rental

import (
	"strconv"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
)

// TestLoadTermsErrors breaks one thing in terms.json at a time: the error names the
// file, the record and the field.
func TestLoadTermsErrors(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"plan unknown", `"insurance_id": 22,`, `"insurance_id": 99,`,
			`terms.json: insurance record 1 (id 99): field "insurance_id": insurance plan 99 does not exist in extras.json`},
		{"plan twice", `"insurance_id": 22,`, `"insurance_id": 21,`,
			`terms.json: insurance record 1 (id 21): field "insurance_id": insurance plan 21 is listed twice`},
		{"plan missing", `"insurance_id": 43,`, `"insurance_id": 42,`,
			`terms.json: insurance record 8 (id 42): field "insurance_id": insurance plan 42 is listed twice`},
		{"excess not the name's", `"excess_cents": 75000,`, `"excess_cents": 70000,`,
			`terms.json: insurance record 1 (id 22): field "excess_cents": is 70000, but the plan's name "Excess reduction (NZ$750 excess)" states an excess of 75000 cents`},
		{"negative bond", `"bond_cents": 20000,`, `"bond_cents": -1,`,
			`terms.json: insurance record 2 (id 23): field "bond_cents": must be a non-negative integer (cents)`},
		{"bond missing", `"bond_cents": 20000,`, ``,
			`terms.json: insurance record 2 (id 23): field "bond_cents": is missing`},
		{"covers empty", `"covers": "As standard cover, excess NZ$750 per incident.",`, `"covers": " ",`,
			`terms.json: insurance record 1 (id 22): field "covers": must be a non-empty string`},
		{"tiers out of order", `"min_days_before": 30,`, `"min_days_before": 60,`,
			`terms.json: cancellation record 1: field "min_days_before": must be less than the tier before's (60)`},
		{"share goes down", `"percent_of_total": 50,`, `"percent_of_total": 20,`,
			`terms.json: cancellation record 2: field "percent_of_total": must be at least the tier before's (25)`},
		{"share over 100", `"percent_of_total": 100,`, `"percent_of_total": 101,`,
			`terms.json: cancellation record 3: field "percent_of_total": must be an integer from 0 to 100, at most 100`},
		{"last tier not on the day", `"min_days_before": 0,`, `"min_days_before": 1,`,
			`terms.json: cancellation record 3: field "min_days_before": must be 0 in the last tier`},
		{"fractional fee", `"fixed_fee_cents": 10000`, `"fixed_fee_cents": 100.5`,
			`terms.json: cancellation record 0: field "fixed_fee_cents": must be a non-negative integer (cents)`},
		{"no deposit", `"deposit_percent": 20,`, `"deposit_percent": 0,`,
			`terms.json: payment: field "deposit_percent": must be an integer from 1 to 100`},
		{"surcharge too high", `"card_surcharge_basis_points": 200`, `"card_surcharge_basis_points": 2000`,
			`terms.json: payment: field "card_surcharge_basis_points": must be an integer from 0 to 1000`},
		{"age too low", `"age": 18`, `"age": 15`,
			`terms.json: drivers.minimum_age record 0: field "age": must be an integer from 16 to 99 (years)`},
		{"class unknown", `"class": "compact",`, `"class": "spaceship",`,
			`terms.json: drivers.minimum_age record 0: field "class": unknown vehicle class "spaceship"`},
		{"class without age", `"class": "compact",`, `"class": "campervan",`,
			`terms.json: drivers.minimum_age record 1: field "class": class "campervan" is listed twice`},
		{"no licence", `"licence": "Every driver`, `"licenses": "Every driver`,
			`terms.json: drivers: field "licence": is missing`},
		{"inclusion not a string", `"GST (15%)"`, `15`,
			`terms.json: field "includes[6]": must be a non-empty string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := snapshottest.Files(t)
			src := string(files["terms.json"])
			if !strings.Contains(src, tt.old) {
				t.Fatalf("terms.json does not contain %q", tt.old)
			}
			files["terms.json"] = []byte(strings.Replace(src, tt.old, tt.new, 1))
			_, err := LoadCatalog(files)
			if err == nil {
				t.Fatalf("LoadCatalog succeeded, want error %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("LoadCatalog error\n got %q\nwant %q...", err, tt.want)
			}
		})
	}
	files := snapshottest.Files(t)
	files["terms.json"] = []byte(strings.Replace(string(files["terms.json"]), `"insurance_id": 43,`, `"insurance_id": 4300,`, 1))
	if _, err := LoadCatalog(files); err == nil || !strings.Contains(err.Error(), "terms.json: insurance record 8 (id 4300)") {
		t.Errorf("unknown plan: err = %v", err)
	}
	files = snapshottest.Files(t)
	delete(files, "terms.json")
	if _, err := LoadCatalog(files); err == nil || err.Error() != "terms.json: missing from the snapshot" {
		t.Errorf("missing terms.json: err = %v", err)
	}
}

// TestLoadTermsEveryPlanAndClass: a plan of extras.json without terms, and a class
// without a minimum age, fail the load.
func TestLoadTermsEveryPlanAndClass(t *testing.T) {
	files := snapshottest.Files(t)
	src := string(files["terms.json"])
	i := strings.Index(src, `    {
      "insurance_id": 43,`)
	j := strings.Index(src, `  "cancellation"`)
	if i < 0 || j < i {
		t.Fatal("terms.json: plan 43 is not where the test expects it")
	}
	files["terms.json"] = []byte(strings.TrimSuffix(strings.TrimSpace(src[:i]), ",") + "\n  ],\n" + src[j:])
	if _, err := LoadCatalog(files); err == nil || err.Error() != `terms.json: field "insurance": insurance plan 43 of extras.json has no terms (excess, bond, covers, excludes)` {
		t.Errorf("plan without terms: err = %v", err)
	}
	files = snapshottest.Files(t)
	files["terms.json"] = []byte(strings.Replace(string(files["terms.json"]), `,
      {
        "class": "motorhome",
        "age": 25
      }`, "", 1))
	if _, err := LoadCatalog(files); err == nil || err.Error() != `terms.json: field "drivers.minimum_age": vehicle class "motorhome" has no minimum age` {
		t.Errorf("class without an age: err = %v", err)
	}
}

func TestStatedExcess(t *testing.T) {
	for _, c := range []struct {
		name  string
		cents int64
		ok    bool
	}{
		{"Standard cover (NZ$3,000 excess)", 300000, true},
		{"Zero excess (NZ$0 excess)", 0, true},
		{"Excess reduction (NZ$750 excess)", 75000, true},
		{"Premium (NZ$123,400 excess)", 12340000, true},
		{"Standard cover", 0, false},
		{"Cover (NZ$ excess)", 0, false},
		{"Cover (NZ$300 bond)", 0, false},
	} {
		if got, ok := statedExcess(c.name); got != c.cents || ok != c.ok {
			t.Errorf("statedExcess(%q) = %d, %v; want %d, %v", c.name, got, ok, c.cents, c.ok)
		}
	}
}

func TestShareOfRoundsHalfUp(t *testing.T) {
	for _, c := range []struct{ cents, pct, want int64 }{
		{100, 25, 25}, {101, 25, 25}, {102, 25, 26}, {103, 25, 26}, {1, 50, 1}, {1, 49, 0},
		{99999, 20, 20000}, {0, 50, 0}, {500, 0, 0}, {maxCents, 100, maxCents},
	} {
		if got := shareOf(c.cents, c.pct); got != c.want {
			t.Errorf("shareOf(%d, %d) = %d, want %d", c.cents, c.pct, got, c.want)
		}
	}
}

// TestCancellationFeeMonotone: on any total, the fees never go down from tier to tier
// and never exceed the total, the fixed fee of the first tier included.
func TestCancellationFeeMonotone(t *testing.T) {
	rules := bundledCatalog(t).Terms().Cancellation
	for _, total := range []int64{1, 99, 5000, 10000, 20000, 39999, 40000, 40001, 123457, 1_000_000_00} {
		prev := int64(-1)
		for i := range rules {
			f := CancellationFee(rules, i, total)
			if f < prev || f > total {
				t.Errorf("total %d: tier %d fee %d after %d", total, i, f, prev)
			}
			prev = f
		}
		if prev != total {
			t.Errorf("total %d: the last tier's fee is %d, want the total", total, prev)
		}
	}
	// NZ$200: the first tier's NZ$100 fee holds in the second (25% is NZ$50).
	if got := CancellationFee(rules, 1, 20000); got != 10000 {
		t.Errorf("CancellationFee(tier 1, 20000) = %d, want 10000", got)
	}
}

// TestHireTermsProperties prices many hires (every vehicle, pick-ups from tomorrow to
// over a year ahead, several lengths, each plan or none) and checks every quote's terms:
// the payments add up to the total, in date order, the first due today; the tiers are in
// date order from today, their fees never go down and never exceed the total, the last
// ends on the pick-up date and costs the total; the excess and bond are the plan's (the
// standard cover's without one); the minimum driver age is the class's.
func TestHireTermsProperties(t *testing.T) {
	c := bundledCatalog(t)
	terms := c.Terms()
	var q Quote
	n, twoPayments, dropped := 0, 0, 0
	for _, v := range c.Vehicles() {
		plans := c.InsurancePlans(&v)
		for start := 1; start <= 420; start += 7 {
			for _, days := range []int{1, 5, 12, 30} {
				for pi := -1; pi < len(plans); pi++ {
					r := QuoteRequest{Search: Search{PickUpDepot: 1, DropOffDepot: 1, Today: testToday}, VehicleID: v.ID}
					r.PickUp = testToday.AddDays(start + v.Berths%3) // spread over weekdays
					r.DropOff = r.PickUp.AddDays(days - 1)
					var plan *InsurancePlan
					if pi >= 0 {
						plan = &plans[pi]
						r.InsuranceID = plan.ID
					}
					if c.Quote(&r, &q) != nil {
						continue
					}
					n++
					checkHireTerms(t, c, terms, &r, &q, plan)
					if q.Terms.NPayments == 2 {
						twoPayments++
					}
					if q.Terms.NTiers < len(terms.Cancellation) {
						dropped++
					}
				}
			}
		}
	}
	if n < 2000 || twoPayments == 0 || twoPayments == n || dropped == 0 || dropped == n {
		t.Errorf("%d quotes, %d with two payments, %d with tiers left out: the test does not cover both cases of each", n, twoPayments, dropped)
	}
}

func checkHireTerms(t *testing.T, c *Catalog, terms *Terms, r *QuoteRequest, q *Quote, plan *InsurancePlan) {
	t.Helper()
	ht := &q.Terms
	where := func() string {
		return r.PickUp.String() + " to " + r.DropOff.String() + " vehicle " + strconv.FormatInt(q.Vehicle.ID, 10)
	}
	var sum int64
	for i := 0; i < ht.NPayments; i++ {
		p := ht.Payments[i]
		sum += p.AmountCents
		if p.AmountCents <= 0 || (i > 0 && p.Due <= ht.Payments[i-1].Due) {
			t.Fatalf("%s: payment %d %+v out of order or not positive", where(), i, p)
		}
	}
	if sum != q.TotalCents || ht.NPayments == 0 || ht.Payments[0].Due != r.Today {
		t.Fatalf("%s: payments %+v sum %d, total %d", where(), ht.Payments[:ht.NPayments], sum, q.TotalCents)
	}
	balanceDue := r.PickUp.AddDays(-terms.Payment.BalanceDaysBefore)
	if (balanceDue > r.Today) != (ht.NPayments == 2) {
		t.Fatalf("%s: %d payments with the balance due %s", where(), ht.NPayments, balanceDue)
	}
	if ht.NPayments == 2 && (ht.Payments[0].AmountCents != (q.TotalCents*terms.Payment.DepositPercent+50)/100 || ht.Payments[1].Due != balanceDue) {
		t.Fatalf("%s: payments %+v for a total of %d", where(), ht.Payments, q.TotalCents)
	}
	if ht.NTiers == 0 || ht.Tiers[ht.NTiers-1].Until != r.PickUp || ht.Tiers[ht.NTiers-1].FeeCents != q.TotalCents {
		t.Fatalf("%s: tiers %+v, total %d", where(), ht.Tiers[:ht.NTiers], q.TotalCents)
	}
	for i := 0; i < ht.NTiers; i++ {
		tr := ht.Tiers[i]
		if tr.Until < r.Today || tr.FeeCents > q.TotalCents || tr.FeeCents < 0 ||
			(i > 0 && (tr.Until <= ht.Tiers[i-1].Until || tr.FeeCents < ht.Tiers[i-1].FeeCents)) {
			t.Fatalf("%s: tier %d of %+v, total %d", where(), i, ht.Tiers[:ht.NTiers], q.TotalCents)
		}
	}
	kept := 0
	for _, rule := range terms.Cancellation {
		if r.PickUp.AddDays(-rule.MinDaysBefore) >= r.Today {
			kept++
		}
	}
	if kept != ht.NTiers {
		t.Fatalf("%s: %d tiers, want %d (those ending today or later)", where(), ht.NTiers, kept)
	}
	want := plan
	if want == nil {
		want = c.standardPlan(q.Vehicle)
	}
	if ht.ExcessCents != want.ExcessCents || ht.BondCents != want.BondCents || ht.MinDriverAge != q.Vehicle.MinDriverAge || ht.MinDriverAge < MinDriverAge {
		t.Fatalf("%s: terms %+v, plan %+v", where(), ht, want)
	}
}

// TestQuoteDriverAge: a quote refuses a driver younger than the vehicle's class allows
// (404 driver_too_young naming the minimum age), and takes one of that age.
func TestQuoteDriverAge(t *testing.T) {
	c := bundledCatalog(t)
	var q Quote
	r := QuoteRequest{Search: search(1, 1, "2027-03-10", "2027-03-20"), VehicleID: 9, DriverAge: 24}
	e := c.Quote(&r, &q)
	if e == nil || e.Kind != KindNotFound || e.Code != CodeDriverTooYoung || e.Param != "vehicle_id" || !strings.Contains(e.Message, "at least 25") {
		t.Fatalf("driver 24, motorhome: %+v", e)
	}
	r.DriverAge = 25
	if e := c.Quote(&r, &q); e != nil || q.Terms.MinDriverAge != 25 {
		t.Fatalf("driver 25, motorhome: %v, min age %d", e, q.Terms.MinDriverAge)
	}
	// The alternatives of a refused quote are vehicles the driver may hire.
	r.DriverAge = 20
	e = c.Quote(&r, &q)
	alts := c.Alternatives(r, true, e, nil)
	if len(alts) == 0 {
		t.Fatal("no alternatives for a driver of 20")
	}
	for _, a := range alts {
		if v := c.Vehicle(a.VehicleID); v == nil || v.MinDriverAge > 20 {
			t.Errorf("alternative %+v: not a vehicle a driver of 20 may hire", a)
		}
	}
}

// TestFilterDriverAge: a search with a driver's age keeps exactly the vehicles whose
// minimum age it reaches.
func TestFilterDriverAge(t *testing.T) {
	c := bundledCatalog(t)
	all, e := c.Availability(search(1, 1, "2027-03-10", "2027-03-20"), nil)
	if e != nil {
		t.Fatal(e)
	}
	for _, age := range []int{16, 18, 20, 21, 24, 25, 99} {
		got, _ := c.AvailabilityFiltered(search(1, 1, "2027-03-10", "2027-03-20"), &Filter{DriverAge: age}, nil)
		want := 0
		for _, o := range all {
			if o.Vehicle.MinDriverAge <= age {
				want++
			}
		}
		if len(got) != want {
			t.Errorf("driver_age %d: %d offers, want %d", age, len(got), want)
		}
		for _, o := range got {
			if o.Vehicle.MinDriverAge > age {
				t.Errorf("driver_age %d: offer of %s (minimum %d)", age, o.Vehicle.Name, o.Vehicle.MinDriverAge)
			}
		}
	}
}
