package api

import (
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// The whole request path natively: decode nothing (the Request is built), route, parse,
// compute, render, encode. Allocations here are what TinyGo's GC would have to collect.
func benchHandle(b *testing.B, target string) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40 // measure the operation, not the 429 it would soon get
	s := NewServer(cfg, bundledCatalog(b), nil,
		func() int64 { return 1795392000000 }, // 2026-11-22T00:00:00Z
		func(p []byte) {
			for i := range p {
				p[i] = 1
			}
		}, nil)
	var w abi.Response
	ips := []string{"198.18.0.1", "198.18.0.2", "198.18.0.3", "198.18.0.4"}
	req := abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ""}}}
	s.Handle(&req, &w)
	if w.Status != 200 {
		b.Fatalf("%s: %d %s", target, w.Status, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.Headers[0].Value = ips[i&3]
		s.Handle(&req, &w)
		w.Encode()
	}
	b.StopTimer()
	if w.Status != 200 {
		b.Fatalf("%s: the last answer was %d %s", target, w.Status, w.Body)
	}
}

func BenchmarkHandleDepots(b *testing.B) { benchHandle(b, "/api/agent/depots") }

func BenchmarkHandleAvailability(b *testing.B) {
	benchHandle(b, "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19")
}

func BenchmarkHandleQuote(b *testing.B) {
	benchHandle(b, "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33")
}

// The same search with every vehicle's insurance options (include=insurance).
func BenchmarkHandleAvailabilityAllIn(b *testing.B) {
	benchHandle(b, "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&include=insurance")
}

func BenchmarkHandleTerms(b *testing.B) { benchHandle(b, "/api/agent/terms") }

func BenchmarkHandleAccessories(b *testing.B) { benchHandle(b, "/api/agent/vehicles/5/accessories") }

func BenchmarkHandleAvailabilityFiltered(b *testing.B) {
	benchHandle(b, "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24&min_berths=4&transmission=automatic&class=motorhome&max_total=2500&sort=price")
}

// The largest calendar: 63 start dates x 4 hire lengths, every vehicle (252 searches).
const calendarLargest = "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21"

func BenchmarkHandleCalendarLargest(b *testing.B) { benchHandle(b, calendarLargest) }

// The calendar's reference question (TestCalendarDoneWhen): 17 start dates, one length, two filters.
func BenchmarkHandleCalendarDoneWhen(b *testing.B) {
	benchHandle(b, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic")
}

// BenchmarkHandleQuoteCheck: GET /quotes/{quoteId} of the worked example's quote:
// verify, re-price, sign the new quote.
func BenchmarkHandleQuoteCheck(b *testing.B) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40
	s := NewServer(cfg, bundledCatalog(b), nil, func() int64 { return 1795392000000 }, func(p []byte) {}, nil)
	var w abi.Response
	s.Handle(&abi.Request{Method: "GET", Target: "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"}, &w)
	body := string(w.Body)
	benchHandle(b, "/api/agent/quotes/"+body[len(`{"quoteId":"`):strings.Index(body, `","expiresAt"`)])
}
