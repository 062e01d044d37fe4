package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/apikey"
)

func TestRun(t *testing.T) {
	const secret = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	vars := filepath.Join(t.TempDir(), ".dev.vars")
	os.WriteFile(vars, []byte("QUOTE_SIGNING_KEYS=\"1:x\"\nAPI_KEY_SECRET=\""+secret+"\"\n"), 0o600)
	t.Setenv("API_KEY_SECRET", "")
	for _, c := range []struct{ name, limit, exp, vars, err string }{
		{"", "10", "", vars, "usage"},
		{"acme", "", "", vars, "usage"},
		{"acme", "ten", "", vars, "not a whole number"},
		{"acme", "10", "tomorrow", vars, "neither a date"},
		{"acme", "10", "", filepath.Join(t.TempDir(), "none"), "no API_KEY_SECRET"},
		{"Acme", "10", "", vars, "the name must be"},
	} {
		if err := run(c.name, c.limit, c.exp, c.vars); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("run(%q, %q, %q): %v, want %q", c.name, c.limit, c.exp, err, c.err)
		}
	}
	if got := devVar(vars, "API_KEY_SECRET"); got != secret {
		t.Fatalf("devVar = %q", got)
	}
	if exp, err := parseExpiry("2027-06-01"); err != nil || exp != 1811808000 {
		t.Fatalf("parseExpiry = %d %v", exp, err)
	}
	// The key printed verifies under the secret with its name and limit.
	r, w, _ := os.Pipe()
	stdout := os.Stdout
	os.Stdout = w
	err := run("acme", "250", "2027-06-01", vars)
	os.Stdout = stdout
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := r.Read(buf)
	lines := strings.Split(strings.TrimSpace(string(buf[:n])), "\n")
	v, _ := apikey.NewVerifier(secret, "")
	var k apikey.Key
	if res := v.Verify(lines[len(lines)-1], 1795305600, &k); res != apikey.OK || string(k.Name) != "acme" || k.Limit != 250 || k.Expires != 1811808000 {
		t.Fatalf("the last line %q: %v %+v", lines[len(lines)-1], res, k)
	}
}
