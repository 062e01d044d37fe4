// Package mcp is the MCP endpoint: POST {base}/mcp, JSON-RPC 2.0 over MCP's streamable
// HTTP transport, answered with single JSON responses (no SSE stream is ever opened).
// Its tools are operations of the HTTP API, run through the narrow Operations interface
// by the API's own handlers over a query string built from the tool's arguments, so
// validation and error messages are shared. Their input and output schemas are derived
// once per Endpoint from the OpenAPI document, so they cannot drift apart.
//
// Two protocol eras are served on the same endpoint, chosen per request:
//
//   - 2026-07-28 ("modern", stateless) when params._meta carries
//     "io.modelcontextprotocol/protocolVersion" or the MCP-Protocol-Version header is
//     2026-07-28: no initialize; the header must equal the _meta version, Mcp-Method
//     must equal the method and, for tools/call, Mcp-Name the tool (-32020 otherwise);
//     _meta must carry clientCapabilities (-32602); server/discover, tools/list and
//     tools/call are answered; results carry resultType "complete" and serverInfo in
//     _meta, list and discover results ttlMs and cacheScope.
//   - otherwise 2025-11-25 and earlier ("legacy"): initialize (negotiating 2025-11-25,
//     2025-06-18 or 2025-03-26), notifications/initialized (202), ping, tools/list,
//     tools/call. No session id is minted: every request stands alone, so tools/list
//     and tools/call also work without a prior initialize.
package mcp

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

