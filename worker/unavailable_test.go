//go:build !wasip1 && !js

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// TestWasmMaintenance configures the TinyGo module with MAINTENANCE=true through its
// configure export, as the glue does with the Worker's vars: every API route answers
// 503 with Retry-After, byte for byte as the native server does.
func TestWasmMaintenance(t *testing.T) {
	vars := append(wranglerVars(t), abi.Header{Name: "MAINTENANCE", Value: "true"})
	a := newWasmApp(t, vars, fixedNow)
	s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	for _, target := range []string{"/api/agent/", "/api/agent/openapi.json", "/api/agent/depots",
		"/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19",
		"/api/agent/vehicles/5/accessories", "/api/agent/vehicles/5/insurance-types",
		"/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5"} {
		req := abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "192.0.2.9"}}}
		got := a.do(t, &req)
		d, err := abi.DecodeResponse(got)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != 503 || d.Header("retry-after") != "120" || !strings.HasPrefix(d.Header("content-type"), "application/json") ||
			!strings.Contains(string(d.Body), "maintenance") {
			t.Errorf("GET %s with MAINTENANCE=true: %s", target, render(d))
		}
		if want := nativeDo(s, &req); !bytes.Equal(got, want) {
			t.Errorf("GET %s: the module's 503 differs from native", target)
		}
	}
}

// TestWasmBadVarIs503: a var with a bad value does not stop the module; it answers 503.
func TestWasmBadVarIs503(t *testing.T) {
	vars := append(wranglerVars(t), abi.Header{Name: "RATE_LIMIT_REQUESTS", Value: "many"})
	a := newWasmApp(t, vars, fixedNow)
	req := abi.Request{Method: "GET", Target: "/api/agent/depots"}
	d, err := abi.DecodeResponse(a.do(t, &req))
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != 503 || d.Header("retry-after") == "" {
		t.Errorf("GET /api/agent/depots with a bad var: %s", render(d))
	}
	if !strings.Contains(a.stderr.String(), "RATE_LIMIT_REQUESTS") {
		t.Errorf("the bad var is not logged; stderr: %q", a.stderr)
	}
}
