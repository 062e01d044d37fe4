package main

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/campervan/agent-api/build/internal/devrun"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Instructions per request served, in workerd, under valgrind's callgrind: the project
// and the floor each serve the same requests (every one from a new client), and the
// count covers the whole process (HTTP, workerd, V8, the JIT code, the module). Unlike
// throughput on a shared machine, it does not move with the machine's load, so the
// ratio floor/project is the throughput ratio a CPU-bound workerd would reach. Two
// things make it repeatable:
//   - V8 runs --single-threaded: its optimizing compiles happen on the main thread when a
//     function turns hot. With background compiles, valgrind's slowness can leave the
//     glue in V8's interpreter for thousands of requests in some runs and not in others.
//   - callgrind_control zeroes the count after the warm-up and dumps it after the
//     measured requests, so neither the start nor the tier-up is in it.
const (
	// Requests before the count starts: past the JIT's last tier-ups (the glue's JS
	// reaches TurboFan after about 10,000), whose compiles would otherwise fall in the
	// count's window.
	servedWarm = 12000
)

// servedInstructions reports, for depots, availability and quotes, the instructions per request of the
// project (appConf) and the floor (floorConf), measured over n requests.
func servedInstructions(report *strings.Builder, workerd, appConf, floorConf string, n int) error {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return fmt.Errorf("-instructions needs valgrind: %v", err)
	}
	ctl, err := exec.LookPath("callgrind_control")
	if err != nil {
		return fmt.Errorf("-instructions needs callgrind_control (valgrind): %v", err)
	}
	fmt.Fprintf(report, "\ninstructions per request served (workerd under callgrind, V8 --single-threaded, counted from right after a garbage collection to right after the first that follows at least %d requests, after %d of warm-up, every request from a new client; the project and the floor serve the same requests side by side):\n\n", n, servedWarm)
	fmt.Fprintf(report, "| endpoint | project | floor | project - floor | ratio floor / project | compiles in the window, project / floor (not counted) | project's window | floor's window |\n|---|---|---|---|---|---|---|---|\n")
	var cacheLines []string           // with -cache-sim: each endpoint's misses per request
	var jitLines []string             // with -jit-names: each endpoint's JIT functions
	for i, e := range endpoints[:3] { // the three of the throughput table: depots, availability, quotes
		if *only != "" && !strings.Contains(e.name, *only) {
			continue
		}
		var events [2]map[string]float64
		var windows [2]string
		counts, err := both(func(j int) (float64, error) {
			c, ev, w, err := servedCount(vg, ctl, workerd, []string{appConf, floorConf}[j], e.target, n, fmt.Sprintf("%d-%d", i, j))
			events[j], windows[j] = ev, w
			return c, err
		})
		if err != nil {
			return err
		}
		// Without what the window's compiles cost (compileInstructions says why).
		a, f := counts[0]-events[0]["compile"], counts[1]-events[1]["compile"]
		fmt.Fprintf(report, "| %s | %.1f K | %.1f K | %.1f K | %.3f | %.1f K / %.1f K | %s | %s |\n", e.name, a/1000, f/1000, (a-f)/1000, f/a,
			events[0]["compile"]/1000, events[1]["compile"]/1000, windows[0], windows[1])
		if *cacheSim {
			// callgrind's cache model (the host's L1 and last level, as valgrind reads
			// them): misses per request, which the instruction count does not see.
			var parts []string
			for _, ev := range []string{"I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Dr", "Dw"} {
				parts = append(parts, fmt.Sprintf("%s %.0f / %.0f", ev, events[0][ev], events[1][ev]))
			}
			cacheLines = append(cacheLines, fmt.Sprintf("%s, per request, project / floor: %s", e.name, strings.Join(parts, ", ")))
		}
		fmt.Fprintf(os.Stderr, "instructions %s: project %.0f, floor %.0f per request\n", e.name, a, f)
		if lines := jitReports[fmt.Sprintf("%d-0", i)]; len(lines) > 0 {
			jitLines = append(jitLines, fmt.Sprintf("%s, the project's JIT code and builtins a request by function (-jit-names): %s", e.name, strings.Join(lines, "; ")))
		}
	}
	if len(jitLines) > 0 {
		fmt.Fprintf(report, "\n%s\n", strings.Join(jitLines, "\n"))
	}
	if len(cacheLines) > 0 {
		fmt.Fprintf(report, "\ncallgrind's cache simulation (-cache-sim):\n%s\n", strings.Join(cacheLines, "\n"))
	}
	return nil
}

