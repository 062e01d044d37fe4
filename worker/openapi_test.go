//go:build !wasip1 && !js

package main

// The OpenAPI document against the live answers: the document the native server
// serves is loaded and validated with kin-openapi, then every HTTP case's native
// response is validated against its operation (status, headers, content type, body).

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// servedDocument returns the OpenAPI document as the native server serves it, loaded
// and validated (examples included), and a router over it.
func servedDocument(t *testing.T, vars []abi.Header) (*openapi3.T, routers.Router) {
	t.Helper()
	s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
	req := abi.Request{Method: "GET", Target: "/api/agent/openapi.json"}
	d, err := abi.DecodeResponse(nativeDo(s, &req))
	if err != nil || d.Status != 200 {
		t.Fatalf("GET /api/agent/openapi.json: %d %v %s", d.Status, err, d.Body)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(d.Body)
	if err != nil {
		t.Fatalf("loading the served document: %v", err)
	}
	// kin-openapi v0.133 implements OpenAPI 3.0 schemas: it validates a 3.1 type list
	// with "null" in it (Quote.insurance) but its document check rejects "null" as a
	// type name. The 3.0 spelling of the same constraint is nullable: true.
	seen := map[*openapi3.Schema]bool{}
	forEachSchema(doc, func(s *openapi3.Schema) {
		if s.Type != nil && s.Type.Includes("null") && !seen[s] {
			var rest openapi3.Types
			for _, ty := range s.Type.Slice() {
				if ty != "null" {
					rest = append(rest, ty)
				}
			}
			s.Type, s.Nullable = &rest, true
		}
		seen[s] = true
	})
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the served document is not valid OpenAPI: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != "/api/agent" {
		t.Errorf("openapi %q, info.version %q, servers %v: want 3.1.0, 1.0.0 and one server /api/agent", doc.OpenAPI, doc.Info.Version, doc.Servers)
	}
	// Strict for this test only (the document leaves objects open for later
	// additions): an object of components/schemas with a field it does not describe
	// fails validation.
	no := false
	for _, ref := range doc.Components.Schemas {
		forEach(ref, func(s *openapi3.Schema) {
			if len(s.Properties) > 0 {
				s.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
			}
		}, map[*openapi3.Schema]bool{})
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, router
}

// forEachSchema calls f on every schema of doc: components, parameters, headers and
// responses, recursively.
func forEachSchema(doc *openapi3.T, f func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	for _, r := range doc.Components.Schemas {
		forEach(r, f, seen)
	}
	for _, h := range doc.Components.Headers {
		forEach(h.Value.Schema, f, seen)
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			forEach(mt.Schema, f, seen)
		}
	}
	responses := func(rs map[string]*openapi3.ResponseRef) {
		for _, r := range rs {
			content(r.Value.Content)
			for _, h := range r.Value.Headers {
				forEach(h.Value.Schema, f, seen)
			}
		}
	}
	responses(doc.Components.Responses)
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				forEach(p.Value.Schema, f, seen)
			}
			responses(op.Responses.Map())
		}
	}
}

func forEach(r *openapi3.SchemaRef, f func(*openapi3.Schema), seen map[*openapi3.Schema]bool) {
	if r == nil || r.Value == nil || seen[r.Value] {
		return
	}
	seen[r.Value] = true
	f(r.Value)
	for _, p := range r.Value.Properties {
		forEach(p, f, seen)
	}
	forEach(r.Value.Items, f, seen)
	forEach(r.Value.AdditionalProperties.Schema, f, seen)
	for _, l := range []openapi3.SchemaRefs{r.Value.AllOf, r.Value.AnyOf, r.Value.OneOf} {
		for _, s := range l {
			forEach(s, f, seen)
		}
	}
}

