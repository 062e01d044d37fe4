package api

// Robustness tests: every bound on a request is a 400 naming the limit;
// errors echo client input cleaned, cut and JSON-escaped; every response carries
// X-Content-Type-Options: nosniff; regressions of what the fuzzers found.

import (
	"github.com/campervan/agent-api/core/abi"

	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	qBase  = "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5"
	avBase = "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3"
)

// get answers one GET on a fresh server and checks the invariants of every response.
func get(t *testing.T, target string) (abi.DecodedResponse, string) {
	t.Helper()
	return doRobust(t, &abi.Request{Method: "GET", Target: target})
}

func doRobust(t *testing.T, req *abi.Request) (abi.DecodedResponse, string) {
	t.Helper()
	var w abi.Response
	robustServer(t).Handle(req, &w)
	d := checkResponse(t, req, w.Encode())
	var e struct{ Error string }
	if d.Status >= 400 && d.Status != 429 && req.Method != "HEAD" {
		if err := json.Unmarshal(d.Body, &e); err != nil {
			t.Fatal(err)
		}
	}
	return d, e.Error
}

func TestBounds(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('1')
		}
		return b.String()
	}
	for _, c := range []struct {
		name, target string
		status       int
		want         string // in the error message
	}{
		{"url-4097-bytes", "/api/agent/depots?x=" + strings.Repeat("a", 4097-len("/api/agent/depots?x=")), 400, "longer than 4096 bytes"},
		{"url-4096-bytes-is-parsed", "/api/agent/depots?x=" + strings.Repeat("a", 4096-len("/api/agent/depots?x=")), 400, `unknown query parameter "x"`},
		{"17-params", "/api/agent/depots?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17", 400, "too many query parameters (the limit is 16)"},
		{"16-params-is-parsed", "/api/agent/depots?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16", 400, `unknown query parameter "a"`},
		{"21-accessory-ids", qBase + "&accessory_ids=" + many(21), 400, "more than 20 ids (the limit"},
		{"20-accessory-ids-is-parsed", qBase + "&accessory_ids=" + many(20), 400, "at most 2 can be added"},
		{"hire-91-days", avBase + "&pick_up_date=2027-03-01&drop_off_date=2027-05-30", 400, "longer than the maximum of 90 days"},
		{"hire-90-days", avBase + "&pick_up_date=2027-03-01&drop_off_date=2027-05-29", 200, ""},
		{"extras-hire-91-days", "/api/agent/vehicles/5/accessories?pick_up_date=2027-03-01&drop_off_date=2027-05-30", 400, "longer than the maximum of 90 days"},
		{"extras-hire-9999-years", "/api/agent/vehicles/5/insurance-types?pick_up_date=1970-01-01&drop_off_date=9999-12-31", 400, "is in the past"},
		{"extras-far-ahead", "/api/agent/vehicles/5/insurance-types?pick_up_date=9999-12-30&drop_off_date=9999-12-31", 400, "too far ahead"},
		{"731-days-ahead", avBase + "&pick_up_date=2028-11-22&drop_off_date=2028-11-30", 400, "at most 730 days ahead"},
		{"730-days-ahead", avBase + "&pick_up_date=2028-11-21&drop_off_date=2028-11-30", 200, ""},
		{"year-9999", avBase + "&pick_up_date=9999-12-31&drop_off_date=9999-12-31", 400, "at most 730 days ahead"},
		{"id-2147483648", "/api/agent/quotes?pick_up_depot_id=2147483648", 400, "out of range: ids are 1 to 2147483647"},
		{"id-20-digits", "/api/agent/quotes?pick_up_depot_id=99999999999999999999", 400, "out of range"},
		{"id-max-is-parsed", "/api/agent/vehicles/availability?pick_up_depot_id=2147483647&drop_off_depot_id=1&pick_up_date=2026-12-08&drop_off_date=2026-12-19", 400, "pick_up_depot_id 2147483647 is not an active depot"},
		{"id-negative", "/api/agent/quotes?pick_up_depot_id=-1", 400, "must be a positive integer"},
		{"id-zero", "/api/agent/quotes?pick_up_depot_id=0", 400, "(1 or more)"},
		{"id-plus", "/api/agent/quotes?pick_up_depot_id=%2B1", 400, "must be a positive integer"},
		{"path-id-overflow", "/api/agent/vehicles/18446744073709551617/accessories", 400, "out of range"},
		{"accessory-id-overflow", qBase + "&accessory_ids=1,9223372036854775808", 400, "out of range"},
		{"insurance-id-overflow", qBase + "&insurance_id=9223372036854775807", 400, "out of range"},
		{"quantity-over-max", qBase + "&accessory_ids=" + many(5), 400, "asks for 5 units of accessory 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, msg := get(t, c.target)
			if d.Status != c.status || !strings.Contains(msg, c.want) {
				t.Errorf("GET %.80s... = %d %q, want %d containing %q", c.target, d.Status, msg, c.status, c.want)
			}
		})
	}
}

