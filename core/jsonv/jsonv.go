// Package jsonv is a read-only view of a JSON document: the few calls of tidwall/gjson
// this project used (ParseBytes, ValidBytes, Result with Type, Raw and Str, Get of one
// key, ForEach, Array), on top of buger/jsonparser and encoding/json.Valid.
//
// Why not gjson itself: under TinyGo gjson brings tidwall/pretty, and through it
// encoding/json's reflection, into the Worker; its modifier table keeps them alive even
// though nothing calls them. A probe module (one Get of a string, an int and an object
// walk) is 318 KB with gjson and 128 KB with jsonparser plus encoding/json.Valid, which
// needs only the scanner (measured with TinyGo 0.41, -opt z; issue 16: the Worker must
// stay under 250 KB gzipped). jsonparser does not validate a whole document, so
// ValidBytes is encoding/json's.
//
// Who uses it: the snapshot loader (once per instance), the inventory feed parser
// (build/publish, natively) and the MCP endpoint (per MCP request, which may allocate:
// it is not on the zero-allocation path of the REST operations).
package jsonv

import (
	"encoding/json"
	"strconv"
	"unsafe"

	"github.com/buger/jsonparser"
	"github.com/campervan/agent-api/core/wire"
)

// Type is the kind of a JSON value, as gjson names them.
type Type int

const (
	Null Type = iota // also a value that does not exist (then Raw is "")
	False
	Number
	String
	True
	JSON // an object or an array
)

// Result is one JSON value.
type Result struct {
	Type Type
	Raw  string // the value's JSON text, as written ("" when it does not exist)
	Str  string // a string's unescaped value
}

// ValidBytes reports whether b is one valid JSON value (RFC 8259).
func ValidBytes(b []byte) bool { return json.Valid(b) }

// ParseBytes returns the value b holds; b should be valid (ValidBytes). The result
// keeps a copy of b, so b may be reused.
func ParseBytes(b []byte) Result {
	return Parse(string(b))
}

// Parse returns the value s holds (s should be valid JSON).
func Parse(s string) Result {
	i, j := 0, len(s)
	for i < j && space(s[i]) {
		i++
	}
	for j > i && space(s[j-1]) {
		j--
	}
	s = s[i:j]
	if s == "" {
		return Result{}
	}
	switch s[0] {
	case '{', '[':
		return Result{Type: JSON, Raw: s}
	case '"':
		str, _ := jsonparser.ParseString(bytesOf(s[1 : len(s)-1]))
		return Result{Type: String, Raw: s, Str: str}
	case 't':
		return Result{Type: True, Raw: s}
	case 'f':
		return Result{Type: False, Raw: s}
	case 'n':
		return Result{Type: Null, Raw: s}
	}
	return Result{Type: Number, Raw: s}
}

