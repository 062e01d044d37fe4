// Command bench measures the Worker on the real workerd against the floor: a plain JS
// worker that returns the same bytes (status, headers, body) without computing them.
// `make bench` builds the deployable bundle and runs it; see BENCHMARKS.md.
//
// Both run under raw `workerd serve` on 127.0.0.1 (wrangler dev's proxy caps even the
// floor at a few hundred requests a second). wrk loads each endpoint for a bounded time,
// alternating project and floor in every round; CF-Connecting-IP varies over 65,536
// values (wrk Lua) so the rate limit never trips. It reports req/s, p50/p99 latency,
// the ratio to the floor, workerd's CPU time per request, its memory, and the time from
// start to the first answer.
//
// By default (-churn) every request comes from a new subscriber (a new IPv6 /64: the rate limiter
// takes a new entry each time), in the loads and the memory check; -compare-clients N
// runs the project alone, churn against N fixed clients, alternating, with workerd's
// memory before and after (BENCHMARKS.md, "The rate limiter under churn"); -identity
// runs the project alone, GET /depots plain, keyed and signed (identity.go).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/campervan/agent-api/build/internal/devrun"
)

var (
	// 9 rounds of 3 s: the median round of 9 moves less with a shared machine's
	// round-to-round swing than that of fewer, longer rounds.
	rounds     = flag.Int("rounds", 9, "alternating rounds (project, floor) per endpoint and concurrency")
	duration   = flag.Duration("duration", 3*time.Second, "wrk duration of one run")
	conns      = flag.String("conns", "20,1", "wrk connection counts, comma-separated")
	only       = flag.String("only", "", "run only the endpoints whose name contains this")
	outDir     = flag.String("out", "build/bench/out", "where configs and results go")
	soakN      = flag.Int("memory-requests", 100000, "requests sent at one connection for the memory check (0: skip)")
	ips        = flag.Int("clients", 65536, "distinct CF-Connecting-IP values the load cycles through")
	addrForm   = flag.String("addr", "full", "how the new clients' IPv6 addresses are written: full (39 characters, 2001:0001:0000:002a:1c4b:33ff:fe12:9a7b, as privacy addresses arrive in CF-Connecting-IP) or short (compressed, 2001:1:0:2a::1)")
	churn      = flag.Bool("churn", true, "every request from a new subscriber (a new IPv6 /64), in the load and the memory check (the default: what an adversary or a crowd of agents sends; -churn=false cycles over -clients addresses)")
	compare    = flag.Int("compare-clients", 0, "instead of the floor: the project with every request from a new subscriber against the project with this many clients (the rate limiter's cost under churn); use with -var RATE_LIMIT_REQUESTS=1000000000 so that neither is limited")
	colds      = flag.Int("cold", 21, "cold starts of each of the floor, the module alone and the project (median reported; 0: skip)")
	coldSplitN = flag.Int("cold-split", 0, "instead of the rest: this many cold starts of each binary config in turn (the floor, the module alone, the glue loaded, instantiated, initialized, configured, the first answer, the project as wrangler bundles it), each a step of the project's start more than the one before (coldsplit.go); hundreds are needed to see a few per cent")
	vgrind     = flag.Bool("valgrind", true, "also count the instructions of one cold start of each config under valgrind (cachegrind), when valgrind is installed: a figure that does not move with the machine's load")
	threadsOut = flag.Bool("threads", false, "print workerd's CPU time per thread name, and its page faults and context switches a request, after each wrk run (stderr)")
	jitNames   = flag.Bool("jit-names", false, "with -instructions: run both workerds with V8's "+jitNamesFlag+" and report the project's JIT code and builtins a request by function name (jitnames.go; diagnosis only)")
	v8flags    = flag.String("v8-flags", "", "V8 flags for both workerds, comma-separated (diagnosis only, e.g. --perf-basic-prof with -perf: not what runs at the edge)")
	perfOut    = flag.Bool("perf", false, "record each wrk run's workerd with perf record (cpu-clock) into the out folder (diagnosis only)")
	gcLog      = flag.String("gc-log", "", "with -instructions: append workerd's V8 --trace-gc lines to this file, each after its count's tag (the endpoint's index, then 0 for the project or 1 for the floor: 2-0 is the project's quotes; with -v8-flags=--trace-gc-nvp, each scavenge's survivors and promotion)")
	cacheSim   = flag.Bool("cache-sim", false, "with -instructions: callgrind's cache simulation too, and the L1 and last-level misses per request of project and floor (diagnosis: what the instruction count does not see)")
	floorHdrs  = flag.String("floor-headers", "headers", "how the floor passes its recorded headers to Response: headers (a Headers object made once per path, the default), object (name: value, made once per path) or pairs (the recorded array of pairs)")
	maxRSS     = flag.Int("max-rss", 3072, "restart both workerds (project and floor) before each block of load rows (an endpoint at a connection count) and before the memory soak when either's RSS is over this many MB (0: never)")
	pin        = flag.Bool("pin", false, "diagnosis: run each workerd on the machine's last CPU and wrk (one thread a CPU) on the others, with taskset: workerd's cost a request with the load generator off its CPU (not the goal's figure, which shares the CPUs as the default does)")
	instrN     = flag.Int("instructions", 0, "also count the instructions per request served by the project and the floor in workerd under callgrind, over this many requests of each endpoint (0: skip; ~4 min an endpoint; make bench-instructions)")
	setVars    varList
)

