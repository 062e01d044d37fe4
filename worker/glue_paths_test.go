//go:build !wasip1 && !js

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGlueValidatorFree runs the shipped glue's validatorFree under node with the
// module's paths: the targets under the quotes' paths read no If-None-Match, every
// other target does (an answer with an ETag must see it), and before an isolate's
// first instance every target does.
func TestGlueValidatorFree(t *testing.T) {
	cases := []struct {
		url  string
		want bool
	}{
		{"https://api.example/api/agent/quotes?pick_up_depot_id=2&vehicle_id=5", true},
		{"http://127.0.0.1:8787/api/agent/quotes", true},
		{"http://127.0.0.1:8787/api/agent/quotes?", true},
		{"https://api.example/api/agent/quotes/AQECA5WjAQsFIQ", true},
		{"https://api.example/api/agent/quotes/AQEC/x", true},
		{"https://api.example/api/agent/quotesx", false},
		{"https://api.example/api/agent/quotez", false},
		{"https://api.example/api/agent/xuotes", false},
		{"https://api.example/api/agentXquotes?x=1", false},
		{"https://api.example/API/agent/quotes", false},
		{"https://api.example/api/agent/quote", false},
		{"https://api.example/api/agent/quotes%3Fx", false},
		{"https://api.example/api/agent/depots", false},
		{"https://api.example/api/agent/vehicles/availability?pick_up_depot_id=1", false},
		{"https://api.example/api/agent/", false},
		{"https://api.example/api/agent", false},
		{"https://api.example/x/api/agent/quotes", false},
		{"https://api.example/", false},
		{"https://quotes.example/api/agent/depots?q=/api/agent/quotes", false},
	}
	needModule(t)
	args := []string{"glue_paths.mjs", *wasmPath}
	for _, c := range cases {
		args = append(args, c.url)
	}
	bin := "node"
	if p, _ := filepath.Abs("../node_modules/.bin/node"); fileExists(p) {
		bin = p
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("node glue_paths.mjs: %v", err)
	}
	var got struct{ Before, After []bool }
	if err := json.Unmarshal(out, &got); err != nil || len(got.After) != len(cases) || len(got.Before) != len(cases) {
		t.Fatalf("node glue_paths.mjs: %q (%v)", out, err)
	}
	for i, c := range cases {
		if got.Before[i] {
			t.Errorf("%s: validator-free before any instance (the paths are the module's)", c.url)
		}
		if got.After[i] != c.want {
			t.Errorf("%s: validatorFree %v, want %v", c.url, got.After[i], c.want)
		}
	}
}
