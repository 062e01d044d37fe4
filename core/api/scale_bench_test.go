package api

import (
	"sync"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/rental/rentaltest"
	"github.com/campervan/agent-api/data"
)

// A synthetic catalog of scaleVehicles vehicles over 6 depots, every vehicle at every
// depot, no bookings (rentaltest.Catalog, as make scale builds), loaded natively.
const scaleVehicles = 2000

var scaleCat struct {
	once sync.Once
	cat  *rental.Catalog
	err  error
}

func scaleCatalog(tb testing.TB) *rental.Catalog {
	tb.Helper()
	scaleCat.once.Do(func() { scaleCat.cat, scaleCat.err = rental.LoadCatalog(scaleFiles(scaleVehicles)) })
	if scaleCat.err != nil {
		tb.Fatal(scaleCat.err)
	}
	return scaleCat.cat
}

func scaleFiles(vehicles int) map[string][]byte {
	files, _ := rentaltest.Catalog(vehicles, data.Files())
	return files
}

// benchScale is benchHandle over the synthetic catalog.
func benchScale(b *testing.B, target string) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40
	s := NewServer(cfg, scaleCatalog(b), nil, func() int64 { return 1795392000000 }, func(p []byte) {}, nil)
	var w abi.Response
	req := abi.Request{Method: "GET", Target: target}
	s.Handle(&req, &w)
	if w.Status != 200 {
		b.Fatalf("%s: %d %s", target, w.Status, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Handle(&req, &w)
		w.Encode()
	}
	b.ReportMetric(float64(len(w.Body)), "body-bytes")
}

func BenchmarkScaleAvailability(b *testing.B) {
	benchScale(b, "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=2&pick_up_date=2027-03-08&drop_off_date=2027-03-17")
}

func BenchmarkScaleCalendar(b *testing.B) {
	benchScale(b, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=10")
}

// The same calendar with every vehicle of every entry: the first page, one entry of
// up to 2,000 vehicles (fullDetailRows).
func BenchmarkScaleCalendarFull(b *testing.B) {
	benchScale(b, "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=10&detail=full")
}