const (
	maxMCPBody    = 64 << 10 // bytes of a POST body; the glue reads at most one more
	maxJSONDepth  = 64       // nesting of the JSON body (a bound on what the endpoint walks)
	mcpModern     = "2026-07-28"
	mcpLegacy     = "2025-11-25"
	mcpSupported  = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]`
	mcpServerInfo = `{"name":"campervan-agent-api","title":"Campervan rental agent API","version":"1.0.0"}`
	mcpResultMeta = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + mcpServerInfo + `}`
	metaVersion   = "io.modelcontextprotocol/protocolVersion"
	metaCaps      = "io.modelcontextprotocol/clientCapabilities"
)

// JSON-RPC 2.0 and MCP error codes.
const (
	rpcParseError         = -32700
	rpcInvalidRequest     = -32600
	rpcMethodNotFound     = -32601
	rpcInvalidParams      = -32602
	rpcHeaderMismatch     = -32020
	rpcUnsupportedVersion = -32022
)

const mcpInstructions = "New Zealand campervan hire: discovery and exact price quotes (read-only; nothing is booked). Call order: list_depots, then search_vehicles (depot ids and dates; filters min_berths, transmission, class, max_total and sort) or, when the dates are flexible, search_calendar (every start date of a range in one call), then optionally list_accessories and list_insurance_plans (with a vehicleId from search_vehicles), then get_quote. Dates are YYYY-MM-DD (New Zealand); both the pick-up and the drop-off day are charged. All amounts are NZD. To book, give the customer the quote's checkoutUrl (or a vehicle's bookingUrl). A tool error (isError) names the argument at fault and what would be accepted: fix that argument and call again."

// Tool is one tool: an operation of the API under another name.
type Tool struct {
	Name, Title string
	Path        string // the operation's path in the OpenAPI document
	PathParam   string // the path parameter the arguments carry ("" for none)
	PathHint    string // where the path parameter comes from, for "missing" messages
	Wrap        string // the property that holds an array result ("" for an object)
	Lead        string // its description: what it answers, where its ids come from
	// Opaque: the output schema is {"type":"object"}, for a reference document whose
	// schema the Lead names (the OpenAPI document has it) rather than repeats.
	Opaque bool
}

// Operations is what the endpoint needs of the API.
type Operations interface {
	// OpenAPI returns the served OpenAPI document.
	OpenAPI() []byte
	// Run runs the operation of tool i over query (a query string) and the path
	// parameter; it returns the answer's body and, when the body is a page of a longer
	// list, the next page's token (both valid until the next Run), or the error
	// message when the operation refused the arguments.
	Run(i int, pathParam string, query []byte, nowMs int64) (body []byte, next string, msg string, ok bool)
}

// Request is what the endpoint reads of an HTTP request. Its strings and Body may
// alias the caller's buffers: they are read during the call only.
type Request struct {
	Method string
	Body   []byte
	// the headers the endpoint reads ("" when absent)
	Origin, ContentType, Accept string
	ProtocolVersion             string // MCP-Protocol-Version
	MCPMethod, MCPName          string // Mcp-Method, Mcp-Name
}

// Response is the endpoint's answer, for the caller to send: its status, its headers
// in the order they were set, and its body, appended to Body (the caller may hand it a
// buffer to reuse).
type Response struct {
	Status  int
	Body    []byte
	headers [maxHeaders][2]string
	n       int
}

// maxHeaders is the most headers an answer sets (a preflight's six).
const maxHeaders = 6

// SetHeader adds a header (a lower-case name).
func (w *Response) SetHeader(name, value string) {
	w.headers[w.n] = [2]string{name, value}
	w.n++
}

// Headers returns the headers set, as name-value pairs in order.
func (w *Response) Headers() [][2]string { return w.headers[:w.n] }

// Config is what the endpoint takes of the API's configuration.
type Config struct {
	BasePath       string   // the API's path prefix, for tool descriptions
	StaticMaxAge   int64    // seconds a tools/list or server/discover answer may be cached
	AllowedOrigins []string // browser origins allowed to POST (MCP_ALLOWED_ORIGINS)
	ExposeHeaders  string   // access-control-expose-headers of an allowed origin's answer
}

// Endpoint answers the MCP endpoint. It is not safe for concurrent use.
type Endpoint struct {
	cfg   Config
	tools []Tool
	ops   Operations

	// Built from the OpenAPI document on the first request (most isolates serve none).
	built       bool
	toolsLegacy []byte // tools/list result, 2025-11-25
	toolsModern []byte // tools/list result, 2026-07-28 (cache hints, resultType)
	discover    []byte // server/discover result
	toolNames   string // "a, b and c", for the unknown-tool message

	// Per-request scratch.
	qs         []byte // the arguments as a query string
	structured []byte // structuredContent
	res        []byte // the JSON-RPC result
}

// New returns the endpoint serving tools over ops.
func New(cfg Config, tools []Tool, ops Operations) *Endpoint {
	return &Endpoint{cfg: cfg, tools: tools, ops: ops}
}

// build derives the tools from the served OpenAPI document, once.
func (m *Endpoint) build() {
	if m.built {
		return
	}
	m.built = true
	cfg := &m.cfg
	d := jsonv.ParseBytes(m.ops.OpenAPI())
	schemas := field(field(d, "components"), "schemas")
	paths := field(d, "paths")
	tools := []byte(`{"tools":[`)
	outputs := make([]string, len(m.tools)) // the component each tool answers with, if any
	var said []string                       // the components the tools so far write in full
	for i := range m.tools {
		outputs[i] = outputComponent(field(field(paths, m.tools[i].Path), "get"))
	}
	for i := range m.tools {
		t := &m.tools[i]
		op := field(field(paths, t.Path), "get")
		switch {
		case i == 0:
		case i == len(m.tools)-1:
			m.toolNames += " and "
		default:
			m.toolNames += ", "
		}
		m.toolNames += t.Name
		if i > 0 {
			tools = append(tools, ',')
		}
		tools = jsonw.AppendMember(tools, `{"name":`, t.Name)
		tools = jsonw.AppendMember(tools, `,"title":`, t.Title)
		tools = jsonw.AppendMember(tools, `,"description":`, t.Lead)
		tools = append(tools, `,"inputSchema":`...)
		tools = appendToolInput(tools, op, schemas)
		tools = append(tools, `,"outputSchema":`...)
		// Said elsewhere: the other tools' whole answers, and the parts of earlier tools' answers.
		others := make([]string, 0, len(outputs)+len(said))
		for j, o := range outputs {
			if j != i && o != "" && o != outputs[i] {
				others = append(others, o)
			}
		}
		for _, c := range said {
			if c != outputs[i] && !slices.Contains(others, c) {
				others = append(others, c)
			}
		}
		if t.Opaque {
			tools = append(tools, `{"type":"object"}`...)
		} else {
			tools = appendToolOutput(tools, op, schemas, t.Wrap, others, takesPage(op))
			said = appendSaid(said, outputSchema(op), schemas, others, 0)
		}
		// destructiveHint and idempotentHint mean something only without readOnlyHint
		tools = append(tools, `,"annotations":{"readOnlyHint":true,"openWorldHint":false}}`...)
	}
	tools = append(tools, ']')
	m.toolsLegacy = append(append([]byte(nil), tools...), '}')
	ttl := jsonw.AppendInt(nil, cfg.StaticMaxAge*1000)
	m.toolsModern = append(append(append(append(tools, `,"ttlMs":`...), ttl...), `,"cacheScope":"public",`+mcpResultMeta...), '}')
	b := []byte(`{"supportedVersions":` + mcpSupported + `,"capabilities":{"tools":{"listChanged":false}},"instructions":`)
	b = jsonw.AppendJSONString(b, mcpInstructions)
	b = append(append(b, `,"ttlMs":`...), ttl...)
	m.discover = append(b, `,"cacheScope":"public",`+mcpResultMeta+`}`...)
}

// field returns member key of object obj (the first, if repeated); keys may hold
// dots and slashes, which are not syntax to jsonv.
func field(obj jsonv.Result, key string) jsonv.Result { return obj.Member(key) }

// Serve answers a POST to the MCP endpoint (already counted by the rate limit).
func (s *Endpoint) Serve(req *Request, w *Response, nowMs int64, rawQuery string) {
	s.build()
	if s.refuseHTTP(w, req, rawQuery) {
		return
	}
	id, method, params, ok := s.readMessage(w, req)
	if !ok {
		return
	}
	meta := field(params, "_meta")
	metaV := field(meta, metaVersion)
	hv := req.ProtocolVersion
	if metaV.Exists() || hv == mcpModern {
		s.serveModern(w, req, id, method, params, meta, metaV, hv, nowMs)
		return
	}
	if hv != "" && hv != mcpLegacy && hv != "2025-06-18" && hv != "2025-03-26" {
		s.rpcError(w, req, 400, id, rpcUnsupportedVersion, "Unsupported protocol version "+text.QuoteClean(hv)+" in the MCP-Protocol-Version header", hv)
		return
	}
	s.serveLegacy(w, req, id, method, params, nowMs)
}

// refuseHTTP answers a request whose HTTP form the endpoint does not take (an origin
// not allowed, a query string, another content type, a body too long, an Accept
// without JSON) and reports whether it did. Inlined: every MCP request runs it.
//
//go:inline
func (s *Endpoint) refuseHTTP(w *Response, req *Request, rawQuery string) bool {
	if origin := req.Origin; origin != "" && !s.originAllowed(origin) {
		s.rpcError(w, req, 403, "", rpcInvalidRequest, "Origin "+text.QuoteClean(origin)+" may not use this MCP endpoint (DNS-rebinding protection): requests without an Origin header are accepted, and browser origins must be listed in the Worker var MCP_ALLOWED_ORIGINS", "")
		return true
	}
	if rawQuery != "" {
		s.rpcError(w, req, 400, "", rpcInvalidRequest, "the MCP endpoint takes no query parameters: send one JSON-RPC message as the POST body", "")
		return true
	}
	if !isMediaType(req.ContentType, "application/json") {
		s.rpcError(w, req, 415, "", rpcInvalidRequest, "Content-Type must be application/json (one JSON-RPC message), got "+text.QuoteClean(req.ContentType), "")
		return true
	}
	if len(req.Body) > maxMCPBody {
		s.rpcError(w, req, 413, "", rpcInvalidRequest, "the request body is longer than 65536 bytes (the limit of this MCP endpoint)", "")
		return true
	}
	if a := req.Accept; a != "" && !acceptsJSON(a) {
		s.rpcError(w, req, 406, "", rpcInvalidRequest, "Accept must include application/json: this MCP endpoint answers with single JSON responses, never an SSE stream; got "+text.QuoteClean(a), "")
		return true
	}
	return false
}

// readMessage reads the body as one JSON-RPC request: its id (raw JSON), method and
// params. It answers a body that is no request, and a notification (202, no body), and
// then returns ok false. Inlined: every MCP request runs it.
//
//go:inline
func (s *Endpoint) readMessage(w *Response, req *Request) (id, method string, params jsonv.Result, ok bool) {
	// JSON is UTF-8 (RFC 8259) and jsonv does not check it: without utf8.Valid, a string
	// id with invalid UTF-8 would be echoed into the answer as it came.
	if !shallowJSON(req.Body) || !jsonv.ValidBytes(req.Body) || !utf8.Valid(req.Body) {
		s.rpcError(w, req, 400, "", rpcParseError, "Parse error: the body is not valid JSON in UTF-8 (or is nested deeper than 64 levels)", "")
		return "", "", params, false
	}
	root := jsonv.ParseBytes(req.Body)
	if root.IsArray() {
		s.rpcError(w, req, 400, "", rpcInvalidRequest, "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per POST", "")
		return "", "", params, false
	}
	if !root.IsObject() {
		s.rpcError(w, req, 400, "", rpcInvalidRequest, "Invalid Request: the body must be a JSON-RPC request object", "")
		return "", "", params, false
	}
	if idv := field(root, "id"); idv.Exists() {
		if !isRequestID(idv) {
			s.rpcError(w, req, 400, "", rpcInvalidRequest, "Invalid Request: id must be a string or an integer", "")
			return "", "", params, false
		}
		id = idv.Raw
	}
	if v := field(root, "jsonrpc"); v.Type != jsonv.String || v.Str != "2.0" {
		s.rpcError(w, req, 400, id, rpcInvalidRequest, `Invalid Request: member "jsonrpc" must be "2.0"`, "")
		return "", "", params, false
	}
	mv := field(root, "method")
	if mv.Type != jsonv.String || mv.Str == "" {
		s.rpcError(w, req, 400, id, rpcInvalidRequest, methodMissing(root, mv), "")
		return "", "", params, false
	}
	method = mv.Str
	if id == "" {
		if len(method) > 14 && method[:14] == "notifications/" {
			w.Status = 202 // accepted; a notification gets no response
			s.headers(w, req.Origin, false)
			return "", "", params, false
		}
		s.rpcError(w, req, 400, "", rpcInvalidRequest, "Invalid Request: "+text.QuoteClean(method)+" has no id; only notifications (methods notifications/...) go without one", "")
		return "", "", params, false
	}
	params = field(root, "params")
	if params.Exists() && !params.IsObject() {
		s.rpcError(w, req, 400, id, rpcInvalidParams, "Invalid params: member \"params\" must be an object", "")
		return "", "", params, false
	}
	return id, method, params, true
}

// methodMissing says what is wrong with message root whose member "method" (mv) is not
// a non-empty string.
func methodMissing(root, mv jsonv.Result) string {
	switch {
	case mv.Exists():
		return "Invalid Request: member \"method\" must be a non-empty string"
	case field(root, "result").Exists() || field(root, "error").Exists():
		return "Invalid Request: this server sends no requests, so it takes no JSON-RPC responses"
	}
	return "Invalid Request: member \"method\" is missing; it names the operation, e.g. \"tools/list\""
}

// serveLegacy answers a request of revision 2025-11-25 or earlier.
func (s *Endpoint) serveLegacy(w *Response, req *Request, id, method string, params jsonv.Result, nowMs int64) {
	switch method {
	case "initialize":
		v := mcpLegacy
		switch rv := field(params, "protocolVersion").String(); rv {
		case "2025-06-18", "2025-03-26":
			v = rv
		}
		b := append(s.res[:0], `{"protocolVersion":"`...)
		b = append(b, v...)
		b = append(b, `","capabilities":{"tools":{"listChanged":false}},"serverInfo":`+mcpServerInfo+`,"instructions":`...)
		b = jsonw.AppendJSONString(b, mcpInstructions)
		s.res = append(b, '}')
		s.rpcResult(w, req, id, s.res)
	case "ping":
		s.rpcResult(w, req, id, []byte("{}"))
	case "tools/list":
		s.rpcResult(w, req, id, s.toolsLegacy)
	case "tools/call":
		s.callTool(w, req, id, params, false, nowMs)
	default:
		s.rpcError(w, req, 200, id, rpcMethodNotFound, "Method not found: "+text.QuoteClean(method)+"; this server answers initialize, ping, tools/list and tools/call (protocol 2025-11-25), and server/discover, tools/list and tools/call (protocol 2026-07-28)", "")
	}
}

// serveModern answers a request of the stateless 2026-07-28 revision.
func (s *Endpoint) serveModern(w *Response, req *Request, id, method string, params, meta, metaV jsonv.Result, hv string, nowMs int64) {
	if metaV.Type != jsonv.String {
		s.rpcError(w, req, 400, id, rpcInvalidParams, `Invalid params: params._meta["`+metaVersion+`"] is required (a string, "2026-07-28") with protocol 2026-07-28`, "")
		return
	}
	if metaV.Str != mcpModern {
		s.rpcError(w, req, 400, id, rpcUnsupportedVersion, "Unsupported protocol version "+text.QuoteClean(metaV.Str)+`: per-request _meta versions are served for 2026-07-28; for 2025-11-25, 2025-06-18 or 2025-03-26 start with initialize`, metaV.Str)
		return
	}
	if hv != metaV.Str {
		msg := "Header mismatch: the MCP-Protocol-Version header is missing; it must equal params._meta[\"" + metaVersion + "\"] (2026-07-28)"
		if hv != "" {
			msg = "Header mismatch: MCP-Protocol-Version header " + text.QuoteClean(hv) + " does not match params._meta[\"" + metaVersion + "\"] \"2026-07-28\""
		}
		s.rpcError(w, req, 400, id, rpcHeaderMismatch, msg, "")
		return
	}
	if mm := req.MCPMethod; mm != method {
		msg := "Header mismatch: the Mcp-Method header is missing; it must equal the body's method " + text.QuoteClean(method)
		if mm != "" {
			msg = "Header mismatch: Mcp-Method header " + text.QuoteClean(mm) + " does not match the body's method " + text.QuoteClean(method)
		}
		s.rpcError(w, req, 400, id, rpcHeaderMismatch, msg, "")
		return
	}
	if !field(meta, metaCaps).IsObject() {
		s.rpcError(w, req, 400, id, rpcInvalidParams, `Invalid params: params._meta["`+metaCaps+`"] is required (an object, {} for none) with protocol 2026-07-28`, "")
		return
	}
	switch method {
	case "server/discover":
		s.rpcResult(w, req, id, s.discover)
	case "tools/list":
		s.rpcResult(w, req, id, s.toolsModern)
	case "tools/call":
		name := field(params, "name")
		hn := decodeSentinel(req.MCPName)
		if name.Type == jsonv.String && hn != name.Str {
			msg := "Header mismatch: the Mcp-Name header is missing; it must equal params.name " + text.QuoteClean(name.Str)
			if req.MCPName != "" {
				msg = "Header mismatch: Mcp-Name header " + text.QuoteClean(hn) + " does not match params.name " + text.QuoteClean(name.Str)
			}
			s.rpcError(w, req, 400, id, rpcHeaderMismatch, msg, "")
			return
		}
		s.callTool(w, req, id, params, true, nowMs)
	default:
		s.rpcError(w, req, 404, id, rpcMethodNotFound, "Method not found: "+text.QuoteClean(method)+"; with protocol 2026-07-28 this server answers server/discover, tools/list and tools/call", "")
	}
}

// callTool runs tools/call: the arguments become a query string for the operation's
// own function, whose result or error becomes the tool result.
func (s *Endpoint) callTool(w *Response, req *Request, id string, params jsonv.Result, modern bool, nowMs int64) {
	name := field(params, "name")
	if name.Type != jsonv.String {
		s.rpcError(w, req, 200, id, rpcInvalidParams, "Invalid params: params.name must be the name of a tool (see tools/list)", "")
		return
	}
	ti := -1
	for i := range s.tools {
		if s.tools[i].Name == name.Str {
			ti = i
		}
	}
	if ti < 0 {
		s.rpcError(w, req, 200, id, rpcInvalidParams, "Unknown tool "+text.QuoteClean(name.Str)+"; the tools are "+s.toolNames, "")
		return
	}
	t := &s.tools[ti]
	args := field(params, "arguments")
	if args.Exists() && args.Type != jsonv.Null && !args.IsObject() {
		s.rpcError(w, req, 200, id, rpcInvalidParams, "Invalid params: params.arguments must be an object of the tool's arguments", "")
		return
	}
	pathParam, bad := s.argsQuery(t, args)
	var body []byte
	var next string
	if bad == "" {
		var msg string
		var ok bool
		if body, next, msg, ok = s.ops.Run(ti, pathParam, s.qs, nowMs); !ok {
			bad = msg
		}
	}
	s.res = s.appendToolResult(s.res[:0], t, body, next, bad, modern)
	s.rpcResult(w, req, id, s.res)
}

// argsQuery writes the arguments of tool t, but its path parameter, into s.qs as a
// query string, and returns the path parameter; bad is why the arguments are refused
// ("" when they are not).
func (s *Endpoint) argsQuery(t *Tool, args jsonv.Result) (pathParam, bad string) {
	qs := s.qs[:0]
	hasPathParam := false
	args.ForEach(func(k, v jsonv.Result) bool {
		key := k.String()
		var val string
		switch v.Type {
		case jsonv.Null:
			return true // an argument given as null is left out, as if absent
		case jsonv.String:
			val = v.Str
		case jsonv.Number:
			val = v.Raw // an integer stays as written; anything else is refused by name
		default:
			bad = badArgument(key, v)
			return false
		}
		if t.PathParam != "" && key == t.PathParam {
			pathParam, hasPathParam = val, true
			return true
		}
		if len(qs) > 0 {
			qs = append(qs, '&')
		}
		qs = appendQueryEscape(qs, key)
		qs = append(qs, '=')
		qs = appendQueryEscape(qs, val)
		return true
	})
	s.qs = qs
	if bad == "" && t.PathParam != "" && !hasPathParam {
		bad = "missing required argument " + t.PathParam + " (" + t.PathHint + ")"
	}
	return pathParam, bad
}

// badArgument says why argument key, a boolean, an array or an object (v), is refused.
func badArgument(key string, v jsonv.Result) string {
	what := "a boolean"
	if v.IsArray() {
		what = "an array"
	} else if v.IsObject() {
		what = "an object"
	}
	bad := "argument " + text.QuoteClean(key) + " must be a string or an integer, got " + what
	if key == "accessory_ids" {
		bad += `; give accessory ids as one comma-separated string, e.g. "1,1,2"`
	}
	return bad
}

// appendToolResult appends the result of a call of tool t: the operation's body (and
// the next page's token, when there is one), or the error bad when it is not "".
//
// The text block is the structuredContent serialized, as every protocol revision
// served says a tool with structured content SHOULD return it (for backwards
// compatibility: hosts that pass only content to the model see the whole result).
// The result's size is kept down by paging instead: a page of a list ends near
// ~3 KB, and nextPage says how to ask for the next one.
func (s *Endpoint) appendToolResult(b []byte, t *Tool, body []byte, next, bad string, modern bool) []byte {
	if bad != "" {
		b = jsonw.AppendMember(b, `{"content":[{"type":"text","text":`, bad)
		b = append(b, `}],"isError":true`...)
	} else {
		// structuredContent, then the same JSON as the text block.
		sc := s.structured[:0]
		if t.Wrap != "" {
			sc = append(sc, `{"`...)
			sc = append(sc, t.Wrap...)
			sc = append(sc, `":`...)
			sc = append(sc, body...)
			if next != "" {
				sc = jsonw.AppendMember(sc, `,"nextPage":`, next)
			}
			sc = append(sc, '}')
		} else {
			sc = append(sc, body...)
		}
		s.structured = sc
		b = jsonw.AppendMember(b, `{"content":[{"type":"text","text":`, text.BytesString(sc))
		b = append(b, `}],"structuredContent":`...)
		b = append(b, sc...)
		b = append(b, `,"isError":false`...)
	}
	if modern {
		b = append(b, ","+mcpResultMeta...)
	}
	return append(b, '}')
}

// rpcResult writes a JSON-RPC result response; result is a JSON object. Modern
// results already carry resultType and _meta.
func (s *Endpoint) rpcResult(w *Response, req *Request, id string, result []byte) {
	w.Status = 200
	s.headers(w, req.Origin, true)
	w.Body = append(w.Body, `{"jsonrpc":"2.0","id":`...)
	w.Body = append(w.Body, id...)
	w.Body = append(w.Body, `,"result":`...)
	w.Body = append(w.Body, result...)
	w.Body = append(w.Body, '}')
}

// rpcError writes a JSON-RPC error response with HTTP status; id is the request's id
// as raw JSON, or "" when it could not be read (the member is then left out, as MCP's
// schema has it). requested, when not "", makes it an UnsupportedProtocolVersionError
// with its data.
func (s *Endpoint) rpcError(w *Response, req *Request, status int, id string, code int64, msg, requested string) {
	w.Status = status
	origin := req.Origin
	s.headers(w, origin, origin == "" || s.originAllowed(origin))
	w.Body = append(w.Body, `{"jsonrpc":"2.0",`...)
	if id != "" {
		w.Body = append(w.Body, `"id":`...)
		w.Body = append(w.Body, id...)
		w.Body = append(w.Body, ',')
	}
	w.Body = append(w.Body, `"error":{"code":`...)
	w.Body = jsonw.AppendInt(w.Body, code)
	w.Body = append(w.Body, `,"message":`...)
	w.Body = jsonw.AppendJSONString(w.Body, msg)
	if code == rpcUnsupportedVersion {
		w.Body = append(w.Body, `,"data":{"supported":`+mcpSupported+`,"requested":`...)
		w.Body = jsonw.AppendJSONString(w.Body, text.Clean(requested))
		w.Body = append(w.Body, '}')
	}
	w.Body = append(w.Body, "}}"...)
}

// headers sets the headers of every MCP answer. A browser origin gets CORS headers
// only once it is allowed.
func (s *Endpoint) headers(w *Response, origin string, allowed bool) {
	if w.Status != 202 {
		w.SetHeader("content-type", "application/json; charset=utf-8")
	}
	w.SetHeader("x-content-type-options", "nosniff")
	w.SetHeader("cache-control", "no-store")
	if origin != "" && allowed {
		w.SetHeader("access-control-allow-origin", origin)
		w.SetHeader("access-control-expose-headers", s.cfg.ExposeHeaders)
		w.SetHeader("vary", "Origin")
	}
}

// Preflight answers a CORS preflight from an allowed origin and reports whether it
// did; any other method but POST is the caller's to refuse (405).
func (s *Endpoint) Preflight(req *Request, w *Response) bool {
	origin := req.Origin
	if req.Method != "OPTIONS" || origin == "" || !s.originAllowed(origin) {
		return false
	}
	w.Status = 204
	w.SetHeader("access-control-allow-origin", origin)
	w.SetHeader("access-control-allow-methods", "POST")
	w.SetHeader("access-control-allow-headers", "Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name")
	w.SetHeader("access-control-max-age", "86400")
	w.SetHeader("allow", "POST")
	w.SetHeader("vary", "Origin")
	return true
}

func (s *Endpoint) originAllowed(origin string) bool {
	for _, o := range s.cfg.AllowedOrigins {
		if o == origin {
			return true
		}
	}
	return false
}

// isMediaType reports whether header value v names media type t (parameters and
// case aside).
func isMediaType(v, t string) bool {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.EqualFold(strings.Trim(v, " \t"), t)
}

// acceptsJSON reports whether an Accept header admits application/json (leniently:
// any entry application/json, application/* or */*).
func acceptsJSON(a string) bool {
	for len(a) > 0 {
		end := strings.IndexByte(a, ',')
		if end < 0 {
			end = len(a)
		}
		e := a[:end]
		if isMediaType(e, "application/json") || isMediaType(e, "application/*") || isMediaType(e, "*/*") {
			return true
		}
		if end == len(a) {
			break
		}
		a = a[end+1:]
	}
	return false
}

// isRequestID reports whether v is a JSON-RPC id MCP allows: a string or an integer.
func isRequestID(v jsonv.Result) bool {
	switch v.Type {
	case jsonv.String:
		return true
	case jsonv.Number:
		r := v.Raw
		if len(r) > 0 && r[0] == '-' {
			r = r[1:]
		}
		_, ok := text.Digits(r, 1<<62)
		return ok && len(r) <= 16
	}
	return false
}

// shallowJSON reports whether b nests arrays and objects at most maxJSONDepth deep
// (outside strings): a bound on the work and the stack of walking the body.
func shallowJSON(b []byte) bool {
	depth := 0
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '[', '{':
			depth++
			if depth > maxJSONDepth {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// decodeSentinel decodes MCP's header value encoding "=?base64?...?=".
func decodeSentinel(v string) string {
	const pre, suf = "=?base64?", "?="
	if len(v) < len(pre)+len(suf) || v[:len(pre)] != pre || v[len(v)-len(suf):] != suf {
		return v
	}
	d, err := base64.StdEncoding.DecodeString(v[len(pre) : len(v)-len(suf)])
	if err != nil {
		return v
	}
	return string(d)
}

// appendQueryEscape appends s percent-encoded for a query string (all but
// unreserved characters).
func appendQueryEscape(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xf])
	}
	return b
}
