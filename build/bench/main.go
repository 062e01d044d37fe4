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
// memory before and after (BENCHMARKS.md, "The rate limiter under churn").
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/campervan/agent-api/build/internal/devrun"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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

func run() error {
	workerd, err := filepath.Abs("node_modules/@cloudflare/workerd-linux-64/bin/workerd")
	if err != nil {
		return err
	}
	if _, err := os.Stat(workerd); err != nil {
		return fmt.Errorf("workerd not installed (npm install): %v", err)
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk not installed (apt-get install wrk): %v", err)
	}
	if *pin {
		if _, err := exec.LookPath("taskset"); err != nil {
			return fmt.Errorf("-pin: taskset not installed (util-linux): %v", err)
		}
		if runtime.NumCPU() < 2 {
			return fmt.Errorf("-pin needs two CPUs or more (one for workerd, the rest for wrk); this machine has %d", runtime.NumCPU())
		}
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
	vars, err := devrun.WranglerVars("wrangler.toml")
	if err != nil {
		return err
	}
	// the secret quotes are signed with: the tests' key (worker/harness_test.go)
	vars = append(vars, [2]string{"QUOTE_SIGNING_KEYS", "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"})
	for _, o := range setVars {
		found := false
		for i := range vars {
			if vars[i][0] == o[0] {
				vars[i][1], found = o[1], true
			}
		}
		if !found {
			vars = append(vars, o)
		}
	}
	lua := filepath.Join(*outDir, "ips.lua")
	os.WriteFile(lua, []byte(fmt.Sprintf(`local n = 0
request = function()
  n = (n + 1) %% %d
  return wrk.format(nil, nil, {["CF-Connecting-IP"] = "198.18." .. (n %% 256) .. "." .. (math.floor(n / 256) %% 256)})
end
`, *ips)), 0o644)
	// churn.lua: every request from a new /64, unique across wrk's threads
	// (2001:<thread>:<n high>:<n low>:..., in -addr's form).
	churnLua := filepath.Join(*outDir, "churn.lua")
	os.WriteFile(churnLua, []byte(strings.Replace(`local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, {["CF-Connecting-IP"] = string.format("ADDR", tid, math.floor(n / 65536) % 65536, n % 65536)})
end
`, "ADDR", clientAddr(), 1)), 0o644)
	fixedLua := filepath.Join(*outDir, "fixed.lua")
	os.WriteFile(fixedLua, []byte(fmt.Sprintf(`local n = 0
request = function()
  n = (n + 1) %% %d
  return wrk.format(nil, nil, {["CF-Connecting-IP"] = "198.18.0." .. n})
end
`, max(*compare, 1))), 0o644)
	if *churn {
		lua = churnLua
	}
	workerJS := "build/dist/worker.js"
	kvAddr, invVersion, stopKV, err := startKV()
	if err != nil {
		return fmt.Errorf("the KV stand-in: %v", err)
	}
	defer stopKV()

	// The project's Worker.
	appPort, floorPort := devrun.FreePort(), devrun.FreePort()
	// capnp embeds are relative to the config file's folder.
	abs := func(p string) string { r, _ := filepath.Rel(*outDir, p); return r }
	var b strings.Builder
	fmt.Fprintf(&b, "using Workerd = import \"/workerd/workerd.capnp\";\nconst config :Workerd.Config = (\n")
	fmt.Fprintf(&b, "  services = [ (name = \"main\", worker = .app), (name = \"kv\", external = (address = %q, http = ())) ],\n", kvAddr)
	fmt.Fprintf(&b, "  sockets = [ (name = \"http\", address = \"127.0.0.1:%d\", http = (), service = \"main\") ],\n);\n", appPort)
	fmt.Fprintf(&b, "const app :Workerd.Worker = (\n  modules = [ (name = \"worker.js\", esModule = embed %q), (name = %q, wasm = embed %q) ],\n",
		abs(workerJS), filepath.Base(wasms[0]), abs(wasms[0]))
	fmt.Fprintf(&b, "  compatibilityDate = \"2026-11-01\",\n  bindings = [\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "    (name = %q, text = %q),\n", v[0], v[1])
	}
	// The shipped bindings (wrangler.toml): the limiter's counts and the live inventory.
	fmt.Fprintf(&b, "    (name = \"RATE_LIMIT\", kvNamespace = \"kv\"),\n    (name = \"INVENTORY\", kvNamespace = \"kv\"),\n  ],\n);\n")
	appConf := filepath.Join(*outDir, "app.capnp")
	os.WriteFile(appConf, []byte(withV8Flags(b.String())), 0o644)

	app, err := start(workerd, appConf, appPort)
	if err != nil {
		return err
	}
	defer app.stop()

	// Capture the project's answers; the floor returns exactly these bytes.
	type answer struct {
		Status  int         `json:"status"`
		Headers [][2]string `json:"headers"`
		Body    string      `json:"body"`
	}
	answers := map[string]answer{}
	// A search first: it waits for the isolate's first inventory read (docs/inventory.md),
	// after which every answer names the live version.
	if resp, err := http.Get(app.base + endpoints[1].target); err == nil {
		resp.Body.Close()
	}
	for _, e := range endpoints {
		resp, err := http.Get(app.base + e.target)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s answered %d: %s", e.target, resp.StatusCode, body)
		}
		if v := resp.Header.Get("x-inventory-version"); v != invVersion {
			return fmt.Errorf("%s answered from inventory %q, not the live one (%s) in KV", e.target, v, invVersion)
		}
		a := answer{Status: resp.StatusCode, Body: string(body)}
		keys := make([]string, 0, len(resp.Header))
		for k := range resp.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "Content-Length" || k == "Date" {
				continue
			}
			a.Headers = append(a.Headers, [2]string{strings.ToLower(k), strings.Join(resp.Header[k], ", ")})
		}
		answers[e.target] = a
	}
	table, _ := json.Marshal(answers)
	floorWorker, floorWorkerKV, err := floorWorkers(*floorHdrs)
	if err != nil {
		return err
	}
	floorJS := "const R = " + string(table) + ";\n" + floorWorker
	os.WriteFile(filepath.Join(*outDir, "floor.mjs"), []byte(floorJS), 0o644)
	// The cold start's floor holds only the answer it is asked for: the whole table
	// (the largest calendar is ~476 KB) would make its script the slower one to load.
	for i, name := range []string{"floor-cold.mjs", "floor-cold-search.mjs"} {
		first, _ := json.Marshal(map[string]answer{endpoints[i].target: answers[endpoints[i].target]})
		os.WriteFile(filepath.Join(*outDir, name), []byte("const R = "+string(first)+";\n"+floorWorker), 0o644)
		if i == 1 {
			// The search's floor that reads what a search needs from KV first, as the
			// glue's first read does (one get of inventory/latest), then returns the same
			// bytes: any Worker that answers from the live inventory makes that read.
			os.WriteFile(filepath.Join(*outDir, "floor-cold-search-kv.mjs"), []byte("const R = "+string(first)+";\n"+floorWorkerKV), 0o644)
		}
	}
	floorConf := filepath.Join(*outDir, "floor.capnp")
	os.WriteFile(floorConf, []byte(withV8Flags(fmt.Sprintf(`using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = (modules = [ (name = "floor.mjs", esModule = embed %q) ], compatibilityDate = "2026-11-01")) ],
  sockets = [ (name = "http", address = "127.0.0.1:%d", http = (), service = "main") ],
);
`, abs(filepath.Join(*outDir, "floor.mjs")), floorPort))), 0o644)
	floor, err := start(workerd, floorConf, floorPort)
	if err != nil {
		return err
	}
	defer floor.stop()

	var report strings.Builder
	if *compare > 0 {
		if err := compareChurn(&report, app, churnLua, fixedLua); err != nil {
			return err
		}
		fmt.Print(report.String())
		return os.WriteFile(filepath.Join(*outDir, "results.md"), []byte(report.String()), 0o644)
	}
	fmt.Fprintf(&report, "sizes: %s %d bytes, %d gzipped (goal: <= 250 KB gzipped); the bundle (worker.js + wasm) %d bytes, %d gzipped\n",
		wasms[0], fileSize(wasms[0]), gzSize(wasms[0]), fileSize(workerJS)+fileSize(wasms[0]), gzSize(workerJS, wasms[0]))
	if *colds > 0 {
		if err := coldStarts(&report, workerd, appConf, floorConf, appPort, floorPort, wasms[0], shipped{vars: vars, kv: kvAddr, workerJS: workerJS}); err != nil {
			return partial(&report, err)
		}
	}
	if *instrN > 0 {
		if err := servedInstructions(&report, workerd, appConf, floorConf, *instrN); err != nil {
			return partial(&report, err)
		}
	}
	if *rounds > 0 {
		if err := loadTable(&report, app, floor, lua); err != nil {
			return partial(&report, err)
		}
	}
	if *soakN > 0 {
		if err := boundRSS(app, floor, "the memory soak"); err != nil {
			return partial(&report, err)
		}
		// The floor's workerd too: workerd's own RSS grows over such a run, so the
		// project's figure means something only beside it.
		report.WriteString("\n")
		for _, s := range []struct {
			name string
			srv  *server
		}{{"project", app}, {"floor", floor}} {
			rss0 := s.srv.rss()
			n, errs, maxLat, err := sequential(s.srv, endpoints, *soakN)
			if err != nil {
				return partial(&report, err)
			}
			fmt.Fprintf(&report, "memory, %s: workerd RSS %.1f MB before and %.1f MB after %d more requests at one connection (%d errors; slowest %.1f ms)\n",
				s.name, float64(rss0)/1024, float64(s.srv.rss())/1024, n, errs, maxLat.Seconds()*1000)
		}
	}
	fmt.Print(report.String())
	return os.WriteFile(filepath.Join(*outDir, "results.md"), []byte(report.String()), 0o644)
}

