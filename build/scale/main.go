// Command scale measures the Worker at the fleet sizes it is built for. `make scale`
// runs it:
//
//	go run ./build/scale -out build/out/scale [-tinygo /opt/tinygo/bin/tinygo] [-vehicles 12,200,2000]
//
// The live inventory: 100,000 bookings over 2,000 vehicles at 6 depots, synthetic and
// deterministic (seed 42), with the bundled policy, seasons and extras. It writes the
// reference data (out/data/*.json), the feed (out/feed.json) and its blob
// (out/inventory.bin), and prints the blob's size, the time to build it and the time to
// decode it natively; with -tinygo it also builds build/scale/wasmload with the Worker's
// TinyGo flags and runs it under wazero and in V8 (node's WASI, build/scale/wasi.mjs):
// the time of api.Server.SetInventory, what the Worker's inventory export does, in wasm.
//
// The catalog (fleet.go): for each count of -vehicles, the Worker built for that
// catalog (the bundled one for its own count, else synthetic over 6 depots) in a copy of
// the tree, into out/<count>/, and run on workerd: build time, module size, initial
// memory, cold start, and each operation's answer size and CPU time a request.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/campervan/agent-api/build/internal/devrun"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/rental/rentaltest"
	"github.com/campervan/agent-api/data"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

const (
	vehicles = 2000 // of the inventory's catalog
	depots   = rentaltest.Depots
	bookings = 100000
)

func main() {
	out := flag.String("out", "build/out/scale", "output directory")
	tinygo := flag.String("tinygo", "", "TinyGo compiler: also measure the decode in wasm under wazero, and the Worker per catalog")
	runs := flag.Int("runs", 50, "decode runs (median reported)")
	fleets := flag.String("vehicles", "12,200,2000", "the catalogs the Worker is built for and measured at, by vehicle count (the bundled catalog's count: the bundled catalog; empty: none)")
	colds := flag.Int("cold", 7, "cold starts per catalog (median reported)")
	opTime := flag.Duration("op-time", time.Second, "how long each operation is sent for, one request at a time, per catalog")
	flag.Parse()
	devrun.StopOnSignal("scale")
	err := run(*out, *tinygo, *runs)
	if err == nil && *tinygo != "" && *fleets != "" {
		err = fleetTable(*out, *tinygo, *fleets, *colds, *opTime)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func run(out, tinygo string, runs int) error {
	dataDir := filepath.Join(out, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	files, rng := generate(vehicles)
	feed := generateFeed(rng)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dataDir, name), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(out, "feed.json"), feed, 0o644); err != nil {
		return err
	}
	cat, err := rental.LoadCatalog(files)
	if err != nil {
		return err
	}
	t0 := time.Now()
	blob, inv, err := cat.BuildInventory(feed, rental.Feed{File: "feed.json", AsOf: "2026-11-23T00:00:00Z", Source: "make scale (synthetic)"})
	if err != nil {
		return err
	}
	build := time.Since(t0)
	blobPath := filepath.Join(out, "inventory.bin")
	if err := os.WriteFile(blobPath, blob, 0o644); err != nil {
		return err
	}
	ts := make([]time.Duration, runs)
	for i := range ts {
		t := time.Now()
		if _, err := cat.DecodeInventory(blob); err != nil {
			return err
		}
		ts[i] = time.Since(t)
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	fmt.Printf("scale: %d bookings over %d vehicles x %d depots: feed %d bytes -> blob %d bytes (%.1f KiB, %d booked-out spans, version %s)\n",
		inv.Bookings(), vehicles, depots, len(feed), len(blob), float64(len(blob))/1024, inv.Spans(), inv.Version())
	fmt.Printf("scale: native: build (validate + spans + encode) %v; decode median %v, fastest %v (%d runs)\n",
		build.Round(time.Millisecond), ts[runs/2].Round(time.Microsecond), ts[0].Round(time.Microsecond), runs)
	if tinygo == "" {
		return nil
	}
	wasm := filepath.Join(out, "wasmload.wasm")
	cmd := exec.Command(tinygo, "build", "-target", "wasip1", "-scheduler", "none", "-opt", "z", "-no-debug", "-o", wasm, "./build/scale/wasmload")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tinygo build: %v\n%s", err, b)
	}
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	var stdout, stderr bytes.Buffer
	abs, _ := filepath.Abs(out)
	cfg := wazero.NewModuleConfig().WithArgs("wasmload", "/data", "/inventory.bin", fmt.Sprint(runs)).
		WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount(abs, "/")).
		WithStdout(&stdout).WithStderr(&stderr).WithSysWalltime().WithSysNanotime()
	if _, err := rt.InstantiateWithConfig(ctx, bin, cfg); err != nil && !strings.Contains(err.Error(), "exit_code(0)") {
		return fmt.Errorf("wasmload under wazero: %v: %s", err, stderr.String())
	}
	fmt.Printf("scale: TinyGo wasm (-opt z) under wazero: %s", stdout.String())
	// V8, the engine of workerd, through node's WASI (node from the npm packages).
	node := filepath.Join("node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		fmt.Println("scale: no node_modules/.bin/node: V8 not measured")
		return nil
	}
	b, err := exec.Command(node, "--no-warnings", "build/scale/wasi.mjs", wasm, abs, fmt.Sprint(runs)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("wasmload under node: %v: %s", err, b)
	}
	fmt.Printf("scale: TinyGo wasm (-opt z) in V8 (node %s WASI): %s", nodeVersion(node), b)
	return nil
}

func nodeVersion(node string) string {
	b, _ := exec.Command(node, "--version").Output()
	return strings.TrimSpace(string(b))
}

// generate returns the reference data of n vehicles (rentaltest.Catalog over the
// bundled policy, seasons, extras and terms) and its random source.
func generate(n int) (map[string][]byte, *rand.Rand) {
	return rentaltest.Catalog(n, data.Files())
}

// generateFeed returns 100,000 bookings of 1-2 units and 1-21 days over three years,
// over the 2,000 vehicles and 6 depots of generate(2000), drawn from its rng.
func generateFeed(rng *rand.Rand) []byte {
	var b strings.Builder
	b.WriteString("[")
	start := rental.DateOf(2026, 1, 1)
	for i := 0; i < bookings; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		from := start.AddDays(rng.Intn(1100) - 10)
		fmt.Fprintf(&b, `{"id":%d,"vehicle_id":%d,"depot_id":%d,"pick_up_date":"%s","drop_off_date":"%s","units":%d}`,
			i+1, 1+rng.Intn(vehicles), 1+rng.Intn(depots), from, from.AddDays(rng.Intn(21)), 1+rng.Intn(2))
	}
	b.WriteString("]")
	return []byte(b.String())
}
