package mcp

// resources/list and resources/read: the MCP Apps views (io.modelcontextprotocol/ui),
// HTML documents that a host which implements the extension shows in a sandboxed
// frame for the tools linked to them (tools/list's _meta.ui.resourceUri). A host
// without the extension never reads them, and the tools' results are the same for
// both.

import (
	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

// ViewMIME is the media type of an MCP Apps view.
const ViewMIME = "text/html;profile=mcp-app"

// rpcResourceNotFound is MCP's error code for a resource URI the server does not have.
const rpcResourceNotFound = -32002

// Resource is a view the endpoint serves.
type Resource struct {
	URI, Name, Title, Description string
	Tools                         []string // the tools whose results it shows
	// HTML returns the document; it is called on the first resources/read of it.
	HTML func() []byte
}

// toolView returns the URI of the view of tool name ("" for none).
func (m *Endpoint) toolView(name string) string {
	for i := range m.cfg.Resources {
		for _, t := range m.cfg.Resources[i].Tools {
			if t == name {
				return m.cfg.Resources[i].URI
			}
		}
	}
	return ""
}

// buildResources writes the resources/list results, once.
func (m *Endpoint) buildResources() {
	b := []byte(`{"resources":[`)
	for i := range m.cfg.Resources {
		r := &m.cfg.Resources[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendMember(b, `{"uri":`, r.URI)
		b = jsonw.AppendMember(b, `,"name":`, r.Name)
		b = jsonw.AppendMember(b, `,"title":`, r.Title)
		b = jsonw.AppendMember(b, `,"description":`, r.Description)
		b = append(b, `,"mimeType":"`+ViewMIME+`"}`...)
	}
	b = append(b, ']')
	m.resLegacy = append(append([]byte(nil), b...), '}')
	m.resModern = append(b, `,"ttlMs":`...)
	m.resModern = jsonw.AppendInt(m.resModern, m.cfg.StaticMaxAge*1000)
	m.resModern = append(m.resModern, `,"cacheScope":"public",`+mcpResultMeta+`}`...)
	m.read = make([][2][]byte, len(m.cfg.Resources))
}

// readResource answers resources/read: the view's HTML as one text content, with the
// _meta.ui an MCP Apps host reads (a border; no other origin needed, so no CSP domains).
func (s *Endpoint) readResource(w *Response, req *Request, id string, params jsonv.Result, modern bool) {
	uri := field(params, "uri")
	if uri.Type != jsonv.String {
		s.rpcError(w, req, 200, id, rpcInvalidParams, "Invalid params: params.uri must be the URI of a resource (see resources/list)", "")
		return
	}
	ri := -1
	for i := range s.cfg.Resources {
		if s.cfg.Resources[i].URI == uri.Str {
			ri = i
		}
	}
	if ri < 0 {
		s.rpcError(w, req, 200, id, rpcResourceNotFound, "Resource not found: "+text.QuoteClean(uri.Str)+"; the resources are listed by resources/list", "")
		return
	}
	k := 0
	if modern {
		k = 1
	}
	if s.read[ri][k] == nil {
		r := &s.cfg.Resources[ri]
		b := jsonw.AppendMember(nil, `{"contents":[{"uri":`, r.URI)
		b = append(b, `,"mimeType":"`+ViewMIME+`","text":`...)
		b = jsonw.AppendJSONString(b, text.BytesString(r.HTML()))
		b = append(b, `,"_meta":{"ui":{"prefersBorder":true}}}]`...)
		if modern {
			b = append(b, ","+mcpResultMeta...)
		}
		s.read[ri][k] = append(b, '}')
	}
	s.rpcResult(w, req, id, s.read[ri][k])
}
