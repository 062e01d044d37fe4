package api

import (
	"strconv"
	"strings"

	"github.com/campervan/agent-api/core/apikey"
	"github.com/campervan/agent-api/core/quotetoken"
)

// Config is the service's configuration, read once per instance from the Worker's
// vars (wrangler.toml [vars]); see ConfigFromVars for the names.
type Config struct {
	// BasePath is the path prefix of the API, without a trailing slash ("/api/agent").
	BasePath string
	// WebURL is the rental website, for the booking and checkout hand-off links.
	WebURL string
	// QuoteTTLSeconds is how long a quote is valid (expiresAt = now + this).
	QuoteTTLSeconds int64
	// RateLimit requests per RateWindowSeconds per client.
	RateLimit         int64
	RateWindowSeconds int64
	// Maintenance answers every API request with 503.
	Maintenance bool
	// StaticMaxAge is the Cache-Control max-age (s) of depots, accessory and insurance
	// lists and the OpenAPI document; SearchMaxAge that of availability results.
	StaticMaxAge int64
	SearchMaxAge int64
	// RetryAfterSeconds is the Retry-After of a 503.
	RetryAfterSeconds int64
	// MCPAllowedOrigins are the browser origins (scheme://host[:port]) allowed to
	// POST to the MCP endpoint; a request with any other Origin header gets 403
	// (MCP's DNS-rebinding rule). Requests without Origin are accepted.
	MCPAllowedOrigins []string
	// QuoteKeys signs quote ids (the first key) and verifies them (every key): the
	// Worker secret QUOTE_SIGNING_KEYS, "kid:base64url-key[,kid:key...]". Without it
	// the quote operations answer 503 and the others work.
	QuoteKeys *quotetoken.Keyring
	// APIKeys verifies partner keys (API_KEY_SECRET, less REVOKED_KEYS); nil: none are
	// issued. AgentLimits are the signed agents the operator trusts (AGENT_LIMITS).
	// identity.go reads the three vars.
	APIKeys     *apikey.Verifier
	AgentLimits []AgentLimit
	revokedKeys string
}

// DefaultConfig returns the configuration used when a var is not set.
func DefaultConfig() Config {
	return Config{
		BasePath:          "/api/agent",
		WebURL:            "https://www.example-campers.co.nz",
		QuoteTTLSeconds:   1800,
		RateLimit:         100,
		RateWindowSeconds: 60,
		StaticMaxAge:      300,
		SearchMaxAge:      10,
		RetryAfterSeconds: 120,
	}
}

// Vars are the names of the Worker vars ConfigFromVars reads (QUOTE_SIGNING_KEYS is a
// secret: `wrangler secret put`, or .dev.vars under `make dev`, never wrangler.toml). Every shell passes
// these (worker/glue/instance.mjs and wrangler.toml are held to this list by a test in worker/).
var Vars = []string{"BASE_PATH", "WEB_URL", "QUOTE_TTL_SECONDS", "RATE_LIMIT_REQUESTS",
	"RATE_LIMIT_WINDOW_SECONDS", "MAINTENANCE", "CACHE_MAX_AGE_SECONDS", "SEARCH_MAX_AGE_SECONDS",
	"RETRY_AFTER_SECONDS", "MCP_ALLOWED_ORIGINS", "QUOTE_SIGNING_KEYS",
	"API_KEY_SECRET", "REVOKED_KEYS", "AGENT_LIMITS"}

// RequestHeaders are the request headers Handle reads (lower case). Every shell passes
// these and no others.
var RequestHeaders = []string{"cf-connecting-ip", "if-none-match", "authorization", AgentHeader,
	"origin", "content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"}

// Var is one Worker var (wrangler.toml's [vars], or a secret) by its name.
type Var struct{ Name, Value string }

