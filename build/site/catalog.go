package main

import (
	"encoding/json"
	"strings"
)

// catalogProfile is RFC 9727's profile of the API catalog's media type.
const catalogProfile = "https://www.rfc-editor.org/info/rfc9727"

// catalog returns the API catalog (RFC 9727): a linkset (RFC 9264) whose first context
// is the catalog itself, listing the API (item), and whose second is the API, with its
// description (service-desc: the OpenAPI document), its documentation (service-doc:
// the docs page and llms.txt) and its index (service-meta). References are relative to
// the catalog's own URL, which is this origin's.
func (s *site) catalog() []byte {
	type link struct {
		Href  string `json:"href"`
		Type  string `json:"type,omitempty"`
		Title string `json:"title,omitempty"`
	}
	api := s.base + "/"
	set := map[string]any{"linkset": []map[string]any{
		{
			"anchor": "/.well-known/api-catalog",
			"item":   []link{{Href: api, Title: s.doc.Info.Title}},
		},
		{
			"anchor": api,
			"service-desc": []link{
				{Href: "/.well-known/openapi", Type: "application/vnd.oai.openapi+json", Title: "OpenAPI 3.1 document"},
			},
			"service-doc": []link{
				{Href: "/docs", Type: "text/html", Title: "API reference, quick start and MCP set-up"},
				{Href: "/llms.txt", Type: "text/plain", Title: "The API for language models"},
				{Href: "/llms-full.txt", Type: "text/plain", Title: "The API for language models, in full"},
			},
			"service-meta": []link{
				{Href: api, Type: "application/json", Title: "The API's index: its operations and the inventory answering"},
			},
		},
	}}
	b, err := json.MarshalIndent(set, "", " ")
	if err != nil {
		panic(err) // maps and strings only
	}
	return append(b, '\n')
}

// headers returns the _headers file: rules that Workers Static Assets applies to the
// static files (never to the Worker's answers). The catalog and the OpenAPI copy have
// no extension, so their media types are set here; every page forbids scripts, styles
// and connections from other origins (nothing loads from a CDN); the Swagger UI files,
// whose folder names the version, may be cached for a year.
func (s *site) headers() string {
	const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	rules := []struct {
		path    string
		headers []string
	}{
		{"/*", []string{"X-Content-Type-Options: nosniff", "Content-Security-Policy: " + csp}},
		{"/.well-known/api-catalog", []string{`Content-Type: application/linkset+json; profile="` + catalogProfile + `"`, "Access-Control-Allow-Origin: *"}},
		{"/.well-known/openapi", []string{"Content-Type: application/vnd.oai.openapi+json", "Access-Control-Allow-Origin: *"}},
		{"/openapi.json", []string{"Access-Control-Allow-Origin: *"}},
		{"/llms.txt", []string{"Content-Type: text/plain; charset=utf-8", "Access-Control-Allow-Origin: *"}},
		{"/llms-full.txt", []string{"Content-Type: text/plain; charset=utf-8", "Access-Control-Allow-Origin: *"}},
		{"/" + s.ui + "/*", []string{"Cache-Control: public, max-age=31536000, immutable"}},
		{"/views/*", []string{"! Content-Security-Policy", "Content-Security-Policy: " + viewsCSP}},
	}
	var b strings.Builder
	b.WriteString("# Written by build/site: headers of the static files (Workers Static Assets).\n")
	for _, r := range rules {
		b.WriteString(r.path + "\n")
		for _, h := range r.headers {
			b.WriteString("  " + h + "\n")
		}
	}
	return b.String()
}
