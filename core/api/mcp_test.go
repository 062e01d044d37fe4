package api

import (
	"github.com/campervan/agent-api/core/abi"

	"encoding/json"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// mcpPost sends one JSON-RPC body to the MCP endpoint with the usual client headers
// (plus extra ones) and returns the answer.
func mcpPost(s *Server, body string, extra ...abi.Header) abi.DecodedResponse {
	hs := []abi.Header{{Name: "content-type", Value: "application/json"}, {Name: "accept", Value: "application/json, text/event-stream"}}
	hs = append(hs, extra...)
	var w abi.Response
	s.Handle(&abi.Request{Method: "POST", Target: "/api/agent/mcp", Headers: hs, Body: []byte(body)}, &w)
	d, err := abi.DecodeResponse(w.Encode())
	if err != nil {
		panic(err)
	}
	return d
}

// modern returns the headers of a 2026-07-28 request for method (and tool name).
func modern(method, name string) []abi.Header {
	hs := []abi.Header{{Name: "mcp-protocol-version", Value: "2026-07-28"}, {Name: "mcp-method", Value: method}}
	if name != "" {
		hs = append(hs, abi.Header{Name: "mcp-name", Value: name})
	}
	return hs
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

// resolve returns v with every {"$ref":"#/components/schemas/X"} replaced by X: an
// implementation of its own, so the test does not trust buildMCP's.
func resolve(v any, schemas map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			return resolve(schemas[strings.TrimPrefix(ref, "#/components/schemas/")], schemas)
		}
		out := map[string]any{}
		for k, y := range x {
			out[k] = resolve(y, schemas)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = resolve(y, schemas)
		}
		return out
	}
	return v
}

func toolsList(t *testing.T, s *Server) []any {
	t.Helper()
	d := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if d.Status != 200 {
		t.Fatalf("tools/list: %d %s", d.Status, d.Body)
	}
	return decodeJSON(t, d.Body)["result"].(map[string]any)["tools"].([]any)
}

