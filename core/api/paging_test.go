package api

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	. "github.com/campervan/agent-api/core/rental"
)

var linkNext = regexp.MustCompile(`^<(/api/agent/[^>]+)>; rel="next"$`)

// walkPages GETs target and every page its Link headers lead to, and returns the
// items of all of them in order.
func walkPages(t *testing.T, s *Server, target string) []json.RawMessage {
	t.Helper()
	var all []json.RawMessage
	for n := 0; target != ""; n++ {
		if n > 300 {
			t.Fatalf("more than 300 pages from %s", target)
		}
		d := do(s, "GET", target)
		var page []json.RawMessage
		if d.Status != 200 || json.Unmarshal(d.Body, &page) != nil {
			t.Fatalf("%s: %d %s", target, d.Status, d.Body)
		}
		all = append(all, page...)
		target = ""
		if l := d.Header("link"); l != "" {
			m := linkNext.FindStringSubmatch(l)
			if m == nil || len(page) == 0 {
				t.Fatalf("%s: Link %q after %d items", d.Header("etag"), l, len(page))
			}
			target = m[1]
		}
	}
	return all
}

// TestAvailabilityPagesAreTheList: for random searches, filters, orders and limits,
// the pages followed through their Link headers hold exactly the unpaged list, in its
// order; a page holds at most limit vehicles, and only the last one has no Link.
func TestAvailabilityPagesAreTheList(t *testing.T) {
	s := searchServer(t)
	rng := rand.New(rand.NewSource(7))
	sorts := []string{"", "&sort=price", "&sort=-price", "&sort=berths"}
	extra := []string{"", "&min_berths=4", "&include=insurance", "&transmission=automatic&max_total=3000", "&driver_age=30"}
	checked := 0
	for i := 0; i < 150; i++ {
		start := d("2026-12-01").AddDays(rng.Intn(150))
		q := fmt.Sprintf("/api/agent/vehicles/availability?pick_up_depot_id=%d&drop_off_depot_id=%d&pick_up_date=%s&drop_off_date=%s%s%s",
			1+rng.Intn(3), 1+rng.Intn(3), start, start.AddDays(2+rng.Intn(20)), sorts[rng.Intn(len(sorts))], extra[rng.Intn(len(extra))])
		whole := do(s, "GET", q+"&limit=100")
		if whole.Status != 200 {
			continue
		}
		var list []json.RawMessage
		json.Unmarshal(whole.Body, &list)
		limit := 1 + rng.Intn(len(list)+2)
		got := walkPages(t, s, fmt.Sprintf("%s&limit=%d", q, limit))
		if fmt.Sprint(got) != fmt.Sprint(list) {
			t.Fatalf("%s limit %d: pages hold %d vehicles, the list %d (or another order)", q, limit, len(got), len(list))
		}
		first := do(s, "GET", fmt.Sprintf("%s&limit=%d", q, limit))
		var page []json.RawMessage
		json.Unmarshal(first.Body, &page)
		if len(page) > limit || (first.Header("link") != "") != (len(list) > limit) {
			t.Fatalf("%s limit %d: first page %d vehicles, link %q, list %d", q, limit, len(page), first.Header("link"), len(list))
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d of 150 random searches answered 200", checked)
	}
}

// TestPagingDefaults: without limit every list of the bundled catalog is whole (no
// Link) and the answer is the one without paging.
func TestPagingDefaults(t *testing.T) {
	s := searchServer(t)
	for _, target := range []string{
		"/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20",
		"/api/agent/vehicles/5/accessories",
		"/api/agent/vehicles/5/insurance-types?pick_up_date=2026-12-08&drop_off_date=2026-12-19",
		"/api/agent/vehicles/availability/calendar?" + doneWhen,
	} {
		d := do(s, "GET", target)
		var items []json.RawMessage
		if d.Status != 200 || json.Unmarshal(d.Body, &items) != nil || d.Header("link") != "" || len(items) == 0 {
			t.Errorf("%s: %d, link %q, %d items", target, d.Status, d.Header("link"), len(items))
		}
	}
	for v := 1; v <= 12; v++ {
		for _, list := range []string{"accessories", "insurance-types"} {
			if d := do(s, "GET", fmt.Sprintf("/api/agent/vehicles/%d/%s", v, list)); d.Status != 200 || d.Header("link") != "" {
				t.Errorf("vehicle %d %s: %d link %q: the default page must hold the bundled lists whole", v, list, d.Status, d.Header("link"))
			}
		}
	}
}

// TestPagingParams: limit and page, good and bad, on every operation that pages.
func TestPagingParams(t *testing.T) {
	s := searchServer(t)
	av := "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"
	acc := "/api/agent/vehicles/5/accessories?pick_up_date=2026-12-08&drop_off_date=2026-12-19"
	ins := "/api/agent/vehicles/5/insurance-types"
	cal := "/api/agent/vehicles/availability/calendar?" + doneWhen
	tok := func(target string) string { // the page token of target's next page
		r := do(s, "GET", target)
		l := linkNext.FindStringSubmatch(r.Header("link"))
		if l == nil {
			t.Fatalf("%s: no next link", target)
		}
		u, _ := url.Parse(l[1])
		return u.Query().Get("page")
	}
	avTok, calTok := tok(av+"&limit=5"), tok(cal+"&limit=5")
	for _, tt := range []struct {
		target      string
		status, n   int // the status, and the items of a 200
		code, param string
	}{
		{av + "&limit=1", 200, 1, "", ""},
		{av + "&limit=100", 200, 12, "", ""},
		{av + "&limit=", 200, 12, "", ""}, // empty: absent
		{av + "&limit=0", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=101", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=-1", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=2.5", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=ten", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=99999999999999999999", 400, 0, CodeInvalidParameter, "limit"},
		{av + "&limit=5&page=" + avTok, 200, 5, "", ""},
		{av + "&page=" + avTok, 200, 7, "", ""}, // another limit, the same list
		{av + "&sort=price&page=" + avTok, 400, 0, CodePageExpired, "page"},
		{av + "&min_berths=2&page=" + avTok, 400, 0, CodePageExpired, "page"},
		{strings.Replace(av, "2027-03-20", "2027-03-21", 1) + "&page=" + avTok, 400, 0, CodePageExpired, "page"},
		{av + "&page=" + calTok, 400, 0, CodePageExpired, "page"},
		{av + "&page=5", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=5.", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=.0123456789abcdef", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=5.0123456789ABCDEF", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=5.0123456789abcdefa", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=5.0123456789abcdeg", 400, 0, CodeInvalidParameter, "page"},
		{av + "&page=5.0123456789abcdef", 400, 0, CodePageExpired, "page"},
		{av + "&page=99" + avTok[1:], 400, 0, CodePageExpired, "page"}, // past the list
		{acc + "&limit=2", 200, 2, "", ""},
		{acc + "&limit=101", 400, 0, CodeInvalidParameter, "limit"},
		{acc + "&page=1.0000000000000000", 400, 0, CodePageExpired, "page"},
		{ins + "?limit=1", 200, 1, "", ""},
		{ins + "?limit=0", 400, 0, CodeInvalidParameter, "limit"},
		{cal + "&limit=252", 200, 17, "", ""},
		{cal + "&limit=5&page=" + calTok, 200, 5, "", ""},
		{cal + "&page=" + calTok, 200, 12, "", ""},
		{cal + "&detail=full&page=" + calTok, 400, 0, CodePageExpired, "page"},
		{cal + "&limit=253", 400, 0, CodeInvalidParameter, "limit"},
		{"/api/agent/depots?limit=5", 400, 0, CodeUnknownParameter, "limit"},
		{"/api/agent/quotes?page=1", 400, 0, CodeMissingParameter, "pick_up_depot_id"},
	} {
		d := do(s, "GET", tt.target)
		if d.Status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.target, d.Status, d.Body, tt.status)
			continue
		}
		if tt.status == 200 {
			var items []json.RawMessage
			if json.Unmarshal(d.Body, &items); len(items) != tt.n {
				t.Errorf("%s: %d items, want %d", tt.target, len(items), tt.n)
			}
			continue
		}
		var e errBody
		json.Unmarshal(d.Body, &e)
		if e.Code != tt.code || e.Param != tt.param || !strings.Contains(e.Error, tt.param) {
			t.Errorf("%s: %s, want %s naming %s", tt.target, d.Body, tt.code, tt.param)
		}
	}
}

// TestPageExpiresWithTheInventory: a next link made before the inventory changed is a
// 400 page_expired once it has; the first page of the same search answers again.
func TestPageExpiresWithTheInventory(t *testing.T) {
	cat := bundledCatalog(t)
	s := testServer(t, testConfig(), cat, nil)
	first := do(s, "GET", invSearch+"&limit=2")
	m := linkNext.FindStringSubmatch(first.Header("link"))
	if first.Status != 200 || m == nil {
		t.Fatalf("first page: %d link %q", first.Status, first.Header("link"))
	}
	if d := do(s, "GET", m[1]); d.Status != 200 {
		t.Fatalf("next page before the change: %d %s", d.Status, d.Body)
	}
	blob, _, err := cat.BuildInventory([]byte(invFeed), Feed{File: "feed.json"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetInventory(blob); err != nil {
		t.Fatal(err)
	}
	d := do(s, "GET", m[1])
	var e errBody
	json.Unmarshal(d.Body, &e)
	if d.Status != 400 || e.Code != CodePageExpired || e.Param != "page" || !strings.Contains(e.Error, "start again without page") {
		t.Errorf("next page after the change: %d %s", d.Status, d.Body)
	}
	if d := do(s, "GET", invSearch+"&limit=2"); d.Status != 200 {
		t.Errorf("first page after the change: %d", d.Status)
	}
}

// TestPageETags: each page has its own ETag, and a page's 304 works; the whole list
// keeps the ETag it has without limit.
func TestPageETags(t *testing.T) {
	s := searchServer(t)
	av := "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"
	seen := map[string]string{}
	for _, target := range []string{av, av + "&limit=5", av + "&limit=6", av + "&limit=4", "/api/agent/vehicles/5/accessories", "/api/agent/vehicles/5/accessories?limit=2", "/api/agent/vehicles/availability/calendar?" + doneWhen + "&limit=3"} {
		d := do(s, "GET", target)
		tag := d.Header("etag")
		if prev, ok := seen[tag]; ok || tag == "" {
			t.Errorf("%s and %s share the ETag %q", target, prev, tag)
		}
		seen[tag] = target
		if nm := do(s, "GET", target, abi.Header{Name: "if-none-match", Value: tag}); nm.Status != 304 {
			t.Errorf("%s If-None-Match its ETag: %d", target, nm.Status)
		}
		if m := linkNext.FindStringSubmatch(d.Header("link")); m != nil {
			next := do(s, "GET", m[1])
			if next.Header("etag") == tag {
				t.Errorf("%s: the next page has the same ETag", target)
			}
		}
	}
	whole, plain := do(s, "GET", av+"&limit=12"), do(s, "GET", av)
	if whole.Header("etag") != plain.Header("etag") {
		t.Error("the whole list with limit has another ETag than without")
	}
}

// TestLinkKeepsTheQuery: the next URL carries every parameter of the request, escaped
// so that it reads back the same, and page in place of the old one.
func TestLinkKeepsTheQuery(t *testing.T) {
	s := searchServer(t)
	target := "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&max_total=5000.5&sort=-price&limit=3"
	var links []string
	for target != "" {
		d := do(s, "GET", target)
		m := linkNext.FindStringSubmatch(d.Header("link"))
		if m == nil {
			break
		}
		links = append(links, m[1])
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if q.Get("max_total") != "5000.5" || q.Get("sort") != "-price" || q.Get("limit") != "3" || len(q["page"]) != 1 || u.Path != "/api/agent/vehicles/availability" {
			t.Fatalf("next link %s lost the query", m[1])
		}
		target = m[1]
	}
	if len(links) != 3 {
		t.Errorf("%d next links for 12 vehicles 3 a page, want 3: %v", len(links), links)
	}
	// a value that needs escaping (class is checked against the catalog's classes)
	if got := string(appendQueryPart(nil, "a b&c=d,é")); got != "a%20b%26c%3Dd,%C3%A9" {
		t.Errorf("appendQueryPart: %s", got)
	}
}

// TestPagingAllocs: a page with a next link allocates nothing once warm.
func TestPagingAllocs(t *testing.T) {
	s := searchServer(t)
	for _, target := range []string{
		"/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&limit=5",
		"/api/agent/vehicles/5/accessories?limit=2",
		"/api/agent/vehicles/availability/calendar?" + doneWhen + "&limit=5",
	} {
		req := &abi.Request{Method: "GET", Target: target}
		var w abi.Response
		s.Handle(req, &w)
		next := linkNext.FindStringSubmatch(headerOf(&w, "link"))
		if w.Status != 200 || next == nil {
			t.Fatalf("%s: %d, no next link", target, w.Status)
		}
		req2 := &abi.Request{Method: "GET", Target: next[1]}
		s.Handle(req2, &w)
		if a := testing.AllocsPerRun(50, func() { s.Handle(req, &w); s.Handle(req2, &w) }); a != 0 {
			t.Errorf("%s: %v allocations per two pages, want 0", target, a)
		}
	}
}

func headerOf(w *abi.Response, name string) string {
	d, err := abi.DecodeResponse(w.Encode())
	if err != nil {
		return ""
	}
	return d.Header(name)
}
