package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Instructions per request served, in workerd, under valgrind's callgrind (issue 16,
// session 12): the project and the floor each serve the same requests (every one from a
// new client), and the count covers the whole process (HTTP, workerd, V8, the JIT code,
// the module). Unlike req/s on this machine (rounds swing by +-25%), it does not move
// with the machine's load, so the ratio floor/project is the throughput ratio a
// CPU-bound workerd would reach, with no noise. Two things make it repeatable:
//   - V8 runs --single-threaded: its optimizing compiles happen on the main thread when a
//     function turns hot. With background compiles, valgrind's slowness left the glue in
//     V8's interpreter for thousands of requests in some runs and not in others
//     (BENCHMARKS.md).
//   - callgrind_control zeroes the count after the warm-up and dumps it after the
//     measured requests, so neither the start nor the tier-up is in it.
const (
	servedWarm = 6000 // requests before the count starts: the JIT has tiered up well before
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
	fmt.Fprintf(report, "\ninstructions per request served (workerd under callgrind, V8 --single-threaded, %d requests counted after %d of warm-up, every request from a new client; the project and the floor serve the same requests side by side):\n\n", n, servedWarm)
	fmt.Fprintf(report, "| endpoint | project | floor | project - floor | ratio floor / project |\n|---|---|---|---|---|\n")
	var cacheLines []string           // with -cache-sim: each endpoint's misses per request
	for i, e := range endpoints[:3] { // the three: depots, availability, quotes
		if *only != "" && !strings.Contains(e.name, *only) {
			continue
		}
		var events [2]map[string]float64
		counts, err := both(func(j int) (float64, error) {
			c, ev, err := servedCount(vg, ctl, workerd, []string{appConf, floorConf}[j], e.target, n, fmt.Sprintf("%d-%d", i, j))
			events[j] = ev
			return c, err
		})
		if err != nil {
			return err
		}
		a, f := counts[0]/float64(n), counts[1]/float64(n)
		fmt.Fprintf(report, "| %s | %.1f K | %.1f K | %.1f K | %.3f |\n", e.name, a/1000, f/1000, (a-f)/1000, f/a)
		if *cacheSim {
			// callgrind's cache model (the host's L1 and last level, as valgrind reads
			// them): misses per request, which the instruction count does not see.
			var parts []string
			for _, ev := range []string{"I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Dr", "Dw"} {
				parts = append(parts, fmt.Sprintf("%s %.0f / %.0f", ev, events[0][ev]/float64(n), events[1][ev]/float64(n)))
			}
			cacheLines = append(cacheLines, fmt.Sprintf("%s, per request, project / floor: %s", e.name, strings.Join(parts, ", ")))
		}
		fmt.Fprintf(os.Stderr, "instructions %s: project %.0f, floor %.0f per request\n", e.name, a, f)
	}
	if len(cacheLines) > 0 {
		fmt.Fprintf(report, "\ncallgrind's cache simulation (-cache-sim):\n%s\n", strings.Join(cacheLines, "\n"))
	}
	return nil
}

// servedCount starts workerd on a copy of conf (its own port, V8 single-threaded) under
// callgrind, sends servedWarm requests of target, zeroes the count, sends n more, dumps
// the count and returns it.
func servedCount(vg, ctl, workerd, conf, target string, n int, tag string) (float64, map[string]float64, error) {
	vconf, port, err := confCopy(conf, "-cg", true)
	if err != nil {
		return 0, nil, err
	}
	out, _ := filepath.Abs(filepath.Join(*outDir, "callgrind."+tag))
	matches, _ := filepath.Glob(out + "*")
	for _, f := range matches {
		os.Remove(f)
	}
	args := []string{"--tool=callgrind", "--smc-check=all-non-file", "--callgrind-out-file=" + out}
	if *cacheSim {
		args = append(args, "--cache-sim=yes")
	}
	cmd := exec.Command(vg, append(args, workerd, "serve", vconf)...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	s := &server{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd}
	defer s.stop()
	ok := false
	for t0 := time.Now(); time.Since(t0) < 120*time.Second && !ok; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(s.base + endpoints[0].target); err == nil {
			resp.Body.Close()
			ok = resp.StatusCode == 200
		}
	}
	if !ok {
		return 0, nil, fmt.Errorf("%s under callgrind: no 200 in 120 s", conf)
	}
	pid := fmt.Sprint(cmd.Process.Pid)
	if err := burst(s.base+target, servedWarm, 1<<20); err != nil {
		return 0, nil, err
	}
	if o, err := exec.Command(ctl, "-z", pid).CombinedOutput(); err != nil {
		return 0, nil, fmt.Errorf("callgrind_control -z: %v: %s", err, o)
	}
	if err := burst(s.base+target, n, 2<<20); err != nil {
		return 0, nil, err
	}
	if o, err := exec.Command(ctl, "-d", pid).CombinedOutput(); err != nil {
		return 0, nil, fmt.Errorf("callgrind_control -d: %v: %s", err, o)
	}
	// The dump is out.1 (out.2, ... after more dumps): its "summary:" line is the count.
	for t0 := time.Now(); time.Since(t0) < 60*time.Second; time.Sleep(200 * time.Millisecond) {
		text, err := os.ReadFile(out + ".1")
		if err != nil {
			continue
		}
		if ev := eventCounts(text); ev["Ir"] > 0 {
			return ev["Ir"], ev, nil
		}
	}
	return 0, nil, fmt.Errorf("no callgrind dump at %s.1", out)
}

// burst sends n GETs of url over 4 keep-alive connections, every one from a new client
// (2001:<n>... in -addr's form, from base on), and fails on any answer but 200.
func burst(url string, n int, base int64) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 60 * time.Second}
	var next, bad atomic.Int64
	next.Store(base)
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1)
				if k > base+int64(n) {
					return
				}
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
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		return fmt.Errorf("%s: %d of %d requests failed (first: %v)", url, bad.Load(), n, firstErr.Load())
	}
	return nil
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
