//go:build !wasip1 && !js

package main

// Differential tests of the TinyGo module: pseudo-random requests from a fixed seed,
// each answered by build/app.wasm under wazero and by the native handler, must give
// byte-equal ABI responses. A panic in the module traps (TinyGo cannot recover on
// wasm) and fails the call, so this catches traps where native Go would differ, and
// drift between the 32-bit wasm and 64-bit native builds.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/rental"
	"github.com/tetratelabs/wazero"
)

var diffN = 2000 // requests of TestWasmMatchesNativeRandom

// reqGen makes pseudo-random requests, mostly near the API's shape so they reach deep.
type reqGen struct{ r *rand.Rand }

func (g reqGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g reqGen) id() string {
	switch g.r.IntN(10) {
	case 0:
		return g.pick("0", "-1", "", "abc", "1e3", "%2B1", "2147483647", "2147483648", "99999999999999999999", "007", " 1", "1.0")
	case 1:
		return fmt.Sprint(g.r.IntN(100))
	}
	return fmt.Sprint(1 + g.r.IntN(12))
}

func (g reqGen) date() string {
	if g.r.IntN(12) == 0 {
		return g.pick("2026-02-30", "2026-2-3", "20261208", "", "9999-12-31", "1970-01-01", "2026-12-08T10:00", "%32026-12-08", "0000-00-00", "2026-13-01")
	}
	d := rental.DateOf(2026, 11, 22).AddDays(g.r.IntN(800) - 20)
	return d.String()
}

func (g reqGen) dates() (string, string) {
	p := g.date()
	d, ok := rental.ParseDate(p)
	if !ok || g.r.IntN(8) == 0 {
		return p, g.date()
	}
	return p, d.AddDays(g.r.IntN(100) - 3).String()
}

func (g reqGen) accessories() string {
	n := g.r.IntN(6)
	if g.r.IntN(20) == 0 {
		n = 18 + g.r.IntN(6)
	}
	var b []string
	for i := 0; i < n; i++ {
		b = append(b, fmt.Sprint(1+g.r.IntN(8)))
	}
	s := strings.Join(b, ",")
	switch g.r.IntN(15) {
	case 0:
		s += ","
	case 1:
		s = "," + s
	case 2:
		s += ",,x"
	}
	return s
}

// noise is a value or key that no parser expects: bytes of every kind, escapes,
// long strings, markup.
func (g reqGen) noise() string {
	switch g.r.IntN(6) {
	case 0:
		return strings.Repeat(g.pick("a", "é", "%", "%41", "+", "\"", "\\"), 1+g.r.IntN(3000))
	case 1:
		return g.pick("</script>", "%00", "%zz", "%", "%e2%82", "\xff\xfe", "\x00\x01", "'\"<>&", "%C0%AF", "=", "&&", "%3D%26")
	}
	b := make([]byte, g.r.IntN(40))
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return string(b)
}

