package mcp

import (
	"slices"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/jsonw"
)

// The tools' schemas as tools/list carries them: derived from the OpenAPI document,
// self-contained, and saying each thing once, since every host reads the list on every
// connection. Kept: types, properties, items, required, enums, patterns, an argument's
// bounds, additionalProperties. Left out:
//   - descriptions and defaults: the tool's description says what an agent needs to
//     call it; the OpenAPI document and the docs page carry the rest;
//   - OpenAPI's numeric formats (int32, int64, double, float), which JSON Schema does not
//     define and the bounds already say;
//   - an argument's format and maxLength beside a pattern, which says both;
//   - an argument's maximum 2147483647 (an id's int32 bound): the API refuses a larger
//     id by name, and no agent sends one;
//   - in output schemas, the size bounds (maxLength, maxItems, minimum, maximum): they
//     guard what the API reads, and promise nothing about an answer that a host checks;
//   - in output schemas below the answer itself, "type" beside "properties" (object)
//     or "items" (array), which say it;
//   - a component another tool's output schema says: another tool's whole answer (a
//     Quote, in check_quote's), or a part of an earlier tool's answer (the insurance
//     options of search_vehicles, in search_calendar's), is {"type":"object"} there.

const schemaRef = "#/components/schemas/"

// appendToolInput writes a tool's input schema: an object whose properties are the
// operation's parameters. A number argument also works as a string of digits (the call
// puts either into the query string); the schema gives the one type, as the API does.
func appendToolInput(b []byte, op, schemas jsonv.Result) []byte {
	b = append(b, `{"type":"object","properties":{`...)
	var required []string
	n := 0
	field(op, "parameters").ForEach(func(_, p jsonv.Result) bool {
		name := field(p, "name").String()
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = jsonw.AppendJSONString(b, name)
		b = append(b, ':')
		b = appendLean(b, field(p, "schema"), schemas, lean{arg: true}, 0)
		if field(p, "required").Bool() {
			required = append(required, name)
		}
		return true
	})
	b = append(b, '}')
	if len(required) > 0 {
		b = append(b, `,"required":[`...)
		for i, r := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendJSONString(b, r)
		}
		b = append(b, ']')
	}
	return append(b, `,"additionalProperties":false}`...)
}

// appendToolOutput writes the schema of the operation's 200 body; an array is wrapped as
// the property wrap of an object (MCP's structuredContent and outputSchema are objects),
// beside nextPage when the operation pages.
// A component in others is said in another tool's output schema: here it is
// {"type":"object"}, and the tool's description names that tool.
func appendToolOutput(b []byte, op, schemas jsonv.Result, wrap string, others []string, paged bool) []byte {
	s := outputSchema(op)
	l := lean{output: true, others: others}
	if wrap == "" {
		l.top = true
		return appendLean(b, s, schemas, l, 0)
	}
	b = jsonw.AppendMember(b, `{"type":"object","properties":{`, wrap)
	b = append(b, ':')
	b = appendLean(b, s, schemas, l, 0)
	if paged {
		b = append(b, `,"nextPage":{"type":"string"}`...)
	}
	b = jsonw.AppendMember(b, `},"required":[`, wrap)
	return append(b, "]}"...)
}

// takesPage reports whether the operation has a page parameter (its lists page).
func takesPage(op jsonv.Result) bool {
	paged := false
	field(op, "parameters").ForEach(func(_, p jsonv.Result) bool {
		paged = paged || field(p, "name").String() == "page"
		return !paged
	})
	return paged
}

// outputSchema returns the schema of the operation's 200 body.
func outputSchema(op jsonv.Result) jsonv.Result {
	return field(field(field(field(field(op, "responses"), "200"), "content"), "application/json"), "schema")
}

// appendSaid appends to said the components schema v writes in full: those it refers
// to, directly or through others, but not those in others (written as
// {"type":"object"}) nor those already in said.
func appendSaid(said []string, v, schemas jsonv.Result, others []string, depth int) []string {
	if depth > 32 {
		return said
	}
	if ref := field(v, "$ref").String(); v.IsObject() && len(ref) > len(schemaRef) && ref[:len(schemaRef)] == schemaRef {
		name := ref[len(schemaRef):]
		if slices.Contains(others, name) || slices.Contains(said, name) {
			return said
		}
		return appendSaid(append(said, name), field(schemas, name), schemas, others, depth+1)
	}
	if v.IsObject() || v.IsArray() {
		v.ForEach(func(_, x jsonv.Result) bool {
			said = appendSaid(said, x, schemas, others, depth+1)
			return true
		})
	}
	return said
}

