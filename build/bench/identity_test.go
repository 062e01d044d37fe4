package main

import (
	"strings"
	"testing"
)

// churnScript without headers is the default load's script; with headers, each is one
// more entry of the request's header table, quoted for Lua.
func TestChurnScript(t *testing.T) {
	const want = `  return wrk.format(nil, nil, {["CF-Connecting-IP"] = string.format("2001:%04x:%04x:%04x:1c4b:33ff:fe12:9a7b", tid, math.floor(n / 65536) % 65536, n % 65536)})`
	if s := churnScript(nil); !strings.Contains(s, want+"\n") || strings.Contains(s, "EXTRA") {
		t.Fatalf("churnScript(nil):\n%s", s)
	}
	s := churnScript([][2]string{{"Signature-Input", `sig1=("@authority");keyid="k"`}, {"Authorization", "Bearer ck_x"}})
	if !strings.Contains(s, `{["Signature-Input"] = "sig1=(\"@authority\");keyid=\"k\"", ["Authorization"] = "Bearer ck_x", ["CF-Connecting-IP"] = string.format(`) {
		t.Fatalf("churnScript with headers:\n%s", s)
	}
}
