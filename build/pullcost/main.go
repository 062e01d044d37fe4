// Command pullcost measures the scheduled pull (worker/glue/scheduled.mjs) at 1,000,
// 10,000 and 100,000 bookings against the bundled catalog, in V8 through node, with
// the module given (the shipped build/app.wasm by default): the pull's CPU and wall
// time, the memory of the instance made for the build, and node's peak RSS. Each feed
// runs in a node process of its own.
//
//	go run ./build/pullcost [-wasm build/app.wasm] [-bookings 1000,10000,100000]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

func main() {
	wasm := flag.String("wasm", "build/app.wasm", "the module")
	sizes := flag.String("bookings", "1000,10000,100000", "feed sizes, comma-separated")
	keep := flag.String("keep", "", "write the feeds into this directory and keep them")
	flag.Parse()
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "pullcost-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	pairs := fleetPairs()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-bookings: %q", s))
		}
		path := filepath.Join(dir, fmt.Sprintf("feed-%d.json", n))
		if err := os.WriteFile(path, feed(n, pairs, rand.New(rand.NewSource(42))), 0o644); err != nil {
			fail(err)
		}
		out, err := exec.Command(filepath.Join("node_modules", ".bin", "node"), "--no-warnings", "build/pullcost/pull.mjs", *wasm, path).CombinedOutput()
		if err != nil {
			fail(fmt.Errorf("node: %v: %s", err, out))
		}
		fmt.Printf("pullcost: %d bookings: %s", n, out)
	}
}

type pair struct{ vehicle, depot int64 }

// fleetPairs returns the (vehicle, depot) pairs of the bundled vehicles.json that have
// a fleet.
func fleetPairs() []pair {
	var vs []struct {
		ID    int64 `json:"id"`
		Fleet []struct {
			DepotID int64 `json:"depot_id"`
			Units   int   `json:"units"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(data.Files()["vehicles.json"], &vs); err != nil {
		fail(err)
	}
	var ps []pair
	for _, v := range vs {
		for _, f := range v.Fleet {
			if f.Units > 0 {
				ps = append(ps, pair{v.ID, f.DepotID})
			}
		}
	}
	return ps
}

// feed returns n bookings of 1-2 units and 1-21 days over three years, spread over
// the pairs (build/scale's feed, over the bundled catalog).
func feed(n int, pairs []pair, rng *rand.Rand) []byte {
	var b strings.Builder
	b.WriteString(`{"source":"pullcost","bookings":[`)
	start := rental.DateOf(2026, 1, 1)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		p := pairs[rng.Intn(len(pairs))]
		from := start.AddDays(rng.Intn(1100) - 10)
		fmt.Fprintf(&b, `{"id":%d,"vehicle_id":%d,"depot_id":%d,"pick_up_date":"%s","drop_off_date":"%s","units":%d}`,
			i+1, p.vehicle, p.depot, from, from.AddDays(rng.Intn(21)), 1+rng.Intn(2))
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pullcost:", err)
	os.Exit(1)
}