type varList [][2]string

func (v *varList) String() string { return fmt.Sprint(*v) }
func (v *varList) Set(s string) error {
	k, val, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want NAME=value")
	}
	*v = append(*v, [2]string{k, val})
	return nil
}

func init() { flag.Var(&setVars, "var", "override a wrangler.toml var: NAME=value (repeatable)") }

type endpoint struct{ name, target string }

var endpoints = []endpoint{
	{"depots", "/api/agent/depots"},
	{"availability", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19"},
	{"quotes", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"},
	// The calendar: the done-when question (17 start dates, one length, two filters)
	// and the largest one (63 start dates x 4 lengths, ~476 KB).
	{"calendar-done-when", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic"},
	{"calendar-largest", "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-01&latest_pick_up_date=2027-05-02&days=7,10,14,21"},
}

func main() {
	flag.Parse()
	devrun.StopOnSignal("bench")
	if *addrForm != "full" && *addrForm != "short" {
		fmt.Fprintln(os.Stderr, "bench: -addr is full or short, not", *addrForm)
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run checks the tools, starts the KV stand-in, the project and the floor (which
// returns the project's recorded answers), and measures what the flags ask for.
func run() error {
	workerd, err := checkTools()
	if err != nil {
		return err
	}
	wasms, _ := filepath.Glob("build/dist/*.wasm")
	if len(wasms) != 1 {
		return fmt.Errorf("build/dist must hold worker.js and one .wasm: run make dry-run")
	}
	if err := bundleFresh(wasms[0]); err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	var id *identityBench
	if *identityRun {
		if id, err = startIdentity(); err != nil {
			return fmt.Errorf("-identity: %v", err)
		}
		defer id.stop()
	}
	vars, err := benchVars(id.vars())
	if err != nil {
		return err
	}
	lua, churnLua, fixedLua := writeLua()
	if *churn {
		lua = churnLua
	}
	sh := shipped{vars: vars, workerJS: "build/dist/worker.js", localFetch: id != nil}
	var invVersion string
	var stopKV func()
	if sh.kv, invVersion, stopKV, err = startKV(); err != nil {
		return fmt.Errorf("the KV stand-in: %v", err)
	}
	defer stopKV()

	// The project's Worker.
	appPort, floorPort := devrun.FreePort(), devrun.FreePort()
	appConf := filepath.Join(*outDir, "app.capnp")
	os.WriteFile(appConf, []byte(withV8Flags(appConfig(sh, wasms[0], appPort))), 0o644)
	app, err := start(workerd, appConf, appPort)
	if err != nil {
		return err
	}
	defer app.stop()

	// The floor: the project's answers, returned as recorded.
	answers, err := captureAnswers(app, invVersion)
	if err != nil {
		return err
	}
	if id != nil {
		return writeReport(func(r *strings.Builder) error { return id.identityTable(r, app) })
	}
	floorConf, err := writeFloors(answers, floorPort)
	if err != nil {
		return err
	}
	floor, err := start(workerd, floorConf, floorPort)
	if err != nil {
		return err
	}
	defer floor.stop()

	if *compare > 0 {
		return writeReport(func(r *strings.Builder) error { return compareChurn(r, app, churnLua, fixedLua) })
	}
	var report strings.Builder
	fmt.Fprintf(&report, "sizes: %s %d bytes, %d gzipped (goal: <= 250 KB gzipped); the bundle (worker.js + wasm) %d bytes, %d gzipped\n",
		wasms[0], fileSize(wasms[0]), gzSize(wasms[0]), fileSize(sh.workerJS)+fileSize(wasms[0]), gzSize(sh.workerJS, wasms[0]))
	if err := measure(&report, workerd, app, floor, wasms[0], sh, lua); err != nil {
		return partial(&report, err)
	}
	fmt.Print(report.String())
	return os.WriteFile(filepath.Join(*outDir, "results.md"), []byte(report.String()), 0o644)
}

// measure adds to report what the flags ask for, in this order: the cold starts, the
// instructions a request, the load table and the memory soak.
func measure(report *strings.Builder, workerd string, app, floor *server, wasm string, sh shipped, lua string) error {
	if *coldSplitN > 0 {
		return coldSplit(report, workerd, filepath.Dir(app.conf), wasm, sh)
	}
	if *colds > 0 {
		if err := coldStarts(report, workerd, app.conf, wasm, sh); err != nil {
			return err
		}
	}
	if *instrN > 0 {
		if err := servedInstructions(report, workerd, app.conf, floor.conf, *instrN); err != nil {
			return err
		}
	}
	if *rounds > 0 {
		if err := loadTable(report, app, floor, lua); err != nil {
			return err
		}
	}
	if *soakN > 0 {
		return soak(report, app, floor)
	}
	return nil
}

// soak sends -memory-requests more requests at one connection to each of the project
// and the floor, and reports workerd's RSS before and after. The floor's too: workerd's
// own RSS grows over such a run, so the project's figure means something only beside it.
func soak(report *strings.Builder, app, floor *server) error {
	if err := boundRSS(app, floor, "the memory soak"); err != nil {
		return err
	}
	report.WriteString("\n")
	for _, s := range []struct {
		name string
		srv  *server
	}{{"project", app}, {"floor", floor}} {
		rss0 := s.srv.rss()
		n, errs, maxLat, err := sequential(s.srv, endpoints, *soakN)
		if err != nil {
			return err
		}
		fmt.Fprintf(report, "memory, %s: workerd RSS %.1f MB before and %.1f MB after %d more requests at one connection (%d errors; slowest %.1f ms)\n",
			s.name, float64(rss0)/1024, float64(s.srv.rss())/1024, n, errs, maxLat.Seconds()*1000)
	}
	return nil
}

// writeReport runs f on a report, and prints it and writes it into the out folder's
// results.md when f succeeds.
func writeReport(f func(*strings.Builder) error) error {
	var r strings.Builder
	if err := f(&r); err != nil {
		return err
	}
	fmt.Print(r.String())
	return os.WriteFile(filepath.Join(*outDir, "results.md"), []byte(r.String()), 0o644)
}

// partial prints what report holds when a later phase fails (a failed run still shows
// what it measured), and returns err.
func partial(report *strings.Builder, err error) error {
	if report.Len() > 0 {
		fmt.Print(report.String())
		fmt.Println("(the run stopped here: the figures above are what it measured)")
	}
	return err
}

// bundleFresh fails when build/dist is not the bundle of the module and glue in the
// tree: the bench runs build/dist, and a go run ./build/bench after a rebuild of
// build/app.wasm alone (make build/app.wasm) or an edit of the glue would measure the
// bundle of an earlier state.
func bundleFresh(distWasm string) error {
	app, err := os.ReadFile("build/app.wasm")
	if err != nil {
		return nil // no module built here: the bundle is all there is
	}
	dist, err := os.ReadFile(distWasm)
	if err != nil {
		return err
	}
	if !bytes.Equal(app, dist) {
		return fmt.Errorf("%s is not build/app.wasm: run make dry-run (the bench measures build/dist)", distWasm)
	}
	js, err := os.Stat("build/dist/worker.js")
	if err != nil {
		return nil
	}
	sources, _ := filepath.Glob("worker/glue/*.mjs")
	for _, f := range append([]string{"worker/glue.mjs"}, sources...) {
		if glue, err := os.Stat(f); err == nil && glue.ModTime().After(js.ModTime()) {
			return fmt.Errorf("%s is newer than build/dist/worker.js: run make dry-run (the bench measures build/dist)", f)
		}
	}
	return nil
}
