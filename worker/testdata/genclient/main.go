// Command genclient calls every operation of the API through the client that
// oapi-codegen (pinned in this folder's go.mod) generates from the OpenAPI document
// the site serves. TestE2ESite (worker/site_e2e_test.go) copies this folder, writes
// client.gen.go beside this file and runs it against wrangler dev:
//
//	go tool oapi-codegen -generate types,client -package main -o client.gen.go openapi.json
//	go run . http://127.0.0.1:8787/api/agent
//
// The dates are found through the API itself (the calendar's first start date with a
// vehicle free, from two weeks ahead), so the run does not depend on the day. It
// prints one line per operation and exits 1 if any failed.
package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"
)

var failed int

func check(ok bool, what string, detail ...any) {
	if ok {
		fmt.Println("ok   " + what)
		return
	}
	failed++
	fmt.Println("FAIL "+what+":", fmt.Sprint(detail...))
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genclient BASE_URL (e.g. http://127.0.0.1:8787/api/agent)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := NewClientWithResponses(os.Args[1])
	if err != nil {
		fmt.Println("FAIL the client:", err)
		os.Exit(1)
	}
	run(ctx, c)
	if failed > 0 {
		fmt.Printf("FAIL %d operations\n", failed)
		os.Exit(1)
	}
	fmt.Println("PASS every operation")
}

func run(ctx context.Context, c *ClientWithResponses) {
	idx, err := c.GetIndexWithResponse(ctx)
	check(err == nil && idx.JSON200 != nil && len(idx.JSON200.Operations) == 8, "getIndex", err, answer(idx))

	doc, err := c.GetOpenApiDocumentWithResponse(ctx)
	check(err == nil && doc.JSON200 != nil && doc.JSON200.Openapi == "3.1.0", "getOpenApiDocument", err, answer(doc))

	terms, err := c.GetTermsWithResponse(ctx)
	check(err == nil && terms.JSON200 != nil && len(terms.JSON200.Insurance) > 0 && len(terms.JSON200.Cancellation) > 0, "getTerms", err, answer(terms))

	depots, err := c.ListDepotsWithResponse(ctx)
	check(err == nil && depots.JSON200 != nil && len(*depots.JSON200) > 0, "listDepots", err, answer(depots))

	from := openapi_types.Date{Time: time.Now().UTC().AddDate(0, 0, 14)}
	to := openapi_types.Date{Time: from.AddDate(0, 0, 20)}
	cal, err := c.SearchAvailabilityCalendarWithResponse(ctx, &SearchAvailabilityCalendarParams{
		PickUpDepotId: 2, DropOffDepotId: 3, EarliestPickUpDate: from, LatestPickUpDate: to, Days: "10,12"})
	check(err == nil && cal.JSON200 != nil && len(*cal.JSON200) == 42, "searchAvailabilityCalendar (days \"10,12\")", err, answer(cal))
	if cal == nil || cal.JSON200 == nil {
		return
	}
	var pick CalendarEntry
	for _, e := range *cal.JSON200 {
		if e.Free != nil && *e.Free > 0 && e.Cheapest != nil && len(*e.Cheapest) > 0 {
			pick = e
			break
		}
	}
	if !check2(pick.Cheapest != nil, "a start date with a vehicle free (the summary's free and cheapest)") {
		return
	}
	v := (*pick.Cheapest)[0]
	full := Full
	cf, err := c.SearchAvailabilityCalendarWithResponse(ctx, &SearchAvailabilityCalendarParams{PickUpDepotId: 2, DropOffDepotId: 3,
		EarliestPickUpDate: pick.PickUpDate, LatestPickUpDate: pick.PickUpDate, Days: fmt.Sprint(pick.Days), Detail: &full})
	ok := err == nil && cf.JSON200 != nil && len(*cf.JSON200) == 1
	if ok {
		vs := (*cf.JSON200)[0].Vehicles
		ok = vs != nil && len(*vs) == int(*pick.Free) && (*vs)[0].VehicleId == v.VehicleId && (*vs)[0].TotalAmount == v.TotalAmount
	}
	check(ok, "searchAvailabilityCalendar (detail=full): every vehicle free, the summary's cheapest first", err, answer(cf))

	avail, err := c.SearchAvailableVehiclesWithResponse(ctx, &SearchAvailableVehiclesParams{
		PickUpDepotId: 2, DropOffDepotId: 3, PickUpDate: pick.PickUpDate, DropOffDate: pick.DropOffDate})
	found := false
	if err == nil && avail.JSON200 != nil {
		for _, x := range *avail.JSON200 {
			found = found || x.VehicleId == v.VehicleId && x.TotalAmount == v.TotalAmount
		}
	}
	check(found, "searchAvailableVehicles: the calendar's vehicle at the calendar's total", err, answer(avail))
	if found && len(*avail.JSON200) > 1 {
		one := int32(1)
		p1, err := c.SearchAvailableVehiclesWithResponse(ctx, &SearchAvailableVehiclesParams{
			PickUpDepotId: 2, DropOffDepotId: 3, PickUpDate: pick.PickUpDate, DropOffDate: pick.DropOffDate, Limit: &one})
		next := ""
		if err == nil && p1.JSON200 != nil {
			next = nextPage(p1.HTTPResponse)
		}
		p2, err := c.SearchAvailableVehiclesWithResponse(ctx, &SearchAvailableVehiclesParams{
			PickUpDepotId: 2, DropOffDepotId: 3, PickUpDate: pick.PickUpDate, DropOffDate: pick.DropOffDate, Limit: &one, Page: &next})
		check(next != "" && len(*p1.JSON200) == 1 && err == nil && p2.JSON200 != nil && len(*p2.JSON200) == 1 && (*p2.JSON200)[0].VehicleId == (*avail.JSON200)[1].VehicleId,
			"searchAvailableVehicles (limit=1): the Link header's next page holds the list's second vehicle", err, answer(p2))
	}

	acc, err := c.ListVehicleAccessoriesWithResponse(ctx, v.VehicleId, &ListVehicleAccessoriesParams{PickUpDate: &pick.PickUpDate, DropOffDate: &pick.DropOffDate})
	check(err == nil && acc.JSON200 != nil && len(*acc.JSON200) > 0, "listVehicleAccessories", err, answer(acc))
	ins, err := c.ListVehicleInsurancePlansWithResponse(ctx, v.VehicleId, &ListVehicleInsurancePlansParams{PickUpDate: &pick.PickUpDate, DropOffDate: &pick.DropOffDate})
	check(err == nil && ins.JSON200 != nil && len(*ins.JSON200) > 0, "listVehicleInsurancePlans", err, answer(ins))
	if acc == nil || ins == nil || acc.JSON200 == nil || ins.JSON200 == nil || len(*acc.JSON200) == 0 || len(*ins.JSON200) == 0 {
		return
	}
	accID := fmt.Sprint((*acc.JSON200)[0].Id)
	insID := (*ins.JSON200)[0].Id

	q, err := c.GetQuoteWithResponse(ctx, &GetQuoteParams{PickUpDepotId: 2, DropOffDepotId: 3, PickUpDate: pick.PickUpDate,
		DropOffDate: pick.DropOffDate, VehicleId: v.VehicleId, AccessoryIds: &accID, InsuranceId: &insID})
	ok = err == nil && q.JSON200 != nil
	if ok {
		p := q.JSON200.PriceBreakdown
		ok = q.JSON200.TotalAmount == p.RentalFee+p.RouteFee+p.AccessoriesFee+p.InsuranceFee && len(q.JSON200.Accessories) == 1 && q.JSON200.Insurance != nil
	}
	check(ok, "getQuote: totalAmount is the sum of the four fees", err, answer(q))
	if q == nil || q.JSON200 == nil {
		return
	}
	var paid float64
	for _, p := range q.JSON200.Terms.Payment {
		paid += p.Amount
	}
	check(len(q.JSON200.Terms.Cancellation) > 0 && math.Abs(paid-q.JSON200.TotalAmount) < 0.005, "getQuote: terms, the payments add up to totalAmount", nil, answer(q))
	chk, err := c.CheckQuoteWithResponse(ctx, q.JSON200.QuoteId)
	check(err == nil && chk.JSON200 != nil && chk.JSON200.Status == QuoteCheckStatusValid && chk.JSON200.OriginalTotalAmount == q.JSON200.TotalAmount,
		"checkQuote: valid, at the quoted total", err, answer(chk))
}

// nextPage returns the page parameter of the URL in r's Link header (rel="next"), or "".
func nextPage(r *http.Response) string {
	l := r.Header.Get("Link")
	i, j := strings.IndexByte(l, '<'), strings.IndexByte(l, '>')
	if i < 0 || j < i || !strings.HasSuffix(l, `rel="next"`) {
		return ""
	}
	u, err := url.Parse(l[i+1 : j])
	if err != nil {
		return ""
	}
	return u.Query().Get("page")
}

func check2(ok bool, what string) bool {
	check(ok, what)
	return ok
}

// answer says what came back, for a failure's message: the status and the body's start.
func answer(r any) string {
	v := reflect.ValueOf(r)
	if !v.IsValid() || v.IsNil() {
		return "no answer"
	}
	e := v.Elem()
	hr, _ := e.FieldByName("HTTPResponse").Interface().(*http.Response)
	b, _ := e.FieldByName("Body").Interface().([]byte)
	if len(b) > 300 {
		b = b[:300]
	}
	if hr == nil {
		return "no answer"
	}
	return fmt.Sprintf(" (%d %s)", hr.StatusCode, b)
}
