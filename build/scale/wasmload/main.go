// Command wasmload measures, inside a WASI module built with TinyGo like the Worker's,
// what the Worker's inventory export costs: api.Server.SetInventory of a blob (decode,
// checks, swap, index). build/scale builds it and runs it under wazero with its output
// directory mounted at /:
//
//	wasmload /data /inventory.bin 50
//
// It prints one line: runs, median and fastest time of one SetInventory.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/rental"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: wasmload DATA_DIR BLOB RUNS")
		os.Exit(2)
	}
	files := map[string][]byte{}
	// The snapshot's files by name: no directory listing (node's WASI crashed in fd_readdir).
	for _, name := range []string{"policy.json", "seasons.json", "depots.json", "vehicles.json", "routes.json", "extras.json", "bookings.json", "terms.json"} {
		m := filepath.Join(os.Args[1], name)
		b, err := os.ReadFile(m)
		if err != nil {
			fail(err)
		}
		files[filepath.Base(m)] = b
	}
	cat, err := rental.LoadCatalog(files)
	if err != nil {
		fail(err)
	}
	blob, err := os.ReadFile(os.Args[2])
	if err != nil {
		fail(err)
	}
	runs, _ := strconv.Atoi(os.Args[3])
	if runs < 1 {
		runs = 1
	}
	s := api.NewServer(api.DefaultConfig(), cat, nil, func() int64 { return 0 }, func([]byte) {}, nil)
	ts := make([]time.Duration, runs)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for i := range ts {
		t0 := time.Now()
		if err := s.SetInventory(blob); err != nil {
			fail(err)
		}
		ts[i] = time.Since(t0)
	}
	runtime.ReadMemStats(&ms1)
	hs := make([]time.Duration, runs)
	for i := range hs {
		t0 := time.Now()
		rental.InventoryVersion(blob)
		hs[i] = time.Since(t0)
	}
	med := func(ts []time.Duration) (time.Duration, time.Duration) {
		sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
		return ts[len(ts)/2].Round(time.Microsecond), ts[0].Round(time.Microsecond)
	}
	m, f := med(ts)
	hm, hf := med(hs)
	fmt.Printf("SetInventory of %d bytes: %d runs, median %v, fastest %v (of which the version hash: median %v, fastest %v); %d KiB allocated per run, heap %d KiB\n",
		len(blob), runs, m, f, hm, hf, (ms1.TotalAlloc-ms0.TotalAlloc)/uint64(runs)>>10, ms1.HeapSys>>10)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wasmload:", err)
	os.Exit(1)
}
