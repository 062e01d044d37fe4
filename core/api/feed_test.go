package api

import (
	"encoding/json"
	"testing"
)

// TestFeedStatus: the index's report of the scheduled pull (SetFeedStatus's text): the
// time taken, the failure and since when, stale once the pulls have failed for longer
// than the bound, and nothing for text that does not parse.
func TestFeedStatus(t *testing.T) {
	now := int64(1795305600000) // 2026-11-22T00:00:00Z
	s := clockServer(t, testConfig(), &now)
	type feed struct {
		TakenAt       *string
		FailingSince  *string
		LastFailure   *string
		MaxAgeSeconds *int64
		Stale         bool
	}
	index := func() *feed {
		t.Helper()
		d := do(s, "GET", "/api/agent/")
		var idx struct {
			Inventory map[string]any
			Feed      *feed
		}
		if d.Status != 200 || json.Unmarshal(d.Body, &idx) != nil || idx.Inventory == nil {
			t.Fatalf("index: %d %s", d.Status, d.Body)
		}
		return idx.Feed
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	if f := index(); f != nil {
		t.Fatalf("no status given: feed %+v, want none", f)
	}
	s.SetFeedStatus([]byte("1795305000000 0 600\n"))
	f := index()
	if f == nil || str(f.TakenAt) != "2026-11-21T23:50:00Z" || f.FailingSince != nil || f.LastFailure != nil || f.MaxAgeSeconds == nil || *f.MaxAgeSeconds != 600 || f.Stale {
		t.Fatalf("taken, no failure: %+v", f)
	}
	s.SetFeedStatus([]byte("1795305000000 1795305540000 600\nthe feed server answered HTTP 503"))
	for _, c := range []struct {
		at    int64
		stale bool
	}{{1795305600000, false}, {1795306139999, false}, {1795306140000, true}, {1795309999999, true}} {
		now = c.at
		f = index()
		if f == nil || str(f.FailingSince) != "2026-11-21T23:59:00Z" || str(f.LastFailure) != "the feed server answered HTTP 503" || f.Stale != c.stale {
			t.Errorf("at %d: %+v (failing since %s, %s), want stale %v", c.at, f, str(f.FailingSince), str(f.LastFailure), c.stale)
		}
	}
	s.SetFeedStatus([]byte("1795305000000 1795305540000 0\nwhy"))
	if f = index(); f == nil || f.Stale || f.MaxAgeSeconds != nil {
		t.Errorf("no bound: %+v, want never stale", f)
	}
	for _, bad := range []string{"", "x 0 0\n", "1 2 3", "1 2\n", "12345678901234567890 0 0\n"} {
		s.SetFeedStatus([]byte(bad))
		if f = index(); f != nil {
			t.Errorf("%q: feed %+v, want none", bad, f)
		}
	}
}
