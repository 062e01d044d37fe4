package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/mcp"
)

// The two texts for language models (llmstxt.org): llms.txt says what the API is for,
// the call order, each operation with its parameters, the MCP endpoint and the limits;
// llms-full.txt adds every description of the OpenAPI document, the answers' fields
// and the error codes. Links are relative to the site's origin, which is the API's.

var stepRe = regexp.MustCompile(`Step (\d)`)

// step returns the step of the call order an operation's summary names (0 for none).
func step(summary string) int {
	if m := stepRe.FindStringSubmatch(summary); m != nil {
		return int(m[1][0] - '0')
	}
	return 0
}

// toolOps returns the operations that are MCP tools (the ones an agent calls), in the
// table's order.
func (s *site) toolOps() []api.SiteOp {
	var out []api.SiteOp
	for _, o := range s.ops {
		if o.Tool.Name != "" {
			out = append(out, o)
		}
	}
	return out
}

// example returns a request to operation o made of the parameters' examples: the
// path's own and the query parameters that have one ("" for a path parameter without).
func (s *site) example(o api.SiteOp) string {
	op := s.doc.op(o.Path)
	path := o.Path
	var q []string
	for _, p := range op.Parameters {
		if p.Example == nil {
			continue
		}
		v := fmt.Sprint(p.Example)
		if p.In == "path" {
			path = strings.Replace(path, "{"+p.Name+"}", url.PathEscape(v), 1)
			continue
		}
		q = append(q, p.Name+"="+strings.ReplaceAll(url.QueryEscape(v), "%2C", ","))
	}
	u := s.base + path
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

func (s *site) summary() string { return firstSentence(s.doc.Info.Description) }

func (s *site) limitsText() string {
	c := &s.cfg
	return fmt.Sprintf(`- Rate limit: %d requests per %d seconds per client (an IPv4 address, or an IPv6 /64), in fixed windows; every answer carries X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset and the IETF draft RateLimit headers; past the limit a text/plain 429 with Retry-After. MCP POSTs count alike. The static files (this one, /docs, the catalog) are not counted. A partner key (Authorization: Bearer ck_...) or a listed agent's Web Bot Auth signature counts in a bucket of its own, named by RateLimit-Policy ("partner", "agent"); a refused one is a 401 (invalid_key, invalid_signature).
- Caching: depots and undated accessory and insurance lists %d s with a strong ETag (If-None-Match gives a 304); availability, calendars and dated lists %d s; quotes and errors no-store.
- A quote's id is signed and expires after %d s; a quote is not a booking: the customer books at its checkoutUrl.
- Errors: a JSON {error, code, param, suggestions} naming the parameter at fault and what would be accepted; unknown or repeated parameters are a 400.
`, c.RateLimit, c.RateWindowSeconds, c.StaticMaxAge, c.SearchMaxAge, c.QuoteTTLSeconds)
}

func (s *site) links() string {
	return `- [API reference and quick start](/docs): for people, with how to connect an MCP host
- [OpenAPI 3.1 document](/.well-known/openapi): also at /openapi.json, and live (with the inventory version answering) at ` + s.base + `/openapi.json
- [API catalog](/.well-known/api-catalog): RFC 9727 linkset
- [The API's JSON index](` + s.base + `/)
`
}

// params writes an operation's parameters, one line each.
func params(b *strings.Builder, op operation, full bool) {
	if len(op.Parameters) == 0 {
		b.WriteString("  No parameters.\n")
		return
	}
	for _, p := range op.Parameters {
		req := "optional"
		if p.Required {
			req = "required"
		}
		if p.In == "path" {
			req = "in the path"
		}
		desc := p.Description
		if !full {
			desc = firstSentence(desc)
		}
		fmt.Fprintf(b, "  - %s (%s; %s): %s\n", p.Name, req, typeText(p.Schema), desc)
	}
}

func (s *site) llms() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", s.doc.Info.Title, s.summary())
	fmt.Fprintf(&b, "The API's base path is %s on this origin. Every operation is a GET (HEAD too), public, without authentication. Dates are New Zealand dates YYYY-MM-DD; a hire counts both the pick-up and the drop-off day. Amounts are NZD JSON numbers with at most two decimals.\n\n", s.base)
	b.WriteString("## Call order\n\n")
	for _, o := range s.toolOps() {
		op := s.doc.op(o.Path)
		n := "-" // an operation outside the call order
		if k := step(op.Summary); k > 0 {
			n = fmt.Sprintf("%d.", k)
		}
		fmt.Fprintf(&b, "%s GET %s%s: %s\n", n, s.base, o.Path, firstSentence(op.Summary))
	}
	b.WriteString("\n## Operations\n\n")
	for _, o := range s.toolOps() {
		op := s.doc.op(o.Path)
		fmt.Fprintf(&b, "- GET %s%s (%s; MCP tool %s). Example: GET %s\n", s.base, o.Path, op.OperationID, o.Tool.Name, s.example(o))
		params(&b, op, false)
	}
	fmt.Fprintf(&b, "\n## MCP\n\nEndpoint: POST %s/mcp (streamable HTTP, one JSON answer per request; protocol 2026-07-28, and 2025-11-25, 2025-06-18 or 2025-03-26 with initialize). No authentication. Tools, one per operation above: ", s.base)
	for i, o := range s.toolOps() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(o.Tool.Name)
	}
	b.WriteString(".\n\n## Limits\n\n")
	b.WriteString(s.limitsText())
	b.WriteString("\n## Docs\n\n")
	b.WriteString(s.links())
	b.WriteString("\n## Optional\n\n- [Everything above in full](/llms-full.txt): every description of the OpenAPI document, the answers' fields, the error codes and the MCP tools\n")
	return b.String()
}

