package api

import (
	"strconv"
	"strings"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/apikey"
	"github.com/campervan/agent-api/core/limit"
	"github.com/campervan/agent-api/core/text"
)

// Who is asking (README, "Who is asking"): a partner's key (Authorization: Bearer),
// else a signed agent (Web Bot Auth, verified by the glue: worker/glue/agent.mjs), else
// the address. Each identity counts in a bucket of its own (limit.Bucket).

// AgentHeader is the metadata request header by which the Worker's glue hands core a
// Web Bot Auth outcome: the verified agent's origin, or "!" and a refusal reason
// (agentReasons). A client cannot send it: a header name never starts with ':'.
const AgentHeader = ":agent"

// AgentLimit is one agent the operator trusts (AGENT_LIMITS) and its limit.
type AgentLimit struct {
	Origin string
	Limit  int64
}

// agentReasons are the glue's refusal reasons and the 401 of each.
var agentReasons = [...]struct {
	reason string
	err    authError
}{
	{"malformed", authError{"invalid_signature", "the Signature-Input or Signature header is malformed, or has no web-bot-auth signature covering its Signature-Agent, with created, expires, keyid and alg ed25519"}},
	{"tampered", authError{"invalid_signature", "the signature does not verify over this request: it was made for another authority (host), or the request or the signature was altered"}},
	{"expired", authError{"invalid_signature", "the signature has expired (its expires is in the past)"}},
	{"not_yet_valid", authError{"invalid_signature", "the signature is not yet valid (its created is in the future)"}},
	{"unknown_keyid", authError{"invalid_signature", "the signature's keyid is not in the agent's key directory"}},
	{"authority", authError{"invalid_signature", "the signature covers neither @authority nor @target-uri, so it is bound to no authority (host)"}},
}

var errSignature = &authError{"invalid_signature", "the signature could not be verified"}

// identify returns the bucket that counts req and, when its credential is refused, the
// 401 to answer (counted against the address: guessing is throttled as any request).
// A request with neither header costs two header lookups.
func (s *Server) identify(req *abi.Request, nowMs int64) (limit.Bucket, *authError) {
	addr := limit.Bucket{Key: clientKey(req), Limit: s.cfg.RateLimit}
	if h := req.Header("authorization"); h != "" {
		return s.partner(h, addr, nowMs)
	}
	if a := req.Header(AgentHeader); a != "" {
		return s.agent(a, addr)
	}
	return addr, nil
}

// authError is a refused credential: its code and message.
type authError struct{ code, message string }

var (
	errNoPartnerKeys = &authError{"invalid_key", "this service issues no partner keys (no API_KEY_SECRET); send the request without an Authorization header"}
	errNotBearer     = &authError{"invalid_key", "the Authorization header is not a Bearer token; a partner key is sent as Authorization: Bearer <key>"}
	keyErrors        = [...]*authError{
		apikey.Malformed: {"invalid_key", apikey.Malformed.Reason()},
		apikey.Forged:    {"invalid_key", apikey.Forged.Reason()},
		apikey.Expired:   {"invalid_key", apikey.Expired.Reason()},
		apikey.Revoked:   {"invalid_key", apikey.Revoked.Reason()},
	}
)

//go:noinline
func (s *Server) partner(h string, addr limit.Bucket, nowMs int64) (limit.Bucket, *authError) {
	if s.cfg.APIKeys == nil {
		return addr, errNoPartnerKeys
	}
	tok, ok := apikey.Bearer(h)
	if !ok {
		return addr, errNotBearer
	}
	var k apikey.Key
	if r := s.cfg.APIKeys.Verify(tok, text.FloorDiv(nowMs, 1000), &k); r != apikey.OK {
		return addr, keyErrors[r]
	}
	return limit.Bucket{Key: limit.Named(limit.Partner, text.BytesString(k.Name)), Limit: k.Limit, Kind: limit.Partner}, nil
}

//go:noinline
func (s *Server) agent(a string, addr limit.Bucket) (limit.Bucket, *authError) {
	if a[0] == '!' {
		for i := range agentReasons {
			if a[1:] == agentReasons[i].reason {
				return addr, &agentReasons[i].err
			}
		}
		return addr, errSignature
	}
	for _, l := range s.cfg.AgentLimits {
		if l.Origin == a {
			return limit.Bucket{Key: limit.Named(limit.Agent, l.Origin), Limit: l.Limit, Kind: limit.Agent}, nil
		}
	}
	return addr, nil // not a listed agent: the address's bucket
}

// unauthorized writes the 401 of a refused key or signature.
//
//go:noinline
func (s *Server) unauthorized(c *call, e *authError) {
	c.w.SetHeader("www-authenticate", `Bearer error="invalid_token"`)
	s.errorAnswer(c, 401, e.code, "", e.message)
}

// identityVar reads API_KEY_SECRET, REVOKED_KEYS and AGENT_LIMITS into c; handled is
// false for any other name. An error never contains the secret. An empty value (the
// shipped vars) sets nothing; a value is parsed by apiKeySecret, revokedNames and
// agentLimits, not inlined: ConfigFromVars runs before every isolate's first answer,
// and V8 compiles each wasm function it calls then, whole.
func (c *Config) identityVar(name, val string) (handled bool, err error) {
	switch name {
	case "API_KEY_SECRET":
		if val != "" { // empty: no partner keys, an Authorization header is a 401
			err = c.apiKeySecret(name, val)
		}
	case "REVOKED_KEYS":
		if val != "" {
			err = c.revokedNames(val)
		}
	case "AGENT_LIMITS":
		if val != "" {
			c.AgentLimits, err = agentLimits(val)
		}
	default:
		return false, nil
	}
	return true, err
}

//go:noinline
func (c *Config) apiKeySecret(name, val string) error {
	var err error
	if c.APIKeys, err = apikey.NewVerifier(val, c.revokedKeys); err != nil {
		return &configError{name: name, why: err.Error()}
	}
	return nil
}

//go:noinline
func (c *Config) revokedNames(val string) error {
	for _, n := range strings.Split(val, ",") {
		if n = strings.TrimSpace(n); n != "" && !apikey.ValidName(n) {
			return strconv.ErrSyntax
		}
	}
	c.revokedKeys = val
	if c.APIKeys != nil {
		c.APIKeys.SetRevoked(val)
	}
	return nil
}

// agentLimits parses AGENT_LIMITS: comma-separated origin=limit, an origin https://host
// (an optional port), or http:// for a loopback host only (local use).
//
//go:noinline
func agentLimits(s string) ([]AgentLimit, error) {
	var out []AgentLimit
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		o, n, ok := strings.Cut(e, "=")
		o = trimSlashes(strings.TrimSpace(o))
		if !ok || !AgentOrigin(o) {
			return nil, strconv.ErrSyntax
		}
		lim, err := positive(strings.TrimSpace(n))
		if err != nil {
			return nil, err
		}
		out = append(out, AgentLimit{Origin: o, Limit: lim})
	}
	return out, nil
}

// AgentOrigin reports whether o may be listed in AGENT_LIMITS: https://host[:port], or
// http://127.0.0.1, localhost or [::1] with an optional port; lower case, no path.
func AgentOrigin(o string) bool {
	host, ok := strings.CutPrefix(o, "https://")
	if !ok {
		if host, ok = strings.CutPrefix(o, "http://"); !ok {
			return false
		}
		h := host
		if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
			h = h[:i]
		}
		if h != "127.0.0.1" && h != "localhost" && h != "[::1]" {
			return false
		}
	}
	if host == "" || hasAnyByte(host, "/?#@ \\") || strings.ToLower(host) != host {
		return false
	}
	return true
}
