package jsonv

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// same holds a jsonv Result to gjson's for the same value, recursively: type, raw text,
// string value, and the members or elements in order. Two differences are by design:
// String() of a number is its text as written (gjson formats the float), Bool() of a
// number is false (gjson: true unless 0), and ForEach
// of a scalar calls nothing (gjson calls it once with the scalar).
func same(t *testing.T, where string, got Result, want gjson.Result) {
	t.Helper()
	str := got.Type == Number || got.String() == want.String()
	if int(got.Type) != int(want.Type) || got.Raw != want.Raw || got.Str != want.Str || got.Exists() != want.Exists() ||
		got.IsObject() != want.IsObject() || got.IsArray() != want.IsArray() || !str || (got.Type != Number && got.Bool() != want.Bool()) {
		t.Fatalf("%s: jsonv %+v (exists %v), gjson %+v (exists %v)", where, got, got.Exists(), want, want.Exists())
	}
	if got.Type != JSON {
		return
	}
	var gk, gv []Result
	got.ForEach(func(k, v Result) bool { gk, gv = append(gk, k), append(gv, v); return true })
	var wk, wv []gjson.Result
	want.ForEach(func(k, v gjson.Result) bool { wk, wv = append(wk, k), append(wv, v); return true })
	if len(gv) != len(wv) {
		t.Fatalf("%s: %d members or elements, gjson %d", where, len(gv), len(wv))
	}
	for i := range gv {
		if got.IsObject() {
			// A member name's Raw is written again from its value (jsonparser unescapes
			// names): with escapes in it, the text may differ, the string may not.
			if k := wk[i]; strings.IndexByte(k.Raw, '\\') >= 0 {
				if gk[i].Str != k.Str || !ValidBytes([]byte(gk[i].Raw)) || Parse(gk[i].Raw).Str != k.Str {
					t.Fatalf("%s: key %q (raw %s), gjson %q (raw %s)", where, gk[i].Str, gk[i].Raw, k.Str, k.Raw)
				}
			} else {
				same(t, where+"/key", gk[i], k)
			}
		}
		same(t, where+"/"+wk[i].String(), gv[i], wv[i])
	}
	if got.IsArray() && len(got.Array()) != len(want.Array()) {
		t.Fatalf("%s: Array() %d, gjson %d", where, len(got.Array()), len(want.Array()))
	}
}

// TestMatchesGJSON: every snapshot file and the OpenAPI document read the same through
// jsonv as through gjson (which the project used before, and keeps for its tests).
func TestMatchesGJSON(t *testing.T) {
	files, _ := filepath.Glob("../../data/*.json")
	files = append(files, "../api/openapi.json", "../../testdata/http/cases.json")
	if len(files) < 5 {
		t.Fatalf("found %d files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !ValidBytes(b) || !gjson.ValidBytes(b) {
			t.Fatalf("%s: not valid", f)
		}
		// gjson's top-level Raw keeps the whitespace around the document; jsonv's does not.
		same(t, f, ParseBytes(b), gjson.ParseBytes(bytes.TrimSpace(b)))
	}
}

func TestValuesAndPaths(t *testing.T) {
	doc := ParseBytes([]byte(` {"a.b":1,"rates":{"low":12,"hi":"x\"y\u00e9"},"l":[true,false,null,"s",-1.5e3,{}],"e":"","n":null} `))
	cases := []struct {
		path string
		typ  Type
		raw  string
		str  string
	}{
		{"rates.low", Number, "12", ""},
		{"rates.hi", String, `"x\"y\u00e9"`, "x\"y\u00e9"},
		{"rates.none", Null, "", ""},
		{"rates.low.deeper", Null, "", ""},
		{"a.b", Null, "", ""}, // a path: member "a", then "b"
		{"e", String, `""`, ""},
		{"n", Null, "null", ""},
		{"l", JSON, `[true,false,null,"s",-1.5e3,{}]`, ""},
		{"nothing", Null, "", ""},
	}
	for _, c := range cases {
		v := doc.Get(c.path)
		if v.Type != c.typ || v.Raw != c.raw || v.Str != c.str {
			t.Errorf("Get(%q) = %+v, want type %d raw %q str %q", c.path, v, c.typ, c.raw, c.str)
		}
	}
	if v := doc.Member("a.b"); v.Raw != "1" {
		t.Errorf(`Member("a.b") = %+v, want 1`, v)
	}
	if n := len(doc.Get("l").Array()); n != 6 {
		t.Errorf("l has %d elements, want 6", n)
	}
	if !doc.Get("n").Exists() || doc.Get("nothing").Exists() {
		t.Error("null must exist, a missing member must not")
	}
	for _, bad := range []string{``, ` `, `{`, `{"a":}`, `[1,]`, `"\x"`, `01`, `{"a":1}}`, `nul`, `{"a" 1}`, `{1:2}`,
		`[1 2]`, `{"a":1,}`, `"\u12g4"`, "\"a\x01\"", `-`, `1.`, `1e`, `.5`, `+1`, `[}`, `{]`, `"abc`, `truex`, `[1]]`,
		`{"a":1 "b":2}`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)} {
		if ValidBytes([]byte(bad)) {
			t.Errorf("ValidBytes(%q) = true", bad)
		}
	}
	for _, good := range []string{`0`, ` -0.5E+3 `, `"\u00e9\ud83d\ude00\/"`, `{"a":[1,{"b":null}],"c":{}}`, "\t[ true , false ]\n",
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)} {
		if !ValidBytes([]byte(good)) {
			t.Errorf("ValidBytes(%.40q) = false", good)
		}
	}
	// A repeated member: the first is the one read.
	if v := Parse(`{"a":1,"a":2,"b\u0061":3}`); v.Member("a").Raw != "1" || v.Member("ba").Raw != "3" {
		t.Errorf("repeated or escaped member names: a=%q ba=%q", v.Member("a").Raw, v.Member("ba").Raw)
	}
}

// FuzzMatchesGJSON: any valid document reads the same through jsonv and gjson.
func FuzzMatchesGJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `[]`, `"\u00e9\n"`, `{"k\"q":{"x":true}}`, `-0.5e-3`,
		`["\ud800\u0041x","\udc00","\ud83d\ude00","\ud83d"]`, `{"\ud83d\ude00":"\u00e9\t","a\/b":[1,[2,[3]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		if v := ValidBytes(b); v != json.Valid(b) {
			t.Fatalf("ValidBytes(%q) = %v, encoding/json.Valid %v", b, v, !v)
		} else if !v {
			return
		}
		same(t, "doc", ParseBytes(b), gjson.ParseBytes(bytes.TrimSpace(b)))
	})
}
