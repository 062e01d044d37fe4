package mcp

import (
	"slices"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/jsonw"
)

// The tools/list and server/discover results, built once per Endpoint.

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
		tools = append(tools, `,"annotations":{"readOnlyHint":true,"openWorldHint":false}`...)
		if v := m.toolView(t.Name); v != "" {
			tools = jsonw.AppendMember(tools, `,"_meta":{"ui":{"resourceUri":`, v)
			tools = append(tools, "}}"...)
		}
		tools = append(tools, '}')
	}
	tools = append(tools, ']')
	m.toolsLegacy = append(append([]byte(nil), tools...), '}')
	ttl := jsonw.AppendInt(nil, cfg.StaticMaxAge*1000)
	m.toolsModern = append(append(append(append(tools, `,"ttlMs":`...), ttl...), `,"cacheScope":"public",`+mcpResultMeta...), '}')
	b := []byte(`{"supportedVersions":` + mcpSupported + `,"capabilities":` + mcpCapabilities + `,"instructions":`)
	b = jsonw.AppendJSONString(b, mcpInstructions)
	b = append(append(b, `,"ttlMs":`...), ttl...)
	m.buildResources()
	m.discover = append(b, `,"cacheScope":"public",`+mcpResultMeta+`}`...)
}
