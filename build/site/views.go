package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/views"
)

// The MCP Apps views in the static site: each view's document as the Worker serves it
// through resources/read (views/NAME.html, the same bytes), and a sample call of its
// tool (views/samples.json) that the docs page hands to it (assets/views.js plays the
// host), so a person can see the views without an MCP host.

// viewsCSP is the policy of the views' files: the MCP Apps default a host applies to a
// view (inline script and style, nothing from any origin), framed by this site only.
const viewsCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

// sampleClock is the fixed "now" of the samples (2026-11-22T00:00:00Z), so the site
// is the same on every build; the samples' dates are a few weeks after it.
const sampleClock = int64(1795305600000)

// sampleCalls are the tools/call arguments of each view's sample, by view name.
var sampleCalls = map[string]struct {
	tool string
	args map[string]any
}{
	"search":   {"search_vehicles", map[string]any{"pick_up_depot_id": 1, "drop_off_depot_id": 1, "pick_up_date": "2027-01-12", "drop_off_date": "2027-01-21", "include": "insurance", "limit": 6}},
	"calendar": {"search_calendar", map[string]any{"pick_up_depot_id": 1, "drop_off_depot_id": 1, "earliest_pick_up_date": "2027-01-11", "latest_pick_up_date": "2027-01-17", "days": "7,10,14"}},
	"quote":    {"get_quote", map[string]any{"pick_up_depot_id": 1, "drop_off_depot_id": 1, "pick_up_date": "2027-01-12", "drop_off_date": "2027-01-21", "vehicle_id": 0, "insurance_id": 0, "accessory_ids": "2,5"}},
}

// viewFiles returns the views' documents, their samples and the docs page's host script.
func (s *site) viewFiles() ([]file, error) {
	cfg := s.cfg
	// A key for the sample's quote id only (the site publishes it: it signs nothing real).
	keys, err := quotetoken.ParseKeys("0:" + base64.RawURLEncoding.EncodeToString(make([]byte, 32)))
	if err != nil {
		return nil, err
	}
	cfg.QuoteKeys = keys
	srv := api.NewServer(cfg, rental.Bundled(), nil, func() int64 { return sampleClock },
		func(b []byte) {
			for i := range b {
				b[i] = byte(i)
			}
		}, nil)
	samples := map[string]any{}
	var first map[string]any // the search's first vehicle, for the quote
	for _, v := range views.All {
		c := sampleCalls[v.Name]
		args := c.args
		if v.Name == "quote" {
			if first == nil {
				return nil, fmt.Errorf("views: the sample search found no vehicle")
			}
			args["vehicle_id"] = first["vehicleId"]
			ins, _ := first["insuranceOptions"].([]any)
			if len(ins) == 0 {
				return nil, fmt.Errorf("views: the sample search's vehicle has no insurance")
			}
			args["insurance_id"] = ins[len(ins)-1].(map[string]any)["id"]
		}
		res, err := toolCall(srv, c.tool, args)
		if err != nil {
			return nil, fmt.Errorf("views: sample %s: %v", v.Name, err)
		}
		if v.Name == "search" {
			vs, _ := res["structuredContent"].(map[string]any)["vehicles"].([]any)
			if len(vs) > 0 {
				first = vs[0].(map[string]any)
			}
		}
		samples[v.Name] = map[string]any{"tool": c.tool, "arguments": args, "result": res}
	}
	sj, err := json.MarshalIndent(samples, "", " ")
	if err != nil {
		return nil, err
	}
	files := []file{{"views/samples.json", append(sj, '\n')}, {"assets/views.js", []byte(viewsHostJS)}}
	for i, v := range views.All {
		files = append(files, file{"views/" + v.Name + ".html", views.HTML(i)})
	}
	return files, nil
}

// toolCall runs tools/call on the core, natively, and returns the result.
func toolCall(srv *api.Server, tool string, args map[string]any) (map[string]any, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	status, out, err := srv.ToolCall(body)
	if err != nil {
		return nil, err
	}
	var rpc struct {
		Result map[string]any
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(out, &rpc); err != nil {
		return nil, err
	}
	if rpc.Error != nil || rpc.Result["isError"] == true {
		return nil, fmt.Errorf("%d %s", status, out)
	}
	return rpc.Result, nil
}

// viewsSection is the docs page's section that shows each view with its sample.
func (s *site) viewsSection() string {
	var b strings.Builder
	b.WriteString(`<section id="views">
<h2>What an MCP Apps host shows</h2>
<p>Hosts that implement MCP Apps (<code>io.modelcontextprotocol/ui</code>) show these views for the tools' results, from <code>resources/read</code>; other hosts get the same text and <code>structuredContent</code> as always. Below, each view with a sample result (this page plays the host).</p>
<script src="/assets/views.js"></script>
`)
	for _, v := range views.All {
		fmt.Fprintf(&b, "<h3>%s <small>(%s, <code>%s</code>)</small></h3>\n<iframe class=\"view\" data-view=\"%s\" title=\"%s, with a sample result\" sandbox=\"allow-scripts\" src=\"/views/%s.html\" style=\"width:100%%;height:420px;border:1px solid #ccc;border-radius:8px\"></iframe>\n",
			v.Title, strings.Join(v.Tools, ", "), v.URI, v.Name, v.Title, v.Name)
	}
	b.WriteString("</section>\n")
	return b.String()
}

// viewsHostJS plays an MCP Apps host for the docs page's views: it answers each view's
// ui/initialize, sends it its sample's tool input and result, sizes the frame to the
// view, and shows (rather than follows) the links a view asks to open.
const viewsHostJS = `"use strict";
// Listens before the frames can speak: a view sends ui/initialize once, on load.
(() => {
  const samples = fetch("/views/samples.json").then((r) => r.json());
  const dark = matchMedia("(prefers-color-scheme: dark)").matches;
  addEventListener("message", async (e) => {
    const f = [...document.querySelectorAll("iframe.view")].find((f) => f.contentWindow === e.source);
    const m = e.data;
    if (!f || !m || m.jsonrpc !== "2.0") return;
    const s = (await samples)[f.dataset.view];
    const reply = (result) => e.source.postMessage({ jsonrpc: "2.0", id: m.id, result }, "*");
    if (m.method === "ui/initialize") {
      reply({ protocolVersion: "2026-01-26", hostInfo: { name: "docs-page", version: "1.0.0" },
        hostCapabilities: { openLinks: {} }, hostContext: { theme: dark ? "dark" : "light", displayMode: "inline", availableDisplayModes: ["inline"] } });
    } else if (m.method === "ui/notifications/initialized") {
      e.source.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: s.arguments } }, "*");
      e.source.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: s.result }, "*");
    } else if (m.method === "ui/notifications/size-changed" && m.params.height) {
      f.style.height = Math.min(m.params.height + 4, 1200) + "px";
    } else if (m.method === "ui/open-link") {
      f.setAttribute("data-opened", m.params.url);
      reply({ isError: true });
    } else if (m.id !== undefined) {
      e.source.postMessage({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "not on the docs page" } }, "*");
    }
  });
})();
`
