package api

import (
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// TestRequestClock: a request answers at the clock the host gave with it
// (abi.Request.Now), and at the Server's when it gave none.
func TestRequestClock(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	for _, tc := range []struct{ given, want int64 }{{0, testNow}, {testNow + 86_400_000, testNow + 86_400_000}} {
		var w abi.Response
		s.Handle(&abi.Request{Method: "GET", Target: "/api/agent/depots", Now: tc.given}, &w)
		if w.Status != 200 || s.scratch.now != tc.want {
			t.Errorf("Now %d: status %d, answered at %d, want %d", tc.given, w.Status, s.scratch.now, tc.want)
		}
	}
}

// TestMCPToolRunsInItsOwnCall: a tool call runs its operation in the Server's tool
// call, at the MCP request's clock, and leaves the MCP request's own call (which ran
// no operation) alone.
func TestMCPToolRunsInItsOwnCall(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	callTool(t, s, "list_depots", "{}")
	tc := &s.tool.c
	if tc.op == nil || tc.op.Path != "/depots" || tc.req != &s.tool.req || tc.w != &s.tool.out {
		t.Fatalf("the tool's call: op %v, req %p (want %p), w %p (want %p)", tc.op, tc.req, &s.tool.req, tc.w, &s.tool.out)
	}
	if tc.now != testNow {
		t.Errorf("the tool ran at %d, want the request's %d", tc.now, testNow)
	}
	if c := &s.scratch; c.op != nil || c.req == nil || c.req.Method != "POST" {
		t.Errorf("the MCP request's call: op %v, req %v; want no operation, the POST", c.op, c.req)
	}
}