// ConfigFromVars returns DefaultConfig overridden by the vars (names in Vars) that are
// set: MAINTENANCE is "true"/"false", MCP_ALLOWED_ORIGINS comma-separated origins, the
// *_SECONDS and RATE_LIMIT_* vars positive integers. Other names are ignored; a bad
// value is an error naming the var.
func ConfigFromVars(vars []Var) (Config, error) {
	c := DefaultConfig()
	ints := [...]intVar{{"QUOTE_TTL_SECONDS", &c.QuoteTTLSeconds}, {"RATE_LIMIT_REQUESTS", &c.RateLimit},
		{"RATE_LIMIT_WINDOW_SECONDS", &c.RateWindowSeconds}, {"CACHE_MAX_AGE_SECONDS", &c.StaticMaxAge},
		{"SEARCH_MAX_AGE_SECONDS", &c.SearchMaxAge}, {"RETRY_AFTER_SECONDS", &c.RetryAfterSeconds}}
	for _, v := range vars {
		val := strings.TrimSpace(v.Value)
		var err error
		switch v.Name {
		case "BASE_PATH":
			val = trimSlashes(val)
			if val != "" && (val[0] != '/' || hasAnyByte(val, "?#% ")) {
				err = strconv.ErrSyntax
			}
			c.BasePath = val
		case "WEB_URL":
			val = trimSlashes(val)
			if !strings.HasPrefix(val, "https://") && !strings.HasPrefix(val, "http://") {
				err = strconv.ErrSyntax
			}
			c.WebURL = val
		case "MAINTENANCE":
			c.Maintenance, err = parseBool(val)
		case "MCP_ALLOWED_ORIGINS":
			if val != "" { // the shipped value: origins is then neither run nor compiled
				c.MCPAllowedOrigins, err = origins(val)
			}
		case "QUOTE_SIGNING_KEYS":
			if val == "" {
				break // no keys: the quote operations answer 503
			}
			if c.QuoteKeys, err = quotetoken.ParseKeys(val); err != nil {
				// never the value: it is a secret
				return DefaultConfig(), &configError{name: v.Name, why: err.Error()}
			}
		default:
			err = c.otherVar(v.Name, val, ints[:])
			if ce, ok := err.(*configError); ok && ce.why != "" {
				return DefaultConfig(), ce // a secret's error, which never holds its value
			}
		}
		if err != nil {
			return DefaultConfig(), &configError{name: v.Name, value: v.Value}
		}
	}
	return c, nil
}

// intVar is a var read as a positive integer into p.
type intVar struct {
	name string
	p    *int64
}

// otherVar reads a var that ConfigFromVars does not name: an identity var (identityVar)
// or one of ints; any other name is ignored.
func (c *Config) otherVar(name, val string, ints []intVar) error {
	if handled, err := c.identityVar(name, val); handled {
		return err
	}
	for _, n := range ints {
		if n.name == name {
			var err error
			*n.p, err = positive(val)
			return err
		}
	}
	return nil
}

type configError struct{ name, value, why string }

func (e *configError) Error() string {
	if e.why != "" {
		return "config: secret " + e.name + " is invalid: " + e.why
	}
	return "config: var " + e.name + " has an invalid value " + strconv.Quote(e.value)
}

// parseBool is strconv.ParseBool with "false" and "true" read in place: strconv's
// switch is more wasm to compile before every isolate's first answer.
func parseBool(s string) (bool, error) {
	switch s {
	case "false":
		return false, nil
	case "true":
		return true, nil
	}
	return strconv.ParseBool(s)
}

func positive(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return n, strconv.ErrSyntax
	}
	if n < 1 || n > 1<<31 {
		return n, strconv.ErrRange
	}
	return n, nil
}

// origins parses a comma-separated list of origins ("https://a.example, http://b:8080");
// each must be http(s)://host with no path. Trailing slashes are dropped.
//
// Not inlined: V8 compiles a wasm function whole on its first call, and ConfigFromVars
// runs before every isolate's first answer.
//
//go:noinline
func origins(s string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(s, ",") {
		o = trimSlashes(strings.TrimSpace(o))
		if o == "" {
			continue
		}
		rest, ok := strings.CutPrefix(o, "https://")
		if !ok {
			rest, ok = strings.CutPrefix(o, "http://")
		}
		if !ok || rest == "" || hasAnyByte(rest, "/?#@ ") {
			return nil, strconv.ErrSyntax
		}
		out = append(out, o)
	}
	return out, nil
}

// trimSlashes is strings.TrimRight(s, "/"), and hasAnyByte strings.ContainsAny for an
// ASCII set: ConfigFromVars runs before every isolate's first answer, and V8 compiles
// each wasm function it calls then; strings' general forms (an ASCII set built per
// call, TrimRight's cutset cases) are more code to compile.
func trimSlashes(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

func hasAnyByte(s, set string) bool {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(set); j++ {
			if s[i] == set[j] {
				return true
			}
		}
	}
	return false
}
