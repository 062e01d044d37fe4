// Package jsonv is a read-only view of a JSON document: the few calls of tidwall/gjson
// this project used (ParseBytes, ValidBytes, Result with Type, Raw and Str, Get of one
// key, ForEach, Array), written here over the document's text.
//
// Why hand-written: under TinyGo gjson brings tidwall/pretty, and through it
// encoding/json's reflection, into the Worker (its modifier table keeps them alive even
// though nothing calls them), and buger/jsonparser plus encoding/json.Valid link
// encoding/json's scanner, reflectlite and parts of strconv and unicode. Every byte of
// the module is copied and validated in each isolate that loads it. What the project
// needs is small: validate (RFC 8259, as encoding/json.Valid), find a member, walk
// members and elements, unescape a string. TestMatchesGJSON and FuzzMatchesGJSON hold
// every result to gjson's, and ValidBytes to encoding/json.Valid.
//
// Who uses it: the snapshot loader and the inventory feed parser (at build time and in
// build/publish, natively) and, in the Worker, the MCP endpoint (per MCP request, which
// may allocate: it is not on the zero-allocation path of the REST operations).
package jsonv

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/campervan/agent-api/core/text"
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

// maxDepth is how deeply arrays and objects may nest in a valid document: the limit of
// encoding/json, which ValidBytes matches.
const maxDepth = 10000

// ValidBytes reports whether b is one valid JSON value (RFC 8259), with whitespace
// around it allowed: what encoding/json.Valid reports (it does not check that strings
// are UTF-8 either). It walks the document once, without recursion (nesting is kept as
// one bit per level: a document cannot exhaust the stack) and without allocating.
func ValidBytes(b []byte) bool {
	s := text.BytesString(b)
	var open nesting
	i := skipSpace(s, 0)
	value := true // a value is expected at i (else: what follows a value)
	for i >= 0 {
		if value {
			i, value = startValue(s, i, &open)
			continue
		}
		i = skipSpace(s, i)
		if open.depth == 0 {
			return i == len(s)
		}
		i, value = afterValue(s, i, &open)
	}
	return false
}

