package main

import (
	"fmt"
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
	"syscall"
	"time"
)

// The load: wrk runs of each endpoint against project and floor (loadTable), the
// memory soak's sequential requests, and the rate limiter under churn (compareChurn).

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
