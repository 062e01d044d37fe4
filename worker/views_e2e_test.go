//go:build !wasip1 && !js

package main

// The MCP Apps views and the MCP conformance suite against the Worker under wrangler
// dev: resources/read gives each view's document byte for byte as the static site has
// it (build/out/site/views/NAME.html); worker/views_browser.mjs shows each view in
// headless Chromium through AppBridge (screenshots into build/out); and the scenarios
// of @modelcontextprotocol/conformance (pinned) that apply to a server with tools and
// resources pass. With -e2e.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/views"
)

// conformanceScenarios are the suite's server scenarios that apply here. The others
// test what this server does not offer (logging, completions, prompts, subscriptions,
// SSE streams, sampling and elicitation) or call the suite's own test tools and
// resources (test_simple_text, test://static-text, ...).
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"}

func TestE2EViews(t *testing.T) {
	needE2E(t)
	root, _ := filepath.Abs("..")
	node := filepath.Join(root, "node_modules/.bin/node")
	d := startDev(t, strings.Split(*e2eConfig, ",")[0])
	mcpURL := d.base + "/api/agent/mcp"

	t.Run("served-equals-site", func(t *testing.T) {
		for _, v := range views.All {
			body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + v.URI + `"}}`
			resp, err := http.Post(mcpURL, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Result struct {
					Contents []struct{ URI, MimeType, Text string }
				}
			}
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err != nil || len(r.Result.Contents) != 1 {
				t.Fatalf("resources/read %s: %v", v.URI, err)
			}
			site, err := os.ReadFile(filepath.Join(root, "build/out/site/views", v.Name+".html"))
			if err != nil {
				t.Fatalf("the static site has no view %s (make build writes it): %v", v.Name, err)
			}
			if c := r.Result.Contents[0]; c.MimeType != "text/html;profile=mcp-app" || !bytes.Equal([]byte(c.Text), site) {
				t.Errorf("resources/read %s: %s, %d bytes; the site's views/%s.html has %d", v.URI, c.MimeType, len(c.Text), v.Name, len(site))
			}
		}
	})

	t.Run("browser", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
		defer cancel()
		t0 := time.Now()
		cmd := exec.CommandContext(ctx, node, filepath.Join(root, "worker/views_browser.mjs"), d.base+"/api/agent", filepath.Join(root, "build/out"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		t.Logf("views_browser.mjs (%.1f s):\n%s", time.Since(t0).Seconds(), out)
		if err != nil || !strings.Contains(string(out), "PASS all checks") || strings.Contains(string(out), "FAIL") {
			t.Fatalf("the views' browser checks failed: %v", err)
		}
	})

	t.Run("conformance", func(t *testing.T) {
		for _, s := range conformanceScenarios {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			cmd := exec.CommandContext(ctx, node, filepath.Join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
				"server", "--url", mcpURL, "--scenario", s, "-o", t.TempDir())
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			cancel()
			passed := false
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, "Passed: ") && strings.Contains(l, ", 0 failed") {
					f := strings.Fields(strings.TrimPrefix(l, "Passed: "))
					n := strings.Split(strings.TrimSuffix(f[0], ","), "/")
					passed = len(n) == 2 && n[0] == n[1] && n[0] != "0"
				}
			}
			if err != nil || !passed {
				t.Errorf("conformance %s: %v\n%s", s, err, out)
			} else {
				t.Logf("conformance %s: %s", s, lastLine(out))
			}
		}
	})
}
