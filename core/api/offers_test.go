package api

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
)

// appendOffersReference is the Offer array as the appenders wrote it before the cursor
// writers (writeOffers): the definition writeOffers must match byte for byte.
func appendOffersReference(s *Server, c *call, b []byte) []byte {
	b = bytebuf.PutByte(b, '[')
	for i := range c.offers {
		o := &c.offers[i]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		vj := s.vehicleJSON(o)
		b = bytebuf.PutBytes(b, vj.head)
		b = jsonw.AppendMoney(b, o.DailyRateCents)
		b = bytebuf.PutBytes(b, vj.mid)
		b = jsonw.AppendInt(b, int64(o.Days))
		b = appendFees(b, o)
		b = bytebuf.PutBytes(b, c.bookingLink)
		b = bytebuf.PutBytes(b, vj.idEnd)
	}
	return bytebuf.PutByte(b, ']')
}

// TestWriteOffersRoom: writeOffers sizes its room from the parts and the Max* bounds, so
// the largest numbers an offer can carry, on every vehicle, with a long booking link,
// fit without a panic; the bytes equal the appenders' and are the JSON of the offers.
func TestWriteOffersRoom(t *testing.T) {
	s := testServer(t, testConfig(), bundledCatalog(t), nil)
	cl := new(call)
	vehicles := bundledCatalog(t).Vehicles()
	extremes := []int64{0, 1, 99, 100, 12345, -1, -12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 40}
	for _, link := range []string{`,"bookingUrl":"https://x/book?&vehicle_id=`, `,"bookingUrl":"https://` + strings.Repeat("w", 3000) + `/book?vehicle_id=`} {
		for k, c := range extremes {
			cl.offers = cl.offers[:0]
			for i := range vehicles {
				v := &vehicles[i]
				route := extremes[(k+i)%len(extremes)]
				total := c
				if i%2 == 0 {
					route, total = 0, c // the copied-digits path of the fees
				}
				cl.offers = append(cl.offers, rental.Offer{Vehicle: v, Index: i, Days: int(extremes[(k+2*i)%len(extremes)] & math.MaxInt32),
					RentalCents: c, DailyRateCents: extremes[(k+i+1)%len(extremes)], RouteCents: route, TotalCents: total})
			}
			cl.bookingLink = append(cl.bookingLink[:0], link...)
			for _, prefix := range []string{"", "already here"} {
				got := s.writeOffers(cl, []byte(prefix))
				want := appendOffersReference(s, cl, []byte(prefix))
				if string(got) != string(want) {
					t.Fatalf("writeOffers (cents %d) =\n%s\nwant\n%s", c, got, want)
				}
			}
			var offers []json.RawMessage
			if err := json.Unmarshal(s.writeOffers(cl, nil), &offers); err != nil || len(offers) != len(vehicles) {
				t.Fatalf("writeOffers (cents %d): %d offers, %v", c, len(offers), err)
			}
		}
	}
}

// quoteReference is the quote after its id as the appenders wrote it before the cursor
// writers (quoteAt): the definition quoteAt must match byte for byte.
func quoteReference(s *Server, c *call, b []byte, id []byte, sr *rental.Search, q *rental.Quote) []byte {
	b = bytebuf.Put(b, `","expiresAt":"`)
	b = appendRFC3339(b, c.tok.ExpiresAt)
	b = bytebuf.Put(b, `","currency":"NZD","priceBreakdown":{"rentalFee":`)
	b = jsonw.AppendMoney(b, q.RentalCents)
	b = bytebuf.Put(b, `,"routeFee":`)
	b = jsonw.AppendMoney(b, q.RouteCents)
	b = bytebuf.Put(b, `,"accessoriesFee":`)
	b = jsonw.AppendMoney(b, q.AccessoriesCents)
	b = bytebuf.Put(b, `,"insuranceFee":`)
	b = jsonw.AppendMoney(b, q.InsuranceCents)
	b = bytebuf.Put(b, `},"accessories":[`)
	for i := range q.Accessories {
		a := &q.Accessories[i]
		if i > 0 {
			b = bytebuf.PutByte(b, ',')
		}
		b = bytebuf.Put(b, `{"id":`)
		b = jsonw.AppendInt(b, a.Accessory.ID)
		b = jsonw.AppendMember(b, `,"name":`, a.Accessory.Name)
		b = bytebuf.Put(b, `,"cost":`)
		b = jsonw.AppendMoney(b, a.CostCents)
		b = bytebuf.Put(b, `,"quantity":`)
		b = jsonw.AppendInt(b, int64(a.Quantity))
		b = bytebuf.PutByte(b, '}')
	}
	b = bytebuf.Put(b, `],"insurance":`)
	if q.Insurance == nil {
		b = bytebuf.Put(b, "null")
	} else {
		b = bytebuf.Put(b, `{"id":`)
		b = jsonw.AppendInt(b, q.Insurance.ID)
		b = jsonw.AppendMember(b, `,"name":`, q.Insurance.Name)
		b = bytebuf.Put(b, `,"cost":`)
		b = jsonw.AppendMoney(b, q.InsuranceCents)
		b = bytebuf.PutByte(b, '}')
	}
	b = bytebuf.Put(b, `,"totalAmount":`)
	b = jsonw.AppendMoney(b, q.TotalCents)
	b = bytebuf.Put(b, `,"gstIncluded":`)
	b = jsonw.AppendMoney(b, rental.GSTIncluded(q.TotalCents))
	b = bytebuf.Put(b, `,"note":`)
	b = bytebuf.PutBytes(b, quoteNoteJSON)
	b = bytebuf.Put(b, `,"vehicleId":`)
	b = jsonw.AppendInt(b, q.Vehicle.ID)
	b = bytebuf.Put(b, `,"days":`)
	b = jsonw.AppendInt(b, int64(q.Days))
	b = appendHireTermsReference(b, &q.Terms)
	b = bytebuf.Put(b, `,"checkoutUrl":"`)
	b = jsonw.AppendInt(s.appendHandoffSearch(c, b, sr), q.Vehicle.ID)
	if q.Insurance != nil {
		b = bytebuf.Put(b, "&insurance_id=")
		b = jsonw.AppendInt(b, q.Insurance.ID)
	}
	if len(q.Accessories) > 0 {
		b = bytebuf.Put(b, "&accessory_ids=")
		n := 0
		for _, a := range q.Accessories {
			for k := 0; k < a.Quantity; k++ {
				if n > 0 {
					b = bytebuf.PutByte(b, ',')
				}
				b = jsonw.AppendInt(b, a.Accessory.ID)
				n++
			}
		}
	}
	b = bytebuf.Put(b, "&quote_id=")
	b = bytebuf.PutBytes(b, id)
	return bytebuf.Put(b, `"}`)
}

