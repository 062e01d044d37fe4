package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestCompileInstructions: the self cost of the compilers' functions, with callgrind's
// name compression, and without the inclusive cost of their calls.
func TestCompileInstructions(t *testing.T) {
	dump := `events: Ir
fn=(1) v8::internal::compiler::GraphReducer::Reduce(v8::internal::compiler::Node*)
10 100
+2 50
cfn=(2) workerd::api::Headers::get
calls=3 0
5 7000
fn=(2)
3 40
fn=(3) v8::internal::maglev::MaglevGraphBuilder::Build()
1 5
fn=(1)
4 1
fn=(4) 0x00001253e9b5b558
1 900
summary: 8096
`
	if got := compileInstructions([]byte(dump)); got != 156 {
		t.Fatalf("compileInstructions = %v, want 156 (100 + 50 + 5 + 1: not the call's 7,000, not Headers::get's 40, not the JIT code's 900)", got)
	}
}

// TestJitReport: callgrind's self costs of code without symbols go to the perf map's
// name that covers their address (the tier suffix dropped), builtins keep theirs,
// native functions are left out, and code outside the map is TurboFan's wasm.
func TestJitReport(t *testing.T) {
	pid := fmt.Sprintf("jitreport-test-%d", os.Getpid())
	mapFile := "/tmp/perf-" + pid + ".map"
	if err := os.WriteFile(mapFile, []byte("1000 100 JS:*'b worker.js:2:1415\n2000 10 JS:wasm-function[7]-7-liftoff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(mapFile)
	dump := "events: Ir\nfn=(1) 0x0000000000001010\n5 300\n+1 100\ncalls=2 0x10\n7 5000\nfn=(2) 0x00000000000010ff\n1 200\n" +
		"fn=(3) Builtins_StringEqual\n1 40\nfn=(4) v8::internal::Heap::Scavenge()\n1 9000\nfn=(5) 0x0000000000002004\n1 60\nfn=(6) 0x0000000000009000\n1 80\nfn=(1)\n2 100\n"
	lines, err := jitReport([]byte(dump), pid, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"440 JIT code and builtins in all", "350 JS:*'b worker.js:2:1415", "40 wasm (TurboFan, unnamed)", "30 JS:wasm-function[7]", "20 Builtins_StringEqual"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("jitReport:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