// startValue reads the start of the value at i: a whole string, number or literal,
// or an opening bracket and what follows it up to the next value (the first member's
// name of an object), or an empty array or object whole. It returns the offset after
// what it read (-1 when that is not valid JSON) and whether a value is expected there.
// Inlined: ValidBytes runs it for each value.
//
//go:inline
func startValue(s string, i int, open *nesting) (int, bool) {
	if i >= len(s) {
		return -1, false
	}
	c := s[i]
	if c != '{' && c != '[' {
		return scanScalar(s, i), false
	}
	if !open.push(c == '{') {
		return -1, false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && (c == '{' && s[i] == '}' || c == '[' && s[i] == ']') {
		open.depth--
		return i + 1, false
	}
	if c == '{' {
		return memberName(s, i), true
	}
	return i, true
}

// afterValue reads what follows a value inside an array or object, at i: a comma (and
// in an object the next member's name) or the closing bracket. It returns the offset
// after it (-1 when it is not valid JSON) and whether a value is expected there.
// Inlined: ValidBytes runs it for each value in an array or object.
//
//go:inline
func afterValue(s string, i int, open *nesting) (int, bool) {
	if i >= len(s) {
		return -1, false
	}
	object := open.inObject()
	switch s[i] {
	case ',':
		i = skipSpace(s, i+1)
		if object {
			return memberName(s, i), true
		}
		return i, true
	case '}', ']':
		if (s[i] == '}') != object {
			return -1, false
		}
		open.depth--
		return i + 1, false
	}
	return -1, false
}

// nesting is the arrays and objects open at a point of a document, one bit a level
// (set for an object), up to maxDepth levels.
type nesting struct {
	objects [maxDepth / 8]byte // bit d: the container at depth d is an object
	depth   int
}

// push opens an object or an array; it reports false when maxDepth are open already.
func (n *nesting) push(object bool) bool {
	d := n.depth
	if d == maxDepth {
		return false
	}
	if object {
		n.objects[d>>3] |= 1 << (d & 7)
	} else {
		n.objects[d>>3] &^= 1 << (d & 7)
	}
	n.depth++
	return true
}

// inObject reports whether the innermost open container (there is one) is an object.
func (n *nesting) inObject() bool {
	d := n.depth - 1
	return n.objects[d>>3]&(1<<(d&7)) != 0
}

// scanScalar returns the offset past the string, number, true, false or null at i, or
// -1.
func scanScalar(s string, i int) int {
	switch s[i] {
	case '"':
		return scanString(s, i)
	case 't':
		return literal(s, i, "true")
	case 'f':
		return literal(s, i, "false")
	case 'n':
		return literal(s, i, "null")
	}
	return scanNumber(s, i)
}

// memberName scans a member's name and its colon at i; it returns the offset of the
// value (past the whitespace), or -1.
func memberName(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	if i = skipSpace(s, scanString(s, i)); i < 0 || i >= len(s) || s[i] != ':' {
		return -1
	}
	return skipSpace(s, i+1)
}

func space(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the offset of the first byte at or after i that is not JSON
// whitespace (i itself when i < 0).
func skipSpace(s string, i int) int {
	for i >= 0 && i < len(s) && space(s[i]) {
		i++
	}
	return i
}

// scanString returns the offset past the string that starts (with its quote) at i, or
// -1 when it is not a valid JSON string: no byte below 0x20, and only the escapes
// \" \\ \/ \b \f \n \r \t and \u with four hex digits.
func scanString(s string, i int) int {
	for i++; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(s) {
				return -1
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			i++
		}
	}
	return -1
}

// hex4 reads the four hex digits at i.
func hex4(s string, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		d := text.Unhex(s[k])
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// scanNumber returns the offset past the number at i, or -1: -?(0|[1-9][0-9]*)
// (.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(s string, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// literal returns the offset past word at i, or -1.
func literal(s string, i int, word string) int {
	if strings.HasPrefix(s[i:], word) {
		return i + len(word)
	}
	return -1
}

// skipValue returns the offset past the value at i of a valid document (for one that
// is not, an offset within s, or len(s)).
func skipValue(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	switch s[i] {
	case '"':
		if j := scanString(s, i); j > 0 {
			return j
		}
		return len(s)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				if i = scanString(s, i); i < 0 {
					return len(s)
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(s)
	}
	j := i
	for j < len(s) && !space(s[j]) && s[j] != ',' && s[j] != '}' && s[j] != ']' {
		j++
	}
	return j
}

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
	return value(s[i:j])
}

// value makes the Result of one value's text (no whitespace around it).
func value(s string) Result {
	if s == "" {
		return Result{}
	}
	switch s[0] {
	case '{', '[':
		return Result{Type: JSON, Raw: s}
	case '"':
		if len(s) < 2 {
			return Result{Type: String, Raw: s}
		}
		return Result{Type: String, Raw: s, Str: unescape(s[1 : len(s)-1])}
	case 't':
		return Result{Type: True, Raw: s}
	case 'f':
		return Result{Type: False, Raw: s}
	case 'n':
		return Result{Type: Null, Raw: s}
	}
	return Result{Type: Number, Raw: s}
}

// unescape returns the value of a JSON string's text between its quotes: s itself when
// it holds no escape. A \u escape of a UTF-16 surrogate takes the \u escape after it as
// its pair; what does not make a valid pair is U+FFFD (gjson's reading).
func unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	b := make([]byte, i, len(s))
	copy(b, s)
	for i < len(s) {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch e := s[i+1]; e {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return string(b)
			}
			i += 6
			if utf16.IsSurrogate(r) && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2, ok := hex4(s, i+2); ok {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // " \ /
			b = append(b, e)
		}
		i += 2
	}
	return string(b)
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
// is not an object, or has no such member, gives a Result that does not exist. One scan
// of the object, nothing allocated for the members skipped (the loader asks for every
// field by name). A loop rather than members with a closure: TinyGo allocates a
// closure's captured variables on every call, and the scheduled pull's build asks for
// six fields of each of up to 100,000 records in an instance that never frees.
func (r Result) Member(name string) Result {
	if !r.IsObject() {
		return Result{}
	}
	s := r.Raw
	for i := skipSpace(s, 1); ; {
		k, v, next, ok := nextMember(s, i)
		if !ok {
			return Result{}
		}
		if unescape(k[1:len(k)-1]) == name { // k itself when it has no escape: nothing allocated
			return value(v)
		}
		if next < 0 {
			return Result{}
		}
		i = next
	}
}

// members calls f with each member of the object r.Raw: its name as written (with its
// quotes) and its value's text, in order, until f returns false.
func (r Result) members(f func(k, v string) bool) {
	s := r.Raw
	for i := skipSpace(s, 1); ; {
		k, v, next, ok := nextMember(s, i)
		if !ok || !f(k, v) || next < 0 {
			return
		}
		i = next
	}
}

// nextMember reads the member of object text s at i: its name as written (with its
// quotes), its value's text, and where the next member starts (-1: none); ok is false
// when there is no member at i.
func nextMember(s string, i int) (k, v string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", "", -1, false
	}
	e := skipValue(s, i)
	k = s[i:e]
	j := skipSpace(s, e)
	if j >= len(s) || s[j] != ':' {
		return "", "", -1, false
	}
	j = skipSpace(s, j+1)
	e = skipValue(s, j)
	v = s[j:e]
	if i = skipSpace(s, e); i >= len(s) || s[i] != ',' {
		return k, v, -1, true
	}
	return k, v, skipSpace(s, i+1), true
}

// ForEach calls f for each member of an object (k is the member's name, a String) or
// each element of an array (k does not exist), in order, until f returns false.
func (r Result) ForEach(f func(k, v Result) bool) {
	if r.Type != JSON {
		return
	}
	if r.Raw[0] == '{' {
		r.members(func(k, v string) bool { return f(value(k), value(v)) })
		return
	}
	s := r.Raw
	i := skipSpace(s, 1)
	for i < len(s) && s[i] != ']' {
		e := skipValue(s, i)
		if e == i || !f(Result{}, value(s[i:e])) {
			return
		}
		if i = skipSpace(s, e); i >= len(s) || s[i] != ',' {
			return
		}
		i = skipSpace(s, i+1)
	}
}

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
