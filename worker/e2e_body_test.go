//go:build !wasip1 && !js

package main

// A request whose body cannot be read gets a JSON 400 from the glue, on the raw
// workerd (-e2e): a malformed chunked body, and a body shorter than its Content-Length
// (the client stops sending: half-closed connection).

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func TestE2EBodyFailures(t *testing.T) {
	needE2E(t)
	d := startWorkerd(t, "")
	addr := strings.TrimPrefix(d.base, "http://")
	head := "POST /api/agent/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nCF-Connecting-IP: 198.51.100.9\r\n"
	cases := []struct{ name, raw string }{
		{"malformed chunk size", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"},
		{"chunk longer than announced", head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{\"jsonrpc\":\"2.0\"}\r\n0\r\n\r\n"},
		{"body shorter than Content-Length", head + "Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\""},
		{"chunked body cut off", head + "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"jsonrpc\":"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.WriteString(conn, c.raw); err != nil {
				t.Fatal(err)
			}
			conn.(*net.TCPConn).CloseWrite() // the client sends nothing more
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no HTTP answer: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
				!strings.HasPrefix(string(body), `{"error":"`) {
				t.Errorf("%d %q %s, want a JSON 400", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			t.Logf("%d %s", resp.StatusCode, body)
		})
	}
	// The Worker still answers, and logged no uncaught error.
	resp, err := http.Get(d.base + "/api/agent/depots")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the body failures: %v %v", resp, err)
	}
	resp.Body.Close()
	logText, _ := os.ReadFile(d.log.Name())
	for _, bad := range []string{"Uncaught", "uncaught", "wasm trap"} {
		if strings.Contains(string(logText), bad) {
			t.Errorf("workerd logged %q:\n%s", bad, logText)
		}
	}
}
