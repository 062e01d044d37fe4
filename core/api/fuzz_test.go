package api

// Fuzz targets of the request path: the query parser, ids, accessory_ids,
// date parameters, the ABI decoder and the whole handler. Each asserts properties, not
// just "no panic": TinyGo cannot recover a panic on wasm, so a panic here is a trapped
// Worker instance there. Seeds live in testdata/fuzz/FuzzXxx/ (where go test reads
// them) besides the f.Add calls; `make fuzz` runs each target for FUZZTIME.
// FuzzParseDate (date_test.go) and FuzzQuote (pricing_test.go) cover ParseDate and
// Catalog.Quote directly.

import (
	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/quotetoken"
	. "github.com/campervan/agent-api/core/rental"

	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// robustNow is the fixed clock of the handler fuzzers: 2026-11-22T00:00:00Z, NZ date
// 2026-11-22 (testToday).
const robustNow = int64(1795305600000)

// robustServer returns a fresh server over the bundled catalog with the default config
// (a fresh rate limiter each time, so the fuzzer never drifts into 429s).
func robustServer(tb testing.TB) *Server {
	tb.Helper()
	return NewServer(testConfig(), bundledCatalog(tb), nil,
		func() int64 { return robustNow },
		func(b []byte) {
			for i := range b {
				b[i] = 0x5a
			}
		}, nil)
}

// leaks are strings that must never reach a client: Go internals, fmt's complaints
// about a bad verb, source paths, panics.
var leaks = []string{"goroutine ", "panic", "runtime error", ".go:", "%!", "(MISSING)", "core.", "gjson", "nil pointer", "<nil>", "/work/", "\x00"}

// checkMessage fails when an error message is not fit for a client. A leak string that
// the client's own input contains (echoed back) is not a leak; input with a '%' may
// decode into anything, so it skips the leak check.
func checkMessage(t *testing.T, where, msg, input string) {
	t.Helper()
	if msg == "" {
		t.Fatalf("%s: empty error message", where)
	}
	for _, l := range leaks {
		if strings.Contains(msg, l) && !strings.Contains(input, l) && !strings.Contains(input, "%") {
			t.Fatalf("%s: message leaks %q: %q", where, l, msg)
		}
	}
	if !utf8.ValidString(msg) {
		t.Fatalf("%s: message is not valid UTF-8: %q", where, msg)
	}
	body := jsonw.AppendJSONString(nil, msg)
	if !json.Valid(body) {
		t.Fatalf("%s: message does not encode as valid JSON: %s", where, body)
	}
	var back string
	if err := json.Unmarshal(body, &back); err != nil || back != msg {
		t.Fatalf("%s: message does not round-trip through JSON: %q -> %q (%v)", where, msg, back, err)
	}
}

// checkEcho fails when msg echoes more client input than clean allows: every quoted
// echo is at most maxEcho runes plus "...".
func checkEcho(t *testing.T, where, msg string, inputLen int) {
	t.Helper()
	// Our own text is under 600 bytes; an echo adds at most maxEcho runes (4 bytes
	// each) plus "..." per echoed value, and a message echoes at most two values.
	if limit := 600 + 2*(4*maxEcho+3); len(msg) > limit {
		t.Fatalf("%s: message of %d bytes (input %d bytes) exceeds %d: %q", where, len(msg), inputLen, limit, msg)
	}
}

func FuzzQueryParse(f *testing.F) {
	for _, s := range []string{"", "a=1&b=2", "a=1&a=2", "%zz=1", "a=%4", "a=%41%42+c", "&&&=&", "k=v=w",
		"a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17", "%00=%ff", "a+b=c+d", "%e2%82%ac=%E2%82%AC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var q query
		e := q.parse(raw)
		if e != nil {
			if e.Kind != KindInvalid || e.Param == "" {
				t.Fatalf("parse(%q): error %+v, want KindInvalid naming a parameter", raw, e)
			}
			checkMessage(t, "parse", e.Message, raw)
			checkEcho(t, "parse", e.Message, len(raw))
		} else {
			if q.n > maxParams {
				t.Fatalf("parse(%q): %d params, limit %d", raw, q.n, maxParams)
			}
			seen := map[string]bool{}
			for i := 0; i < q.n; i++ {
				if seen[q.p[i].key] {
					t.Fatalf("parse(%q): key %q twice", raw, q.p[i].key)
				}
				seen[q.p[i].key] = true
			}
		}
		// Differential: net/url decodes the same way ('+' is a space, %XX a byte).
		// It rejects ';' and keeps repeated keys, which we refuse.
		if strings.Contains(raw, ";") {
			return
		}
		vs, uerr := url.ParseQuery(raw)
		if e == nil {
			if uerr != nil {
				t.Fatalf("parse(%q) accepted what net/url rejects: %v", raw, uerr)
			}
			if len(vs) != q.n {
				t.Fatalf("parse(%q): %d params, net/url %d", raw, q.n, len(vs))
			}
			for i := 0; i < q.n; i++ {
				if got := vs[q.p[i].key]; len(got) != 1 || got[0] != q.p[i].val {
					t.Fatalf("parse(%q): %q=%q, net/url %q", raw, q.p[i].key, q.p[i].val, got)
				}
			}
		}
		// Reuse: a second parse of the same input on the same (dirty) query agrees.
		e2 := q.parse(raw)
		if (e == nil) != (e2 == nil) || (e != nil && e.Message != e2.Message) {
			t.Fatalf("parse(%q) differs on a reused query: %v then %v", raw, e, e2)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1", "0", "007", "2147483647", "2147483648", "99999999999999999999999", "-1", "+1", " 1", "1e3", "0x10", "", "١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		n, e := parseID("vehicle_id", "query parameter ", v)
		ref, rerr := strconv.ParseUint(v, 10, 64)
		allDigit := v != "" && allDigits(v)
		if e != nil {
			if n != 0 || e.Kind != KindInvalid || e.Param != "vehicle_id" || !strings.Contains(e.Message, "vehicle_id") {
				t.Fatalf("parseID(%q) = %d, %+v", v, n, e)
			}
			checkMessage(t, "parseID", e.Message, v)
			checkEcho(t, "parseID", e.Message, len(v))
			if allDigit && rerr == nil && ref >= 1 && ref <= maxID {
				t.Fatalf("parseID(%q) rejected an id in range: %s", v, e.Message)
			}
			return
		}
		if !allDigit || rerr != nil || int64(ref) != n || n < 1 || n > maxID {
			t.Fatalf("parseID(%q) = %d; strconv says %d, %v", v, n, ref, rerr)
		}
	})
}

func FuzzParsePicks(f *testing.F) {
	for _, s := range []string{"", "1", "1,1,2,2", "1,,2", "1,", ",1", "3,5,3", "0", "2147483648",
		"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "a,b", "1 ,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		picks, e := parsePicks(v, nil)
		// Reference: split on commas, every entry an id in range, at most 20 entries.
		var items []string
		if v != "" {
			items = strings.Split(v, ",")
		}
		refOK := len(items) <= maxAccessories
		want := map[int64]int{}
		for _, it := range items {
			n, err := strconv.ParseUint(it, 10, 64)
			if err != nil || !allDigits(it) || n < 1 || n > maxID {
				refOK = false
				break
			}
			want[int64(n)]++
		}
		if e != nil {
			if e.Param != "accessory_ids" || !strings.Contains(e.Message, "accessory_ids") {
				t.Fatalf("parsePicks(%q): error %+v does not name accessory_ids", v, e)
			}
			checkMessage(t, "parsePicks", e.Message, v)
			checkEcho(t, "parsePicks", e.Message, len(v))
			if refOK {
				t.Fatalf("parsePicks(%q) rejected a valid list: %s", v, e.Message)
			}
			return
		}
		if !refOK {
			t.Fatalf("parsePicks(%q) accepted an invalid list: %+v", v, picks)
		}
		total := 0
		for _, p := range picks {
			if p.Quantity < 1 || want[p.ID] != p.Quantity {
				t.Fatalf("parsePicks(%q): %+v, want counts %v", v, picks, want)
			}
			total += p.Quantity
		}
		if len(picks) != len(want) || total != len(items) || total > maxAccessories {
			t.Fatalf("parsePicks(%q): %+v, want counts %v", v, picks, want)
		}
	})
}

