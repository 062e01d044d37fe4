//go:build !wasip1 && !js

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentGlue runs agent_test.mjs (the glue's Web Bot Auth verification: the RFC 9421
// and drafts' Ed25519 vectors, requests signed by the web-bot-auth package, every
// refusal reason, the bad-input table) under the project's Node and reports each case.
func TestAgentGlue(t *testing.T) {
	node, _ := filepath.Abs("../node_modules/.bin/node")
	needPath(t, node, "the project's node")
	needPath(t, "../node_modules/web-bot-auth/package.json", "the npm package web-bot-auth")
	out, err := exec.Command(node, "agent_test.mjs").CombinedOutput()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var c struct {
			Name, Got, Want string
			OK              bool
		}
		if json.Unmarshal([]byte(line), &c) != nil {
			t.Errorf("agent_test.mjs: %s", line)
			continue
		}
		n++
		if !c.OK {
			t.Errorf("%s: got %q, want %q", c.Name, c.Got, c.Want)
		}
	}
	if err != nil || n < 50 {
		t.Fatalf("agent_test.mjs: %v, %d cases", err, n)
	}
}
