//go:build !wasip1 && !js

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tierWrapper is the main module of TestE2ETierSettle: the shipped glue behind a fetch
// that V8 never optimizes (so it cannot inline the glue's fetch and leave the glue's own
// function cold), and a /__tier path answering V8's optimization status bits of the
// glue's fetch (--allow-natives-syntax; the bits of V8's src/runtime/runtime.h).
const tierWrapper = `import glue from "./worker.mjs";
function fetch(request, env, ctx) {
  if (request.url.endsWith("/__tier")) return new Response(String(%GetOptimizationStatus(glue.fetch)));
  return glue.fetch(request, env, ctx);
}
%NeverOptimizeFunction(fetch);
export default { fetch };
`

// V8's OptimizationStatus bits (src/runtime/runtime.h of the V8 workerd ships).
const (
	v8TurboFanned            = 1 << 5
	v8OptimizingConcurrently = 1 << 9
)

// TestE2ETierSettle checks the glue's tier-up settling (worker/glue.mjs, SETTLE) on the
// real workerd: one client at a time, so that the isolate is unlocked most of the time
// and a background compile almost always finishes there, where V8 drops its request to
// install the code (StackGuard::InitThread clears the interrupts when workerd takes the
// isolate lock). Without the settling the glue's fetch stays "optimizing" and never
// gets TurboFan code (tried with the previous glue: 0x241 at 70,000 requests here, and
// 0x40619 at 40,000 in a scratch run);
// with it, its status carries the TurboFanned bit within the first settles (1,024 ...
// 32,768 requests). Every answer must be a 200.
func TestE2ETierSettle(t *testing.T) {
	if !*e2e {
		t.Skip("needs -e2e (make test)")
	}
	bin, dir := bundleDir(t)
	if err := os.WriteFile(filepath.Join(dir, "tier.mjs"), []byte(tierWrapper), 0o644); err != nil {
		t.Fatal(err)
	}
	bindings := varBindings(t, nil)
	port := freePort(t)
	config := `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .w)],
  sockets = [(name = "http", address = "127.0.0.1:` + strconv.Itoa(port) + `", http = (), service = "main")],
  v8Flags = ["--allow-natives-syntax"],
);
const w :Workerd.Worker = (
  modules = [(name = "tier.mjs", esModule = embed "tier.mjs"), (name = "worker.mjs", esModule = embed "worker.mjs"), (name = "app.wasm", wasm = embed "app.wasm")],
  compatibilityDate = "2026-11-01",
  bindings = [` + strings.Join(bindings, ", ") + `],
);
`
	d := runWorkerd(t, bin, dir, config, port)
	waitListening(t, d, port)
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path, ip string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", d.base+path, nil)
		if ip != "" {
			req.Header.Set("CF-Connecting-IP", ip)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	const most = 70000 // past the settle at 65,536
	status := 0
	for n := 1; n <= most; n++ {
		if code, body := get("/api/agent/depots", fmt.Sprintf("2001:db8:%x:%x::1", n>>16, n&0xffff)); code != 200 {
			t.Fatalf("request %d: status %d: %s", n, code, body)
		}
		if n%2000 != 0 {
			continue
		}
		_, body := get("/__tier", "")
		s, err := strconv.Atoi(body)
		if err != nil {
			t.Fatalf("/__tier: %q", body)
		}
		status = s
		if s&v8TurboFanned != 0 {
			t.Logf("the glue's fetch has TurboFan code after %d requests (status %#x)", n, s)
			return
		}
	}
	t.Fatalf("after %d requests one at a time the glue's fetch has no TurboFan code (V8 status %#x, optimizing concurrently: %v): a finished compile was never installed",
		most, status, status&v8OptimizingConcurrently != 0)
}
