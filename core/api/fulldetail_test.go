package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// fullDetailLimits bounds a detail=full page by its vehicle rows, whatever the fleet.
func TestFullDetailLimits(t *testing.T) {
	for _, c := range []struct{ vehicles, def, max int }{
		{0, 63, 252}, {1, 63, 252}, {12, 63, 252}, {13, 63, 232}, {48, 63, 63}, {49, 61, 61},
		{200, 15, 15}, {1512, 2, 2}, {2000, 1, 1}, {100000, 1, 1},
	} {
		if def, max := fullDetailLimits(c.vehicles); def != c.def || max != c.max {
			t.Errorf("fullDetailLimits(%d) = %d, %d, want %d, %d", c.vehicles, def, max, c.def, c.max)
		}
		if _, max := fullDetailLimits(c.vehicles); max*c.vehicles > fullDetailRows && max > 1 {
			t.Errorf("fullDetailLimits(%d): %d entries of %d vehicles pass %d rows", c.vehicles, max, c.vehicles, fullDetailRows)
		}
	}
}

// At 2,000 vehicles a detail=full calendar answers one entry a page with a next link,
// and a larger limit is a 400 naming limit and its bound.
func TestFullDetailAtScale(t *testing.T) {
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
	if d.Status != 400 || !strings.Contains(string(d.Body), `"param":"limit"`) || !strings.Contains(string(d.Body), "from 1 to 1 with detail=full") {
		t.Errorf("detail=full&limit=2 at scale: %d %s", d.Status, d.Body)
	}
}
