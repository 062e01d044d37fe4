//go:build !wasip1 && !js

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The cold start's budgets: what an isolate's start compiles before its first answer,
// in the three kinds of bytes it is made of (BENCHMARKS.md, "The cold start": what a KB
// of each costs). A change that needs more raises a budget here, as a decision measured
// with make bench-cold.
const (
	// budgetCode: the module's code section, which workerd decodes and validates whole
	// when it loads the module.
	budgetCode = 240_000
	// budgetGlue: the glue bundled and minified as wrangler deploys it, which V8 parses
	// whole when the script loads (the functions of the first request compiled with it,
	// the others pre-parsed).
	budgetGlue = 27_500
	// budgetFirstCompile: the bodies of the module's functions that the first request
	// calls (instantiate, configure, a GET /depots), each of which V8 compiles on its
	// first call.
	budgetFirstCompile = 28_500
)

// TestColdStartBudget holds the module's code, the glue and what the first request
// compiles to their budgets.
func TestColdStartBudget(t *testing.T) {
	needModule(t)
	node, _ := filepath.Abs("../node_modules/.bin/node")
	needPath(t, node, "the project's node")
	esbuild, _ := filepath.Abs("../node_modules/.bin/esbuild")
	needPath(t, esbuild, "esbuild (installed with wrangler)")
	needPath(t, "../build/worker.mjs", "the bundled glue (make build)")

	bin, err := os.ReadFile(*wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	code, err := codeSectionSize(bin)
	if err != nil {
		t.Fatal(err)
	}
	glue, err := exec.Command(esbuild, "glue.mjs", "--bundle", "--minify", "--format=esm", "--external:*.wasm", "--log-level=warning").Output()
	if err != nil {
		t.Fatalf("esbuild: %v", err)
	}
	first := firstRequestCompile(t, node)
	t.Logf("code section %d bytes (budget %d), glue minified %d (budget %d), first request compiles %d (budget %d)",
		code, budgetCode, len(glue), budgetGlue, first, budgetFirstCompile)
	if code > budgetCode {
		t.Errorf("the module's code section is %d bytes, over its cold-start budget of %d", code, budgetCode)
	}
	if len(glue) > budgetGlue {
		t.Errorf("the glue, minified, is %d bytes, over its cold-start budget of %d", len(glue), budgetGlue)
	}
	if first > budgetFirstCompile {
		t.Errorf("the first request compiles %d bytes of the module's functions, over its cold-start budget of %d", first, budgetFirstCompile)
	}
}

// firstRequestCompile runs an isolate's first GET /depots through the bundled glue in
// Node with the shipped vars and returns the bytes of the function bodies V8 compiled.
func firstRequestCompile(t *testing.T, node string) int {
	vars := map[string]string{}
	for _, v := range wranglerVars(t) {
		vars[v.Name] = v.Value
	}
	b, _ := json.Marshal(vars)
	varsPath := filepath.Join(t.TempDir(), "vars.json")
	if err := os.WriteFile(varsPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	wasm, _ := filepath.Abs(*wasmPath)
	glue, _ := filepath.Abs("../build/worker.mjs")
	out, err := exec.Command(node, "--trace-wasm-compilation-times", "firstrequest_test.mjs", wasm, glue, varsPath, "/api/agent/depots").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "status 200") {
		t.Fatalf("firstrequest_test.mjs: %v\n%s", err, out)
	}
	sum, n := 0, 0
	for _, m := range regexp.MustCompile(`(?m)^Compiled function .* bodysize (\d+) `).FindAllStringSubmatch(string(out), -1) {
		k, _ := strconv.Atoi(m[1])
		sum += k
		n++
	}
	if n < 10 {
		t.Fatalf("V8 reported %d compiled functions for the first request; is --trace-wasm-compilation-times still printed?\n%s", n, out)
	}
	return sum
}

// codeSectionSize returns the size of the code section (id 10) of the module bin.
func codeSectionSize(bin []byte) (int, error) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return 0, errNotWasm
	}
	for i := 8; i < len(bin); {
		id := bin[i]
		n, w := uleb(bin[i+1:])
		if w == 0 || i+1+w+int(n) > len(bin) {
			return 0, errNotWasm
		}
		if id == 10 {
			return int(n), nil
		}
		i += 1 + w + int(n)
	}
	return 0, errNotWasm
}

var errNotWasm = errors.New("not a wasm module, or a truncated one")

// uleb decodes an unsigned LEB128 number: its value and its width (0: malformed).
func uleb(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

func TestCodeSectionSize(t *testing.T) {
	mod := []byte("\x00asm\x01\x00\x00\x00")
	mod = append(mod, 1, 4, 1, 0x60, 0, 0)           // type: one () -> ()
	mod = append(mod, 10, 0x84, 0x00, 1, 2, 0, 0x0b) // code, its size in a two-byte LEB: one body
	if n, err := codeSectionSize(mod); err != nil || n != 4 {
		t.Errorf("codeSectionSize = %d, %v; want 4", n, err)
	}
	for _, bad := range [][]byte{mod[:len(mod)-1], mod[:8], []byte("\x00asx\x01\x00\x00\x00")} {
		if n, err := codeSectionSize(bad); err == nil {
			t.Errorf("codeSectionSize(% x) = %d, want an error", bad, n)
		}
	}
}
