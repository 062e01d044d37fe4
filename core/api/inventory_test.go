package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	. "github.com/campervan/agent-api/core/rental"
)

// The live inventory in the Server: a swap between two requests, a bad blob
// rejected with the old inventory kept, an empty inventory, and the provenance every
// answer carries.

const (
	invSearch = "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"
	invQuote  = "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=3"
	// Books every unit of vehicle 3 at depot 1 (fleet 2) through March 2027.
	invFeed = `{"as_of":"2026-11-22T09:00:00Z","source":"test feed","bookings":[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-01","drop_off_date":"2027-03-31","units":9}]}`
)

func offered(t *testing.T, body []byte, vehicle int64) bool {
	t.Helper()
	var offers []struct {
		VehicleID int64 `json:"vehicleId"`
	}
	if err := json.Unmarshal(body, &offers); err != nil {
		t.Fatalf("availability body: %v: %s", err, body)
	}
	for _, o := range offers {
		if o.VehicleID == vehicle {
			return true
		}
	}
	return false
}

func TestSetInventory(t *testing.T) {
	cat := bundledCatalog(t)
	s := testServer(t, testConfig(), cat, nil)
	bundledVersion := s.InventoryVersion()
	if !strings.HasPrefix(bundledVersion, "bundled-") {
		t.Fatalf("InventoryVersion() = %q, want bundled-...", bundledVersion)
	}
	before := do(s, "GET", invSearch)
	if before.Status != 200 || !offered(t, before.Body, 3) || before.Header("x-inventory-version") != bundledVersion || before.Header("etag") == "" {
		t.Fatalf("before: %d, version %q, etag %q; vehicle 3 must be offered", before.Status, before.Header("x-inventory-version"), before.Header("etag"))
	}
	if n := do(s, "GET", invSearch, abi.Header{Name: "if-none-match", Value: before.Header("etag")}); n.Status != 304 || len(n.Body) != 0 {
		t.Errorf("availability If-None-Match its ETag: %d, want 304 without a body", n.Status)
	}

	blob, inv, err := cat.BuildInventory([]byte(invFeed), Feed{File: "feed.json"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetInventory(blob); err != nil {
		t.Fatal(err)
	}
	after := do(s, "GET", invSearch)
	if after.Status != 200 || offered(t, after.Body, 3) || after.Header("x-inventory-version") != inv.Version() {
		t.Fatalf("after: %d, version %q (want %q); vehicle 3 must not be offered", after.Status, after.Header("x-inventory-version"), inv.Version())
	}
	if after.Header("etag") == before.Header("etag") {
		t.Error("the availability ETag did not change with the inventory")
	}
	if n := do(s, "GET", invSearch, abi.Header{Name: "if-none-match", Value: before.Header("etag")}); n.Status != 200 {
		t.Errorf("the old ETag after a swap: %d, want 200", n.Status)
	}
	q := do(s, "GET", invQuote)
	if q.Status != 404 || !strings.Contains(string(q.Body), "booked out") || !strings.Contains(string(q.Body), "2027-03-01 to 2027-03-31") {
		t.Errorf("quote after the swap: %d %s, want 404 giving the booked-out dates", q.Status, q.Body)
	}
	idx := do(s, "GET", "/api/agent/")
	if !strings.Contains(string(idx.Body), `"inventory":{"version":"`+inv.Version()+`","asOf":"2026-11-22T09:00:00Z","bookings":1,"bookedOutSpans":1,"source":"test feed"}`) {
		t.Errorf("index: %s", idx.Body)
	}
	doc := do(s, "GET", "/api/agent/openapi.json")
	var d struct {
		Info struct {
			XInventory struct {
				Version string `json:"version"`
			} `json:"x-inventory"`
		} `json:"info"`
	}
	if err := json.Unmarshal(doc.Body, &d); err != nil || d.Info.XInventory.Version != inv.Version() {
		t.Errorf("openapi info.x-inventory.version = %q (%v), want %q", d.Info.XInventory.Version, err, inv.Version())
	}

	// A bad blob is refused and the inventory serving stays.
	for _, bad := range [][]byte{nil, []byte("CVIX"), []byte(invFeed), append(append([]byte(nil), blob...), 0)} {
		if err := s.SetInventory(bad); err == nil {
			t.Errorf("SetInventory(%q) accepted a bad blob", bad)
		}
	}
	if v := s.InventoryVersion(); v != inv.Version() {
		t.Errorf("after bad blobs the version is %q, want %q", v, inv.Version())
	}
	if r := do(s, "GET", invSearch); offered(t, r.Body, 3) || r.Header("x-inventory-version") != inv.Version() {
		t.Error("after bad blobs the answers changed")
	}

	// An empty inventory: nothing booked.
	empty, inv0, err := cat.BuildInventory([]byte(`[]`), Feed{File: "empty.json"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetInventory(empty); err != nil {
		t.Fatal(err)
	}
	r := do(s, "GET", "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-27&drop_off_date=2027-01-06")
	if r.Status != 200 || !offered(t, r.Body, 7) || r.Header("x-inventory-version") != inv0.Version() {
		t.Errorf("empty inventory: %d, version %q; vehicle 7 (booked out in the bundled data) must be offered", r.Status, r.Header("x-inventory-version"))
	}
	// The bundled catalog the server was given is unchanged.
	if cat.Inventory().Version() != bundledVersion {
		t.Error("SetInventory changed the catalog it was given")
	}
}

// TestInventoryHeaderEverywhere: every answer carries X-Inventory-Version (errors, 429,
// preflight, MCP, outside the base path); "none" without a catalog.
func TestInventoryHeaderEverywhere(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	v := s.InventoryVersion()
	for _, c := range []struct{ method, target string }{
		{"GET", "/"}, {"GET", "/api/agent/depots"}, {"OPTIONS", "/api/agent/depots"}, {"PUT", "/api/agent/depots"},
		{"GET", "/api/agent/nope"}, {"GET", invQuote}, {"POST", "/api/agent/mcp"}, {"GET", "/api/agent/quotes?x=1"},
	} {
		r := do(s, c.method, c.target)
		if got := r.Header("x-inventory-version"); got != v {
			t.Errorf("%s %s: x-inventory-version %q, want %q", c.method, c.target, got, v)
		}
	}
	r := do(testServer(t, testConfig(), nil, nil), "GET", "/api/agent/depots")
	if got := r.Header("x-inventory-version"); got != "none" {
		t.Errorf("without a catalog: %q, want none", got)
	}
	if err := testServer(t, testConfig(), nil, nil).SetInventory([]byte("CVIX\x01")); err == nil {
		t.Error("SetInventory without a catalog succeeded")
	}
}

// TestAvailabilityAllocsWithETag: the ETag costs no allocation per request.
func TestAvailabilityAllocsWithETag(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	var w abi.Response
	req := &abi.Request{Method: "GET", Target: invSearch, Headers: []abi.Header{{Name: "if-none-match", Value: `"x"`}}}
	s.Handle(req, &w)
	if a := testing.AllocsPerRun(100, func() { s.Handle(req, &w) }); a != 0 {
		t.Errorf("GET availability allocates %v times per request, want 0", a)
	}
}
