//go:build !wasip1 && !js

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/api"
)

// TestShellListsMatchCore holds every shell's var and request-header lists to core's
// (api.Vars, api.RequestHeaders): the JS glue's VARS and HEADERS must be the same
// lists; the Go shells must use core's lists rather than a copy; wrangler.toml's
// [vars] must be core's vars (plus REQUEST_LOG, INVENTORY_REFRESH_SECONDS and the
// scheduled pull's FEED_* vars, which only the glue reads).
func TestShellListsMatchCore(t *testing.T) {
	glue := glueSource(t)
	for _, c := range []struct {
		name string
		want []string
	}{{"VARS", api.Vars}, {"HEADERS", api.RequestHeaders}} {
		m := regexp.MustCompile(`(?s)const ` + c.name + ` = \[(.*?)\];`).FindSubmatch(glue)
		if m == nil {
			t.Fatalf("worker/glue: no const %s = [...]", c.name)
		}
		got := regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(string(m[1]), -1)
		var names []string
		for _, g := range got {
			names = append(names, g[1])
		}
		if strings.Join(names, ",") != strings.Join(c.want, ",") {
			t.Errorf("worker/glue %s = %v, core has %v", c.name, names, c.want)
		}
	}
	for file, uses := range map[string]string{"main_js.go": "range api.Vars", "httpshell.go": "range api.RequestHeaders"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), uses) {
			t.Errorf("%s does not take its list from core (%q)", file, uses)
		}
	}
	for _, toml := range []string{"../wrangler.toml", "../wrangler.go.toml"} {
		src, err := os.ReadFile(toml)
		if err != nil {
			t.Fatal(err)
		}
		sec := string(src)
		i := strings.Index(sec, "[vars]")
		if i < 0 {
			t.Fatalf("%s: no [vars]", toml)
		}
		sec = sec[i+len("[vars]"):]
		if j := strings.Index(sec, "\n["); j >= 0 {
			sec = sec[:j]
		}
		known := map[string]bool{"REQUEST_LOG": true, "INVENTORY_REFRESH_SECONDS": true, "FEED_URL": true,
			"FEED_MAX_AGE_SECONDS": true, "FEED_TIMEOUT_SECONDS": true, "FEED_MAX_BYTES": true}
		for _, v := range api.Vars {
			known[v] = true
		}
		for _, m := range regexp.MustCompile(`(?m)^([A-Z_]+)\s*=`).FindAllStringSubmatch(sec, -1) {
			if !known[m[1]] {
				t.Errorf("%s sets var %s, which no shell passes to core", toml, m[1])
			}
		}
	}
}

// glueSource returns the JS glue's source: worker/glue.mjs and its modules in worker/glue.
func glueSource(t *testing.T) []byte {
	t.Helper()
	files, err := filepath.Glob("glue/*.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("worker/glue/*.mjs: %v", err)
	}
	var src []byte
	for _, f := range append([]string{"glue.mjs"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(append(src, b...), '\n')
	}
	return src
}
