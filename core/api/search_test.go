package api

import (
	. "github.com/campervan/agent-api/core/rental"

	"github.com/campervan/agent-api/core/text"

	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// searchServer is a server over the bundled catalog at testNow whose rate limit never
// interferes (the tests below send hundreds of requests).
func searchServer(t *testing.T) *Server {
	t.Helper()
	cfg := testConfig()
	cfg.RateLimit = 1 << 30
	return testServer(t, cfg, bundledCatalog(t), nil)
}

type vehicleResult struct {
	VehicleID    int64       `json:"vehicleId"`
	Class        string      `json:"class"`
	Berths       int         `json:"berths"`
	Transmission string      `json:"transmission"`
	RentalFee    json.Number `json:"rentalFee"`
	RouteFee     json.Number `json:"routeFee"`
	TotalAmount  json.Number `json:"totalAmount"`
}

const avMarch = "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24"

// TestAvailabilityFiltersAndSort: each filter and order on the bundled data (Auckland
// round trip, 10 days in March 2027: all 12 vehicles free, vehicle 1 the only manual).
func TestAvailabilityFiltersAndSort(t *testing.T) {
	s := searchServer(t)
	tests := []struct {
		name, extra string
		want        string // vehicle ids in order
	}{
		{"none", "", "1 2 3 4 5 6 7 8 9 10 11 12"},
		{"min_berths", "&min_berths=4", "5 7 8 9 10 12"},
		{"min_berths-6", "&min_berths=6", "9 10"},
		{"min_berths-20", "&min_berths=20", ""},
		{"transmission-manual", "&transmission=manual", "1"},
		{"transmission-automatic", "&transmission=automatic", "2 3 4 5 6 7 8 9 10 11 12"},
		{"class", "&class=campervan", "3 4 5 11"},
		{"max_total", "&max_total=1290", "1 2 3 11"},
		{"max_total-cents", "&max_total=1289.99", "1 2 11"},
		{"max_total-one-decimal", "&max_total=1290.5", "1 2 3 11"},
		{"sort-price", "&sort=price", "1 2 11 3 4 5 6 7 12 9 8 10"},
		{"sort-price-desc", "&sort=-price", "10 8 9 12 7 6 5 4 3 11 2 1"},
		{"sort-berths", "&sort=berths", "1 2 11 6 3 4 5 7 8 12 9 10"},
		{"done-when", "&min_berths=4&transmission=automatic&sort=price", "5 7 12 9 8 10"},
		{"empty-values-are-absent", "&min_berths=&transmission=&class=&max_total=&sort=", "1 2 3 4 5 6 7 8 9 10 11 12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := do(s, "GET", avMarch+tt.extra)
			if d.Status != 200 {
				t.Fatalf("%d %s", d.Status, d.Body)
			}
			var got []vehicleResult
			if err := json.Unmarshal(d.Body, &got); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, v := range got {
				ids = append(ids, fmt.Sprint(v.VehicleID))
			}
			if g := strings.Join(ids, " "); g != tt.want {
				t.Errorf("vehicles %q, want %q", g, tt.want)
			}
		})
	}
}

// TestAvailabilityBadFilters: a bad value is a 400 naming the parameter, listing what
// is accepted, with code invalid_parameter.
func TestAvailabilityBadFilters(t *testing.T) {
	s := searchServer(t)
	tests := []struct{ param, value, accepted string }{
		{"min_berths", "0", "from 1 to 20"},
		{"min_berths", "21", "from 1 to 20"},
		{"min_berths", "four", "from 1 to 20"},
		{"min_berths", "-1", "from 1 to 20"},
		{"transmission", "Automatic", "manual or automatic"},
		{"transmission", "cvt", "manual or automatic"},
		{"class", "van", "compact, campervan or motorhome"},
		{"max_total", "0", "greater than 0"},
		{"max_total", "12.345", "at most two decimals"},
		{"max_total", "1e3", "at most two decimals"},
		{"max_total", "100000000", "greater than 0"},
		{"max_total", ".5", "at most two decimals"},
		{"max_total", "5.", "at most two decimals"},
		{"sort", "cheapest", "price, -price or berths"},
		{"sort", "Price", "price, -price or berths"},
	}
	for _, tt := range tests {
		d := do(s, "GET", avMarch+"&"+tt.param+"="+tt.value)
		var e struct{ Error, Code, Param string }
		json.Unmarshal(d.Body, &e)
		if d.Status != 400 || e.Code != CodeInvalidParameter || e.Param != tt.param || !strings.Contains(e.Error, tt.accepted) || !strings.Contains(e.Error, tt.param) {
			t.Errorf("%s=%s: %d %s; want 400 invalid_parameter naming %s and saying %q", tt.param, tt.value, d.Status, d.Body, tt.param, tt.accepted)
		}
	}
}

