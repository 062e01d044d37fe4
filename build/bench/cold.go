package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/campervan/agent-api/build/internal/devrun"
)

// The cold start: the first answer after workerd starts, for the floor, the module
// alone and the project (coldStarts), and the instructions it takes under valgrind.

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
	if err := devrun.Start(cmd); err != nil {
		return 0, err
	}
	defer devrun.Untrack(cmd)
	_, ok := devrun.WaitFor(fmt.Sprintf("http://127.0.0.1:%d%s", port, path), time.Now(), 120*time.Second, 20*time.Millisecond)
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

// shipped is what the bench's configs bind: wrangler.toml's vars (with the bench's
// overrides), the KV stand-in's address, and the bundle's worker.js.
type shipped struct {
	vars     [][2]string
	kv       string
	workerJS string
	// localFetch lets the Worker's fetches reach loopback (workerd's default "internet"
	// service allows public addresses only).
	localFetch bool
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
func coldStarts(report *strings.Builder, workerd, appConf string, wasm string, sh shipped) error {
	cases, err := coldCases(appConf, wasm, sh)
	if err != nil {
		return err
	}
	t, err := coldRuns(workerd, filepath.Dir(appConf), cases, sh)
	if err != nil {
		return err
	}
	reportColdTimes(report, t)
	if *vgrind {
		if err := coldValgrind(report, workerd, filepath.Dir(appConf), cases, wasm, sh); err != nil {
			return err
		}
	}
	return v8Phases(report, wasm)
}

// coldCase is one config coldStarts starts: its name in the report, its capnp text,
// the path of the first request, or a binary config of modules instead of conf
// (binaryConfig).
type coldCase struct {
	name, conf string
	path       string
	bin        []benchModule
}

// coldCases returns coldStarts' configs, in the order its report reads them: each the
// project's as shipped (appConf, with its KV bindings) with only the main module
// changed.
func coldCases(appConf, wasm string, sh shipped) ([]coldCase, error) {
	conf, _ := os.ReadFile(appConf)
	// The project as shipped: its KV bindings included (the KV stand-in runs in this
	// process). Its first depots answer does not wait for the inventory read its first
	// request starts; its first search does (docs/inventory.md).
	base := string(conf)
	if !strings.Contains(base, `(name = "INVENTORY", kvNamespace = "kv")`) {
		return nil, fmt.Errorf("cold start: %s does not bind INVENTORY", appConf)
	}
	if _, err := writeModuleOnly(filepath.Dir(appConf), wasm); err != nil {
		return nil, err
	}
	mods := regexp.MustCompile(`(?m)^  modules = \[.*\],$`)
	wasmMod := regexp.MustCompile(`\(name = "[^"]+", wasm = embed "[^"]+"\)`).FindString(base)
	if mods.FindString(base) == "" || wasmMod == "" {
		return nil, fmt.Errorf("cold start: no modules line in %s", appConf)
	}
	with := func(list string) string { return mods.ReplaceAllLiteralString(base, "  modules = [ "+list+" ],") }
	return []coldCase{
		{"floor", with(`(name = "worker.js", esModule = embed "floor-cold.mjs")`), endpoints[0].target, nil},
		{"module alone", with(`(name = "worker.js", esModule = embed "module-only.mjs"), ` + wasmMod), "/", nil},
		{"project", base, endpoints[0].target, nil},
		// The first answer of a search: the project's waits for its first inventory read.
		{"floor, a search first", with(`(name = "worker.js", esModule = embed "floor-cold-search.mjs")`), endpoints[1].target, nil},
		{"project, a search first", base, endpoints[1].target, nil},
		{"floor, a search first after the same KV read", with(`(name = "worker.js", esModule = embed "floor-cold-search-kv.mjs")`), endpoints[1].target, nil},
		// The floor and the project again, each started from a binary config, as wrangler
		// dev starts workerd (binaryConfig says why).
		{"floor, binary config", "", endpoints[0].target, []benchModule{{"worker.js", "esModule", filepath.Join(filepath.Dir(appConf), "floor-cold.mjs")}}},
		{"project, binary config", "", endpoints[0].target, []benchModule{{"worker.js", "esModule", sh.workerJS}, {filepath.Base(wasm), "wasm", wasm}}},
	}, nil
}

// coldTimes are the cold starts' figures per case: the wall time to the first answer
// (ms), workerd's CPU time (ms) and its minor page faults (what the kernel's half of
// the start grows with).
type coldTimes struct{ wall, cpu, faults [][]float64 }

// coldRuns starts each case -cold times, alternating (oneColdStart: each first
// request sent on a socket handed to workerd), and returns their figures.
func coldRuns(workerd, dir string, cases []coldCase, sh shipped) (coldTimes, error) {
	t := coldTimes{wall: make([][]float64, len(cases)), cpu: make([][]float64, len(cases)), faults: make([][]float64, len(cases))}
	confs := make([]string, len(cases))
	for j, c := range cases {
		if c.bin != nil {
			confs[j] = filepath.Join(dir, fmt.Sprintf("cold-%d.bin", j))
			if err := binaryConfig(confs[j], devrun.FreePort(), sh, c.bin); err != nil {
				return t, err
			}
		} else {
			confs[j] = filepath.Join(dir, fmt.Sprintf("cold-%d.capnp", j))
			if err := os.WriteFile(confs[j], []byte(c.conf), 0o644); err != nil {
				return t, err
			}
		}
	}
	for i := 0; i < *colds; i++ {
		for j, c := range cases {
			s, err := oneColdStart(workerd, confs[j], c.path)
			if err != nil {
				return t, fmt.Errorf("cold start of %s: %v", c.name, err)
			}
			t.wall[j] = append(t.wall[j], s.wall)
			t.cpu[j] = append(t.cpu[j], s.cpu)
			t.faults[j] = append(t.faults[j], s.faults)
		}
	}
	return t, nil
}

// med returns the median of xs.
func med(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// reportColdTimes adds the cold starts' medians to report, and what the differences
// split the project's start into.
func reportColdTimes(report *strings.Builder, t coldTimes) {
	wall, cpu, faults := t.wall, t.cpu, t.faults
	f, m, a := med(wall[0]), med(wall[1]), med(wall[2])
	fc, mc, ac := med(cpu[0]), med(cpu[1]), med(cpu[2])
	fmt.Fprintf(report, "cold start (workerd start to the first answer of %s, median of %d, each first request sent on the listening socket as workerd starts; the three configs differ only in the main module): project %.1f ms, floor %.1f ms, ratio %.2f; the module alone %.1f ms: loading the module ~%.1f ms, instantiate + init + first request ~%.1f ms\n",
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
	fmt.Fprintf(report, "cold start from a binary config, as wrangler dev starts workerd (serve --binary, the config encoded by miniflare; no capnp text to compile around the embedded module; first answer of %s, median of %d, alternating with the above): project %.1f ms, floor %.1f ms, ratio %.2f (goal: < 1.2; make bench-cold measures it to a few per cent); workerd's CPU time: project %.1f ms, floor %.1f ms, ratio %.2f; page faults: project %.0f, floor %.0f\n",
		endpoints[0].name, *colds, ab, fb, ab/fb, med(cpu[7]), med(cpu[6]), med(cpu[7])/med(cpu[6]), med(faults[7]), med(faults[6]))
}

// coldValgrind adds to report the instructions of one cold start of each case under
// valgrind, and of a steady-state request of four routes in node (instructionsPerCall).
func coldValgrind(report *strings.Builder, workerd, dir string, cases []coldCase, wasm string, sh shipped) error {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		fmt.Fprintf(report, "cold start, instructions: skipped (no valgrind; apt-get install valgrind)\n")
		return nil
	}
	if err := coldCounts(report, vg, workerd, dir, cases, sh); err != nil {
		return err
	}
	return steadyCounts(report, vg, wasm)
}

// coldCounts adds to report the instructions of one cold start of each case under
// cachegrind (coldInstructions).
func coldCounts(report *strings.Builder, vg, workerd, dir string, cases []coldCase, sh shipped) error {
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
	return nil
}

// steadyCounts adds to report the instructions of a steady-state request of four routes
// in the glue + module under node (instructionsPerCall).
func steadyCounts(report *strings.Builder, vg, wasm string) error {
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
	return nil
}

// v8Phases adds to report the phases of the module's start that node times in V8 one
// by one (build/bench/v8.mjs): inside workerd the clock stands still while JS runs.
func v8Phases(report *strings.Builder, wasm string) error {
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
