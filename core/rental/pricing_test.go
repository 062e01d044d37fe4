package rental

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in ../../testdata/golden")

func TestAccessoryCost(t *testing.T) {
	seat := &Accessory{ID: 1, PriceCents: 1200, PerDay: true, MaxChargeCents: 12000, MaxQuantity: 2}
	gps := &Accessory{ID: 5, PriceCents: 800, PerDay: true, MaxQuantity: 1}
	chair := &Accessory{ID: 2, PriceCents: 1500, MaxQuantity: 6}
	huge := &Accessory{ID: 9, PriceCents: maxPriceCents, PerDay: true, MaxQuantity: 100}
	tests := []struct {
		a         *Accessory
		days, qty int
		want      int64
	}{
		{seat, 1, 1, 1200},
		{seat, 5, 1, 6000},
		{seat, 10, 1, 12000}, // exactly the cap
		{seat, 12, 1, 12000}, // capped per unit
		{seat, 12, 2, 24000}, // cap applies per unit, then times quantity
		{seat, 9, 2, 21600},  // under the cap
		{gps, 30, 1, 24000},  // no cap
		{chair, 1, 3, 4500},  // per hire: days do not matter
		{chair, 40, 3, 4500},
		{chair, 0, 3, 0},
		{seat, 5, 0, 0},
		{seat, -1, 1, 0},
		{nil, 5, 1, 0},
		{huge, 1 << 30, 1 << 30, maxCents}, // saturates, never wraps
	}
	for _, tt := range tests {
		if got := AccessoryCost(tt.a, tt.days, tt.qty); got != tt.want {
			t.Errorf("AccessoryCost(%+v, %d, %d) = %d, want %d", tt.a, tt.days, tt.qty, got, tt.want)
		}
	}
}

func TestInsuranceCost(t *testing.T) {
	zero := &InsurancePlan{ID: 31, PriceCents: 0}
	capped := &InsurancePlan{ID: 33, PriceCents: 4500, MaxDays: 10}
	uncapped := &InsurancePlan{ID: 99, PriceCents: 3000}
	tests := []struct {
		p    *InsurancePlan
		days int
		want int64
	}{
		{zero, 12, 0},
		{capped, 1, 4500},
		{capped, 10, 45000},
		{capped, 12, 45000}, // charged for at most MaxDays days
		{capped, 90, 45000},
		{uncapped, 20, 60000},
		{capped, 0, 0},
		{nil, 5, 0},
		{&InsurancePlan{PriceCents: maxPriceCents}, 1 << 30, maxCents},
	}
	for _, tt := range tests {
		if got := InsuranceCost(tt.p, tt.days); got != tt.want {
			t.Errorf("InsuranceCost(%+v, %d) = %d, want %d", tt.p, tt.days, got, tt.want)
		}
	}
}

// TestPricingWorkedExample reproduces the example of docs/pricing.md to the cent.
func TestPricingWorkedExample(t *testing.T) {
	c := bundledCatalog(t)
	req := QuoteRequest{
		Search:      search(2, 3, "2026-12-08", "2026-12-19"), // Christchurch -> Queenstown
		VehicleID:   5,                                        // Pukeko 4-Berth Campervan
		Accessories: []Pick{{ID: 1, Quantity: 1}, {ID: 2, Quantity: 2}, {ID: 1, Quantity: 1}},
		InsuranceID: 33, // Zero excess, $45/day, at most 10 days
	}
	var q Quote
	if err := c.Quote(&req, &q); err != nil {
		t.Fatal(err.Message)
	}
	check := func(what string, got, want int64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", what, got, want)
		}
	}
	check("Days", int64(q.Days), 12)
	check("RentalCents", q.RentalCents, 7*15900+5*25900) // 7 shoulder days + 5 peak days = 240800
	check("RouteCents", q.RouteCents, 19500)             // Christchurch -> Queenstown, under 14 days
	if len(q.Accessories) != 2 || q.Accessories[0].Accessory.ID != 1 || q.Accessories[1].Accessory.ID != 2 {
		t.Fatalf("accessory lines = %+v", q.Accessories)
	}
	check("child seat quantity", int64(q.Accessories[0].Quantity), 2)
	check("child seat cost", q.Accessories[0].CostCents, 2*12000) // 12 x $12 = $144 capped at $120, x 2
	check("camping chairs cost", q.Accessories[1].CostCents, 2*1500)
	check("AccessoriesCents", q.AccessoriesCents, 27000)
	check("InsuranceCents", q.InsuranceCents, 10*4500) // 12 days, charged for 10
	check("TotalCents", q.TotalCents, 240800+19500+27000+45000)
	check("TotalCents", q.TotalCents, 332300)
	if q.Insurance == nil || q.Insurance.ID != 33 || q.Vehicle.ID != 5 {
		t.Errorf("quote = %+v", q)
	}
	offers, _ := c.Availability(req.Search, nil)
	check("Offer.DailyRateCents", offerIDs(offers)[5].DailyRateCents, 20067) // 240800 / 12 = 20066.67
}

