package api

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestDaysPatternMatchesServer holds the calendar's days parameter in openapi.json to
// what the server accepts: every value the pattern matches is accepted, and every
// value it refuses is a 400 naming days, but for a length given twice, which the
// pattern cannot express and the server refuses (the parameter's description says so).
func TestDaysPatternMatchesServer(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				Schema struct {
					Type      string
					Pattern   string
					MaxLength int
				}
			}
		}
	}
	if err := json.Unmarshal(openAPISource(), &doc); err != nil {
		t.Fatal(err)
	}
	var re *regexp.Regexp
	maxLen := 0
	for _, p := range doc.Paths["/vehicles/availability/calendar"]["get"].Parameters {
		if p.Name == "days" {
			if p.Schema.Type != "string" || p.Schema.Pattern == "" {
				t.Fatalf("days: type %q pattern %q, want a string with a pattern", p.Schema.Type, p.Schema.Pattern)
			}
			re, maxLen = regexp.MustCompile(p.Schema.Pattern), p.Schema.MaxLength
		}
	}
	if re == nil {
		t.Fatal("no days parameter in openapi.json")
	}
	values := []string{"0", "00", "01", "007", "1", "9", "10", "89", "90", "91", "99", "100", "7,10,14", "7,10,14,21",
		"7,10,14,21,28", "1,2,3,4", "90,89,88,87", "7,7", "10,7,10", "7,", ",7", "7,,10", " 7", "7 ", "+7", "-1", "7.0",
		"1e1", "0x7", "7;10", "٣"}
	for a := 0; a <= 100; a++ {
		values = append(values, itoa(a), itoa(a)+",1")
	}
	s := searchServer(t)
	base := "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-16&days="
	for _, v := range values {
		d := do(s, "GET", base+v)
		refusedDays := d.Status == 400 && strings.Contains(string(d.Body), `"param":"days"`)
		if d.Status != 200 && !refusedDays {
			t.Errorf("days=%s: %d %s (neither an answer nor a 400 naming days)", v, d.Status, d.Body)
			continue
		}
		matches := re.MatchString(v) && len(v) <= maxLen
		if matches && refusedDays && !repeats(v) {
			t.Errorf("days=%s: the pattern matches, the server refuses it: %s", v, d.Body)
		}
		if !matches && !refusedDays {
			t.Errorf("days=%s: the server accepts what the pattern %s refuses", v, re)
		}
		if repeats(v) && matches && !refusedDays {
			t.Errorf("days=%s: a repeated length is accepted", v)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// repeats reports whether the comma list v names a length twice.
func repeats(v string) bool {
	seen := map[string]bool{}
	for _, x := range strings.Split(v, ",") {
		if seen[x] {
			return true
		}
		seen[x] = true
	}
	return false
}
