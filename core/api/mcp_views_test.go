package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/views"
)

// TestMCPViews: the MCP Apps views are resources (resources/list, resources/read in
// both revisions), each tool with a view links it by _meta.ui.resourceUri, and
// resources/read gives the document's exact bytes with the MCP Apps media type.
func TestMCPViews(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	type content struct {
		URI, MimeType, Text string
		Meta                map[string]any `json:"_meta"`
	}
	var list struct {
		Result struct {
			Resources []struct{ URI, Name, Title, Description, MimeType string }
		}
	}
	for _, d := range []abi.DecodedResponse{
		mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`),
		mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{`+modernMeta+`}}`, modern("resources/list", "")...),
	} {
		if err := json.Unmarshal(d.Body, &list); err != nil || d.Status != 200 || len(list.Result.Resources) != len(views.All) {
			t.Fatalf("resources/list: %d %s", d.Status, d.Body)
		}
		for i, r := range list.Result.Resources {
			if v := views.All[i]; r.URI != v.URI || r.Name != v.Name || r.Title != v.Title || r.MimeType != "text/html;profile=mcp-app" {
				t.Errorf("resources/list [%d] = %+v, want %s", i, r, v.URI)
			}
		}
	}
	for i, v := range views.All {
		for _, modernRev := range []bool{false, true} {
			body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + v.URI + `"}}`
			var hs []abi.Header
			if modernRev {
				body = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + v.URI + `",` + modernMeta + `}}`
				hs = modern("resources/read", "")
			}
			d := mcpPost(s, body, hs...)
			var r struct {
				Result struct {
					Contents   []content
					ResultType string
				}
			}
			if err := json.Unmarshal(d.Body, &r); err != nil || d.Status != 200 || len(r.Result.Contents) != 1 {
				t.Fatalf("resources/read %s: %d %.300s", v.URI, d.Status, d.Body)
			}
			c := r.Result.Contents[0]
			if c.URI != v.URI || c.MimeType != "text/html;profile=mcp-app" || c.Text != string(views.HTML(i)) || len(c.Text) < 1000 {
				t.Errorf("resources/read %s: uri %q mimeType %q, %d bytes of text (want %d)", v.URI, c.URI, c.MimeType, len(c.Text), len(views.HTML(i)))
			}
			if (r.Result.ResultType == "complete") != modernRev {
				t.Errorf("resources/read %s (modern %v): resultType %q", v.URI, modernRev, r.Result.ResultType)
			}
		}
	}
	d := mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://views/nothing"}}`)
	if d.Status != 200 || !strings.Contains(string(d.Body), `"code":-32002`) {
		t.Errorf("resources/read of an unknown URI: %d %s", d.Status, d.Body)
	}
	d = mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}`)
	if d.Status != 200 || !strings.Contains(string(d.Body), `"code":-32602`) || !strings.Contains(string(d.Body), "params.uri") {
		t.Errorf("resources/read without a uri: %d %s", d.Status, d.Body)
	}
	// tools/list links each tool with a view, and no other.
	var tl struct {
		Result struct {
			Tools []struct {
				Name string
				Meta *struct{ UI struct{ ResourceURI string } } `json:"_meta"`
			}
		}
	}
	if err := json.Unmarshal(mcpPost(s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).Body, &tl); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, v := range views.All {
		for _, n := range v.Tools {
			want[n] = v.URI
		}
	}
	for _, tool := range tl.Result.Tools {
		got := ""
		if tool.Meta != nil {
			got = tool.Meta.UI.ResourceURI
		}
		if got != want[tool.Name] {
			t.Errorf("tools/list: %s links %q, want %q", tool.Name, got, want[tool.Name])
		}
	}
}
