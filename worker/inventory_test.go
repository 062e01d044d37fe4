//go:build !wasip1 && !js

package main

// The live inventory under wazero: the module's inventory export takes a
// blob between two requests, refuses a bad one and keeps the old, and takes an empty
// one; after each step it answers byte for byte as the native server given the same
// blobs through api.Server.SetInventory.

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

// (wasmApp).inventory hands blob to the module's inventory export and returns its result.
func (a *wasmApp) inventory(t testing.TB, blob []byte) uint64 {
	t.Helper()
	f := a.mod.ExportedFunction("inventory")
	if f == nil {
		t.Fatal("the module does not export inventory")
	}
	n := a.write(t, blob)
	res, err := f.Call(context.Background(), uint64(n))
	if err != nil {
		t.Fatalf("inventory: %v (stderr: %s)", err, a.stderr)
	}
	return res[0]
}

// (wasmApp).offeredVersion returns what the module's inventory_version export reports:
// the version of the blob the last inventory call was offered.
func (a *wasmApp) offeredVersion(t testing.TB) string {
	t.Helper()
	p := a.call0(t, "inventory_version")
	mem := a.mod.Memory()
	n, ok := mem.ReadUint32Le(p)
	if !ok {
		t.Fatalf("inventory_version: address %d outside memory", p)
	}
	b, ok := mem.Read(p+4, n)
	if !ok {
		t.Fatalf("inventory_version: %d bytes at %d outside memory", n, p+4)
	}
	return string(b)
}

// inventoryBlob builds the blob of feed against the bundled catalog.
func inventoryBlob(t testing.TB, feed string) ([]byte, *rental.Inventory) {
	t.Helper()
	c, err := rental.LoadCatalog(data.Files())
	if err != nil {
		t.Fatal(err)
	}
	blob, inv, err := c.BuildInventory([]byte(feed), rental.Feed{File: "feed.json", AsOf: "2026-11-22T09:00:00Z", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return blob, inv
}

// Books every unit of vehicle 3 at depot 1 through March 2027.
const testFeed = `[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-01","drop_off_date":"2027-03-31","units":9}]`

func TestWasmInventorySwap(t *testing.T) {
	vars := wranglerVars(t)
	s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	a := newWasmApp(t, vars, fixedNow)
	targets := []string{
		"/api/agent/",
		"/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20",
		"/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=3",
		"/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-27&drop_off_date=2027-01-06",
		"/api/agent/openapi.json",
	}
	same := func(step, wantVersion string) {
		t.Helper()
		for i, target := range targets {
			req := (httpCase{Target: target}).request("198.51.100." + string(rune('1'+i)))
			want, got := nativeDo(s, &req), a.do(t, &req)
			if !bytes.Equal(got, want) {
				dg, _ := abi.DecodeResponse(got)
				dw, _ := abi.DecodeResponse(want)
				t.Fatalf("%s: GET %s: wasm differs from native:\n--- wasm\n%s\n--- native\n%s", step, target, render(dg), render(dw))
			}
			d, _ := abi.DecodeResponse(got)
			if v := d.Header("x-inventory-version"); v != wantVersion {
				t.Fatalf("%s: GET %s: x-inventory-version %q, want %q", step, target, v, wantVersion)
			}
		}
	}
	same("bundled", s.InventoryVersion())
	if v := a.offeredVersion(t); v != "" {
		t.Fatalf("inventory_version before any blob = %q, want empty", v)
	}

	blob, inv := inventoryBlob(t, testFeed)
	if r := a.inventory(t, blob); r != 0 {
		t.Fatalf("inventory(good blob) = %d; stderr: %s", r, a.stderr)
	}
	if v := a.offeredVersion(t); v != inv.Version() {
		t.Fatalf("inventory_version after a taken blob = %q, want %q", v, inv.Version())
	}
	if err := s.SetInventory(blob); err != nil {
		t.Fatal(err)
	}
	same("after the swap", inv.Version())
	// Taking the first live version over the bundled one (every isolate's first read)
	// logs nothing: X-Inventory-Version names it (setInventory).
	if strings.Contains(a.stderr.String(), "serving") {
		t.Errorf("a log line for the first live version: %s", a.stderr)
	}

	for _, bad := range [][]byte{[]byte("CVIX\x01"), []byte(testFeed), blob[:len(blob)-1]} {
		if r := a.inventory(t, bad); r != 1 {
			t.Fatalf("inventory(bad blob %q) = %d, want 1", bad, r)
		}
		// a refused blob's own version, so that the glue does not read it again
		if v, want := a.offeredVersion(t), rental.InventoryVersion(bad); v != want || v == inv.Version() {
			t.Fatalf("inventory_version after refusing %q = %q, want %q", bad, v, want)
		}
	}
	if !strings.Contains(a.stderr.String(), "refused, still serving "+inv.Version()) {
		t.Errorf("no log line for the refusal: %s", a.stderr)
	}
	same("after bad blobs", inv.Version())

	empty, inv0 := inventoryBlob(t, `[]`)
	if r := a.inventory(t, empty); r != 0 {
		t.Fatalf("inventory(empty) = %d; stderr: %s", r, a.stderr)
	}
	if err := s.SetInventory(empty); err != nil {
		t.Fatal(err)
	}
	same("empty inventory", inv0.Version())
	// One live version replacing another is logged, with both.
	if line := `"inventory ` + inv0.Version() + ` serving, was ` + inv.Version() + `"`; !strings.Contains(a.stderr.String(), line) || strings.Count(a.stderr.String(), "serving,") != 1 {
		t.Errorf("want one log line %s for the change of version: %s", line, a.stderr)
	}
}

// BenchmarkWasmInventory: the module taking the inventory of 100,000 bookings over 2,000
// vehicles is measured in core/rental (BenchmarkDecodeInventorySynthetic) natively; this
// measures the bundled-size swap under wazero, the module's own cost per call.
func BenchmarkWasmInventory(b *testing.B) {
	vars := wranglerVars(b)
	a := newWasmApp(b, vars, fixedNow)
	blob, _ := inventoryBlob(b, testFeed)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := a.inventory(b, blob); r != 0 {
			b.Fatal(r)
		}
	}
}