func (g reqGen) query(keys []string, vals func(string) string) string {
	var parts []string
	for _, k := range keys {
		if g.r.IntN(12) == 0 {
			continue // missing
		}
		parts = append(parts, k+"="+vals(k))
		if g.r.IntN(40) == 0 {
			parts = append(parts, k+"="+vals(k)) // repeated
		}
	}
	if g.r.IntN(8) == 0 {
		parts = append(parts, g.noise()+"="+g.noise())
	}
	if g.r.IntN(30) == 0 {
		for i := 0; i < 17; i++ {
			parts = append(parts, fmt.Sprintf("k%d=%d", i, i))
		}
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return strings.Join(parts, "&")
}

// next returns one request; etag is a valid ETag to send back sometimes.
func (g reqGen) next(etag string) abi.Request {
	const base = "/api/agent"
	method := "GET"
	switch g.r.IntN(20) {
	case 0:
		method = "HEAD"
	case 1:
		method = "OPTIONS"
	case 2:
		method = g.pick("POST", "PUT", "DELETE", "PATCH", "get", "", "G\x00T", strings.Repeat("M", 200))
	}
	pu, do := g.dates()
	vals := func(k string) string {
		switch k {
		case "pick_up_date":
			return pu
		case "drop_off_date":
			return do
		case "accessory_ids":
			return g.accessories()
		}
		return g.id()
	}
	search := []string{"pick_up_depot_id", "drop_off_depot_id", "pick_up_date", "drop_off_date"}
	var target string
	switch g.r.IntN(12) {
	case 0, 1:
		target = base + "/depots"
	case 2:
		target = base + g.pick("", "/", "/openapi.json", "/vehicles", "/vehicles/", "x", "/depots/", "/quotes/1")
	case 3, 4:
		target = base + "/vehicles/availability?" + g.query(search, vals)
	case 5, 6:
		target = base + "/vehicles/" + g.id() + g.pick("/accessories", "/insurance-types")
		if g.r.IntN(2) == 0 {
			target += "?" + g.query([]string{"pick_up_date", "drop_off_date"}, vals)
		}
	case 7, 8, 9:
		target = base + "/quotes?" + g.query(append(search, "vehicle_id", "accessory_ids", "insurance_id"), vals)
	case 10:
		target = g.pick("/", "", "?", "/favicon.ico", base+"?", base+"//depots", "/api/agent/vehicles//accessories") + g.noise()
	default:
		target = base + "/" + g.noise()
	}
	if g.r.IntN(25) == 0 {
		target += strings.Repeat("&z", 2100) // past the 4096-byte limit
	}
	hv := map[string]string{"cf-connecting-ip": fmt.Sprintf("198.51.100.%d", g.r.IntN(200))}
	if g.r.IntN(8) == 0 {
		hv["cf-connecting-ip"] = "203.0.113.99" // one busy client, to reach 429
	}
	switch g.r.IntN(6) {
	case 0:
		hv["if-none-match"] = etag
	case 1:
		hv["if-none-match"] = g.pick("*", `W/"x", `+etag, g.noise())
	}
	if g.r.IntN(10) == 0 {
		hv["origin"] = "https://agent.example"
		hv["access-control-request-method"] = "GET"
	}
	if g.r.IntN(30) == 0 {
		hv["cf-connecting-ip"] = g.noise()
	}
	r := abi.Request{Method: method, Target: target}
	for _, name := range api.RequestHeaders {
		r.Headers = append(r.Headers, abi.Header{Name: name, Value: hv[name]})
	}
	return r
}

// TestWasmMatchesNativeRandom sends diffN pseudo-random requests (fixed seed) through
// ONE reused wasm instance and one native server: the raw responses must be equal byte
// for byte, and no response may be a 5xx.
func TestWasmMatchesNativeRandom(t *testing.T) {
	vars := wranglerVars(t)
	native := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	a := newWasmApp(t, vars, fixedNow)
	g := reqGen{rand.New(rand.NewPCG(7, 2026))}
	etag := `"-"`
	statuses := map[int]int{}
	for i := 0; i < diffN; i++ {
		req := g.next(etag)
		want := nativeDo(native, &req)
		got := a.do(t, &req) // fails the test if the module traps
		d, err := abi.DecodeResponse(want)
		if err != nil {
			t.Fatalf("request %d: native response: %v", i, err)
		}
		statuses[d.Status]++
		if e := d.Header("etag"); e != "" {
			etag = e
		}
		if d.Status >= 500 {
			t.Errorf("request %d %q %.200q: %d %s", i, req.Method, req.Target, d.Status, d.Body)
		}
		if !bytes.Equal(got, want) {
			dg, _ := abi.DecodeResponse(got)
			t.Fatalf("request %d %q %.200q: wasm differs from native:\n--- wasm\n%s\n--- native\n%s", i, req.Method, req.Target, render(dg), render(d))
		}
	}
	t.Logf("%d requests, statuses %v", diffN, statuses)
	for _, s := range []int{200, 204, 304, 400, 404, 405, 429} {
		if statuses[s] == 0 {
			t.Errorf("the generator never reached status %d: %v", s, statuses)
		}
	}
}

// TestWasmMalformedABI feeds the module request buffers that do not follow the ABI:
// it must answer (a 404 for its placeholder request), never trap.
func TestWasmMalformedABI(t *testing.T) {
	a := newWasmApp(t, wranglerVars(t), fixedNow)
	ctx := t.Context()
	g := rand.New(rand.NewPCG(1, 2))
	valid := abi.EncodeRequest(nil, &abi.Request{Method: "GET", Target: "/api/agent/depots"})
	for i := 0; i < 300; i++ {
		var buf []byte
		switch i % 3 {
		case 0:
			buf = make([]byte, g.IntN(64))
			for j := range buf {
				buf[j] = byte(g.IntN(256))
			}
		case 1:
			buf = append([]byte(nil), valid[:g.IntN(len(valid))]...)
		default:
			buf = append([]byte(nil), valid...)
			buf[g.IntN(len(buf))] = byte(g.IntN(256))
		}
		n := a.write(t, buf)
		if i%10 == 0 {
			n += uint32(g.IntN(1 << 20)) // a length past the buffer
		}
		res, err := a.handle.Call(ctx, uint64(n), 0)
		if err != nil {
			t.Fatalf("buffer %x (n %d): the module trapped: %v", buf, n, err)
		}
		out, err := a.read(uint32(res[0]))
		if err != nil {
			t.Fatalf("buffer %x: %v", buf, err)
		}
		d, err := abi.DecodeResponse(out)
		if err != nil || d.Status >= 500 {
			t.Fatalf("buffer %x: %d %v", buf, d.Status, err)
		}
	}
}

// TestNoTrapRouteShipped: the shipped module (no trapdemo tag) has no trap route;
// {base}/__trap is an ordinary unknown path.
func TestNoTrapRouteShipped(t *testing.T) {
	a := newWasmApp(t, wranglerVars(t), fixedNow)
	for _, target := range []string{"/api/agent/__trap", "/api/agent/__trap?x=1", "/__trap"} {
		req := abi.Request{Method: "GET", Target: target}
		d, err := abi.DecodeResponse(a.do(t, &req))
		if err != nil || d.Status != 404 {
			t.Fatalf("GET %s on the shipped module: %d %v, want 404", target, d.Status, err)
		}
	}
}

// TestWasmMemoryRenewal: the module never frees (TinyGo's leaking allocator), so the
// glue replaces an instance whose memory reached its bound (worker/glue/instance.mjs: renew,
// RENEW_MIB) with a fresh one that takes the rate limiter's state. Here, the same policy
// over 62,000 random requests (most of them errors, which allocate): the memory never
// goes past the bound, each fresh instance takes the old one's state and starts small,
// and renewals stay rare (the error answers allocate ~1-2 KB each; the 200s of the GET
// routes nothing: make allocs). The clock moves a second every 10 requests, so
// rate-limit windows end as they do live.
func TestWasmMemoryRenewal(t *testing.T) {
	m := regexp.MustCompile(`const RENEW_MIB = (\d+);`).FindSubmatch(glueSource(t))
	if m == nil {
		t.Fatal("worker/glue: no RENEW_MIB")
	}
	mib, _ := strconv.Atoi(string(m[1]))
	renewAt := uint32(mib) << 20
	vars := wranglerVars(t)
	rt, compiled := compiledModule(t)
	ctx := t.Context()
	var clock atomic.Int64
	clock.Store(fixedNow / 1000)
	start := func() *wasmApp {
		cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").
			WithRandSource(constReader{}).
			WithWalltime(func() (int64, int32) { return clock.Load(), 0 }, 1)
		mod, err := rt.InstantiateModule(ctx, compiled, cfg)
		if err != nil {
			t.Fatal(err)
		}
		a := &wasmApp{mod: mod, alloc: mod.ExportedFunction("alloc"), configure: mod.ExportedFunction("configure"),
			handle: mod.ExportedFunction("handle"), stderr: &bytes.Buffer{}}
		if _, err := a.configure.Call(ctx, uint64(a.write(t, abi.EncodeRequest(nil, &abi.Request{Headers: vars})))); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := start()
	defer func() { a.mod.Close(ctx) }()
	g := reqGen{rand.New(rand.NewPCG(3, 2026))}
	statuses := map[int]int{}
	renewals, maxMem, maxFresh, stateBytes := 0, uint32(0), uint32(0), 0
	const n = 62000
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			clock.Add(1)
		}
		req := g.next(`"-"`)
		d, err := abi.DecodeResponse(a.do(t, &req))
		if err != nil {
			t.Fatal(err)
		}
		statuses[d.Status]++
		size := a.mod.Memory().Size()
		maxMem = max(maxMem, size)
		if size < renewAt {
			continue
		}
		// renew, as the glue does: the old instance's state into a fresh one
		p := a.call0(t, "state_save")
		mem := a.mod.Memory()
		l, _ := mem.ReadUint32Le(p)
		state, ok := mem.Read(p+4, l)
		tp, _ := mem.ReadUint32Le(p + 4 + l)
		tl, _ := mem.ReadUint32Le(p + 8 + l)
		table, ok2 := mem.Read(tp, tl)
		if !ok || !ok2 || tl == 0 {
			t.Fatal("state_save: out of range")
		}
		state, table = bytes.Clone(state), bytes.Clone(table)
		a.mod.Close(ctx)
		a = start()
		q := a.call0(t, "state_table")
		ntp, _ := a.mod.Memory().ReadUint32Le(q)
		if ntl, _ := a.mod.Memory().ReadUint32Le(q + 4); ntl != tl || !a.mod.Memory().Write(ntp, table) {
			t.Fatalf("state_table: %d bytes at %d, the old table %d", ntl, ntp, tl)
		}
		res, err := a.mod.ExportedFunction("state_load").Call(ctx, uint64(a.write(t, state)))
		if err != nil || res[0] != 0 {
			t.Fatalf("state_load of %d bytes: %v %v", len(state), res, err)
		}
		renewals++
		stateBytes = max(stateBytes, len(state))
		maxFresh = max(maxFresh, a.mod.Memory().Size())
	}
	t.Logf("%d requests (statuses %v): %d renewals at %d MiB, the largest state %d bytes, a fresh instance at most %d KiB, memory at most %d KiB",
		n, statuses, renewals, mib, stateBytes, maxFresh/1024, maxMem/1024)
	if maxMem > renewAt {
		t.Errorf("memory reached %d bytes, past the bound of %d", maxMem, renewAt)
	}
	if maxFresh > renewAt/4 {
		t.Errorf("a fresh instance with the state taken over used %d bytes of memory", maxFresh)
	}
	// At most 4 KB a request on average: renewals at >= renewAt/2 allocated each.
	if limit := n * 4096 / int(renewAt/2); renewals > limit {
		t.Errorf("%d renewals in %d requests: more than 4 KB allocated a request", renewals, n)
	}
	if renewals == 0 {
		t.Errorf("no renewal in %d requests: the test no longer exercises it", n)
	}
}

