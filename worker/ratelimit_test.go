//go:build !wasip1 && !js

package main

// The rate limiter's KV exports (kv_pending, kv_done) of build/app.wasm under wazero,
// against the native api.Server fed the same requests and the same KV outcomes.

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// kvPending calls the kv_pending export and returns its buffer.
func (a *wasmApp) kvPending(t *testing.T) []byte {
	t.Helper()
	p := a.call0(t, "kv_pending")
	mem := a.mod.Memory()
	total, ok := mem.ReadUint32Le(p)
	if !ok {
		t.Fatal("kv_pending pointer out of range")
	}
	out, ok := mem.Read(p, total)
	if !ok {
		t.Fatal("kv_pending buffer out of range")
	}
	return append([]byte(nil), out...)
}

// kvDone writes b through alloc, calls the kv_done export and returns its result (the
// ms until the next KV operation falls due).
func (a *wasmApp) kvDone(t *testing.T, b []byte) int64 {
	t.Helper()
	f := a.mod.ExportedFunction("kv_done")
	if f == nil {
		t.Fatal("the module does not export kv_done")
	}
	res, err := f.Call(context.Background(), uint64(a.write(t, b)))
	if err != nil {
		t.Fatalf("kv_done: %v (stderr: %s)", err, a.stderr)
	}
	return int64(uint32(res[0]))
}

func kvRecords(recs ...[]string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(recs)))
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
		for _, f := range r {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return b
}

func TestWasmRateLimitKVExports(t *testing.T) {
	vars := wranglerVars(t)
	s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	a := newWasmApp(t, vars, fixedNow)
	req := abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "2001:db8::7"}}}
	var d abi.DecodedResponse
	for i := 1; i <= 10; i++ {
		want, got := nativeDo(s, &req), a.do(t, &req)
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d: wasm differs from native", i)
		}
		d, _ = abi.DecodeResponse(got)
		if kv := d.Header(":kv"); (kv != "") != (i == 10) {
			t.Fatalf("request %d: :kv = %q, want it only at the share threshold (10)", i, kv)
		}
	}
	if h := d.Header("x-ratelimit-remaining"); h != "90" {
		t.Fatalf("remaining %q after 10 requests", h)
	}
	wantOps := s.KVPending(nil)
	gotOps := a.kvPending(t)
	if !bytes.Equal(gotOps, wantOps) {
		t.Fatalf("kv_pending differs from native:\n wasm   %q\n native %q", gotOps, wantOps)
	}
	// First one get of the 8 slot keys (the instance's slot is chosen from it).
	for _, want := range []string{"get", "rl:1795305600:0:2001:db8::/64", "rl:1795305600:7:2001:db8::/64"} {
		if !bytes.Contains(gotOps, []byte(want)) {
			t.Errorf("kv_pending lacks %q: %q", want, gotOps)
		}
	}
	if binary.LittleEndian.Uint32(gotOps[8:]) != 1 {
		t.Errorf("kv_pending lists %d ops, want 1", binary.LittleEndian.Uint32(gotOps[8:]))
	}
	// Another isolate counted 85 for this client: 100 - 11 - 85 = 4 remain.
	done := kvRecords([]string{"get", "rl:1795305600:3:2001:db8::/64", "1", "00000000000000ab:85"},
		[]string{"get", "rl:1795305600:4:2001:db8::/64", "1", ""},
		[]string{"put", "rl:1795305600:2:2001:db8::/64", "1"})
	if want, got := s.KVDone(done), a.kvDone(t, done); got != want {
		t.Errorf("kv_done returned %d, native %d", got, want)
	}
	a.kvDone(t, []byte{7, 0, 0, 0, 255, 255}) // malformed: ignored, no trap
	// Then the put of this instance's 10, in a slot no other instance holds.
	wantOps, gotOps = s.KVPending(nil), a.kvPending(t)
	if !bytes.Equal(gotOps, wantOps) {
		t.Fatalf("second kv_pending differs from native:\n wasm   %q\n native %q", gotOps, wantOps)
	}
	for _, want := range []string{"put", ":10", "120"} {
		if !bytes.Contains(gotOps, []byte(want)) || bytes.Contains(gotOps, []byte(":3:2001")) {
			t.Errorf("second kv_pending: want a put of 10 outside slot 3: %q", gotOps)
		}
	}
	want, got := nativeDo(s, &req), a.do(t, &req)
	if !bytes.Equal(got, want) {
		t.Fatal("after kv_done: wasm differs from native")
	}
	d, _ = abi.DecodeResponse(got)
	if h := d.Header("x-ratelimit-remaining"); h != "4" {
		t.Errorf("remaining %q after merging 85 from another isolate, want 4", h)
	}
	for i := 0; i < 4; i++ {
		a.do(t, &req)
	}
	d, _ = abi.DecodeResponse(a.do(t, &req))
	if d.Status != 429 || !strings.Contains(string(d.Body), "Retry in 60 seconds") {
		t.Errorf("the 16th request: %d %s, want 429", d.Status, d.Body)
	}
}
