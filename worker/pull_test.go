//go:build !wasip1 && !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/rental"
)

// TestBuildPulled: a pulled feed is validated and built as build/publish builds it (the
// same blob for the same records), and an error names the record and the field.
func TestBuildPulled(t *testing.T) {
	cat := rental.Bundled()
	feed := []byte(`{"source":"s","bookings":[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-21","units":50}]}`)
	blob, v, err := buildPulled(cat, feed)
	if err != nil {
		t.Fatal(err)
	}
	want, inv, _ := cat.BuildInventory(feed, rental.Feed{File: "feed", Source: pullSource})
	if !bytes.Equal(blob, want) || v != inv.Version() || v != rental.InventoryVersion(blob) {
		t.Errorf("buildPulled: version %s, not BuildInventory's blob (%s)", v, inv.Version())
	}
	for _, c := range []struct{ feed, want string }{
		{`not json`, "feed: not valid JSON"},
		{`[{"id":1,"vehicle_id":777,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-21","units":1}]`, `record 0 (id 1): field "vehicle_id": vehicle 777 does not exist`},
		{`[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-01","units":1}]`, `field "drop_off_date"`},
	} {
		if _, _, err := buildPulled(cat, []byte(c.feed)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.feed, err, c.want)
		}
	}
}

// TestPullDecisions runs the glue's pull (worker/glue/scheduled.mjs) under node through
// pull_decisions.mjs, with the module's build_inventory: what each answer of the feed
// server makes it do, write and log.
func TestPullDecisions(t *testing.T) {
	needModule(t)
	bin := "node"
	if p, _ := filepath.Abs("../node_modules/.bin/node"); fileExists(p) {
		bin = p
	}
	out, err := exec.Command(bin, "pull_decisions.mjs", *wasmPath).Output()
	if err != nil {
		t.Fatalf("node pull_decisions.mjs: %v\n%s", err, out)
	}
	type run struct {
		Name, Result      string
		Writes            []string
		Logs              int
		Pointer           string
		Meta              map[string]any
		SentINM, SentAuth string
		State             map[string]any
	}
	runs := map[string]run{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		runs[r.Name] = r
		order = append(order, r.Name)
	}
	if len(order) != 19 {
		t.Fatalf("%d runs, want 19: %s", len(order), out)
	}
	version := regexp.MustCompile(`^taken ([0-9a-f]{16})$`)
	taken := runs["new content"]
	m := version.FindStringSubmatch(taken.Result)
	if m == nil || taken.Pointer != m[1] || taken.SentAuth != "Bearer t0ken" || taken.SentINM != "" {
		t.Fatalf("new content: %+v", taken)
	}
	v1 := m[1]
	if got := strings.Join(taken.Writes, ","); got != "inventory/"+v1+",inventory/current,inventory/latest,inventory/feed" {
		t.Errorf("new content wrote %s", got)
	}
	unchanged := func(name, result string, writes, logs int) {
		t.Helper()
		r := runs[name]
		if !strings.HasPrefix(r.Result, result) || len(r.Writes) != writes || r.Logs != logs || r.Pointer != v1 {
			t.Errorf("%s: %q, writes %v, %d log lines, pointer %s; want %q..., %d writes, %d log lines, pointer %s", name, r.Result, r.Writes, r.Logs, r.Pointer, result, writes, logs, v1)
		}
	}
	if r := runs["off"]; r.Result != "off" || len(r.Writes) != 0 || r.Logs != 0 || r.SentINM != "" {
		t.Errorf("off: %+v", r)
	}
	if r := runs["not http"]; r.Result != "failed: FEED_URL is not an http(s) URL" || r.Logs != 1 || r.Pointer != "" || strings.Join(r.Writes, ",") != "inventory/feed" {
		t.Errorf("not http: %+v", r)
	}
	if r := runs["not http again"]; r.Logs != 0 || len(r.Writes) != 0 {
		t.Errorf("not http again: a repeated failure logged %d lines and wrote %v", r.Logs, r.Writes)
	}
	if r := runs["304"]; r.SentINM != `"a"` {
		t.Errorf("304: If-None-Match %q, want the ETag taken", r.SentINM)
	}
	unchanged("304", "not modified", 0, 0)
	unchanged("same content, new etag", "same content", 0, 0)
	// A failure writes the pull's state and the pointer's metadata once, and logs once.
	unchanged("503", "failed: the feed server answered HTTP 503", 2, 1)
	if r := runs["503"]; r.Meta["error"] != "the feed server answered HTTP 503" || r.Meta["failedAt"] == nil {
		t.Errorf("503: pointer metadata %v", r.Meta)
	}
	unchanged("503 again", "failed: the feed server answered HTTP 503", 0, 0)
	unchanged("not json", "failed: feed: not valid JSON", 2, 1)
	unchanged("bad record", `failed: feed: bookings record 0 (id 4): field "vehicle_id"`, 2, 1)
	unchanged("over the bound by content-length", "failed: the feed is over 1000 bytes", 2, 1)
	unchanged("over the bound streamed", "failed: the feed is over 1000 bytes", 0, 0) // the same reason again
	unchanged("a million bookings", "failed: the feed is over 16777216 bytes", 2, 1)
	unchanged("never finishes", "failed: no whole answer within 1 s", 2, 1)
	unchanged("fetch throws", "failed: fetch failed: connection refused", 2, 1)
	if r := runs["fetch throws"]; r.Meta["failedAt"] != runs["503"].Meta["failedAt"] {
		t.Errorf("failing since %v, want the first failure's time %v", r.Meta["failedAt"], runs["503"].Meta["failedAt"])
	}
	unchanged("recovered 304", "not modified", 2, 1)
	if r := runs["recovered 304"]; r.Meta["failedAt"] != nil || r.State["error"] != nil {
		t.Errorf("recovered: metadata %v, state %v", r.Meta, r.State)
	}
	gone := runs["bookings gone"]
	m = version.FindStringSubmatch(gone.Result)
	if m == nil || m[1] == v1 || gone.Pointer != m[1] {
		t.Fatalf("bookings gone: %+v", gone)
	}
	v2 := m[1]
	if got := strings.Join(gone.Writes, ","); got != "inventory/"+v2+",inventory/"+v1+" ttl,inventory/current,inventory/latest,inventory/feed" {
		t.Errorf("bookings gone wrote %s", got)
	}
	if r := runs["same etag, new body"]; r.Result != `failed: the feed server sent different content under the same ETag "b"` || r.Pointer != v2 || r.Logs != 1 || r.State["etag"] != nil {
		t.Errorf("same etag, new body: %+v", r)
	}
	if r := runs["retried without the etag"]; r.SentINM != "" || !version.MatchString(r.Result) || r.Pointer == v2 {
		t.Errorf("retried without the etag: %+v", r)
	}
}