func TestQuoteErrors(t *testing.T) {
	c := bundledCatalog(t)
	s := search(1, 1, "2027-06-10", "2027-06-20")
	tests := []struct {
		name     string
		req      QuoteRequest
		kind     Kind
		param    string
		contains string
	}{
		{"unknown vehicle", QuoteRequest{Search: s, VehicleID: 999}, KindInvalid, "vehicle_id", "vehicle_id 999 is not a vehicle"},
		{"accessory of another class", QuoteRequest{Search: s, VehicleID: 1, Accessories: []Pick{{10, 1}}}, KindInvalid, "accessory_ids", "accessory_ids: 10 (Baby booster seat) is not offered with the Tui 2-Berth Compact (vehicle 1)"},
		{"unknown accessory", QuoteRequest{Search: s, VehicleID: 1, Accessories: []Pick{{2, 1}, {999, 1}}}, KindInvalid, "accessory_ids", "accessory_ids: 999 does not exist"},
		{"quantity above max by repetition", QuoteRequest{Search: s, VehicleID: 5, Accessories: []Pick{{1, 1}, {1, 1}, {1, 1}}}, KindInvalid, "accessory_ids", "asks for 3 units of accessory 1 (Child safety seat), but at most 2"},
		{"quantity above max in one pick", QuoteRequest{Search: s, VehicleID: 5, Accessories: []Pick{{3, 2}}}, KindInvalid, "accessory_ids", "at most 1 can be added"},
		{"quantity zero", QuoteRequest{Search: s, VehicleID: 5, Accessories: []Pick{{3, 0}}}, KindInvalid, "accessory_ids", "must be at least 1"},
		{"insurance of another class", QuoteRequest{Search: s, VehicleID: 1, InsuranceID: 41}, KindInvalid, "insurance_id", "insurance_id: 41 (Standard cover (NZ$7,500 excess)) is not offered with the Tui"},
		{"unknown insurance", QuoteRequest{Search: s, VehicleID: 1, InsuranceID: -3}, KindInvalid, "insurance_id", "insurance_id: -3 does not exist"},
		{"not available", QuoteRequest{Search: search(1, 1, "2026-12-22", "2026-12-30"), VehicleID: 7}, KindNotFound, "vehicle_id", "is booked out at Auckland Airport (depot 1) on 2026-12-22"},
		{"not based there", QuoteRequest{Search: search(3, 3, "2027-06-10", "2027-06-20"), VehicleID: 10}, KindNotFound, "vehicle_id", "is not based at Queenstown"},
		{"min hire", QuoteRequest{Search: search(1, 1, "2027-06-10", "2027-06-10"), VehicleID: 8}, KindNotFound, "vehicle_id", "minimum hire of 4 days"},
		{"search checked first", QuoteRequest{Search: search(7, 3, "2027-06-10", "2027-06-20"), VehicleID: 999}, KindInvalid, "drop_off_depot_id", "not offered"},
	}
	for _, tt := range tests {
		var q Quote
		err := c.Quote(&tt.req, &q)
		if err == nil {
			t.Errorf("%s: Quote = nil error, want %q", tt.name, tt.param)
			continue
		}
		if err.Kind != tt.kind || err.Param != tt.param || !strings.Contains(err.Message, tt.contains) {
			t.Errorf("%s: Quote = {%d %q %q}, want {%d %q ...%q...}", tt.name, err.Kind, err.Param, err.Message, tt.kind, tt.param, tt.contains)
		}
	}
	if err := c.Quote(&QuoteRequest{Search: s, VehicleID: 1}, nil); err == nil || err.Kind != KindInternal {
		t.Errorf("Quote(nil dst) = %v, want KindInternal", err)
	}
}

