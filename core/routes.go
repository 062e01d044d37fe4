package core

// Server answers the API's requests. Build it once per instance with NewServer; it
// keeps scratch buffers between requests and is not safe for concurrent use.
type Server struct {
	cfg    Config
	cat    *Catalog
	catErr error
	now    func() int64 // unix milliseconds
	random func([]byte)
	limit  *Limiter

	depots   cached // GET /depots: the same bytes for every request
	openapi  cached // GET /openapi.json
	indexDoc cached // GET /
	q        query
	offers   []Offer
	picks    []Pick
	quote    Quote
	scratch  []byte
	list     []byte
	ccStatic string // Cache-Control of static answers
	ccSearch string // Cache-Control of availability results
	raw      [16]byte

	// Where ids come from, for "missing parameter" messages; built once, because an
	// argument built by concatenation on each request is a heap allocation under TinyGo.
	hintDepot, hintVehicle string
	// The 404s of unknown paths (browsers and crawlers ask for /favicon.ico and the like).
	errOutside, errNoRoute *Error

	vjson     []vehicleJSONParts // per catalog vehicle, by index (api.go)
	vjsonMiss []vehicleJSONParts
	handoff   []byte // this request's booking link up to the vehicle id
	noteJSON  []byte // the quote's note, escaped once
	mcp       mcpState
}

// NewServer returns a server over cat. catErr, when not nil, is why the catalog could
// not be loaded: every API request then gets 503. now returns unix milliseconds;
// random fills a slice with cryptographically random bytes (quote ids).
func NewServer(cfg Config, cat *Catalog, catErr error, now func() int64, random func([]byte)) *Server {
	if cat == nil && catErr == nil {
		catErr = errNoCatalog
	}
	s := &Server{cfg: cfg, cat: cat, catErr: catErr, now: now, random: random,
		limit:       NewLimiter(cfg.RateLimit, cfg.RateWindowSeconds, random),
		ccStatic:    "public, max-age=" + string(appendInt(nil, cfg.StaticMaxAge)),
		ccSearch:    "public, max-age=" + string(appendInt(nil, cfg.SearchMaxAge)),
		hintDepot:   "a depot id from GET " + cfg.BasePath + "/depots",
		hintVehicle: "a vehicleId from GET " + cfg.BasePath + "/vehicles/availability",
		errOutside:  NotFound("path", "no such path; the API lives under "+cfg.BasePath+"/ (its description: "+cfg.BasePath+"/openapi.json)"),
		errNoRoute:  NotFound("path", "no such path under "+cfg.BasePath+"; see "+cfg.BasePath+"/openapi.json for the operations")}
	if catErr == nil {
		s.depots.set(appendDepots(nil, cat.Depots()))
		s.vjson = buildVehicleJSON(cat.Vehicles())
	}
	s.noteJSON = appendJSONString(nil, quoteNote)
	s.indexDoc.set(appendIndex(nil, cfg.BasePath))
	return s
}

// docs builds the OpenAPI document and the MCP tool definitions derived from it on the
// first request that needs them, not in NewServer: every isolate pays NewServer before
// its first answer, and most never serve either (measured natively: NewServer took
// 397 us with them, 19 us without).
func (s *Server) docs() {
	if s.openapi.body == nil {
		s.openapi.set(renderOpenAPI(&s.cfg))
		s.mcp = buildMCP(&s.cfg, s.openapi.body)
	}
}

type constError string

func (e constError) Error() string { return string(e) }

const errNoCatalog = constError("core: no catalog")

// Route names, as written in the request log and the ":route" metadata header.
const (
	routeNone         = "-"
	routeIndex        = "/"
	routeDepots       = "/depots"
	routeAvailability = "/vehicles/availability"
	routeAccessories  = "/vehicles/{vehicleId}/accessories"
	routeInsurance    = "/vehicles/{vehicleId}/insurance-types"
	routeQuotes       = "/quotes"
	routeOpenAPI      = "/openapi.json"
)

// match returns the route for a path below the base path, and the vehicleId segment.
func match(rest string) (route, vehicle string) {
	switch rest {
	case "", "/":
		return routeIndex, ""
	case "/depots":
		return routeDepots, ""
	case "/vehicles/availability":
		return routeAvailability, ""
	case "/quotes":
		return routeQuotes, ""
	case "/openapi.json":
		return routeOpenAPI, ""
	case "/mcp":
		return routeMCP, ""
	}
	const v = "/vehicles/"
	if len(rest) > len(v) && rest[:len(v)] == v {
		tail := rest[len(v):]
		if i := indexByte(tail, '/'); i > 0 {
			switch tail[i:] {
			case "/accessories":
				return routeAccessories, tail[:i]
			case "/insurance-types":
				return routeInsurance, tail[:i]
			}
		}
	}
	return routeNone, ""
}

