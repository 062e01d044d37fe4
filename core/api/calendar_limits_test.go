package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// calendarLimits bounds a calendar page by its vehicle rows, whatever the fleet.
func TestCalendarLimits(t *testing.T) {
	for _, c := range []struct{ rows, vehicles, def, max int }{
		{fullDetailRows, 0, 63, 252}, {fullDetailRows, 1, 63, 252}, {fullDetailRows, 12, 63, 252},
		{fullDetailRows, 13, 63, 232}, {fullDetailRows, 48, 63, 63}, {fullDetailRows, 49, 61, 61},
		{fullDetailRows, 200, 15, 15}, {fullDetailRows, 1512, 2, 2}, {fullDetailRows, 2000, 1, 1}, {fullDetailRows, 100000, 1, 1},
		{summaryRows, 12, 63, 252}, {summaryRows, 500, 63, 252}, {summaryRows, 501, 63, 251},
		{summaryRows, 2000, 63, 63}, {summaryRows, 4000, 31, 31}, {summaryRows, 200000, 1, 1},
	} {
		def, max := calendarLimits(c.rows, c.vehicles)
		if def != c.def || max != c.max {
			t.Errorf("calendarLimits(%d, %d) = %d, %d, want %d, %d", c.rows, c.vehicles, def, max, c.def, c.max)
		}
		if max*c.vehicles > c.rows && max > 1 {
			t.Errorf("calendarLimits(%d, %d): %d entries pass the rows", c.rows, c.vehicles, max)
		}
	}
}

// At 2,000 vehicles a detail=full calendar answers one entry a page with a next link,
// a summary at most 63 entries, and a larger limit is a 400 naming limit and its bound.
func TestCalendarLimitsAtScale(t *testing.T) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40
	s := NewServer(cfg, scaleCatalog(t), nil, func() int64 { return 1795392000000 }, func(p []byte) {}, nil)
	const cal = "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=10&detail=full"
	d := do(s, "GET", cal)
	if d.Status != 200 || d.Header("link") == "" {
		t.Fatalf("detail=full at scale: %d, Link %q: %.300s", d.Status, d.Header("link"), d.Body)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(d.Body, &entries); err != nil || len(entries) != 1 {
		t.Errorf("detail=full at scale: %d entries on the first page, want 1 (%v)", len(entries), err)
	}
	d = do(s, "GET", cal+"&limit=2")
	if d.Status != 400 || !strings.Contains(string(d.Body), `"param":"limit"`) || !strings.Contains(string(d.Body), "from 1 to 1 here: a calendar page with detail=full holds at most 3024 vehicle rows") {
		t.Errorf("detail=full&limit=2 at scale: %d %s", d.Status, d.Body)
	}
	const summary = "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21"
	if d = do(s, "GET", summary+"&limit=63"); d.Status != 200 {
		t.Errorf("summary, limit=63 at scale: %d %.300s", d.Status, d.Body)
	}
	if d = do(s, "GET", summary+"&limit=64"); d.Status != 400 || !strings.Contains(string(d.Body), "from 1 to 63 here: a calendar page searches at most 126000 vehicle rows") {
		t.Errorf("summary, limit=64 at scale: %d %s", d.Status, d.Body)
	}
}
