package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/quotetoken"
	"github.com/campervan/agent-api/core/rental"
)

const workedExample = "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"

func getQ(s *Server, target string) *abi.Response {
	var w abi.Response
	s.Handle(&abi.Request{Method: "GET", Target: target}, &w)
	return &w
}

// Without QUOTE_SIGNING_KEYS the quote operations answer 503 and say why; the rest works.
func TestQuotesWithoutKey(t *testing.T) {
	s := testServer(t, DefaultConfig(), bundledCatalog(t), nil)
	w := getQ(s, workedExample)
	if w.Status != 503 || !strings.Contains(string(w.Body), "QUOTE_SIGNING_KEYS") {
		t.Errorf("quote without a key: %d %s", w.Status, w.Body)
	}
	if w := getQ(s, "/api/agent/depots"); w.Status != 200 {
		t.Errorf("depots without a quote key: %d", w.Status)
	}
	cfg, err := ConfigFromVars([]Var{{Name: "QUOTE_SIGNING_KEYS", Value: ""}})
	if err != nil || cfg.QuoteKeys != nil {
		t.Errorf("an empty secret: %v, keys %v", err, cfg.QuoteKeys)
	}
}

// A malformed secret is a configuration error that never shows the key.
func TestQuoteKeysConfigError(t *testing.T) {
	secret := "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"
	for _, v := range []string{"x" + secret, "1:" + secret + "!", "1:" + secret[:8], "300:" + secret} {
		_, err := ConfigFromVars([]Var{{Name: "QUOTE_SIGNING_KEYS", Value: v}})
		if err == nil {
			t.Errorf("%q accepted", v)
			continue
		}
		if strings.Contains(err.Error(), secret[:8]) || !strings.Contains(err.Error(), "QUOTE_SIGNING_KEYS") {
			t.Errorf("%q: %v", v, err)
		}
	}
	cfg, err := ConfigFromVars([]Var{{Name: "QUOTE_SIGNING_KEYS", Value: testQuoteKeys}})
	if err != nil || cfg.QuoteKeys == nil {
		t.Fatalf("the test key: %v", err)
	}
}

// The quote's id verifies under the key and says what the body says, in cents; the
// checkout link carries it.
func TestQuoteIDSigned(t *testing.T) {
	cfg := testConfig()
	s := testServer(t, cfg, bundledCatalog(t), nil)
	w := getQ(s, workedExample)
	if w.Status != 200 {
		t.Fatalf("%d %s", w.Status, w.Body)
	}
	body := string(w.Body)
	id := body[len(`{"quoteId":"`):strings.Index(body, `","expiresAt"`)]
	if !strings.HasSuffix(body, `&quote_id=`+id+`"}`) {
		t.Errorf("checkoutUrl does not end with quote_id=%s: %s", id, body)
	}
	var q quotetoken.Quote
	if r := cfg.QuoteKeys.Verify(id, &q); r != quotetoken.OK {
		t.Fatalf("%s: %v", id, r)
	}
	if q.TotalCents != 332300 || q.VehicleID != 5 || q.InsuranceID != 33 || q.NLines != 2 || q.Lines[0] != (quotetoken.Line{ID: 1, Quantity: 2}) ||
		q.IssuedAt != testNow/1000 || q.ExpiresAt != testNow/1000+1800 || q.Inventory != quotetoken.InventoryTag(s.InventoryVersion()) {
		t.Errorf("the id says %+v", q)
	}
}

// checkBody is the answer of GET /quotes/{quoteId}.
type checkBody struct {
	Status              string   `json:"status"`
	Reason              string   `json:"reason"`
	Code                string   `json:"code"`
	OriginalTotalAmount float64  `json:"originalTotalAmount"`
	OriginalExpiresAt   string   `json:"originalExpiresAt"`
	Quote               *quoteJS `json:"quote"`
	Suggestions         []struct {
		URL    string `json:"url"`
		Reason string `json:"reason"`
	} `json:"suggestions"`
}

type quoteJS struct {
	QuoteID     string  `json:"quoteId"`
	ExpiresAt   string  `json:"expiresAt"`
	TotalAmount float64 `json:"totalAmount"`
	CheckoutURL string  `json:"checkoutUrl"`
}

// clockServer is a test server whose clock the test moves.
func clockServer(t *testing.T, cfg Config, now *int64) *Server {
	return NewServer(cfg, bundledCatalog(t), nil, func() int64 { return *now }, func(b []byte) {
		for i := range b {
			b[i] = byte(*now >> 3) // a nonce that changes with the clock
		}
	}, nil)
}

func quoteID(t *testing.T, s *Server, target string) (string, float64) {
	t.Helper()
	d := do(s, "GET", target)
	var q quoteJS
	if d.Status != 200 || json.Unmarshal(d.Body, &q) != nil {
		t.Fatalf("%s: %d %s", target, d.Status, d.Body)
	}
	return q.QuoteID, q.TotalAmount
}

