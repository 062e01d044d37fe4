//go:build !wasip1 && !js

package main

// The test harness: every HTTP case in testdata/http/cases.json runs natively (golden
// files), through the TinyGo module under wazero (byte for byte equal to native), and
// against the real workerd under wrangler dev (e2e_test.go, with -e2e).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
	"github.com/tetratelabs/wazero"
	wapi "github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

var (
	update   = flag.Bool("update", false, "rewrite the golden files in testdata/http/golden")
	wasmPath = flag.String("wasm", "../build/app.wasm", "the TinyGo module under test (make build)")
)

// fixedNow is the clock of the golden and wazero runs: 2026-11-22T00:00:00Z.
var fixedNow = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC).UnixMilli()

// constRand makes quote ids reproducible in golden files and across native and wasm.
type constReader struct{}

func (constReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 0x5a
	}
	return len(b), nil
}

func constRand(b []byte) { constReader{}.Read(b) }

// httpCase is one request and the status it must get.
type httpCase struct {
	Name    string            `json:"name"`
	Method  string            `json:"method"`
	Target  string            `json:"target"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`       // request body (POST to the MCP endpoint)
	Repeat  int               `json:"bodyRepeat"` // the body is Body repeated this many times (when > 0)
	Status  int               `json:"status"`
}

func loadCases(t *testing.T) []httpCase {
	t.Helper()
	b, err := os.ReadFile("../testdata/http/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []httpCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || seen[c.Name] || c.Status == 0 {
			t.Fatalf("cases.json: case %q needs a unique name and a status", c.Name)
		}
		seen[c.Name] = true
	}
	return cases
}

// request returns the case as core's request; ip is the client unless the case sets one.
func (c httpCase) request(ip string) abi.Request {
	m := c.Method
	if m == "" {
		m = "GET"
	}
	r := abi.Request{Method: m, Target: c.Target}
	if c.Body != "" {
		r.Body = []byte(c.Body)
		if c.Repeat > 0 {
			r.Body = []byte(strings.Repeat(c.Body, c.Repeat))
		}
	}
	hs := map[string]string{"cf-connecting-ip": ip}
	for k, v := range c.Headers {
		hs[strings.ToLower(k)] = v
	}
	// The same headers, in the same order, as the JS glue passes.
	for _, name := range api.RequestHeaders {
		r.Headers = append(r.Headers, abi.Header{Name: name, Value: hs[name]})
	}
	return r
}

// testQuoteKeys is the quote signing key of the tests (the secret QUOTE_SIGNING_KEYS;
// `make dev` writes the same into a first .dev.vars, startDev passes it with --var),
// and their API_KEY_SECRET (the partner keys of testdata/http/cases.json).
const testQuoteKeys = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// wranglerVars reads [vars] from wrangler.toml, so native and wasm runs use exactly
// the configuration the Worker gets, plus the tests' quote signing key.
func wranglerVars(t testing.TB) []abi.Header {
	t.Helper()
	b, err := os.ReadFile("../wrangler.toml")
	if err != nil {
		t.Fatal(err)
	}
	var vars []abi.Header
	in := false
	line := regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\s*=\s*"([^"]*)"`)
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			in = l == "[vars]"
			continue
		}
		if m := line.FindStringSubmatch(l); in && m != nil {
			vars = append(vars, abi.Header{Name: m[1], Value: m[2]})
		}
	}
	if len(vars) == 0 {
		t.Fatal("wrangler.toml has no [vars]")
	}
	return append(vars, abi.Header{Name: "QUOTE_SIGNING_KEYS", Value: testQuoteKeys}, abi.Header{Name: "API_KEY_SECRET", Value: testQuoteKeys})
}

var (
	catOnce sync.Once
	cat     *rental.Catalog
	catErr  error
)

// nativeServer returns a fresh server over the bundled snapshot.
func nativeServer(t testing.TB, vars []abi.Header, now func() int64, random func([]byte)) *api.Server {
	t.Helper()
	catOnce.Do(func() { cat, catErr = rental.LoadCatalog(data.Files()) })
	if catErr != nil {
		t.Fatalf("bundled snapshot: %v", catErr)
	}
	cfg, err := api.ConfigFromVars(apiVars(vars))
	if err != nil {
		t.Fatal(err)
	}
	return api.NewServer(cfg, cat, nil, now, random, nil)
}

