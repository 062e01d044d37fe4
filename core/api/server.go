// Package api is the HTTP API of the campervan rental service over core's own
// request and response types (package abi). It imports no platform package; the
// shells in worker/ adapt it to the Worker and to net/http.
//
// The Server, which lives as long as the instance, and call, the state of one request,
// are in server.go; the table of operations in ops.go; Handle in routes.go. Each family
// of operations has its file: catalog.go (depots, a vehicle's accessories and insurance
// plans), search.go (availability), calendar.go, quotes.go (getting, signing and
// checking a quote), terms.go (GET /terms and the rental terms in other answers),
// openapi.go (the index and the OpenAPI document) and mcp.go (the operations as MCP
// tools). Query parsing is in params.go, the paging of lists (limit, page, the Link
// header) in paging.go, an error's suggestions in suggest.go, responses and caching in
// respond.go, the configuration in config.go.
package api

import (
	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/limit"
	"github.com/campervan/agent-api/core/mcp"
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// Server answers the API's requests. Build it once per instance with NewServer; it
// holds what lives as long as the instance and is not safe for concurrent use.
type Server struct {
	// Dependencies, given to NewServer.
	cfg    Config
	cat    *rental.Catalog // the catalog with the current inventory (SetInventory)
	base   *rental.Catalog // the catalog as loaded, with the bundled bookings
	catErr error           // why cat could not be loaded (every API request is then a 503)
	now    func() int64    // unix milliseconds
	random func([]byte)    // cryptographically random bytes (quote id nonces)
	logf   func(string)    // writes one log line (JSON); internal errors go here, never into a body
	limit  *limit.Limiter
	mcp    *mcp.Endpoint

	// Bodies and strings prepared once per Server. Strings that go into messages are
	// built here because a concatenation on each request is a heap allocation under TinyGo.
	depots       cached                                   // GET /depots: the same bytes for every request
	openapi      cached                                   // GET /openapi.json (built on first use: docs)
	indexDoc     cached                                   // GET /
	feed         feedStatus                               // the scheduled pull's report in the index (feed.go)
	vehicleParts []vehicleJSONParts                       // per catalog vehicle, by index (search.go)
	accHeads     [][]byte                                 // catalogParts.accHeads
	insHeads     [][]byte                                 // catalogParts.insHeads
	partsMax     int                                      // catalogParts.partsMax
	classList    string                                   // catalogParts.classList
	headers      answerHeaders                            // the answers' header blocks (respond.go)
	refs         rental.Refs                              // how the domain's messages name the operations
	errOutside   *rental.Error                            // 404 of a path outside the base path
	errNoRoute   *rental.Error                            // 404 of an unknown path under it
	invVersion   string                                   // X-Inventory-Version: the inventory serving
	invTag       uint32                                   // quotetoken.InventoryTag(invVersion), what a quote id names it by (setInvVersion)
	offersSeed   uint64                                   // the seed of an availability ETag's hash (setInvVersion)
	catSeed      uint64                                   // a hash of the catalog's version, the seed of an extras list's page tokens
	errQuoteID   [quotetoken.BadPayload + 1]*rental.Error // 400 of a quote id Verify refused, per Result
	mcpText      []string                                 // error messages in a tool's words (mcp.go), built on first use

	// Answers kept between requests, each for as long as its key holds.
	//
	// The rate-limit headers of the last verdict (rateHeaders): every new client in
	// one second gets the same.
	rateLast   limit.Verdict
	rateBlock  abi.Headers // the five rate-limit headers of rateLast
	rateHeader []byte      // where the value of a RateLimit or RateLimit-Policy header is made
	// The errors of calendar days a rule rules out, by dayKey (calendar.go).
	dayFails [256]struct {
		key dayKey
		e   *rental.Error
	}
	// The clock's answers, kept for the second they were made in: New Zealand's date
	// (rental.NZToday) and a quote's expiry as RFC 3339 text, the same for every request
	// of a second. Keyed by the second of the request's clock they were made at.
	clock struct {
		todaySec, expSec int64
		today            rental.Date
		todayOK, expOK   bool
		exp              [2]bytebuf.Short // the expiry's 20 bytes: the first 16, the last 4
	}

	// The rental terms (terms.go): GET /terms (built on first use: most isolates never
	// serve it), each vehicle's insurance options and the most bytes they take, and the
	// texts of a quote's term dates, from datesFirst on (written on first use).
	termsDoc    cached
	optionParts [][]optionPart
	optionsMax  int
	dateTexts   [][rental.DateLen]byte
	datesFirst  rental.Date
	// The state of the request being answered, and of an MCP tool call run within it,
	// each reused: nothing on the request path may allocate. Handle and mcpOps.Run
	// reset theirs (begin) and hand it down.
	scratch call
	tool    struct {
		c   call
		req abi.Request  // the tool's operation as a GET
		out abi.Response // its answer
	}
}

// call is the state of one request while it is answered: the request, its response,
// the operation, its path parameter and parsed query, the clock, and each step's
// buffers. A handler is given it whole (Op.handle); the Server keeps one for the
// requests and one for MCP tool runs, each reused (begin).
type call struct {
	req         *abi.Request  // the request
	w           *abi.Response // its answer
	op          *Op           // the operation being answered
	pathParam   string        // the path parameter's segment ("" for none)
	now         int64         // the request's clock, unix ms (abi.Request.Now, else the Server's)
	q           query
	offers      []rental.Offer
	picks       []rental.Pick
	quote       rental.Quote
	filter      rental.Filter
	bookingLink []byte               // this search's ,"bookingUrl": member up to the vehicle id
	extrasBody  []byte               // the accessories or insurance list before it is sent
	extrasETag  []byte               // its ETag
	searchETag  []byte               // the ETag of an availability or calendar answer
	tok         quotetoken.Quote     // the quote being signed (a field: a local would escape under TinyGo)
	checked     quotetoken.Quote     // the quote id being checked
	alts        []rental.Alternative // an error's ways forward (suggest.go)
	sugg        []suggestion         // the same as URLs: the error body's suggestions
	lengths     []int                // a calendar's hire lengths
	etagKey     []byte               // the inputs a calendar's ETag hashes
	mcpIn       mcp.Request          // what the MCP endpoint reads of a request (mcpExchange)
	mcpOut      mcp.Response         // the MCP endpoint's answer

	// This search's days and route fee, which every offer shares, written once with the
	// members around them (writeOffers): daysRental is N,"rentalFee": and routeTotal
	// ,"routeFee":R,"totalAmount":.
	daysRental, routeTotal []byte
	daysRentalW            bytebuf.Short // daysRental as words (bytebuf.ShortAt); Len 0 when longer than 16 bytes
	sharedDays             int
	sharedRoute            int64

	// The text of this request's two search dates, as the query gave them (which is
	// how Date.At writes them: ParseDate takes YYYY-MM-DD alone), for dateAt; a slot
	// whose text starts with 0 is empty.
	dateText [2]struct {
		d    rental.Date
		text [rental.DateLen]byte
	}
	// This request's include=insurance and driver_age (terms.go).
	withOptions bool
	driverAge   int
	fullDetail  bool // a calendar's detail=full

	// This request's page of a list (paging.go): its range, the next page's token
	// and the Link header's value.
	pg       page
	written  int // the items of a list the page holds (writeOffers)
	nextPage []byte
	link     []byte
}

// begin resets c for a new request (or MCP tool run) of req answered into w at now
// (unix ms), and returns it.
//
//go:inline
func begin(c *call, req *abi.Request, w *abi.Response, now int64) *call {
	c.req, c.w, c.now = req, w, now
	c.op, c.pathParam = nil, ""
	c.sugg = c.sugg[:0]
	c.pg.bytes = 0 // an MCP tool run sets its budget (mcpOps.Run)
	c.nextPage = c.nextPage[:0]
	return c
}

// NewServer returns a server over cat. catErr, when not nil, is why the catalog could
// not be loaded: every API request then gets 503. now returns unix milliseconds;
// random fills a slice with cryptographically random bytes (quote ids); logf writes a
// log line (nil: none).
func NewServer(cfg Config, cat *rental.Catalog, catErr error, now func() int64, random func([]byte), logf func(string)) *Server {
	if cat == nil && catErr == nil {
		catErr = errNoCatalog
	}
	s := &Server{cfg: cfg, cat: cat, base: cat, catErr: catErr, invVersion: "none", now: now, random: random, logf: logf,
		limit:      limit.New(cfg.RateLimit, cfg.RateWindowSeconds, random),
		refs:       rental.DefaultRefs,
		errOutside: rental.NotFound("path", "no such path; the API lives under "+cfg.BasePath+"/ (its description: "+cfg.BasePath+"/openapi.json)"),
		errNoRoute: rental.NotFound("path", "no such path under "+cfg.BasePath+"; see "+cfg.BasePath+"/openapi.json for the operations")}
	cacheControl := [nCacheClasses]string{
		cacheStatic: "public, max-age=" + string(jsonw.AppendInt(nil, cfg.StaticMaxAge)),
		cacheSearch: "public, max-age=" + string(jsonw.AppendInt(nil, cfg.SearchMaxAge)),
		cacheDated:  "public, max-age=" + string(jsonw.AppendInt(nil, cfg.StaticMaxAge)),
		cacheNone:   "no-store"}
	makeAnswerHeaders(&s.headers, &cacheControl)
	if catErr != nil {
		s.headers.inventory = abi.NewHeaders("x-inventory-version", s.invVersion)
		s.invTag = quotetoken.InventoryTag(s.invVersion)
	} else {
		p := &bundledParts
		if cat != rental.Bundled() {
			p = makeCatalogParts(cat)
		}
		s.depots, s.vehicleParts, s.partsMax, s.classList = p.depots, p.vehicles, p.partsMax, p.classList
		s.accHeads, s.insHeads = p.accHeads, p.insHeads
		s.optionParts, s.optionsMax = p.options, p.optionsMax
		s.setInvVersion(cat.Inventory().Version())
	}
	s.mcp = mcp.New(mcp.Config{BasePath: cfg.BasePath, StaticMaxAge: cfg.StaticMaxAge,
		AllowedOrigins: cfg.MCPAllowedOrigins, ExposeHeaders: exposed, Resources: mcpViews()}, tools, mcpOps{s})
	return s
}

// catalogParts are the parts of the answers that depend on the catalog alone.
type catalogParts struct {
	depots    cached             // GET /depots
	vehicles  []vehicleJSONParts // per vehicle, by index
	partsMax  int                // the longest head, mid and idEnd of a vehicle together
	classList string             // "compact, campervan or motorhome", for messages
	// A quote's items up to their cost, {"id":N,"name":"...","cost": (itemAt), per
	// accessory and insurance plan by their index in the catalog's id order.
	accHeads, insHeads [][]byte
	options            [][]optionPart // each vehicle's insurance options (terms.go)
	optionsMax         int            // the most bytes of one offer's options
}

// makeCatalogParts renders the parts of cat (a catalog other than the bundled one).
// Not inlined: NewServer would then carry the rendering code, and V8 compile it with
// NewServer in every isolate.
//
//go:noinline
func makeCatalogParts(cat *rental.Catalog) *catalogParts {
	p := &catalogParts{vehicles: buildVehicleJSON(cat.Vehicles()), classList: orList(cat.Classes())}
	p.accHeads = buildItemHeads(cat.AccessoryIDs())
	p.insHeads = buildItemHeads(cat.InsuranceIDs())
	p.depots.set(appendDepots(nil, cat.Depots()))
	p.options, p.optionsMax = buildOptionParts(cat)
	for i := range p.vehicles {
		v := &p.vehicles[i]
		p.partsMax = max(p.partsMax, len(v.head)+len(v.mid)+len(v.idEnd))
	}
	return p
}

// bundledParts are the bundled catalog's, and quoteNoteJSON the quote's note escaped:
// package variables, which TinyGo evaluates at compile time (the catalog is a Go
// literal, core/rental/bundled_gen.go), so that an isolate neither renders them nor
// compiles the code that would (V8 compiles each function on its first call). Should
// TinyGo fail to evaluate them, it would run the whole package's initialisation in
// every isolate instead: `tinygo build -internal-dumpssa` then says "revert because"
// for core/api.
var (
	bundledParts  = *makeCatalogParts(rental.Bundled())
	quoteNoteJSON = jsonw.AppendJSONString(nil, quoteNote)
)

// InventoryVersion returns the version of the inventory serving (X-Inventory-Version):
// a content hash, "bundled-" and a hash for the bookings bundled with the deploy, or
// "none" when there is no catalog.
func (s *Server) InventoryVersion() string { return s.invVersion }

// SetInventory decodes blob (rental.Catalog.DecodeInventory) against the bundled
// catalog and, when it is valid, serves it from the next request on. When it is not,
// the inventory serving is kept and the error says why. One call, between requests:
// a request sees either the old inventory or the new one, whole.
func (s *Server) SetInventory(blob []byte) error {
	if s.catErr != nil {
		return s.catErr
	}
	inv, err := s.base.DecodeInventory(blob)
	if err != nil {
		return err
	}
	s.cat = s.base.WithInventory(inv)
	s.setInvVersion(inv.Version())
	s.indexDoc = cached{} // both rebuilt with the new inventory on first use
	s.openapi = cached{}
	return nil
}

// setInvVersion sets the inventory version serving, and the seed of the availability
// ETags (offersHash), which follows it and the catalog's version.
func (s *Server) setInvVersion(v string) {
	s.invVersion = v
	s.invTag = quotetoken.InventoryTag(v) // once a version, not an FNV-64a over it each quote
	s.headers.inventory = abi.NewHeaders("x-inventory-version", v)
	s.catSeed = text.FNV64a(text.FNVOffset, s.cat.Version())
	s.offersSeed = text.FNV64a(s.catSeed, v)
}

type constError string

func (e constError) Error() string { return string(e) }

const errNoCatalog = constError("api: no catalog")

// KVPending appends the rate limiter's KV operations due now to dst (see
// limit.Limiter.KVPending). A response carrying the ":kv" metadata header says
// some are due.
func (s *Server) KVPending(dst []byte) []byte { return s.limit.KVPending(dst, s.now()) }

// KVDone hands the outcomes of the operations KVPending listed back to the limiter and
// returns the ms until the next KV operation falls due (0: none scheduled).
func (s *Server) KVDone(buf []byte) int64 { return s.limit.KVDone(buf, s.now()) }

// LimitState appends the head of the rate limiter's state to dst, and LimitTable
// returns its table's bytes (limit.Limiter.AppendState, Table): the Worker's glue hands
// both to the instance that replaces this one.
func (s *Server) LimitState(dst []byte) []byte { return s.limit.AppendState(dst) }

// LimitTable returns the rate limiter's table as bytes (see LimitState).
func (s *Server) LimitTable() []byte { return s.limit.Table() }

// LoadLimitState takes the head LimitState made in another instance of the same
// configuration, whose table the caller copied into LimitTable, and reports whether it
// did (limit.Limiter.LoadState: when not, the table is cleared).
func (s *Server) LoadLimitState(b []byte) bool { return s.limit.LoadState(b) }

// orList joins words as "a, b or c".
func orList(ws []string) string {
	out := ""
	for i, w := range ws {
		switch {
		case i == 0:
		case i == len(ws)-1:
			out += " or "
		default:
			out += ", "
		}
		out += w
	}
	return out
}
