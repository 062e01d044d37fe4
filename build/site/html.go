package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The landing page and the docs page. Neither has an inline script or loads anything
// from another origin (the Content-Security-Policy of _headers says so to the browser):
// the docs page's script fills this origin into the examples and starts Swagger UI.

// origin stands for the deployment's origin in the pages; docs.js puts location.origin
// in its place.
const origin = `<span class="origin">https://&lt;your-worker&gt;</span>`

func (s *site) head(title string, extra string) string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(title) + `</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/site.css">
<link rel="service-desc" type="application/vnd.oai.openapi+json" href="/.well-known/openapi">
<link rel="api-catalog" href="/.well-known/api-catalog">
` + extra + `</head>
`
}

func (s *site) nav() string {
	return `<nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/llms.txt">llms.txt</a> <a href="/.well-known/openapi">OpenAPI</a> <a href="/.well-known/api-catalog">API catalog</a></nav>
`
}

func (s *site) landing() []byte {
	var b strings.Builder
	b.WriteString(s.head(s.doc.Info.Title, ""))
	b.WriteString("<body>\n" + s.nav() + "<main>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>%s</p>\n<ul>\n", html.EscapeString(s.doc.Info.Title), html.EscapeString(s.summary()))
	for _, l := range []struct{ href, text, what string }{
		{"/docs", "Docs", "the API reference, a quick start with curl, and how to connect an MCP host"},
		{"/llms.txt", "llms.txt", "the API for language models, in short"},
		{"/llms-full.txt", "llms-full.txt", "the same in full"},
		{"/.well-known/openapi", "OpenAPI 3.1 document", "for clients and generators (also /openapi.json)"},
		{"/.well-known/api-catalog", "API catalog", "RFC 9727 linkset of this site's APIs"},
		{s.base + "/", "The API", "its JSON index, under " + s.base},
		{"", "MCP endpoint", "POST " + s.base + "/mcp, for MCP hosts (see Docs)"},
	} {
		if l.href == "" {
			fmt.Fprintf(&b, "<li><strong>%s</strong>: %s</li>\n", html.EscapeString(l.text), html.EscapeString(l.what))
			continue
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a>: %s</li>\n", html.EscapeString(l.href), html.EscapeString(l.text), html.EscapeString(l.what))
	}
	fmt.Fprintf(&b, "</ul>\n<p>Nothing is booked through the API: quotes link to <a href=\"%s\">the website</a>, where a person books.</p>\n</main>\n</body>\n</html>\n",
		html.EscapeString(s.cfg.WebURL))
	return []byte(b.String())
}

func (s *site) docsPage() []byte {
	var b strings.Builder
	b.WriteString(s.head(s.doc.Info.Title+": docs", `<link rel="stylesheet" href="/`+s.ui+`/swagger-ui.css">
`))
	b.WriteString("<body>\n" + s.nav() + "<main>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>%s</p>\n", html.EscapeString(s.doc.Info.Title), html.EscapeString(s.summary()))
	b.WriteString("<section id=\"quick-start\">\n<h2>Quick start: four calls to a price</h2>\n<p>Every operation is a GET without authentication; the examples are the worked example of the pricing rules (choose dates ahead of today).</p>\n<ol>\n")
	byStep := map[int][]int{}
	maxStep := 0
	for i, o := range s.ops {
		if o.Tool.Name == "" {
			continue
		}
		n := step(s.doc.op(o.Path).Summary)
		byStep[n] = append(byStep[n], i)
		maxStep = max(maxStep, n)
	}
	for n := 1; n <= maxStep; n++ {
		if n == 5 {
			b.WriteString("</ol>\n<p>Before checkout, or coming back to a quote later:</p>\n<ol start=\"5\">\n")
		}
		b.WriteString("<li>")
		for k, i := range byStep[n] {
			o := s.ops[i]
			op := s.doc.op(o.Path)
			if k > 0 {
				b.WriteString("<br>")
			}
			fmt.Fprintf(&b, "%s (<code>%s</code>)\n<pre>curl -s '%s%s'</pre>\n", html.EscapeString(firstSentence(op.Summary)), o.Tool.Name, origin, html.EscapeString(s.example(o)))
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>\n</section>\n")
	mcpURL := origin + html.EscapeString(s.base) + "/mcp"
	b.WriteString(`<section id="mcp">
<h2>Connect an MCP host</h2>
<p>The MCP endpoint is <code>` + mcpURL + `</code>: streamable HTTP, no authentication, protocol 2026-07-28 and 2025-11-25. Its tools are the operations below, one each: `)
	for i, o := range s.toolOps() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "<code>%s</code>", o.Tool.Name)
	}
	b.WriteString(`.</p>
<dl>
<dt>Claude Code</dt><dd><pre>claude mcp add --transport http campervans ` + mcpURL + `</pre></dd>
<dt>Claude Desktop</dt><dd>Settings, Connectors, Add custom connector, with the URL above.</dd>
<dt>Cursor</dt><dd><code>~/.cursor/mcp.json</code> (or a project's <code>.cursor/mcp.json</code>):<pre>{"mcpServers": {"campervans": {"url": "` + mcpURL + `"}}}</pre></dd>
<dt>VS Code</dt><dd><code>.vscode/mcp.json</code>:<pre>{"servers": {"campervans": {"type": "http", "url": "` + mcpURL + `"}}}</pre></dd>
</dl>
</section>
` + s.viewsSection() + `<section id="reference">
<h2>API reference</h2>
<noscript><p>The reference needs JavaScript; the same document is <a href="/.well-known/openapi">the OpenAPI document</a>, and <a href="/llms-full.txt">llms-full.txt</a> says it in text.</p></noscript>
<div id="swagger-ui" data-url="/.well-known/openapi"></div>
</section>
</main>
<script src="/` + s.ui + `/swagger-ui-bundle.js"></script>
<script src="/assets/docs.js"></script>
</body>
</html>
`)
	return []byte(b.String())
}

const siteCSS = `body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1b1b}
nav{padding:.6rem 1rem;background:#17324d}nav a{color:#fff;margin-right:1rem;text-decoration:none}
main{max-width:64rem;margin:0 auto;padding:1rem}
pre{background:#f3f4f6;padding:.5rem .75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
code{font-size:.92em}dt{font-weight:600;margin-top:.5rem}
`

const docsJS = `// This deployment's origin in the examples, then the API reference: Swagger UI
// (bundled with the site, nothing from a CDN) renders the OpenAPI document.
"use strict";
for (const el of document.querySelectorAll(".origin")) el.textContent = location.origin;
const el = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: el.dataset.url,
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  queryConfigEnabled: false,
});
`

// swaggerUIFiles is what the docs page loads of swagger-ui-dist, and its license.
var swaggerUIFiles = []string{"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"}

type uiFiles struct {
	version string
	files   []file
}

var sourceMap = regexp.MustCompile(`\n?(//# sourceMappingURL=\S+|/\*# sourceMappingURL=\S+ ?\*/)\s*$`)

// swaggerUI reads the Swagger UI files of the installed swagger-ui-dist, without their
// source map links (the maps are not served).
func swaggerUI(npm string) (*uiFiles, error) {
	dir := filepath.Join(npm, "swagger-ui-dist")
	pj, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("swagger-ui-dist is not installed (make deps): %v", err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(pj, &p); err != nil || p.Version == "" {
		return nil, fmt.Errorf("%s: no version", filepath.Join(dir, "package.json"))
	}
	u := &uiFiles{version: p.Version}
	for _, f := range swaggerUIFiles {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(f, ".js") || strings.HasSuffix(f, ".css") {
			b = sourceMap.ReplaceAll(b, nil)
		}
		u.files = append(u.files, file{f, b})
	}
	return u, nil
}