// apiVars returns vars (as the module's configure call takes them: the headers of a
// request) as api.ConfigFromVars takes them.
func apiVars(vars []abi.Header) []api.Var {
	out := make([]api.Var, len(vars))
	for i, v := range vars {
		out[i] = api.Var{Name: v.Name, Value: v.Value}
	}
	return out
}

func nativeDo(s *api.Server, req *abi.Request) []byte {
	var w abi.Response
	s.Handle(req, &w)
	return append([]byte(nil), w.Encode()...)
}

// render is the golden form of a response: status, headers, blank line, body.
func render(d abi.DecodedResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d\n", d.Status)
	for _, h := range d.Headers {
		fmt.Fprintf(&b, "%s: %s\n", h.Name, h.Value)
	}
	b.WriteString("\n")
	b.Write(d.Body)
	b.WriteString("\n")
	return b.String()
}

func TestGoldenResponses(t *testing.T) {
	vars := wranglerVars(t)
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
			req := c.request("203.0.113.7")
			d, err := abi.DecodeResponse(nativeDo(s, &req))
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != c.Status {
				t.Errorf("%s %s: status %d, want %d; body %s", req.Method, c.Target, d.Status, c.Status, d.Body)
			}
			if d.Status >= 500 {
				t.Errorf("%s: a 5xx for a client's request", c.Name)
			}
			if ct := d.Header("content-type"); d.Status != 202 && d.Status != 204 && d.Status != 304 && ct == "" {
				t.Errorf("%s: no content-type", c.Name)
			}
			if strings.HasPrefix(d.Header("content-type"), "application/json") && len(d.Body) > 0 && !json.Valid(d.Body) {
				t.Errorf("%s: body is not valid JSON: %s", c.Name, d.Body)
			}
			got := render(d)
			path := filepath.Join("../testdata/http/golden", c.Name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (make goldens creates it)", err)
			}
			if got != string(want) {
				t.Errorf("%s %s differs from %s:\n--- got\n%s\n--- want\n%s", req.Method, c.Target, path, got, want)
			}
		})
	}
}

// The wazero side: one runtime and one compiled module per test process.
var (
	wz struct {
		once     sync.Once
		rt       wazero.Runtime
		compiled wazero.CompiledModule
		err      error
	}
)

// needModule skips the test when the module is not built, as in a fresh clone; under
// make test (CAMPERVAN_REQUIRE_ALL) a missing module fails it instead.
func needModule(t testing.TB) {
	t.Helper()
	needPath(t, *wasmPath, "the TinyGo module")
}

func compiledModule(t testing.TB) (wazero.Runtime, wazero.CompiledModule) {
	t.Helper()
	needModule(t)
	wz.once.Do(func() {
		ctx := context.Background()
		bin, err := os.ReadFile(*wasmPath)
		if err != nil {
			wz.err = fmt.Errorf("%v: build the module first (make build)", err)
			return
		}
		cacheDir := filepath.Join(os.TempDir(), "campervan-wazero-cache")
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			cache = wazero.NewCompilationCache()
		}
		wz.rt = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		wasi_snapshot_preview1.MustInstantiate(ctx, wz.rt)
		wz.compiled, wz.err = wz.rt.CompileModule(ctx, bin)
	})
	if wz.err != nil {
		t.Fatal(wz.err)
	}
	return wz.rt, wz.compiled
}

// wasmApp is one instance of the TinyGo module, configured like the Worker.
type wasmApp struct {
	mod                      wapi.Module
	alloc, configure, handle wapi.Function
	stderr                   *bytes.Buffer
	hdrs                     abi.HeaderCache // the shell's half of the header table, as the glue keeps it
}

func newWasmApp(t testing.TB, vars []abi.Header, nowMs int64) *wasmApp {
	t.Helper()
	return newWasmAppRand(t, vars, nowMs, constReader{})
}

