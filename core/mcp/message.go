package mcp

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/text"
)

// Reading one JSON-RPC message from a POST body.

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
