package api

import (
	"github.com/campervan/agent-api/core/abi"
	. "github.com/campervan/agent-api/core/rental"

	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type calendarEntry struct {
	PickUpDate  string          `json:"pick_up_date"`
	DropOffDate string          `json:"drop_off_date"`
	Days        int             `json:"days"`
	Vehicles    []vehicleResult `json:"vehicles"`
	Free        *int            `json:"free"`
	Cheapest    []struct {
		VehicleID   int64       `json:"vehicleId"`
		Name        string      `json:"name"`
		TotalAmount json.Number `json:"totalAmount"`
	} `json:"cheapest"`
	Reason string `json:"reason"`
	Code   string `json:"code"`
}

func getCalendar(t *testing.T, s *Server, query string) []calendarEntry {
	t.Helper()
	d := do(s, "GET", "/api/agent/vehicles/availability/calendar?"+query)
	if d.Status != 200 {
		t.Fatalf("%s: %d %s", query, d.Status, d.Body)
	}
	var es []calendarEntry
	if err := json.Unmarshal(d.Body, &es); err != nil {
		t.Fatal(err)
	}
	return es
}

const doneWhen = "pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic"

// TestCalendarDoneWhen is the calendar's reference question: 4+ berths, automatic, Auckland round
// trip, 10 days, any start from 2027-03-15 to 2027-03-31, cheapest first. Every total
// equals the quote's without extras and the availability search's.
func TestCalendarDoneWhen(t *testing.T) {
	s := searchServer(t)
	es := getCalendar(t, s, doneWhen+"&detail=full")
	if len(es) != 17 {
		t.Fatalf("%d entries, want 17 (one per start date)", len(es))
	}
	for i, e := range es {
		start := d("2027-03-15").AddDays(i)
		if e.PickUpDate != start.String() || e.DropOffDate != start.AddDays(9).String() || e.Days != 10 {
			t.Errorf("entry %d: %s to %s, %d days", i, e.PickUpDate, e.DropOffDate, e.Days)
		}
		// Auckland is closed on Good Friday, 2027-03-26: no pick-up that day, no hire
		// from 2027-03-17 (whose drop-off it is).
		closed := e.PickUpDate == "2027-03-26" || e.PickUpDate == "2027-03-17"
		if closed != (e.Code == CodeDepotClosed) || closed != (len(e.Vehicles) == 0) {
			t.Errorf("%s: %d vehicles, code %q (%s)", e.PickUpDate, len(e.Vehicles), e.Code, e.Reason)
		}
		prev := int64(-1)
		for _, v := range e.Vehicles {
			if v.Berths < 4 || v.Transmission != "automatic" {
				t.Errorf("%s: vehicle %d has %d berths, %s", e.PickUpDate, v.VehicleID, v.Berths, v.Transmission)
			}
			c := cents(t, v.TotalAmount)
			if c < prev {
				t.Errorf("%s: not cheapest first at vehicle %d", e.PickUpDate, v.VehicleID)
			}
			prev = c
			q := do(s, "GET", fmt.Sprintf("/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=%s&drop_off_date=%s&vehicle_id=%d", e.PickUpDate, e.DropOffDate, v.VehicleID))
			var quote struct{ TotalAmount json.Number }
			if json.Unmarshal(q.Body, &quote); q.Status != 200 || quote.TotalAmount != v.TotalAmount {
				t.Errorf("%s vehicle %d: calendar %s, quote %d %s", e.PickUpDate, v.VehicleID, v.TotalAmount, q.Status, quote.TotalAmount)
			}
		}
		// The same search for that date lists the same vehicles at the same totals.
		av := do(s, "GET", fmt.Sprintf("/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=%s&drop_off_date=%s&min_berths=4&transmission=automatic&sort=price", e.PickUpDate, e.DropOffDate))
		var rs []vehicleResult
		json.Unmarshal(av.Body, &rs)
		if fmt.Sprint(rs) != fmt.Sprint(e.Vehicles) {
			t.Errorf("%s: calendar %v, search %v", e.PickUpDate, e.Vehicles, rs)
		}
	}
	first := es[0].Vehicles[0]
	if first.VehicleID != 5 || first.TotalAmount != "1590" {
		t.Errorf("2027-03-15: cheapest is vehicle %d at %s, want vehicle 5 at 1590", first.VehicleID, first.TotalAmount)
	}
}

// TestCalendarSummary: the default entry says how many vehicles are free and names the
// 3 cheapest, the same as the first 3 of detail=full's list, with the same reason.
func TestCalendarSummary(t *testing.T) {
	s := searchServer(t)
	for _, q := range []string{doneWhen, "pick_up_depot_id=2&drop_off_depot_id=3&earliest_pick_up_date=2026-12-01&latest_pick_up_date=2026-12-31&days=3,12", doneWhen + "&vehicle_id=7"} {
		sum, full := getCalendar(t, s, q), getCalendar(t, s, q+"&detail=full")
		if len(sum) != len(full) || len(sum) == 0 {
			t.Fatalf("%s: %d summary entries, %d full", q, len(sum), len(full))
		}
		for i, e := range sum {
			f := full[i]
			if e.Vehicles != nil || e.Free == nil || *e.Free != len(f.Vehicles) || e.Reason != f.Reason || e.Code != f.Code || e.PickUpDate != f.PickUpDate || e.Days != f.Days {
				t.Fatalf("%s entry %d: summary %+v, full has %d vehicles, reason %q", q, i, e, len(f.Vehicles), f.Reason)
			}
			if want := min(3, len(f.Vehicles)); len(e.Cheapest) != want {
				t.Fatalf("%s entry %d: %d cheapest, want %d", q, i, len(e.Cheapest), want)
			}
			for k, c := range e.Cheapest {
				if v := f.Vehicles[k]; c.VehicleID != v.VehicleID || c.TotalAmount != v.TotalAmount {
					t.Errorf("%s %s: cheapest %d is %d at %s, full lists %d at %s", q, e.PickUpDate, k, c.VehicleID, c.TotalAmount, v.VehicleID, v.TotalAmount)
				}
			}
		}
	}
}

// TestCalendarPages: the pages of a calendar, followed by their Link headers, are the
// whole calendar's entries in order, for any limit; the default page is every start
// date of one length.
func TestCalendarPages(t *testing.T) {
	s := searchServer(t)
	q := "pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10"
	whole := do(s, "GET", "/api/agent/vehicles/availability/calendar?"+q+"&limit=252")
	var all []json.RawMessage
	if err := json.Unmarshal(whole.Body, &all); err != nil || len(all) != 126 || whole.Header("link") != "" {
		t.Fatalf("whole: %d entries, link %q, %v", len(all), whole.Header("link"), err)
	}
	for _, limit := range []string{"", "&limit=1", "&limit=5", "&limit=63", "&limit=125"} {
		got := walkPages(t, s, "/api/agent/vehicles/availability/calendar?"+q+limit)
		if fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("limit %q: the pages hold %d entries, not the calendar's %d in order", limit, len(got), len(all))
		}
	}
	first := do(s, "GET", "/api/agent/vehicles/availability/calendar?"+q)
	var es []json.RawMessage
	json.Unmarshal(first.Body, &es)
	if len(es) != 63 || len(first.Body) > 32<<10 {
		t.Errorf("default page: %d entries, %d bytes; want 63 within 32 KB", len(es), len(first.Body))
	}
}

