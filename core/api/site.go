package api

import (
	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/mcp"
)

// What the static site (build/site: the docs page, llms.txt, the API catalog) is made
// from, so that it cannot drift from the API: the operations table and the OpenAPI
// document as a configuration serves it. Not on any request path.

// SiteOp is one operation of the table.
type SiteOp struct {
	Path   string   // below the base path, as in openapi.json
	Params []Param  // query parameters
	Tool   mcp.Tool // its MCP tool; Name "" for none
}

// SiteOps returns the operations of the table, in its order.
func SiteOps() []SiteOp {
	out := make([]SiteOp, len(ops))
	for i := range ops {
		o := &ops[i]
		out[i] = SiteOp{Path: o.Path, Params: o.Params, Tool: o.Tool}
	}
	return out
}

// OpenAPIDocument returns the OpenAPI document as cfg serves it, without the
// inventory it names (info.x-inventory): a static copy cannot know which bookings
// will answer.
func OpenAPIDocument(cfg *Config) []byte { return renderOpenAPI(cfg) }

// ToolCall answers one JSON-RPC message to the MCP endpoint (a tools/call) as s serves
// it, and returns the HTTP status and body: the static site's sample results of the
// views are made with it.
func (s *Server) ToolCall(message []byte) (status int, body []byte, err error) {
	var w abi.Response
	s.Handle(&abi.Request{Method: "POST", Target: s.cfg.BasePath + routeMCP,
		Headers: []abi.Header{{Name: "content-type", Value: "application/json"}}, Body: message}, &w)
	d, err := abi.DecodeResponse(w.Encode())
	return d.Status, d.Body, err
}
