package api

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
)

// appendHireTermsReference is termsAt with the appenders (TestQuoteAtRoom's reference).
func appendHireTermsReference(b []byte, t *rental.HireTerms) []byte {
	b = bytebuf.Put(b, `,"terms":{"excess":`)
	b = jsonw.AppendMoney(b, t.ExcessCents)
	b = bytebuf.Put(b, `,"bond":`)
	b = jsonw.AppendMoney(b, t.BondCents)
	b = bytebuf.Put(b, `,"cancellation":[`)
	for i := 0; i < t.NTiers; i++ {
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = t.Tiers[i].Until.AppendTo(bytebuf.Put(b, `{"until":"`))
		b = bytebuf.PutByte(jsonw.AppendMoney(bytebuf.Put(b, `","fee":`), t.Tiers[i].FeeCents), '}')
	}
	b = bytebuf.Put(b, `],"payment":[`)
	for i := 0; i < t.NPayments; i++ {
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = t.Payments[i].Due.AppendTo(bytebuf.Put(b, `{"due":"`))
		b = bytebuf.PutByte(jsonw.AppendMoney(bytebuf.Put(b, `","amount":`), t.Payments[i].AmountCents), '}')
	}
	b = jsonw.AppendInt(bytebuf.Put(b, `],"minimumDriverAge":`), int64(t.MinDriverAge))
	return bytebuf.PutByte(b, '}')
}

// extremeTerms are a hire's terms at their largest: every tier and payment, amounts of
// c cents, the widest dates (none when lines is 0: the smallest).
func extremeTerms(c int64, lines int) rental.HireTerms {
	t := rental.HireTerms{ExcessCents: c, BondCents: c, MinDriverAge: math.MinInt}
	if lines == 0 {
		return t
	}
	t.NTiers, t.NPayments = len(t.Tiers), len(t.Payments)
	for i := range t.Tiers {
		t.Tiers[i] = rental.Tier{Until: rental.Date(math.MinInt32 + i), FeeCents: c}
	}
	for i := range t.Payments {
		t.Payments[i] = rental.Payment{Due: rental.Date(math.MaxInt32 - i), AmountCents: c}
	}
	return t
}

// TestDriverAgeParam: driver_age takes an integer from 16 to 99 on the searches, the
// calendar and quotes; anything else is a 400 naming driver_age.
func TestDriverAgeParam(t *testing.T) {
	s := searchServer(t)
	targets := []string{avMarch,
		"/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-16&days=7",
		"/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24&vehicle_id=1"}
	for _, c := range []struct {
		v    string
		want int
	}{
		{"16", 200}, {"18", 200}, {"99", 200}, {"", 200}, {"016", 200},
		{"15", 400}, {"100", 400}, {"0", 400}, {"-21", 400}, {"21.5", 400}, {"2 1", 400}, {"twenty", 400}, {"1e2", 400}, {"99999999999999999999", 400},
	} {
		for _, target := range targets {
			d := do(s, "GET", target+"&driver_age="+strings.ReplaceAll(c.v, " ", "%20"))
			if d.Status == 404 && c.want == 200 && strings.Contains(string(d.Body), rental.CodeDriverTooYoung) {
				continue // a quote for a driver younger than the vehicle allows: the value was taken
			}
			if d.Status != c.want {
				t.Errorf("driver_age=%q on %s: %d, want %d: %s", c.v, target, d.Status, c.want, d.Body)
				continue
			}
			if c.want == 400 {
				var e struct{ Error, Code, Param string }
				if json.Unmarshal(d.Body, &e) != nil || e.Param != "driver_age" || e.Code != rental.CodeInvalidParameter || !strings.Contains(e.Error, "16 to 99") {
					t.Errorf("driver_age=%q on %s: %s", c.v, target, d.Body)
				}
			}
		}
	}
}