// loadTable loads each endpoint with wrk, alternating project and floor in every round,
// and adds the table of req/s (and workerd CPU) ratios to report.
func loadTable(report *strings.Builder, app, floor *server, lua string) error {
	fmt.Fprintf(report, "\n")
	if *pin {
		fmt.Fprintf(report, "-pin: each workerd on CPU %d alone, wrk on CPUs 0-%d (taskset); a diagnosis of workerd's own cost a request, not the goal's figure (the default run shares the CPUs)\n\n", runtime.NumCPU()-1, runtime.NumCPU()-2)
	}
	fmt.Fprintf(report, "| endpoint | conns | project req/s | floor req/s | ratio | ratio of each round (median) | project p50 / p99 | floor p50 / p99 | project CPU/req | floor CPU/req |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range endpoints {
		if *only != "" && !strings.Contains(e.name, *only) {
			continue
		}
		for _, cs := range strings.Split(*conns, ",") {
			if err := boundRSS(app, floor, e.name+" c"+cs); err != nil {
				return err
			}
			c, _ := strconv.Atoi(cs)
			var pa, pf []result
			var ratios []float64
			for r := 0; r < *rounds; r++ {
				// The two runs of a round are back to back, and which goes first
				// alternates: the machine's pace drifts over minutes (the floor alone
				// swung 2.5-5.2k req/s in one run), and a round's ratio sees less of
				// that drift than the ratio of two medians.
				first, second := app, floor
				if r%2 == 1 {
					first, second = floor, app
				}
				x, err := load(first, e.target, c, lua)
				if err != nil {
					return err
				}
				y, err := load(second, e.target, c, lua)
				if err != nil {
					return err
				}
				if r%2 == 1 {
					x, y = y, x
				}
				pa, pf = append(pa, x), append(pf, y)
				ratios = append(ratios, x.rps/y.rps)
				fmt.Fprintf(os.Stderr, "round %d %s c%d: project %.0f req/s, floor %.0f req/s, ratio %.2f\n", r+1, e.name, c, x.rps, y.rps, x.rps/y.rps)
			}
			sort.Float64s(ratios)
			a, f := pool(pa), pool(pf)
			fmt.Fprintf(report, "| %s | %d | %.0f | %.0f | %.2f | %.2f | %s / %s | %s / %s | %.0f us | %.0f us |\n", e.name, c, a.rps, f.rps, a.rps/f.rps,
				ratios[len(ratios)/2], a.p50, a.p99, f.p50, f.p99, a.cpuPerReq*1e6, f.cpuPerReq*1e6)
		}
	}
	return nil
}