// TestMCPToolSchemasMatchOpenAPI: each tool's inputSchema is its operation's
// parameters and its outputSchema the 200 schema, as the served document says, each
// thing said once (core/mcp/schema.go): no descriptions or defaults, no OpenAPI numeric
// formats, no format or maxLength beside an argument's pattern, no size bounds in an
// answer's schema nor a type its properties or items say, and another tool's answer
// (check_quote's quote) or what an earlier tool's answer says (search_calendar's
// insurance options) named, not repeated. Every constraint of a parameter is kept.
func TestMCPToolSchemasMatchOpenAPI(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	doc := decodeJSON(t, do(s, "GET", "/api/agent/openapi.json").Body)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	paths := doc["paths"].(map[string]any)
	listed := toolsList(t, s)
	if len(listed) != len(tools) {
		t.Fatalf("%d tools, want %d", len(listed), len(tools))
	}
	opOf := func(path string) map[string]any { return paths[path].(map[string]any)["get"].(map[string]any) }
	bodyRef := func(op map[string]any) string {
		s := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		ref, _ := s["$ref"].(string)
		return strings.TrimPrefix(ref, "#/components/schemas/")
	}
	var said []string // the components earlier tools' answers write in full
	for i, x := range listed {
		tool := x.(map[string]any)
		spec := tools[i]
		if tool["name"] != spec.Name || tool["title"] != spec.Title || tool["description"] != spec.Lead {
			t.Fatalf("tool %d is %v %q %q, want %s %q and its Lead", i, tool["name"], tool["title"], tool["description"], spec.Name, spec.Title)
		}
		op := opOf(spec.Path)
		props := map[string]any{}
		var required []any
		params, _ := op["parameters"].([]any)
		for _, p := range params {
			p := p.(map[string]any)
			full := resolve(p["schema"], schemas).(map[string]any)
			prop := leanSchema(full, false, false).(map[string]any)
			if _, ok := full["pattern"]; ok {
				delete(prop, "format")
				delete(prop, "maxLength")
			}
			if full["maximum"] == float64(2147483647) { // an id's int32 bound is left out
				delete(prop, "maximum")
			}
			for _, k := range []string{"type", "pattern", "enum", "minimum", "maximum"} {
				if full[k] != nil && !reflect.DeepEqual(prop[k], full[k]) && !(k == "maximum" && full[k] == float64(2147483647)) {
					t.Errorf("%s: argument %s lost its %s %v", spec.Name, p["name"], k, full[k])
				}
			}
			props[p["name"].(string)] = prop
			if p["required"] == true {
				required = append(required, p["name"])
			}
		}
		want := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if required != nil {
			want["required"] = required
		}
		if !reflect.DeepEqual(tool["inputSchema"], want) {
			t.Errorf("%s inputSchema differs from the OpenAPI parameters:\n got %v\nwant %v", spec.Name, tool["inputSchema"], want)
		}
		var others []string
		for _, o := range tools {
			if r := bodyRef(opOf(o.Path)); o.Name != spec.Name && r != "" && r != bodyRef(op) {
				others = append(others, r)
			}
		}
		for _, c := range said {
			if c != bodyRef(op) && !slices.Contains(others, c) {
				others = append(others, c)
			}
		}
		body := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
		var wantOut any = leanSchema(resolveExcept(body, schemas, others), true, spec.Wrap == "")
		if !spec.Opaque {
			said = refsIn(body, schemas, others, said)
		}
		if spec.Wrap != "" {
			props := map[string]any{spec.Wrap: wantOut}
			if inputHas(tool, "page") {
				props["nextPage"] = map[string]any{"type": "string"}
			}
			wantOut = map[string]any{"type": "object", "properties": props, "required": []any{spec.Wrap}}
		}
		if spec.Opaque {
			wantOut = map[string]any{"type": "object"}
		}
		if !reflect.DeepEqual(tool["outputSchema"], wantOut) {
			t.Errorf("%s outputSchema differs from the OpenAPI 200 schema:\n got %v\nwant %v", spec.Name, tool["outputSchema"], wantOut)
		}
		if out := tool["outputSchema"].(map[string]any); out["type"] != "object" {
			t.Errorf("%s outputSchema is not an object schema", spec.Name)
		}
		if js := mustJSON(tool["inputSchema"]) + mustJSON(tool["outputSchema"]); strings.Contains(js, "$ref") || strings.Contains(js, `"description"`) {
			t.Errorf("%s has a $ref or a description left in a schema", spec.Name)
		}
		ann := tool["annotations"].(map[string]any)
		if !reflect.DeepEqual(ann, map[string]any{"readOnlyHint": true, "openWorldHint": false}) {
			t.Errorf("%s annotations %v", spec.Name, ann)
		}
	}
}

// leanSchema returns schema v without descriptions, examples, defaults and OpenAPI's
// numeric formats, and for an answer (output) without its size bounds, formats and
// patterns, and below the answer itself (top) without a "type" that "properties" or
// "items" says.
func leanSchema(v any, output, top bool) any { return leanAt(v, output, top, 0) }

// leanAt is leanSchema at level (the properties and items above v): an answer's
// schema says "required" at levels 0 and 1 only.
func leanAt(v any, output, top bool, level int) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, y := range x {
			switch k {
			case "description", "example", "examples", "default":
				continue
			case "type":
				_, props := x["properties"]
				_, items := x["items"]
				if output && !top && (y == "object" && props || y == "array" && items) {
					continue
				}
			case "format":
				if f := y.(string); output || f == "int32" || f == "int64" || f == "double" || f == "float" {
					continue
				}
			case "maxLength", "maxItems", "minimum", "maximum":
				if output {
					continue
				}
			case "required":
				if output && level > 1 {
					continue
				}
			case "pattern":
				if output {
					continue
				}
			case "properties":
				ps := map[string]any{}
				for name, p := range y.(map[string]any) {
					ps[name] = leanAt(p, output, false, level+1)
				}
				out[k] = ps
				continue
			case "items":
				out[k] = leanAt(y, output, false, level+1)
				continue
			}
			out[k] = leanAt(y, output, false, level)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = leanAt(y, output, false, level)
		}
		return out
	}
	return v
}

