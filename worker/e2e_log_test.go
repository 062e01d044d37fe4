//go:build !wasip1 && !js

package main

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestE2ERequestLog runs the shipped bundle on the raw workerd with wrangler.toml's
// vars (REQUEST_LOG="errors") and reads what it logged: one JSON line for each 4xx
// (but 429) and 5xx answer, none for a 200 or a 304. Every invocation is in Workers Logs
// anyway; the line is for the answers an operator acts on.
func TestE2ERequestLog(t *testing.T) {
	needE2E(t)
	d := startWorkerd(t, "")
	get := func(path string, want int) {
		t.Helper()
		resp, err := http.Get(d.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
	for i := 0; i < 5; i++ {
		get("/api/agent/depots", 200)
	}
	get("/api/agent/depots?bogus=1", 400)
	get("/api/agent/nothing-here", 404)
	want := []string{`{"method":"GET","route":"/depots","status":400}`, `{"method":"GET","route":"-","status":404}`}
	var lines []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, _ := os.ReadFile(d.log.Name())
		lines = lines[:0]
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, `{"method"`) {
				lines = append(lines, l)
			}
		}
		if len(lines) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("request log lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