func TestQuoteRules(t *testing.T) {
	c := bundledCatalog(t)
	quote := func(req QuoteRequest) Quote {
		t.Helper()
		var q Quote
		if err := c.Quote(&req, &q); err != nil {
			t.Fatalf("Quote(%+v) = %s", req, err.Message)
		}
		return q
	}
	// Route fee: table fee under 14 days, waived from 14 days, 0 for the same depot.
	if q := quote(QuoteRequest{Search: search(1, 2, "2027-06-01", "2027-06-13"), VehicleID: 1}); q.Days != 13 || q.RouteCents != 29500 {
		t.Errorf("13-day Auckland->Christchurch: days %d route %d, want 13, 29500", q.Days, q.RouteCents)
	}
	if q := quote(QuoteRequest{Search: search(1, 2, "2027-06-01", "2027-06-14"), VehicleID: 1}); q.Days != 14 || q.RouteCents != 0 {
		t.Errorf("14-day Auckland->Christchurch: days %d route %d, want 14, 0 (waived)", q.Days, q.RouteCents)
	}
	if q := quote(QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 1}); q.RouteCents != 0 {
		t.Errorf("same depot route fee = %d, want 0", q.RouteCents)
	}
	if q := quote(QuoteRequest{Search: search(4, 3, "2027-06-01", "2027-06-05"), VehicleID: 1}); q.RouteCents != 22500 {
		t.Errorf("Wellington->Queenstown = %d, want 22500 (direction matters)", q.RouteCents)
	}
	// Insurance: none -> nil; the zero-price plan -> the plan, cost 0.
	if q := quote(QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 1}); q.Insurance != nil || q.InsuranceCents != 0 {
		t.Errorf("no insurance: %+v", q.Insurance)
	}
	if q := quote(QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 1, InsuranceID: 21}); q.Insurance == nil || q.Insurance.ID != 21 || q.InsuranceCents != 0 {
		t.Errorf("zero-price plan: %+v %d", q.Insurance, q.InsuranceCents)
	}
	// Duplicate ids merge into one line, in order of first appearance.
	q := quote(QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 5,
		Accessories: []Pick{{6, 1}, {2, 1}, {6, 2}, {2, 1}, {1, 2}}})
	var got []string
	for _, l := range q.Accessories {
		got = append(got, strings.Repeat("x", l.Quantity)+l.Accessory.Name)
	}
	want := []string{"xxxBedding pack (per person)", "xxCamping chair", "xxChild safety seat"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("merged lines = %q, want %q", got, want)
	}
	if q.AccessoriesCents != 3*3500+2*1500+2*5*1200 {
		t.Errorf("AccessoriesCents = %d", q.AccessoriesCents)
	}
	// The destination is reused: a second quote without accessories has none.
	var dst Quote
	c.Quote(&QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 5, Accessories: []Pick{{2, 1}}}, &dst)
	c.Quote(&QuoteRequest{Search: search(1, 1, "2027-06-01", "2027-06-05"), VehicleID: 5}, &dst)
	if len(dst.Accessories) != 0 || dst.AccessoriesCents != 0 {
		t.Errorf("reused dst kept accessories: %+v", dst.Accessories)
	}
}