func (s *site) llmsFull() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (full)\n\n> %s\n\n", s.doc.Info.Title, s.summary())
	fmt.Fprintf(&b, "Version %s. The API's base path is %s on this origin; the paths below include it.\n\n", s.doc.Info.Version, s.base)
	b.WriteString(s.doc.Info.Description)
	b.WriteString("\n\n## Operations\n")
	for _, o := range s.ops {
		op := s.doc.op(o.Path)
		fmt.Fprintf(&b, "\n### GET %s%s (%s)\n\n%s\n\n%s\n\nParameters:\n", s.base, o.Path, op.OperationID, op.Summary, op.Description)
		params(&b, op, true)
		if a := op.answer200(); a != nil {
			fmt.Fprintf(&b, "\nAnswer 200: %s.\n", typeText(a))
		}
		if o.Tool.Name != "" {
			fmt.Fprintf(&b, "Example: GET %s\nMCP tool: %s\n", s.example(o), o.Tool.Name)
		}
	}
	b.WriteString("\n## Schemas of the answers\n")
	for _, name := range s.doc.schemaOrder {
		sc := s.doc.Components.Schemas[name]
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n", name, sc.Description)
		req := map[string]bool{}
		for _, r := range sc.Required {
			req[r] = true
		}
		for _, p := range sc.propOrder {
			ps := sc.Properties[p]
			mark := ""
			if !req[p] {
				mark = ", optional"
			}
			fmt.Fprintf(&b, "- %s (%s%s): %s\n", p, typeText(ps), mark, ps.Description)
		}
	}
	b.WriteString("\n## MCP\n\n")
	fmt.Fprintf(&b, "Endpoint: POST %s/mcp, MCP's streamable HTTP transport answered with single JSON responses; protocol 2026-07-28 (stateless: _meta and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers on every request), or 2025-11-25, 2025-06-18 or 2025-03-26 after initialize. Browser origins must be listed in MCP_ALLOWED_ORIGINS; requests without Origin are accepted.\n\n", s.base)
	fmt.Fprintf(&b, "Instructions the server gives: %s\n\nTools (each runs the operation named, with the same validation and error messages; a number argument may also be a string of digits):\n", mcp.Instructions())
	for _, o := range s.toolOps() {
		op := s.doc.op(o.Path)
		var args []string
		for _, p := range op.Parameters {
			a := p.Name
			if !p.Required && p.In != "path" {
				a += "?"
			}
			args = append(args, a)
		}
		fmt.Fprintf(&b, "- %s(%s): %s (GET %s%s)\n", o.Tool.Name, strings.Join(args, ", "), o.Tool.Lead, s.base, o.Path)
	}
	b.WriteString("\n" + mcpHostsText(s.base))
	b.WriteString("\n## Limits\n\n")
	b.WriteString(s.limitsText())
	b.WriteString("\n## Docs\n\n")
	b.WriteString(s.links())
	return b.String()
}

// mcpHostsText says how to add the MCP endpoint to the common hosts; ORIGIN stands for
// the deployment's origin.
func mcpHostsText(base string) string {
	u := "https://ORIGIN" + base + "/mcp"
	return "Connecting a host (ORIGIN is this site's):\n" +
		"- Claude Code: claude mcp add --transport http campervans " + u + "\n" +
		"- Claude Desktop: Settings, Connectors, Add custom connector, with the URL " + u + "\n" +
		"- Cursor: in ~/.cursor/mcp.json (or a project's .cursor/mcp.json): {\"mcpServers\": {\"campervans\": {\"url\": \"" + u + "\"}}}\n" +
		"- VS Code: in .vscode/mcp.json: {\"servers\": {\"campervans\": {\"type\": \"http\", \"url\": \"" + u + "\"}}}\n"
}
