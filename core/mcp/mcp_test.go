package mcp_test

// The endpoint's protocol rules, through its exported entry points (New, Serve,
// Preflight) over a small OpenAPI document and a fake set of operations: the two
// protocol revisions, batches, notifications, the JSON-RPC and HTTP errors, and how a
// tool call reaches an operation.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/mcp"
)

const testOpenAPI = `{
 "paths": {
  "/things": {"get": {
   "parameters": [{"name": "size", "in": "query", "schema": {"type": "integer"}}],
   "responses": {"200": {"content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}}}}},
  "/things/{id}": {"get": {
   "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
   "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}
 },
 "components": {"schemas": {"Thing": {"type": "object", "properties": {"id": {"type": "integer"}}}}}
}`

var testTools = []mcp.Tool{
	{Name: "list_things", Title: "List things", Path: "/things", Wrap: "things", Lead: "Lists things."},
	{Name: "get_thing", Title: "Get a thing", Path: "/things/{id}", PathParam: "id", PathHint: "an id from list_things", Lead: "Gets a thing."},
}

// fakeOps answers list_things with two things (refusing size=0) and get_thing with the
// thing of the path parameter; it records the last run.
type fakeOps struct {
	runs        int
	tool        int
	path, query string
	nowMs       int64
}

func (*fakeOps) OpenAPI() []byte { return []byte(testOpenAPI) }

func (o *fakeOps) Run(i int, pathParam string, query []byte, nowMs int64) ([]byte, string, string, bool) {
	o.runs++
	o.tool, o.path, o.query, o.nowMs = i, pathParam, string(query), nowMs
	if i == 0 {
		if strings.Contains(string(query), "size=0") {
			return nil, "", "size must be at least 1", false
		}
		return []byte(`[{"id":1},{"id":2}]`), "tok2", "", true
	}
	return []byte(`{"id":` + pathParam + `}`), "", "", true
}

const testMaxAge = 300

func newEndpoint() (*mcp.Endpoint, *fakeOps) {
	ops := &fakeOps{}
	cfg := mcp.Config{BasePath: "/api", StaticMaxAge: testMaxAge, AllowedOrigins: []string{"https://ok.example"}, ExposeHeaders: "etag"}
	return mcp.New(cfg, testTools, ops), ops
}

// modern is a 2026-07-28 request: the version in _meta and in its header, Mcp-Method
// set to the method.
func modern(method, params string) mcp.Request {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		meta += "," + params
	}
	return mcp.Request{Method: "POST", ContentType: "application/json", ProtocolVersion: "2026-07-28", MCPMethod: method,
		Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + meta + `}}`)}
}

// legacy is a request of 2025-11-25 and earlier with body body.
func legacy(body string) mcp.Request {
	return mcp.Request{Method: "POST", ContentType: "application/json", Body: []byte(body)}
}

// answer is a JSON-RPC response as the tests read it.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  map[string]any  `json:"result"`
	Error   *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func serve(t *testing.T, e *mcp.Endpoint, req mcp.Request, rawQuery string) (*mcp.Response, answer) {
	t.Helper()
	w := &mcp.Response{}
	e.Serve(&req, w, 1_700_000_000_000, rawQuery)
	var a answer
	if len(w.Body) > 0 {
		if err := json.Unmarshal(w.Body, &a); err != nil {
			t.Fatalf("the answer is not JSON: %v: %s", err, w.Body)
		}
		if a.JSONRPC != "2.0" {
			t.Errorf("jsonrpc %q, want 2.0: %s", a.JSONRPC, w.Body)
		}
	}
	return w, a
}

func header(w *mcp.Response, name string) string {
	for _, h := range w.Headers() {
		if h[0] == name {
			return h[1]
		}
	}
	return ""
}

