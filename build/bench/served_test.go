package main

import "testing"

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