// TestAvailabilityTotalsEqualQuotes: every result's fees equal the quote's for the same
// vehicle and dates without extras, one-way hires (route fee, waiver) included.
func TestAvailabilityTotalsEqualQuotes(t *testing.T) {
	s := searchServer(t)
	for _, q := range []string{
		"pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24",
		"pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19",
		"pick_up_depot_id=1&drop_off_depot_id=2&pick_up_date=2027-04-01&drop_off_date=2027-04-14", // waived
		"pick_up_depot_id=1&drop_off_depot_id=2&pick_up_date=2027-04-01&drop_off_date=2027-04-13",
	} {
		d := do(s, "GET", "/api/agent/vehicles/availability?"+q)
		var got []vehicleResult
		if err := json.Unmarshal(d.Body, &got); err != nil || d.Status != 200 || len(got) == 0 {
			t.Fatalf("%s: %d %s", q, d.Status, d.Body)
		}
		for _, v := range got {
			qd := do(s, "GET", fmt.Sprintf("/api/agent/quotes?%s&vehicle_id=%d", q, v.VehicleID))
			var quote struct {
				PriceBreakdown struct{ RentalFee, RouteFee json.Number }
				TotalAmount    json.Number
				GSTIncluded    json.Number `json:"gstIncluded"`
			}
			if err := json.Unmarshal(qd.Body, &quote); err != nil || qd.Status != 200 {
				t.Fatalf("quote %s vehicle %d: %d %s", q, v.VehicleID, qd.Status, qd.Body)
			}
			if quote.TotalAmount != v.TotalAmount || quote.PriceBreakdown.RouteFee != v.RouteFee || quote.PriceBreakdown.RentalFee != v.RentalFee {
				t.Errorf("%s vehicle %d: search %s+%s=%s, quote %s+%s=%s", q, v.VehicleID, v.RentalFee, v.RouteFee, v.TotalAmount,
					quote.PriceBreakdown.RentalFee, quote.PriceBreakdown.RouteFee, quote.TotalAmount)
			}
		}
	}
}

// TestGSTIncluded: total x 3/23 rounded half up, to the cent.
func TestGSTIncluded(t *testing.T) {
	for _, tt := range []struct{ total, gst int64 }{
		{0, 0}, {1, 0}, {4, 1}, {23, 3}, {115, 15}, {159000, 20739}, {332300, 43343}, {100000, 13043},
		// exactly half a cent: 3t/23 = k + 1/2 needs 6t = 23(2k+1): t = 23/6*(odd), never an
		// integer, so ties cannot happen; check the neighbours of a near-tie instead.
		{9, 1}, {12, 2},
	} {
		if got := GSTIncluded(tt.total); got != tt.gst {
			t.Errorf("GSTIncluded(%d) = %d, want %d", tt.total, got, tt.gst)
		}
		// against the definition in exact integer arithmetic
		if tt.total > 0 {
			lo := tt.total * 3 / 23
			want := lo
			if (tt.total*3)%23*2 >= 23 {
				want++
			}
			if GSTIncluded(tt.total) != want {
				t.Errorf("GSTIncluded(%d) = %d, definition says %d", tt.total, GSTIncluded(tt.total), want)
			}
		}
	}
}

// errBody is an error response as a client reads it.
type errBody struct {
	Error       string `json:"error"`
	Code        string `json:"code"`
	Param       string `json:"param"`
	Suggestions []struct {
		URL    string `json:"url"`
		Reason string `json:"reason"`
	} `json:"suggestions"`
}

const (
	qMarch = "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1"
	avAkl  = "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1"
)

