package api

import (
	"github.com/campervan/agent-api/core/abi"

	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/rental"
)

// TestOpsMatchOpenAPI holds the table of operations equal to openapi.json: the same
// GET paths, and per operation the same query parameters (names and required flags)
// and path parameter.
func TestOpsMatchOpenAPI(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name, In string
				Required bool
			}
		}
	}
	if err := json.Unmarshal(openAPISource(), &doc); err != nil {
		t.Fatal(err)
	}
	var docPaths, opPaths []string
	for p, methods := range doc.Paths {
		for m := range methods {
			docPaths = append(docPaths, strings.ToUpper(m)+" "+p)
		}
	}
	for _, o := range ops {
		opPaths = append(opPaths, "GET "+o.Path)
	}
	sort.Strings(docPaths)
	sort.Strings(opPaths)
	if strings.Join(docPaths, "\n") != strings.Join(opPaths, "\n") {
		t.Fatalf("operations:\n%s\nopenapi.json:\n%s", strings.Join(opPaths, "\n"), strings.Join(docPaths, "\n"))
	}
	for _, o := range ops {
		var query []string
		pathParam := ""
		for _, p := range doc.Paths[o.Path]["get"].Parameters {
			switch p.In {
			case "query":
				query = append(query, p.Name+required(p.Required))
			case "path":
				pathParam = p.Name
				if !p.Required {
					t.Errorf("%s: path parameter %s is not required", o.Path, p.Name)
				}
			default:
				t.Errorf("%s: parameter %s in %s", o.Path, p.Name, p.In)
			}
		}
		var mine []string
		for _, p := range o.Params {
			mine = append(mine, p.Name+required(p.Required))
		}
		if strings.Join(mine, ",") != strings.Join(query, ",") {
			t.Errorf("%s: query parameters %v, openapi.json has %v", o.Path, mine, query)
		}
		if pathParam != o.pathParam {
			t.Errorf("%s: path parameter %q, openapi.json has %q", o.Path, o.pathParam, pathParam)
		}
	}
}

func required(r bool) string {
	if r {
		return " (required)"
	}
	return ""
}

// TestMatch routes every operation's path, with a path parameter where it has one,
// and refuses near misses.
func TestMatch(t *testing.T) {
	for i, o := range ops {
		path := strings.Replace(o.Path, "{"+o.pathParam+"}", "42", 1)
		want := ""
		if o.pathParam != "" {
			want = "42"
		}
		if got, param := match(path); got != i || param != want {
			t.Errorf("match(%q) = %d, %q; want %d, %q", path, got, param, i, want)
		}
	}
	if got, _ := match(""); got < 0 || ops[got].Path != "/" {
		t.Errorf(`match("") = %d, want the index`, got)
	}
	for _, path := range []string{"/depots/", "/vehicles//accessories", "/vehicles/1/2/accessories", "/vehicles/1", "/quote", "/mcp"} {
		if got, _ := match(path); got >= 0 {
			t.Errorf("match(%q) = %s, want none", path, ops[got].Path)
		}
	}
}

// TestVarsAreRead checks that Vars lists exactly the vars ConfigFromVars reads: each
// listed var refuses a bad value, and a var not listed is ignored.
func TestVarsAreRead(t *testing.T) {
	for _, name := range Vars {
		if _, err := ConfigFromVars([]Var{{Name: name, Value: "not a value"}}); err == nil {
			t.Errorf("ConfigFromVars does not read %s (listed in Vars)", name)
		}
	}
	if _, err := ConfigFromVars([]Var{{Name: "NOT_A_VAR", Value: "not a value"}}); err != nil {
		t.Errorf("ConfigFromVars reads a var not in Vars: %v", err)
	}
}