func TestProtocolErrors(t *testing.T) {
	mod := func(f func(*mcp.Request)) mcp.Request {
		r := modern("tools/list", "")
		f(&r)
		return r
	}
	for _, c := range []struct {
		name     string
		req      mcp.Request
		query    string
		status   int
		code     int    // the JSON-RPC error code (0: no error)
		id       string // the id echoed ("" for none)
		contains string // in the error message
	}{
		{"query string", legacy(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "x=1", 400, -32600, "", "no query parameters"},
		{"content type", mcp.Request{Method: "POST", ContentType: "text/plain", Body: []byte(`{}`)}, "", 415, -32600, "", "Content-Type must be application/json"},
		{"content type with parameters", mcp.Request{Method: "POST", ContentType: "Application/JSON; charset=utf-8", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, "", 200, 0, "1", ""},
		{"body too long", legacy(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + strings.Repeat(" ", 65536)), "", 413, -32600, "", "longer than 65536"},
		{"accept without json", mcp.Request{Method: "POST", ContentType: "application/json", Accept: "text/event-stream", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, "", 406, -32600, "", "Accept must include application/json"},
		{"accept application/*", mcp.Request{Method: "POST", ContentType: "application/json", Accept: "text/event-stream, application/*", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, "", 200, 0, "1", ""},
		{"origin not allowed", mcp.Request{Method: "POST", ContentType: "application/json", Origin: "https://evil.example", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, "", 403, -32600, "", "DNS-rebinding"},
		{"not json", legacy(`{"jsonrpc":`), "", 400, -32700, "", "Parse error"},
		{"invalid utf-8", legacy("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}"), "", 400, -32700, "", "UTF-8"},
		{"nested too deep", legacy(strings.Repeat("[", 65) + strings.Repeat("]", 65)), "", 400, -32700, "", "deeper than 64"},
		{"batch", legacy(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`), "", 400, -32600, "", "batches are not supported"},
		{"not an object", legacy(`"ping"`), "", 400, -32600, "", "request object"},
		{"id a float", legacy(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`), "", 400, -32600, "", "id must be a string or an integer"},
		{"id a boolean", legacy(`{"jsonrpc":"2.0","id":true,"method":"ping"}`), "", 400, -32600, "", "id must be a string or an integer"},
		{"id null", legacy(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), "", 400, -32600, "", "id must be a string or an integer"},
		{"jsonrpc 1.0", legacy(`{"jsonrpc":"1.0","id":"a","method":"ping"}`), "", 400, -32600, `"a"`, `"jsonrpc" must be "2.0"`},
		{"no method", legacy(`{"jsonrpc":"2.0","id":3}`), "", 400, -32600, "3", `"method" is missing`},
		{"a request without id", legacy(`{"jsonrpc":"2.0","method":"tools/list"}`), "", 400, -32600, "", "has no id"},
		{"params an array", legacy(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]}`), "", 400, -32602, "4", `"params" must be an object`},
		{"unknown method", legacy(`{"jsonrpc":"2.0","id":5,"method":"resources/nothing"}`), "", 200, -32601, "5", "Method not found"},
		{"unsupported header version", mcp.Request{Method: "POST", ContentType: "application/json", ProtocolVersion: "1999-01-01", Body: []byte(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)}, "", 400, -32022, "6", "Unsupported protocol version"},
		{"modern: no header", mod(func(r *mcp.Request) { r.ProtocolVersion = "" }), "", 400, -32020, "7", "MCP-Protocol-Version header is missing"},
		{"modern: header differs", mod(func(r *mcp.Request) { r.ProtocolVersion = "2025-11-25" }), "", 400, -32020, "7", "does not match"},
		{"modern: no Mcp-Method", mod(func(r *mcp.Request) { r.MCPMethod = "" }), "", 400, -32020, "7", "Mcp-Method header is missing"},
		{"modern: Mcp-Method differs", mod(func(r *mcp.Request) { r.MCPMethod = "tools/call" }), "", 400, -32020, "7", "does not match the body's method"},
		{"modern: no client capabilities", mcp.Request{Method: "POST", ContentType: "application/json", ProtocolVersion: "2026-07-28", MCPMethod: "tools/list",
			Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)}, "", 400, -32602, "7", "clientCapabilities"},
		{"modern: _meta version not a string", mcp.Request{Method: "POST", ContentType: "application/json", ProtocolVersion: "2026-07-28", MCPMethod: "tools/list",
			Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1}}}`)}, "", 400, -32602, "7", "is required"},
		{"modern: another _meta version", mcp.Request{Method: "POST", ContentType: "application/json", ProtocolVersion: "2025-11-25", MCPMethod: "tools/list",
			Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`)}, "", 400, -32022, "7", "Unsupported protocol version"},
		{"modern: initialize", modern("initialize", ""), "", 404, -32601, "7", "server/discover, tools/list, tools/call, resources/list and resources/read"},
		{"modern: ping", modern("ping", ""), "", 404, -32601, "7", "Method not found"},
		{"modern: Mcp-Name differs", func() mcp.Request {
			r := modern("tools/call", `"name":"list_things"`)
			r.MCPName = "get_thing"
			return r
		}(), "", 400, -32020, "7", "Mcp-Name header"},
		{"modern: no Mcp-Name", modern("tools/call", `"name":"list_things"`), "", 400, -32020, "7", "Mcp-Name header is missing"},
		{"tools/call: no name", legacy(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}`), "", 200, -32602, "8", "params.name"},
		{"tools/call: unknown tool", legacy(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nothing"}}`), "", 200, -32602, "8", "the tools are list_things and get_thing"},
		{"tools/call: arguments an array", legacy(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_things","arguments":[1]}}`), "", 200, -32602, "8", "params.arguments must be an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, ops := newEndpoint()
			w, a := serve(t, e, c.req, c.query)
			if w.Status != c.status {
				t.Errorf("status %d, want %d: %s", w.Status, c.status, w.Body)
			}
			if ct := header(w, "content-type"); ct != "application/json; charset=utf-8" {
				t.Errorf("content-type %q", ct)
			}
			if string(a.ID) != c.id {
				t.Errorf("id %s, want %q: %s", a.ID, c.id, w.Body)
			}
			if c.code == 0 {
				if a.Error != nil || a.Result == nil {
					t.Errorf("want a result: %s", w.Body)
				}
				return
			}
			if a.Error == nil || a.Result != nil {
				t.Fatalf("want an error %d and no result: %s", c.code, w.Body)
			}
			if a.Error.Code != c.code || !strings.Contains(a.Error.Message, c.contains) {
				t.Errorf("error %d %q, want %d containing %q", a.Error.Code, a.Error.Message, c.code, c.contains)
			}
			if c.code == -32022 {
				if a.Error.Data["requested"] == nil || a.Error.Data["supported"] == nil {
					t.Errorf("an unsupported version's error has no data.requested and data.supported: %s", w.Body)
				}
			}
			if ops.runs != 0 {
				t.Errorf("a refused request ran an operation")
			}
		})
	}
}

func TestNotifications(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		e, ops := newEndpoint()
		w, _ := serve(t, e, legacy(body), "")
		if w.Status != 202 || len(w.Body) != 0 {
			t.Errorf("%s: %d %q, want 202 and no body", body, w.Status, w.Body)
		}
		if ct := header(w, "content-type"); ct != "" {
			t.Errorf("%s: a 202 with content-type %q", body, ct)
		}
		if ops.runs != 0 {
			t.Errorf("%s: a notification ran an operation", body)
		}
	}
}

func TestInitializeNegotiates(t *testing.T) {
	for _, c := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
		{"", "2025-11-25"},
	} {
		e, _ := newEndpoint()
		w, a := serve(t, e, legacy(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"`+c.asked+`","capabilities":{}}}`), "")
		if w.Status != 200 || a.Result == nil {
			t.Fatalf("initialize %q: %d %s", c.asked, w.Status, w.Body)
		}
		if got := a.Result["protocolVersion"]; got != c.want {
			t.Errorf("initialize %q: protocolVersion %v, want %s", c.asked, got, c.want)
		}
		if a.Result["instructions"] != mcp.Instructions() {
			t.Errorf("initialize: instructions %v", a.Result["instructions"])
		}
		caps, _ := a.Result["capabilities"].(map[string]any)
		if _, ok := caps["tools"]; !ok {
			t.Errorf("initialize: no tools capability: %s", w.Body)
		}
	}
}

func TestListsAndDiscover(t *testing.T) {
	names := func(r map[string]any) []string {
		tools, _ := r["tools"].([]any)
		var ns []string
		for _, x := range tools {
			tool, _ := x.(map[string]any)
			ns = append(ns, tool["name"].(string))
			if _, ok := tool["inputSchema"].(map[string]any); !ok {
				t.Errorf("tool %v: no inputSchema object", tool["name"])
			}
			if _, ok := tool["outputSchema"].(map[string]any); !ok {
				t.Errorf("tool %v: no outputSchema object", tool["name"])
			}
		}
		return ns
	}
	e, _ := newEndpoint()
	_, a := serve(t, e, legacy(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "")
	if got := strings.Join(names(a.Result), ","); got != "list_things,get_thing" {
		t.Errorf("legacy tools/list: %s", got)
	}
	if _, ok := a.Result["ttlMs"]; ok {
		t.Errorf("legacy tools/list carries ttlMs")
	}
	_, a = serve(t, e, legacy(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), "")
	if len(a.Result) != 0 || a.Result == nil {
		t.Errorf("ping: result %v, want {}", a.Result)
	}

	_, a = serve(t, e, modern("tools/list", ""), "")
	if got := strings.Join(names(a.Result), ","); got != "list_things,get_thing" {
		t.Errorf("modern tools/list: %s", got)
	}
	if a.Result["ttlMs"] != float64(testMaxAge*1000) || a.Result["cacheScope"] != "public" || a.Result["resultType"] != "complete" {
		t.Errorf("modern tools/list: ttlMs %v, cacheScope %v, resultType %v", a.Result["ttlMs"], a.Result["cacheScope"], a.Result["resultType"])
	}
	w, a := serve(t, e, modern("server/discover", ""), "")
	if w.Status != 200 {
		t.Fatalf("server/discover: %d %s", w.Status, w.Body)
	}
	if v, _ := a.Result["supportedVersions"].([]any); len(v) == 0 || v[0] != "2026-07-28" {
		t.Errorf("server/discover: supportedVersions %v", a.Result["supportedVersions"])
	}
	if a.Result["instructions"] != mcp.Instructions() || a.Result["resultType"] != "complete" {
		t.Errorf("server/discover: %s", w.Body)
	}
	meta, _ := a.Result["_meta"].(map[string]any)
	if _, ok := meta["io.modelcontextprotocol/serverInfo"]; !ok {
		t.Errorf("server/discover: no serverInfo in _meta: %s", w.Body)
	}
}

func TestToolCalls(t *testing.T) {
	call := func(name, args string) mcp.Request {
		return legacy(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	}
	for _, c := range []struct {
		name      string
		req       mcp.Request
		runs      bool   // the operation ran
		tool      int    // which
		path      string // with this path parameter
		query     string // and this query
		isError   bool
		text      string // in the first content block
		structure string // structuredContent as JSON ("" for none)
	}{
		{"list", call("list_things", `{"size":"2"}`), true, 0, "", "size=2", false, `"things"`, `{"things":[{"id":1},{"id":2}],"nextPage":"tok2"}`},
		{"integer argument", call("list_things", `{"size":3}`), true, 0, "", "size=3", false, "", `{"things":[{"id":1},{"id":2}],"nextPage":"tok2"}`},
		{"null argument left out", call("list_things", `{"size":null,"b":"x y&z"}`), true, 0, "", "b=x%20y%26z", false, "", `{"things":[{"id":1},{"id":2}],"nextPage":"tok2"}`},
		{"no arguments", legacy(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_things"}}`), true, 0, "", "", false, "", `{"things":[{"id":1},{"id":2}],"nextPage":"tok2"}`},
		{"path parameter", call("get_thing", `{"id":7}`), true, 1, "7", "", false, "", `{"id":7}`},
		{"missing path parameter", call("get_thing", `{}`), false, 0, "", "", true, "missing required argument id (an id from list_things)", ""},
		{"boolean argument", call("list_things", `{"size":true}`), false, 0, "", "", true, `argument "size" must be a string or an integer, got a boolean`, ""},
		{"array argument", call("list_things", `{"size":[1]}`), false, 0, "", "", true, "got an array", ""},
		{"operation refuses", call("list_things", `{"size":"0"}`), true, 0, "", "size=0", true, "size must be at least 1", ""},
		{"modern, Mcp-Name in base64", func() mcp.Request {
			r := modern("tools/call", `"name":"get_thing","arguments":{"id":"5"}`)
			r.MCPName = "=?base64?Z2V0X3RoaW5n?="
			return r
		}(), true, 1, "5", "", false, "", `{"id":5}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, ops := newEndpoint()
			w, a := serve(t, e, c.req, "")
			if w.Status != 200 || a.Error != nil {
				t.Fatalf("status %d: %s", w.Status, w.Body)
			}
			if (ops.runs > 0) != c.runs {
				t.Fatalf("operation ran %d times, want it to run: %v", ops.runs, c.runs)
			}
			if c.runs && (ops.tool != c.tool || ops.path != c.path || ops.query != c.query || ops.nowMs != 1_700_000_000_000) {
				t.Errorf("ran tool %d path %q query %q at %d, want %d %q %q", ops.tool, ops.path, ops.query, ops.nowMs, c.tool, c.path, c.query)
			}
			if a.Result["isError"] != c.isError {
				t.Errorf("isError %v, want %v: %s", a.Result["isError"], c.isError, w.Body)
			}
			content, _ := a.Result["content"].([]any)
			block, _ := func() (map[string]any, bool) {
				if len(content) == 0 {
					return nil, false
				}
				b, ok := content[0].(map[string]any)
				return b, ok
			}()
			txt, _ := block["text"].(string)
			if block["type"] != "text" || !strings.Contains(txt, c.text) {
				t.Errorf("content %v, want a text block containing %q", content, c.text)
			}
			sc, ok := a.Result["structuredContent"]
			if c.structure == "" {
				if ok {
					t.Errorf("an error result with structuredContent: %s", w.Body)
				}
				return
			}
			got, _ := json.Marshal(sc)
			var want any
			json.Unmarshal([]byte(c.structure), &want)
			wantJSON, _ := json.Marshal(want)
			if string(got) != string(wantJSON) {
				t.Errorf("structuredContent %s, want %s", got, wantJSON)
			}
			if txt != string(got) {
				var fromText any
				if json.Unmarshal([]byte(txt), &fromText) != nil {
					t.Errorf("the text block is not the structured content as JSON: %q", txt)
				} else if b, _ := json.Marshal(fromText); string(b) != string(got) {
					t.Errorf("the text block %s differs from structuredContent %s", b, got)
				}
			}
		})
	}
}

func TestOriginsAndPreflight(t *testing.T) {
	e, _ := newEndpoint()
	req := legacy(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	req.Origin = "https://ok.example"
	w, _ := serve(t, e, req, "")
	if w.Status != 200 || header(w, "access-control-allow-origin") != "https://ok.example" || header(w, "access-control-expose-headers") != "etag" || header(w, "vary") != "Origin" {
		t.Errorf("an allowed origin: %d %v", w.Status, w.Headers())
	}
	w, _ = serve(t, e, legacy(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "")
	if header(w, "access-control-allow-origin") != "" {
		t.Errorf("no origin, yet CORS headers: %v", w.Headers())
	}
	if header(w, "cache-control") != "no-store" || header(w, "x-content-type-options") != "nosniff" {
		t.Errorf("headers %v", w.Headers())
	}
	for _, c := range []struct {
		method, origin string
		want           bool
	}{
		{"OPTIONS", "https://ok.example", true},
		{"OPTIONS", "https://evil.example", false},
		{"OPTIONS", "", false},
		{"GET", "https://ok.example", false},
	} {
		w := &mcp.Response{}
		got := e.Preflight(&mcp.Request{Method: c.method, Origin: c.origin}, w)
		if got != c.want {
			t.Errorf("Preflight %s from %q = %v, want %v", c.method, c.origin, got, c.want)
		}
		if got && (w.Status != 204 || header(w, "access-control-allow-methods") != "POST" || header(w, "access-control-allow-origin") != c.origin) {
			t.Errorf("Preflight %s from %q: %d %v", c.method, c.origin, w.Status, w.Headers())
		}
		if !got && w.Status != 0 {
			t.Errorf("Preflight %s from %q answered %d", c.method, c.origin, w.Status)
		}
	}
}
