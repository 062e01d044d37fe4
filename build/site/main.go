// Command site writes the static site that Workers Static Assets serves beside the
// API (wrangler.toml's [assets]): the landing page /, the docs page /docs (a quick
// start, how to connect an MCP host, and the API reference that the bundled Swagger
// UI renders from the OpenAPI document), /llms.txt and /llms-full.txt, the RFC 9727
// API catalog /.well-known/api-catalog, and the OpenAPI document at
// /.well-known/openapi and /openapi.json. Everything is made from the operations table
// (api.SiteOps), the OpenAPI document as wrangler.toml's vars serve it and that
// configuration, so it cannot drift from the API; the Swagger UI files come from the
// pinned npm package swagger-ui-dist. `make build` runs it:
//
//	go run ./build/site [-config wrangler.toml] [-out build/out/site] [-npm node_modules]
//
// It fails when wrangler.toml's [assets] would not serve the folder it writes, or
// would let an API path reach the static files instead of the Worker.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/campervan/agent-api/core/api"
)

func main() {
	config := flag.String("config", "wrangler.toml", "the Worker's wrangler configuration")
	out := flag.String("out", "build/out/site", "the folder to write (wrangler.toml's [assets] directory)")
	npm := flag.String("npm", "node_modules", "the installed npm packages (swagger-ui-dist)")
	flag.Parse()
	files, _, err := generate(*config, *out, *npm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build/site:", err)
		os.Exit(1)
	}
	n := 0
	for _, f := range files {
		n += len(f.body)
	}
	fmt.Printf("%s: %d files, %d bytes (llms.txt %d characters, llms-full.txt %d)\n", *out, len(files), n,
		chars(files, "llms.txt"), chars(files, "llms-full.txt"))
}

// file is one file of the site: its path below the site's root, and its bytes.
type file struct {
	path string
	body []byte
}

// site is what the pages are made from.
type site struct {
	cfg  api.Config
	ops  []api.SiteOp
	doc  *document
	raw  []byte // the OpenAPI document as served
	ui   string // the folder of the Swagger UI files below the root
	uiV  string // swagger-ui-dist's version
	base string // the API's base path
}

// generate writes the site of config into out (emptied first) and returns its files
// and what they were made from.
func generate(config, out, npm string) ([]file, *site, error) {
	toml, err := readTOML(config)
	if err != nil {
		return nil, nil, err
	}
	var vars []api.Var
	for _, k := range toml.keys("vars") {
		vars = append(vars, api.Var{Name: k, Value: toml.str("vars", k)})
	}
	cfg, err := api.ConfigFromVars(vars)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", config, err)
	}
	if err := checkAssets(toml, config, out, cfg.BasePath); err != nil {
		return nil, nil, err
	}
	s := &site{cfg: cfg, ops: api.SiteOps(), base: cfg.BasePath, raw: api.OpenAPIDocument(&cfg)}
	if s.doc, err = parseDocument(s.raw); err != nil {
		return nil, nil, err
	}
	ui, err := swaggerUI(npm)
	if err != nil {
		return nil, nil, err
	}
	s.uiV = ui.version
	s.ui = "assets/swagger-ui-" + ui.version
	files := []file{
		{"index.html", s.landing()},
		{"docs.html", s.docsPage()},
		{"assets/site.css", []byte(siteCSS)},
		{"assets/docs.js", []byte(docsJS)},
		{"llms.txt", []byte(s.llms())},
		{"llms-full.txt", []byte(s.llmsFull())},
		{".well-known/api-catalog", s.catalog()},
		{".well-known/openapi", s.raw},
		{"openapi.json", s.raw},
		{"_headers", []byte(s.headers())},
	}
	vf, err := s.viewFiles()
	if err != nil {
		return nil, nil, err
	}
	files = append(files, vf...)
	for _, f := range ui.files {
		files = append(files, file{s.ui + "/" + f.path, f.body})
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		p := filepath.Join(out, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(p, f.body, 0o644); err != nil {
			return nil, nil, err
		}
	}
	return files, s, nil
}

// checkAssets holds wrangler.toml's [assets] to the site: its directory is out, and
// run_worker_first sends every path under the base path to the Worker, so no static
// file can answer for an API path.
func checkAssets(t *tomlFile, config, out, base string) error {
	dir := strings.TrimSuffix(strings.TrimPrefix(t.str("assets", "directory"), "./"), "/")
	if dir != filepath.ToSlash(filepath.Clean(out)) {
		return fmt.Errorf("%s: [assets] directory is %q; the site is written to %q", config, dir, out)
	}
	want := []string{base, base + "/*"}
	if base == "" {
		want = []string{"/*"}
	}
	first := t.list("assets", "run_worker_first")
	for _, w := range want {
		found := false
		for _, f := range first {
			found = found || f == w
		}
		if !found {
			return fmt.Errorf("%s: [assets] run_worker_first is %q; it must list %q so that every API path (BASE_PATH %q) reaches the Worker", config, first, w, base)
		}
	}
	return nil
}

// chars returns the number of characters of the site's file path.
func chars(files []file, path string) int {
	for _, f := range files {
		if f.path == path {
			return len([]rune(string(f.body)))
		}
	}
	return 0
}
