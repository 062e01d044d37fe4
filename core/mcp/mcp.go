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
//     _meta must carry clientCapabilities (-32602); server/discover, tools/list,
//     tools/call, resources/list and resources/read are answered (any other method,
//     ping and initialize among them, is 404/-32601, as that revision says); results
//     carry resultType "complete" and serverInfo in _meta, list and discover results
//     ttlMs and cacheScope.
//   - otherwise 2025-11-25 and earlier ("legacy"): initialize (negotiating 2025-11-25,
//     2025-06-18 or 2025-03-26), notifications/initialized (202), ping, tools/list,
//     tools/call, resources/list, resources/read. No session id is minted: every
//     request stands alone, so the others also work without a prior initialize.
//
// The resources are the MCP Apps views (resources.go).
package mcp

import (
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

// The capabilities served, and the methods of each revision.
const (
	mcpCapabilities = `{"tools":{"listChanged":false},"resources":{"listChanged":false}}`
	legacyMethods   = "initialize, ping, tools/list, tools/call, resources/list and resources/read"
	modernMethods   = "server/discover, tools/list, tools/call, resources/list and resources/read"
)

// modernMethod reports whether method is one this server answers in revision 2026-07-28
// (which has no ping and no initialize).
func modernMethod(method string) bool {
	switch method {
	case "server/discover", "tools/list", "tools/call", "resources/list", "resources/read":
		return true
	}
	return false
}

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

// maxHeaders is the most headers an answer sets (a preflight's seven).
const maxHeaders = 7

// SetHeader adds a header (a lower-case name).
func (w *Response) SetHeader(name, value string) {
	w.headers[w.n] = [2]string{name, value}
	w.n++
}

// Headers returns the headers set, as name-value pairs in order.
func (w *Response) Headers() [][2]string { return w.headers[:w.n] }

// Config is what the endpoint takes of the API's configuration.
type Config struct {
	BasePath       string     // the API's path prefix, for tool descriptions
	StaticMaxAge   int64      // seconds a tools/list or server/discover answer may be cached
	AllowedOrigins []string   // browser origins allowed to POST (MCP_ALLOWED_ORIGINS)
	ExposeHeaders  string     // access-control-expose-headers of an allowed origin's answer
	Resources      []Resource // the MCP Apps views (resources.go)
}

// Endpoint answers the MCP endpoint. It is not safe for concurrent use.
type Endpoint struct {
	cfg   Config
	tools []Tool
	ops   Operations

	// Built from the OpenAPI document on the first request (most isolates serve none).
	built       bool
	toolsLegacy []byte      // tools/list result, 2025-11-25
	toolsModern []byte      // tools/list result, 2026-07-28 (cache hints, resultType)
	discover    []byte      // server/discover result
	toolNames   string      // "a, b and c", for the unknown-tool message
	resLegacy   []byte      // resources/list result, 2025-11-25
	resModern   []byte      // resources/list result, 2026-07-28
	read        [][2][]byte // each resource's resources/read result (legacy, modern), built on first read

	// Per-request scratch.
	qs         []byte // the arguments as a query string
	structured []byte // structuredContent
	res        []byte // the JSON-RPC result
}

// New returns the endpoint serving tools over ops.
func New(cfg Config, tools []Tool, ops Operations) *Endpoint {
	return &Endpoint{cfg: cfg, tools: tools, ops: ops}
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
		b = append(b, `","capabilities":`+mcpCapabilities+`,"serverInfo":`+mcpServerInfo+`,"instructions":`...)
		b = jsonw.AppendJSONString(b, mcpInstructions)
		s.res = append(b, '}')
		s.rpcResult(w, req, id, s.res)
	case "ping":
		s.rpcResult(w, req, id, []byte("{}"))
	case "tools/list":
		s.rpcResult(w, req, id, s.toolsLegacy)
	case "tools/call":
		s.callTool(w, req, id, params, false, nowMs)
	case "resources/list":
		s.rpcResult(w, req, id, s.resLegacy)
	case "resources/read":
		s.readResource(w, req, id, params, false)
	default:
		s.rpcError(w, req, 200, id, rpcMethodNotFound, "Method not found: "+text.QuoteClean(method)+"; this server answers "+legacyMethods+" (protocol 2025-11-25), and "+modernMethods+" (protocol 2026-07-28)", "")
	}
}

// modernRefused answers a 2026-07-28 request whose _meta or headers are not as that
// revision requires, and reports whether it did.
func (s *Endpoint) modernRefused(w *Response, req *Request, id, method string, meta, metaV jsonv.Result, hv string) bool {
	if metaV.Type != jsonv.String {
		s.rpcError(w, req, 400, id, rpcInvalidParams, `Invalid params: params._meta["`+metaVersion+`"] is required (a string, "2026-07-28") with protocol 2026-07-28`, "")
		return true
	}
	if metaV.Str != mcpModern {
		s.rpcError(w, req, 400, id, rpcUnsupportedVersion, "Unsupported protocol version "+text.QuoteClean(metaV.Str)+`: per-request _meta versions are served for 2026-07-28; for 2025-11-25, 2025-06-18 or 2025-03-26 start with initialize`, metaV.Str)
		return true
	}
	if hv != metaV.Str {
		msg := "Header mismatch: the MCP-Protocol-Version header is missing; it must equal params._meta[\"" + metaVersion + "\"] (2026-07-28)"
		if hv != "" {
			msg = "Header mismatch: MCP-Protocol-Version header " + text.QuoteClean(hv) + " does not match params._meta[\"" + metaVersion + "\"] \"2026-07-28\""
		}
		s.rpcError(w, req, 400, id, rpcHeaderMismatch, msg, "")
		return true
	}
	if mm := req.MCPMethod; mm != method {
		msg := "Header mismatch: the Mcp-Method header is missing; it must equal the body's method " + text.QuoteClean(method)
		if mm != "" {
			msg = "Header mismatch: Mcp-Method header " + text.QuoteClean(mm) + " does not match the body's method " + text.QuoteClean(method)
		}
		s.rpcError(w, req, 400, id, rpcHeaderMismatch, msg, "")
		return true
	}
	if !field(meta, metaCaps).IsObject() {
		s.rpcError(w, req, 400, id, rpcInvalidParams, `Invalid params: params._meta["`+metaCaps+`"] is required (an object, {} for none) with protocol 2026-07-28`, "")
		return true
	}
	return false
}

// serveModern answers a request of the stateless 2026-07-28 revision.
func (s *Endpoint) serveModern(w *Response, req *Request, id, method string, params, meta, metaV jsonv.Result, hv string, nowMs int64) {
	if !modernMethod(method) {
		s.rpcError(w, req, 404, id, rpcMethodNotFound, "Method not found: "+text.QuoteClean(method)+"; with protocol 2026-07-28 this server answers "+modernMethods, "")
		return
	}
	if s.modernRefused(w, req, id, method, meta, metaV, hv) {
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
	case "resources/list":
		s.rpcResult(w, req, id, s.resModern)
	case "resources/read":
		s.readResource(w, req, id, params, true)
	}
}