// outputComponent returns the component an operation's 200 body is ("Quote" for
// {"$ref": "#/components/schemas/Quote"}), or "".
func outputComponent(op jsonv.Result) string {
	ref := field(outputSchema(op), "$ref").String()
	if len(ref) <= len(schemaRef) || ref[:len(schemaRef)] != schemaRef {
		return ""
	}
	return ref[len(schemaRef):]
}

// lean says which schema appendLean writes.
type lean struct {
	arg    bool // an argument's: a format or maxLength beside a pattern goes
	output bool // an answer's: the size bounds, formats and patterns go, and "required" below level 1
	top    bool // the answer itself, whose "type" stays (an output schema is an object schema)
	// level counts the properties and items above the schema being written, not the
	// $refs: an answer is level 0, its fields or list items level 1.
	level  int
	others []string // components said in another tool's output schema
}

// appendLean copies schema v without what the list leaves out (above), replacing each
// {"$ref": "#/components/schemas/X"} by X itself, recursively. Inside "properties" the
// keys are property names, never left out.
func appendLean(b []byte, v, schemas jsonv.Result, l lean, depth int) []byte {
	if depth > 32 {
		return append(b, "{}"...)
	}
	switch {
	case v.IsObject():
		if ref := field(v, "$ref").String(); len(ref) > len(schemaRef) && ref[:len(schemaRef)] == schemaRef {
			for _, o := range l.others {
				if ref[len(schemaRef):] == o {
					return append(b, `{"type":"object"}`...)
				}
			}
			return appendLean(b, resolve(v, schemas), schemas, l, depth+1)
		}
		b = append(b, '{')
		n := 0
		inner := l
		inner.top = false
		v.ForEach(func(k, x jsonv.Result) bool {
			key := k.String()
			if l.drops(v, key, x) {
				return true
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(append(b, k.Raw...), ':')
			if key == "properties" && x.IsObject() {
				below := inner
				below.level++
				b = appendProperties(b, x, schemas, below, depth+1)
			} else if key == "items" {
				below := inner
				below.level++
				b = appendLean(b, x, schemas, below, depth+1)
			} else {
				b = appendLean(b, x, schemas, inner, depth+1)
			}
			return true
		})
		return append(b, '}')
	case v.IsArray():
		b = append(b, '[')
		n := 0
		v.ForEach(func(_, x jsonv.Result) bool {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendLean(b, x, schemas, l, depth+1)
			return true
		})
		return append(b, ']')
	case !v.Exists():
		return append(b, "{}"...)
	}
	return append(b, v.Raw...)
}

// appendProperties writes a "properties" object: each name, then its schema.
func appendProperties(b []byte, v, schemas jsonv.Result, l lean, depth int) []byte {
	b = append(b, '{')
	n := 0
	v.ForEach(func(k, x jsonv.Result) bool {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(append(b, k.Raw...), ':')
		b = appendLean(b, x, schemas, l, depth)
		return true
	})
	return append(b, '}')
}

// drops reports whether member key (value x) of schema v is left out of the schema l
// says.
func (l lean) drops(v jsonv.Result, key string, x jsonv.Result) bool {
	switch {
	case dropAlways(key, x):
		return true
	case l.arg:
		return (key == "format" || key == "maxLength") && field(v, "pattern").Exists() ||
			key == "maximum" && x.Raw == "2147483647"
	case !l.output:
		return false
	}
	switch key {
	case "maxLength", "maxItems", "minimum", "maximum", "format", "pattern":
		return true
	case "required":
		return l.level > 1
	case "type":
		t := x.String()
		return !l.top && (t == "object" && field(v, "properties").Exists() || t == "array" && field(v, "items").Exists())
	}
	return false
}

// dropAlways reports whether member key (value v) of a schema is left out of every
// tool schema.
func dropAlways(key string, v jsonv.Result) bool {
	switch key {
	case "description", "example", "examples", "default":
		return true
	case "format":
		switch v.String() {
		case "int32", "int64", "double", "float":
			return true
		}
	}
	return false
}

// resolve returns the component schema v refers to ({"$ref": "#/components/schemas/X"}),
// or v.
func resolve(v, schemas jsonv.Result) jsonv.Result {
	for i := 0; i < 8; i++ {
		ref := field(v, "$ref").String()
		if !v.IsObject() || len(ref) <= len(schemaRef) || ref[:len(schemaRef)] != schemaRef {
			return v
		}
		v = field(schemas, ref[len(schemaRef):])
	}
	return v
}