// Handle answers req into w (which it resets first). It never panics on any input.
func (s *Server) Handle(req *Request, w *Response) {
	w.Reset()
	target := req.Target
	path, rawQuery := target, ""
	if i := indexByte(target, '?'); i >= 0 {
		path, rawQuery = target[:i], target[i+1:]
	}
	base := s.cfg.BasePath
	if len(path) < len(base) || path[:len(base)] != base || (len(path) > len(base) && path[len(base)] != '/') {
		w.SetHeader(":route", routeNone)
		s.rateHeaders(w, s.limit.Peek(clientKey(req), s.now()))
		s.fail(w, req, s.errOutside)
		return
	}
	route, vehicle := match(path[len(base):])
	w.SetHeader(":route", route)
	counted := req.Method == "GET" || req.Method == "HEAD"
	if route == routeMCP {
		counted = req.Method == "POST" // the MCP endpoint answers POST only (mcp.go)
	}
	if !counted {
		s.rateHeaders(w, s.limit.Peek(clientKey(req), s.now())) // not counted, but shown
	}
	if route == routeMCP && !counted {
		s.mcpOtherMethod(req, w)
		return
	}
	if req.Method == "OPTIONS" {
		s.preflight(req, w)
		return
	}
	head := req.Method == "HEAD"
	if !counted {
		w.SetHeader("allow", "GET, HEAD, OPTIONS")
		s.fail(w, req, &Error{Kind: KindMethod, Param: "method", Message: "method " + clean(req.Method) + " is not allowed; this API is read-only and answers GET, HEAD and OPTIONS"})
		return
	}
	// Every GET and HEAD (and POST to the MCP endpoint) counts against the client's
	// limit, whatever it asks for.
	nowMs := s.now()
	v := s.limit.Take(clientKey(req), nowMs)
	if s.limit.Due(nowMs) {
		w.SetHeader(":kv", "1") // the glue then calls KVPending (write-behind, off the hot path)
	}
	s.rateHeaders(w, v)
	if !v.Allowed {
		s.tooMany(w, v)
		return
	}
	if len(target) > maxTargetLen {
		s.fail(w, req, Invalid("url", "the URL is longer than 4096 bytes (the limit); send only the operation's parameters, with at most 20 ids in accessory_ids"))
		return
	}
	if s.cfg.Maintenance || s.catErr != nil {
		w.SetHeaderInt("retry-after", s.cfg.RetryAfterSeconds)
		msg := "the service is temporarily unavailable; retry after the number of seconds in the Retry-After header"
		if s.cfg.Maintenance {
			msg = "the service is down for maintenance; retry after the number of seconds in the Retry-After header"
		}
		s.fail(w, req, &Error{Kind: KindUnavailable, Message: msg})
		return
	}
	if route == routeMCP {
		s.docs()
		s.serveMCP(req, w, nowMs, rawQuery)
		return
	}
	if e := s.q.parse(rawQuery); e != nil {
		s.fail(w, req, e)
		return
	}
	var e *Error
	switch route {
	case routeIndex:
		e = s.index(req, w)
	case routeDepots:
		e = s.getDepots(req, w)
	case routeAvailability:
		e = s.getAvailability(w, nowMs)
	case routeAccessories, routeInsurance:
		e = s.getExtras(req, w, route, vehicle)
	case routeQuotes:
		e = s.getQuote(w, nowMs)
	case routeOpenAPI:
		e = s.getOpenAPI(req, w)
	default:
		e = s.errNoRoute
	}
	if e != nil {
		s.fail(w, req, e)
		return
	}
	if head {
		w.Body = w.Body[:0]
	}
}

// rateHeaders sets the rate-limit headers of verdict v: on every response, counted or not.
func (s *Server) rateHeaders(w *Response, v Verdict) {
	w.SetHeaderInt("x-ratelimit-limit", v.Limit)
	w.SetHeaderInt("x-ratelimit-remaining", v.Remaining)
	w.SetHeaderInt("x-ratelimit-reset", v.Reset)
	s.scratch = append(s.scratch[:0], `"default";q=`...)
	s.scratch = appendInt(s.scratch, v.Limit)
	s.scratch = append(s.scratch, ";w="...)
	s.scratch = appendInt(s.scratch, s.cfg.RateWindowSeconds)
	w.SetHeaderBytes("ratelimit-policy", s.scratch)
	s.scratch = append(s.scratch[:0], `"default";r=`...)
	s.scratch = appendInt(s.scratch, v.Remaining)
	s.scratch = append(s.scratch, ";t="...)
	s.scratch = appendInt(s.scratch, v.Reset)
	w.SetHeaderBytes("ratelimit", s.scratch)
}

// clientKey is who the rate limit counts: the address Cloudflare's edge sets.
// An address is at most 45 bytes (IPv6 with an IPv4 tail); anything longer is not one
// Cloudflare set, and is cut so a client cannot grow the limiter's memory with it.
func clientKey(req *Request) string {
	if ip := req.Header("cf-connecting-ip"); ip != "" {
		if len(ip) > maxClientKey {
			ip = ip[:maxClientKey]
		}
		return ip
	}
	return "127.0.0.1"
}

const maxClientKey = 64

// quoteID returns 128 random bits as 32 hex digits.
func (s *Server) quoteID(b []byte) []byte {
	s.random(s.raw[:]) // a field, not a local: a local passed to a func value escapes under TinyGo
	for _, c := range s.raw {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}
