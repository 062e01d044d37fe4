//go:build !wasip1 && !js

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/abi"
)

// TestE2EPull runs the scheduled pull under wrangler dev (--test-scheduled: GET
// /__scheduled runs it once) against a feed server of this test on 127.0.0.1: a feed
// that books every unit of a vehicle removes it from the search within seconds; a feed
// that is not JSON and a 503 change nothing and are each logged once, and the index
// reports the failure, stale past FEED_MAX_AGE_SECONDS; a feed without those bookings
// brings the vehicle back and clears the failure.
func TestE2EPull(t *testing.T) {
	needE2E(t)
	const vehicle = 3
	booked := fmt.Sprintf(`{"source":"e2e feed","bookings":[{"id":1,"vehicle_id":%d,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-21","units":50}]}`, vehicle)
	free := fmt.Sprintf(`{"source":"e2e feed","bookings":[{"id":2,"vehicle_id":%d,"depot_id":1,"pick_up_date":"2027-05-01","drop_off_date":"2027-05-02","units":1}]}`, vehicle)
	var mu sync.Mutex
	status, body, etag := 200, booked, `"v1"`
	var asked []string
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		st, b, et := status, body, etag
		asked = append(asked, r.Header.Get("authorization")+" "+r.Header.Get("if-none-match"))
		mu.Unlock()
		if r.Header.Get("authorization") != "Bearer e2e-token" {
			w.WriteHeader(401)
			return
		}
		if r.Header.Get("if-none-match") == et {
			w.WriteHeader(304)
			return
		}
		w.Header().Set("etag", et)
		w.WriteHeader(st)
		io.WriteString(w, b)
	}))
	defer feed.Close()
	set := func(st int, b, et string) {
		mu.Lock()
		status, body, etag = st, b, et
		mu.Unlock()
	}
	d := startDev(t, "wrangler.toml", "--test-scheduled", "--var", "INVENTORY_REFRESH_SECONDS:1", "--var", "RATE_LIMIT_REQUESTS:100000",
		"--var", "FEED_URL:"+feed.URL+"/bookings.json", "--var", "FEED_TOKEN:e2e-token", "--var", "FEED_MAX_AGE_SECONDS:2")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(d.log.Name())
			t.Logf("wrangler dev log:\n%s", b)
		}
	})
	get := func(target string) abi.DecodedResponse {
		return d.do(t, abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.14"}}})
	}
	pull := func() {
		t.Helper()
		resp, err := http.Get(d.base + "/__scheduled")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET /__scheduled: %d", resp.StatusCode)
		}
	}
	type report struct {
		Inventory struct{ Version, Source string }
		Feed      *struct {
			TakenAt, FailingSince, LastFailure *string
			Stale                              bool
		}
	}
	index := func() report {
		t.Helper()
		var r report
		if ix := get("/api/agent/"); ix.Status != 200 || json.Unmarshal(ix.Body, &r) != nil {
			t.Fatalf("index: %d %s", ix.Status, ix.Body)
		}
		return r
	}
	// until polls the search and the index for at most 5 s until ok holds.
	until := func(what string, ok func(offered bool, r report) bool) {
		t.Helper()
		t0 := time.Now()
		for {
			s := get(e2eSearch)
			r := index()
			if s.Status == 200 && ok(offeredIDs(t, s.Body)[vehicle], r) {
				t.Logf("%s: %v after the pull", what, time.Since(t0).Round(time.Millisecond))
				return
			}
			if time.Since(t0) > 5*time.Second {
				fb, _ := json.Marshal(r)
				t.Fatalf("%s: not within 5 s of the pull; search %d, index %s", what, s.Status, fb)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !offeredIDs(t, get(e2eSearch).Body)[vehicle] {
		t.Fatalf("vehicle %d is not offered before the pull", vehicle)
	}
	pull()
	var v1 string
	until("booked out", func(offered bool, r report) bool {
		v1 = r.Inventory.Version
		return !offered && r.Inventory.Source == "e2e feed" && r.Feed != nil && r.Feed.TakenAt != nil && r.Feed.LastFailure == nil
	})

	set(200, "<html>not json</html>", `"bad"`)
	pull()
	until("not JSON reported", func(offered bool, r report) bool {
		return !offered && r.Inventory.Version == v1 && r.Feed != nil && r.Feed.LastFailure != nil && strings.Contains(*r.Feed.LastFailure, "not valid JSON")
	})
	set(503, "down", `"down"`)
	pull()
	pull() // the same failure again: not logged again
	until("503 reported, stale", func(offered bool, r report) bool {
		return !offered && r.Inventory.Version == v1 && r.Feed != nil && r.Feed.LastFailure != nil &&
			*r.Feed.LastFailure == "the feed server answered HTTP 503" && r.Feed.Stale
	})

	set(200, free, `"v2"`)
	pull()
	until("back", func(offered bool, r report) bool {
		return offered && r.Inventory.Version != v1 && r.Feed != nil && r.Feed.LastFailure == nil && !r.Feed.Stale
	})
	pull() // 304: nothing changes
	mu.Lock()
	last := asked[len(asked)-1]
	mu.Unlock()
	if last != `Bearer e2e-token "v2"` {
		t.Errorf("the last pull sent %q, want the token and If-None-Match of the feed taken", last)
	}
	time.Sleep(300 * time.Millisecond)
	logb, _ := os.ReadFile(d.log.Name())
	if n := strings.Count(string(logb), "feed pull failed"); n != 2 {
		t.Errorf("%d failure log lines, want 2 (not JSON, then 503 once):\n%s", n, logb)
	}
}
