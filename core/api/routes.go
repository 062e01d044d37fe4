package api

import (
	"strings"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/limit"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// routeNone and routeMCP are the ":route" names (request log) of a path outside the
// API and of the MCP endpoint; an operation's is its Path.
const (
	routeNone = "-"
	routeMCP  = "/mcp"
)

// belowBase returns a path's part below the base path, and whether it is below it.
//
//go:inline
func (s *Server) belowBase(path string) (string, bool) {
	base := s.cfg.BasePath
	if len(path) < len(base) || path[:len(base)] != base || (len(path) > len(base) && path[len(base)] != '/') {
		return "", false
	}
	return path[len(base):], true
}

// ReadsInventory says whether the answer to req reads the bookings or names the
// inventory version: an operation marked Bookings (GET or HEAD), or a POST to the MCP
// endpoint (its tools search). The glue asks only while an isolate's first read of the
// live inventory is under way: it holds these requests until the read ends, and
// answers the others (the depots, a vehicle's accessories and insurance plans, a
// preflight, an unknown path) at once, from the reference data bundled with the
// module. It has no side effects: nothing is counted against the client.
func (s *Server) ReadsInventory(req *abi.Request) bool {
	path := req.Target
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	rest, ok := s.belowBase(path)
	switch {
	case !ok:
		return false
	case rest == routeMCP:
		return req.Method == "POST"
	case req.Method != "GET" && req.Method != "HEAD":
		return false
	}
	op, _ := match(rest)
	return op >= 0 && ops[op].Bookings
}

// ValidatorFreePaths returns the paths (the base path's included) under which no
// answer carries a validator (an ETag), so that a GET or HEAD there never reads
// If-None-Match: the operations that are never cached (cacheNone), each cut at its
// path parameter. A path p covers the targets p, p?query and p/anything; a path that
// would also cover an operation with a validator is left out. The glue reads
// If-None-Match only for the targets none covers (validatorFree): each request header
// it reads is a call into the runtime. Reading it anyway, as for a target no path
// covers, changes no answer.
//
// The paths without the base path are validatorFreeSuffixes, a literal that
// TestValidatorFreeSuffixes holds to what the operations table says: the glue asks for
// the paths when it makes the instance, so deriving them from the table would be more
// wasm to compile before the first answer, and TinyGo cannot evaluate that work at
// compile time (a package variable made by it would move the package's whole
// initialisation into every instance).
func (s *Server) ValidatorFreePaths() []string {
	out := make([]string, len(validatorFreeSuffixes))
	for i, p := range validatorFreeSuffixes {
		out[i] = s.cfg.BasePath + p
	}
	return out
}

var validatorFreeSuffixes = []string{"/quotes"}

// Handle answers req into w (which it resets first), at req.Now when the host gave
// a clock with it and else at the Server's. It never panics on any input.
func (s *Server) Handle(req *abi.Request, w *abi.Response) {
	w.Reset()
	w.SetHeaders(&s.headers.inventory)
	now := req.Now
	if now == 0 {
		now = s.now()
	}
	c := begin(&s.scratch, req, w, now)
	target := req.Target
	path, rawQuery := target, ""
	if i := text.IndexByte(target, '?'); i >= 0 {
		path, rawQuery = target[:i], target[i+1:]
	}
	rest, ok := s.belowBase(path)
	if !ok {
		w.SetHeader(":route", routeNone)
		s.uncounted(c, routeNone, false)
		return
	}
	op, pathParam := -1, ""
	route := routeMCP
	if rest != routeMCP {
		op, pathParam = match(rest)
		route = routeNone
		if op >= 0 {
			route = ops[op].Path
		}
	}
	w.SetHeader(":route", route)
	counted := req.Method == "GET" || req.Method == "HEAD"
	if route == routeMCP {
		counted = req.Method == "POST" // the MCP endpoint answers POST only (mcp.go)
	}
	if !counted {
		s.uncounted(c, route, true)
		return
	}
	head := req.Method == "HEAD"
	// Every GET and HEAD (and POST to the MCP endpoint) counts against the client's
	// limit, whatever it asks for.
	bucket, authErr := s.identify(req, now) // identity.go: a key, a signed agent, or the address
	v := s.limit.TakeIn(bucket, now)
	if s.limit.Due(now) {
		w.SetHeader(":kv", "1") // the glue then calls KVPending (write-behind, off the hot path)
	}
	s.rateHeaders(w, v)
	if !v.Allowed {
		s.tooMany(w, v)
		return
	}
	if authErr != nil {
		s.unauthorized(c, authErr)
		return
	}
	if len(target) > maxTargetLen || s.cfg.Maintenance || s.catErr != nil {
		s.refused(c)
		return
	}
	if route == routeMCP {
		in, out := c.mcpExchange()
		s.mcp.Serve(in, out, now, rawQuery)
		c.mcpSend()
		return
	}
	if e := c.q.parse(rawQuery); e != nil {
		s.fail(c, e)
		return
	}
	e := s.errNoRoute
	if op >= 0 {
		e = s.run(c, op, pathParam)
	}
	if e != nil {
		s.fail(c, e)
		return
	}
	if head {
		w.Body = w.Body[:0]
	}
}

// The answers off the path of a counted GET are functions of their own, not inlined
// into Handle: V8 compiles a function whole on its first call, and an isolate's first
// answer is usually a counted GET.

// uncounted answers a request that does not count against the limit (the rate-limit
// headers are shown all the same): a path outside the API (inAPI false), an OPTIONS
// preflight, or a method the route does not answer.
//
//go:noinline
func (s *Server) uncounted(c *call, route string, inAPI bool) {
	req, w := c.req, c.w
	bucket, _ := s.identify(req, c.now)
	s.rateHeaders(w, s.limit.PeekIn(bucket, c.now))
	switch {
	case !inAPI:
		s.fail(c, s.errOutside)
	case route == routeMCP:
		if in, out := c.mcpExchange(); s.mcp.Preflight(in, out) {
			c.mcpSend()
		} else {
			s.notAllowed(c, "POST", "method "+text.Clean(req.Method)+" is not allowed on the MCP endpoint: POST each JSON-RPC message (MCP streamable HTTP with JSON responses; this server opens no SSE stream)")
		}
	case req.Method == "OPTIONS":
		s.preflight(req, w)
	default:
		s.notAllowed(c, "GET, HEAD, OPTIONS", "method "+text.Clean(req.Method)+" is not allowed; this API is read-only and answers GET, HEAD and OPTIONS")
	}
}

// refused answers a counted request that is not served: a URL over the length limit,
// or the service unavailable (maintenance, or no catalog).
//
//go:noinline
func (s *Server) refused(c *call) {
	if len(c.req.Target) > maxTargetLen {
		s.fail(c, rental.InvalidCode(rental.CodeInvalidRequest, "url", "the URL is longer than 4096 bytes (the limit); send only the operation's parameters, with at most 20 ids in accessory_ids"))
		return
	}
	c.w.SetHeaderInt("retry-after", s.cfg.RetryAfterSeconds)
	msg := "the service is temporarily unavailable; retry after the number of seconds in the Retry-After header"
	if s.cfg.Maintenance {
		msg = "the service is down for maintenance; retry after the number of seconds in the Retry-After header"
	}
	s.fail(c, &rental.Error{Kind: rental.KindUnavailable, Message: msg})
}

// rateHeaders sets the rate-limit headers of verdict v: on every response, counted or not.
// They are encoded again only when the verdict differs from the last one: every new
// client in one second gets the same (the limit, one request used, the reset).
func (s *Server) rateHeaders(w *abi.Response, v limit.Verdict) {
	if v != s.rateLast || s.rateBlock.Len() == 0 {
		s.rateLast = v
		h := &s.rateBlock
		h.Reset()
		h.AddInt("x-ratelimit-limit", v.Limit)
		h.AddInt("x-ratelimit-remaining", v.Remaining)
		h.AddInt("x-ratelimit-reset", v.Reset)
		s.rateHeader = bytebuf.PutByte(s.rateHeader[:0], '"')
		s.rateHeader = bytebuf.Put(s.rateHeader, v.Kind.Name())
		s.rateHeader = bytebuf.Put(s.rateHeader, `";q=`)
		s.rateHeader = jsonw.AppendInt(s.rateHeader, v.Limit)
		s.rateHeader = bytebuf.Put(s.rateHeader, ";w=")
		s.rateHeader = jsonw.AppendInt(s.rateHeader, s.cfg.RateWindowSeconds)
		h.Add("ratelimit-policy", s.rateHeader)
		s.rateHeader = bytebuf.PutByte(s.rateHeader[:0], '"')
		s.rateHeader = bytebuf.Put(s.rateHeader, v.Kind.Name())
		s.rateHeader = bytebuf.Put(s.rateHeader, `";r=`)
		s.rateHeader = jsonw.AppendInt(s.rateHeader, v.Remaining)
		s.rateHeader = bytebuf.Put(s.rateHeader, ";t=")
		s.rateHeader = jsonw.AppendInt(s.rateHeader, v.Reset)
		h.Add("ratelimit", s.rateHeader)
	}
	w.SetHeaders(&s.rateBlock)
}

// clientKey is who the rate limit counts: the address Cloudflare's edge sets, an IPv4
// address or an IPv6 /64; an absent or unparseable value is one shared bucket
// (limit.ClientOf).
func clientKey(req *abi.Request) limit.Key {
	return limit.ClientOf(req.Header("cf-connecting-ip"))
}
