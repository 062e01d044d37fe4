//go:build !wasip1 && !js

package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/campervan/agent-api/core/abi"
)

// TestGlueBodyLimitMatchesCore holds the glue's MAX_BODY (the most bytes of a POST body
// it hands the module; it reads one more to mark a longer body) to the MCP endpoint's
// limit: a body of MAX_BODY bytes is served, one of MAX_BODY + 1 refused with 413.
func TestGlueBodyLimitMatchesCore(t *testing.T) {
	m := regexp.MustCompile(`const MAX_BODY = (\d+);`).FindSubmatch(glueSource(t))
	if m == nil {
		t.Fatal("worker/glue: no const MAX_BODY")
	}
	limit, _ := strconv.Atoi(string(m[1]))
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	s := nativeServer(t, wranglerVars(t), func() int64 { return fixedNow }, constRand)
	for _, c := range []struct {
		size, status int
	}{{limit, 200}, {limit + 1, 413}} {
		body := append(bytes.Clone(ping), bytes.Repeat([]byte{' '}, c.size-len(ping))...)
		req := httpCase{Method: "POST", Target: "/api/agent/mcp", Headers: map[string]string{"content-type": "application/json"}}.request("203.0.113.9")
		req.Body = body
		d, err := abi.DecodeResponse(nativeDo(s, &req))
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != c.status {
			t.Errorf("an MCP body of %d bytes (the glue's MAX_BODY %d): status %d, want %d: %s", c.size, limit, d.Status, c.status, d.Body)
		}
	}
}