// TestWasmFirstRequestFits: the module's initial memory holds its data, its zeroed
// globals and a heap reserve (Makefile, HEAP_RESERVE) that every request of
// testdata/http/cases.json fits in as the first request of a fresh instance, so an
// isolate's first answer does not wait on a memory.grow.
func TestWasmFirstRequestFits(t *testing.T) {
	vars := wranglerVars(t)
	for _, c := range loadCases(t) {
		a := newWasmApp(t, vars, fixedNow)
		initial := a.mod.Memory().Size()
		req := c.request("203.0.113.7")
		a.do(t, &req)
		if size := a.mod.Memory().Size(); size != initial {
			t.Errorf("%s as a fresh instance's first request: memory grew from %d to %d bytes", c.Name, initial, size)
		}
		a.mod.Close(t.Context())
	}
}

// FuzzWasmMatchesNative is the differential test as a fuzz target: any method, target
// and the two headers core reads, answered by a fresh wasm instance and a fresh native
// server, must be the same bytes (a trap fails it). make fuzz runs it after core's.
func FuzzWasmMatchesNative(f *testing.F) {
	needModule(f)
	f.Add("GET", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33", "203.0.113.7", "")
	f.Add("GET", "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20", "", "")
	f.Add("HEAD", "/api/agent/vehicles/5/accessories?pick_up_date=2026-12-08&drop_off_date=2026-12-19", "::1", "*")
	f.Add("OPTIONS", "/api/agent/depots", "", "")
	f.Add("P\x00ST", "/api/agent/%zz?\xff=\x00", "\xff", `W/"x"`)
	vars := wranglerVars(f)
	f.Fuzz(func(t *testing.T, method, target, ip, inm string) {
		req := abi.Request{Method: method, Target: target}
		for _, name := range api.RequestHeaders {
			v := ""
			switch name {
			case "cf-connecting-ip":
				v = ip
			case "if-none-match":
				v = inm
			}
			req.Headers = append(req.Headers, abi.Header{Name: name, Value: v})
		}
		want := nativeDo(nativeServer(t, vars, func() int64 { return fixedNow }, constRand), &req)
		got := newWasmApp(t, vars, fixedNow).do(t, &req)
		if !bytes.Equal(got, want) {
			dg, _ := abi.DecodeResponse(got)
			dw, _ := abi.DecodeResponse(want)
			t.Fatalf("%q %q: wasm differs from native:\n--- wasm\n%s\n--- native\n%s", method, target, render(dg), render(dw))
		}
	})
}
