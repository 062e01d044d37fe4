package mcp

import "testing"

// TestLoopbackOrigin: the origins a client on this machine sends are allowed without
// configuration; look-alikes are not.
func TestLoopbackOrigin(t *testing.T) {
	for _, c := range []struct {
		origin string
		want   bool
	}{
		{"http://127.0.0.1", true},
		{"http://127.0.0.1:8787", true},
		{"http://localhost:6274", true},
		{"http://localhost", true},
		{"http://[::1]:3000", true},
		{"http://localhost:65535", true},
		{"http://localhost:65536", false},
		{"http://localhost:", false},
		{"http://localhost:80a", false},
		{"http://localhost.evil.example", false},
		{"http://127.0.0.1.evil.example", false},
		{"http://localhostx", false},
		{"https://localhost:8787", false}, // TLS on loopback is a configured origin's job
		{"http://127.0.0.2", false},
		{"null", false},
		{"", false},
	} {
		if got := isLoopbackOrigin(c.origin); got != c.want {
			t.Errorf("isLoopbackOrigin(%q) = %v, want %v", c.origin, got, c.want)
		}
	}
}

// TestPreflightHeaders: a preflight's 204 carries nosniff beside its CORS headers, within
// the headers an answer can hold.
func TestPreflightHeaders(t *testing.T) {
	e := New(Config{}, nil, nil)
	var w Response
	if !e.Preflight(&Request{Method: "OPTIONS", Origin: "http://localhost:6274"}, &w) || w.Status != 204 {
		t.Fatalf("preflight from a loopback origin: %d", w.Status)
	}
	got := map[string]string{}
	for _, h := range w.Headers() {
		got[h[0]] = h[1]
	}
	if got["x-content-type-options"] != "nosniff" || got["access-control-allow-origin"] != "http://localhost:6274" || got["allow"] != "POST" {
		t.Errorf("preflight headers %v", w.Headers())
	}
}
