package api

import (
	"github.com/campervan/agent-api/core/abi"

	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestRenderOpenAPI(t *testing.T) {
	for _, base := range []string{"/api/agent", "/v1/\"x\"", ""} {
		cfg := testConfig()
		cfg.BasePath = base
		cfg.RateLimit = 7
		b := renderOpenAPI(&cfg)
		var doc struct {
			OpenAPI string
			Info    struct{ Version, Description string }
			Servers []struct{ URL string }
			Paths   map[string]any
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("base %q: the document is not JSON: %v", base, err)
		}
		if strings.Contains(string(b), "{{") {
			t.Errorf("base %q: a placeholder is left: %s", base, b[strings.Index(string(b), "{{"):][:40])
		}
		wantURL := base
		if base == "" {
			wantURL = "/"
		}
		if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != wantURL {
			t.Errorf("base %q: openapi %q version %q servers %v", base, doc.OpenAPI, doc.Info.Version, doc.Servers)
		}
		if !strings.Contains(doc.Info.Description, "7 requests per 60 seconds") {
			t.Errorf("base %q: info.description does not state the configured limit", base)
		}
		for _, p := range []string{"/", "/openapi.json", "/depots", "/vehicles/availability", "/vehicles/{vehicleId}/accessories", "/vehicles/{vehicleId}/insurance-types", "/quotes"} {
			if doc.Paths[p] == nil {
				t.Errorf("base %q: no path %s", base, p)
			}
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil || !bytes.Equal(c.Bytes(), b) {
			t.Errorf("base %q: the served document is not compact JSON (%d bytes, compacted %d): %v", base, len(b), c.Len(), err)
		}
	}
}

// The module embeds openapi.lz4, build/openapimin's compaction of openapi.json (the
// document reviewed) packed as an LZ4 block: it must unpack to openapi.json compacted,
// byte for byte, and be much smaller.
func TestGeneratedOpenAPIPacked(t *testing.T) {
	src, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, src); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if got := openAPISource(); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("core/api/openapi.lz4 unpacks to %d bytes that are not openapi.json compacted (%d bytes): run go generate ./... (make build does)", len(got), want.Len())
	}
	if len(openAPIPacked) > want.Len()/3 {
		t.Errorf("openapi.lz4 (%d bytes) is not a third of the compact document (%d bytes)", len(openAPIPacked), want.Len())
	}
}

func TestOpenAPIRoute(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	d := do(s, "GET", "/api/agent/openapi.json")
	if d.Status != 200 || d.Header("etag") == "" || d.Header("cache-control") != "public, max-age=300" || !json.Valid(d.Body) {
		t.Fatalf("GET openapi.json: %d etag %q cache-control %q", d.Status, d.Header("etag"), d.Header("cache-control"))
	}
	if n := do(s, "GET", "/api/agent/openapi.json", abi.Header{Name: "if-none-match", Value: d.Header("etag")}); n.Status != 304 || len(n.Body) != 0 {
		t.Errorf("If-None-Match its ETag: %d, want 304 without a body", n.Status)
	}
	if n := do(s, "GET", "/api/agent/openapi.json?format=yaml"); n.Status != 400 || !strings.Contains(string(n.Body), `\"format\"`) {
		t.Errorf("unknown parameter: %d %s, want 400 naming it", n.Status, n.Body)
	}
	// Served from memory computed once: nothing allocated per request.
	var w abi.Response
	req := &abi.Request{Method: "GET", Target: "/api/agent/openapi.json"}
	s.Handle(req, &w)
	if a := testing.AllocsPerRun(100, func() { s.Handle(req, &w) }); a != 0 {
		t.Errorf("GET openapi.json allocates %v times per request, want 0", a)
	}
	req.Target = "/api/agent/"
	s.Handle(req, &w)
	if a := testing.AllocsPerRun(100, func() { s.Handle(req, &w) }); a != 0 {
		t.Errorf("GET index allocates %v times per request, want 0", a)
	}
}