// newWasmAppRand is newWasmApp with random_get reading from rand.
func newWasmAppRand(t testing.TB, vars []abi.Header, nowMs int64, rand io.Reader) *wasmApp {
	t.Helper()
	rt, compiled := compiledModule(t)
	ctx := context.Background()
	stderr := &bytes.Buffer{}
	sec, nsec := nowMs/1000, int32(nowMs%1000)*1e6
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").
		WithStderr(stderr).WithRandSource(rand).
		WithWalltime(func() (int64, int32) { return sec, nsec }, 1)
	mod, err := rt.InstantiateModule(ctx, compiled, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Close(ctx) })
	a := &wasmApp{mod: mod, alloc: mod.ExportedFunction("alloc"), configure: mod.ExportedFunction("configure"),
		handle: mod.ExportedFunction("handle"), stderr: stderr}
	if a.alloc == nil || a.configure == nil || a.handle == nil {
		t.Fatal("the module does not export alloc, configure and handle")
	}
	in := abi.EncodeRequest(nil, &abi.Request{Headers: vars})
	if _, err := a.configure.Call(ctx, uint64(a.write(t, in))); err != nil {
		t.Fatalf("configure: %v (stderr: %s)", err, stderr)
	}
	return a
}

// write copies b into the module's request buffer and returns its length.
func (a *wasmApp) write(t testing.TB, b []byte) uint32 {
	res, err := a.alloc.Call(context.Background(), uint64(len(b)))
	if err != nil {
		t.Fatalf("alloc: %v", err)
	}
	if !a.mod.Memory().Write(uint32(res[0]), b) {
		t.Fatal("request buffer out of memory range")
	}
	return uint32(len(b))
}

// do sends one request through the module's ABI and returns the response in the plain
// ABI form (Encode's, as native answers): read through the app's header table.
func (a *wasmApp) do(t testing.TB, req *abi.Request) []byte {
	t.Helper()
	return a.doAt(t, req, 0)
}

// doAt is do with the clock handle takes from the glue (unix ms; 0: none, the module
// reads WASI's clock).
func (a *wasmApp) doAt(t testing.TB, req *abi.Request, nowMs float64) []byte {
	t.Helper()
	n := a.write(t, abi.EncodeRequest(nil, req))
	res, err := a.handle.Call(context.Background(), uint64(n), wapi.EncodeF64(nowMs))
	if err != nil {
		t.Fatalf("handle %s %s: %v (stderr: %s)", req.Method, req.Target, err, a.stderr)
	}
	out, err := a.read(uint32(res[0]))
	if err != nil {
		t.Fatalf("handle %s %s: %v", req.Method, req.Target, err)
	}
	return out
}

// countingReader yields the bytes of the little-endian uint32s 1, 2, 3, ...: a random
// source whose every 8-byte window, at any offset, differs from every other.
type countingReader struct{ n uint32 }

func (c *countingReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte((c.n/4 + 1) >> (8 * (c.n % 4)))
		c.n++
	}
	return len(b), nil
}

// TestWasmQuoteNoncesFresh: every quote takes fresh bytes from the module's random
// pool (worker/main_wasip1.go, randomBytes, whose 8-byte nonce is one word's copy):
// the same quote asked 300 times in one millisecond (the pool refills every 128) has
// 300 different ids, which differ only in their nonces.
func TestWasmQuoteNoncesFresh(t *testing.T) {
	a := newWasmAppRand(t, wranglerVars(t), fixedNow, &countingReader{})
	target := "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5"
	seen := map[string]int{}
	for i := 0; i < 300; i++ {
		req := &abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: fmt.Sprintf("2001:db8:%x::1", i+1)}}}
		d, err := abi.DecodeResponse(a.doAt(t, req, float64(fixedNow)))
		if err != nil || d.Status != 200 {
			t.Fatalf("quote %d: status %d, %v: %s", i, d.Status, err, d.Body)
		}
		var q struct {
			QuoteID string `json:"quoteId"`
		}
		if err := json.Unmarshal(d.Body, &q); err != nil || q.QuoteID == "" {
			t.Fatalf("quote %d: no quoteId (%v): %s", i, err, d.Body)
		}
		if j, ok := seen[q.QuoteID]; ok {
			t.Fatalf("quotes %d and %d have the same id %s", j, i, q.QuoteID)
		}
		seen[q.QuoteID] = i
	}
}