func FuzzParseDateParam(f *testing.F) {
	for _, s := range []string{"2026-12-08", "2026-02-30", "2026-2-3", "20261208", "9999-12-31", "1969-12-31", "0000-00-00", "2026-12-08T00:00", "２０２６-12-08"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, e := parseDateParam("pick_up_date", v)
		want, ok := ParseDate(v)
		if ok != (e == nil) || (ok && d != want) {
			t.Fatalf("parseDateParam(%q) = %v, %v; ParseDate = %v, %v", v, d, e, want, ok)
		}
		if e != nil {
			if e.Param != "pick_up_date" || !strings.Contains(e.Message, "pick_up_date") {
				t.Fatalf("parseDateParam(%q): %+v", v, e)
			}
			checkMessage(t, "parseDateParam", e.Message, v)
			checkEcho(t, "parseDateParam", e.Message, len(v))
			return
		}
		if d.String() != v || d < DateOf(1970, 1, 1) || d > DateOf(9999, 12, 31) {
			t.Fatalf("parseDateParam(%q) = %s (%d)", v, d, d)
		}
	})
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add(abi.EncodeRequest(nil, &abi.Request{Method: "GET", Target: "/api/agent/depots",
		Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "203.0.113.7"}, {Name: "if-none-match", Value: `"x"`}}}))
	f.Add(abi.EncodeRequest(nil, &abi.Request{}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{3, 0, 0, 0, 'G', 'E', 'T', 0xff, 0xff, 0xff, 0x7f})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 65, 0, 0, 0})
	f.Fuzz(func(t *testing.T, buf []byte) {
		var r abi.Request
		if err := abi.DecodeRequest(buf, &r); err != nil {
			return
		}
		if len(r.Headers) > 64 {
			t.Fatalf("DecodeRequest accepted %d headers", len(r.Headers))
		}
		// What was decoded re-encodes to exactly the bytes it came from.
		again := abi.EncodeRequest(nil, &r)
		if !bytes.HasPrefix(buf, again) {
			t.Fatalf("DecodeRequest(%x) = %+v, which encodes as %x", buf, r, again)
		}
		// And the decoded request is answered without panicking.
		var w abi.Response
		robustServer(t).Handle(&r, &w)
		checkResponse(t, &r, w.Encode())
	})
}