func TestEchoIsCleanedAndCut(t *testing.T) {
	// A 2,000-byte value: the message echoes at most maxEcho runes of it.
	long := strings.Repeat("é", 1000)
	_, msg := get(t, "/api/agent/quotes?pick_up_depot_id="+long)
	echo := between(t, msg, `got "`, `"`)
	if n := utf8.RuneCountInString(echo); n > maxEcho+3 || !strings.HasSuffix(echo, "...") {
		t.Errorf("echo of a 2,000-byte value is %d runes: %q", n, echo)
	}
	if len(msg) > 300 {
		t.Errorf("message of %d bytes for a 2,000-byte value: %q", len(msg), msg)
	}

	// Quotes, backslashes, control bytes, invalid UTF-8 and </script>, as raw bytes
	// (the ABI passes any bytes) and percent-encoded.
	nasty := "a\"b\\c\x00\x01\x1f\x7f\xff\xfe</script><!--&'"
	for _, target := range []string{
		"/api/agent/quotes?pick_up_depot_id=" + nasty,
		"/api/agent/quotes?pick_up_depot_id=a%22b%5Cc%00%01%1F%7F%FF%FE%3C%2Fscript%3E%3C!--%26'",
		"/api/agent/depots?" + nasty + "=1",
		"/api/agent/vehicles/" + strings.ReplaceAll(nasty, "/", "") + "/accessories",
	} {
		var w abi.Response
		req := &abi.Request{Method: "GET", Target: target}
		robustServer(t).Handle(req, &w)
		d := checkResponse(t, req, w.Encode())
		body := string(d.Body)
		if d.Status != 400 || !utf8.ValidString(body) {
			t.Errorf("%q: %d %q", target, d.Status, body)
		}
		for _, bad := range []string{"<", ">", "&", "\x00", "\x7f", "\xff"} {
			if strings.Contains(body, bad) {
				t.Errorf("%q: body contains %q unescaped: %s", target, bad, body)
			}
		}
		var e struct{ Error string }
		if err := json.Unmarshal(d.Body, &e); err != nil {
			t.Fatalf("%q: %v", target, err)
		}
		if !strings.Contains(e.Error, `a"b\c????`) || !strings.Contains(e.Error, "<script>") && !strings.Contains(e.Error, "</script>") && !strings.Contains(e.Error, "...") {
			t.Errorf("%q: echo not cleaned as expected: %q", target, e.Error)
		}
		if strings.ContainsAny(e.Error, "\x00\x01\x1f\x7f") || strings.ContainsRune(e.Error, utf8.RuneError) {
			t.Errorf("%q: control characters or U+FFFD in the message: %q", target, e.Error)
		}
	}

	// A method is echoed cleaned too.
	d, msg := doRobust(t, &abi.Request{Method: "P\x00ST\"" + strings.Repeat("X", 100), Target: "/api/agent/depots"})
	if d.Status != 405 || len(msg) > 200 || strings.ContainsRune(msg, 0) {
		t.Errorf("bad method: %d %q", d.Status, msg)
	}
}