// TestIncludeParam: include takes insurance; another value is a 400 naming include and
// the value it takes.
func TestIncludeParam(t *testing.T) {
	s := searchServer(t)
	for _, c := range []struct {
		v    string
		want int
	}{
		{"insurance", 200}, {"", 200},
		{"Insurance", 400}, {"terms", 400}, {"insurance,terms", 400}, {"insurance,", 400}, {"insurance,insurance", 400},
	} {
		for _, target := range []string{avMarch, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-16&days=7"} {
			d := do(s, "GET", target+"&include="+c.v)
			if d.Status != c.want {
				t.Errorf("include=%q: %d, want %d: %s", c.v, d.Status, c.want, d.Body)
				continue
			}
			has := strings.Contains(string(d.Body), `"insuranceOptions"`)
			if c.want == 200 && has != (c.v != "") {
				t.Errorf("include=%q: insuranceOptions in the answer: %v", c.v, has)
			}
			if c.want == 400 {
				var e struct{ Error, Param string }
				if json.Unmarshal(d.Body, &e) != nil || e.Param != "include" || !strings.Contains(e.Error, "must be insurance") {
					t.Errorf("include=%q: %s", c.v, d.Body)
				}
			}
		}
	}
	// The quotes take no include.
	if d := do(s, "GET", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24&vehicle_id=1&include=insurance"); d.Status != 400 {
		t.Errorf("a quote with include: %d %s", d.Status, d.Body)
	}
}

type optionResult struct {
	ID          int64       `json:"id"`
	Cost        json.Number `json:"cost"`
	Excess      json.Number `json:"excess"`
	Bond        json.Number `json:"bond"`
	TotalAmount json.Number `json:"totalAmount"`
}

type quoteTerms struct {
	TotalAmount json.Number `json:"totalAmount"`
	Insurance   *struct {
		ID   int64       `json:"id"`
		Cost json.Number `json:"cost"`
	} `json:"insurance"`
	Terms struct {
		Excess       json.Number `json:"excess"`
		Bond         json.Number `json:"bond"`
		Cancellation []struct {
			Until string      `json:"until"`
			Fee   json.Number `json:"fee"`
		} `json:"cancellation"`
		Payment []struct {
			Due    string      `json:"due"`
			Amount json.Number `json:"amount"`
		} `json:"payment"`
		MinimumDriverAge int `json:"minimumDriverAge"`
	} `json:"terms"`
}

// nzdCents reads an NZD amount of an answer as integer cents, exactly.
func nzdCents(t *testing.T, n json.Number) int64 {
	t.Helper()
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		t.Fatalf("%q is not a number", n)
	}
	r.Mul(r, big.NewRat(100, 1))
	if !r.IsInt() {
		t.Fatalf("%q has more than two decimals", n)
	}
	return r.Num().Int64()
}

