package mcp

import (
	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

// tools/call: a tool's arguments as the operation's query string, and its result.

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
