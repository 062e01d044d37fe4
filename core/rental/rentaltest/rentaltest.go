// Package rentaltest makes synthetic catalogs of any size, for tests, benchmarks and
// make scale.
package rentaltest

import (
	"fmt"
	"math/rand"
	"strings"
)

// Depots is how many depots a synthetic catalog has.
const Depots = 6

// Catalog returns the reference data of n vehicles: base's policy, seasons, extras and
// terms, Depots depots, n vehicles with 1-4 units at every depot, and no bookings; and
// its random source (seed 42), which a caller may go on drawing from (a feed of
// bookings).
func Catalog(n int, base map[string][]byte) (map[string][]byte, *rand.Rand) {
	rng := rand.New(rand.NewSource(42))
	files := map[string][]byte{"policy.json": base["policy.json"], "seasons.json": base["seasons.json"], "extras.json": base["extras.json"], "terms.json": base["terms.json"]}
	var b strings.Builder
	b.WriteString("[")
	for i := 1; i <= Depots; i++ {
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
	for v := 1; v <= n; v++ {
		if v > 1 {
			b.WriteString(",")
		}
		low := 5000 + rng.Intn(15000)
		fmt.Fprintf(&b, `{"id":%d,"name":"Synthetic %d","class":"%s","berths":%d,"transmission":"automatic","image_url":"https://images.example-campers.co.nz/synthetic/%d.jpg",
"rates":{"low":%d,"shoulder":%d,"peak":%d},"min_hire_days":{"low":1,"shoulder":2,"peak":3},"fleet":[`, v, v, classes[v%3], 2+v%5, v, low, low*3/2, low*5/2)
		for d := 1; d <= Depots; d++ {
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
	routes := 0
	for i := 1; i <= Depots; i++ {
		for j := 1; j <= Depots; j++ {
			if i != j {
				if routes > 0 {
					b.WriteString(",")
				}
				routes++
				fmt.Fprintf(&b, `{"from_depot_id":%d,"to_depot_id":%d,"fee_cents":%d}`, i, j, 10000+500*(i+j))
			}
		}
	}
	b.WriteString("]}")
	files["routes.json"] = []byte(b.String())
	files["bookings.json"] = []byte("[]")
	return files, rng
}
