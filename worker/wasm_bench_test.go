//go:build !wasip1 && !js

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	wapi "github.com/tetratelabs/wazero/api"
)

// benchWasm measures one request through the TinyGo module under wazero, the ABI
// included (the Worker's V8 differs, but allocations and GC show the same way).
func benchWasm(b *testing.B, target string) { benchWasmStatus(b, target, 200) }

func benchWasmStatus(b *testing.B, target string, status uint16) {
	// A limit the loop never reaches: measure the operation, not the 429 it would get.
	vars := append(wranglerVars(b), abi.Header{Name: "RATE_LIMIT_REQUESTS", Value: "1000000000"})
	a := newWasmApp(b, vars, fixedNow)
	req := abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.18.0.1"}}}
	in := abi.EncodeRequest(nil, &req)
	n := a.write(b, in)
	ctx := context.Background()
	if res, err := a.handle.Call(ctx, uint64(n), 0); err != nil {
		b.Fatal(err)
	} else if st, _ := a.mod.Memory().ReadUint16Le(uint32(res[0]) + 4); st != status {
		b.Fatalf("%s: status %d", target, st)
	}
	mallocs := a.mod.ExportedFunction("mallocs") // only in -tags memstats builds
	var m0 uint64
	if mallocs != nil {
		r, _ := mallocs.Call(ctx)
		m0 = r[0]
	}
	b.ResetTimer()
	defer func() {
		if mallocs != nil {
			r, _ := mallocs.Call(ctx)
			b.ReportMetric(float64(r[0]-m0)/float64(b.N), "wasm-mallocs/op")
		}
	}()
	for i := 0; i < b.N; i++ {
		in[len(in)-5] = byte('0' + i/64%10) // ten clients, in turns
		if i == b.N-1 {
			b.StopTimer()
			res, _ := a.handle.Call(ctx, uint64(n), 0)
			if st, _ := a.mod.Memory().ReadUint16Le(uint32(res[0]) + 4); st != status {
				b.Fatalf("%s: the last answer was %d, want %d", target, st, status)
			}
			continue
		}
		a.mod.Memory().Write(uint32(0), nil)
		a.write(b, in)
		if _, err := a.handle.Call(ctx, uint64(n), 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWasmDepots(b *testing.B) { benchWasm(b, "/api/agent/depots") }

func BenchmarkWasmAvailability(b *testing.B) {
	benchWasm(b, "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19")
}

// The same search with every vehicle's insurance options (include=insurance).
func BenchmarkWasmAvailabilityAllIn(b *testing.B) {
	benchWasm(b, "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&include=insurance")
}

func BenchmarkWasmQuote(b *testing.B) {
	benchWasm(b, "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33")
}

func BenchmarkWasmOutside(b *testing.B) { benchWasmStatus(b, "/nothing", 404) }
func BenchmarkWasmNoRoute(b *testing.B) { benchWasmStatus(b, "/api/agent/vehicles", 404) }

// The largest calendar: 63 start dates x 4 hire lengths (252 searches, ~476 KB of JSON).
func BenchmarkWasmCalendarLargest(b *testing.B) {
	benchWasm(b, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21")
}

// The calendar's done-when question: 17 start dates, 10 days, 4+ berths, automatic.
func BenchmarkWasmCalendarDoneWhen(b *testing.B) {
	benchWasm(b, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic")
}

// TestWasmAllocs: the request paths allocate nothing in the TinyGo module once warm.
// It needs a module built with -tags memstats (it exports mallocs): `make allocs`;
// with the shipped module it is skipped.
func TestWasmAllocs(t *testing.T) {
	a := newAllocsApp(t, wranglerVars(t))
	for _, c := range allocCases {
		target := c.target
		if c.name == "check (verify)" { // the id of the quote above, issued by this instance
			q := allocCases[len(allocCases)-2].target
			d, _ := abi.DecodeResponse(a.do(t, &abi.Request{Method: "GET", Target: q}))
			body := string(d.Body)
			target += body[len(`{"quoteId":"`):strings.Index(body, `","expiresAt"`)]
		}
		if strings.HasSuffix(c.name, "(next)") { // the next page of the case before: its Link's URL
			d, _ := abi.DecodeResponse(a.do(t, &abi.Request{Method: "GET", Target: target}))
			l := d.Header("link")
			if !strings.HasPrefix(l, "<") || !strings.Contains(l, ">") {
				t.Fatalf("%s: no Link header (%q)", target, l)
			}
			target = l[1:strings.IndexByte(l, '>')]
		}
		req := abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.18.0.1"}}}
		d := a.noAllocs(t, c.name, &req)
		if d.Status != c.status {
			t.Errorf("%s: status %d, want %d", c.name, d.Status, c.status)
		}
	}
}

// allocsApp is a module instance with its heap allocation count (the mallocs export of a
// -tags memstats build).
type allocsApp struct {
	*wasmApp
	mallocs wapi.Function
}

// newAllocsApp makes an instance with vars and a rate limit no test reaches; the test
// is skipped when the module has no mallocs export (the shipped one: make allocs
// builds it with -tags memstats).
func newAllocsApp(t *testing.T, vars []abi.Header) allocsApp {
	a := newWasmApp(t, append(vars, abi.Header{Name: "RATE_LIMIT_REQUESTS", Value: "1000000000"}), fixedNow)
	mallocs := a.mod.ExportedFunction("mallocs")
	if mallocs == nil {
		t.Skip("the module has no mallocs export: build it with -tags memstats (make allocs)")
	}
	return allocsApp{a, mallocs}
}

// noAllocs sends req 20 times, so that the module's buffers grow to their size, then
// 500 times, and fails the test when those 500 allocated; it returns the last answer.
func (a allocsApp) noAllocs(t *testing.T, name string, req *abi.Request) abi.DecodedResponse {
	count := func() uint64 {
		r, err := a.mallocs.Call(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	for i := 0; i < 20; i++ {
		a.do(t, req)
	}
	const n = 500
	before := count()
	var d abi.DecodedResponse
	for i := 0; i < n; i++ {
		d, _ = abi.DecodeResponse(a.do(t, req))
	}
	got := count() - before
	t.Logf("%-14s %d: %d mallocs in %d requests", name, d.Status, got, n)
	if got != 0 {
		t.Errorf("%s: %d heap allocations in %d requests, want 0", name, got, n)
	}
	return d
}

var allocCases = []struct {
	name, target string
	status       int
}{
	{"depots", "/api/agent/depots", 200},
	{"availability", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19", 200},
	{"calendar", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-05-03&latest_pick_up_date=2027-05-20&days=7,10&min_berths=4", 200},
	{"calendar (closed days)", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic", 200},
	{"terms", "/api/agent/terms", 200},
	{"all-in search", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&driver_age=23&include=insurance", 200},
	{"all-in calendar", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-05-03&latest_pick_up_date=2027-05-20&days=7,10&driver_age=21&include=insurance", 200},
	{"paged search", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&sort=price&limit=4", 200},
	{"paged search (next)", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&sort=price&limit=4", 200},
	{"calendar full", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-05-03&latest_pick_up_date=2027-05-20&days=7,10&detail=full&limit=20", 200},
	{"calendar (next)", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-05-03&latest_pick_up_date=2027-05-20&days=7,10&detail=full&limit=20", 200},
	{"accessories (next)", "/api/agent/vehicles/5/accessories?limit=2", 200},
	{"quote (driver)", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=9&insurance_id=43&driver_age=30", 200},
	{"quote (sign)", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33", 200},
	{"check (verify)", "/api/agent/quotes/", 200}, // + the id of the quote above: verify, re-price, sign
}