// servedCount starts workerd on a copy of conf (its own port, V8 single-threaded and
// --trace-gc) under callgrind, sends servedWarm requests of target, and counts from
// right after one garbage collection to right after the first that follows at least n
// requests: it zeroes the count after a collection, sends requests until n have gone
// and another collection has run, and dumps. It returns the count per request counted,
// the events per request, and the collections in the window.
//
// Why whole collection cycles: a collection (a scavenge every ~1,000 requests here)
// frees the C++ objects of every request since the last one (the Request, Response and
// Headers behind their JS wrappers) at once, so a window of a fixed number of requests
// holds one collection more or less depending on where it falls. Counted over whole
// cycles, each request pays its share.
func servedCount(vg, ctl, workerd, conf, target string, n int, tag string) (float64, map[string]float64, string, error) {
	s, gc, out, err := startCallgrind(vg, workerd, conf, tag)
	if err != nil {
		return 0, nil, "", err
	}
	defer s.stop()
	if _, ok := devrun.WaitFor(s.base+endpoints[0].target, time.Now(), 120*time.Second, 50*time.Millisecond); !ok {
		return 0, nil, "", fmt.Errorf("%s under callgrind: no 200 in 120 s", conf)
	}
	pid := fmt.Sprint(s.cmd.Process.Pid) // stdbuf execs valgrind: the same process
	counted, window, err := countWindow(s, ctl, pid, target, n, gc)
	if err != nil {
		return 0, nil, "", err
	}
	ev, err := readDump(out, pid, counted, tag)
	if err != nil {
		return 0, nil, "", err
	}
	return ev["Ir"], ev, window, nil
}

// gcCounts are the collections a workerd has run so far, by V8's --trace-gc lines.
type gcCounts struct{ scavenges, majors atomic.Int64 }

// total returns the collections of both kinds.
func (g *gcCounts) total() int64 { return g.scavenges.Load() + g.majors.Load() }