// TestInsuranceOptionsEqualQuotes prices many hires (depot pairs, start dates over a
// year, several lengths, a driver's age or none) with include=insurance, and asks GET
// /quotes for every vehicle with every one of its plans: each option's cost, excess,
// bond and totalAmount are the quote's, to the cent, and the standard cover's total is
// the vehicle's totalAmount. The calendar's options are the search's.
func TestInsuranceOptionsEqualQuotes(t *testing.T) {
	s := searchServer(t)
	rng := rand.New(rand.NewSource(53))
	type vehicle struct {
		vehicleResult
		Options []optionResult `json:"insuranceOptions"`
	}
	searches, options := 0, 0
	for i := 0; i < 60; i++ {
		from, to := int64(1+rng.Intn(5)), int64(1+rng.Intn(5))
		if rng.Intn(2) == 0 {
			to = from
		}
		pick := testToday.AddDays(3 + rng.Intn(400))
		drop := pick.AddDays(rng.Intn(20))
		age := ""
		if rng.Intn(3) == 0 {
			age = fmt.Sprintf("&driver_age=%d", 18+rng.Intn(10))
		}
		search := fmt.Sprintf("pick_up_depot_id=%d&drop_off_depot_id=%d&pick_up_date=%s&drop_off_date=%s", from, to, pick, drop)
		d := do(s, "GET", "/api/agent/vehicles/availability?"+search+age+"&include=insurance")
		if d.Status != 200 {
			continue
		}
		var vs []vehicle
		if err := json.Unmarshal(d.Body, &vs); err != nil {
			t.Fatal(err)
		}
		searches++
		for _, v := range vs {
			if len(v.Options) == 0 {
				t.Fatalf("%s: vehicle %d has no insurance options", search, v.VehicleID)
			}
			for k, o := range v.Options {
				q := do(s, "GET", fmt.Sprintf("/api/agent/quotes?%s&vehicle_id=%d&insurance_id=%d%s", search, v.VehicleID, o.ID, age))
				var qt quoteTerms
				if q.Status != 200 || json.Unmarshal(q.Body, &qt) != nil || qt.Insurance == nil {
					t.Fatalf("%s vehicle %d plan %d: quote %d %s", search, v.VehicleID, o.ID, q.Status, q.Body)
				}
				if nzdCents(t, qt.TotalAmount) != nzdCents(t, o.TotalAmount) || nzdCents(t, qt.Insurance.Cost) != nzdCents(t, o.Cost) ||
					nzdCents(t, qt.Terms.Excess) != nzdCents(t, o.Excess) || nzdCents(t, qt.Terms.Bond) != nzdCents(t, o.Bond) {
					t.Fatalf("%s vehicle %d: option %+v, quote total %s cost %s excess %s bond %s", search, v.VehicleID, o, qt.TotalAmount, qt.Insurance.Cost, qt.Terms.Excess, qt.Terms.Bond)
				}
				if k == 0 && (nzdCents(t, o.Cost) != 0 || nzdCents(t, o.TotalAmount) != nzdCents(t, v.TotalAmount)) {
					t.Fatalf("%s vehicle %d: the standard cover %+v, vehicle total %s", search, v.VehicleID, o, v.TotalAmount)
				}
				options++
			}
		}
		// The calendar of the same start date and length: the same options.
		days := int(drop-pick) + 1
		c := do(s, "GET", fmt.Sprintf("/api/agent/vehicles/availability/calendar?pick_up_depot_id=%d&drop_off_depot_id=%d&earliest_pick_up_date=%s&latest_pick_up_date=%s&days=%d%s&include=insurance&detail=full", from, to, pick, pick, days, age))
		var entries []struct {
			Vehicles []vehicle `json:"vehicles"`
		}
		if c.Status != 200 || json.Unmarshal(c.Body, &entries) != nil || len(entries) != 1 || len(entries[0].Vehicles) != len(vs) {
			t.Fatalf("%s: calendar %d, %d vehicles for the search's %d: %.300s", search, c.Status, len(entries), len(vs), c.Body)
		}
		want := map[int64][]optionResult{}
		for _, v := range vs {
			want[v.VehicleID] = v.Options
		}
		for _, v := range entries[0].Vehicles {
			if fmt.Sprint(v.Options) != fmt.Sprint(want[v.VehicleID]) {
				t.Fatalf("%s: calendar options of vehicle %d %v, search %v", search, v.VehicleID, v.Options, want[v.VehicleID])
			}
		}
	}
	if searches < 30 || options < 600 {
		t.Fatalf("only %d searches and %d options compared", searches, options)
	}
}

