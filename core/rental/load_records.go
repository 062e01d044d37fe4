package rental

// Reading a snapshot file's records: rec names a record in error messages and reads
// its fields with their bounds.

import (
	"strconv"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/text"
)

// rec names one record of a snapshot file in error messages.
type rec struct {
	file  string
	list  string // "" for the file's top-level array; "accessories" etc. otherwise
	idx   int    // 0-based position in the array; -1 for a top-level object
	id    int64
	hasID bool
}

func (r rec) String() string {
	var b strings.Builder
	b.WriteString(r.file)
	if r.idx >= 0 {
		b.WriteString(": ")
		if r.list != "" {
			b.WriteString(r.list)
			b.WriteByte(' ')
		}
		b.WriteString("record ")
		b.WriteString(strconv.Itoa(r.idx))
		if r.hasID {
			b.WriteString(" (id ")
			b.WriteString(strconv.FormatInt(r.id, 10))
			b.WriteByte(')')
		}
	}
	return b.String()
}

// fail returns the load error for field of r.
func (r rec) fail(field, format string, args ...any) error {
	return text.Errorf("%s: field %q: %s", r, field, text.Sprintf(format, args...))
}

// integer reads field of obj as an integer in [min, max]; what describes the
// expected value ("a positive integer (cents)").
func (r rec) integer(obj jsonv.Result, field string, min, max int64, what string) (int64, error) {
	v := obj.Get(field)
	if !v.Exists() {
		return 0, r.fail(field, "is missing; it must be %s", what)
	}
	if v.Type != jsonv.Number {
		return 0, r.fail(field, "must be %s", what)
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil || n < min {
		return 0, r.fail(field, "must be %s", what)
	}
	if n > max {
		return 0, r.fail(field, "must be %s, at most %d", what, max)
	}
	return n, nil
}

// str reads a non-empty string field.
func (r rec) str(obj jsonv.Result, field string) (string, error) {
	v := obj.Get(field)
	if !v.Exists() {
		return "", r.fail(field, "is missing; it must be a non-empty string")
	}
	if v.Type != jsonv.String || strings.TrimSpace(v.Str) == "" {
		return "", r.fail(field, "must be a non-empty string")
	}
	return v.Str, nil
}

func (r rec) boolean(obj jsonv.Result, field string) (bool, error) {
	v := obj.Get(field)
	if !v.Exists() {
		return false, r.fail(field, "is missing; it must be true or false")
	}
	if v.Type != jsonv.True && v.Type != jsonv.False {
		return false, r.fail(field, "must be true or false")
	}
	return v.Type == jsonv.True, nil
}

func (r rec) date(obj jsonv.Result, field string) (Date, error) {
	v := obj.Get(field)
	if !v.Exists() {
		return 0, r.fail(field, "is missing; it must be a date \"YYYY-MM-DD\"")
	}
	d, ok := ParseDate(v.Str)
	if v.Type != jsonv.String || !ok {
		return 0, r.fail(field, "must be a real calendar date \"YYYY-MM-DD\" (got %s)", v.Raw)
	}
	return d, nil
}

func (r rec) array(obj jsonv.Result, field string) ([]jsonv.Result, error) {
	v := obj.Get(field)
	if !v.Exists() {
		return nil, r.fail(field, "is missing; it must be an array")
	}
	if !v.IsArray() {
		return nil, r.fail(field, "must be an array")
	}
	return v.Array(), nil
}

// records returns the elements of the array list (or of the whole file when
// list is ""), each an object.
func records(file string, root jsonv.Result, list string) ([]jsonv.Result, error) {
	v := root
	where := file
	if list != "" {
		v = root.Get(list)
		where = text.Sprintf("%s: field %q", file, list)
	}
	if !v.IsArray() {
		return nil, text.Errorf("%s: must be a JSON array of records", where)
	}
	a := v.Array()
	for i, e := range a {
		if !e.IsObject() {
			r := rec{file: file, list: list, idx: i}
			return nil, text.Errorf("%s: must be a JSON object", r)
		}
	}
	return a, nil
}

// idRecords returns the records of list (see records) and an empty set of the ids seen.
func idRecords(file string, root jsonv.Result, list string) ([]jsonv.Result, map[int64]bool, error) {
	rs, err := records(file, root, list)
	return rs, map[int64]bool{}, err
}

// namedRecord reads the "id" (unique in seen) and the "name" of record i.
func namedRecord(file, list string, i int, e jsonv.Result, seen map[int64]bool) (rec, string, error) {
	r, err := recordID(file, list, i, e, seen)
	if err != nil {
		return r, "", err
	}
	name, err := r.str(e, "name")
	return r, name, err
}

// recordID reads the "id" of record i and checks that it is unique in seen.
func recordID(file, list string, i int, e jsonv.Result, seen map[int64]bool) (rec, error) {
	r := rec{file: file, list: list, idx: i}
	id, err := r.integer(e, "id", 1, 1<<53, "a positive integer")
	if err != nil {
		return r, err
	}
	r.id, r.hasID = id, true
	if seen[id] {
		return r, r.fail("id", "duplicate id %d", id)
	}
	seen[id] = true
	return r, nil
}

// orMissing is a field's JSON for a message, or "nothing" when it is absent.
func orMissing(v jsonv.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	return v.Raw
}