// refsIn appends to said the components schema v writes in full: those it refers to,
// directly or through others, but not those in others nor those already in said.
func refsIn(v any, schemas map[string]any, others, said []string) []string {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if slices.Contains(others, name) || slices.Contains(said, name) {
				return said
			}
			return refsIn(schemas[name], schemas, others, append(said, name))
		}
		for _, y := range x {
			said = refsIn(y, schemas, others, said)
		}
	case []any:
		for _, y := range x {
			said = refsIn(y, schemas, others, said)
		}
	}
	return said
}

// resolveExcept is resolve, but a reference to one of others becomes {"type":"object"}.
func resolveExcept(v any, schemas map[string]any, others []string) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if slices.Contains(others, name) {
				return map[string]any{"type": "object"}
			}
			return resolveExcept(schemas[name], schemas, others)
		}
		out := map[string]any{}
		for k, y := range x {
			out[k] = resolveExcept(y, schemas, others)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = resolveExcept(y, schemas, others)
		}
		return out
	}
	return v
}

// TestMCPToolsListSize: the tool list every host reads on every connection stays
// small in both protocol revisions (the bytes of the JSON-RPC answer).
func TestMCPToolsListSize(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	legacy := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	modernList := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+modernMeta+`}}`, modern("tools/list", "")...)
	for _, c := range []struct {
		name string
		d    abi.DecodedResponse
	}{{"2025-11-25", legacy}, {"2026-07-28", modernList}} {
		if c.d.Status != 200 {
			t.Fatalf("tools/list (%s): %d %s", c.name, c.d.Status, c.d.Body)
		}
		t.Logf("tools/list (%s): %d bytes", c.name, len(c.d.Body))
		if len(c.d.Body) > 12000 {
			t.Errorf("tools/list (%s) is %d bytes, more than 12,000", c.name, len(c.d.Body))
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// callTool calls a tool (legacy era) and returns the JSON-RPC result.
func callTool(t *testing.T, s *Server, name, args string) map[string]any {
	t.Helper()
	d := mcpPost(s, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	if d.Status != 200 {
		t.Fatalf("tools/call %s: %d %s", name, d.Status, d.Body)
	}
	m := decodeJSON(t, d.Body)
	if m["id"] != "c1" || m["jsonrpc"] != "2.0" {
		t.Fatalf("envelope %s", d.Body)
	}
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("tools/call %s: no result: %s", name, d.Body)
	}
	return r
}

// TestMCPToolResultsValidate: every tool's structuredContent validates against its
// outputSchema (additional properties closed, to catch undocumented fields) and its
// text block holds the same JSON.
func TestMCPToolResultsValidate(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	schemas := map[string]*openapi3.Schema{}
	for _, x := range toolsList(t, s) {
		tool := x.(map[string]any)
		var sc openapi3.Schema
		if err := json.Unmarshal([]byte(mustJSON(tool["outputSchema"])), &sc); err != nil {
			t.Fatalf("%s outputSchema: %v", tool["name"], err)
		}
		closeObjects(&sc, map[*openapi3.Schema]bool{})
		schemas[tool["name"].(string)] = &sc
	}
	calls := []struct{ name, args string }{
		{"list_depots", `{}`},
		{"search_vehicles", `{"pick_up_depot_id":2,"drop_off_depot_id":3,"pick_up_date":"2026-12-08","drop_off_date":"2026-12-19"}`},
		{"list_accessories", `{"vehicleId":5}`},
		{"list_accessories", `{"vehicleId":"5","pick_up_date":"2026-12-08","drop_off_date":"2026-12-19"}`},
		{"list_insurance_plans", `{"vehicleId":5,"pick_up_date":"2026-12-08","drop_off_date":"2026-12-19"}`},
		{"get_quote", `{"pick_up_depot_id":"2","drop_off_depot_id":3,"pick_up_date":"2026-12-08","drop_off_date":"2026-12-19","vehicle_id":5,"accessory_ids":"1,1,2,2","insurance_id":33}`},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":1,"insurance_id":null}`},
	}
	for _, c := range calls {
		r := callTool(t, s, c.name, c.args)
		if r["isError"] != false {
			t.Errorf("%s %s: isError: %v", c.name, c.args, r["content"])
			continue
		}
		sc := r["structuredContent"]
		if err := schemas[c.name].VisitJSON(sc); err != nil {
			t.Errorf("%s %s: structuredContent does not match outputSchema: %v", c.name, c.args, err)
		}
		content := r["content"].([]any)
		block := content[0].(map[string]any)
		var text any
		if block["type"] != "text" || json.Unmarshal([]byte(block["text"].(string)), &text) != nil || !reflect.DeepEqual(text, sc) {
			t.Errorf("%s: the text block is not the structuredContent JSON", c.name)
		}
	}
	// The worked example of docs/pricing.md, through the tool.
	q := callTool(t, s, "get_quote", calls[5].args)["structuredContent"].(map[string]any)
	pb := q["priceBreakdown"].(map[string]any)
	if q["totalAmount"] != 3323.0 || pb["rentalFee"].(float64)+pb["routeFee"].(float64)+pb["accessoriesFee"].(float64)+pb["insuranceFee"].(float64) != 3323 {
		t.Errorf("quote %v, want totalAmount 3323, the sum of the fees", q)
	}
}

func closeObjects(s *openapi3.Schema, seen map[*openapi3.Schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	no := false
	if len(s.Properties) > 0 {
		s.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
	}
	for _, p := range s.Properties {
		closeObjects(p.Value, seen)
	}
	if s.Items != nil {
		closeObjects(s.Items.Value, seen)
	}
}

// TestMCPToolErrorsAreTheAPIErrors: a bad argument gives isError with exactly the
// message of the HTTP API's 400/404 for the same request.
func TestMCPToolErrorsAreTheAPIErrors(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	cases := []struct{ tool, args, target string }{
		{"search_vehicles", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10"}`, "/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10"},
		{"search_vehicles", `{"pick_up_depot_id":"abc","drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20"}`, "/vehicles/availability?pick_up_depot_id=abc&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"},
		{"search_vehicles", `{"pick_up_depot_id":2,"drop_off_depot_id":3,"pick_up_date":"2026-12-25","drop_off_date":"2026-12-30"}`, "/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-25&drop_off_date=2026-12-30"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2026-12-22","drop_off_date":"2026-12-30","vehicle_id":7}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-22&drop_off_date=2026-12-30&vehicle_id=7"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":1.5}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1.5"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":1,"insurance":33}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1&insurance=33"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":1,"accessory_ids":"1,,2"}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1&accessory_ids=1,,2"},
		{"list_accessories", `{"vehicleId":999}`, "/vehicles/999/accessories"},
		{"list_insurance_plans", `{"vehicleId":1,"pick_up_date":"2027-03-10"}`, "/vehicles/1/insurance-types?pick_up_date=2027-03-10"},
		{"list_depots", `{"limit":5}`, "/depots?limit=5"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":1,"accessory_ids":"1"}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1&accessory_ids=1"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20","vehicle_id":999}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=999"},
		{"get_quote", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20"}`, "/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"},
		{"search_calendar", `{"pick_up_depot_id":1,"drop_off_depot_id":1,"earliest_pick_up_date":"2027-03-10","latest_pick_up_date":"2027-03-12","days":7,"vehicle_id":99}`, "/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-10&latest_pick_up_date=2027-03-12&days=7&vehicle_id=99"},
		{"search_vehicles", `{"pick_up_depot_id":99,"drop_off_depot_id":1,"pick_up_date":"2027-03-10","drop_off_date":"2027-03-20"}`, "/vehicles/availability?pick_up_depot_id=99&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"},
	}
	for _, c := range cases {
		h := do(s, "GET", "/api/agent"+c.target)
		if h.Status != 400 && h.Status != 404 {
			t.Fatalf("GET %s: %d, want an error", c.target, h.Status)
		}
		want := s.toolText(decodeJSON(t, h.Body)["error"].(string))
		r := callTool(t, s, c.tool, c.args)
		got := r["content"].([]any)[0].(map[string]any)["text"].(string)
		if r["isError"] != true || got != want {
			t.Errorf("%s %s: isError %v %q, want the API's message in a tool's words %q", c.tool, c.args, r["isError"], got, want)
		}
		// A tool's caller gave arguments and calls tools: no HTTP words are left.
		for _, http := range []string{"query parameter", "path parameter", "GET /", "this operation"} {
			if strings.Contains(got, http) {
				t.Errorf("%s %s: %q still says %q", c.tool, c.args, got, http)
			}
		}
		if _, ok := r["structuredContent"]; ok {
			t.Errorf("%s: an error result carries structuredContent", c.tool)
		}
	}
	for _, c := range []struct{ tool, args, want string }{
		{"list_accessories", `{}`, "missing required argument vehicleId"},
		{"get_quote", `{"accessory_ids":[1,2]}`, `argument "accessory_ids" must be a string or an integer, got an array; give accessory ids as one comma-separated string`},
		{"search_vehicles", `{"pick_up_depot_id":true}`, `argument "pick_up_depot_id" must be a string or an integer, got a boolean`},
	} {
		r := callTool(t, s, c.tool, c.args)
		if got := r["content"].([]any)[0].(map[string]any)["text"].(string); r["isError"] != true || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: %v %q, want isError with %q", c.tool, c.args, r["isError"], got, c.want)
		}
	}
}

// TestMCPProtocol: the JSON-RPC and transport answers of both eras.
func TestMCPProtocol(t *testing.T) {
	cfg := testConfig()
	cfg.MCPAllowedOrigins = []string{"https://agent.example"}
	s := testServer(t, cfg, bundledCatalog(t), nil)
	type c struct {
		name    string
		body    string
		headers []abi.Header
		status  int
		code    float64 // JSON-RPC error code, 0 for a result
		has     string  // in the body
	}
	cases := []c{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil, 200, 0, `"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"resources":{"listChanged":false}},"serverInfo":{"name":"campervan-agent-api"`},
		{"initialize-older", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, nil, 200, 0, `"protocolVersion":"2025-03-26"`},
		{"initialize-unknown", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}`, nil, 200, 0, `"protocolVersion":"2025-11-25"`},
		{"initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, []abi.Header{{Name: "mcp-protocol-version", Value: "2025-11-25"}}, 202, 0, ""},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, nil, 200, 0, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"parse-error", `{"jsonrpc":"2.0",`, nil, 400, -32700, "Parse error"},
		{"invalid-utf8-id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}", nil, 400, -32700, "UTF-8"},
		{"deep", strings.Repeat("[", 10000), nil, 400, -32700, "deeper than 64"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, -32600, "batches"},
		{"not-object", `"ping"`, nil, 400, -32600, "request object"},
		{"no-method", `{"jsonrpc":"2.0","id":1}`, nil, 400, -32600, `\"method\" is missing`},
		{"bad-jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, -32600, `\"jsonrpc\" must be \"2.0\"`},
		{"bad-id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, -32600, "id must be"},
		{"no-id", `{"jsonrpc":"2.0","method":"tools/list"}`, nil, 400, -32600, "has no id"},
		{"unknown-method", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, nil, 200, -32601, "Method not found"},
		{"unknown-tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_vehicle"}}`, nil, 200, -32602, `Unknown tool \"book_vehicle\"`},
		{"params-not-object", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}`, nil, 400, -32602, "params"},
		{"arguments-not-object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_depots","arguments":"x"}}`, nil, 200, -32602, "arguments"},
		{"header-version-unknown", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []abi.Header{{Name: "mcp-protocol-version", Value: "1900-01-01"}}, 400, -32022, `"requested":"1900-01-01"`},
		// 2026-07-28
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`, modern("server/discover", ""), 200, 0, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]`},
		{"modern-tools-list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`, modern("tools/list", ""), 200, 0, `"ttlMs":300000,"cacheScope":"public","resultType":"complete"`},
		{"modern-call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_depots","arguments":{},` + modernMeta + `}}`, modern("tools/call", "list_depots"), 200, 0, `"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo"`},
		{"modern-call-base64-name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_depots",` + modernMeta + `}}`, modern("tools/call", "=?base64?bGlzdF9kZXBvdHM=?="), 200, 0, `"Auckland Airport`},
		{"modern-name-mismatch", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_depots",` + modernMeta + `}}`, modern("tools/call", "get_quote"), 400, -32020, "Mcp-Name"},
		{"modern-method-mismatch", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`, modern("tools/call", ""), 400, -32020, "Mcp-Method"},
		{"modern-no-header", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`, []abi.Header{{Name: "mcp-method", Value: "tools/list"}}, 400, -32020, "MCP-Protocol-Version header is missing"},
		{"modern-unsupported", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, []abi.Header{{Name: "mcp-protocol-version", Value: "2027-01-01"}, {Name: "mcp-method", Value: "tools/list"}}, 400, -32022, `"supported":["2026-07-28"`},
		{"modern-header-without-meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, modern("tools/list", ""), 400, -32602, "protocolVersion"},
		{"modern-no-capabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, modern("tools/list", ""), 400, -32602, "clientCapabilities"},
		{"modern-ping-removed", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + modernMeta + `}}`, modern("ping", ""), 404, -32601, "server/discover"},
		{"modern-initialize-removed", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + modernMeta + `}}`, modern("initialize", ""), 404, -32601, "Method not found"},
		// transport
		{"origin-denied", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "https://evil.example"}}, 403, -32600, "MCP_ALLOWED_ORIGINS"},
		{"origin-allowed", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "https://agent.example"}}, 200, 0, `"result":{}`},
		{"origin-loopback", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "http://127.0.0.1:8787"}}, 200, 0, `"result":{}`},
		{"origin-localhost", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "http://localhost:6274"}}, 200, 0, `"result":{}`},
		{"origin-loopback-lookalike", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "http://localhost.evil.example"}}, 403, -32600, "MCP_ALLOWED_ORIGINS"},
		{"origin-loopback-https-port", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "origin", Value: "http://127.0.0.1:99999"}}, 403, -32600, "MCP_ALLOWED_ORIGINS"},
		{"modern-ping-removed", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, modern("ping", ""), 404, -32601, "Method not found"},
		{"accept-sse-only", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []abi.Header{{Name: "accept", Value: "text/event-stream"}}, 406, -32600, "Accept"},
		{"too-large", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 70000) + `"}}`, nil, 413, -32600, "65536"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := mcpPost(s, tc.body, tc.headers...)
			if tc.name == "accept-sse-only" {
				d = mcpPostRaw(s, tc.body, abi.Header{Name: "content-type", Value: "application/json"}, abi.Header{Name: "accept", Value: "text/event-stream"})
			}
			if d.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", d.Status, tc.status, d.Body)
			}
			if tc.status == 202 {
				if len(d.Body) != 0 {
					t.Errorf("202 with a body %s", d.Body)
				}
				return
			}
			m := decodeJSON(t, d.Body)
			if tc.code != 0 {
				e, ok := m["error"].(map[string]any)
				if !ok || e["code"] != tc.code {
					t.Errorf("want error %v: %s", tc.code, d.Body)
				}
			} else if _, ok := m["result"]; !ok {
				t.Errorf("want a result: %s", d.Body)
			}
			if !strings.Contains(string(d.Body), tc.has) {
				t.Errorf("body lacks %s: %s", tc.has, d.Body)
			}
			if !strings.HasPrefix(d.Header("content-type"), "application/json") || d.Header("cache-control") != "no-store" {
				t.Errorf("headers %v", d.Headers)
			}
		})
	}
	// Content-Type and methods.
	if d := mcpPostRaw(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, abi.Header{Name: "content-type", Value: "text/plain"}); d.Status != 415 {
		t.Errorf("text/plain body: %d, want 415", d.Status)
	}
	for _, m := range []string{"GET", "HEAD", "DELETE", "PUT", "OPTIONS"} {
		if d := do(s, m, "/api/agent/mcp"); d.Status != 405 || d.Header("allow") != "POST" {
			t.Errorf("%s /mcp: %d allow %q, want 405 POST", m, d.Status, d.Header("allow"))
		}
	}
	if d := do(s, "OPTIONS", "/api/agent/mcp", abi.Header{Name: "origin", Value: "https://agent.example"}); d.Status != 204 || d.Header("access-control-allow-origin") != "https://agent.example" || d.Header("x-content-type-options") != "nosniff" {
		t.Errorf("preflight from an allowed origin: %d %v", d.Status, d.Headers)
	}
	if d := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, abi.Header{Name: "origin", Value: "https://agent.example"}); d.Header("access-control-allow-origin") != "https://agent.example" {
		t.Errorf("allowed origin: no CORS header")
	}
}

