package api

import (
	"github.com/campervan/agent-api/core/mcp"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// toolRoutes are the routes of the MCP tools, in the order of mcpTools.
var toolRoutes = [...]string{routeDepots, routeAvailability, routeAccessories, routeInsurance, routeQuotes}

// mcpTools returns the MCP tools: the operations of the API under other names.
func mcpTools() []mcp.Tool {
	return []mcp.Tool{
		{Name: "list_depots", Title: "List depots", Path: "/depots", Wrap: "depots",
			Lead: "Step 1: list every depot (id, name, pick-up and drop-off times, opening hours and closed public holidays). A depot's id is pick_up_depot_id / drop_off_depot_id of search_vehicles and get_quote. Takes no arguments."},
		{Name: "search_vehicles", Title: "Search available vehicles", Path: "/vehicles/availability", Wrap: "vehicles",
			Lead: "Step 2: search the vehicles available from a pick-up depot on pick_up_date to a drop-off depot on drop_off_date (depot ids from list_depots), with the exact rental fee for the period. A result's vehicleId is the vehicleId of list_accessories and list_insurance_plans and the vehicle_id of get_quote; an empty list means nothing is available."},
		{Name: "list_accessories", Title: "List a vehicle's accessories", Path: "/vehicles/{vehicleId}/accessories", Wrap: "accessories",
			PathParam: "vehicleId", PathHint: "a vehicleId from search_vehicles",
			Lead: "Step 3 (optional): list the accessories offered with a vehicle (vehicleId from search_vehicles); with pick_up_date and drop_off_date each carries cost, its price for the period. Give the chosen ids to get_quote's accessory_ids, an id once per unit."},
		{Name: "list_insurance_plans", Title: "List a vehicle's insurance plans", Path: "/vehicles/{vehicleId}/insurance-types", Wrap: "insurancePlans",
			PathParam: "vehicleId", PathHint: "a vehicleId from search_vehicles",
			Lead: "Step 3 (optional): list the insurance (excess reduction) plans of a vehicle (vehicleId from search_vehicles); with pick_up_date and drop_off_date each carries cost for the period. Give the chosen plan's id to get_quote's insurance_id."},
		{Name: "get_quote", Title: "Get a price quote", Path: "/quotes",
			Lead: "Step 4: price a hire exactly: the depots and dates of search_vehicles, vehicle_id from search_vehicles, optional accessory_ids from list_accessories and insurance_id from list_insurance_plans. totalAmount (NZD) is the sum of the four fees of priceBreakdown. A quote is not a booking: give the customer checkoutUrl."},
	}
}

// mcpOps is the Server as the MCP endpoint sees it (mcp.Operations).
type mcpOps struct{ s *Server }

func (o mcpOps) OpenAPI() []byte {
	o.s.docs()
	return o.s.openapi.body
}

func (o mcpOps) Run(tool int, pathParam string, query []byte, out *wire.Response, nowMs int64) (string, bool) {
	s := o.s
	e := s.q.parse(wire.BytesString(query))
	if e == nil {
		s.mcpReq = wire.Request{Method: "GET"}
		switch route := toolRoutes[tool]; route {
		case routeDepots:
			e = s.getDepots(&s.mcpReq, out)
		case routeAvailability:
			e = s.getAvailability(out, nowMs)
		case routeAccessories, routeInsurance:
			e = s.getExtras(&s.mcpReq, out, route, pathParam)
		case routeQuotes:
			e = s.getQuote(out, nowMs)
		default:
			e = &rental.Error{Kind: rental.KindInternal, Message: "no operation for tool"}
		}
	}
	if e != nil {
		return e.Message, false
	}
	return "", true
}