func space(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// bytesOf views s as bytes without a copy; jsonparser only reads its input.
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// result turns what jsonparser found in data into a Result; end is the offset in data
// just past the value (past a string's closing quote).
func result(data, value []byte, t jsonparser.ValueType, end int) Result {
	switch t {
	case jsonparser.String:
		// jsonparser gives a string without its quotes: Raw takes them back from data.
		raw := wire.BytesString(data[end-len(value)-2 : end])
		str, _ := jsonparser.ParseString(value)
		return Result{Type: String, Raw: raw, Str: str}
	case jsonparser.Number:
		return Result{Type: Number, Raw: wire.BytesString(value)}
	case jsonparser.Object, jsonparser.Array:
		return Result{Type: JSON, Raw: wire.BytesString(value)}
	case jsonparser.Boolean:
		if len(value) > 0 && value[0] == 't' {
			return Result{Type: True, Raw: "true"}
		}
		return Result{Type: False, Raw: "false"}
	case jsonparser.Null:
		return Result{Type: Null, Raw: "null"}
	}
	return Result{}
}

// Exists reports whether the value is present (JSON null is present).
func (r Result) Exists() bool { return r.Type != Null || r.Raw != "" }

// IsObject reports whether the value is a JSON object.
func (r Result) IsObject() bool { return r.Type == JSON && r.Raw[0] == '{' }

// IsArray reports whether the value is a JSON array.
func (r Result) IsArray() bool { return r.Type == JSON && r.Raw[0] == '[' }

// Get returns the value at path: member names separated by dots ("rates.low"), the
// only piece of gjson's path syntax the loader uses. A name cannot hold a dot (Member
// takes any name). What does not exist gives a Result that does not exist.
func (r Result) Get(path string) Result {
	for {
		i := 0
		for i < len(path) && path[i] != '.' {
			i++
		}
		r = r.Member(path[:i])
		if i == len(path) || !r.Exists() {
			return r
		}
		path = path[i+1:]
	}
}

// Member returns the member name of an object (the first, if repeated); a value that
// is not an object, or has no such member, gives a Result that does not exist. It is
// one jsonparser.Get: one scan of the object, nothing allocated for the members
// skipped (the loader asks for every field by name).
func (r Result) Member(name string) Result {
	if !r.IsObject() {
		return Result{}
	}
	if name != "" && name[0] == '[' {
		// jsonparser reads "[n]" as an array index: look for such a name member by member.
		var out Result
		r.ForEach(func(k, v Result) bool {
			if k.Str == name {
				out = v
				return false
			}
			return true
		})
		return out
	}
	data := bytesOf(r.Raw)
	value, t, end, err := jsonparser.Get(data, name)
	if err != nil {
		return Result{}
	}
	return result(data, value, t, end)
}

// ForEach calls f for each member of an object (k is the member's name, a String) or
// each element of an array (k does not exist), in order, until f returns false.
func (r Result) ForEach(f func(k, v Result) bool) {
	if r.Type != JSON {
		return
	}
	data := bytesOf(r.Raw)
	if r.Raw[0] == '[' {
		stop := false
		jsonparser.ArrayEach(data, func(value []byte, t jsonparser.ValueType, off int, err error) {
			if stop || err != nil {
				return
			}
			// ArrayEach's off is the value's end minus its length (for a string, one
			// past its first character): off+len(value) is the end for every type.
			stop = !f(Result{}, result(data, value, t, off+len(value)))
		})
		return
	}
	jsonparser.ObjectEach(data, func(key, value []byte, t jsonparser.ValueType, end int) error {
		var k Result
		if within(data, key) {
			// An unescaped name is a slice of data: Raw and Str are views of it.
			start := int(uintptr(unsafe.Pointer(unsafe.SliceData(key))) - uintptr(unsafe.Pointer(unsafe.SliceData(data))))
			k = Result{Type: String, Raw: wire.BytesString(data[start-1 : start+len(key)+1]), Str: wire.BytesString(key)}
		} else {
			// jsonparser unescaped the name into a buffer of its own: Raw is it written
			// again as JSON (the same string; its escapes may be spelled differently).
			name := string(key)
			k = Result{Type: String, Raw: string(wire.AppendJSONString(nil, name)), Str: name}
		}
		if !f(k, result(data, value, t, end)) {
			return errStop
		}
		return nil
	})
}

// within reports whether b is a non-empty slice of data's memory.
func within(data, b []byte) bool {
	if len(b) == 0 || len(data) == 0 {
		return false
	}
	p, d := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return p > d && p+uintptr(len(b)) < d+uintptr(len(data))
}

var errStop = stopError{}

type stopError struct{}

func (stopError) Error() string { return "stop" }

// Array returns the elements of an array; a value that is not an array gives itself
// alone, and a value that does not exist (or null) none.
func (r Result) Array() []Result {
	if !r.IsArray() {
		if !r.Exists() || r.Type == Null {
			return nil
		}
		return []Result{r}
	}
	var out []Result
	r.ForEach(func(_, v Result) bool {
		out = append(out, v)
		return true
	})
	return out
}

// String returns the value as text: a string's value, "true" or "false", a number or
// an object as written, "" for null or a value that does not exist.
func (r Result) String() string {
	switch r.Type {
	case String:
		return r.Str
	case True:
		return "true"
	case False:
		return "false"
	case Null:
		return ""
	}
	return r.Raw
}

// Bool reports whether the value is true, or a string strconv.ParseBool reads as true.
func (r Result) Bool() bool {
	if r.Type == String {
		b, _ := strconv.ParseBool(r.Str)
		return b
	}
	return r.Type == True
}