func mcpPostRaw(s *Server, body string, hs ...abi.Header) abi.DecodedResponse {
	var w abi.Response
	s.Handle(&abi.Request{Method: "POST", Target: "/api/agent/mcp", Headers: hs, Body: []byte(body)}, &w)
	d, _ := abi.DecodeResponse(w.Encode())
	return d
}

// TestMCPRateLimit: each POST to /mcp counts; other methods there do not.
func TestMCPRateLimit(t *testing.T) {
	cfg := testConfig()
	cfg.RateLimit = 2
	s := testServer(t, cfg, bundledCatalog(t), nil)
	do(s, "GET", "/api/agent/mcp")
	if d := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); d.Status != 200 || d.Header("x-ratelimit-remaining") != "1" {
		t.Fatalf("first POST: %d remaining %q", d.Status, d.Header("x-ratelimit-remaining"))
	}
	mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if d := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); d.Status != 429 {
		t.Errorf("third POST with a limit of 2: %d, want 429", d.Status)
	}
}

// TestMCPNeverPanics throws random and mutated bodies at the endpoint.
func TestMCPNeverPanics(t *testing.T) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 30
	s := testServer(t, cfg, bundledCatalog(t), nil)
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_quote","arguments":{"pick_up_depot_id":2,"drop_off_depot_id":3,"pick_up_date":"2026-12-08","drop_off_date":"2026-12-19","vehicle_id":5,"accessory_ids":"1,1,2,2","insurance_id":33}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accessories","arguments":{"vehicleId":"5%","a\u0000":"\ud800"},` + modernMeta + `}}`,
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b := []byte(seeds[i%len(seeds)])
		for k := r.Intn(4); k >= 0; k-- {
			b[r.Intn(len(b))] = byte(r.Intn(256))
		}
		d := mcpPost(s, string(b), modern("tools/call", "list_accessories")...)
		if d.Status >= 500 {
			t.Fatalf("%s: %d", b, d.Status)
		}
		if len(d.Body) > 0 && !json.Valid(d.Body) {
			t.Fatalf("%s: invalid JSON answer %s", b, d.Body)
		}
	}
}

// inputHas reports whether tool's inputSchema has property name.
func inputHas(tool map[string]any, name string) bool {
	in, _ := tool["inputSchema"].(map[string]any)
	props, _ := in["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}
