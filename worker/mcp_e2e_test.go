//go:build !wasip1 && !js

package main

// The MCP endpoint under the real workerd, driven by a real MCP client: the official
// TypeScript SDK (@modelcontextprotocol/sdk, pinned in package.json) runs
// worker/mcp_e2e.mjs against wrangler dev. With -e2e.

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestE2EMCPClient(t *testing.T) {
	needE2E(t)
	root, _ := filepath.Abs("..")
	node := filepath.Join(root, "node_modules/.bin/node")
	config := strings.Split(*e2eConfig, ",")[0]
	d := startDev(t, config)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "worker/mcp_e2e.mjs"), d.base+"/api/agent")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	t.Logf("mcp_e2e.mjs against %s:\n%s", config, out)
	if err != nil {
		t.Fatalf("the MCP client failed: %v", err)
	}
	if !strings.Contains(string(out), "PASS all checks") || strings.Contains(string(out), "FAIL") {
		t.Fatal("the MCP client did not pass every check")
	}
}
