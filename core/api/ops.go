package api

import (
	"strings"

	"github.com/campervan/agent-api/core/mcp"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// The operations of the API, declared once. Routing (match), the accepted-parameter
// checks and the "missing parameter" hints, the index (GET {base}/), the cache class
// of each answer and the MCP tool list are all derived from this table;
// TestOpsMatchOpenAPI holds it equal to openapi.json (paths, parameter names and
// required flags).
//
// Adding an operation is one row here plus its handler (a Server method with the
// signature of Op.handle that reads its parameters through c.q, calls c.checkParams
// once it has read them all, and writes its answer into w), plus its description in
// openapi.json.

// cacheClass says how an operation's answers may be cached.
type cacheClass uint8

const (
	cacheStatic cacheClass = iota // the same bytes for every request: ETag, CACHE_MAX_AGE_SECONDS
	cacheSearch                   // computed per request: SEARCH_MAX_AGE_SECONDS
	cacheDated                    // cacheStatic without dates, cacheSearch with them
	cacheNone                     // never cached (a quote has its own id and expiry)
	nCacheClasses
)

// Param is one query parameter of an operation.
type Param struct {
	Name     string
	Required bool
	// For an id: what it is and the operation that lists it; a "missing parameter"
	// message then says "(a depot id from GET {base}/depots)".
	What, From string
}

// Op is one operation of the API (GET).
type Op struct {
	// Path is below the base path, as in openapi.json; one segment may be a path
	// parameter ("/vehicles/{vehicleId}/accessories").
	Path   string
	Params []Param // query parameters, in the order messages list them
	// ParamNote follows the list of accepted parameters in messages.
	ParamNote string
	Cache     cacheClass
	// Bookings: the answer reads the bookings, or names the inventory version (the
	// index, the OpenAPI document). While an isolate's first read of the live inventory
	// is under way, the glue holds such a request until the read ends (at most 1 s), and
	// answers the others at once (ReadsInventory; docs/inventory.md).
	Bookings bool
	// Tool is the operation as an MCP tool; an operation without a tool Name is not
	// a tool, and is not listed among the index's operations either. Tool.Path and
	// Tool.PathParam are filled from Path.
	Tool mcp.Tool
	// handle answers the operation of request c (its query parsed into c.q): nil after
	// writing a 2xx/304 into c.w, or the error to answer with.
	handle func(s *Server, c *call) *rental.Error

	// Derived from the above by init.
	prefix, suffix string // Path around its path parameter
	pathParam      string // the path parameter's name ("" for none)
	accepted       string // "a, b, c" and ParamNote, for "unknown parameter" messages
}

// Parameters shared by several operations.
var (
	pPickUpDepot  = Param{Name: "pick_up_depot_id", Required: true, What: "a depot id", From: "/depots"}
	pDropOffDepot = Param{Name: "drop_off_depot_id", Required: true, What: "a depot id", From: "/depots"}
	pPickUpDate   = Param{Name: "pick_up_date", Required: true}
	pDropOffDate  = Param{Name: "drop_off_date", Required: true}
	pPickUpDay    = Param{Name: "pick_up_date"} // optional: the extras' cost for a period
	pDropOffDay   = Param{Name: "drop_off_date"}
	// The filters of a search (availability and its calendar).
	pMinBerths    = Param{Name: "min_berths"}
	pTransmission = Param{Name: "transmission"}
	pClass        = Param{Name: "class"}
	pMaxTotal     = Param{Name: "max_total"}
	// The driver's age (searches and quotes) and what a search adds to each vehicle.
	pDriverAge = Param{Name: "driver_age"}
	pInclude   = Param{Name: "include"}
	// The page of a list (paging.go).
	pLimit = Param{Name: "limit"}
	pPage  = Param{Name: "page"}
)

var ops = [...]Op{
	{Path: "/", Bookings: true, Cache: cacheStatic, handle: (*Server).getIndex},
	{Path: "/openapi.json", Bookings: true, Cache: cacheStatic, handle: (*Server).getOpenAPI},
	{Path: "/depots", Cache: cacheStatic, handle: (*Server).getDepots,
		Tool: mcp.Tool{Name: "list_depots", Title: "List depots", Wrap: "depots",
			Lead: "Every depot: id, name, pick-up and drop-off times, opening hours, holidays closed."}},
	{Path: "/vehicles/availability", Bookings: true, Cache: cacheSearch, handle: (*Server).getAvailability,
		Params: []Param{pPickUpDepot, pDropOffDepot, pPickUpDate, pDropOffDate, pMinBerths, pTransmission, pClass, pMaxTotal, {Name: "sort"}, pDriverAge, pInclude, pLimit, pPage},
		Tool: mcp.Tool{Name: "search_vehicles", Title: "Search available vehicles", Wrap: "vehicles",
			Lead: "Vehicles free for a hire (depot ids from list_depots), each with its vehicle-only totalAmount; include=insurance adds each plan's all-in total. Empty: nothing is free. More: page=nextPage."}},
	{Path: "/vehicles/availability/calendar", Bookings: true, Cache: cacheSearch, handle: (*Server).getCalendar,
		Params: []Param{pPickUpDepot, pDropOffDepot, {Name: "earliest_pick_up_date", Required: true}, {Name: "latest_pick_up_date", Required: true},
			{Name: "days", Required: true}, {Name: "vehicle_id"}, pMinBerths, pTransmission, pClass, pMaxTotal, pDriverAge, pInclude, {Name: "detail"}, pLimit, pPage},
		Tool: mcp.Tool{Name: "search_calendar", Title: "Search flexible dates", Wrap: "calendar",
			Lead: "Flexible dates: for each start date in a range (63 at most) and hire length (days: \"10\" or \"7,10,14\"), how many vehicles are free and the 3 cheapest (detail=full: all); a date without any says why. Filters and include as search_vehicles. More: page=nextPage."}},
	{Path: "/vehicles/{vehicleId}/accessories", Cache: cacheDated, handle: (*Server).getAccessories,
		Params: []Param{pPickUpDay, pDropOffDay, pLimit, pPage}, ParamNote: "(the dates both optional, together)",
		Tool: mcp.Tool{Name: "list_accessories", Title: "List a vehicle's accessories", Wrap: "accessories", PathHint: "a vehicleId from search_vehicles",
			Lead: "A vehicle's accessories, with cost for the period when both dates are given. get_quote's accessory_ids repeats an id per unit: \"1,1,2\". More: page=nextPage."}},
	{Path: "/vehicles/{vehicleId}/insurance-types", Cache: cacheDated, handle: (*Server).getInsurance,
		Params: []Param{pPickUpDay, pDropOffDay, pLimit, pPage}, ParamNote: "(the dates both optional, together)",
		Tool: mcp.Tool{Name: "list_insurance_plans", Title: "List a vehicle's insurance plans", Wrap: "insurancePlans", PathHint: "a vehicleId from search_vehicles",
			Lead: "A vehicle's insurance plans with excess and bond, and cost for the period when both dates are given. For get_quote's insurance_id. More: page=nextPage."}},
	{Path: "/terms", Cache: cacheStatic, handle: (*Server).getTerms,
		Tool: mcp.Tool{Name: "get_terms", Title: "Get the rental terms", Opaque: true,
			Lead: "For questions after the price: each plan's excess, bond and cover; cancellation fees; payment schedule; minimum driver age per class; licence rules; inclusions (openapi.json's Terms). get_quote gives one hire's."}},
	{Path: "/quotes", Bookings: true, Cache: cacheNone, handle: (*Server).getQuote,
		Params: []Param{pPickUpDepot, pDropOffDepot, pPickUpDate, pDropOffDate,
			{Name: "vehicle_id", Required: true, What: "a vehicleId", From: "/vehicles/availability"},
			{Name: "accessory_ids"}, {Name: "insurance_id"}, pDriverAge},
		Tool: mcp.Tool{Name: "get_quote", Title: "Get a price quote",
			Lead: "The exact price and terms of a hire: arguments as search_vehicles plus vehicle_id and extras from the list tools. totalAmount is the sum of priceBreakdown. Not a booking: give the customer checkoutUrl."}},
	{Path: "/quotes/{quoteId}", Bookings: true, Cache: cacheNone, handle: (*Server).getQuoteCheck,
		Tool: mcp.Tool{Name: "check_quote", Title: "Check a quote", PathHint: "a quoteId from get_quote",
			Lead: "Check a quoteId before checkout. status: valid, changed (originalTotalAmount was quoted), unavailable (reason, suggestions) or expired; quote: the hire priced now, as get_quote's (null when unavailable)."}},
}

// The MCP tools, in the table's order, and the operation of each.
var (
	tools  []mcp.Tool
	toolOp []int
)

// init derives the table's computed fields. It never grows a slice with append: TinyGo
// runs a package's initialisers at compile time (its interp pass) unless one of them
// does something interp cannot, such as append's growth (math/bits.Len), and then the
// whole package's initialisation runs in every isolate at start instead (this table
// copied field by field). Every slice here is made at its final length.
func init() {
	n := 0
	for i := range ops {
		if ops[i].Tool.Name != "" {
			n++
		}
	}
	tools, toolOp = make([]mcp.Tool, 0, n), make([]int, 0, n)
	for i := range ops {
		o := &ops[i]
		if a := strings.IndexByte(o.Path, '{'); a >= 0 {
			b := strings.IndexByte(o.Path, '}')
			o.prefix, o.pathParam, o.suffix = o.Path[:a], o.Path[a+1:b], o.Path[b+1:]
		}
		names := make([]string, len(o.Params))
		for j, p := range o.Params {
			names[j] = p.Name
		}
		o.accepted = strings.Join(names, ", ")
		if o.ParamNote != "" {
			o.accepted += " " + o.ParamNote
		}
		if o.Tool.Name != "" {
			o.Tool.Path, o.Tool.PathParam = o.Path, o.pathParam
			tools = append(tools, o.Tool) // within the capacity made above
			toolOp = append(toolOp, i)
		}
	}
}

// opList is ops as a slice whose length the compiler does not take as a constant: a
// loop over the array itself is unrolled into one copy of its body per operation,
// code V8 compiles before an isolate's first answer.
var opList = ops[:]

// match returns the operation for a path below the base path (-1 for none) and its
// path parameter.
func match(rest string) (op int, pathParam string) {
	if rest == "" {
		rest = "/"
	}
	for i := range opList {
		o := &opList[i]
		if o.pathParam == "" {
			if len(rest) == len(o.Path) && text.Same(rest, o.Path) { // a word at a time
				return i, ""
			}
			continue
		}
		if len(rest) > len(o.prefix)+len(o.suffix) && rest[:len(o.prefix)] == o.prefix && rest[len(rest)-len(o.suffix):] == o.suffix {
			if mid := rest[len(o.prefix) : len(rest)-len(o.suffix)]; strings.IndexByte(mid, '/') < 0 {
				return i, mid
			}
		}
	}
	return -1, ""
}

// run answers operation i of request c with its path parameter, its query already
// in c.q.
func (s *Server) run(c *call, i int, pathParam string) *rental.Error {
	c.op, c.pathParam = &ops[i], pathParam
	return c.op.handle(s, c)
}

// checkParams refuses a query parameter the operation did not read (call it once the
// operation has read all of its parameters).
//
//go:inline
func (c *call) checkParams() *rental.Error { return c.q.unknown(c.op.accepted) }

// hint returns where the values of c's operation's parameter key come from ("a depot
// id from GET {base}/depots"), or "" for a parameter that is not an id. Made only for
// the message of a missing parameter, not per Server.
func (s *Server) hint(c *call, key string) string {
	for _, p := range c.op.Params {
		if p.Name == key && p.What != "" {
			return p.What + " from GET " + s.cfg.BasePath + p.From
		}
	}
	return ""
}