// floorAnswer is the floor's answer: the bytes recorded for the request's path, with
// their headers as a Headers object made on the path's first request: the cheapest form
// workerd's Response constructor takes (it copies it in C++); an array of pairs is read
// through the JS iterator protocol, at a far higher cost. -floor-headers pairs and
// object give those floors.
const floorAnswer = `    const u = request.url;
    const r = R[u.slice(u.indexOf("/", u.indexOf("//") + 2))];
    if (r === undefined) return new Response("not found", { status: 404 });
    if (r.h === undefined) r.h = FLOOR_HEADERS;
    return new Response(r.body, { status: r.status, headers: r.h });
  },
};
`

const floorWorkerSrc = `export default {
  fetch(request) {
` + floorAnswer

// floorWorkerKV is floorWorker after one KV read of the live inventory, made the way
// the glue makes an isolate's first (worker/glue/inventory.mjs: inventory/latest as an
// ArrayBuffer, cacheTtl 30), once per isolate.
const floorWorkerKVSrc = `let read = null;
export default {
  async fetch(request, env) {
    if (read === null) read = env.INVENTORY.get("inventory/latest", { type: "arrayBuffer", cacheTtl: 30 });
    const blob = await read;
    if (blob === null) return new Response("no inventory in KV", { status: 503 });
` + floorAnswer

// floorWorkers returns floorWorker and floorWorkerKV with the floor's headers in the form
// -floor-headers names.
func floorWorkers(form string) (string, string, error) {
	expr, ok := map[string]string{"headers": "new Headers(r.headers)", "object": "Object.fromEntries(r.headers)", "pairs": "r.headers"}[form]
	if !ok {
		return "", "", fmt.Errorf("-floor-headers %q: want headers, object or pairs", form)
	}
	return strings.Replace(floorWorkerSrc, "FLOOR_HEADERS", expr, 1), strings.Replace(floorWorkerKVSrc, "FLOOR_HEADERS", expr, 1), nil
}

// The requests instructionsPerCall counts between: the JIT has tiered up well before
// callsFrom.
const callsFrom, callsTo = 5000, 25000

// instructionsPerCall counts the instructions of build/bench/calls.mjs at callsFrom and
// at callsTo requests of route under cachegrind (the two in parallel) and returns the
// instructions of one request in the glue + module, steady state.
func instructionsPerCall(vg, wasm, route string) (float64, error) {
	counts, err := both(func(i int) (float64, error) {
		n := []int{callsFrom, callsTo}[i]
		var stderr bytes.Buffer
		cmd := exec.Command(vg, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
			"node_modules/.bin/node", "--predictable", "--no-liftoff", "build/bench/calls.mjs", wasm, route, strconv.Itoa(n), *addrForm)
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("calls.mjs %s %d under valgrind: %v\n%s", route, n, err, stderr.String())
		}
		m := regexp.MustCompile(`I\s+refs:\s+([\d,]+)`).FindStringSubmatch(stderr.String())
		if m == nil {
			return 0, fmt.Errorf("calls.mjs %s %d: no instruction count from valgrind", route, n)
		}
		return strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	})
	if err != nil {
		return 0, err
	}
	return (counts[1] - counts[0]) / (callsTo - callsFrom), nil
}

// both runs f(0) and f(1) at once (two counts under valgrind, each on one core) and
// returns their results.
func both(f func(i int) (float64, error)) ([2]float64, error) {
	var counts [2]float64
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i], errs[i] = f(i)
		}()
	}
	wg.Wait()
	return counts, errors.Join(errs[0], errs[1])
}

// confCopy writes a copy of the workerd config conf beside it (its name with suffix)
// whose HTTP socket listens on a free port of its own, with V8 --single-threaded when
// singleThreaded, and returns the copy's path and port.
func confCopy(conf, suffix string, singleThreaded bool) (string, int, error) {
	b, err := os.ReadFile(conf)
	if err != nil {
		return "", 0, err
	}
	text := string(b)
	m := regexp.MustCompile(`name = "http", address = "127\.0\.0\.1:\d+"`).FindString(text) // the socket, not the KV service
	if m == "" {
		return "", 0, fmt.Errorf("%s: no 127.0.0.1 socket", conf)
	}
	if singleThreaded {
		// --trace-gc: servedCount reads each collection's line to start and end its
		// count right after one (a whole number of collection cycles).
		text = addV8Flags(text, "--single-threaded", "--trace-gc")
		if !strings.Contains(text, "--single-threaded") {
			return "", 0, fmt.Errorf("%s: the sockets line is not where confCopy expects it", conf)
		}
	}
	port := devrun.FreePort()
	text = strings.Replace(text, m, fmt.Sprintf(`name = "http", address = "127.0.0.1:%d"`, port), 1)
	vconf := strings.TrimSuffix(conf, ".capnp") + suffix + ".capnp"
	return vconf, port, os.WriteFile(vconf, []byte(text), 0o644)
}