// checkAgainstDocument validates one native answer to req against the document. A
// GET or HEAD under the base path must find its operation; other methods and
// unknown paths must not, and then get an Error body.
func checkAgainstDocument(t *testing.T, doc *openapi3.T, router routers.Router, req abi.Request, d abi.DecodedResponse) {
	t.Helper()
	ctx := context.Background()
	method := req.Method
	if method == "HEAD" {
		method = "GET" // HEAD is GET without the body; the document describes GET
	}
	target := req.Target
	if target == "/api/agent" || strings.HasPrefix(target, "/api/agent?") {
		// The index answers at the base path with and without the slash; the
		// document's "/" below the server URL is the one with it.
		target = "/api/agent/" + target[len("/api/agent"):]
	}
	hr, err := http.NewRequest(method, "http://worker.test"+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range req.Headers {
		if h.Value != "" {
			hr.Header.Set(h.Name, h.Value)
		}
	}
	header := http.Header{}
	for _, h := range d.Headers {
		if !strings.HasPrefix(h.Name, ":") {
			header.Add(h.Name, h.Value)
		}
	}
	if d.Header(":route") == "/mcp" && d.Status != 405 {
		return // JSON-RPC, not part of the REST document (core/mcp_test.go checks it)
	}
	route, pathParams, err := router.FindRoute(hr)
	outside := d.Header(":route") == "-" || d.Header(":route") == "/mcp" || (method != "GET")
	if outside {
		// Not an operation of the API: an unknown path (404), another method (405) or a
		// CORS preflight (204). The document must not claim it.
		if err == nil {
			t.Errorf("%s %s: answered outside the API (%d) but the document has %s %s", req.Method, req.Target, d.Status, method, route.Path)
		}
		if d.Status == 405 {
			checkResponse(t, doc.Components.Responses["MethodNotAllowed"].Value, d, header)
		} else if d.Status != 204 {
			checkSchema(t, doc.Components.Schemas["Error"], d)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s %s (%d): no operation of the document matches: %v", req.Method, req.Target, d.Status, err)
	}
	if d.Status == 304 {
		// kin-openapi does not validate a 304; check it is documented with its headers.
		r := route.Operation.Responses.Status(304)
		if r == nil {
			t.Fatalf("%s %s: 304 is not documented", req.Method, route.Path)
		}
		checkResponse(t, r.Value, d, header)
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: hr, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if d.Status < 300 {
		// A request that was answered 2xx must be one the document accepts too.
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %s: answered %d, but the document rejects the request: %v", req.Method, req.Target, d.Status, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: d.Status, Header: header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: req.Method == "HEAD", MultiError: true}}
	out.SetBodyBytes(d.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s: the %d response does not match the document: %v\nbody: %.600s", req.Method, req.Target, d.Status, err, d.Body)
	}
}

// checkResponse checks the documented headers marked required are present, and a
// JSON body against the response's application/json schema.
func checkResponse(t *testing.T, r *openapi3.Response, d abi.DecodedResponse, header http.Header) {
	t.Helper()
	for name, h := range r.Headers {
		if h.Value.Required && header.Get(name) == "" {
			t.Errorf("%d response: no %s header, which the document requires", d.Status, name)
		}
	}
	if mt := r.Content.Get("application/json"); mt != nil && len(d.Body) > 0 {
		checkSchema(t, mt.Schema, d)
	}
}

func checkSchema(t *testing.T, s *openapi3.SchemaRef, d abi.DecodedResponse) {
	t.Helper()
	if len(d.Body) == 0 {
		return
	}
	var v any
	if err := json.Unmarshal(d.Body, &v); err != nil {
		t.Fatalf("%d response: body is not JSON: %v", d.Status, err)
	}
	if err := s.Value.VisitJSON(v); err != nil {
		t.Errorf("%d response %s does not match its schema: %v", d.Status, d.Body, err)
	}
}

func TestOpenAPIMatchesResponses(t *testing.T) {
	vars := wranglerVars(t)
	doc, router := servedDocument(t, vars)
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := nativeServer(t, vars, func() int64 { return fixedNow }, constRand)
			req := c.request("203.0.113.7")
			d, err := abi.DecodeResponse(nativeDo(s, &req))
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstDocument(t, doc, router, req, d)
		})
	}
}

// TestOpenAPIRateLimitAndUnavailable validates the answers no single case can reach
// (429) or that need another configuration (503) against the document.
func TestOpenAPIRateLimitAndUnavailable(t *testing.T) {
	vars := wranglerVars(t)
	doc, router := servedDocument(t, vars)
	targets := []string{"/api/agent/", "/api/agent/openapi.json", "/api/agent/depots",
		"/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19",
		"/api/agent/vehicles/5/accessories", "/api/agent/vehicles/5/insurance-types",
		"/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5"}
	limited := append(append([]abi.Header(nil), vars...), abi.Header{Name: "RATE_LIMIT_REQUESTS", Value: "1"})
	down := append(append([]abi.Header(nil), vars...), abi.Header{Name: "MAINTENANCE", Value: "true"})
	for _, target := range targets {
		s := nativeServer(t, limited, func() int64 { return fixedNow + 17_000 }, constRand)
		req := abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "192.0.2.1"}}}
		nativeDo(s, &req)
		d, _ := abi.DecodeResponse(nativeDo(s, &req))
		if d.Status != 429 || !strings.HasPrefix(d.Header("content-type"), "text/plain") || d.Header("retry-after") != "43" {
			t.Errorf("GET %s over the limit: %d %q retry-after %q, want 429 text/plain 43", target, d.Status, d.Header("content-type"), d.Header("retry-after"))
		}
		checkAgainstDocument(t, doc, router, req, d)

		s = nativeServer(t, down, func() int64 { return fixedNow }, constRand)
		d, _ = abi.DecodeResponse(nativeDo(s, &req))
		if d.Status != 503 {
			t.Errorf("GET %s in maintenance: %d, want 503", target, d.Status)
		}
		checkAgainstDocument(t, doc, router, req, d)
	}
	if !bytes.Contains([]byte(doc.Info.Description), []byte("100 requests per 60 seconds")) {
		t.Errorf("info.description does not state the configured rate limit")
	}
}
