package main

// The Worker per catalog size. For each vehicle count: the catalog (the bundled one for
// its own count, else generate's synthetic one) written into a fresh copy of the tree,
// `make build` there (go generate, TinyGo, wasm-opt and build/checkmodule's limits;
// the toolchains' caches are shared, the project's packages compile afresh in the new
// folder), the module and glue copied to out/<count>/; then on the raw workerd that
// wrangler ships, from a binary config as wrangler dev and the edge give it (no KV: the
// catalog's bundled bookings, none for a synthetic one): the cold start (build/bench's
// measure: workerd started, the first 200 of /depots polled for every millisecond,
// workerd killed at once, its CPU time from its rusage; the median of -cold), and each
// operation sent for -op-time one request at a time, each from a new client, with
// workerd's CPU time over them (all its threads, /proc schedstat) divided by the count.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"github.com/campervan/agent-api/build/internal/devrun"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/campervan/agent-api/data"
)

// testQuoteKeys is the tests' quote signing key (worker/harness_test.go): the quote
// operation answers 503 without one.
const testQuoteKeys = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// The operations, with the hire of the worked examples where they take one: depot 1,
// 10 days from Monday 2027-03-15 (synthetic depots open on weekdays only). VEHICLE is
// the first vehicle of the availability answer.
const hire = "pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-15&drop_off_date=2027-03-24"