// statuses a client can get from a correctly configured server.
var clientStatuses = map[int]bool{200: true, 204: true, 304: true, 400: true, 401: true, 404: true, 405: true, 429: true}

// checkResponse asserts what every response of a healthy server satisfies, from its
// ABI bytes: a known 2xx/3xx/4xx status, Content-Type (except 204/304),
// X-Content-Type-Options: nosniff, a JSON body with "error" on 4xx other than 429,
// no leaked internals, nothing sent after a HEAD.
func checkResponse(t *testing.T, req *abi.Request, raw []byte) abi.DecodedResponse {
	t.Helper()
	d, err := abi.DecodeResponse(raw)
	if err != nil {
		t.Fatalf("%q %q: response does not decode: %v", req.Method, req.Target, err)
	}
	where := strconv.Quote(req.Method) + " " + strconv.Quote(req.Target)
	if !clientStatuses[d.Status] {
		t.Fatalf("%s: status %d; body %s", where, d.Status, d.Body)
	}
	if d.Header("x-content-type-options") != "nosniff" {
		t.Fatalf("%s: %d without X-Content-Type-Options: nosniff", where, d.Status)
	}
	if d.Header(":route") == "" {
		t.Fatalf("%s: no :route metadata", where)
	}
	ct := d.Header("content-type")
	if d.Status != 204 && d.Status != 304 && ct == "" {
		t.Fatalf("%s: %d without Content-Type", where, d.Status)
	}
	if (d.Status == 204 || d.Status == 304 || req.Method == "HEAD") && len(d.Body) != 0 {
		t.Fatalf("%s: %d with a body of %d bytes", where, d.Status, len(d.Body))
	}
	if d.Status == 429 {
		if !strings.HasPrefix(ct, "text/plain") || d.Header("retry-after") == "" {
			t.Fatalf("%s: 429 with Content-Type %q, Retry-After %q", where, ct, d.Header("retry-after"))
		}
		return d
	}
	if len(d.Body) > 0 {
		if ct != ctJSON || !json.Valid(d.Body) {
			t.Fatalf("%s: %d, Content-Type %q, body is not valid JSON: %q", where, d.Status, ct, d.Body)
		}
	}
	if d.Status >= 400 && req.Method != "HEAD" {
		var e struct {
			Error *string `json:"error"`
		}
		if err := json.Unmarshal(d.Body, &e); err != nil || e.Error == nil {
			t.Fatalf("%s: %d body is not {\"error\": ...}: %q", where, d.Status, d.Body)
		}
		checkMessage(t, where, *e.Error, req.Method+" "+req.Target)
		checkEcho(t, where, *e.Error, len(req.Target))
		if d.Header("cache-control") != "no-store" {
			t.Fatalf("%s: %d with Cache-Control %q", where, d.Status, d.Header("cache-control"))
		}
	}
	if d.Status == 405 && d.Header("allow") == "" {
		t.Fatalf("%s: 405 without Allow", where)
	}
	return d
}

