package api

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	. "github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

// A synthetic catalog of scaleVehicles vehicles over 6 depots, every vehicle at every
// depot, no bookings: the shape of build/scale's, loaded natively.
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
	const depots = 6
	base := data.Files()
	rng := rand.New(rand.NewSource(42))
	files := map[string][]byte{"policy.json": base["policy.json"], "seasons.json": base["seasons.json"],
		"extras.json": base["extras.json"], "terms.json": base["terms.json"], "bookings.json": []byte("[]")}
	var b strings.Builder
	b.WriteString("[")
	for i := 1; i <= depots; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Depot %d","active":true,"notice_days":1,"opening_hours_description":"Daily 08:00-16:00.",
"pickup_times":[{"time":"09:00","day":"weekday"}],"drop_off_times":[{"time":"15:00","day":"weekday"}],"closed_dates":[{"date":"2026-12-25","name":"Christmas Day"}]}`, i, i)
	}
	b.WriteString("]")
	files["depots.json"] = []byte(b.String())
	b.Reset()
	classes := []string{"compact", "campervan", "motorhome"}
	b.WriteString("[")
	for v := 1; v <= vehicles; v++ {
		if v > 1 {
			b.WriteString(",")
		}
		low := 5000 + rng.Intn(15000)
		fmt.Fprintf(&b, `{"id":%d,"name":"Synthetic %d","class":"%s","berths":%d,"transmission":"automatic","image_url":"https://images.example-campers.co.nz/synthetic/%d.jpg",
"rates":{"low":%d,"shoulder":%d,"peak":%d},"min_hire_days":{"low":1,"shoulder":2,"peak":3},"fleet":[`, v, v, classes[v%3], 2+v%5, v, low, low*3/2, low*5/2)
		for d := 1; d <= depots; d++ {
			if d > 1 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"depot_id":%d,"units":%d}`, d, 1+rng.Intn(4))
		}
		b.WriteString("]}")
	}
	b.WriteString("]")
	files["vehicles.json"] = []byte(b.String())
	b.Reset()
	b.WriteString(`{"waiver_min_days":14,"routes":[`)
	n := 0
	for i := 1; i <= depots; i++ {
		for j := 1; j <= depots; j++ {
			if i != j {
				if n > 0 {
					b.WriteString(",")
				}
				n++
				fmt.Fprintf(&b, `{"from_depot_id":%d,"to_depot_id":%d,"fee_cents":%d}`, i, j, 10000+500*(i+j))
			}
		}
	}
	b.WriteString("]}")
	files["routes.json"] = []byte(b.String())
	return files
}

// benchScale is benchHandle over the synthetic catalog.
func benchScale(b *testing.B, target string) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40
	s := NewServer(cfg, scaleCatalog(b), nil, func() int64 { return 1795392000000 }, func(p []byte) {}, nil)
	var w Response
	req := Request{Method: "GET", Target: target}
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
