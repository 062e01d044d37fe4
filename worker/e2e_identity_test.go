//go:build !wasip1 && !js

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/apikey"
)

// TestE2EIdentity: under wrangler dev, from one address, requests with a partner key,
// with a Web Bot Auth signature (the web-bot-auth package's signer, the key directory
// served on loopback) and with neither each count in a bucket of their own, with its
// own limit and RateLimit-Policy; a bad key and a tampered signature are 401s.
func TestE2EIdentity(t *testing.T) {
	needE2E(t)
	node, _ := filepath.Abs("../node_modules/.bin/node")
	if !fileExists(node) || !fileExists("../node_modules/web-bot-auth/package.json") {
		t.Fatal("the project's node or web-bot-auth is not installed (make deps-check)")
	}
	// The agent's key directory: the RFC 9421 Ed25519 test key, on loopback.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/http-message-signatures-directory" {
			http.NotFound(w, r)
			return
		}
		hits++
		w.Header().Set("content-type", "application/http-message-signatures-directory+json")
		w.Header().Set("cache-control", "max-age=600")
		fmt.Fprint(w, `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]}`)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	agent := "http://" + l.Addr().String()

	const secret = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	d := startDev(t, "wrangler.toml", "--var", "RATE_LIMIT_REQUESTS:5", "--var", "API_KEY_SECRET:"+secret,
		"--var", "AGENT_LIMITS:"+agent+"=7", "--var", "REVOKED_KEYS:gone")
	v, _ := apikey.NewVerifier(secret, "")
	key, _ := v.Mint("acme", 6, 0)
	revoked, _ := v.Mint("gone", 6, 0)

	target := "/api/agent/depots"
	sign := func(form string) []abi.Header {
		out, err := exec.Command(node, "agent_sign.mjs", d.base+target, agent, form).Output()
		if err != nil {
			t.Fatalf("agent_sign.mjs: %v", err)
		}
		var h map[string]string
		if err := json.Unmarshal(out, &h); err != nil {
			t.Fatal(err)
		}
		var hs []abi.Header
		for k, v := range h {
			hs = append(hs, abi.Header{Name: k, Value: v})
		}
		return hs
	}
	ip := abi.Header{Name: "CF-Connecting-IP", Value: "198.51.100.58"}
	signed := append(sign("plain"), ip)
	labelled := append(sign("labelled"), ip)
	tampered := append([]abi.Header{}, signed...)
	for i, h := range tampered {
		if h.Name == "Signature" { // one character of the signature's base64 changed
			j := strings.Index(h.Value, "=:") + 6
			c := byte('A')
			if h.Value[j] == 'A' {
				c = 'B'
			}
			tampered[i].Value = h.Value[:j] + string(c) + h.Value[j+1:]
		}
	}
	for _, c := range []struct {
		name    string
		headers []abi.Header
		n       int
		policy  string
	}{
		{"partner key", []abi.Header{ip, {Name: "Authorization", Value: "Bearer " + key}}, 6, `"partner";q=6;w=60`},
		{"signed agent (plain and labelled Signature-Agent)", signed, 7, `"agent";q=7;w=60`},
		{"neither", []abi.Header{ip}, 5, `"default";q=5;w=60`},
	} {
		for i := 0; i < c.n; i++ {
			hs := c.headers
			if c.name[:6] == "signed" && i%2 == 1 {
				hs = labelled
			}
			r := d.do(t, abi.Request{Method: "GET", Target: target, Headers: hs})
			if r.Status != 200 || r.Header("ratelimit-policy") != c.policy || r.Header("x-ratelimit-remaining") != fmt.Sprint(c.n-i-1) {
				t.Fatalf("%s, request %d: %d policy %q remaining %q: %s", c.name, i+1, r.Status, r.Header("ratelimit-policy"), r.Header("x-ratelimit-remaining"), r.Body)
			}
		}
		r := d.do(t, abi.Request{Method: "GET", Target: target, Headers: c.headers})
		if r.Status != 429 {
			t.Fatalf("%s: request %d: %d, want 429", c.name, c.n+1, r.Status)
		}
		t.Logf("%s: %d requests allowed under %s, then 429", c.name, c.n, c.policy)
	}
	if hits != 1 {
		t.Errorf("the key directory was fetched %d times, want 1 (cached)", hits)
	}
	// Refused credentials from a fresh address: 401s counted against the address.
	ip2 := abi.Header{Name: "CF-Connecting-IP", Value: "198.51.100.59"}
	for _, c := range []struct {
		name    string
		headers []abi.Header
		code    string
	}{
		{"revoked key", []abi.Header{ip2, {Name: "Authorization", Value: "Bearer " + revoked}}, "invalid_key"},
		{"forged key", []abi.Header{ip2, {Name: "Authorization", Value: "Bearer ck_AQEBAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}, "invalid_key"},
		{"tampered signature", append(tampered, ip2), "invalid_signature"},
		{"10 KB Signature-Input", []abi.Header{ip2, {Name: "Signature-Agent", Value: `"` + agent + `"`}, {Name: "Signature", Value: "sig1=:AAAA:"},
			{Name: "Signature-Input", Value: strings.Repeat("a", 10240)}}, "invalid_signature"},
	} {
		r := d.do(t, abi.Request{Method: "GET", Target: target, Headers: c.headers})
		var e struct{ Error, Code string }
		json.Unmarshal(r.Body, &e)
		if r.Status != 401 || e.Code != c.code || !strings.HasPrefix(r.Header("www-authenticate"), "Bearer") || r.Header("ratelimit-policy") != `"default";q=5;w=60` {
			t.Fatalf("%s: %d %s %q", c.name, r.Status, r.Body, r.Header("ratelimit-policy"))
		}
		t.Logf("%s: 401 %s: %s", c.name, e.Code, e.Error)
	}
	if r := d.do(t, abi.Request{Method: "GET", Target: target, Headers: []abi.Header{ip2}}); r.Header("x-ratelimit-remaining") != "0" {
		t.Fatalf("after four refusals the address has %q left, want 0", r.Header("x-ratelimit-remaining"))
	}
}