// errorCases has a request for every error code a body can carry, and how many
// suggestions it must at least carry.
var errorCases = []struct {
	code, param, target string
	status, minSugg     int
}{
	{CodeMissingParameter, "drop_off_date", avAkl + "&pick_up_date=2027-03-10", 400, 0},
	{CodeMissingParameter, "drop_off_date", avAkl + "&pick_up_date=2027-03-10&drop_off_date=", 400, 0},
	{CodeInvalidParameter, "pick_up_depot_id", "/api/agent/vehicles/availability?pick_up_depot_id=abc&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20", 400, 0},
	{CodeUnknownParameter, "limit", "/api/agent/depots?limit=5", 400, 0},
	{CodeRepeatedParameter, "pick_up_depot_id", avAkl + "&pick_up_depot_id=2&pick_up_date=2027-03-10&drop_off_date=2027-03-20", 400, 0},
	{CodeInvalidRequest, "", "/api/agent/depots?%zz=1", 400, 0},
	{CodeUnknownID, "pick_up_depot_id", "/api/agent/vehicles/availability?pick_up_depot_id=99&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20", 400, 1},
	{CodeUnknownID, "drop_off_depot_id", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=99&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=5", 400, 1},
	{CodeUnknownID, "vehicle_id", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=999", 400, 3},
	{CodeUnknownID, "vehicleId", "/api/agent/vehicles/999/accessories", 400, 0},
	{CodeNotOffered, "insurance_id", qMarch + "&insurance_id=33", 400, 0},
	{CodeTooMany, "accessory_ids", qMarch + "&accessory_ids=3,3", 400, 0},
	{CodeDateOrder, "drop_off_date", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-20&drop_off_date=2027-03-10&vehicle_id=1", 400, 1},
	{CodeDateInPast, "pick_up_date", avAkl + "&pick_up_date=2026-11-01&drop_off_date=2026-11-10", 400, 1},
	{CodeDateInPast, "pick_up_date", "/api/agent/vehicles/5/accessories?pick_up_date=2026-11-01&drop_off_date=2026-11-10", 400, 0},
	{CodeNoticePeriod, "pick_up_date", avAkl + "&pick_up_date=2026-11-22&drop_off_date=2026-12-01", 400, 1},
	{CodeTooFarAhead, "pick_up_date", avAkl + "&pick_up_date=2028-12-01&drop_off_date=2028-12-10", 400, 0},
	{CodeTooLong, "drop_off_date", avAkl + "&pick_up_date=2027-03-01&drop_off_date=2027-05-30", 400, 1},
	{CodeDepotClosed, "pick_up_date", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-25&drop_off_date=2026-12-30", 400, 2},
	{CodeDepotClosed, "pick_up_date", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-25&drop_off_date=2027-01-08&vehicle_id=5", 400, 1},
	{CodeDepotClosed, "drop_off_date", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-20&drop_off_date=2026-12-25", 400, 2},
	{CodeRouteNotOffered, "drop_off_depot_id", "/api/agent/vehicles/availability?pick_up_depot_id=3&drop_off_depot_id=5&pick_up_date=2027-03-10&drop_off_date=2027-03-20", 400, 2},
	{CodeNotBasedHere, "vehicle_id", "/api/agent/quotes?pick_up_depot_id=4&drop_off_depot_id=4&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=6", 404, 2},
	{CodeMinHire, "vehicle_id", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-10&vehicle_id=1", 404, 1},
	{CodeBookedOut, "vehicle_id", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-22&drop_off_date=2026-12-30&vehicle_id=7", 404, 3},
	{CodeNotFound, "", "/api/agent/vehicles", 404, 0},
	{CodeTooLong, "latest_pick_up_date", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-06-30&days=10&min_berths=4", 400, 1},
	{CodeDateOrder, "latest_pick_up_date", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-31&latest_pick_up_date=2027-03-15&days=7,10", 400, 1},
}

// TestErrorCodes: each case gets its status, code and param.
func TestErrorCodes(t *testing.T) {
	s := searchServer(t)
	for _, tt := range errorCases {
		d := do(s, "GET", tt.target)
		var e errBody
		if err := json.Unmarshal(d.Body, &e); err != nil {
			t.Fatalf("%s: %v %s", tt.target, err, d.Body)
		}
		if d.Status != tt.status || e.Code != tt.code || e.Param != tt.param || e.Error == "" {
			t.Errorf("%s: %d code %q param %q (%s); want %d %q %q", tt.target, d.Status, e.Code, e.Param, e.Error, tt.status, tt.code, tt.param)
		}
		if len(e.Suggestions) < tt.minSugg {
			t.Errorf("%s: %d suggestions, want at least %d: %s", tt.target, len(e.Suggestions), tt.minSugg, d.Body)
		}
	}
	if d := do(s, "PUT", "/api/agent/depots"); !strings.Contains(string(d.Body), `"code":"method_not_allowed"`) {
		t.Errorf("405: %s", d.Body)
	}
	cfg := testConfig()
	cfg.Maintenance = true
	if d := do(testServer(t, cfg, bundledCatalog(t), nil), "GET", "/api/agent/depots"); d.Status != 503 || !strings.Contains(string(d.Body), `"code":"unavailable"`) {
		t.Errorf("503: %d %s", d.Status, d.Body)
	}
}

// TestSuggestionsAreTrue follows every suggestion of every error case: each must be a
// URL relative to the base path that answers 200, and say why in one line.
func TestSuggestionsAreTrue(t *testing.T) {
	s := searchServer(t)
	n := 0
	for _, tt := range errorCases {
		d := do(s, "GET", tt.target)
		var e errBody
		json.Unmarshal(d.Body, &e)
		for _, g := range e.Suggestions {
			n++
			if !strings.HasPrefix(g.URL, "/") || strings.HasPrefix(g.URL, "/api/agent") {
				t.Errorf("%s: suggestion %q is not relative to the base path", tt.target, g.URL)
			}
			if g.Reason == "" || strings.Contains(g.Reason, "\n") {
				t.Errorf("%s: suggestion %q has reason %q", tt.target, g.URL, g.Reason)
			}
			r := do(s, "GET", "/api/agent"+g.URL)
			if r.Status != 200 {
				t.Errorf("%s: suggestion %s (%s) answers %d %s", tt.target, g.URL, g.Reason, r.Status, r.Body)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d suggestions followed; the cases should give more", n)
	}
	t.Logf("%d suggestions followed, all 200", n)
}

// TestAvailabilityETagFollowsBody: the availability ETag is a hash of what the body is
// made of (offersHash), not of its bytes; over thousands of searches (routes, dates,
// lengths, filters, orders) no ETag names two bodies. (The converse need not hold: an
// empty list for two searches is one body under two ETags, which is harmless, as an
// ETag is compared only with the same URL's.) The same search twice gets one ETag.
func TestAvailabilityETagFollowsBody(t *testing.T) {
	s := searchServer(t)
	byTag := map[string]string{}
	answers := 0
	for pick := 1; pick <= 6; pick++ {
		for drop := 1; drop <= 6; drop++ {
			for start := 0; start < 12; start++ {
				for _, days := range []int{2, 7, 15} {
					from := time.Date(2027, 1, 4+9*start, 0, 0, 0, 0, time.UTC)
					to := from.AddDate(0, 0, days)
					for _, extra := range []string{"", "&class=compact", "&class=campervan", "&class=motorhome", "&transmission=manual", "&transmission=automatic", "&sort=price", "&min_berths=4", "&min_berths=6", "&max_total=2000"} {
						q := fmt.Sprintf("/api/agent/vehicles/availability?pick_up_depot_id=%d&drop_off_depot_id=%d&pick_up_date=%s&drop_off_date=%s%s",
							pick, drop, from.Format("2006-01-02"), to.Format("2006-01-02"), extra)
						r := do(s, "GET", q)
						if r.Status != 200 {
							continue
						}
						answers++
						tag, body := r.Header("etag"), string(r.Body)
						if len(tag) != 18 || tag[0] != '"' || tag[17] != '"' {
							t.Fatalf("%s: ETag %q", q, tag)
						}
						if b, ok := byTag[tag]; ok && b != body {
							t.Fatalf("%s: ETag %s names two bodies:\n%s\n%s", q, tag, b, body)
						}
						if again := do(s, "GET", q); again.Header("etag") != tag || string(again.Body) != body {
							t.Fatalf("%s twice: ETags %s and %s", q, tag, again.Header("etag"))
						}
						byTag[tag] = body
					}
				}
			}
		}
	}
	if answers < 1000 || len(byTag) < 500 {
		t.Fatalf("%d answers, %d ETags: the test asks too little", answers, len(byTag))
	}
	t.Logf("%d answers, %d distinct bodies", answers, len(byTag))
}

// TestOffersHashCoversEveryInput: each thing offersAt writes from moves the hash (the
// bundled vehicles differ in their prices too, so a search alone could not tell a hash
// that skipped the vehicle).
func TestOffersHashCoversEveryInput(t *testing.T) {
	s := searchServer(t)
	c := new(call)
	base := []Offer{{Index: 1, Days: 7, RentalCents: 70000, DailyRateCents: 10000, RouteCents: 0, TotalCents: 70000},
		{Index: 2, Days: 7, RentalCents: 80000, DailyRateCents: 11428, RouteCents: 5000, TotalCents: 85000}}
	link := `,"bookingUrl":"https://example.test/book?pick_up_depot_id=1&vehicle_id=`
	hash := func(edit func([]Offer)) uint64 {
		c.offers = append(c.offers[:0], base...)
		c.bookingLink = append(c.bookingLink[:0], link...)
		edit(c.offers)
		return s.offersHash(c)
	}
	seen := map[uint64]string{hash(func([]Offer) {}): "base"}
	for name, edit := range map[string]func([]Offer){
		"vehicle":    func(o []Offer) { o[1].Index = 3 },
		"days":       func(o []Offer) { o[0].Days = 8 },
		"rental":     func(o []Offer) { o[1].RentalCents++ },
		"daily rate": func(o []Offer) { o[0].DailyRateCents++ },
		"route fee":  func(o []Offer) { o[0].RouteCents = 1 },
		"total":      func(o []Offer) { o[1].TotalCents-- },
		"order":      func(o []Offer) { o[0], o[1] = o[1], o[0] },
		"one fewer":  func(o []Offer) { c.offers = o[:1] },
		"none":       func(o []Offer) { c.offers = o[:0] },
		"link":       func([]Offer) { c.bookingLink = append(c.bookingLink, '2') },
		"web URL":    func([]Offer) { c.bookingLink[len(`,"bookingUrl":"https://e`)] = 'E' },
	} {
		h := hash(edit)
		if prev, ok := seen[h]; ok {
			t.Errorf("%s: the same hash as %s", name, prev)
		}
		seen[h] = name
	}
	before := hash(func([]Offer) {})
	s.setInvVersion("another-inventory")
	if hash(func([]Offer) {}) == before {
		t.Error("the inventory version does not move the hash")
	}
}

// TestClockKeptPerSecond: nzToday and expiresAt, kept for the second they were made in,
// answer as rental.NZToday and rfc3339At do for every time, in order or not: around
// New Zealand's midnight and its two daylight-saving switches, and at random.
func TestClockKeptPerSecond(t *testing.T) {
	s := searchServer(t)
	r := rand.New(rand.NewSource(5))
	var times []int64
	for _, at := range []time.Time{
		time.Date(2027, 3, 8, 11, 0, 0, 0, time.UTC),  // NZ midnight (NZDT)
		time.Date(2027, 4, 3, 14, 0, 0, 0, time.UTC),  // NZDT ends
		time.Date(2027, 9, 25, 14, 0, 0, 0, time.UTC), // NZDT starts
		time.Date(2027, 6, 1, 12, 0, 0, 0, time.UTC),  // NZ midnight (NZST)
	} {
		for d := int64(-3000); d <= 3000; d += 250 + r.Int63n(500) {
			times = append(times, at.UnixMilli()+d, at.UnixMilli()+d) // each twice: the kept answer
		}
	}
	for i := 0; i < 2000; i++ {
		times = append(times, 1_700_000_000_000+r.Int63n(400_000_000_000))
	}
	r.Shuffle(len(times)/2, func(i, j int) { times[i], times[j] = times[j], times[i] })
	buf := make([]byte, 64)
	for _, ms := range times {
		sec := text.FloorDiv(ms, 1000)
		if got, want := s.nzToday(ms), NZToday(sec); got != want {
			t.Fatalf("nzToday(%d) = %v, want %v", ms, got, want)
		}
		n := s.expiresAt(buf, 3, sec)
		want := string(appendRFC3339(nil, sec))
		if got := string(buf[3:n]); got != want {
			t.Fatalf("expiresAt(%d) wrote %q, want %q", sec, got, want)
		}
	}
}
