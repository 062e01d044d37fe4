package rental

// Loading and validation of the snapshot: LoadCatalog reads the JSON files into the
// dense tables of Catalog. It runs at build time (build/checksnapshot writes its result
// as bundled_gen.go) and in tools and tests, so it may use fmt; the bookings' part runs
// in the Worker too (BuildInventory, the scheduled pull), so what it calls formats with
// core/text, which keeps fmt out of the module.
// LoadCatalog and policy.json are here; each other file's loader is in load_<file>.go
// (seasons, depots with routes, vehicles, extras, bookings), and the record readers
// they share in load_records.go.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/campervan/agent-api/core/jsonv"
	"github.com/campervan/agent-api/core/text"
)

// Limits applied when loading a snapshot. They bound every product computed on the
// request path, so no fee can overflow int64.
const (
	maxSeasons       = 8
	maxRateCents     = 10_000_000     // NZ$100,000 a day
	maxPriceCents    = 100_000_000    // NZ$1,000,000
	maxUnits         = 100_000        // units of one vehicle at one depot or in one booking
	maxQuantityLimit = 100            // MaxQuantity of an accessory
	maxPolicyDays    = 3660           // max_hire_days and max_advance_days
	maxCalendarDays  = 50 * 366       // length of the season calendar
	maxNoticeDays    = 365            // notice_days of a depot
	maxCents         = int64(1) << 52 // fees saturate here instead of wrapping
)

// snapshotFiles are the files LoadCatalog reads, in the order it validates them.
var snapshotFiles = []string{"policy.json", "seasons.json", "depots.json", "vehicles.json", "routes.json", "extras.json", "bookings.json", "terms.json"}

// LoadCatalog parses and validates the snapshot files (depots.json, vehicles.json,
// seasons.json, routes.json, extras.json, bookings.json, policy.json) and returns
// the prepared Catalog. Any bad record fails the whole load with an error naming
// the file, the record (0-based index and id) and the field.
func LoadCatalog(files map[string][]byte) (*Catalog, error) {
	roots := make(map[string]jsonv.Result, len(snapshotFiles))
	for _, name := range snapshotFiles {
		b, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("%s: missing from the snapshot", name)
		}
		if !jsonv.ValidBytes(b) {
			return nil, fmt.Errorf("%s: not valid JSON", name)
		}
		roots[name] = jsonv.ParseBytes(b)
	}
	c := &Catalog{}

	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := text.FNVOffset
	for _, n := range names {
		h = text.FNV64a(h, n)
		h = text.FNV64a(h, "\x00")
		h = text.FNV64a(h, text.BytesString(files[n]))
		h = text.FNV64a(h, "\x00")
	}
	c.version = fmt.Sprintf("%016x", h)

	steps := []func(jsonv.Result) error{c.loadPolicy, c.loadSeasons, c.loadDepots, c.loadVehicles, c.loadRoutes, c.loadExtras, c.loadBookings, c.loadTerms}
	for i, step := range steps {
		if err := step(roots[snapshotFiles[i]]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Catalog) loadPolicy(root jsonv.Result) error {
	const file = "policy.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	r := rec{file: file, idx: -1}
	cur, err := r.str(root, "currency")
	if err != nil {
		return err
	}
	if len(cur) != 3 || strings.ToUpper(cur) != cur {
		return r.fail("currency", "must be a three-letter ISO 4217 code such as \"NZD\"")
	}
	c.currency = cur
	n, err := r.integer(root, "max_hire_days", 1, maxPolicyDays, "a positive integer (days)")
	if err != nil {
		return err
	}
	c.maxHire = int(n)
	n, err = r.integer(root, "max_advance_days", 0, maxPolicyDays, "a non-negative integer (days)")
	if err != nil {
		return err
	}
	c.maxAdvance = int(n)
	cls, err := records(file, root, "vehicle_classes")
	if err != nil {
		return err
	}
	if len(cls) == 0 {
		return r.fail("vehicle_classes", "must list at least one class")
	}
	for i, e := range cls {
		rr := rec{file: file, list: "vehicle_classes", idx: i}
		code, err := rr.str(e, "code")
		if err != nil {
			return err
		}
		if c.classIndex(code) >= 0 {
			return rr.fail("code", "duplicate class %q", code)
		}
		if _, err := rr.str(e, "name"); err != nil {
			return err
		}
		c.classes = append(c.classes, code)
	}
	return nil
}

func (c *Catalog) classIndex(code string) int {
	for i, s := range c.classes {
		if s == code {
			return i
		}
	}
	return -1
}

func (c *Catalog) seasonIndex(name string) int {
	for i, s := range c.seasonNames {
		if s == name {
			return i
		}
	}
	return -1
}

func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return false
		}
	}
	return s != ""
}
