package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/api"
)

// generated writes the site of the project's wrangler.toml into a temporary folder.
func generated(t *testing.T) (map[string][]byte, *site) {
	t.Helper()
	needNPM(t, "swagger-ui-dist/package.json")
	out := filepath.Join(t.TempDir(), "site")
	toml := writeTOML(t, out, `["/api/agent", "/api/agent/*"]`)
	files, s, err := generate(toml, out, "../../node_modules")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		m[f.path] = f.body
		if b, err := os.ReadFile(filepath.Join(out, f.path)); err != nil || string(b) != string(f.body) {
			t.Errorf("%s: not written as generated: %v", f.path, err)
		}
	}
	return m, s
}

// writeTOML copies ../../wrangler.toml with [assets] directory set to out and
// run_worker_first to first, and returns its path.
func writeTOML(t *testing.T, out, first string) string {
	t.Helper()
	b, err := os.ReadFile("../../wrangler.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`(?m)^directory = .*$`).ReplaceAllString(string(b), `directory = "`+filepath.ToSlash(out)+`"`)
	s = regexp.MustCompile(`(?m)^run_worker_first = .*$`).ReplaceAllString(s, `run_worker_first = `+first)
	p := filepath.Join(t.TempDir(), "wrangler.toml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSiteMatchesTable: llms.txt, llms-full.txt, the API catalog and the OpenAPI copy
// against the operations table and the served document.
func TestSiteMatchesTable(t *testing.T) {
	files, s := generated(t)
	base := s.base
	if base != "/api/agent" {
		t.Fatalf("wrangler.toml's BASE_PATH is %q", base)
	}
	llms, full := string(files["llms.txt"]), string(files["llms-full.txt"])
	for _, o := range api.SiteOps() {
		if !strings.Contains(full, "GET "+base+o.Path+" (") {
			t.Errorf("llms-full.txt lacks GET %s%s", base, o.Path)
		}
		if o.Tool.Name == "" {
			continue
		}
		for _, want := range []string{"GET " + base + o.Path + ":", "GET " + base + o.Path + " (", "MCP tool " + o.Tool.Name} {
			if !strings.Contains(llms, want) {
				t.Errorf("llms.txt lacks %q", want)
			}
		}
		if !strings.Contains(full, "- "+o.Tool.Name+"(") {
			t.Errorf("llms-full.txt lacks the tool %s", o.Tool.Name)
		}
		names := []string{}
		for _, p := range o.Params {
			names = append(names, p.Name)
		}
		if i := strings.Index(o.Path, "{"); i >= 0 {
			names = append(names, o.Path[i+1:strings.Index(o.Path, "}")])
		}
		section := llms[strings.Index(llms, "- GET "+base+o.Path+" ("):]
		if next := strings.Index(section[1:], "\n- GET "); next >= 0 {
			section = section[:next+1]
		}
		for _, n := range names {
			if !strings.Contains(section, "  - "+n+" (") {
				t.Errorf("llms.txt: GET %s%s does not list its parameter %s", base, o.Path, n)
			}
		}
	}
	for _, want := range []string{"POST " + base + "/mcp", "Rate limit: 100 requests per 60 seconds", "](/docs)", "](/.well-known/openapi)", "](/.well-known/api-catalog)", "](/llms-full.txt)"} {
		if !strings.Contains(llms, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}
	if !strings.HasPrefix(llms, "# Campervan rental agent API\n\n> ") {
		t.Errorf("llms.txt does not start with its title and summary (llmstxt.org): %.80q", llms)
	}
	if n := len([]rune(full)); n >= 50000 || n < len(llms) {
		t.Errorf("llms-full.txt has %d characters (llms.txt %d); want more than llms.txt and under 50,000", n, len(llms))
	}
	t.Logf("llms.txt %d characters, llms-full.txt %d", len([]rune(llms)), len([]rune(full)))

	// The OpenAPI copy is the served document, at both paths.
	cfg := s.cfg
	served := api.OpenAPIDocument(&cfg)
	if string(files[".well-known/openapi"]) != string(served) || string(files["openapi.json"]) != string(served) {
		t.Error("the OpenAPI copies are not the document as served")
	}
	var doc struct{ Paths map[string]any }
	if err := json.Unmarshal(served, &doc); err != nil || len(doc.Paths) != len(api.SiteOps()) {
		t.Errorf("the document has %d paths, the table %d operations: %v", len(doc.Paths), len(api.SiteOps()), err)
	}

	// The API catalog (RFC 9727): the catalog lists the API; the API's links name files
	// of the site or the API itself.
	var cat struct {
		Linkset []map[string]json.RawMessage
	}
	if err := json.Unmarshal(files[".well-known/api-catalog"], &cat); err != nil || len(cat.Linkset) != 2 {
		t.Fatalf("api-catalog: %v, %d contexts", err, len(cat.Linkset))
	}
	type link struct{ Href, Type string }
	links := func(ctx map[string]json.RawMessage, rel string) []link {
		var ls []link
		if err := json.Unmarshal(ctx[rel], &ls); err != nil || len(ls) == 0 {
			t.Errorf("api-catalog: no %s links: %v", rel, err)
		}
		return ls
	}
	var anchor0, anchor1 string
	json.Unmarshal(cat.Linkset[0]["anchor"], &anchor0)
	json.Unmarshal(cat.Linkset[1]["anchor"], &anchor1)
	if anchor0 != "/.well-known/api-catalog" || anchor1 != base+"/" {
		t.Errorf("api-catalog anchors %q and %q", anchor0, anchor1)
	}
	if item := links(cat.Linkset[0], "item"); item[0].Href != base+"/" {
		t.Errorf("api-catalog item %v, want the API %s/", item, base)
	}
	served2 := map[string]string{"/docs": "docs.html", "/.well-known/openapi": ".well-known/openapi", "/llms.txt": "llms.txt", "/llms-full.txt": "llms-full.txt"}
	for _, rel := range []string{"service-desc", "service-doc", "service-meta"} {
		for _, l := range links(cat.Linkset[1], rel) {
			if f, ok := served2[l.Href]; ok && files[f] == nil || !ok && l.Href != base+"/" || l.Type == "" {
				t.Errorf("api-catalog %s %+v: not a file of the site nor the API's index", rel, l)
			}
		}
	}
	if !strings.Contains(string(files["_headers"]), "/.well-known/api-catalog\n  Content-Type: application/linkset+json; profile=\""+catalogProfile+"\"\n") {
		t.Errorf("_headers does not give the catalog its media type:\n%s", files["_headers"])
	}

	// The pages load only files of the site: nothing from another origin.
	ref := regexp.MustCompile(`(?:src|href)="([^"]*)"`)
	for _, page := range []string{"index.html", "docs.html"} {
		for _, m := range ref.FindAllStringSubmatch(string(files[page]), -1) {
			u := m[1]
			switch {
			case u == "data:," || u == cfg.WebURL || u == base+"/":
			case strings.HasPrefix(u, "/"):
				p := strings.TrimPrefix(u, "/")
				if files[p] == nil && files[p+".html"] == nil && files[p+"index.html"] == nil {
					t.Errorf("%s links %s, which the site does not have", page, u)
				}
			default:
				t.Errorf("%s links %s, outside the site", page, u)
			}
		}
	}
}

// TestCheckAssets: the site refuses a wrangler.toml whose [assets] would not serve it,
// or would let a file answer for an API path.
func TestCheckAssets(t *testing.T) {
	needNPM(t, "swagger-ui-dist/package.json")
	out := filepath.Join(t.TempDir(), "site")
	for _, c := range []struct {
		first string
		ok    bool
	}{
		{`["/api/agent", "/api/agent/*"]`, true},
		{`["/api/agent/*", "/api/agent", "/other/*"]`, true},
		{`["/api/agent/*"]`, false},
		{`["/api/agent"]`, false},
		{`["/api/*"]`, false},
		{`true`, false},
		{`[]`, false},
	} {
		toml := writeTOML(t, out, c.first)
		_, _, err := generate(toml, out, "../../node_modules")
		if (err == nil) != c.ok {
			t.Errorf("run_worker_first = %s: error %v, want ok %v", c.first, err, c.ok)
		}
	}
	toml := writeTOML(t, filepath.Join(t.TempDir(), "elsewhere"), `["/api/agent", "/api/agent/*"]`)
	if _, _, err := generate(toml, out, "../../node_modules"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("[assets] directory not the site's folder: %v", err)
	}
}

// TestLintOpenAPI lints the OpenAPI document as the site serves it with Spectral (pinned in
// package.json) and the project's ruleset (.spectral.yaml: Spectral's OpenAPI rules and
// the OWASP API Security ones): no error. An indented copy is linted, so the findings
// name lines.
func TestLintOpenAPI(t *testing.T) {
	needNPM(t, ".bin/spectral")
	bin, _ := filepath.Abs("../../node_modules/.bin")
	files, _ := generated(t)
	var doc any
	if err := json.Unmarshal(files[".well-known/openapi"], &doc); err != nil {
		t.Fatal(err)
	}
	indented, _ := json.MarshalIndent(doc, "", " ")
	p := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(p, indented, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "spectral"), "lint", "--ruleset", "../../.spectral.yaml", "--format", "text", "--fail-severity", "error", p)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	warnings := strings.Count(string(out), " warning ")
	t.Logf("spectral: %d warnings", warnings)
	if err != nil || strings.Contains(string(out), " error ") {
		t.Fatalf("spectral lint: %v\n%s", err, out)
	}
}

// needNPM skips the test when the npm package file (under node_modules) is missing, as
// in a fresh clone before make deps; under make test (CAMPERVAN_REQUIRE_ALL) it fails.
func needNPM(t *testing.T, file string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("../../node_modules", file)); err != nil {
		if os.Getenv("CAMPERVAN_REQUIRE_ALL") != "" {
			t.Fatalf("node_modules/%s is not installed (make deps): %v", file, err)
		}
		t.Skipf("node_modules/%s is not installed: make test installs it and runs this test", file)
	}
}
