package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/apikey"
)

const identitySecret = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

func identityServer(t *testing.T, vars ...Var) *Server {
	t.Helper()
	cfg, err := ConfigFromVars(append([]Var{{Name: "RATE_LIMIT_REQUESTS", Value: "5"}, {Name: "QUOTE_SIGNING_KEYS", Value: identitySecret},
		{Name: "API_KEY_SECRET", Value: identitySecret}, {Name: "REVOKED_KEYS", Value: "gone"},
		{Name: "AGENT_LIMITS", Value: "https://agent.example=7, http://127.0.0.1:9999=8"}}, vars...))
	if err != nil {
		t.Fatal(err)
	}
	return testServer(t, cfg, bundledCatalog(t), nil)
}

func partnerKey(t *testing.T, name string, limit, exp int64) string {
	t.Helper()
	v, err := apikey.NewVerifier(identitySecret, "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := v.Mint(name, limit, exp)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestIdentityBuckets: from one address, a partner's key, a signed agent and neither
// each count in a bucket of their own, with its limit and its name in the headers.
func TestIdentityBuckets(t *testing.T) {
	s := identityServer(t)
	ip := abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.7"}
	key := abi.Header{Name: "authorization", Value: "Bearer " + partnerKey(t, "acme", 6, 0)}
	agent := abi.Header{Name: AgentHeader, Value: "https://agent.example"}
	for _, c := range []struct {
		name   string
		hdr    []abi.Header
		limit  int
		policy string
		who    string // in the 429's text
	}{
		{"address", []abi.Header{ip}, 5, `"default";q=5;w=60`, "5 requests per 60 seconds per client."},
		{"partner", []abi.Header{ip, key}, 6, `"partner";q=6;w=60`, "6 requests per 60 seconds for this partner key."},
		{"agent", []abi.Header{ip, agent}, 7, `"agent";q=7;w=60`, "7 requests per 60 seconds for this agent."},
		{"partner before agent", []abi.Header{ip, agent, {Name: "authorization", Value: "Bearer " + partnerKey(t, "other", 2, 0)}}, 2, `"partner";q=2;w=60`, "2 requests per 60 seconds for this partner key."},
		{"agent on loopback", []abi.Header{ip, {Name: AgentHeader, Value: "http://127.0.0.1:9999"}}, 8, `"agent";q=8;w=60`, "8 requests per 60 seconds for this agent."},
	} {
		for i := 0; i < c.limit; i++ {
			d := do(s, "GET", "/api/agent/depots", c.hdr...)
			if d.Status != 200 {
				t.Fatalf("%s: request %d: %d %s", c.name, i+1, d.Status, d.Body)
			}
			if d.Header("ratelimit-policy") != c.policy || d.Header("x-ratelimit-limit") != itoa(c.limit) {
				t.Fatalf("%s: policy %q limit %q", c.name, d.Header("ratelimit-policy"), d.Header("x-ratelimit-limit"))
			}
		}
		if d := do(s, "GET", "/api/agent/depots", c.hdr...); d.Status != 429 || !strings.Contains(string(d.Body), c.who) {
			t.Fatalf("%s: over its limit: %d %q, want 429 saying %q", c.name, d.Status, d.Body, c.who)
		}
	}
	// An agent not listed counts as its address (used up above).
	if d := do(s, "GET", "/api/agent/depots", ip, abi.Header{Name: AgentHeader, Value: "https://other.example"}); d.Status != 429 {
		t.Fatalf("unlisted agent: %d, want the address's 429", d.Status)
	}
}

// TestIdentityRefusals: every refused key or signature is a 401 with its code, and
// counts against the address.
func TestIdentityRefusals(t *testing.T) {
	good := partnerKey(t, "acme", 100, 0)
	cases := []struct {
		name, header, value, code, msg string
	}{
		{"not bearer", "authorization", "Basic YWNtZTo=", "invalid_key", "not a Bearer token"},
		{"malformed", "authorization", "Bearer nonsense", "invalid_key", "malformed"},
		{"forged", "authorization", "Bearer " + good[:len(good)-2] + "AA", "invalid_key", "not issued"},
		{"expired", "authorization", "Bearer " + partnerKey(t, "acme", 100, testNow/1000), "invalid_key", "expired"},
		{"revoked", "authorization", "Bearer " + partnerKey(t, "gone", 100, 0), "invalid_key", "revoked"},
		{"100 KB", "authorization", "Bearer " + strings.Repeat("A", 100<<10), "invalid_key", "malformed"},
		{"tampered", AgentHeader, "!tampered", "invalid_signature", "altered"},
		{"sig expired", AgentHeader, "!expired", "invalid_signature", "expired"},
		{"not yet valid", AgentHeader, "!not_yet_valid", "invalid_signature", "not yet valid"},
		{"unknown keyid", AgentHeader, "!unknown_keyid", "invalid_signature", "keyid"},
		{"authority", AgentHeader, "!authority", "invalid_signature", "authority"},
		{"sig malformed", AgentHeader, "!malformed", "invalid_signature", "malformed"},
		{"unknown reason", AgentHeader, "!whatever", "invalid_signature", "could not be verified"},
	}
	for _, c := range cases {
		s := identityServer(t)
		ip := abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.9"}
		for i := 0; i < 5; i++ {
			d := do(s, "GET", "/api/agent/depots", ip, abi.Header{Name: c.header, Value: c.value})
			if d.Status != 401 || d.Header("www-authenticate") != `Bearer error="invalid_token"` || d.Header("ratelimit-policy") != `"default";q=5;w=60` {
				t.Fatalf("%s: %d %q %q", c.name, d.Status, d.Header("www-authenticate"), d.Header("ratelimit-policy"))
			}
			var e struct{ Error, Code string }
			if err := json.Unmarshal(d.Body, &e); err != nil || e.Code != c.code || !strings.Contains(e.Error, c.msg) {
				t.Fatalf("%s: body %s", c.name, d.Body)
			}
			if c.header == "authorization" && strings.Contains(string(d.Body), c.value[len(c.value)-8:]) {
				t.Fatalf("%s: the credential is echoed", c.name)
			}
		}
		// the refusals used up the address's 5
		if d := do(s, "GET", "/api/agent/depots", ip); d.Status != 429 {
			t.Fatalf("%s: after 5 refusals the address got %d, want 429", c.name, d.Status)
		}
	}
}

// TestNoPartnerKeys: without API_KEY_SECRET an Authorization header is a 401.
func TestNoPartnerKeys(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	d := do(s, "GET", "/api/agent/depots", abi.Header{Name: "authorization", Value: "Bearer " + partnerKey(t, "acme", 100, 0)})
	if d.Status != 401 || !strings.Contains(string(d.Body), "no API_KEY_SECRET") {
		t.Fatalf("%d %s", d.Status, d.Body)
	}
}

func TestIdentityVars(t *testing.T) {
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"AGENT_LIMITS", "", true},
		{"AGENT_LIMITS", "https://chatgpt.com=3000,https://agent.example:8443=1000", true},
		{"AGENT_LIMITS", "http://localhost:8788=5, http://[::1]=5", true},
		{"AGENT_LIMITS", "http://agent.example=5", false},
		{"AGENT_LIMITS", "https://agent.example/path=5", false},
		{"AGENT_LIMITS", "https://Agent.example=5", false},
		{"AGENT_LIMITS", "https://agent.example", false},
		{"AGENT_LIMITS", "https://agent.example=0", false},
		{"REVOKED_KEYS", "a, b.c", true},
		{"REVOKED_KEYS", "Bad Name", false},
		{"API_KEY_SECRET", "1:short", false},
	} {
		_, err := ConfigFromVars([]Var{{Name: c.name, Value: c.value}})
		if (err == nil) != c.ok {
			t.Errorf("%s=%q: %v", c.name, c.value, err)
		}
		if err != nil && c.name == "API_KEY_SECRET" && strings.Contains(err.Error(), c.value) {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}

// TestIdentityAllocatesNothing: a keyed, an agent's and a plain request allocate
// nothing on the request path.
func TestIdentityAllocatesNothing(t *testing.T) {
	s := identityServer(t)
	key := "Bearer " + partnerKey(t, "acme", 1<<30, 0)
	for _, hdr := range [][]abi.Header{{}, {{Name: "authorization", Value: key}}, {{Name: AgentHeader, Value: "https://agent.example"}}} {
		req := &abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: hdr}
		var w abi.Response
		s.Handle(req, &w)
		if n := testing.AllocsPerRun(50, func() { s.identify(req, testNow) }); n != 0 {
			t.Errorf("identify with %v allocates %v", hdr, n)
		}
	}
}

// FuzzIdentity: any Authorization value and any Web Bot Auth outcome the glue could
// hand over answer a healthy response (a 200, a 401 or a 429, never a 5xx), and a
// refused credential gets no more than no credential would: the address's bucket.
func FuzzIdentity(f *testing.F) {
	key := "Bearer ck_AQH6AQBhY21lOTL8PI4_a1L0xU8Tsa4cng"
	for _, s := range [][2]string{
		{key, ""}, {"", "https://agent.example"}, {"", "!tampered"}, {"", "!"}, {"", "https://other.example"},
		{"Bearer " + strings.Repeat("A", 100<<10), ""}, {"Bearer ck_" + strings.Repeat("_", 300), ""},
		{"Bearer", ""}, {"bearer \x00\xff", ""}, {"Basic x", "!expired"}, {key[:len(key)-1], "https://agent.example"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, auth, agent string) {
		cfg, err := ConfigFromVars([]Var{{Name: "API_KEY_SECRET", Value: identitySecret}, {Name: "AGENT_LIMITS", Value: "https://agent.example=7"}})
		if err != nil {
			t.Fatal(err)
		}
		s := testServer(t, cfg, bundledCatalog(t), nil)
		req := &abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "203.0.113.7"},
			{Name: "authorization", Value: auth}, {Name: AgentHeader, Value: agent}}}
		var w abi.Response
		s.Handle(req, &w)
		d := checkResponse(t, req, w.Encode())
		if d.Status != 200 && d.Status != 401 {
			t.Fatalf("%q %q: %d", auth, agent, d.Status)
		}
		if d.Status == 401 && d.Header("ratelimit-policy") != `"default";q=100;w=60` {
			t.Fatalf("%q %q: a 401 counted in %q", auth, agent, d.Header("ratelimit-policy"))
		}
	})
}