// TestWasmHandleClock: handle answers at the clock the glue passes with the request
// (a quote's expiresAt is now + QUOTE_TTL_SECONDS, the rate limit's window starts at
// it), and at WASI's clock when it passes none or a value that is no clock.
func TestWasmHandleClock(t *testing.T) {
	a := newWasmApp(t, wranglerVars(t), fixedNow) // QUOTE_TTL_SECONDS 1800
	target := "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5"
	given := fixedNow + 90*60*1000 + 250 // 01:30:00.250 on the wazero clock's day
	for i, c := range []struct {
		now     float64
		expires string
	}{
		{float64(given), "2026-11-22T02:00:00Z"},
		{0, "2026-11-22T00:30:00Z"},
		{math.NaN(), "2026-11-22T00:30:00Z"},
		{-5, "2026-11-22T00:30:00Z"},
		{float64(given) + 0.5, "2026-11-22T00:30:00Z"},
		{1e300, "2026-11-22T00:30:00Z"},
	} {
		req := &abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: fmt.Sprintf("203.0.113.%d", i+1)}}}
		d, err := abi.DecodeResponse(a.doAt(t, req, c.now))
		if err != nil || d.Status != 200 {
			t.Fatalf("now %v: status %d, %v: %s", c.now, d.Status, err, d.Body)
		}
		if want := `"expiresAt":"` + c.expires + `"`; !strings.Contains(string(d.Body), want) {
			t.Errorf("now %v: want %s in %s", c.now, want, d.Body)
		}
	}
}

// read expands the interned response at ptr (core/abi/hdrtable.go) into the plain form.
// call0 calls the module's export name, which takes no argument, and returns its result.
func (a *wasmApp) call0(t testing.TB, name string) uint32 {
	t.Helper()
	f := a.mod.ExportedFunction(name)
	if f == nil {
		t.Fatalf("the module does not export %s", name)
	}
	res, err := f.Call(context.Background())
	if err != nil {
		t.Fatalf("%s: %v (stderr: %s)", name, err, a.stderr)
	}
	return uint32(res[0])
}

func (a *wasmApp) read(ptr uint32) ([]byte, error) {
	mem := a.mod.Memory()
	total, ok := mem.ReadUint32Le(ptr)
	if !ok {
		return nil, errors.New("response pointer out of range")
	}
	out, ok := mem.Read(ptr, total)
	if !ok {
		return nil, errors.New("response out of range")
	}
	return a.hdrs.Expand(out)
}

func TestWasmMatchesNative(t *testing.T) {
	needModule(t)
	vars := wranglerVars(t)
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			req := c.request("203.0.113.7")
			want := nativeDo(nativeServer(t, vars, func() int64 { return fixedNow }, constRand), &req)
			got := newWasmApp(t, vars, fixedNow).do(t, &req)
			if !bytes.Equal(got, want) {
				dg, _ := abi.DecodeResponse(got)
				dw, _ := abi.DecodeResponse(want)
				t.Errorf("%s %s: the wasm module answers differently from native:\n--- wasm\n%s\n--- native\n%s", req.Method, c.Target, render(dg), render(dw))
			}
		})
	}
}

// TestWasmInstanceReuse sends every case through ONE instance, as the Worker does, and
// compares with one native server that saw the same sequence (the rate limiter's
// state and the reused buffers must not make them drift apart).
func TestWasmInstanceReuse(t *testing.T) {
	vars := wranglerVars(t)
	s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	a := newWasmApp(t, vars, fixedNow)
	cases := loadCases(t)
	for round := 0; round < 3; round++ {
		for _, c := range cases {
			req := c.request("198.51.100.1")
			want, got := nativeDo(s, &req), a.do(t, &req)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d, %s: reused instance differs from native", round, c.Name)
			}
		}
	}
}