// TestCalendarReasons: days a rule rules out carry its message and code; days nothing
// passes the filters say so.
func TestCalendarReasons(t *testing.T) {
	s := searchServer(t)
	// Christchurch is closed on Christmas Day; today (2026-11-22) and earlier are out.
	es := getCalendar(t, s, "pick_up_depot_id=2&drop_off_depot_id=2&earliest_pick_up_date=2026-11-21&latest_pick_up_date=2026-12-26&days=5,7&detail=full&limit=72")
	codes := map[string]string{}
	for _, e := range es {
		if (len(e.Vehicles) == 0) != (e.Reason != "") {
			t.Errorf("%s %d days: %d vehicles, reason %q", e.PickUpDate, e.Days, len(e.Vehicles), e.Reason)
		}
		codes[fmt.Sprintf("%s/%d", e.PickUpDate, e.Days)] = e.Code
	}
	if len(es) != 36*2 {
		t.Errorf("%d entries, want 72", len(es))
	}
	for k, want := range map[string]string{"2026-11-21/5": CodeDateInPast, "2026-11-22/7": CodeNoticePeriod, "2026-12-25/5": CodeDepotClosed, "2026-12-21/5": CodeDepotClosed, "2026-12-10/7": ""} {
		if codes[k] != want {
			t.Errorf("%s: code %q, want %q", k, codes[k], want)
		}
	}
	// vehicle 7 is booked out at Auckland over Christmas
	es = getCalendar(t, s, "pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2026-12-18&latest_pick_up_date=2026-12-22&days=9&vehicle_id=7&detail=full")
	if len(es[0].Vehicles) != 0 || !strings.Contains(es[0].Reason, "passes the filters") {
		t.Errorf("vehicle 7 on 2026-12-18: %+v", es[0])
	}
}

