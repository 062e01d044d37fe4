package api

import (
	"github.com/campervan/agent-api/core/abi"
	. "github.com/campervan/agent-api/core/rental"

	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// apiTargets is one request per route of the API.
var apiTargets = []string{
	"/api/agent",
	"/api/agent/",
	"/api/agent/openapi.json",
	"/api/agent/depots",
	"/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19",
	"/api/agent/vehicles/5/accessories",
	"/api/agent/vehicles/5/accessories?pick_up_date=2026-12-08&drop_off_date=2026-12-19",
	"/api/agent/vehicles/5/insurance-types",
	"/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33",
	"/api/agent/vehicles",
}

var testNow = int64(1795305600000) // 2026-11-22T00:00:00Z

func testServer(t *testing.T, cfg Config, cat *Catalog, catErr error) *Server {
	t.Helper()
	return NewServer(cfg, cat, catErr, func() int64 { return testNow }, func(b []byte) {
		for i := range b {
			b[i] = 0x5a
		}
	}, nil)
}

func do(s *Server, method, target string, headers ...abi.Header) abi.DecodedResponse {
	var w abi.Response
	s.Handle(&abi.Request{Method: method, Target: target, Headers: headers}, &w)
	d, err := abi.DecodeResponse(w.Encode())
	if err != nil {
		panic(err)
	}
	return d
}

// check503 requires a 503 JSON error with Retry-After, the rate-limit headers and no-store.
func check503(t *testing.T, d abi.DecodedResponse, method, target, wantMsg string) {
	t.Helper()
	if d.Status != 503 {
		t.Fatalf("%s %s: status %d, want 503; body %s", method, target, d.Status, d.Body)
	}
	for name, want := range map[string]string{"retry-after": "120", "content-type": ctJSON, "cache-control": "no-store", "x-ratelimit-limit": "100"} {
		if got := d.Header(name); got != want {
			t.Errorf("%s %s: %s = %q, want %q", method, target, name, got, want)
		}
	}
	if method == "HEAD" {
		if len(d.Body) != 0 {
			t.Errorf("HEAD %s: body %q, want none", target, d.Body)
		}
		return
	}
	var e struct{ Error string }
	if err := json.Unmarshal(d.Body, &e); err != nil || !strings.Contains(e.Error, wantMsg) {
		t.Errorf("%s %s: body %s (%v), want an error containing %q", method, target, d.Body, err, wantMsg)
	}
}

func TestMaintenanceEveryRoute(t *testing.T) {
	cfg, err := ConfigFromVars([]Var{{Name: "MAINTENANCE", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	s := testServer(t, cfg, bundledCatalog(t), nil)
	for _, target := range apiTargets {
		for _, m := range []string{"GET", "HEAD"} {
			check503(t, do(s, m, target), m, target, "down for maintenance")
		}
	}
	// Conditional requests do not get around it.
	check503(t, do(s, "GET", "/api/agent/depots", abi.Header{Name: "if-none-match", Value: "*"}), "GET", "/api/agent/depots", "maintenance")
}

func TestCatalogErrorEveryRoute(t *testing.T) {
	for name, srv := range map[string]*Server{
		"load error": testServer(t, testConfig(), nil, errors.New("depots.json: record 3: bad id")),
		"no catalog": testServer(t, testConfig(), nil, nil),
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range apiTargets {
				d := do(srv, "GET", target)
				check503(t, d, "GET", target, "temporarily unavailable")
				if strings.Contains(string(d.Body), "bad id") {
					t.Errorf("GET %s: the load error leaks to the client: %s", target, d.Body)
				}
			}
		})
	}
}

// Outside the base path and for other methods the answers stay 404 and 405.
func TestMaintenanceKeepsNotFoundAndMethod(t *testing.T) {
	cfg := testConfig()
	cfg.Maintenance = true
	s := testServer(t, cfg, bundledCatalog(t), nil)
	if d := do(s, "GET", "/favicon.ico"); d.Status != 404 {
		t.Errorf("GET /favicon.ico in maintenance: %d, want 404", d.Status)
	}
	if d := do(s, "POST", "/api/agent/quotes"); d.Status != 405 || d.Header("allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST in maintenance: %d allow %q, want 405 GET, HEAD, OPTIONS", d.Status, d.Header("allow"))
	}
}
