package api

import (
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/quotetoken"
	. "github.com/campervan/agent-api/core/wire"
)

const workedExample = "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2026-12-08&drop_off_date=2026-12-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"

func getQ(s *Server, target string) *Response {
	var w Response
	s.Handle(&Request{Method: "GET", Target: target}, &w)
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
	cfg, err := ConfigFromVars([]Header{{Name: "QUOTE_SIGNING_KEYS", Value: ""}})
	if err != nil || cfg.QuoteKeys != nil {
		t.Errorf("an empty secret: %v, keys %v", err, cfg.QuoteKeys)
	}
}

// A malformed secret is a configuration error that never shows the key.
func TestQuoteKeysConfigError(t *testing.T) {
	secret := "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"
	for _, v := range []string{"x" + secret, "1:" + secret + "!", "1:" + secret[:8], "300:" + secret} {
		_, err := ConfigFromVars([]Header{{Name: "QUOTE_SIGNING_KEYS", Value: v}})
		if err == nil {
			t.Errorf("%q accepted", v)
			continue
		}
		if strings.Contains(err.Error(), secret[:8]) || !strings.Contains(err.Error(), "QUOTE_SIGNING_KEYS") {
			t.Errorf("%q: %v", v, err)
		}
	}
	cfg, err := ConfigFromVars([]Header{{Name: "QUOTE_SIGNING_KEYS", Value: testQuoteKeys}})
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