// read counts the collections in the trace lines of r until it ends, and appends each
// line, after tag, to -gc-log when given.
func (g *gcCounts) read(r io.Reader, tag string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var gl *os.File // -gc-log: each trace line, tagged with the count's
	if *gcLog != "" {
		if f, err := os.OpenFile(*gcLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			gl = f
			defer f.Close()
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if gl != nil {
			fmt.Fprintln(gl, tag, line)
		}
		switch {
		case strings.Contains(line, ": Scavenge"), strings.Contains(line, ": Minor Mark"):
			g.scavenges.Add(1)
		case strings.Contains(line, ": Mark-Compact"), strings.Contains(line, ": Mark-Sweep"):
			g.majors.Add(1)
		}
	}
}

// startCallgrind starts workerd on a copy of conf (its own port, V8 single-threaded
// and --trace-gc) under callgrind, whose dumps go to out.1, out.2, ... (earlier ones
// removed), and returns it with the count of its collections.
func startCallgrind(vg, workerd, conf, tag string) (s *server, gc *gcCounts, out string, err error) {
	vconf, port, err := confCopy(conf, "-cg", true)
	if err != nil {
		return nil, nil, "", err
	}
	stdbuf, err := exec.LookPath("stdbuf") // coreutils: V8's trace lines reach the pipe as they are written
	if err != nil {
		return nil, nil, "", fmt.Errorf("-instructions needs stdbuf (coreutils): %v", err)
	}
	out, _ = filepath.Abs(filepath.Join(*outDir, "callgrind."+tag))
	matches, _ := filepath.Glob(out + "*")
	for _, f := range matches {
		os.Remove(f)
	}
	args := []string{"-oL", "-eL", vg, "--tool=callgrind", "--smc-check=all-non-file", "--callgrind-out-file=" + out}
	if *cacheSim {
		args = append(args, "--cache-sim=yes")
	}
	cmd := exec.Command(stdbuf, append(args, workerd, "serve", vconf)...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, "", err
	}
	cmd.Stderr = io.Discard
	if err := devrun.Start(cmd); err != nil {
		return nil, nil, "", err
	}
	gc = &gcCounts{}
	go gc.read(pipe, tag)
	return &server{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd}, gc, out, nil
}

// countWindow sends servedWarm requests of target, then requests until a collection,
// zeroes callgrind's count (callgrind_control at ctl, valgrind's pid), sends requests
// until n have gone and another collection has run, and dumps the count. It returns the
// requests counted and what the window held.
func countWindow(s *server, ctl, pid, target string, n int, gc *gcCounts) (int64, string, error) {
	if _, err := burst(s.base+target, 1<<20, func(sent int64) bool { return sent >= servedWarm }); err != nil {
		return 0, "", err
	}
	g0 := gc.total()
	if _, err := burst(s.base+target, 2<<20, func(int64) bool { return gc.total() > g0 }); err != nil { // to the next collection
		return 0, "", err
	}
	if o, err := exec.Command(ctl, "-z", pid).CombinedOutput(); err != nil {
		return 0, "", fmt.Errorf("callgrind_control -z: %v: %s", err, o)
	}
	s1, m1 := gc.scavenges.Load(), gc.majors.Load()
	var atN atomic.Int64 // the collections so far when the n-th request was answered; -1 before
	atN.Store(-1)
	counted, err := burst(s.base+target, 3<<20, func(sent int64) bool {
		if sent < int64(n) {
			return false
		}
		atN.CompareAndSwap(-1, gc.total())
		return gc.total() > atN.Load() // a collection after the n-th request
	})
	if err != nil {
		return 0, "", err
	}
	if o, err := exec.Command(ctl, "-d", pid).CombinedOutput(); err != nil {
		return 0, "", fmt.Errorf("callgrind_control -d: %v: %s", err, o)
	}
	return counted, fmt.Sprintf("%d requests, %d scavenges, %d full collections", counted, gc.scavenges.Load()-s1, gc.majors.Load()-m1), nil
}

// readDump waits for callgrind's dump (out.1: its "summary:" line is the count) and
// returns its events per request counted (with "compile", the JIT's share), and with
// -jit-names keeps the JIT report under tag.
func readDump(out, pid string, counted int64, tag string) (map[string]float64, error) {
	for t0 := time.Now(); time.Since(t0) < 60*time.Second; time.Sleep(200 * time.Millisecond) {
		text, err := os.ReadFile(out + ".1")
		if err != nil {
			continue
		}
		ev := eventCounts(text)
		if ev["Ir"] <= 0 {
			continue
		}
		ev["compile"] = compileInstructions(text)
		if *jitNames {
			lines, err := jitReport(text, pid, int(counted), 15)
			if err != nil {
				return nil, err
			}
			jitReports[tag] = lines
		}
		for k := range ev {
			ev[k] /= float64(counted)
		}
		return ev, nil
	}
	return nil, fmt.Errorf("no callgrind dump at %s.1", out)
}

// burst sends GETs of url over 4 keep-alive connections, every one from a new client
// (2001:<k>... in -addr's form, from base on), until stop(requests answered) holds,
// checked before each request; it returns how many were answered (the requests in
// flight when stop turned true complete first) and fails on any answer but 200.
func burst(url string, base int64, stop func(sent int64) bool) (int64, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 60 * time.Second}
	var next, done, bad atomic.Int64
	next.Store(base)
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop(done.Load()) && bad.Load() == 0 {
				k := next.Add(1)
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("CF-Connecting-IP", fmt.Sprintf(clientAddr(), k>>32, (k>>16)&0xffff, k&0xffff))
				resp, err := client.Do(req)
				if err != nil {
					bad.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					bad.Add(1)
					firstErr.CompareAndSwap(nil, resp.Status)
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		return done.Load(), fmt.Errorf("%s: %d requests failed (first: %v)", url, bad.Load(), firstErr.Load())
	}
	return done.Load(), nil
}

// eventCounts reads a callgrind dump's events line and its summary (or totals) line
// into a map by event name (Ir, and with --cache-sim=yes the misses); the map is
// empty until the dump is whole.
func eventCounts(text []byte) map[string]float64 {
	ev := regexp.MustCompile(`(?m)^events: (.*)$`).FindSubmatch(text)
	sum := regexp.MustCompile(`(?m)^(?:summary|totals): (.*)$`).FindSubmatch(text)
	m := map[string]float64{}
	if ev == nil || sum == nil {
		return m
	}
	names, vals := strings.Fields(string(ev[1])), strings.Fields(string(sum[1]))
	for k := 0; k < len(names) && k < len(vals); k++ {
		var v float64
		fmt.Sscan(vals[k], &v)
		m[names[k]] = v
	}
	return m
}

// compileInstructions returns the instructions a callgrind dump charges to V8's
// compilers (the functions named by compilePattern, self cost): a function tiering up
// (a wasm function to TurboFan, a JS function to Maglev or TurboFan) runs a large
// compile once in an isolate's life, which would weigh on every request of a window it
// falls in. servedInstructions reports the count without it.
func compileInstructions(text []byte) float64 {
	var total float64
	for fn, v := range selfCosts(text) {
		if compilePattern.MatchString(fn) {
			total += v
		}
	}
	return total
}

// selfCosts returns each function's self cost (the first event, Ir) in a callgrind
// dump, by name: the cost lines under each fn=, without the inclusive cost that follows
// a calls= line.
func selfCosts(text []byte) map[string]float64 {
	self := map[string]float64{}
	names := map[string]string{} // fn=(id) name compression
	cur, skip := "", false
	for _, line := range bytes.Split(text, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		switch c := line[0]; {
		case bytes.HasPrefix(line, []byte("fn=")):
			cur = fnName(names, string(line[3:]))
		case bytes.HasPrefix(line, []byte("cfn=")):
			fnName(names, string(line[4:])) // defines the id for later fn= lines
		case bytes.HasPrefix(line, []byte("calls=")):
			skip = true // the next cost line is the call's inclusive cost
		case c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*':
			if skip {
				skip = false
				continue
			}
			if f := bytes.Fields(line); len(f) >= 2 {
				v, _ := strconv.ParseFloat(string(f[1]), 64)
				self[cur] += v
			}
		}
	}
	return self
}

// compilePattern names the functions of V8's compilers and parsers in workerd's symbols.
var compilePattern = regexp.MustCompile(`compiler::|maglev::|turboshaft::|Liftoff|WasmFullDecoder|wasm::.*Compil|Compiler::|CompilationJob|InstructionSelector|RegisterAllocat|interpreter::|Parser::|BytecodeGenerator|baseline::|CodeGenerator`)

// fnName resolves callgrind's name compression: "(id) name" defines id, "(id)" refers to it.
func fnName(names map[string]string, s string) string {
	if !strings.HasPrefix(s, "(") {
		return s
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return s
	}
	id, rest := s[:end+1], strings.TrimSpace(s[end+1:])
	if rest != "" {
		names[id] = rest
		return rest
	}
	return names[id]
}
