package api

import (
	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/limit"
	. "github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"

	"math/rand"
	"strings"
	"testing"
)

func TestQueryParse(t *testing.T) {
	tests := []struct {
		raw   string
		want  map[string]string
		param string // the parameter a failure names; "" for success
	}{
		{"", map[string]string{}, ""},
		{"a=1&b=2", map[string]string{"a": "1", "b": "2"}, ""},
		{"a=1&&b=", map[string]string{"a": "1", "b": ""}, ""},
		{"flag", map[string]string{"flag": ""}, ""},
		{"ids=1%2C2%2c3", map[string]string{"ids": "1,2,3"}, ""},
		{"q=a+b", map[string]string{"q": "a b"}, ""},
		{"a=1&a=2", nil, "a"},
		{"a=%zz", nil, "a"},
		{"a=%4", nil, "a"},
		{"%g=1", nil, "query"},
		{strings.Repeat("k=1&", 1) + "a1=&a2=&a3=&a4=&a5=&a6=&a7=&a8=&a9=&a10=&a11=&a12=&a13=&a14=&a15=&a16=", nil, "query"},
	}
	for _, tt := range tests {
		var q query
		err := q.parse(tt.raw)
		if tt.param != "" {
			if err == nil || err.Param != tt.param || err.Kind != KindInvalid {
				t.Errorf("parse(%q) = %v, want an invalid-parameter error naming %q", tt.raw, err, tt.param)
			}
			continue
		}
		if err != nil {
			t.Errorf("parse(%q) = %v, want nil", tt.raw, err)
			continue
		}
		if q.n != len(tt.want) {
			t.Errorf("parse(%q) gave %d parameters, want %d", tt.raw, q.n, len(tt.want))
		}
		for k, v := range tt.want {
			// An empty value counts as absent (given false), for every parameter.
			if got, ok := q.get(k); ok != (v != "") || got != v {
				t.Errorf("parse(%q): %s = %q (given %v), want %q", tt.raw, k, got, ok, v)
			}
		}
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		msg  string // substring of the error message; "" for success
	}{
		{"1", 1, ""},
		{"2147483647", 2147483647, ""},
		{"007", 7, ""},
		{"", 0, "is empty"},
		{"0", 0, "1 or more"},
		{"-3", 0, "positive integer"},
		{"1.5", 0, "positive integer"},
		{"12abc", 0, `got "12abc"`},
		{"2147483648", 0, "out of range"},
		{"99999999999999999999999", 0, "out of range"},
	}
	for _, tt := range tests {
		got, err := parseID("vehicle_id", "query parameter ", tt.in)
		if tt.msg == "" {
			if err != nil || got != tt.want {
				t.Errorf("parseID(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Message, tt.msg) || !strings.Contains(err.Message, "vehicle_id") || err.Param != "vehicle_id" {
			t.Errorf("parseID(%q) = %d, %v; want an error naming vehicle_id containing %q", tt.in, got, err, tt.msg)
		}
	}
}

func TestParseDateParam(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"2026-12-08", ""},
		{"2028-02-29", ""},
		{"2027-02-29", "not a real calendar date"},
		{"2026-02-30", "not a real calendar date"},
		{"2026-13-01", "not a real calendar date"},
		{"2026/12/08", "form YYYY-MM-DD"},
		{"2026-1-8", "form YYYY-MM-DD"},
		{"tomorrow", "form YYYY-MM-DD"},
		{"", "form YYYY-MM-DD"},
	}
	for _, tt := range tests {
		d, err := parseDateParam("pick_up_date", tt.in)
		if tt.msg == "" {
			if err != nil || d.String() != tt.in {
				t.Errorf("parseDateParam(%q) = %v, %v", tt.in, d, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Message, tt.msg) || err.Param != "pick_up_date" {
			t.Errorf("parseDateParam(%q) = %v; want an error naming pick_up_date containing %q", tt.in, err, tt.msg)
		}
	}
}

func TestParsePicks(t *testing.T) {
	tests := []struct {
		in   string
		want []Pick
		msg  string
	}{
		{"", nil, ""},
		{"3", []Pick{{ID: 3, Quantity: 1}}, ""},
		{"3,5,3", []Pick{{ID: 3, Quantity: 2}, {ID: 5, Quantity: 1}}, ""},
		{"1,1,1,2", []Pick{{ID: 1, Quantity: 3}, {ID: 2, Quantity: 1}}, ""},
		{"1,", nil, "ends with a comma"},
		{",1", nil, "empty entry"},
		{"1,,2", nil, "empty entry"},
		{"1,x", nil, `got "x"`},
		{"1,0", nil, "1 or more"},
		{strings.Repeat("1,", 20) + "1", nil, "more than 20"},
	}
	for _, tt := range tests {
		got, err := parsePicks(tt.in, nil)
		if tt.msg == "" {
			if err != nil || len(got) != len(tt.want) {
				t.Errorf("parsePicks(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
				continue
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("parsePicks(%q) = %v, want %v", tt.in, got, tt.want)
				}
			}
			continue
		}
		if err == nil || !strings.Contains(err.Message, tt.msg) || err.Param != "accessory_ids" {
			t.Errorf("parsePicks(%q) = %v; want an error naming accessory_ids containing %q", tt.in, err, tt.msg)
		}
	}
}

func TestCleanTruncatesAndReplaces(t *testing.T) {
	long := strings.Repeat("é", 100)
	if got := text.Clean(long); got != strings.Repeat("é", maxEcho)+"..." {
		t.Errorf("text.Clean(100 x é) = %q", got)
	}
	if got := text.Clean("a\x00b\xffc\nd"); got != "a?b?c?d" {
		t.Errorf("text.Clean(control and invalid bytes) = %q", got)
	}
}

func TestNotModified(t *testing.T) {
	const etag = `"abc"`
	tests := []struct {
		inm  string
		want bool
	}{
		{"", false},
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`"x",W/"abc" `, true},
		{`*`, true},
		{`"abcd"`, false},
		{`abc`, false},
		{`"x", W/`, false},
	}
	for _, tt := range tests {
		req := &abi.Request{Headers: []abi.Header{{Name: "if-none-match", Value: tt.inm}}}
		if got := notModified(req, etag); got != tt.want {
			t.Errorf("notModified(If-None-Match: %s) = %v, want %v", tt.inm, got, tt.want)
		}
	}
}

func TestClientKey(t *testing.T) {
	key := func(v string) limit.Key {
		return clientKey(&abi.Request{Headers: []abi.Header{{Name: "cf-connecting-ip", Value: v}}})
	}
	if got := key(strings.Repeat("a", 1000)); got != limit.Shared {
		t.Errorf("clientKey of a 1000-byte value = %v, want the shared bucket", got)
	}
	if got := clientKey(&abi.Request{}); got != limit.Shared {
		t.Errorf("clientKey without CF-Connecting-IP = %v, want the shared bucket", got)
	}
	if key("2001:db8::1") != key("2001:DB8:0:0:ffff::2") {
		t.Error("two addresses of one IPv6 /64 are two clients")
	}
	if key("203.0.113.7") != key("::ffff:203.0.113.7") || key("203.0.113.7") == key("203.0.113.8") {
		t.Error("IPv4 identity")
	}
}

// TestQueryGetAnyOrder: get starts where it last found a pair, so it must
// find every key whatever the order the client sent them in, find a key asked twice,
// and miss an absent one, from any starting point.
func TestQueryGetAnyOrder(t *testing.T) {
	keys := []string{"pick_up_depot_id", "drop_off_depot_id", "pick_up_date", "drop_off_date", "vehicle_id", "accessory_ids", "insurance_id"}
	r := rand.New(rand.NewSource(29))
	var q query
	for round := 0; round < 200; round++ {
		order := r.Perm(len(keys))
		raw := ""
		for j, k := range order {
			if j > 0 {
				raw += "&"
			}
			raw += keys[k] + "=v" + keys[k]
		}
		if e := q.parse(raw); e != nil {
			t.Fatalf("parse(%q) = %v", raw, e)
		}
		for _, k := range append(append([]string{}, keys...), keys[r.Intn(len(keys))], "min_berths") {
			v, ok := q.get(k)
			if k == "min_berths" {
				if ok || v != "" {
					t.Fatalf("%q: get(%q) = %q, %v; want absent", raw, k, v, ok)
				}
				continue
			}
			if !ok || v != "v"+k {
				t.Fatalf("%q: get(%q) = %q, %v; want %q", raw, k, v, ok, "v"+k)
			}
		}
		if e := q.unknown("x"); e != nil {
			t.Fatalf("%q: every key was read, unknown = %v", raw, e)
		}
	}
}
