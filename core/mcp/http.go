package mcp

import (
	"strings"

	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

// The HTTP side of the endpoint: what a request must look like, the answer's
// headers, CORS and the origins allowed.

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
	w.SetHeader("x-content-type-options", "nosniff")
	w.SetHeader("access-control-allow-origin", origin)
	w.SetHeader("access-control-allow-methods", "POST")
	w.SetHeader("access-control-allow-headers", "Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name")
	w.SetHeader("access-control-max-age", "86400")
	w.SetHeader("allow", "POST")
	w.SetHeader("vary", "Origin")
	return true
}

// originAllowed reports whether a browser origin may use the endpoint: a loopback
// origin (a client on the same machine, such as the MCP Inspector beside make dev,
// which a DNS-rebinding page cannot claim) or one listed in MCP_ALLOWED_ORIGINS.
func (s *Endpoint) originAllowed(origin string) bool {
	if isLoopbackOrigin(origin) {
		return true
	}
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

// isLoopbackOrigin reports whether origin is http://127.0.0.1, http://localhost or
// http://[::1], with or without a port.
func isLoopbackOrigin(origin string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		return false
	}
	for _, h := range [...]string{"127.0.0.1", "localhost", "[::1]"} {
		if p, ok := strings.CutPrefix(rest, h); ok {
			if p == "" {
				return true
			}
			if p[0] != ':' || len(p) == 1 || len(p) > 6 {
				return false
			}
			_, ok := text.Digits(p[1:], 65535)
			return ok
		}
	}
	return false
}
