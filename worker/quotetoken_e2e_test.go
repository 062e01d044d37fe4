//go:build !wasip1 && !js

package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/abi"
)

// TestE2EQuoteVerifiedByNode: a quote id issued by the Worker under workerd is
// verified by worker/quotetoken_verify.mjs, a verifier written with Node's crypto
// and docs/quote-token.md only (what a website does at checkout): it finds the
// quote's inputs and total, and refuses the id altered, or checked with another key.
func TestE2EQuoteVerifiedByNode(t *testing.T) {
	needE2E(t)
	d := startDev(t, "wrangler.toml")
	target := "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33"
	before := time.Now().Unix()
	resp := d.do(t, abi.Request{Method: "GET", Target: target})
	if resp.Status != 200 {
		t.Fatalf("GET %s: %d %s", target, resp.Status, resp.Body)
	}
	var q struct {
		QuoteID     string  `json:"quoteId"`
		ExpiresAt   string  `json:"expiresAt"`
		TotalAmount float64 `json:"totalAmount"`
		CheckoutURL string  `json:"checkoutUrl"`
	}
	if err := json.Unmarshal(resp.Body, &q); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(q.CheckoutURL, "&quote_id="+q.QuoteID) {
		t.Errorf("checkoutUrl %s does not carry quote_id=%s", q.CheckoutURL, q.QuoteID)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(q.QuoteID)
	raw[len(raw)/2] ^= 1
	altered := base64.RawURLEncoding.EncodeToString(raw)
	other := "1:" + base64.RawURLEncoding.EncodeToString([]byte("another key of thirty-two bytes!"))

	type result struct {
		OK          bool   `json:"ok"`
		Error       string `json:"error"`
		KeyID       int    `json:"keyId"`
		PickUp      int64  `json:"pickUpDepotId"`
		DropOff     int64  `json:"dropOffDepotId"`
		PickUpDate  string `json:"pickUpDate"`
		DropOffDate string `json:"dropOffDate"`
		Vehicle     int64  `json:"vehicleId"`
		Insurance   int64  `json:"insuranceId"`
		Accessories []struct {
			ID, Quantity int64
		} `json:"accessories"`
		TotalCents int64  `json:"totalCents"`
		IssuedAt   string `json:"issuedAt"`
		ExpiresAt  string `json:"expiresAt"`
	}
	node := func(keys string, ids ...string) []result {
		t.Helper()
		bin := "node"
		if p, _ := filepath.Abs("../node_modules/.bin/node"); fileExists(p) {
			bin = p
		}
		out, err := exec.Command(bin, append([]string{"quotetoken_verify.mjs", keys}, ids...)...).Output()
		if err != nil {
			t.Fatalf("node quotetoken_verify.mjs: %v", err)
		}
		var rs []result
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r result
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			rs = append(rs, r)
		}
		return rs
	}
	rs := node(testQuoteKeys, q.QuoteID, altered)
	got := rs[0]
	if !got.OK {
		t.Fatalf("node refused the Worker's quote id %s: %s", q.QuoteID, got.Error)
	}
	t.Logf("node verified %s (%d characters): %+v", q.QuoteID, len(q.QuoteID), got)
	if got.PickUp != 2 || got.DropOff != 3 || got.PickUpDate != "2027-03-08" || got.DropOffDate != "2027-03-19" ||
		got.Vehicle != 5 || got.Insurance != 33 || len(got.Accessories) != 2 || got.Accessories[0].ID != 1 || got.Accessories[0].Quantity != 2 || got.Accessories[1].ID != 2 || got.Accessories[1].Quantity != 2 {
		t.Errorf("node read other inputs: %+v", got)
	}
	if got.TotalCents != int64(q.TotalAmount*100+0.5) {
		t.Errorf("node read %d cents, the quote says %v", got.TotalCents, q.TotalAmount)
	}
	if got.ExpiresAt != q.ExpiresAt {
		t.Errorf("node read expiresAt %s, the quote says %s", got.ExpiresAt, q.ExpiresAt)
	}
	if issued, err := time.Parse(time.RFC3339, got.IssuedAt); err != nil || issued.Unix() < before-1 || issued.Unix() > time.Now().Unix()+1 {
		t.Errorf("issuedAt %s is not the moment of the request (%v)", got.IssuedAt, err)
	}
	if rs[1].OK || rs[1].Error != "bad signature" {
		t.Errorf("node accepted an altered id: %+v", rs[1])
	}
	if r := node(other, q.QuoteID)[0]; r.OK || r.Error != "bad signature" {
		t.Errorf("node accepted the id under another key: %+v", r)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