// coldInstructions starts workerd on conf under valgrind's cachegrind (no cache
// simulation: it only counts instructions, of every thread), waits for the first 200
// from path, stops it with SIGTERM (cachegrind writes its count as the process ends) and
// returns the instructions it executed. Unlike the wall and CPU times, the count does
// not depend on what else the machine runs. The project's moves a little more: its first
// answer does not wait for the isolate's first inventory read, which lands before
// workerd stops in some runs and not in others.
// A binary config (conf ending in .bin, port its socket's) is started as it is.
func coldInstructions(vg, workerd, conf string, port int, path string) (float64, error) {
	vconf := conf
	if !strings.HasSuffix(conf, ".bin") {
		var err error
		if vconf, port, err = confCopy(conf, "-vg", false); err != nil {
			return 0, err
		}
	}
	var stderr bytes.Buffer
	cmd := exec.Command(vg, append([]string{"--tool=cachegrind", "--cache-sim=no", "--smc-check=all-non-file",
		"--cachegrind-out-file=/dev/null", workerd}, serveArgs(vconf)...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := devrun.StartTracked(cmd); err != nil {
		return 0, err
	}
	defer devrun.Untrack(cmd)
	ok := false
	for t0 := time.Now(); time.Since(t0) < 120*time.Second && !ok; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path)); err == nil {
			resp.Body.Close()
			ok = resp.StatusCode == 200
		}
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	if !ok {
		return 0, fmt.Errorf("no 200 from %s in 120 s", path)
	}
	f := regexp.MustCompile(`I\s+refs:\s+([\d,]+)`).FindStringSubmatch(stderr.String())
	if f == nil {
		return 0, fmt.Errorf("no instruction count in valgrind's output: %.300s", stderr.String())
	}
	var n float64
	fmt.Sscan(strings.ReplaceAll(f[1], ",", ""), &n)
	return n, nil
}

type server struct {
	base        string
	cmd         *exec.Cmd
	firstAnswer time.Duration
	workerd     string // how it was started: restart starts it so again
	conf, path  string
	port        int
}

func start(workerd, conf string, port int) (*server, error) {
	return startAt(workerd, conf, port, endpoints[0].target)
}

// startAt starts workerd with conf and polls path every millisecond until it answers 200.
func startAt(workerd, conf string, port int, path string) (*server, error) {
	cmd := exec.Command(workerd, serveArgs(conf)...)
	if *pin {
		cmd = exec.Command("taskset", append([]string{"-c", strconv.Itoa(runtime.NumCPU() - 1), workerd}, serveArgs(conf)...)...) // taskset execs workerd: the pid is workerd's
	}
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t0 := time.Now()
	if err := devrun.StartTracked(cmd); err != nil {
		return nil, err
	}
	s := &server{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, workerd: workerd, conf: conf, path: path, port: port}
	for time.Since(t0) < 20*time.Second {
		resp, err := http.Get(s.base + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				s.firstAnswer = time.Since(t0)
				return s, nil
			}
		}
		time.Sleep(time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("%s: no answer in 20 s", conf)
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

// boundRSS restarts both workerds when either's RSS is over -max-rss. workerd keeps
// much of what the largest calendar's 476 KB answers take, and a run whose processes
// outgrow the machine's memory stalls both in its last rounds. Both processes start
// afresh alike, so the pair stays comparable; stderr says so, naming what comes next.
func boundRSS(app, floor *server, next string) error {
	limit, pa, pf := *maxRSS*1024, app.rss(), floor.rss()
	if limit <= 0 || (pa <= limit && pf <= limit) {
		return nil
	}
	fmt.Fprintf(os.Stderr, "before %s: workerd RSS project %.0f MB, floor %.0f MB, over -max-rss %d MB: both restarted\n",
		next, float64(pa)/1024, float64(pf)/1024, *maxRSS)
	for _, s := range []*server{app, floor} {
		if err := s.restart(); err != nil {
			return err
		}
	}
	return nil
}

// restart stops s and starts the same workerd again in its place (a fresh process).
func (s *server) restart() error {
	s.stop()
	n, err := startAt(s.workerd, s.conf, s.port, s.path)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// stop ends workerd by PID: it ignores SIGINT when detached, so SIGTERM, then SIGKILL.
func (s *server) stop() {
	defer devrun.Untrack(s.cmd)
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// cpu returns workerd's user+system CPU time in seconds.
func (s *server) cpu() float64 {
	_, u, st := statCPU(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	return u + st
}

// statCPU reads a /proc stat file (a process's or a thread's) and returns its name and
// its user and system CPU time in seconds (zeros when it cannot be read).
func statCPU(path string) (name string, user, sys float64) {
	b, err := os.ReadFile(path)
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 || j < i || len(b) < j+2 {
		return "", 0, 0
	}
	f := strings.Fields(string(b[j+2:]))
	if len(f) < 13 {
		return "", 0, 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return string(b[i+1 : j]), u / 100, st / 100 // clock ticks (USER_HZ = 100)
}

// withV8Flags adds -v8-flags to a workerd config's text.
func withV8Flags(conf string) string {
	var flags []string
	if *v8flags != "" {
		flags = strings.Split(*v8flags, ",")
	}
	if *jitNames && *instrN > 0 {
		flags = append(flags, jitNamesFlag)
	}
	if len(flags) == 0 {
		return conf
	}
	return addV8Flags(conf, flags...)
}

// addV8Flags adds flags to a workerd config's v8Flags list, making the list (before its
// sockets) when it has none.
func addV8Flags(conf string, flags ...string) string {
	var q []string
	for _, f := range flags {
		q = append(q, strconv.Quote(f))
	}
	if strings.Contains(conf, "  v8Flags = [") {
		return strings.Replace(conf, "  v8Flags = [", "  v8Flags = ["+strings.Join(q, ", ")+", ", 1)
	}
	return strings.Replace(conf, "  sockets = [", "  v8Flags = ["+strings.Join(q, ", ")+"],\n  sockets = [", 1)
}

// threadCPU returns workerd's user+system CPU time in seconds per thread name (the
// main thread is named "workerd"; V8's platform workers, its GC helpers and compilers,
// carry names of their own).
func (s *server) threadCPU() map[string]float64 {
	out := map[string]float64{}
	dir := fmt.Sprintf("/proc/%d/task", s.cmd.Process.Pid)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name, u, st := statCPU(filepath.Join(dir, e.Name(), "stat"))
		if name == "" {
			continue
		}
		out[name+" user"] += u
		out[name+" sys"] += st
	}
	return out
}

// kernelCounts returns workerd's minor page faults (all its threads: /proc/<pid>/stat)
// and its voluntary and involuntary context switches (/proc/<pid>/status, the main
// thread's).
func (s *server) kernelCounts() (c [3]float64) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid)); err == nil {
		if j := bytes.LastIndexByte(b, ')'); j >= 0 && len(b) > j+2 {
			if f := strings.Fields(string(b[j+2:])); len(f) > 7 {
				c[0], _ = strconv.ParseFloat(f[7], 64)
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				c[1], _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			} else if v, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				c[2], _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		}
	}
	return c
}

// rss returns workerd's resident memory in KB.
func (s *server) rss() int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(sc.Text())[1])
			return n
		}
	}
	return 0
}