func FuzzHandle(f *testing.F) {
	for _, s := range []struct{ m, t string }{
		{"GET", "/api/agent/depots"},
		{"HEAD", "/api/agent/"},
		{"OPTIONS", "/api/agent/quotes"},
		{"POST", "/api/agent/depots"},
		{"get", "/api/agent/depots?x=\x00\xff"},
		{"GET", "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19"},
		{"GET", "/api/agent/vehicles/5/accessories?pick_up_date=2026-12-08&drop_off_date=2026-12-19"},
		{"GET", "/api/agent/vehicles/5/insurance-types"},
		{"GET", "/api/agent/vehicles/99999999999/insurance-types"},
		{"GET", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"},
		{"GET", "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2026-12-22&drop_off_date=2026-12-30&vehicle_id=7"},
		{"GET", "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2027-12-19&vehicle_id=5&accessory_ids=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"},
		{"GET", "/api/agent/quotes?%zz"},
		{"GET", "/api/agent/vehicles//accessories"},
		{"GET", "/api/agentx"},
		{"GET", ""},
		{"GET", "?"},
	} {
		f.Add(s.m, s.t, "203.0.113.7", "")
	}
	f.Add("GET", "/api/agent/depots", "", `W/"abc", *`)
	f.Add("GET", "/api/agent/vehicles/1/accessories", "::1", `"0000000000000000"`)
	f.Fuzz(func(t *testing.T, method, target, ip, inm string) {
		req := &abi.Request{Method: method, Target: target, Headers: []abi.Header{
			{Name: "cf-connecting-ip", Value: ip}, {Name: "if-none-match", Value: inm}, {Name: "origin", Value: ""}, {Name: "access-control-request-method", Value: ""}}}
		s := robustServer(t)
		var w abi.Response
		s.Handle(req, &w)
		first := append([]byte(nil), w.Encode()...)
		d := checkResponse(t, req, first)
		// The same request on the same (now dirty) server answers the same, apart from
		// the rate-limit count; a different request in between must not leak into it.
		other := &abi.Request{Method: "GET", Target: "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33", Headers: req.Headers}
		s.Handle(other, &w)
		s.Handle(req, &w)
		d2 := checkResponse(t, req, w.Encode())
		if d.Status == 429 || d2.Status == 429 {
			return
		}
		if d2.Status != d.Status || !bytes.Equal(d2.Body, d.Body) {
			t.Fatalf("%q %q: a reused server answers %d %q, a fresh one %d %q", method, target, d2.Status, d2.Body, d.Status, d.Body)
		}
	})
}

// FuzzQuoteEndpoint drives GET /quotes with structured parameters, so the fuzzer
// spends its time inside the search checks and the pricing rather than the parser:
// any 200 must be a consistent quote (the total is the sum of the fees, exact to the
// cent; days match the dates; quantities within the limits).
func FuzzQuoteEndpoint(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint16(16), uint16(11), uint8(5), "1,1,2,2", uint8(33))
	f.Add(uint8(1), uint8(1), uint16(30), uint16(8), uint8(7), "", uint8(0))
	f.Add(uint8(1), uint8(2), uint16(100), uint16(89), uint8(1), "3", uint8(11))
	f.Add(uint8(4), uint8(4), uint16(700), uint16(200), uint8(12), "1,2,3,4,5,6", uint8(21))
	f.Fuzz(func(t *testing.T, pd, dd uint8, ahead, length uint16, vid uint8, acc string, ins uint8) {
		pick := testToday.AddDays(int(ahead))
		drop := pick.AddDays(int(length))
		q := "pick_up_depot_id=" + strconv.Itoa(int(pd)) + "&drop_off_depot_id=" + strconv.Itoa(int(dd)) +
			"&pick_up_date=" + pick.String() + "&drop_off_date=" + drop.String() +
			"&vehicle_id=" + strconv.Itoa(int(vid)) + "&accessory_ids=" + url.QueryEscape(acc)
		if ins != 0 {
			q += "&insurance_id=" + strconv.Itoa(int(ins))
		}
		req := &abi.Request{Method: "GET", Target: "/api/agent/quotes?" + q}
		var w abi.Response
		robustServer(t).Handle(req, &w)
		d := checkResponse(t, req, w.Encode())
		switch d.Status {
		case 400, 404:
			return
		case 200:
		default:
			t.Fatalf("%s: status %d", req.Target, d.Status)
		}
		var body struct {
			PriceBreakdown struct {
				RentalFee, RouteFee, AccessoriesFee, InsuranceFee json.Number
			}
			Accessories []struct {
				ID       int64
				Cost     json.Number
				Quantity int
			}
			Insurance   *struct{ Cost json.Number }
			TotalAmount json.Number
			VehicleID   int64
			Days        int
			CheckoutURL string
		}
		dec := json.NewDecoder(bytes.NewReader(d.Body))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			t.Fatalf("%s: %v: %s", req.Target, err, d.Body)
		}
		b := body.PriceBreakdown
		sum := cents(t, b.RentalFee) + cents(t, b.RouteFee) + cents(t, b.AccessoriesFee) + cents(t, b.InsuranceFee)
		if sum != cents(t, body.TotalAmount) {
			t.Fatalf("%s: total %s is not the sum of %+v", req.Target, body.TotalAmount, b)
		}
		var accSum int64
		n := 0
		for _, a := range body.Accessories {
			accSum += cents(t, a.Cost)
			n += a.Quantity
		}
		if accSum != cents(t, b.AccessoriesFee) || n > maxAccessories {
			t.Fatalf("%s: accessory lines %+v vs fee %s", req.Target, body.Accessories, b.AccessoriesFee)
		}
		if body.Days != int(length)+1 || body.VehicleID != int64(vid) || cents(t, b.RentalFee) <= 0 {
			t.Fatalf("%s: days %d, vehicle %d, rental %s", req.Target, body.Days, body.VehicleID, b.RentalFee)
		}
		if (body.Insurance == nil) != (ins == 0) || (body.Insurance != nil && cents(t, body.Insurance.Cost) != cents(t, b.InsuranceFee)) {
			t.Fatalf("%s: insurance %+v vs fee %s", req.Target, body.Insurance, b.InsuranceFee)
		}
		if _, err := url.Parse(body.CheckoutURL); err != nil {
			t.Fatalf("%s: checkoutUrl %q: %v", req.Target, body.CheckoutURL, err)
		}
	})
}