var operations = []struct{ name, method, target, body string }{
	{"depots", "GET", "/depots", ""},
	{"availability (depot 1, 10 days)", "GET", "/vehicles/availability?" + hire, ""},
	{"accessories (one vehicle, dated)", "GET", "/vehicles/VEHICLE/accessories?pick_up_date=2027-03-15&drop_off_date=2027-03-24", ""},
	{"insurance (one vehicle)", "GET", "/vehicles/VEHICLE/insurance-types", ""},
	{"quote (one vehicle)", "GET", "/quotes?" + hire + "&vehicle_id=VEHICLE", ""},
	{"calendar (worked example)", "GET", "/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic", ""},
	{"MCP search_vehicles", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_vehicles","arguments":{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-15","drop_off_date":"2027-03-24"}}}`},
}

type fleet struct {
	vehicles          int
	bundled           bool
	build             time.Duration
	wasm, gz, bundle  int     // bytes: the module, gzipped, module + glue gzipped
	initialMiB        float64 // the module's initial memory
	check             string  // build/checkmodule's line
	coldWall, coldCPU float64 // ms
	ops               []opResult
}

type opResult struct {
	status, body, n int
	cpu, wall       float64 // ms a request
}

// fleetTable measures the Worker at each vehicle count of list and prints the tables.
func fleetTable(out, tinygo, list string, colds int, opTime time.Duration) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	workerd := filepath.Join(root, "node_modules/@cloudflare/workerd-linux-64/bin/workerd")
	if _, err := os.Stat(workerd); err != nil {
		return fmt.Errorf("workerd not installed (npm install): %v", err)
	}
	vars, err := devrun.WranglerVars(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		return err
	}
	vars = append(vars, [2]string{"QUOTE_SIGNING_KEYS", testQuoteKeys})
	bundledCount := vehicleCount(data.Files())
	var fs []fleet
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-vehicles: %q is not a vehicle count", s)
		}
		f := fleet{vehicles: n, bundled: n == bundledCount}
		files := data.Files()
		if !f.bundled {
			files, _ = generate(n)
		}
		dir, err := filepath.Abs(filepath.Join(out, strconv.Itoa(n)))
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "scale: %d vehicles: make build in a copy of the tree ...\n", n)
		if err := f.buildIn(root, dir, tinygo, files); err != nil {
			return fmt.Errorf("%d vehicles: %v", n, err)
		}
		fmt.Fprintf(os.Stderr, "scale: %d vehicles: %s\n", n, f.check)
		fmt.Fprintf(os.Stderr, "scale: %d vehicles: cold starts and operations on workerd ...\n", n)
		if err := f.onWorkerd(root, workerd, dir, vars, colds, opTime); err != nil {
			return fmt.Errorf("%d vehicles: %v", n, err)
		}
		fs = append(fs, f)
	}
	printFleets(fs, colds, opTime)
	return nil
}

// vehicleCount is the number of vehicles in a catalog's vehicles.json.
func vehicleCount(files map[string][]byte) int {
	var vs []json.RawMessage
	json.Unmarshal(files["vehicles.json"], &vs)
	return len(vs)
}

// buildIn builds the Worker for files in a fresh copy of the tree at root and copies
// build/app.wasm and build/worker.mjs into dir.
func (f *fleet) buildIn(root, dir, tinygo string, files map[string][]byte) error {
	tree, err := os.MkdirTemp("", "campervan-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tree)
	if err := copyTree(root, tree); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(tree, "data", "*.json"))
	for _, p := range old {
		os.Remove(p)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tree, "data", name), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(tree, "node_modules")); err != nil {
		return err
	}
	// deps-check is root's (the copy shares its node_modules and toolchains).
	cmd := exec.Command("make", "--no-print-directory", "-C", tree, "-o", "deps-check", "build", "TINYGO="+tinygo)
	cmd.Env = makeEnv()
	t0 := time.Now()
	outb, err := cmd.CombinedOutput()
	f.build = time.Since(t0)
	if err != nil {
		return fmt.Errorf("make build: %v\n%s", err, outb)
	}
	if m := regexp.MustCompile(`(?m)^checkmodule: (.*)$`).FindSubmatch(outb); m != nil {
		f.check = string(m[1])
		if x := regexp.MustCompile(`initial ([0-9.]+) MiB`).FindSubmatch(m[1]); x != nil {
			f.initialMiB, _ = strconv.ParseFloat(string(x[1]), 64)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, "data", name), b, 0o644); err != nil {
			return err
		}
	}
	var both []byte
	for _, name := range []string{"worker.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(tree, "build", name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
		both = append(both, b...)
		if name == "app.wasm" {
			f.wasm, f.gz = len(b), gzSize(b)
		}
	}
	f.bundle = gzSize(both)
	return nil
}

// makeEnv is the environment without the calling make's variables (its jobserver, its
// level), so the build in the copy is a make of its own.
func makeEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" && k != "MAKEOVERRIDES" {
			env = append(env, e)
		}
	}
	return env
}

// copyTree copies the files git tracks or would track (not the ignored build outputs)
// from root into dst.
func copyTree(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() { // deleted in the work tree, or a link
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func gzSize(b []byte) int {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return z.Len()
}

// onWorkerd measures the cold start and the operations of the Worker in dir.
func (f *fleet) onWorkerd(root, workerd, dir string, vars [][2]string, colds int, opTime time.Duration) error {
	port := devrun.FreePort()
	conf := filepath.Join(dir, "workerd.bin")
	spec, _ := json.Marshal(map[string]any{
		"port": port, "kv": "", "compatibilityDate": "2026-11-01", "vars": vars,
		"modules": []map[string]string{{"name": "worker.mjs", "esModule": filepath.Join(dir, "worker.mjs")}, {"name": "app.wasm", "wasm": filepath.Join(dir, "app.wasm")}},
	})
	specPath := filepath.Join(dir, "workerd.json")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		return err
	}
	if o, err := exec.Command(filepath.Join(root, "node_modules/.bin/node"), filepath.Join(root, "build/bench/binconfig.mjs"), specPath, conf).CombinedOutput(); err != nil {
		return fmt.Errorf("build/bench/binconfig.mjs: %v\n%s", err, o)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d/api/agent", port)
	var wall, cpu []float64
	for i := 0; i < colds; i++ {
		s, err := startWorkerd(workerd, conf, base+"/depots")
		if err != nil {
			return err
		}
		ms := s.kill()
		wall, cpu = append(wall, s.firstAnswer.Seconds()*1000), append(cpu, ms)
	}
	f.coldWall, f.coldCPU = median(wall), median(cpu)

	s, err := startWorkerd(workerd, conf, base+"/depots")
	if err != nil {
		return err
	}
	defer s.kill()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	var ip uint32
	send := func(method, target, body string) (int, []byte, error) {
		ip++
		req, _ := http.NewRequest(method, base+target, strings.NewReader(body))
		req.Header.Set("CF-Connecting-IP", fmt.Sprintf("10.%d.%d.%d", ip>>16&255, ip>>8&255, ip&255))
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, b, err
	}
	vehicle := "1"
	for _, op := range operations {
		target := strings.ReplaceAll(op.target, "VEHICLE", vehicle)
		var r opResult
		var b []byte
		for i := 0; i < 2; i++ { // the first compiles what the operation runs
			if r.status, b, err = send(op.method, target, op.body); err != nil {
				return fmt.Errorf("%s: %v", op.name, err)
			}
		}
		r.body = len(b)
		if strings.HasPrefix(op.name, "availability") {
			var offers []struct {
				VehicleID int `json:"vehicleId"`
			}
			if json.Unmarshal(b, &offers) == nil && len(offers) > 0 {
				vehicle = strconv.Itoa(offers[0].VehicleID)
			}
		}
		c0, t0 := s.cpu(), time.Now()
		for r.n < 3 || time.Since(t0) < opTime {
			if _, _, err := send(op.method, target, op.body); err != nil {
				return fmt.Errorf("%s: %v", op.name, err)
			}
			r.n++
		}
		r.wall = time.Since(t0).Seconds() * 1000 / float64(r.n)
		r.cpu = (s.cpu() - c0) / float64(r.n)
		f.ops = append(f.ops, r)
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// printFleets prints the two tables: per catalog, then per operation and catalog.
func printFleets(fs []fleet, colds int, opTime time.Duration) {
	fmt.Printf("\nscale: the Worker per catalog (make build in a fresh copy of the tree; cold start: workerd from a binary config to the first /depots answer, median of %d, wall / workerd CPU)\n\n", colds)
	fmt.Println("| vehicles | build | app.wasm | gzipped | + glue, gzipped | initial memory | cold start |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, f := range fs {
		name := strconv.Itoa(f.vehicles)
		if f.bundled {
			name += " (bundled)"
		}
		fmt.Printf("| %s | %.1f s | %s | %s | %s | %.2f MiB | %.0f / %.0f ms |\n", name, f.build.Seconds(),
			kb(f.wasm), kb(f.gz), kb(f.bundle), f.initialMiB, f.coldWall, f.coldCPU)
	}
	fmt.Printf("\nscale: each operation on workerd, one request at a time for %v, each from a new client: body, workerd CPU a request (wall a request)\n\n", opTime)
	head, rule := "| operation |", "|---|"
	for _, f := range fs {
		head += fmt.Sprintf(" %d vehicles |", f.vehicles)
		rule += "---|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	for i, op := range operations {
		row := "| " + op.name + " |"
		for _, f := range fs {
			r := f.ops[i]
			cell := fmt.Sprintf(" %s, %.2f ms (%.2f ms)", kb(r.body), r.cpu, r.wall)
			if r.status != 200 {
				cell = fmt.Sprintf(" %d:%s", r.status, cell)
			}
			row += cell + " |"
		}
		fmt.Println(row)
	}
}

// kb writes a byte count in KB (MB from 10 MB).
func kb(n int) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0f KB", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
}

// workerdProc is one workerd this run started, in its own process group.
type workerdProc struct {
	cmd         *exec.Cmd
	firstAnswer time.Duration
}

// startWorkerd starts workerd on the binary config conf and polls url every millisecond
// until it answers 200 (at most 20 s).
func startWorkerd(workerd, conf, url string) (*workerdProc, error) {
	cmd := exec.Command(workerd, "serve", "--binary", conf)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	t0 := time.Now()
	if err := devrun.Start(cmd); err != nil {
		return nil, err
	}
	s := &workerdProc{cmd: cmd}
	var ok bool
	if s.firstAnswer, ok = devrun.WaitFor(url, t0, 20*time.Second, time.Millisecond); !ok {
		s.kill()
		return nil, fmt.Errorf("workerd %s: no answer in 20 s", conf)
	}
	return s, nil
}

// kill ends workerd's process group at once and returns its CPU time (ms, user +
// system, from its rusage).
func (s *workerdProc) kill() float64 {
	if s.cmd.ProcessState != nil {
		return 0
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	s.cmd.Wait()
	devrun.Untrack(s.cmd)
	ru := s.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// cpu returns workerd's CPU time so far in ms: the sum over its threads of the time on
// a CPU (/proc/<pid>/task/*/schedstat, nanoseconds).
func (s *workerdProc) cpu() float64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	var ns float64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			x, _ := strconv.ParseFloat(f[0], 64)
			ns += x
		}
	}
	return ns / 1e6
}