// TestCalendarBounds: the largest calendar is 63 dates x 4 lengths; beyond, a 400.
func TestCalendarBounds(t *testing.T) {
	s := searchServer(t)
	es := getCalendar(t, s, "pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=21,7,14,10&limit=252")
	if len(es) != 63*4 || es[0].Days != 7 || es[3].Days != 21 {
		t.Fatalf("%d entries (first lengths %d..%d), want 252, lengths ascending", len(es), es[0].Days, es[3].Days)
	}
	base := "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01"
	for _, tt := range []struct{ query, code, param, msg string }{
		{"&latest_pick_up_date=2027-05-03&days=10", CodeTooLong, "latest_pick_up_date", "at most 63"},
		{"&latest_pick_up_date=2027-02-01&days=10", CodeDateOrder, "latest_pick_up_date", "before earliest_pick_up_date"},
		{"&latest_pick_up_date=2027-03-02&days=1,2,3,4,5", CodeTooMany, "days", "more than 4"},
		{"&latest_pick_up_date=2027-03-02&days=7,7", CodeInvalidParameter, "days", "twice"},
		{"&latest_pick_up_date=2027-03-02&days=91", CodeInvalidParameter, "days", "from 1 to 90"},
		{"&latest_pick_up_date=2027-03-02&days=0", CodeInvalidParameter, "days", "from 1 to 90"},
		{"&latest_pick_up_date=2027-03-02&days=7,", CodeInvalidParameter, "days", "from 1 to 90"},
		{"&latest_pick_up_date=2027-03-02&days=,7", CodeInvalidParameter, "days", "from 1 to 90"},
		{"&latest_pick_up_date=2027-03-02", CodeMissingParameter, "days", "missing"},
		{"&latest_pick_up_date=2027-03-02&days=", CodeMissingParameter, "days", "missing"},
		{"&latest_pick_up_date=2027-03-02&days=7&vehicle_id=99", CodeUnknownID, "vehicle_id", "not a vehicle"},
		{"&latest_pick_up_date=2027-03-02&days=7&sort=price", CodeUnknownParameter, "sort", "unknown"},
		{"&latest_pick_up_date=2027-03-02&days=7&min_berths=0", CodeInvalidParameter, "min_berths", "from 1 to 20"},
		{"&latest_pick_up_date=2027-03-02&days=7&detail=all", CodeInvalidParameter, "detail", "summary"},
		{"&latest_pick_up_date=2027-03-02&days=7&limit=253", CodeInvalidParameter, "limit", "from 1 to 252"},
		{"&latest_pick_up_date=2027-03-02&days=7&limit=0", CodeInvalidParameter, "limit", "from 1 to 252"},
		{"&latest_pick_up_date=2027-03-02&days=7&page=x", CodeInvalidParameter, "page", "page token"},
		{"&latest_pick_up_date=2027-03-02&days=7&page=1.0000000000000000", CodePageExpired, "page", "start again"},
	} {
		r := do(s, "GET", base+tt.query)
		var e errBody
		json.Unmarshal(r.Body, &e)
		if r.Status != 400 || e.Code != tt.code || e.Param != tt.param || !strings.Contains(e.Error, tt.msg) {
			t.Errorf("%s: %d %s; want 400 %s on %s saying %q", tt.query, r.Status, r.Body, tt.code, tt.param, tt.msg)
		}
	}
	r := do(s, "GET", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=3&drop_off_depot_id=5&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-03-02&days=7")
	if !strings.Contains(string(r.Body), `"code":"route_not_offered"`) {
		t.Errorf("route: %d %s", r.Status, r.Body)
	}
}

// TestCalendarETag: the ETag is a function of the inputs: the same request gets the
// same tag and a 304 for it without a body; another parameter, another tag.
func TestCalendarETag(t *testing.T) {
	s := searchServer(t)
	target := "/api/agent/vehicles/availability/calendar?" + doneWhen
	a, b := do(s, "GET", target), do(s, "GET", target)
	if a.Status != 200 || a.Header("etag") == "" || a.Header("etag") != b.Header("etag") || string(a.Body) != string(b.Body) {
		t.Fatalf("two answers: %d %q / %q", a.Status, a.Header("etag"), b.Header("etag"))
	}
	nm := do(s, "GET", target, abi.Header{Name: "if-none-match", Value: a.Header("etag")})
	if nm.Status != 304 || len(nm.Body) != 0 || nm.Header("content-type") != "" || nm.Header("etag") != a.Header("etag") {
		t.Errorf("If-None-Match: %d %q body %d bytes", nm.Status, nm.Header("content-type"), len(nm.Body))
	}
	seen := map[string]string{a.Header("etag"): doneWhen}
	for _, q := range []string{
		strings.Replace(doneWhen, "min_berths=4", "min_berths=5", 1),
		strings.Replace(doneWhen, "days=10", "days=10,11", 1),
		strings.Replace(doneWhen, "transmission=automatic", "class=motorhome", 1),
		strings.Replace(doneWhen, "2027-03-31", "2027-03-30", 1),
		doneWhen + "&max_total=2000",
		doneWhen + "&vehicle_id=5",
		doneWhen + "&detail=full",
		doneWhen + "&limit=5",
	} {
		r := do(s, "GET", "/api/agent/vehicles/availability/calendar?"+q)
		e := r.Header("etag")
		if prev, ok := seen[e]; ok {
			t.Errorf("%s and %s share the ETag %s", q, prev, e)
		}
		seen[e] = q
	}
}

// TestCalendarAllocs: once warm, a calendar allocates nothing, days ruled out by a rule
// (the depot closed on Good Friday: 8 entries of the largest) included.
func TestCalendarAllocs(t *testing.T) {
	s := searchServer(t)
	for _, q := range []string{doneWhen, doneWhen + "&detail=full&limit=5", "pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21&detail=full&limit=252"} {
		req := &abi.Request{Method: "GET", Target: "/api/agent/vehicles/availability/calendar?" + q}
		var w abi.Response
		s.Handle(req, &w)
		if w.Status != 200 {
			t.Fatalf("%s: %d", q, w.Status)
		}
		if a := testing.AllocsPerRun(50, func() { s.Handle(req, &w) }); a != 0 {
			t.Errorf("%s: %v allocations per request, want 0", q, a)
		}
	}
}

// TestCalendarIsOneRequest: the largest calendar counts once against the rate limit.
func TestCalendarIsOneRequest(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	target := "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21"
	a := do(s, "GET", target)
	b := do(s, "GET", target)
	if a.Status != 200 || b.Status != 200 {
		t.Fatalf("%d %d", a.Status, b.Status)
	}
	ra, rb := a.Header("x-ratelimit-remaining"), b.Header("x-ratelimit-remaining")
	if fmt.Sprint(atoi(ra)-1) != rb {
		t.Errorf("remaining %s then %s: a calendar must count as one request", ra, rb)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