// TestReadsInventory: which requests an isolate holds while its first read of the live
// inventory is under way. Every operation of the table is listed here, so a new one
// cannot be added without deciding.
func TestReadsInventory(t *testing.T) {
	byPath := map[string]bool{
		"/": true, "/openapi.json": true, // they name the inventory version
		"/depots":                               false,
		"/vehicles/availability":                true,
		"/vehicles/availability/calendar":       true,
		"/vehicles/{vehicleId}/accessories":     false,
		"/vehicles/{vehicleId}/insurance-types": false,
		"/terms":                                false,
		"/quotes":                               true,
		"/quotes/{quoteId}":                     true,
	}
	for _, o := range ops {
		want, ok := byPath[o.Path]
		if !ok {
			t.Errorf("operation %s: not in this test's table; decide whether its answer reads the bookings", o.Path)
		} else if o.Bookings != want {
			t.Errorf("operation %s: Bookings %v, want %v", o.Path, o.Bookings, want)
		}
	}
	s := robustServer(t)
	for _, c := range []struct {
		method, target string
		want           bool
	}{
		{"GET", "/api/agent/depots", false},
		{"HEAD", "/api/agent/depots?x=1", false},
		{"GET", "/api/agent/vehicles/availability?pick_up_depot_id=1", true},
		{"HEAD", "/api/agent/vehicles/availability", true},
		{"OPTIONS", "/api/agent/vehicles/availability", false}, // a preflight reads nothing
		{"GET", "/api/agent/vehicles/availability/calendar?days=7", true},
		{"GET", "/api/agent/vehicles/4/accessories", false},
		{"GET", "/api/agent/vehicles/4/insurance-types?pick_up_date=2027-03-01", false},
		{"GET", "/api/agent/terms", false},
		{"GET", "/api/agent/quotes?vehicle_id=1", true},
		{"GET", "/api/agent/quotes/AQEC", true},
		{"GET", "/api/agent", true},
		{"GET", "/api/agent/", true},
		{"GET", "/api/agent/openapi.json", true},
		{"POST", "/api/agent/mcp", true},
		{"GET", "/api/agent/mcp", false},
		{"GET", "/api/agent/nowhere", false},
		{"GET", "/api/agentx/vehicles/availability", false},
		{"GET", "/", false},
		{"GET", "", false},
	} {
		req := abi.Request{Method: c.method, Target: c.target}
		if got := s.ReadsInventory(&req); got != c.want {
			t.Errorf("%s %s: ReadsInventory %v, want %v", c.method, c.target, got, c.want)
		}
	}
	// No side effects: asking counts nothing against the client.
	req := abi.Request{Method: "GET", Target: "/api/agent/vehicles/availability", Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.9"}}}
	for i := 0; i < 500; i++ {
		s.ReadsInventory(&req)
	}
	d := do(s, "GET", "/api/agent/depots", req.Headers...)
	if got, want := d.Header("x-ratelimit-remaining"), "99"; got != want {
		t.Errorf("after 500 questions and one request: x-ratelimit-remaining %q, want %q", got, want)
	}
}

// TestValidatorFreePaths: the paths under which the glue passes no If-None-Match are
// the quotes', and nothing under them answers with a validator or a 304, whatever
// If-None-Match says; every other operation's 200 has one.
func TestValidatorFreePaths(t *testing.T) {
	s := robustServer(t)
	got := s.ValidatorFreePaths()
	if len(got) != 1 || got[0] != "/api/agent/quotes" {
		t.Fatalf("ValidatorFreePaths() = %q, want [/api/agent/quotes]", got)
	}
	for _, target := range []string{
		"/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5",
		"/api/agent/quotes", "/api/agent/quotes?vehicle_id=x", "/api/agent/quotes/AQEC", "/api/agent/quotes/AQEC/x",
	} {
		for _, method := range []string{"GET", "HEAD"} {
			plain := do(s, method, target, abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.9"})
			star := do(s, method, target, abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.10"}, abi.Header{Name: "if-none-match", Value: "*"})
			if plain.Header("etag") != "" || star.Header("etag") != "" || star.Status == 304 || star.Status != plain.Status {
				t.Errorf("%s %s: status %d, ETag %q without If-None-Match; with If-None-Match: * status %d, ETag %q",
					method, target, plain.Status, plain.Header("etag"), star.Status, star.Header("etag"))
			}
		}
	}
	for _, target := range []string{"/api/agent/", "/api/agent/depots", "/api/agent/vehicles/4/accessories",
		"/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19"} {
		if r := do(s, "GET", target, abi.Header{Name: "cf-connecting-ip", Value: "203.0.113.11"}); r.Status != 200 || r.Header("etag") == "" {
			t.Errorf("GET %s: status %d, ETag %q; want a 200 with a validator (a path ValidatorFreePaths covers must not be one)", target, r.Status, r.Header("etag"))
		}
	}
}

// TestValidatorFreeSuffixes holds the literal validatorFreeSuffixes to the operations
// table: the never-cached operations (cacheNone), each cut at its path parameter, less
// any path that would also cover an operation with a validator (an ETag).
func TestValidatorFreeSuffixes(t *testing.T) {
	var want []string
	for i := range ops {
		if ops[i].Cache != cacheNone {
			continue
		}
		p := ops[i].Path
		if j := strings.Index(p, "/{"); j >= 0 {
			p = p[:j]
		}
		ok := p != "" && p != "/" && !slices.Contains(want, p)
		for k := range ops {
			if q := ops[k].Path; ops[k].Cache != cacheNone && (q == p || strings.HasPrefix(q, p+"/")) {
				ok = false
			}
		}
		if ok {
			want = append(want, p)
		}
	}
	if !slices.Equal(validatorFreeSuffixes, want) {
		t.Fatalf("validatorFreeSuffixes = %q; the operations table gives %q: update the literal (core/api/routes.go)", validatorFreeSuffixes, want)
	}
}

// TestConfigStringHelpers holds trimSlashes and hasAnyByte to the strings functions
// they stand for in ConfigFromVars.
func TestConfigStringHelpers(t *testing.T) {
	for _, s := range []string{"", "/", "//", "/api/agent", "/api/agent/", "/api/agent///", "https://x.example/", "a/b", "é/", "/?", "x y", "#", "%2F", "ü?", "https://a.example"} {
		if got, want := trimSlashes(s), strings.TrimRight(s, "/"); got != want {
			t.Errorf("trimSlashes(%q) = %q, want %q", s, got, want)
		}
		for _, set := range []string{"?#% ", "/?#@ "} {
			if got, want := hasAnyByte(s, set), strings.ContainsAny(s, set); got != want {
				t.Errorf("hasAnyByte(%q, %q) = %v, want %v", s, set, got, want)
			}
		}
	}
}

// TestKeyBitsDistinct: within each operation, the query parameters' keyBits differ,
// so that query.add scans for a repeated key only when a request repeats one (or sends
// a key that is not the operation's). A collision would cost a scan, not an answer:
// TestRepeatedKeyWithSharedBit checks that.
func TestKeyBitsDistinct(t *testing.T) {
	for i := range ops {
		seen := map[uint64]string{}
		for _, p := range ops[i].Params {
			b := keyBit(p.Name)
			if o, ok := seen[b]; ok {
				t.Errorf("%s: query parameters %s and %s share keyBit %#x", ops[i].Path, o, p.Name, b)
			}
			seen[b] = p.Name
		}
	}
}

// TestRepeatedKeyWithSharedBit: a repeated key is refused whatever the keys before it,
// those whose bit it shares included.
func TestRepeatedKeyWithSharedBit(t *testing.T) {
	// "days" and "accessory_ids" share a bit ((4 + 3*'d') and (13 + 3*'a') are 48 mod 64).
	if keyBit("days") != keyBit("accessory_ids") {
		t.Fatalf("the test's keys no longer share a bit: pick two that do")
	}
	for _, raw := range []string{"days=1&accessory_ids=2", "accessory_ids=2&days=1&x=3", "a=1&days=1&b=2&days=3", "days=1&accessory_ids=2&days=3", "accessory_ids=1&accessory_ids=2"} {
		var q query
		e := q.parse(raw)
		repeated := strings.Count(raw, "days=") > 1 || strings.Count(raw, "accessory_ids=") > 1
		if repeated != (e != nil) {
			t.Errorf("parse(%q) = %v; want an error: %v", raw, e, repeated)
		}
		if e != nil && e.Code != rental.CodeRepeatedParameter {
			t.Errorf("parse(%q): code %q, want %q", raw, e.Code, rental.CodeRepeatedParameter)
		}
	}
}
