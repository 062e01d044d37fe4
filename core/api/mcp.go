package api

import (
	"strings"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/mcp"
	"github.com/campervan/agent-api/core/text"
	"github.com/campervan/agent-api/core/views"
)

// The API as its MCP endpoint (core/mcp) uses it: each tool runs an operation, and a
// refusal is told in a tool's words.

// mcpOps is the Server as the MCP endpoint sees it (mcp.Operations).
type mcpOps struct{ s *Server }

func (o mcpOps) OpenAPI() []byte {
	o.s.docs()
	return o.s.openapi.body
}

// Run answers a tool call as its operation's GET, in a call of its own (Server.tool),
// apart from the MCP request's around it.
//
// A list's page ends near mcpPageBytes, so that a result, which carries the body twice,
// stays within an agent's budget; the next page's token goes back with the body.
func (o mcpOps) Run(tool int, pathParam string, query []byte, nowMs int64) ([]byte, string, string, bool) {
	s := o.s
	t := &s.tool
	t.req = abi.Request{Method: "GET", Now: nowMs}
	t.out.Reset()
	c := begin(&t.c, &t.req, &t.out, nowMs)
	c.pg.bytes = mcpPageBytes
	out := &t.out
	e := c.q.parse(text.BytesString(query))
	if e == nil {
		e = s.run(c, toolOp[tool], pathParam)
	}
	if e != nil {
		return nil, "", s.toolText(e.Message), false
	}
	return out.Body, text.BytesString(c.nextPage), "", true
}

// mcpExchange returns what the MCP endpoint reads of c's request, and its answer,
// which appends to c.w's body; mcpSend then copies the answer into c.w.
func (c *call) mcpExchange() (*mcp.Request, *mcp.Response) {
	req, w := c.req, c.w
	c.mcpIn = mcp.Request{Method: req.Method, Body: req.Body, Origin: req.Header("origin"),
		ContentType: req.Header("content-type"), Accept: req.Header("accept"),
		ProtocolVersion: req.Header("mcp-protocol-version"),
		MCPMethod:       req.Header("mcp-method"), MCPName: req.Header("mcp-name")}
	c.mcpOut = mcp.Response{Body: w.Body}
	return &c.mcpIn, &c.mcpOut
}

// mcpSend copies the MCP endpoint's answer into c.w.
func (c *call) mcpSend() {
	a, w := &c.mcpOut, c.w
	w.Status, w.Body = a.Status, a.Body
	for _, h := range a.Headers() {
		w.SetHeader(h[0], h[1])
	}
}

// toolText rewrites an operation's error message for an MCP tool call: the tool's
// caller gave arguments, not query parameters, and calls tools, not HTTP paths. So
// "missing required query parameter drop_off_date (a date ...)" becomes "missing
// required argument drop_off_date (a date ...)", "GET /api/agent/depots" becomes
// "list_depots" and "GET /vehicles/5/accessories" "list_accessories (vehicleId 5)".
// It runs only on an error (it allocates); the words it replaces are the ones the
// messages of core/api and core/rental use (TestMCPToolErrorsAreTheAPIErrors checks
// that none is left).
func (s *Server) toolText(msg string) string {
	if s.mcpText == nil {
		s.mcpText = toolTextPairs(s.cfg.BasePath)
	}
	for i := 0; i+1 < len(s.mcpText); i += 2 {
		msg = strings.ReplaceAll(msg, s.mcpText[i], s.mcpText[i+1])
	}
	// A path with a vehicle id: GET [base]/vehicles/{id}/accessories -> list_accessories (vehicleId {id}).
	for i := range opList { // opList, not ops: see opList
		o := &opList[i]
		if o.pathParam == "" || o.Tool.Name == "" {
			continue
		}
		for _, pre := range [2]string{"GET " + s.cfg.BasePath + o.prefix, "GET " + o.prefix} {
			for {
				i := strings.Index(msg, pre)
				if i < 0 {
					break
				}
				j := i + len(pre)
				k := j
				for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
					k++
				}
				if k == j || !strings.HasPrefix(msg[k:], o.suffix) {
					break
				}
				msg = msg[:i] + o.Tool.Name + " (" + o.pathParam + " " + msg[j:k] + ")" + msg[k+len(o.suffix):]
			}
		}
	}
	return msg
}

// toolTextPairs returns the replacements, applied in order: (old, new, old, new, ...).
// strings.Replacer and sort.Slice would do the same with far more code in the module.
func toolTextPairs(base string) []string {
	var pairs []string
	// The operations without a path parameter, the longest path first (the calendar
	// before availability), with and without the base path.
	idx := make([]int, 0, len(opList))
	for i := range opList {
		if opList[i].Tool.Name != "" && opList[i].pathParam == "" {
			idx = append(idx, i)
			for j := len(idx) - 1; j > 0 && len(opList[idx[j]].Path) > len(opList[idx[j-1]].Path); j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
		}
	}
	for _, i := range idx {
		pairs = append(pairs, "GET "+base+ops[i].Path, ops[i].Tool.Name)
	}
	for _, i := range idx {
		pairs = append(pairs, "GET "+ops[i].Path, ops[i].Tool.Name)
	}
	pairs = append(pairs,
		"missing required query parameter ", "missing required argument ",
		"missing query parameter ", "missing argument ",
		"unknown query parameter ", "unknown argument ",
		"this operation takes no query parameters", "this tool takes no arguments",
		"this operation accepts ", "this tool accepts ",
		"query parameter ", "argument ",
		"path parameter ", "argument ",
	)
	return pairs
}

// mcpViews returns the MCP Apps views as the endpoint's resources.
func mcpViews() []mcp.Resource {
	r := make([]mcp.Resource, len(views.All))
	for i, v := range views.All {
		r[i] = mcp.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description,
			Tools: v.Tools, HTML: func() []byte { return views.HTML(i) }}
	}
	return r
}
