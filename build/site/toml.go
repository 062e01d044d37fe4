package main

import (
	"fmt"
	"os"
	"strings"
)

// tomlFile is what the site reads of a wrangler.toml: per table, its keys with a string,
// a boolean or a one-line array of strings as value. Other lines (arrays of tables,
// multi-line values) are skipped.
type tomlFile struct {
	order  map[string][]string
	values map[string]map[string][]string // a string is a list of one
}

func readTOML(path string) (*tomlFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &tomlFile{order: map[string][]string{}, values: map[string]map[string][]string{}}
	table := ""
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(stripComment(line))
		switch {
		case line == "":
		case strings.HasPrefix(line, "[["):
			table = "" // an array of tables: not read
		case strings.HasPrefix(line, "["):
			table = strings.Trim(line, "[] ")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return nil, fmt.Errorf("%s:%d: not a key = value line", path, n+1)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			vals, ok := tomlValue(v)
			if !ok {
				continue
			}
			if t.values[table] == nil {
				t.values[table] = map[string][]string{}
			}
			if _, dup := t.values[table][k]; !dup {
				t.order[table] = append(t.order[table], k)
			}
			t.values[table][k] = vals
		}
	}
	return t, nil
}

// tomlValue reads a basic string, a boolean or a one-line array of basic strings.
func tomlValue(v string) ([]string, bool) {
	switch {
	case v == "true" || v == "false":
		return []string{v}, true
	case strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) && len(v) >= 2:
		return []string{v[1 : len(v)-1]}, true
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		var out []string
		for _, item := range strings.Split(v[1:len(v)-1], ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if len(item) < 2 || item[0] != '"' || item[len(item)-1] != '"' {
				return nil, false
			}
			out = append(out, item[1:len(item)-1])
		}
		return out, true
	}
	return nil, false
}

// stripComment cuts a # comment that is not inside a string.
func stripComment(line string) string {
	in := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && in:
			i++
		case line[i] == '"':
			in = !in
		case line[i] == '#' && !in:
			return line[:i]
		}
	}
	return line
}

func (t *tomlFile) keys(table string) []string { return t.order[table] }

func (t *tomlFile) str(table, key string) string {
	if v := t.values[table][key]; len(v) == 1 {
		return v[0]
	}
	return ""
}

func (t *tomlFile) list(table, key string) []string { return t.values[table][key] }
