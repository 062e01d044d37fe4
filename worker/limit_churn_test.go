//go:build !wasip1 && !js

package main

// The rate limiter in build/app.wasm under wazero: a million new subscribers leave the
// module's memory where it was (TestWasmChurnMemoryFlat), and several instances sharing
// a fake KV behave exactly as the native servers do (TestWasmIsolatesSim).

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/limit"
	"github.com/tetratelabs/wazero"
)

var churnN = 1_000_000

// TestWasmChurnMemoryFlat: one instance, one window, every request from a new IPv6 /64
// (a new subscriber). The module's linear memory must not grow at all; a client at the
// limit stays limited and a client at 40 keeps exactly its count.
func TestWasmChurnMemoryFlat(t *testing.T) {
	n := churnN
	if testing.Short() {
		n = 100_000
	}
	a := newWasmApp(t, wranglerVars(t), fixedNow)
	ctx := context.Background()
	get := func(ip string) abi.DecodedResponse {
		req := abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ip}}}
		d, err := abi.DecodeResponse(a.do(t, &req))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i := 0; i < 101; i++ {
		get("203.0.113.99")
	}
	for i := 0; i < 40; i++ {
		get("2001:db8:ffff:1::1")
	}
	// The churn: the request is written once; each round rewrites the 8 hex digits of
	// the address's second and third groups in the module's buffer.
	req := abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "2001:0000:0000:0db8::1"}}}
	in := abi.EncodeRequest(nil, &req)
	at := bytes.Index(in, []byte("0000:0000"))
	res, _ := a.alloc.Call(ctx, uint64(len(in)))
	buf := uint32(res[0])
	mem := a.mod.Memory()
	before := mem.Size()
	var hex [9]byte
	for i := 0; i < n; i++ {
		v := uint32(i + 1)
		for j, k := 0, 0; j < 9; j++ {
			if j == 4 {
				hex[j] = ':'
				continue
			}
			hex[j] = "0123456789abcdef"[v>>(28-4*k)&0xf]
			k++
		}
		if i%4096 == 0 { // the whole request again now and then: alloc may have moved nothing
			mem.Write(buf, in)
		}
		mem.Write(buf+uint32(at), hex[:])
		out, err := a.handle.Call(ctx, uint64(len(in)), 0)
		if err != nil {
			t.Fatalf("request %d: %v (stderr %s)", i, err, a.stderr)
		}
		if st, _ := mem.ReadUint16Le(uint32(out[0]) + 4); st != 200 {
			t.Fatalf("new subscriber %d (%s): status %d", i, hex[:], st)
		}
		if _, err := a.read(uint32(out[0])); err != nil { // the header table stays in step for a.do below
			t.Fatal(err)
		}
	}
	after := mem.Size()
	t.Logf("wasm linear memory %d bytes before and %d bytes after %d new subscribers in one window", before, after, n)
	if after != before {
		t.Errorf("wasm memory grew from %d to %d bytes over %d new subscribers", before, after, n)
	}
	if d := get("203.0.113.99"); d.Status != 429 {
		t.Errorf("the limited client after the churn: %d, want 429", d.Status)
	}
	if d := get("2001:db8:ffff:1:abcd::"); d.Status != 200 || d.Header("x-ratelimit-remaining") != "59" {
		t.Errorf("the client at 40 after the churn: %d remaining %s, want 200 and 59", d.Status, d.Header("x-ratelimit-remaining"))
	}
}

// simIsolate is one isolate of TestWasmIsolatesSim: the native server or a wasm instance.
type simIsolate interface {
	get(t *testing.T, ip string, nowMs int64) (allowed, kv bool)
	pending(t *testing.T, nowMs int64) []byte
	done(t *testing.T, b []byte, nowMs int64) int64
}

type nativeIso struct {
	s     *api.Server
	clock *int64
}

func (n nativeIso) get(t *testing.T, ip string, nowMs int64) (bool, bool) {
	*n.clock = nowMs
	req := abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ip}}}
	d, _ := abi.DecodeResponse(nativeDo(n.s, &req))
	return d.Status == 200, d.Header(":kv") != ""
}
func (n nativeIso) pending(t *testing.T, nowMs int64) []byte {
	*n.clock = nowMs
	return n.s.KVPending(nil)
}
func (n nativeIso) done(t *testing.T, b []byte, nowMs int64) int64 {
	*n.clock = nowMs
	return n.s.KVDone(b)
}

type wasmIso struct {
	a     *wasmApp
	clock *int64
}

func (w wasmIso) get(t *testing.T, ip string, nowMs int64) (bool, bool) {
	*w.clock = nowMs
	req := abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ip}}}
	d, _ := abi.DecodeResponse(w.a.do(t, &req))
	return d.Status == 200, d.Header(":kv") != ""
}
func (w wasmIso) pending(t *testing.T, nowMs int64) []byte {
	*w.clock = nowMs
	return w.a.kvPending(t)
}
func (w wasmIso) done(t *testing.T, b []byte, nowMs int64) int64 {
	*w.clock = nowMs
	return w.a.kvDone(t, b)
}

// tagReader fills every byte with its value.
type tagReader byte

func (r tagReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(r)
	}
	return len(b), nil
}