// cents converts an NZD amount written by appendMoney ("12", "12.5", "12.34") to
// cents, exactly.
func cents(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || len(frac) > 2 || w < 0 {
		t.Fatalf("amount %q is not a non-negative NZD amount with at most two decimals", s)
	}
	c := w * 100
	if frac != "" {
		f, err := strconv.Atoi(frac)
		if err != nil {
			t.Fatalf("amount %q", s)
		}
		if len(frac) == 1 {
			f *= 10
		}
		c += int64(f)
	}
	return c
}

// FuzzQuoteCheck: GET /quotes/{quoteId} with any id, and with valid ids whose fields
// the fuzzer chooses and signs with the test key (so the re-pricing sees any depot,
// date, vehicle, accessories, insurance, total and age): only 200 or a 400 naming
// quoteId (404 for an id with a slash), a known status, a quote whose total is the
// sum of its fees, never a 5xx.
func FuzzQuoteCheck(f *testing.F) {
	keys := testConfig().QuoteKeys
	inv := quotetoken.InventoryTag(robustServer(f).InventoryVersion())
	f.Add("AQECA7uiAQsFIQIBAgICjKQUbhVrPoDhiNgGiA5aWlpaWlpaWixvVtM2LFJrHWIZCFRsfgY", false, uint8(2), uint8(3), uint16(16), uint16(11), uint8(5), []byte{1, 2, 2, 2}, uint8(33), int64(332300), int64(0), uint16(1800))
	f.Add("", true, uint8(1), uint8(1), uint16(30), uint16(8), uint8(7), []byte{}, uint8(0), int64(1), int64(-7200), uint16(60))
	f.Add("%ff", true, uint8(4), uint8(9), uint16(800), uint16(200), uint8(99), []byte{3, 0, 99, 7}, uint8(21), int64(-5), int64(1<<40), uint16(0))
	f.Fuzz(func(t *testing.T, raw string, signed bool, pd, dd uint8, ahead, length uint16, vid uint8, lines []byte, ins uint8, total, age int64, ttl uint16) {
		id := raw
		if signed {
			q := quotetoken.Quote{PickUpDepot: 1 + int64(pd%16), DropOffDepot: 1 + int64(dd%16), PickUp: int64(testToday) + int64(ahead%1000),
				VehicleID: 1 + int64(vid%20), InsuranceID: int64(ins % 40), TotalCents: total & (1<<52 - 1),
				IssuedAt: robustNow/1000 + age%(1<<30), Inventory: inv}
			q.DropOff = q.PickUp + int64(length%120)
			if q.IssuedAt < 0 {
				q.IssuedAt = 0
			}
			q.ExpiresAt = q.IssuedAt + int64(ttl)
			for i := 0; i+1 < len(lines) && q.NLines < quotetoken.MaxLines; i += 2 {
				q.Lines[q.NLines] = quotetoken.Line{ID: 1 + int64(lines[i]%12), Quantity: 1 + int64(lines[i+1]%8)}
				q.NLines++
			}
			id = string(keys.Sign(nil, &q))
		}
		req := &abi.Request{Method: "GET", Target: "/api/agent/quotes/" + id}
		var w abi.Response
		robustServer(t).Handle(req, &w)
		d := checkResponse(t, req, w.Encode())
		switch {
		case d.Status == 400:
			if !strings.Contains(string(d.Body), `"param":"quoteId"`) && !strings.Contains(id, "?") {
				t.Fatalf("%q: a 400 that does not name quoteId: %s", id, d.Body)
			}
			if signed {
				t.Fatalf("a signed id refused: %s", d.Body)
			}
			return
		case d.Status == 404 && strings.ContainsAny(id, "/?#") || id == "":
			return
		case d.Status != 200:
			t.Fatalf("%q: status %d %s", id, d.Status, d.Body)
		}
		var c struct {
			Status string
			Quote  *struct {
				PriceBreakdown struct{ RentalFee, RouteFee, AccessoriesFee, InsuranceFee json.Number }
				TotalAmount    json.Number
			}
		}
		dec := json.NewDecoder(bytes.NewReader(d.Body))
		dec.UseNumber()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%q: %v: %s", id, err, d.Body)
		}
		switch c.Status {
		case "valid", "changed", "expired":
			if c.Quote == nil {
				t.Fatalf("%s without a quote: %s", c.Status, d.Body)
			}
			b := c.Quote.PriceBreakdown
			if cents(t, b.RentalFee)+cents(t, b.RouteFee)+cents(t, b.AccessoriesFee)+cents(t, b.InsuranceFee) != cents(t, c.Quote.TotalAmount) {
				t.Fatalf("total is not the sum of the fees: %s", d.Body)
			}
		case "unavailable":
			if c.Quote != nil {
				t.Fatalf("unavailable with a quote: %s", d.Body)
			}
		default:
			t.Fatalf("status %q: %s", c.Status, d.Body)
		}
	})
}
