//go:build !wasip1 && !js

package main

// TestE2ETrapRecovery (with -e2e): the glue survives a trap. It builds the test-only
// trapdemo variant of the module (trap_demo.go: any path ending in /__trap panics)
// into a temporary directory with its own copy of the glue and a wrangler config, runs
// it under wrangler dev, and requires: the trap route answers the glue's 500 JSON
// (after its one retry on a fresh instance), the next request succeeds, and normal
// requests sent concurrently around the trap all succeed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildTrapWorker writes app.wasm (tags trapdemo), worker.mjs and wrangler.toml into a
// temporary directory and returns the config's path.
func buildTrapWorker(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs("..")
	dir := t.TempDir()
	tinygo := os.Getenv("TINYGO")
	if tinygo == "" {
		tinygo = "tinygo"
	}
	// TinyGo flags near the shipped ones (Makefile TINYGO_FLAGS; no Binaryen step), plus the tag.
	cmd := exec.Command(tinygo, "build", "-target", "wasip1", "-buildmode", "c-shared", "-scheduler", "none",
		"-opt", "s", "-no-debug", "-ldflags", `-extldflags "--initial-heap=786432"`, "-tags", "trapdemo", "-o", filepath.Join(dir, "app.wasm"), "./worker")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tinygo build -tags trapdemo: %v\n%s", err, out)
	}
	glue, err := os.ReadFile(filepath.Join(root, "build/worker.mjs")) // the bundled glue (make build)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "worker.mjs"), glue, 0o644); err != nil {
		t.Fatal(err)
	}
	// The shipped config with main pointing at the copy: everything from [vars] on is
	// taken as it is, so the trap Worker runs with the same vars and bindings.
	shipped, err := os.ReadFile(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		t.Fatal(err)
	}
	rest := string(shipped)
	if i := strings.Index(rest, "[vars]"); i >= 0 {
		rest = rest[i:]
	} else {
		t.Fatal("wrangler.toml has no [vars]")
	}
	config := "name = \"campervan-agent-api-trapdemo\"\nmain = \"worker.mjs\"\ncompatibility_date = \"2026-11-01\"\n\n" + rest
	path := filepath.Join(dir, "wrangler.toml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// get sends GET target with a client address and returns status, content type, body.
func httpGet(base, target, ip string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("GET", base+target, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("CF-Connecting-IP", ip)
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

func TestE2ETrapRecovery(t *testing.T) {
	needE2E(t)
	d := startDev(t, buildTrapWorker(t))

	check500 := func(status int, h http.Header, body []byte, err error) {
		t.Helper()
		var e struct{ Error string }
		if err != nil || status != 500 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") ||
			h.Get("X-Content-Type-Options") != "nosniff" || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Fatalf("GET /api/agent/__trap = %d %q %s (%v); want the glue's 500 JSON", status, h.Get("Content-Type"), body, err)
		}
	}

	// A trap, then at once a normal request on the next instance.
	check500(httpGet(d.base, "/api/agent/__trap", "198.18.0.1"))
	if status, _, body, err := httpGet(d.base, "/api/agent/depots", "198.18.0.2"); err != nil || status != 200 {
		t.Fatalf("the request after a trap: %d %s (%v)", status, body, err)
	}

	// Normal requests in flight around two traps: none may be lost.
	const clients, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan string, clients*each)
	start := make(chan struct{})
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			<-start
			for i := 0; i < each; i++ {
				target := "/api/agent/depots"
				if i%2 == 1 {
					target = "/api/agent/vehicles/5/accessories"
				}
				status, _, body, err := httpGet(d.base, target, fmt.Sprintf("198.18.1.%d", c))
				if err != nil || status != 200 {
					errs <- fmt.Sprintf("client %d request %d: %d %s (%v)", c, i, status, body, err)
				}
			}
		}(c)
	}
	close(start)
	time.Sleep(20 * time.Millisecond)
	check500(httpGet(d.base, "/api/agent/__trap?again=1", "198.18.0.3"))
	check500(httpGet(d.base, "/api/agent/vehicles/__trap", "198.18.0.4"))
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if status, _, body, err := httpGet(d.base, "/api/agent/", "198.18.0.5"); err != nil || status != 200 {
		t.Fatalf("after the traps: %d %s (%v)", status, body, err)
	}
	log, _ := os.ReadFile(d.log.Name())
	t.Logf("wrangler log has %d \"wasm trap\" lines", strings.Count(string(log), "wasm trap"))
}

// TestModuleStartsLean holds the module to what it leaves out for a fast cold start:
// wasi-libc's arc4random (a ChaCha20 generator whose failure path links printf;
// worker/main_wasip1.go defines the symbol instead, from the host's random_get) and the
// OpenAPI document as text (core/api embeds it compacted and LZ4-packed, openapi.lz4).
// Each byte of the module is copied and validated in every isolate that loads it.
func TestModuleStartsLean(t *testing.T) {
	_, compiled := compiledModule(t)
	bin, err := os.ReadFile(*wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bin, []byte("expand 32-byte k")) {
		t.Error("the module links wasi-libc's ChaCha20 arc4random (its constant is in the data): is main_wasip1.go's arc4random still linked?")
	}
	packed, err := os.ReadFile("../core/api/openapi.lz4")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../core/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	mid := compact.Bytes()[compact.Len()/2:][:256] // as text, the document would hold these bytes
	if !bytes.Contains(bin, packed) || bytes.Contains(bin, mid) {
		t.Error("the module does not embed the OpenAPI document packed (core/api/openapi.lz4), or embeds it as text")
	}
	for name := range compiled.ExportedFunctions() {
		if name == "arc4random" {
			t.Error("the module exports arc4random (it is meant to be a linked symbol, not an export)")
		}
	}
	imports := map[string]bool{}
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		imports[mod+"."+name] = true
	}
	if !imports["wasi_snapshot_preview1.random_get"] {
		t.Error("the module does not import random_get: where do its random bytes come from?")
	}
}
