package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMoneyParamsMultipleOfCent: every number a request carries is an amount of money,
// which the server takes with at most two decimals; the OpenAPI document says so
// (multipleOf 0.01), and the server agrees on both sides of the rule.
func TestMoneyParamsMultipleOfCent(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				In     string
				Schema struct {
					Type       string
					MultipleOf float64
				}
			}
		}
	}
	if err := json.Unmarshal(openAPISource(), &doc); err != nil {
		t.Fatal(err)
	}
	s := searchServer(t)
	seen := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				if p.Schema.Type != "number" {
					continue
				}
				seen++
				if p.Schema.MultipleOf != 0.01 {
					t.Errorf("%s %s: parameter %s is a number with multipleOf %v, want 0.01 (money has at most two decimals)", method, path, p.Name, p.Schema.MultipleOf)
				}
				if p.In != "query" || path != "/vehicles/availability" {
					continue // the server's side is checked on the search, where max_total is taken
				}
				base := "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&" + p.Name + "="
				for _, c := range []struct {
					v  string
					ok bool
				}{{"1600", true}, {"1599.5", true}, {"1599.50", true}, {"0.01", true}, {"1.234", false}, {"1599.505", false}, {"0.001", false}} {
					d := do(s, "GET", base+c.v)
					refused := d.Status == 400 && strings.Contains(string(d.Body), `"param":"`+p.Name+`"`)
					if c.ok && d.Status != 200 || !c.ok && !refused {
						t.Errorf("%s=%s: status %d, want it %s: %s", p.Name, c.v, d.Status, map[bool]string{true: "taken", false: "refused naming the parameter"}[c.ok], d.Body)
					}
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("openapi.json has no number parameter: the test checks nothing")
	}
}
