//go:build !wasip1 && !js

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
)

// identityRequest is a GET of target with an Authorization value and a Web Bot Auth
// outcome (the :agent header the glue writes), the headers in the glue's order.
func identityRequest(target, auth, agent string) abi.Request {
	r := abi.Request{Method: "GET", Target: target}
	for _, name := range api.RequestHeaders {
		v := ""
		switch name {
		case "cf-connecting-ip":
			v = "203.0.113.7"
		case "authorization":
			v = auth
		case api.AgentHeader:
			v = agent
		}
		r.Headers = append(r.Headers, abi.Header{Name: name, Value: v})
	}
	return r
}

func identityVars(t testing.TB) []abi.Header {
	return append(wranglerVars(t), abi.Header{Name: "AGENT_LIMITS", Value: "https://agent.example=3000"},
		abi.Header{Name: "REVOKED_KEYS", Value: "gone"})
}

// TestWasmMatchesNativeIdentity: keyed and signed requests (and the refusals) answer
// the same bytes from the wasm module under wazero and natively, on one instance and
// one server that see the same sequence (the buckets' counts included).
func TestWasmMatchesNativeIdentity(t *testing.T) {
	vars := identityVars(t)
	native := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	wasm := newWasmApp(t, vars, fixedNow)
	key := "Bearer ck_AQH6AQBhY21lOTL8PI4_a1L0xU8Tsa4cng"
	for _, c := range []struct{ auth, agent string }{
		{key, ""}, {key, ""}, {"", "https://agent.example"}, {"", "https://agent.example"}, {"", "https://unlisted.example"},
		{"", "!tampered"}, {"", "!expired"}, {"", "!not_yet_valid"}, {"", "!unknown_keyid"}, {"", "!authority"}, {"", "!malformed"}, {"", "!x"},
		{"Bearer ck_AQH6AYDCr_AFYWNtZfO8kt-93ATJ5rcjbtkKQek", ""}, {"Bearer " + strings.Repeat("A", 100<<10), ""}, {"Basic x", ""},
		{key, "https://agent.example"}, {"", ""},
	} {
		for _, target := range []string{"/api/agent/depots", "/api/agent/vehicles/5/insurance-types", "/api/agent/nowhere"} {
			req := identityRequest(target, c.auth, c.agent)
			want := nativeDo(native, &req)
			got := wasm.do(t, &req)
			if !bytes.Equal(got, want) {
				dg, _ := abi.DecodeResponse(got)
				dw, _ := abi.DecodeResponse(want)
				t.Errorf("%s %.40q %q: wasm differs from native:\n--- wasm\n%s\n--- native\n%s", target, c.auth, c.agent, render(dg), render(dw))
			}
		}
	}
}

// FuzzWasmMatchesNativeIdentity is the same as a fuzz target: any Authorization value
// and Web Bot Auth outcome, a fresh instance and a fresh server, the same bytes.
func FuzzWasmMatchesNativeIdentity(f *testing.F) {
	f.Add("/api/agent/depots", "Bearer ck_AQH6AQBhY21lOTL8PI4_a1L0xU8Tsa4cng", "")
	f.Add("/api/agent/depots", "", "https://agent.example")
	f.Add("/api/agent/quotes", "Bearer ck_\xff", "!tampered")
	vars := identityVars(f)
	f.Fuzz(func(t *testing.T, target, auth, agent string) {
		req := identityRequest(target, auth, agent)
		want := nativeDo(nativeServer(t, vars, func() int64 { return fixedNow }, constRand), &req)
		got := newWasmApp(t, vars, fixedNow).do(t, &req)
		if !bytes.Equal(got, want) {
			dg, _ := abi.DecodeResponse(got)
			dw, _ := abi.DecodeResponse(want)
			t.Fatalf("%q %q %q: wasm differs from native:\n--- wasm\n%s\n--- native\n%s", target, auth, agent, render(dg), render(dw))
		}
	})
}

// TestWasmAllocsIdentity: a keyed request and a verified agent's allocate nothing in
// the TinyGo module once warm, as a plain one does (TestWasmAllocs); `make allocs` runs
// both with a module built with -tags memstats.
func TestWasmAllocsIdentity(t *testing.T) {
	a := newAllocsApp(t, identityVars(t))
	for _, c := range []struct{ name, auth, agent, policy string }{
		{"neither", "", "", `"default"`},
		{"partner key", "Bearer ck_AQGAgICACABiZW5jaCF07OSo7h40h6viLjtklkU", "", `"partner"`}, // make key NAME=bench LIMIT=2147483648
		{"signed agent", "", "https://agent.example", `"agent"`},
	} {
		req := identityRequest("/api/agent/depots", c.auth, c.agent)
		d := a.noAllocs(t, c.name, &req)
		if d.Status != 200 || !strings.HasPrefix(d.Header("ratelimit-policy"), c.policy) {
			t.Errorf("%s: %d %q", c.name, d.Status, d.Header("ratelimit-policy"))
		}
	}
}