// newWasmIso instantiates the module with its own clock and random stream.
func newWasmIso(t *testing.T, vars []abi.Header, clock *int64, random io.Reader) wasmIso {
	rt, compiled := compiledModule(t)
	ctx := context.Background()
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").
		WithStderr(io.Discard).WithRandSource(random).
		WithWalltime(func() (int64, int32) { return *clock / 1000, int32(*clock%1000) * 1e6 }, 1)
	mod, err := rt.InstantiateModule(ctx, compiled, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Close(ctx) })
	a := &wasmApp{mod: mod, alloc: mod.ExportedFunction("alloc"), configure: mod.ExportedFunction("configure"),
		handle: mod.ExportedFunction("handle"), stderr: &bytes.Buffer{}}
	if _, err := a.configure.Call(ctx, uint64(a.write(t, abi.EncodeRequest(nil, &abi.Request{Headers: vars})))); err != nil {
		t.Fatal(err)
	}
	return wasmIso{a, clock}
}

// simKV runs KVPending ops on a map, as the glue and KV would.
func simKV(data map[string]string, b []byte, puts, gets *int) (wait int64, recs []byte) {
	wait = int64(binary.LittleEndian.Uint32(b[4:]))
	n := binary.LittleEndian.Uint32(b[8:])
	off, ok := 12, true
	var out [][]string
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		if ok = len(b)-off >= 4; ok {
			nf, off = binary.LittleEndian.Uint32(b[off:]), off+4
		}
		op := make([]string, nf)
		for j := range op {
			var f []byte
			f, off, ok = abi.ReadField(b, off)
			op[j] = string(f)
		}
		switch op[0] {
		case "put":
			*puts++
			data[op[1]] = op[2]
			out = append(out, []string{"put", op[1], "1"})
		case "get":
			*gets++
			for _, k := range op[1:] {
				out = append(out, []string{"get", k, "1", data[k]})
			}
		}
	}
	if len(out) == 0 {
		return wait, nil
	}
	return wait, kvRecords(out...)
}

// runIsolates sends n requests of one client round-robin to the isolates over spanMs
// from the start of a window, KV operations completing latencyMs after they start, and
// returns the requests allowed, a trace of every KV exchange, and the busiest
// isolate's writes.
func runIsolates(t *testing.T, isos []simIsolate, n int, spanMs, latencyMs int64) (allowed int, trace string, maxPuts int) {
	type flight struct {
		at   int64
		recs []byte
	}
	data := map[string]string{}
	k := len(isos)
	timers, flights := make([]int64, k), make([][]flight, k)
	puts, gets := make([]int, k), make([]int, k)
	var tr strings.Builder
	for i := range timers {
		timers[i] = -1
	}
	setTimer := func(i int, at int64) {
		if timers[i] < 0 || at < timers[i] {
			timers[i] = at
		}
	}
	sync := func(i int, now int64) {
		b := isos[i].pending(t, now)
		wait, recs := simKV(data, b, &puts[i], &gets[i])
		fmt.Fprintf(&tr, "%d@%d pending %x\n", i, now, b)
		if recs != nil {
			flights[i] = append(flights[i], flight{now + latencyMs, recs})
		}
		if wait > 0 {
			setTimer(i, now+wait)
		}
	}
	start := fixedNow - fixedNow%60_000
	next := 0
	for ms := int64(0); ms < 60_000; ms++ {
		now := start + ms
		for i, iso := range isos {
			for len(flights[i]) > 0 && flights[i][0].at <= now {
				f := flights[i][0]
				flights[i] = flights[i][1:]
				if wait := iso.done(t, f.recs, now); wait > 0 {
					setTimer(i, now+wait)
				}
			}
			if timers[i] >= 0 && now >= timers[i] {
				timers[i] = -1
				sync(i, now)
			}
		}
		for next < n && int64(next)*spanMs/int64(n) <= ms {
			i := next % k
			ok, kv := isos[i].get(t, "198.51.100.7", now)
			if ok {
				allowed++
			}
			if kv {
				sync(i, now)
			}
			next++
		}
	}
	for i := range puts {
		maxPuts = max(maxPuts, puts[i])
	}
	return allowed, tr.String(), maxPuts
}

// TestWasmIsolatesSim: 4 isolates share a consistent KV; one client sends 600 requests
// round-robin over 55 s. Natively (api.Server) and under wazero (4 module instances)
// the same requests are allowed and the same KV operations run, in the same order;
// the allowed count is within limit.Bound.
func TestWasmIsolatesSim(t *testing.T) {
	vars := wranglerVars(t)
	const k, n, span, latency = 4, 600, 55_000, 20
	var natives, wasms []simIsolate
	for i := 0; i < k; i++ {
		// Each isolate's random bytes are one repeated value: the same ids and seeds
		// natively and in wasm however many bytes either draws first; default slots 1..4.
		r := tagReader(0x11 * (i + 1))
		clock := new(int64)
		natives = append(natives, nativeIso{nativeServer(t, vars, func() int64 { return *clock }, func(b []byte) { r.Read(b) }), clock})
		wasms = append(wasms, newWasmIso(t, vars, new(int64), r))
	}
	na, ntrace, nputs := runIsolates(t, natives, n, span, latency)
	wa, wtrace, wputs := runIsolates(t, wasms, n, span, latency)
	rate := float64(n) / span * 1000 / k
	bound := limit.Bound(100, k, rate, latency/1000.0)
	t.Logf("%d isolates, %d requests over %d s, KV latency %d ms: native %d allowed, wasm %d allowed (bound %d); busiest isolate %d writes",
		k, n, span/1000, latency, na, wa, bound, nputs)
	if na != wa || ntrace != wtrace || nputs != wputs {
		t.Errorf("native and wasm differ: allowed %d / %d, writes %d / %d, traces equal %v", na, wa, nputs, wputs, ntrace == wtrace)
	}
	if na < 100 || int64(na) > bound {
		t.Errorf("%d allowed, want 100..%d", na, bound)
	}
	if nputs > 12 {
		t.Errorf("%d writes from one isolate in one window, want at most 12", nputs)
	}
}
