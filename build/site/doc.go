package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// document is what the site reads of the OpenAPI document.
type document struct {
	Info struct {
		Title, Version, Description string
	}
	Tags []struct {
		Name, Description string
	}
	Paths      map[string]map[string]operation
	Components struct {
		Schemas map[string]*schema
	}
	schemaOrder []string // components/schemas in the document's order
}

type operation struct {
	OperationID string `json:"operationId"`
	Tags        []string
	Summary     string
	Description string
	Parameters  []parameter
	Responses   map[string]struct {
		Description string
		Content     map[string]struct {
			Schema *schema
		}
	}
}

type parameter struct {
	Name, In, Description string
	Required              bool
	Schema                *schema
	Example               any
}

type schema struct {
	Ref         string `json:"$ref"`
	Type        any    // a string, or a list of strings
	Format      string
	Pattern     string
	Description string
	Enum        []any
	Minimum     *float64
	Maximum     *float64
	MaxLength   *int
	MaxItems    *int
	Items       *schema
	AnyOf       []*schema
	Required    []string
	Properties  map[string]*schema
	propOrder   []string // Properties in the document's order
}

// UnmarshalJSON reads a schema and the order of its properties.
func (s *schema) UnmarshalJSON(b []byte) error {
	type plain schema
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var raw struct{ Properties json.RawMessage }
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	order, err := keysInOrder(raw.Properties)
	s.propOrder = order
	return err
}

func parseDocument(b []byte) (*document, error) {
	d := &document{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("the OpenAPI document: %v", err)
	}
	var raw struct {
		Components struct{ Schemas json.RawMessage }
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	var err error
	d.schemaOrder, err = keysInOrder(raw.Components.Schemas)
	return d, err
}

// keysInOrder returns the keys of JSON object b in order (none for an empty b).
func keysInOrder(b json.RawMessage) ([]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// op returns the GET operation of path.
func (d *document) op(path string) operation { return d.Paths[path]["get"] }

// refName returns X of {"$ref": "#/components/schemas/X"}, or "".
func refName(s *schema) string {
	if s == nil {
		return ""
	}
	return strings.TrimPrefix(s.Ref, "#/components/schemas/")
}

// answer200 returns the schema of an operation's 200 JSON body.
func (o operation) answer200() *schema {
	return o.Responses["200"].Content["application/json"].Schema
}

// typeText says schema s in a few words: "integer 1-20", "string: compact, campervan
// or motorhome", "Depot", "array of Vehicle", "date (YYYY-MM-DD)".
func typeText(s *schema) string {
	if s == nil {
		return "any"
	}
	if n := refName(s); n != "" {
		return n
	}
	var parts []string
	for _, a := range s.AnyOf {
		parts = append(parts, typeText(a))
	}
	if len(parts) > 0 {
		return strings.Join(parts, " or ")
	}
	t := ""
	switch v := s.Type.(type) {
	case string:
		t = v
	case []any:
		var ts []string
		for _, x := range v {
			ts = append(ts, fmt.Sprint(x))
		}
		t = strings.Join(ts, " or ")
	}
	switch {
	case t == "array":
		return "array of " + typeText(s.Items)
	case len(s.Enum) > 0:
		var vs []string
		for _, e := range s.Enum {
			vs = append(vs, fmt.Sprint(e))
		}
		return t + ", one of " + strings.Join(vs, ", ")
	case s.Format == "date":
		return "date (YYYY-MM-DD)"
	case s.Format == "date-time" || s.Format == "uri":
		return t + " (" + s.Format + ")"
	case s.Pattern != "":
		return t + " matching " + s.Pattern
	case s.Minimum != nil && s.Maximum != nil:
		return t + " " + num(*s.Minimum) + " to " + num(*s.Maximum)
	case s.Minimum != nil:
		return t + " >= " + num(*s.Minimum)
	}
	return t
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// firstSentence returns text up to its first ". " (the whole text if none).
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}
