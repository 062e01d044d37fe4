package rental

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
)

// synth is a synthetic snapshot: 2,000 vehicles at 6 depots and 100,000
// bookings, built as JSON in memory so LoadCatalog validates it like real data.
type synthBooking struct {
	vehicle, depot int64
	from, to       Date
	units          int
}

var synth struct {
	once     sync.Once
	files    map[string][]byte
	cat      *Catalog
	err      error
	fleet    map[[2]int64]int
	bookings []synthBooking
}

const (
	synthVehicles = 2000
	synthDepots   = 6
	synthBookings = 100000
)

func buildSynthetic(tb testing.TB) {
	base := snapshottest.Files(tb)
	rng := rand.New(rand.NewSource(42))
	files := map[string][]byte{
		"policy.json":  base["policy.json"],
		"seasons.json": base["seasons.json"],
		"extras.json":  base["extras.json"],
		"terms.json":   base["terms.json"],
	}
	var b strings.Builder
	b.WriteString("[")
	for i := 1; i <= synthDepots; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Depot %d","active":true,"notice_days":1,"opening_hours_description":"Daily 08:00-16:00.",
"pickup_times":[{"time":"09:00","day":"weekday"},{"time":"10:00","day":"weekend"}],"drop_off_times":[{"time":"15:00","day":"weekday"}],
"closed_dates":[{"date":"2026-12-25","name":"Christmas Day"},{"date":"2027-12-25","name":"Christmas Day"}]}`, i, i)
	}
	b.WriteString("]")
	files["depots.json"] = []byte(b.String())

	classes := []string{"compact", "campervan", "motorhome"}
	synth.fleet = map[[2]int64]int{}
	b.Reset()
	b.WriteString("[")
	for v := 1; v <= synthVehicles; v++ {
		if v > 1 {
			b.WriteString(",")
		}
		low := 5000 + rng.Intn(15000)
		fmt.Fprintf(&b, `{"id":%d,"name":"Synthetic %d","class":"%s","berths":%d,"transmission":"automatic","image_url":"https://images.example-campers.co.nz/synthetic/%d.jpg",
"rates":{"low":%d,"shoulder":%d,"peak":%d},"min_hire_days":{"low":%d,"shoulder":%d,"peak":%d},"fleet":[`,
			v, v, classes[v%3], 2+v%5, v, low, low*3/2, low*5/2, 1+rng.Intn(3), 1+rng.Intn(4), 1+rng.Intn(7))
		for d := 1; d <= synthDepots; d++ {
			u := 1 + rng.Intn(4)
			synth.fleet[[2]int64{int64(v), int64(d)}] = u
			if d > 1 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"depot_id":%d,"units":%d}`, d, u)
		}
		b.WriteString("]}")
	}
	b.WriteString("]")
	files["vehicles.json"] = []byte(b.String())

	b.Reset()
	b.WriteString(`{"waiver_min_days":14,"routes":[`)
	n := 0
	for i := 1; i <= synthDepots; i++ {
		for j := 1; j <= synthDepots; j++ {
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

	b.Reset()
	b.WriteString("[")
	start := DateOf(2026, 1, 1)
	for i := 0; i < synthBookings; i++ {
		bk := synthBooking{vehicle: int64(1 + rng.Intn(synthVehicles)), depot: int64(1 + rng.Intn(synthDepots)), units: 1 + rng.Intn(2)}
		bk.from = start.AddDays(rng.Intn(1100) - 10)
		bk.to = bk.from.AddDays(rng.Intn(21))
		synth.bookings = append(synth.bookings, bk)
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"vehicle_id":%d,"depot_id":%d,"pick_up_date":"%s","drop_off_date":"%s","units":%d}`,
			i+1, bk.vehicle, bk.depot, bk.from, bk.to, bk.units)
	}
	b.WriteString("]")
	files["bookings.json"] = []byte(b.String())
	synth.files = files
	synth.cat, synth.err = LoadCatalog(files)
}

func syntheticCatalog(tb testing.TB) *Catalog {
	tb.Helper()
	synth.once.Do(func() { buildSynthetic(tb) })
	if synth.err != nil {
		tb.Fatalf("LoadCatalog(synthetic) = %v", synth.err)
	}
	return synth.cat
}

// TestSyntheticAvailabilityBruteForce checks the precomputed booked-out spans
// against counting the bookings day by day.
func TestSyntheticAvailabilityBruteForce(t *testing.T) {
	c := syntheticCatalog(t)
	// booked[vehicle, depot, day] by brute force, only for the searched vehicles.
	rng := rand.New(rand.NewSource(7))
	var offers []Offer
	for i := 0; i < 40; i++ {
		pick := testToday.AddDays(2 + rng.Intn(700))
		if c.SeasonOf(pick) == "" {
			continue
		}
		s := Search{PickUpDepot: int64(1 + rng.Intn(synthDepots)), PickUp: pick, DropOff: pick.AddDays(rng.Intn(20)), Today: testToday}
		s.DropOffDepot = s.PickUpDepot
		var err *Error
		offers, err = c.Availability(s, offers)
		if err != nil {
			continue
		}
		listed := offerIDs(offers)
		for v := int64(1); v <= synthVehicles; v += 37 {
			free := true
			for day := s.PickUp; day <= s.DropOff && free; day++ {
				used := 0
				for _, bk := range synth.bookings {
					if bk.vehicle == v && bk.depot == s.PickUpDepot && bk.from <= day && day <= bk.to {
						used += bk.units
					}
				}
				free = used < synth.fleet[[2]int64{v, s.PickUpDepot}]
			}
			_, ok := listed[v]
			reason := c.Unavailable(s, v)
			minHire := strings.Contains(reason, "minimum hire")
			if ok != (free && !minHire) {
				t.Fatalf("%+v vehicle %d: listed %v, brute force free %v, reason %q", s, v, ok, free, reason)
			}
		}
	}
}

func BenchmarkQuote(b *testing.B) {
	c := bundledCatalog(b)
	req := QuoteRequest{Search: search(2, 3, "2026-12-08", "2026-12-19"), VehicleID: 5,
		Accessories: []Pick{{1, 2}, {2, 2}, {6, 4}}, InsuranceID: 33}
	var q Quote
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := c.Quote(&req, &q); err != nil {
			b.Fatal(err.Message)
		}
	}
}

func BenchmarkAvailability(b *testing.B) {
	c := bundledCatalog(b)
	s := search(2, 2, "2026-12-20", "2027-01-03")
	var offers []Offer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		offers, _ = c.Availability(s, offers)
	}
	b.ReportMetric(float64(len(offers)), "offers")
}

func BenchmarkQuoteSynthetic(b *testing.B) {
	c := syntheticCatalog(b)
	var q Quote
	// Find an available vehicle for the search first.
	s := Search{PickUpDepot: 3, DropOffDepot: 5, PickUp: DateOf(2027, 1, 10), DropOff: DateOf(2027, 1, 24), Today: testToday}
	offers, err := c.Availability(s, nil)
	if err != nil || len(offers) == 0 {
		b.Fatalf("no offers: %v", err)
	}
	req := QuoteRequest{Search: s, VehicleID: offers[len(offers)/2].Vehicle.ID, Accessories: []Pick{{2, 2}, {6, 2}}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Quote(&req, &q); err != nil {
			b.Fatal(err.Message)
		}
	}
}

func BenchmarkAvailabilitySynthetic(b *testing.B) {
	c := syntheticCatalog(b)
	s := Search{PickUpDepot: 3, DropOffDepot: 5, PickUp: DateOf(2027, 1, 10), DropOff: DateOf(2027, 1, 24), Today: testToday}
	var offers []Offer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		offers, _ = c.Availability(s, offers)
	}
	b.ReportMetric(float64(len(offers)), "offers")
}

func BenchmarkCheckSearch(b *testing.B) {
	c := bundledCatalog(b)
	s := search(2, 3, "2026-12-08", "2026-12-19")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if c.CheckSearch(s) != nil {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkLoadCatalogBundled(b *testing.B) {
	files := snapshottest.Files(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := LoadCatalog(files); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadCatalogSynthetic(b *testing.B) {
	syntheticCatalog(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LoadCatalog(synth.files); err != nil {
			b.Fatal(err)
		}
	}
}