func check(t *testing.T, s *Server, id string) checkBody {
	t.Helper()
	d := do(s, "GET", "/api/agent/quotes/"+id)
	var c checkBody
	if d.Status != 200 || json.Unmarshal(d.Body, &c) != nil {
		t.Fatalf("check %s: %d %s", id, d.Status, d.Body)
	}
	if d.Header("cache-control") != "no-store" {
		t.Errorf("check: cache-control %q", d.Header("cache-control"))
	}
	return c
}

// resign returns id with its fields changed by edit, signed again with keys.
func resign(t *testing.T, keys *quotetoken.Keyring, id string, edit func(*quotetoken.Quote)) string {
	t.Helper()
	var q quotetoken.Quote
	if r := keys.Verify(id, &q); r != quotetoken.OK {
		t.Fatal(r)
	}
	edit(&q)
	return string(keys.Sign(nil, &q))
}

// Every status of a check: valid, changed, expired (a short QUOTE_TTL_SECONDS),
// unavailable (after a new inventory books the vehicle), and what each carries.
func TestQuoteCheckStatuses(t *testing.T) {
	cfg := testConfig()
	cfg.QuoteTTLSeconds = 60
	now := testNow
	s := clockServer(t, cfg, &now)
	id, total := quoteID(t, s, workedExample)

	now += 30_000
	c := check(t, s, id)
	if c.Status != "valid" || c.OriginalTotalAmount != total || c.Quote == nil || c.Quote.TotalAmount != total || c.Quote.QuoteID == id ||
		!strings.HasSuffix(c.Quote.CheckoutURL, "&quote_id="+c.Quote.QuoteID) || c.OriginalExpiresAt != "2026-11-22T00:01:00Z" || c.Quote.ExpiresAt != "2026-11-22T00:01:30Z" {
		t.Errorf("valid: %+v %+v", c, c.Quote)
	}
	// The new id checks too.
	if c2 := check(t, s, c.Quote.QuoteID); c2.Status != "valid" {
		t.Errorf("the re-issued id: %s", c2.Status)
	}

	// A quote whose total is not today's price (the rates changed since it was issued).
	cheaper := resign(t, cfg.QuoteKeys, id, func(q *quotetoken.Quote) { q.TotalCents -= 1000 })
	if c := check(t, s, cheaper); c.Status != "changed" || c.OriginalTotalAmount != total-10 || c.Quote == nil || c.Quote.TotalAmount != total {
		t.Errorf("changed: %+v", c)
	}

	now += 31_000 // past expiresAt
	if c := check(t, s, id); c.Status != "expired" || c.Quote == nil || c.Quote.TotalAmount != total || !strings.Contains(c.Reason, "expired") {
		t.Errorf("expired: %+v", c)
	}
	if c := check(t, s, cheaper); c.Status != "expired" {
		t.Errorf("expired and changed: %s, want expired", c.Status)
	}

	// A new inventory books every unit of vehicle 3 at depot 1 through March 2027.
	now = testNow
	id3, _ := quoteID(t, s, invQuote)
	blob, _, err := bundledCatalog(t).BuildInventory([]byte(invFeed), rental.Feed{File: "feed.json"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetInventory(blob); err != nil {
		t.Fatal(err)
	}
	// A quote priced from now on names the new inventory version, not the one before.
	var qn quotetoken.Quote
	idNew, _ := quoteID(t, s, workedExample)
	if r := cfg.QuoteKeys.Verify(idNew, &qn); r != quotetoken.OK || qn.Inventory != quotetoken.InventoryTag(s.InventoryVersion()) ||
		qn.Inventory == quotetoken.InventoryTag(bundledCatalog(t).Inventory().Version()) {
		t.Errorf("after SetInventory the id names inventory %08x (%v), want %08x", qn.Inventory, r, quotetoken.InventoryTag(s.InventoryVersion()))
	}
	c = check(t, s, id3)
	if c.Status != "unavailable" || c.Quote != nil || c.Code != "booked_out" || !strings.Contains(c.Reason, "2027-03-01 to 2027-03-31") {
		t.Errorf("unavailable: %+v", c)
	}
	for _, g := range c.Suggestions {
		if d := do(s, "GET", "/api/agent"+g.URL); d.Status != 200 {
			t.Errorf("suggestion %s (%s): %d %s", g.URL, g.Reason, d.Status, d.Body)
		}
	}
	t.Logf("unavailable: %s; %d suggestions", c.Reason, len(c.Suggestions))
}

// A forged, altered, foreign or malformed id is a 400 naming quoteId, never a 5xx.
func TestQuoteCheckRefused(t *testing.T) {
	cfg := testConfig()
	s := testServer(t, cfg, bundledCatalog(t), nil)
	id, _ := quoteID(t, s, workedExample)
	other, _ := quotetoken.ParseKeys("2:" + "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8")
	foreign := resign(t, cfg.QuoteKeys, id, func(*quotetoken.Quote) {})
	var q quotetoken.Quote
	cfg.QuoteKeys.Verify(foreign, &q)
	foreign = string(other.Sign(nil, &q))
	flipped := []byte(id)
	if flipped[30] == 'A' {
		flipped[30] = 'B'
	} else {
		flipped[30] = 'A'
	}
	for _, bad := range []string{string(flipped), foreign, "abc", "%41%42", strings.Repeat("A", 300), id + "A", id[:40], "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "..", "quote!x", "AQECA+b="} {
		d := do(s, "GET", "/api/agent/quotes/"+bad)
		var e struct{ Error, Code, Param string }
		json.Unmarshal(d.Body, &e)
		if d.Status != 400 || e.Param != "quoteId" || !strings.Contains(e.Error, "quoteId") {
			t.Errorf("%q: %d %s", bad, d.Status, d.Body)
		}
		if strings.Contains(string(d.Body), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8") {
			t.Errorf("%q: the key in the answer", bad)
		}
	}
	if d := do(s, "GET", "/api/agent/quotes/"+id+"?x=1"); d.Status != 400 || !strings.Contains(string(d.Body), `"param":"x"`) {
		t.Errorf("a query parameter: %d %s", d.Status, d.Body)
	}
	noKeys := testServer(t, DefaultConfig(), bundledCatalog(t), nil)
	if d := do(noKeys, "GET", "/api/agent/quotes/"+id); d.Status != 503 {
		t.Errorf("without a key: %d %s", d.Status, d.Body)
	}
}

// Key rotation through the API: ids of the old key still check after the new one
// signs; after the old key is dropped they are refused.
func TestQuoteCheckKeyRotation(t *testing.T) {
	oldCfg := testConfig()
	id, _ := quoteID(t, testServer(t, oldCfg, bundledCatalog(t), nil), workedExample)
	rotated, err := ConfigFromVars([]Var{{Name: "QUOTE_SIGNING_KEYS", Value: "2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8," + testQuoteKeys}})
	if err != nil {
		t.Fatal(err)
	}
	s := testServer(t, rotated, bundledCatalog(t), nil)
	c := check(t, s, id)
	var q quotetoken.Quote
	if c.Status != "valid" || rotated.QuoteKeys.Verify(c.Quote.QuoteID, &q) != quotetoken.OK || q.KeyID != 2 {
		t.Errorf("after rotation: %s, the new id's key %d", c.Status, q.KeyID)
	}
	retired, _ := ConfigFromVars([]Var{{Name: "QUOTE_SIGNING_KEYS", Value: "2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"}})
	if d := do(testServer(t, retired, bundledCatalog(t), nil), "GET", "/api/agent/quotes/"+id); d.Status != 400 || !strings.Contains(string(d.Body), "key") {
		t.Errorf("the old key retired: %d %s", d.Status, d.Body)
	}
}

// The check allocates nothing per request (natively; make allocs under TinyGo).
func TestQuoteCheckAllocs(t *testing.T) {
	cfg := testConfig()
	cfg.RateLimit = 1 << 40
	s := testServer(t, cfg, bundledCatalog(t), nil)
	id, _ := quoteID(t, s, workedExample)
	req := &abi.Request{Method: "GET", Target: "/api/agent/quotes/" + id}
	var w abi.Response
	s.Handle(req, &w)
	if a := testing.AllocsPerRun(200, func() { s.Handle(req, &w) }); a != 0 || w.Status != 200 {
		t.Errorf("check: %v allocations per request (status %d)", a, w.Status)
	}
	q := &abi.Request{Method: "GET", Target: workedExample}
	if a := testing.AllocsPerRun(200, func() { s.Handle(q, &w) }); a != 0 || w.Status != 200 {
		t.Errorf("quote: %v allocations per request (status %d)", a, w.Status)
	}
}

// Quote ids are at most 200 characters when every id is below 2^21
// (quotetoken.TestWorstCaseLength); the bundled catalog's are, so every quote it prices
// has an id the check accepts.
func TestBundledIDsFitQuoteIDs(t *testing.T) {
	cat := bundledCatalog(t)
	const limit = 1 << 21
	for _, d := range cat.Depots() {
		if d.ID >= limit {
			t.Errorf("depot %d", d.ID)
		}
	}
	for i := range cat.Vehicles() {
		v := &cat.Vehicles()[i]
		if v.ID >= limit {
			t.Errorf("vehicle %d", v.ID)
		}
		for _, a := range cat.Accessories(v) {
			if a.ID >= limit {
				t.Errorf("accessory %d", a.ID)
			}
		}
		for _, p := range cat.InsurancePlans(v) {
			if p.ID >= limit {
				t.Errorf("insurance plan %d", p.ID)
			}
		}
	}
}