func TestQuoteAllocs(t *testing.T) {
	c := bundledCatalog(t)
	req := QuoteRequest{Search: search(2, 3, "2026-12-08", "2026-12-19"), VehicleID: 5,
		Accessories: []Pick{{1, 2}, {2, 2}, {6, 4}}, InsuranceID: 33}
	var q Quote
	c.Quote(&req, &q)
	if allocs := testing.AllocsPerRun(200, func() { c.Quote(&req, &q) }); allocs != 0 {
		t.Errorf("Quote allocs/op = %v, want 0", allocs)
	}
}

// goldenQuote is the stable rendering of a quote (or its error) in the golden files.
type goldenQuote struct {
	Request struct {
		PickUpDepotID  int64        `json:"pick_up_depot_id"`
		DropOffDepotID int64        `json:"drop_off_depot_id"`
		PickUpDate     string       `json:"pick_up_date"`
		DropOffDate    string       `json:"drop_off_date"`
		Today          string       `json:"today"`
		VehicleID      int64        `json:"vehicle_id"`
		Accessories    []goldenPick `json:"accessories"`
		InsuranceID    int64        `json:"insurance_id"`
	} `json:"request"`
	Error *struct {
		Status  int    `json:"status"`
		Param   string `json:"param"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Quote *goldenFees `json:"quote,omitempty"`
}

type goldenPick struct {
	ID       int64 `json:"id"`
	Quantity int   `json:"quantity"`
}

type goldenFees struct {
	Vehicle          string `json:"vehicle"`
	Days             int    `json:"days"`
	DailyRateCents   int64  `json:"daily_rate_cents"`
	RentalCents      int64  `json:"rental_cents"`
	RouteCents       int64  `json:"route_cents"`
	AccessoriesCents int64  `json:"accessories_cents"`
	InsuranceCents   int64  `json:"insurance_cents"`
	TotalCents       int64  `json:"total_cents"`
	Accessories      []struct {
		ID        int64  `json:"id"`
		Name      string `json:"name"`
		Quantity  int    `json:"quantity"`
		CostCents int64  `json:"cost_cents"`
	} `json:"accessories"`
	Insurance *struct {
		ID        int64  `json:"id"`
		Name      string `json:"name"`
		CostCents int64  `json:"cost_cents"`
	} `json:"insurance"`
}

func TestGoldenQuotes(t *testing.T) {
	c := bundledCatalog(t)
	cases := []struct {
		name string
		req  QuoteRequest
	}{
		{"worked-example-season-boundary-one-way", QuoteRequest{Search: search(2, 3, "2026-12-08", "2026-12-19"), VehicleID: 5, Accessories: []Pick{{1, 2}, {2, 2}}, InsuranceID: 33}},
		{"low-season-round-trip-standard-cover", QuoteRequest{Search: search(1, 1, "2027-06-14", "2027-06-20"), VehicleID: 1, InsuranceID: 21}},
		{"one-way-route-fee-waived", QuoteRequest{Search: search(1, 2, "2027-02-01", "2027-02-20"), VehicleID: 9, Accessories: []Pick{{10, 3}, {6, 4}}, InsuranceID: 42}},
		{"summer-holidays-motorhome-insurance-capped", QuoteRequest{Search: search(2, 2, "2026-12-20", "2027-01-05"), VehicleID: 12, Accessories: []Pick{{11, 1}, {7, 1}}, InsuranceID: 43}},
		{"free-route-across-autumn-boundary", QuoteRequest{Search: search(4, 5, "2027-02-25", "2027-03-04"), VehicleID: 11, Accessories: []Pick{{8, 1}, {4, 1}}}},
		{"max-hire-90-days-caps", QuoteRequest{Search: search(1, 4, "2027-05-01", "2027-07-29"), VehicleID: 3, Accessories: []Pick{{5, 1}, {9, 1}, {1, 1}}, InsuranceID: 32}},
		{"compact-easter-picton", QuoteRequest{Search: search(5, 2, "2027-04-12", "2027-04-16"), VehicleID: 2, Accessories: []Pick{{2, 6}, {6, 2}}, InsuranceID: 23}},
		{"booked-out-not-found", QuoteRequest{Search: search(1, 1, "2026-12-22", "2027-01-04"), VehicleID: 7}},
	}
	dir := filepath.Join("..", "..", "testdata", "golden", "quotes")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var g goldenQuote
			r := tc.req
			g.Request.PickUpDepotID, g.Request.DropOffDepotID = r.PickUpDepot, r.DropOffDepot
			g.Request.PickUpDate, g.Request.DropOffDate, g.Request.Today = r.PickUp.String(), r.DropOff.String(), r.Today.String()
			g.Request.VehicleID, g.Request.InsuranceID = r.VehicleID, r.InsuranceID
			g.Request.Accessories = []goldenPick{}
			for _, p := range r.Accessories {
				g.Request.Accessories = append(g.Request.Accessories, goldenPick(p))
			}
			var q Quote
			if err := c.Quote(&r, &q); err != nil {
				g.Error = &struct {
					Status  int    `json:"status"`
					Param   string `json:"param"`
					Message string `json:"message"`
				}{goldenStatus[err.Kind], err.Param, err.Message}
			} else {
				g.Quote = &goldenFees{Accessories: []struct {
					ID        int64  `json:"id"`
					Name      string `json:"name"`
					Quantity  int    `json:"quantity"`
					CostCents int64  `json:"cost_cents"`
				}{}}
				g := g.Quote
				g.Vehicle, g.Days = q.Vehicle.Name, q.Days
				g.DailyRateCents = dailyRate(q.RentalCents, q.Days)
				g.RentalCents, g.RouteCents, g.AccessoriesCents, g.InsuranceCents, g.TotalCents = q.RentalCents, q.RouteCents, q.AccessoriesCents, q.InsuranceCents, q.TotalCents
				for _, l := range q.Accessories {
					g.Accessories = append(g.Accessories, struct {
						ID        int64  `json:"id"`
						Name      string `json:"name"`
						Quantity  int    `json:"quantity"`
						CostCents int64  `json:"cost_cents"`
					}{l.Accessory.ID, l.Accessory.Name, l.Quantity, l.CostCents})
				}
				if q.Insurance != nil {
					g.Insurance = &struct {
						ID        int64  `json:"id"`
						Name      string `json:"name"`
						CostCents int64  `json:"cost_cents"`
					}{q.Insurance.ID, q.Insurance.Name, q.InsuranceCents}
				}
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(dir, tc.name+".json")
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (make goldens creates it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}

// TestQuoteProperties checks, over many generated searches on the bundled data,
// that Availability and Quote agree and that every fee obeys its rules.
func TestQuoteProperties(t *testing.T) {
	c := bundledCatalog(t)
	rng := rand.New(rand.NewSource(1))
	depots := []int64{1, 2, 3, 4, 5, 6, 7, 99}
	var offers []Offer
	var q Quote
	n := 4000
	if testing.Short() {
		n = 500
	}
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		pick := testToday.AddDays(rng.Intn(760) - 5)
		s := Search{PickUpDepot: depots[rng.Intn(len(depots))], DropOffDepot: depots[rng.Intn(len(depots))],
			PickUp: pick, DropOff: pick.AddDays(rng.Intn(40) - 2), Today: testToday}
		if rng.Intn(3) == 0 {
			s.DropOffDepot = s.PickUpDepot
		}
		var err *Error
		offers, err = c.Availability(s, offers)
		if err != nil {
			stats["invalid"]++
			if len(offers) != 0 {
				t.Fatalf("Availability returned offers with an error")
			}
			if e2 := c.CheckSearch(s); e2 == nil || e2.Message != err.Message || e2.Kind != KindInvalid {
				t.Fatalf("CheckSearch and Availability disagree on %+v", s)
			}
			continue
		}
		listed := offerIDs(offers)
		for _, v := range c.Vehicles() {
			req := QuoteRequest{Search: s, VehicleID: v.ID}
			for _, a := range c.Accessories(&v) {
				if rng.Intn(3) == 0 {
					req.Accessories = append(req.Accessories, Pick{ID: a.ID, Quantity: 1 + rng.Intn(a.MaxQuantity)})
				}
			}
			if plans := c.InsurancePlans(&v); rng.Intn(4) > 0 {
				req.InsuranceID = plans[rng.Intn(len(plans))].ID
			}
			qerr := c.Quote(&req, &q)
			o, ok := listed[v.ID]
			if !ok {
				stats["unavailable"]++
				if qerr == nil || qerr.Kind != KindNotFound || qerr.Param != "vehicle_id" {
					t.Fatalf("vehicle %d left out of %+v but Quote = %v", v.ID, s, qerr)
				}
				if r := c.Unavailable(s, v.ID); r == "" || r != qerr.Message {
					t.Fatalf("Unavailable(%+v, %d) = %q, Quote says %q", s, v.ID, r, qerr.Message)
				}
				continue
			}
			stats["quoted"]++
			if qerr != nil {
				t.Fatalf("vehicle %d offered for %+v but Quote = %s", v.ID, s, qerr.Message)
			}
			if c.Unavailable(s, v.ID) != "" {
				t.Fatalf("offered vehicle has an Unavailable reason")
			}
			if q.RentalCents != o.RentalCents || q.Days != o.Days || q.Days != int(s.DropOff-s.PickUp)+1 {
				t.Fatalf("quote %+v disagrees with offer %+v", q, o)
			}
			if q.RentalCents <= 0 || q.RouteCents < 0 || q.AccessoriesCents < 0 || q.InsuranceCents < 0 {
				t.Fatalf("negative or zero fee: %+v", q)
			}
			if q.TotalCents != q.RentalCents+q.RouteCents+q.AccessoriesCents+q.InsuranceCents {
				t.Fatalf("total is not the sum of the fees: %+v", q)
			}
			var sum int64
			for _, l := range q.Accessories {
				sum += l.CostCents
			}
			if sum != q.AccessoriesCents {
				t.Fatalf("accessory lines sum %d != %d", sum, q.AccessoriesCents)
			}
			if s.PickUpDepot == s.DropOffDepot && q.RouteCents != 0 {
				t.Fatalf("same-depot route fee %d", q.RouteCents)
			}
			if q.Days >= 14 && q.RouteCents != 0 {
				t.Fatalf("route fee %d not waived for %d days", q.RouteCents, q.Days)
			}
			if d := o.DailyRateCents*int64(o.Days) - o.RentalCents; 2*d > int64(o.Days) || -2*d > int64(o.Days) {
				t.Fatalf("daily rate %d x %d days is more than half a cent a day from %d", o.DailyRateCents, o.Days, o.RentalCents)
			}
		}
	}
	t.Logf("searches: %d, outcomes: %v", n, stats)
	if stats["quoted"] == 0 || stats["unavailable"] == 0 || stats["invalid"] == 0 {
		t.Errorf("generator does not reach every outcome: %v", stats)
	}
}

func FuzzQuote(f *testing.F) {
	c := bundledCatalog(f)
	f.Add(int64(2), int64(3), int32(20795), int32(20806), int64(5), int64(1), 2, int64(33))
	f.Add(int64(1), int64(1), int32(20809), int32(20822), int64(7), int64(0), 0, int64(0))
	f.Fuzz(func(t *testing.T, pd, dd int64, pu, do int32, vid, acc int64, qty int, ins int64) {
		var q Quote
		req := QuoteRequest{Search: Search{PickUpDepot: pd, DropOffDepot: dd, PickUp: Date(pu), DropOff: Date(do), Today: testToday},
			VehicleID: vid, Accessories: []Pick{{acc, qty}}, InsuranceID: ins}
		if err := c.Quote(&req, &q); err == nil && (q.TotalCents < 0 || q.Days < 1) {
			t.Fatalf("bad quote %+v", q)
		}
		c.Availability(req.Search, nil)
		c.Unavailable(req.Search, vid)
	})
}

// goldenStatus is the HTTP status the API answers each kind with (api.ErrorStatus), as
// the golden files record it.
var goldenStatus = map[Kind]int{KindInvalid: 400, KindNotFound: 404, KindUnavailable: 503, KindInternal: 500}
