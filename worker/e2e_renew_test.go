//go:build !wasip1 && !js

package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// TestE2EInstanceRenewal: the module never frees (TinyGo's leaking allocator), so the
// glue replaces an instance whose memory reached INSTANCE_MEMORY_MIB with a fresh one
// (worker/glue/instance.mjs, renew). On the real workerd, with the bound set low: error answers
// (which allocate) from ever new clients make the instance grow until it is renewed;
// then a client that was limited before is still limited, the counts of one that was
// not go on where they were, and the live inventory taken before still serves.
func TestE2EInstanceRenewal(t *testing.T) {
	needE2E(t)
	booked, invA := inventoryBlob(t, testFeed) // vehicle 3 booked out at depot 1 in March 2027
	kv := &kvService{values: map[string][]byte{"inventory/latest": booked}}
	d, logPath := startWorkerdKV(t, kv, map[string]string{"INSTANCE_MEMORY_MIB": "6", "RATE_LIMIT_REQUESTS": "5"})
	get := func(target, ip string) abi.DecodedResponse {
		t.Helper()
		return d.do(t, abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ip}}})
	}
	if r := get(e2eSearch, "198.51.100.1"); r.Status != 200 || r.Header("x-inventory-version") != invA.Version() || offeredIDs(t, r.Body)[3] {
		t.Fatalf("first search: %d, version %q, want %q with vehicle 3 booked out", r.Status, r.Header("x-inventory-version"), invA.Version())
	}
	const limited, counted = "198.51.100.2", "198.51.100.3"
	for i := 0; i < 6; i++ {
		want := 200
		if i == 5 {
			want = 429
		}
		if r := get("/api/agent/depots", limited); r.Status != want {
			t.Fatalf("limited client, request %d: %d, want %d", i+1, r.Status, want)
		}
	}
	for i := 0; i < 3; i++ {
		get("/api/agent/depots", counted)
	}
	badQuote := "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&insurance_id=999999"
	renewed := false
	n := 0
	for ; n < 20000 && !renewed; n++ {
		if r := get(badQuote, fmt.Sprintf("2001:db8:%x::1", n)); r.Status != 400 {
			t.Fatalf("bad quote %d: %d %s", n, r.Status, r.Body)
		}
		if n%100 == 99 {
			log, _ := os.ReadFile(logPath)
			renewed = strings.Contains(string(log), `"msg":"instance renewed"`)
		}
	}
	log, _ := os.ReadFile(logPath)
	if !renewed {
		t.Fatalf("no renewal after %d error answers:\n%.2000s", n, log)
	}
	if !strings.Contains(string(log), `"limiter":"handed over"`) {
		t.Fatalf("renewed without the limiter's state:\n%.2000s", log)
	}
	t.Logf("renewed after %d error answers", n)
	if r := get("/api/agent/depots", limited); r.Status != 429 {
		t.Fatalf("the limited client after the renewal: %d, want 429 (its count was lost)", r.Status)
	}
	if r := get("/api/agent/depots", counted); r.Status != 200 || r.Header("x-ratelimit-remaining") != "1" {
		t.Fatalf("the counted client after the renewal: %d, remaining %q, want 200 and 1 (4 of 5 taken)", r.Status, r.Header("x-ratelimit-remaining"))
	}
	if r := get(e2eSearch, "198.51.100.4"); r.Status != 200 || r.Header("x-inventory-version") != invA.Version() || offeredIDs(t, r.Body)[3] {
		t.Fatalf("search after the renewal: %d, version %q, want %q with vehicle 3 booked out", r.Status, r.Header("x-inventory-version"), invA.Version())
	}
}