// TestQuoteAtRoom: quoteRoom bounds quoteAt for the largest values a quote can carry
// (ids, amounts, dates and times at their extremes, names that escape every byte, 20
// accessory lines, a long web URL and the longest id), in exactly that room; the bytes
// equal the appenders'.
func TestQuoteAtRoom(t *testing.T) {
	for _, webURL := range []string{"https://x", "https://" + strings.Repeat("w", 2000)} {
		cfg := testConfig()
		cfg.WebURL = webURL
		s := testServer(t, cfg, bundledCatalog(t), nil)
		cl := new(call)
		evil := strings.Repeat("<\x01\"\\&\n", 30)
		vehicle := &rental.Vehicle{ID: math.MaxInt64}
		for k, c := range []int64{0, 12345, -1, math.MaxInt64, math.MinInt64} {
			for lines := 0; lines <= 20; lines += 5 {
				q := &rental.Quote{Vehicle: vehicle, Days: math.MaxInt32, RentalCents: c, RouteCents: c, AccessoriesCents: c,
					InsuranceCents: c, TotalCents: c, Terms: extremeTerms(c, lines)}
				for i := 0; i < lines; i++ {
					q.Accessories = append(q.Accessories, rental.QuotedAccessory{Accessory: &rental.Accessory{ID: math.MinInt64, Name: evil},
						Quantity: 20, CostCents: c})
				}
				if k%2 == 0 {
					q.Insurance = &rental.InsurancePlan{ID: math.MinInt64 + 1, Name: evil}
				}
				sr := &rental.Search{PickUpDepot: math.MinInt64, DropOffDepot: math.MaxInt64, PickUp: rental.Date(math.MinInt32), DropOff: rental.Date(math.MaxInt32)}
				cl.tok.ExpiresAt = []int64{math.MaxInt64 / 2, -1, 0, 1 << 40, -(1 << 40)}[k]
				id := []byte(strings.Repeat("Q", 200))
				need := s.quoteRoom(len(id), q)
				buf := make([]byte, 7+need)
				n := s.quoteAt(cl, buf, 7, id, sr, q)
				want := quoteReference(s, cl, nil, id, sr, q)
				if got := buf[7:n]; string(got) != string(want) {
					t.Fatalf("quoteAt (cents %d, %d lines) =\n%s\nwant\n%s", c, lines, got, want)
				}
			}
		}
	}
}

// TestLinkDatesFollowTheQuery: a search's and a quote's links write their dates from
// the text kept for them (dateAt); after other requests with other dates, each answer's
// links carry its own query's dates.
func TestLinkDatesFollowTheQuery(t *testing.T) {
	s := robustServer(t)
	for _, c := range []struct{ path, from, to string }{
		{"/api/agent/vehicles/availability", "2027-03-08", "2027-03-19"},
		{"/api/agent/quotes", "2027-04-02", "2027-04-11"},
		{"/api/agent/vehicles/availability", "2027-05-10", "2027-05-20"},
		{"/api/agent/vehicles/availability/calendar", "2027-06-01", "2027-06-03"},
		{"/api/agent/quotes", "2027-03-08", "2027-03-19"},
		{"/api/agent/vehicles/availability", "2027-04-02", "2027-04-12"},
	} {
		target := c.path + "?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=" + c.from + "&drop_off_date=" + c.to
		want := "pick_up_date=" + c.from + "&drop_off_date=" + c.to
		switch {
		case strings.HasSuffix(c.path, "/quotes"):
			target += "&vehicle_id=1"
		case strings.HasSuffix(c.path, "/calendar"):
			target = c.path + "?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=" + c.from + "&latest_pick_up_date=" + c.to + "&days=7"
			want = ""
		}
		r := do(s, "GET", target, abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.44"})
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", target, r.Status, r.Body)
		}
		if want != "" && (!strings.Contains(string(r.Body), want) || strings.Count(string(r.Body), "_date=") != 2*strings.Count(string(r.Body), want)) {
			t.Errorf("GET %s: a link without %s: %.300s", target, want, r.Body)
		}
	}
}