// TestQuoteTermsAnswer: a quote's terms as answered: payments add up to totalAmount, in
// date order from today; tiers in date order, fees never going down, at most the total,
// the last on the pick-up date; a driver too young is a 404 naming the minimum age.
func TestQuoteTermsAnswer(t *testing.T) {
	s := searchServer(t)
	for _, c := range []struct {
		query    string
		payments int
		tiers    int
	}{
		{"pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&insurance_id=33", 2, 4},
		{"pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33", 1, 2},
		{"pick_up_depot_id=2&drop_off_depot_id=2&pick_up_date=2026-12-23&drop_off_date=2026-12-27&vehicle_id=2", 2, 3},
		{"pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-22&drop_off_date=2027-01-02&vehicle_id=1&driver_age=18", 1, 3}, // balance due today: one payment; the 30-day tier ends today
	} {
		d := do(s, "GET", "/api/agent/quotes?"+c.query)
		var q quoteTerms
		if d.Status != 200 || json.Unmarshal(d.Body, &q) != nil {
			t.Fatalf("%s: %d %s", c.query, d.Status, d.Body)
		}
		total := nzdCents(t, q.TotalAmount)
		var sum int64
		for i, p := range q.Terms.Payment {
			sum += nzdCents(t, p.Amount)
			if (i == 0 && p.Due != testToday.String()) || (i > 0 && p.Due <= q.Terms.Payment[i-1].Due) {
				t.Errorf("%s: payments %+v", c.query, q.Terms.Payment)
			}
		}
		if sum != total || len(q.Terms.Payment) != c.payments || len(q.Terms.Cancellation) != c.tiers {
			t.Errorf("%s: %d payments summing to %d cents of %d, %d tiers", c.query, len(q.Terms.Payment), sum, total, len(q.Terms.Cancellation))
		}
		last := q.Terms.Cancellation[len(q.Terms.Cancellation)-1]
		if !strings.Contains(c.query, "pick_up_date="+last.Until+"&") || nzdCents(t, last.Fee) != total {
			t.Errorf("%s: last tier %+v", c.query, last)
		}
		for i, tr := range q.Terms.Cancellation {
			if tr.Until < testToday.String() || nzdCents(t, tr.Fee) > total || (i > 0 && (tr.Until <= q.Terms.Cancellation[i-1].Until || nzdCents(t, tr.Fee) < nzdCents(t, q.Terms.Cancellation[i-1].Fee))) {
				t.Errorf("%s: tiers %+v", c.query, q.Terms.Cancellation)
			}
		}
	}
	d := do(s, "GET", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24&vehicle_id=6&driver_age=21")
	var e struct {
		Error, Code, Param string
		Suggestions        []struct{ URL string }
	}
	if d.Status != 404 || json.Unmarshal(d.Body, &e) != nil || e.Code != rental.CodeDriverTooYoung || !strings.Contains(e.Error, "at least 25") || len(e.Suggestions) == 0 {
		t.Fatalf("driver 21, motorhome: %d %s", d.Status, d.Body)
	}
	for _, g := range e.Suggestions { // each suggestion is a vehicle the driver may hire, and answers 200
		if r := do(s, "GET", "/api/agent"+g.URL); r.Status != 200 || !strings.Contains(g.URL, "driver_age=21") {
			t.Errorf("suggestion %s: %d %s", g.URL, r.Status, r.Body)
		}
	}
}

// TestTermsDocument: GET /terms is a static answer with a strong ETag (304 on
// If-None-Match), and says what the other answers apply: each plan's excess and bond as
// the insurance lists give them, each class's minimum age as searches apply it.
func TestTermsDocument(t *testing.T) {
	s := searchServer(t)
	d := do(s, "GET", "/api/agent/terms")
	if d.Status != 200 || d.Header("etag") == "" || d.Header("cache-control") != "public, max-age=300" {
		t.Fatalf("GET /terms: %d etag %q cache-control %q", d.Status, d.Header("etag"), d.Header("cache-control"))
	}
	if n := do(s, "GET", "/api/agent/terms", abi.Header{Name: "if-none-match", Value: d.Header("etag")}); n.Status != 304 || len(n.Body) != 0 {
		t.Errorf("If-None-Match its ETag: %d", n.Status)
	}
	if again := do(s, "GET", "/api/agent/terms"); string(again.Body) != string(d.Body) || again.Header("etag") != d.Header("etag") {
		t.Error("a second GET /terms differs from the first")
	}
	var doc struct {
		Insurance []struct {
			ID             int64
			VehicleClasses []string
			Excess, Bond   json.Number
		}
		Drivers struct {
			MinimumAge []struct {
				VehicleClass string
				Age          int
			}
		}
		Includes []string
	}
	if err := json.Unmarshal(d.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Insurance) != 9 || len(doc.Drivers.MinimumAge) != 3 || len(doc.Includes) == 0 {
		t.Fatalf("terms: %d plans, %d ages, %d inclusions", len(doc.Insurance), len(doc.Drivers.MinimumAge), len(doc.Includes))
	}
	cat := bundledCatalog(t)
	for _, p := range doc.Insurance {
		for _, v := range cat.Vehicles() {
			if v.Class != p.VehicleClasses[0] {
				continue
			}
			l := do(s, "GET", fmt.Sprintf("/api/agent/vehicles/%d/insurance-types", v.ID))
			var plans []struct {
				ID           int64
				Excess, Bond json.Number
			}
			json.Unmarshal(l.Body, &plans)
			found := false
			for _, q := range plans {
				if q.ID == p.ID {
					found = nzdCents(t, q.Excess) == nzdCents(t, p.Excess) && nzdCents(t, q.Bond) == nzdCents(t, p.Bond)
				}
			}
			if !found {
				t.Errorf("plan %d: excess %s bond %s, not as vehicle %d's insurance list says: %s", p.ID, p.Excess, p.Bond, v.ID, l.Body)
			}
		}
	}
	for _, a := range doc.Drivers.MinimumAge {
		for _, age := range []int{a.Age - 1, a.Age} {
			r := do(s, "GET", fmt.Sprintf("%s&class=%s&driver_age=%d", avMarch, a.VehicleClass, age))
			var vs []vehicleResult
			json.Unmarshal(r.Body, &vs)
			if (len(vs) > 0) != (age >= a.Age) {
				t.Errorf("class %s (minimum %d), driver_age %d: %d vehicles", a.VehicleClass, a.Age, age, len(vs))
			}
		}
	}
}

// TestSearchETagsFollowTermsParams: where include or driver_age change the answer, they
// change its ETag (availability and the calendar), and the same request keeps it.
func TestSearchETagsFollowTermsParams(t *testing.T) {
	s := searchServer(t)
	cal := "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-16&days=7"
	for _, base := range []string{avMarch, cal} {
		seen := map[string]string{} // ETag -> body
		for _, extra := range []string{"", "&include=insurance", "&driver_age=18", "&driver_age=18&include=insurance", "&driver_age=25", "&driver_age=25&include=insurance"} {
			d := do(s, "GET", base+extra)
			e := d.Header("etag")
			if d.Status != 200 || e == "" {
				t.Fatalf("%s%s: %d %q", base, extra, d.Status, e)
			}
			for oe, ob := range seen {
				if oe == e && ob != string(d.Body) {
					t.Errorf("%s%s: ETag %s of another answer", base, extra, e)
				}
			}
			seen[e] = string(d.Body)
			if again := do(s, "GET", base+extra); again.Header("etag") != e || string(again.Body) != string(d.Body) {
				t.Errorf("%s%s: asked again, another answer", base, extra)
			}
		}
	}
}

// TestTermDateAt: the dates a quote's terms write from their kept texts are Date.At's,
// the first time and after, inside the season calendar and around it.
func TestTermDateAt(t *testing.T) {
	s := searchServer(t)
	first, last := bundledCatalog(t).CalendarRange()
	for round := 0; round < 2; round++ {
		for d := first - 40; d <= last+40; d++ {
			var got, want [rental.DateLen + 3]byte
			if n := s.termDateAt(got[:], 3, d); n != 3+rental.DateLen || d.At(want[:], 3) != n || got != want {
				t.Fatalf("termDateAt(%s) = %q, want %q", d, got[3:], want[3:])
			}
		}
	}
	if len(s.dateTexts) != int(last-first)+1 {
		t.Errorf("%d date texts for a calendar of %d days", len(s.dateTexts), last-first+1)
	}
}