// between returns the text of s after the first from, up to the last to.
func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	j := strings.LastIndex(s, to)
	if i < 0 || j < i+len(from) {
		t.Fatalf("%q has no %s...%s", s, from, to)
	}
	return s[i+len(from) : j]
}

// TestNosniffEverywhere covers each way out of Handle: 2xx, 204, 304, 400, 404, 405,
// 429, 503, HEAD.
func TestNosniffEverywhere(t *testing.T) {
	s := robustServer(t)
	reqs := []*abi.Request{
		{Method: "GET", Target: "/api/agent/depots"},
		{Method: "HEAD", Target: "/api/agent/depots"},
		{Method: "HEAD", Target: "/api/agent/nope"},
		{Method: "OPTIONS", Target: "/api/agent/quotes"},
		{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "if-none-match", Value: "*"}}},
		{Method: "GET", Target: "/api/agent/depots?x=1"},
		{Method: "GET", Target: "/elsewhere"},
		{Method: "DELETE", Target: "/api/agent/depots"},
	}
	for _, r := range reqs {
		var w abi.Response
		s.Handle(r, &w)
		checkResponse(t, r, w.Encode())
	}
	// 429: exhaust one client's limit.
	var w abi.Response
	r := &abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "192.0.2.1"}}}
	for i := int64(0); i <= s.cfg.RateLimit; i++ {
		s.Handle(r, &w)
	}
	if d := checkResponse(t, r, w.Encode()); d.Status != 429 {
		t.Fatalf("status %d after %d requests, want 429", d.Status, s.cfg.RateLimit+1)
	}
	// 503: maintenance and a missing catalog.
	cfg := testConfig()
	cfg.Maintenance = true
	for _, m := range []*Server{
		NewServer(cfg, bundledCatalog(t), nil, func() int64 { return robustNow }, func([]byte) {}, nil),
		NewServer(testConfig(), nil, nil, func() int64 { return robustNow }, func([]byte) {}, nil),
	} {
		r := &abi.Request{Method: "GET", Target: "/api/agent/depots"}
		m.Handle(r, &w)
		d, err := abi.DecodeResponse(w.Encode())
		if err != nil || d.Status != 503 || d.Header("x-content-type-options") != "nosniff" || d.Header("retry-after") == "" || !json.Valid(d.Body) {
			t.Errorf("503: %+v %v", d, err)
		}
		if strings.Contains(string(d.Body), "core:") {
			t.Errorf("503 leaks the internal error: %s", d.Body)
		}
	}
}

// Regressions found by the fuzzers (named after what they fixed).

// FuzzHandle: a CORS preflight (204) had no X-Content-Type-Options.
func TestRegressionPreflightNosniff(t *testing.T) {
	d, _ := doRobust(t, &abi.Request{Method: "OPTIONS", Target: "/api/agent/quotes"})
	if d.Status != 204 || d.Header("x-content-type-options") != "nosniff" {
		t.Fatalf("preflight: %d, nosniff %q", d.Status, d.Header("x-content-type-options"))
	}
}

// FuzzQueryParse ("=%0"): a parameter without a name produced "query parameter  has
// a malformed percent-escape", naming nothing.
func TestRegressionNamelessParameter(t *testing.T) {
	for raw, want := range map[string]string{
		"=%0":     "malformed percent-escape in a parameter without a name",
		"=1":      "a parameter without a name",
		"a=1&=2":  "a parameter without a name",
		"%zz=1":   "malformed percent-escape in a parameter name",
		"a=%4":    "query parameter a has a malformed percent-escape",
		"a=1&a=1": "query parameter a is given more than once",
	} {
		var q query
		e := q.parse(raw)
		if e == nil || !strings.Contains(e.Message, want) || strings.Contains(e.Message, "  ") {
			t.Errorf("parse(%q) = %v, want %q", raw, e, want)
		}
	}
}