type result struct {
	rps, cpuPerReq float64
	p50, p99       string
	requests       float64
}

var (
	rpsRe  = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	reqRe  = regexp.MustCompile(`([0-9]+) requests in`)
	p50Re  = regexp.MustCompile(`\s50%\s+(\S+)`)
	p99Re  = regexp.MustCompile(`\s99%\s+(\S+)`)
	errsRe = regexp.MustCompile(`Non-2xx or 3xx responses: ([0-9]+)|Socket errors: .*`)
)

func load(s *server, target string, c int, lua string) (result, error) {
	threads := 1
	if c > 1 {
		threads = 2
	}
	cpu0 := s.cpu()
	var t0 map[string]float64
	var k0 [3]float64
	if *threadsOut {
		t0 = s.threadCPU()
		k0 = s.kernelCounts()
	}
	var rec *exec.Cmd
	if *perfOut {
		file, _ := filepath.Abs(filepath.Join(*outDir, "perf."+strings.TrimPrefix(s.base, "http://127.0.0.1:")+".data"))
		rec = exec.Command("perf", "record", "-F", "1999", "-o", file, "-p", fmt.Sprint(s.cmd.Process.Pid))
		rec.Stdout, rec.Stderr = io.Discard, io.Discard
		if err := rec.Start(); err != nil {
			rec = nil
		}
	}
	args := []string{"wrk", "-t", fmt.Sprint(threads), "-c", fmt.Sprint(c), "-d", duration.String(), "--timeout", "5s", "--latency", "-s", lua, s.base + target}
	if *pin { // wrk on every CPU but workerd's, one thread each
		n := runtime.NumCPU() - 1
		args[2] = fmt.Sprint(min(n, c))
		args = append([]string{"taskset", "-c", fmt.Sprintf("0-%d", n-1)}, args...)
	}
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	cpu := s.cpu() - cpu0
	if rec != nil {
		rec.Process.Signal(syscall.SIGINT)
		rec.Wait()
	}
	if *threadsOut {
		t1 := s.threadCPU()
		var parts []string
		for k, v := range t1 {
			if d := v - t0[k]; d > 0 {
				parts = append(parts, fmt.Sprintf("%s %.2fs", k, d))
			}
		}
		sort.Strings(parts)
		k1 := s.kernelCounts()
		if m := reqRe.FindStringSubmatch(string(out)); m != nil {
			n, _ := strconv.ParseFloat(m[1], 64)
			parts = append(parts, fmt.Sprintf("a request: %.3f minor faults, %.3f voluntary and %.3f involuntary context switches", (k1[0]-k0[0])/n, (k1[1]-k0[1])/n, (k1[2]-k0[2])/n))
		}
		fmt.Fprintf(os.Stderr, "threads %s: %s\n", s.base, strings.Join(parts, ", "))
	}
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if m := errsRe.FindString(string(out)); m != "" {
		return result{}, fmt.Errorf("wrk reported failures on %s: %s", target, m)
	}
	var r result
	if m := rpsRe.FindStringSubmatch(string(out)); m != nil {
		r.rps, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := reqRe.FindStringSubmatch(string(out)); m != nil {
		r.requests, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := p50Re.FindStringSubmatch(string(out)); m != nil {
		r.p50 = m[1]
	}
	if m := p99Re.FindStringSubmatch(string(out)); m != nil {
		r.p99 = m[1]
	}
	if r.requests > 0 {
		r.cpuPerReq = cpu / r.requests
	}
	return r, nil
}

// pool returns the run with the median req/s, and the pooled CPU per request.
func pool(rs []result) result {
	sort.Slice(rs, func(i, j int) bool { return rs[i].rps < rs[j].rps })
	m := rs[len(rs)/2]
	var cpu, n float64
	for _, r := range rs {
		cpu += r.cpuPerReq * r.requests
		n += r.requests
	}
	if n > 0 {
		m.cpuPerReq = cpu / n
	}
	return m
}

// sequential sends n requests over one keep-alive connection, cycling the endpoints,
// and checks each status; it returns the slowest request's latency.
func sequential(s *server, es []endpoint, n int) (int, int, time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
	errs := 0
	var slowest time.Duration
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest("GET", s.base+es[i%len(es)].target, nil)
		req.Header.Set("CF-Connecting-IP", fmt.Sprintf("198.19.%d.%d", (i/256)%256, i%256))
		if *churn {
			req.Header.Set("CF-Connecting-IP", fmt.Sprintf(clientAddr(), 0xdb8, i>>16, i&0xffff))
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return i, errs, slowest, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if d := time.Since(t0); d > slowest {
			slowest = d
		}
		if resp.StatusCode != 200 {
			errs++
		}
	}
	return n, errs, slowest, nil
}

// compareChurn loads the project with every request from a new subscriber and with
// a fixed set of clients, alternating in each round, and reports req/s, CPU per request
// and workerd's memory before and after.
func compareChurn(report *strings.Builder, app *server, churnLua, fixedLua string) error {
	// Memory from after the first load (the warm-up: workerd itself grows over its
	// first tens of thousands of requests, README "Soak") to the end.
	rss0, warm := 0, 0.0
	newSubscribers := 0.0
	fmt.Fprintf(report, "| endpoint | conns | new subscriber each request: req/s | %d clients: req/s | ratio | CPU/req (new / %d) | p50 (new / %d) |\n|---|---|---|---|---|---|---|\n", *compare, *compare, *compare)
	for _, e := range endpoints {
		if *only != "" && !strings.Contains(e.name, *only) {
			continue
		}
		for _, cs := range strings.Split(*conns, ",") {
			c, _ := strconv.Atoi(cs)
			var pc, pf []result
			for r := 0; r < *rounds; r++ {
				x, err := load(app, e.target, c, churnLua)
				if err != nil {
					return err
				}
				newSubscribers += x.requests
				if rss0 == 0 {
					rss0, warm = app.rss(), x.requests
				}
				y, err := load(app, e.target, c, fixedLua)
				if err != nil {
					return err
				}
				pc, pf = append(pc, x), append(pf, y)
				fmt.Fprintf(os.Stderr, "round %d %s c%d: churn %.0f req/s, %d clients %.0f req/s\n", r+1, e.name, c, x.rps, *compare, y.rps)
			}
			a, f := pool(pc), pool(pf)
			fmt.Fprintf(report, "| %s | %d | %.0f | %.0f | %.3f | %.0f / %.0f us | %s / %s |\n", e.name, c, a.rps, f.rps, a.rps/f.rps,
				a.cpuPerReq*1e6, f.cpuPerReq*1e6, a.p50, f.p50)
		}
	}
	fmt.Fprintf(report, "\nmemory: workerd RSS %.1f MB after the first load (%.0f new subscribers) and %.1f MB after %.0f more requests from new subscribers (and the fixed clients' loads)\n",
		float64(rss0)/1024, warm, float64(app.rss())/1024, newSubscribers-warm)
	if *soakN > 0 {
		rss1 := app.rss()
		n, errs, maxLat, err := sequential(app, endpoints, *soakN)
		if err != nil {
			return err
		}
		fmt.Fprintf(report, "memory: workerd RSS %.1f MB before and %.1f MB after %d more requests at one connection, each from a new subscriber: %v (%d errors; slowest %.1f ms)\n",
			float64(rss1)/1024, float64(app.rss())/1024, n, *churn, errs, maxLat.Seconds()*1000)
	}
	return nil
}

// clientAddr is the format (three 16-bit groups: the /64 after 2001:) of a new
// client's address in -addr's form, for Lua's string.format and Go's fmt alike.
func clientAddr() string {
	if *addrForm == "short" {
		return "2001:%x:%x:%x::1"
	}
	return "2001:%04x:%04x:%04x:1c4b:33ff:fe12:9a7b"
}

// serveArgs is workerd's command line for conf: a text config, or an encoded one
// (binaryConfig's, ending in .bin).
func serveArgs(conf string) []string {
	if strings.HasSuffix(conf, ".bin") {
		return []string{"serve", "--binary", conf}
	}
	return []string{"serve", conf}
}

// shipped is what the bench's configs bind: wrangler.toml's vars (with the bench's
// overrides), the KV stand-in's address, and the bundle's worker.js.
type shipped struct {
	vars     [][2]string
	kv       string
	workerJS string
}

// benchModule is one module of a binary config: its name, its kind (esModule or wasm)
// and the file that holds it.
type benchModule struct{ name, kind, path string }

// binaryConfig writes to out the config of one worker of these modules with the
// shipped bindings, its HTTP socket on 127.0.0.1:port, as an encoded Cap'n Proto
// message (build/bench/binconfig.mjs, with miniflare's serializer). That is how wrangler
// dev starts workerd (miniflare: serve --binary, the config on stdin). A text config
// (what the rest of the bench uses) makes workerd compile capnp text around every
// embedded module, and its copies of the embedded bytes charge the project's module a
// cold-start cost the floor's script does not pay: a step of this harness that neither
// wrangler dev nor the edge takes.
func binaryConfig(out string, port int, sh shipped, modules []benchModule) error {
	type mod struct {
		Name     string `json:"name"`
		ESModule string `json:"esModule,omitempty"`
		Wasm     string `json:"wasm,omitempty"`
	}
	spec := struct {
		Port              int         `json:"port"`
		KV                string      `json:"kv"`
		CompatibilityDate string      `json:"compatibilityDate"`
		Vars              [][2]string `json:"vars"`
		Modules           []mod       `json:"modules"`
	}{Port: port, KV: sh.kv, CompatibilityDate: "2026-11-01", Vars: sh.vars}
	for _, m := range modules {
		abs, err := filepath.Abs(m.path)
		if err != nil {
			return err
		}
		if m.kind == "wasm" {
			spec.Modules = append(spec.Modules, mod{Name: m.name, Wasm: abs})
		} else {
			spec.Modules = append(spec.Modules, mod{Name: m.name, ESModule: abs})
		}
	}
	b, _ := json.Marshal(spec)
	specPath := strings.TrimSuffix(out, ".bin") + ".json"
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		return err
	}
	if o, err := exec.Command("node_modules/.bin/node", "build/bench/binconfig.mjs", specPath, out).CombinedOutput(); err != nil {
		return fmt.Errorf("build/bench/binconfig.mjs: %v\n%s", err, o)
	}
	return nil
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// gzSize is the gzip -9 size of the files concatenated (what the size limit counts).
func gzSize(paths ...string) int64 {
	cmd := exec.Command("sh", "-c", `cat "$@" | gzip -9 | wc -c`, "sh")
	cmd.Args = append(cmd.Args, paths...)
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return n
}

// coldStarts measures the first answer after workerd starts, *colds times each for:
// the floor; the module alone (a JS worker that imports app.wasm, so workerd loads it,
// and answers without instantiating it); the project; and the floor and the project
// asked a search first. The configs are the project's as shipped with only the main
// module changed: the same bindings, RATE_LIMIT and INVENTORY included, bound to the
// bench's KV stand-in, which runs in this process (KV is a platform service, not a
// worker in the isolate's process; with the KV bindings, a search waits for the first
// inventory read as in the shipped configuration). Two figures each:
// the wall time to the first 200, and workerd's CPU time (user + system of all its
// threads, from its rusage once killed right after that answer), which process
// scheduling on a shared machine disturbs far less. The floor's script holds only the
// one answer it is asked for. The differences split the project's cold start into
// loading the module (module alone - floor) and its instantiate + init + first request
// (project - module alone). Then node times those phases in V8 one by one
// (build/bench/v8.mjs): inside workerd the clock stands still while JS runs, so they
// cannot be timed there.
func coldStarts(report *strings.Builder, workerd, appConf, floorConf string, appPort, floorPort int, wasm string, sh shipped) error {
	dir := filepath.Dir(appConf)
	conf, _ := os.ReadFile(appConf)
	// The project as shipped: its KV bindings included (the KV stand-in runs in this
	// process). Its first depots answer does not wait for the inventory read its first
	// request starts; its first search does (docs/inventory.md).
	base := string(conf)
	if !strings.Contains(base, `(name = "INVENTORY", kvNamespace = "kv")`) {
		return fmt.Errorf("cold start: %s does not bind INVENTORY", appConf)
	}
	os.WriteFile(filepath.Join(dir, "module-only.mjs"), []byte(`import m from "./`+filepath.Base(wasm)+`";
export default { fetch() { return new Response(m instanceof WebAssembly.Module ? "compiled" : "?"); } };
`), 0o644)
	mods := regexp.MustCompile(`(?m)^  modules = \[.*\],$`)
	wasmMod := regexp.MustCompile(`\(name = "[^"]+", wasm = embed "[^"]+"\)`).FindString(base)
	if mods.FindString(base) == "" || wasmMod == "" {
		return fmt.Errorf("cold start: no modules line in %s", appConf)
	}
	with := func(list string) string { return mods.ReplaceAllLiteralString(base, "  modules = [ "+list+" ],") }
	cases := []struct {
		name, conf string
		path       string
		bin        []benchModule // a binary config of these modules instead of conf (binaryConfig)
	}{
		{"floor", with(`(name = "worker.js", esModule = embed "floor-cold.mjs")`), endpoints[0].target, nil},
		{"module alone", with(`(name = "worker.js", esModule = embed "module-only.mjs"), ` + wasmMod), "/", nil},
		{"project", base, endpoints[0].target, nil},
		// The first answer of a search: the project's waits for its first inventory read.
		{"floor, a search first", with(`(name = "worker.js", esModule = embed "floor-cold-search.mjs")`), endpoints[1].target, nil},
		{"project, a search first", base, endpoints[1].target, nil},
		{"floor, a search first after the same KV read", with(`(name = "worker.js", esModule = embed "floor-cold-search-kv.mjs")`), endpoints[1].target, nil},
		// The floor and the project again, each started from a binary config, as wrangler
		// dev starts workerd (binaryConfig says why).
		{"floor, binary config", "", endpoints[0].target, []benchModule{{"worker.js", "esModule", filepath.Join(dir, "floor-cold.mjs")}}},
		{"project, binary config", "", endpoints[0].target, []benchModule{{"worker.js", "esModule", sh.workerJS}, {filepath.Base(wasm), "wasm", wasm}}},
	}
	wall := make([][]float64, len(cases))
	cpu := make([][]float64, len(cases))
	faults := make([][]float64, len(cases)) // minor page faults: what the kernel's half of the start grows with
	for i := 0; i < *colds; i++ {
		for j, c := range cases {
			port := devrun.FreePort()
			cf := filepath.Join(dir, fmt.Sprintf("cold-%d.capnp", j))
			if c.bin != nil {
				cf = filepath.Join(dir, fmt.Sprintf("cold-%d.bin", j))
				if err := binaryConfig(cf, port, sh, c.bin); err != nil {
					return err
				}
			} else {
				os.WriteFile(cf, []byte(strings.Replace(c.conf, fmt.Sprintf("127.0.0.1:%d", appPort), fmt.Sprintf("127.0.0.1:%d", port), 1)), 0o644)
			}
			s, err := startAt(workerd, cf, port, c.path)
			if err != nil {
				return fmt.Errorf("cold start of %s: %v", c.name, err)
			}
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // at once: its CPU time is the start's
			s.cmd.Wait()
			ru := s.cmd.ProcessState.SysUsage().(*syscall.Rusage)
			wall[j] = append(wall[j], s.firstAnswer.Seconds()*1000)
			cpu[j] = append(cpu[j], float64(ru.Utime.Nano()+ru.Stime.Nano())/1e6)
			faults[j] = append(faults[j], float64(ru.Minflt))
		}
	}
	med := func(xs []float64) float64 { s := append([]float64(nil), xs...); sort.Float64s(s); return s[len(s)/2] }
	f, m, a := med(wall[0]), med(wall[1]), med(wall[2])
	fc, mc, ac := med(cpu[0]), med(cpu[1]), med(cpu[2])
	fmt.Fprintf(report, "cold start (workerd start to the first answer of %s, median of %d, 1 ms polling; the three configs differ only in the main module): project %.1f ms, floor %.1f ms, ratio %.2f (goal: <= 1.3); the module alone %.1f ms: loading the module ~%.1f ms, instantiate + init + first request ~%.1f ms\n",
		endpoints[0].name, *colds, a, f, a/f, m, m-f, a-m)
	fmt.Fprintf(report, "cold start, workerd's CPU time to the first answer (median of %d): project %.1f ms, floor %.1f ms, ratio %.2f; the module alone %.1f ms: loading the module ~%.1f ms, instantiate + init + first request ~%.1f ms\n",
		*colds, ac, fc, ac/fc, mc, mc-fc, ac-mc)
	ff, mf, af := med(faults[0]), med(faults[1]), med(faults[2])
	fmt.Fprintf(report, "cold start, page faults to the first answer (minor faults from workerd's rusage, median of %d; about half of a start's CPU time is the kernel's): project %.0f, floor %.0f, ratio %.2f; the module alone %.0f: loading the module %.0f, instantiate + init + first request %.0f\n",
		*colds, af, ff, af/ff, mf, mf-ff, af-mf)
	fs, as := med(wall[3]), med(wall[4])
	fmt.Fprintf(report, "cold start to the first answer of %s, the isolate's first request (it waits for the first read of the live inventory from KV, a Go server on 127.0.0.1 here; median of %d): project %.1f ms, floor %.1f ms, ratio %.2f; workerd's CPU time: project %.1f ms, floor %.1f ms, ratio %.2f\n",
		endpoints[1].name, *colds, as, fs, as/fs, med(cpu[4]), med(cpu[3]), med(cpu[4])/med(cpu[3]))
	fk := med(wall[5])
	fmt.Fprintf(report, "cold start to the first answer of %s against a floor that first makes the same KV read (one get of inventory/latest, as any Worker answering from the live inventory must; median of %d): project %.1f ms, that floor %.1f ms, ratio %.2f; workerd's CPU time: that floor %.1f ms, ratio %.2f; the read costs the floor %.1f ms\n",
		endpoints[1].name, *colds, as, fk, as/fk, med(cpu[5]), med(cpu[4])/med(cpu[5]), fk-fs)
	fb, ab := med(wall[6]), med(wall[7])
	fmt.Fprintf(report, "cold start from a binary config, as wrangler dev starts workerd (serve --binary, the config encoded by miniflare; no capnp text to compile around the embedded module; first answer of %s, median of %d, alternating with the above): project %.1f ms, floor %.1f ms, ratio %.2f (goal: <= 1.3); workerd's CPU time: project %.1f ms, floor %.1f ms, ratio %.2f; page faults: project %.0f, floor %.0f\n",
		endpoints[0].name, *colds, ab, fb, ab/fb, med(cpu[7]), med(cpu[6]), med(cpu[7])/med(cpu[6]), med(faults[7]), med(faults[6]))
	if vg, err := exec.LookPath("valgrind"); err == nil && *vgrind {
		ins := make([]float64, len(cases))
		for j, c := range cases {
			cf, port := filepath.Join(dir, fmt.Sprintf("cold-%d.capnp", j)), 0
			if c.bin != nil {
				cf, port = filepath.Join(dir, fmt.Sprintf("cold-%d-vg.bin", j)), devrun.FreePort()
				if err := binaryConfig(cf, port, sh, c.bin); err != nil {
					return err
				}
			}
			n, err := coldInstructions(vg, workerd, cf, port, c.path)
			if err != nil {
				return fmt.Errorf("cold start of %s under valgrind: %v", c.name, err)
			}
			ins[j] = n / 1e6
		}
		fmt.Fprintf(report, "cold start, instructions to the first answer (valgrind cachegrind, all threads; the floor's repeats to ~0.1%%, the project's moves by ~4 M with whether the first inventory read lands before workerd stops): project %.1f M, floor %.1f M, ratio %.2f; the module alone %.1f M: loading the module %.1f M, instantiate + init + first request %.1f M\n",
			ins[2], ins[0], ins[2]/ins[0], ins[1], ins[1]-ins[0], ins[2]-ins[1])
		// A search first waits for the inventory read, so its count includes taking the
		// blob: it does not move with when workerd stops.
		fmt.Fprintf(report, "cold start, instructions to the first answer of %s (it waits for the first inventory read): project %.1f M, floor %.1f M, ratio %.2f; the floor after the same KV read %.1f M, ratio %.2f\n",
			endpoints[1].name, ins[4], ins[3], ins[4]/ins[3], ins[5], ins[4]/ins[5])
		fmt.Fprintf(report, "cold start from a binary config, instructions to the first answer: project %.1f M, floor %.1f M, ratio %.2f\n",
			ins[7], ins[6], ins[7]/ins[6])
	} else if *vgrind {
		fmt.Fprintf(report, "cold start, instructions: skipped (no valgrind; apt-get install valgrind)\n")
	}
	if vg, err := exec.LookPath("valgrind"); err == nil && *vgrind {
		var parts []string
		for _, route := range []string{"depots", "availability", "quotes", "calendar-done-when"} {
			n, err := instructionsPerCall(vg, wasm, route)
			if err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("%s %.1f K", route, n/1e3))
		}
		fmt.Fprintf(report, "steady state, instructions per request in the glue + module (valgrind cachegrind on node --predictable --no-liftoff build/bench/calls.mjs, requests %d to %d, each from a new client; runs agree within ~0.1%%): %s\n",
			callsFrom, callsTo, strings.Join(parts, ", "))
	}
	out, err := exec.Command("node_modules/.bin/node", "build/bench/v8.mjs", wasm, "9").CombinedOutput()
	if err != nil {
		return fmt.Errorf("build/bench/v8.mjs: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "{") { // the Worker's own log lines
			fmt.Fprintf(report, "%s\n", l)
		}
	}
	return nil
}
