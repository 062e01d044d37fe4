package rental

// Loading and validation of the snapshot: LoadCatalog reads the JSON files into the
// dense tables of Catalog. It runs at build time (build/checksnapshot writes its result
// as bundled_gen.go) and in tools and tests, so it may use fmt; the bookings' part runs
// in the Worker too (BuildInventory, the scheduled pull), so what it calls formats with
// core/text, which keeps fmt out of the module.

import (
	"fmt"
	"sort"
	"strconv"
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

func (c *Catalog) loadSeasons(root jsonv.Result) error {
	const file = "seasons.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	if err := c.loadSeasonNames(file, root); err != nil {
		return err
	}
	if err := c.loadCalendar(file, root); err != nil {
		return err
	}
	c.calDays = len(c.seasonOf)
	c.countSeasonDays()
	return nil
}

// loadSeasonNames reads the seasons' names into c.seasonNames.
func (c *Catalog) loadSeasonNames(file string, root jsonv.Result) error {
	ss, err := records(file, root, "seasons")
	if err != nil {
		return err
	}
	if len(ss) == 0 || len(ss) > maxSeasons {
		return rec{file: file, idx: -1}.fail("seasons", "must list 1 to %d seasons", maxSeasons)
	}
	for i, e := range ss {
		r := rec{file: file, list: "seasons", idx: i}
		name, err := r.str(e, "name")
		if err != nil {
			return err
		}
		if !plainName(name) {
			return r.fail("name", "must use only a-z, 0-9, '_' and '-' (got %q)", name)
		}
		if c.seasonIndex(name) >= 0 {
			return r.fail("name", "duplicate season %q", name)
		}
		c.seasonNames = append(c.seasonNames, name)
	}
	return nil
}

// loadCalendar reads the calendar's periods, contiguous and in order, into c.calStart
// and c.seasonOf (the season of each day).
func (c *Catalog) loadCalendar(file string, root jsonv.Result) error {
	cal, err := records(file, root, "calendar")
	if err != nil {
		return err
	}
	if len(cal) == 0 {
		return rec{file: file, idx: -1}.fail("calendar", "must list at least one period")
	}
	var next Date
	for i, e := range cal {
		r := rec{file: file, list: "calendar", idx: i}
		from, to, s, err := c.calendarPeriod(r, e)
		if err != nil {
			return err
		}
		if i == 0 {
			c.calStart = from
		} else if from != next {
			return r.fail("from", "must be %s, the day after the previous period ends (periods must be contiguous and in order)", next)
		}
		if to < from {
			return r.fail("to", "must not be before \"from\" (%s)", from)
		}
		if int(to)-int(c.calStart)+1 > maxCalendarDays {
			return r.fail("to", "the calendar may span at most %d days", maxCalendarDays)
		}
		for d := from; d <= to; d++ {
			c.seasonOf = append(c.seasonOf, uint8(s))
		}
		next = to + 1
	}
	return nil
}

// calendarPeriod reads one period of the calendar: its first and last days and the
// index of its season.
func (c *Catalog) calendarPeriod(r rec, e jsonv.Result) (from, to Date, season int, err error) {
	if from, err = r.date(e, "from"); err != nil {
		return
	}
	if to, err = r.date(e, "to"); err != nil {
		return
	}
	sn, err := r.str(e, "season")
	if err != nil {
		return
	}
	if season = c.seasonIndex(sn); season < 0 {
		err = r.fail("season", "unknown season %q; seasons are %s", sn, strings.Join(c.seasonNames, ", "))
	}
	return
}

// countSeasonDays fills c.seasonPre: per season, the number of its days before each
// day of the calendar.
func (c *Catalog) countSeasonDays() {
	k := len(c.seasonNames)
	c.seasonPre = make([]int32, k*(c.calDays+1))
	for s := 0; s < k; s++ {
		row := c.seasonPre[s*(c.calDays+1) : (s+1)*(c.calDays+1)]
		for i, x := range c.seasonOf {
			row[i+1] = row[i]
			if int(x) == s {
				row[i+1]++
			}
		}
	}
}

// validTime reports whether s is "HH:MM" on a 24-hour clock.
func validTime(s string) bool {
	if len(s) != 5 || s[2] != ':' {
		return false
	}
	h, ok1 := twoOrFour(s[:2])
	m, ok2 := twoOrFour(s[3:])
	return ok1 && ok2 && h < 24 && m < 60
}

func (c *Catalog) loadDepots(root jsonv.Result) error {
	const file = "depots.json"
	rs, seen, err := idRecords(file, root, "")
	if err != nil {
		return err
	}
	for i, e := range rs {
		r, name, err := namedRecord(file, "", i, e, seen)
		if err != nil {
			return err
		}
		d, x, err := loadDepot(r, name, e)
		if err != nil {
			return err
		}
		c.depots = append(c.depots, d)
		c.depotX = append(c.depotX, x)
	}
	if len(c.depots) == 0 {
		return fmt.Errorf("%s: lists no depots", file)
	}
	c.sortDepots()
	return nil
}

// loadDepot reads depot record e (r, named name).
func loadDepot(r rec, name string, e jsonv.Result) (Depot, depotData, error) {
	d := Depot{ID: r.id, Name: name}
	var x depotData
	var err error
	if x.active, err = r.boolean(e, "active"); err != nil {
		return d, x, err
	}
	n, err := r.integer(e, "notice_days", 0, maxNoticeDays, "a non-negative integer (days)")
	if err != nil {
		return d, x, err
	}
	x.notice = int(n)
	if d.OpeningHours, err = r.str(e, "opening_hours_description"); err != nil {
		return d, x, err
	}
	if d.PickupTimes, err = timeSlots(r, e, "pickup_times"); err != nil {
		return d, x, err
	}
	if d.DropOffTimes, err = timeSlots(r, e, "drop_off_times"); err != nil {
		return d, x, err
	}
	x.closed, err = closedDates(r, e)
	return d, x, err
}

// timeSlots reads the array of times f of depot record e.
func timeSlots(r rec, e jsonv.Result, f string) ([]TimeSlot, error) {
	ts, err := r.array(e, f)
	if err != nil {
		return nil, err
	}
	slots := make([]TimeSlot, 0, len(ts))
	for j, t := range ts {
		tf, df := fmt.Sprintf("%s[%d].time", f, j), fmt.Sprintf("%s[%d].day", f, j)
		tm, day := t.Get("time"), t.Get("day")
		if tm.Type != jsonv.String || !validTime(tm.Str) {
			return nil, r.fail(tf, "must be a 24-hour time \"HH:MM\" (got %s)", orMissing(tm))
		}
		if day.Type != jsonv.String || (day.Str != "weekday" && day.Str != "weekend") {
			return nil, r.fail(df, "must be \"weekday\" or \"weekend\" (got %s)", orMissing(day))
		}
		slots = append(slots, TimeSlot{Time: tm.Str, Day: day.Str})
	}
	return slots, nil
}

// closedDates reads the closed dates of depot record e, sorted by date.
func closedDates(r rec, e jsonv.Result) ([]closure, error) {
	cds, err := r.array(e, "closed_dates")
	if err != nil {
		return nil, err
	}
	var closed []closure
	for j, cd := range cds {
		dv := cd.Get("date")
		day, ok := ParseDate(dv.Str)
		if dv.Type != jsonv.String || !ok {
			return nil, r.fail(fmt.Sprintf("closed_dates[%d].date", j), "must be a real calendar date \"YYYY-MM-DD\" (got %s)", orMissing(dv))
		}
		nv := cd.Get("name")
		if nv.Type != jsonv.String || strings.TrimSpace(nv.Str) == "" {
			return nil, r.fail(fmt.Sprintf("closed_dates[%d].name", j), "must be a non-empty string naming the holiday")
		}
		closed = append(closed, closure{date: day, name: nv.Str})
	}
	sort.SliceStable(closed, func(a, b int) bool { return closed[a].date < closed[b].date })
	return closed, nil
}

// sortDepots sorts the depots by id, keeping depots and depotX parallel, and makes
// the id index and the list of active depots.
func (c *Catalog) sortDepots() {
	ord := make([]int, len(c.depots))
	for i := range ord {
		ord[i] = i
	}
	sort.Slice(ord, func(a, b int) bool { return c.depots[ord[a]].ID < c.depots[ord[b]].ID })
	ds, xs := make([]Depot, len(ord)), make([]depotData, len(ord))
	ids := make([]int64, len(ord))
	for i, o := range ord {
		ds[i], xs[i] = c.depots[o], c.depotX[o]
		ids[i] = ds[i].ID
		if xs[i].active {
			c.active = append(c.active, ds[i])
		}
	}
	c.depots, c.depotX, c.depotIdx = ds, xs, newIDIndex(ids)
}

func orMissing(v jsonv.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	return v.Raw
}

// fleetEntry is a vehicle's units at one depot, as vehicles.json lists them.
type fleetEntry struct {
	depot int32
	units int32
}

func (c *Catalog) loadVehicles(root jsonv.Result) error {
	const file = "vehicles.json"
	rs, seen, err := idRecords(file, root, "")
	if err != nil {
		return err
	}
	var fleets [][]fleetEntry
	for i, e := range rs {
		r, name, err := namedRecord(file, "", i, e, seen)
		if err != nil {
			return err
		}
		v, x, err := c.loadVehicle(r, name, e)
		if err != nil {
			return err
		}
		entries, err := c.vehicleFleet(r, e)
		if err != nil {
			return err
		}
		c.vehicles = append(c.vehicles, v)
		c.vehicleX = append(c.vehicleX, x)
		fleets = append(fleets, entries)
	}
	c.sortVehicles(fleets)
	return nil
}

// loadVehicle reads vehicle record e (r, named name), its fleet aside.
func (c *Catalog) loadVehicle(r rec, name string, e jsonv.Result) (Vehicle, vehicleData, error) {
	v := Vehicle{ID: r.id, Name: name}
	var x vehicleData
	var err error
	if v.ImageURL, err = r.str(e, "image_url"); err != nil {
		return v, x, err
	}
	if !strings.HasPrefix(v.ImageURL, "https://") || strings.ContainsAny(v.ImageURL, " \"<>") {
		return v, x, r.fail("image_url", "must be an https:// URL")
	}
	cls, err := r.str(e, "class")
	if err != nil {
		return v, x, err
	}
	ci := c.classIndex(cls)
	if ci < 0 {
		return v, x, r.fail("class", "unknown vehicle class %q; policy.json defines %s", cls, strings.Join(c.classes, ", "))
	}
	x.class = int32(ci)
	v.Class = c.classes[ci]
	berths, err := r.integer(e, "berths", 1, 20, "a positive integer")
	if err != nil {
		return v, x, err
	}
	v.Berths = int(berths)
	if v.Transmission, err = r.str(e, "transmission"); err != nil {
		return v, x, err
	}
	if v.Transmission != Transmissions[0] && v.Transmission != Transmissions[1] {
		return v, x, r.fail("transmission", "must be %q or %q, got %q", Transmissions[0], Transmissions[1], v.Transmission)
	}
	return v, x, c.vehicleRates(r, e, &x)
}

// vehicleRates reads the daily rate and the minimum hire of each season of vehicle
// record e into x.
func (c *Catalog) vehicleRates(r rec, e jsonv.Result, x *vehicleData) error {
	for s, sn := range c.seasonNames {
		n, err := r.integer(e, "rates."+sn, 1, maxRateCents, "a positive integer (cents)")
		if err != nil {
			return err
		}
		x.rates[s] = n
		n, err = r.integer(e, "min_hire_days."+sn, 1, int64(c.maxHire), fmt.Sprintf("an integer from 1 to max_hire_days (%d)", c.maxHire))
		if err != nil {
			return err
		}
		x.minDays[s] = int32(n)
	}
	return nil
}

// vehicleFleet reads the fleet of vehicle record e: its units per depot, each depot
// once.
func (c *Catalog) vehicleFleet(r rec, e jsonv.Result) ([]fleetEntry, error) {
	fl, err := r.array(e, "fleet")
	if err != nil {
		return nil, err
	}
	var entries []fleetEntry
	for j, f := range fl {
		df := fmt.Sprintf("fleet[%d].depot_id", j)
		did, err := r.integer(f, "depot_id", 1, 1<<53, "a positive integer")
		if err != nil {
			return nil, r.fail(df, "must be a depot id")
		}
		di, ok := c.depotIdx.find(did)
		if !ok {
			return nil, r.fail(df, "depot %d does not exist in depots.json", did)
		}
		for _, en := range entries {
			if en.depot == di {
				return nil, r.fail(df, "depot %d is listed twice", did)
			}
		}
		u, err := r.integer(f, "units", 1, maxUnits, "a positive integer")
		if err != nil {
			return nil, r.fail(fmt.Sprintf("fleet[%d].units", j), "must be a positive integer, at most %d", maxUnits)
		}
		entries = append(entries, fleetEntry{depot: di, units: int32(u)})
	}
	return entries, nil
}

// sortVehicles sorts the vehicles by id, keeping vehicles and vehicleX parallel, and
// makes the id index and the fleet table from fleets (one list per vehicle, in the
// order they were read).
func (c *Catalog) sortVehicles(fleets [][]fleetEntry) {
	ord := make([]int, len(c.vehicles))
	for i := range ord {
		ord[i] = i
	}
	sort.Slice(ord, func(a, b int) bool { return c.vehicles[ord[a]].ID < c.vehicles[ord[b]].ID })
	nd := len(c.depots)
	vs, xs := make([]Vehicle, len(ord)), make([]vehicleData, len(ord))
	c.fleet = make([]int32, len(ord)*nd)
	ids := make([]int64, len(ord))
	for i, o := range ord {
		vs[i], xs[i] = c.vehicles[o], c.vehicleX[o]
		ids[i] = vs[i].ID
		for _, en := range fleets[o] {
			c.fleet[i*nd+int(en.depot)] = en.units
		}
	}
	c.vehicles, c.vehicleX, c.vehicleIdx = vs, xs, newIDIndex(ids)
}

func (c *Catalog) loadRoutes(root jsonv.Result) error {
	const file = "routes.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	top := rec{file: file, idx: -1}
	w, err := top.integer(root, "waiver_min_days", 0, maxPolicyDays, "a non-negative integer (days; 0 for no waiver)")
	if err != nil {
		return err
	}
	c.waiver = int(w)
	rs, err := records(file, root, "routes")
	if err != nil {
		return err
	}
	nd := len(c.depots)
	c.routeFee = make([]int64, nd*nd)
	for i := range c.routeFee {
		c.routeFee[i] = -1
	}
	for i := 0; i < nd; i++ {
		c.routeFee[i*nd+i] = 0
	}
	for i, e := range rs {
		r := rec{file: file, list: "routes", idx: i}
		var idx [2]int32
		for k, f := range []string{"from_depot_id", "to_depot_id"} {
			id, err := r.integer(e, f, 1, 1<<53, "a depot id")
			if err != nil {
				return err
			}
			di, ok := c.depotIdx.find(id)
			if !ok {
				return r.fail(f, "depot %d does not exist in depots.json", id)
			}
			idx[k] = di
		}
		if idx[0] == idx[1] {
			return r.fail("to_depot_id", "must differ from from_depot_id (a same-depot hire has no route fee)")
		}
		fee, err := r.integer(e, "fee_cents", 0, maxPriceCents, "a non-negative integer (cents)")
		if err != nil {
			return err
		}
		p := int(idx[0])*nd + int(idx[1])
		if c.routeFee[p] >= 0 {
			return r.fail("to_depot_id", "duplicate route from depot %d to depot %d", c.depots[idx[0]].ID, c.depots[idx[1]].ID)
		}
		c.routeFee[p] = fee
	}
	return nil
}

// eachExtra reads the records of list in extras.json: each has an id, a name and
// price_cents (at least minPrice; what describes it), read into an Accessory that f
// completes from the record's other fields.
func eachExtra(file string, root jsonv.Result, list string, minPrice int64, what string, f func(r rec, e jsonv.Result, a Accessory) error) error {
	rs, seen, err := idRecords(file, root, list)
	if err != nil {
		return err
	}
	for i, e := range rs {
		r, name, err := namedRecord(file, list, i, e, seen)
		if err != nil {
			return err
		}
		a := Accessory{ID: r.id, Name: name}
		if a.PriceCents, err = r.integer(e, "price_cents", minPrice, maxPriceCents, what); err != nil {
			return err
		}
		if err = f(r, e, a); err != nil {
			return err
		}
	}
	return nil
}

// offer adds item to the list of every vehicle class its record's "classes" names,
// and its name to ids (for messages about ids a vehicle does not offer).
func offer[T any](c *Catalog, r rec, e jsonv.Result, byClass [][]T, item T, ids map[int64]string, name string) error {
	cls, err := c.classList(r, e)
	if err != nil {
		return err
	}
	ids[r.id] = name
	for _, ci := range cls {
		byClass[ci] = append(byClass[ci], item)
	}
	return nil
}

// classList reads a "classes" field into class indices.
func (c *Catalog) classList(r rec, e jsonv.Result) ([]int, error) {
	cl, err := r.array(e, "classes")
	if err != nil {
		return nil, err
	}
	if len(cl) == 0 {
		return nil, r.fail("classes", "must list at least one vehicle class")
	}
	var out []int
	for j, v := range cl {
		ci := c.classIndex(v.Str)
		if v.Type != jsonv.String || ci < 0 {
			return nil, r.fail(fmt.Sprintf("classes[%d]", j), "unknown vehicle class %s; policy.json defines %s", orMissing(v), strings.Join(c.classes, ", "))
		}
		out = append(out, ci)
	}
	return out, nil
}

func (c *Catalog) loadExtras(root jsonv.Result) error {
	const file = "extras.json"
	if !root.IsObject() {
		return fmt.Errorf("%s: must be a JSON object", file)
	}
	c.accByClass = make([][]Accessory, len(c.classes))
	c.insByClass = make([][]InsurancePlan, len(c.classes))
	accIDs, insIDs := map[int64]string{}, map[int64]string{}
	if err := eachExtra(file, root, "accessories", 1, "a positive integer (cents)", func(r rec, e jsonv.Result, a Accessory) error {
		ch, err := r.str(e, "charge")
		if err != nil {
			return err
		}
		switch ch {
		case "per_day":
			a.PerDay = true
		case "per_hire":
		default:
			return r.fail("charge", "must be \"per_day\" or \"per_hire\" (got %q)", ch)
		}
		if a.MaxChargeCents, err = r.integer(e, "max_charge_cents", 0, maxPriceCents, "a non-negative integer (cents; 0 for no cap)"); err != nil {
			return err
		}
		if a.MaxChargeCents != 0 && !a.PerDay {
			return r.fail("max_charge_cents", "must be 0 for a per_hire accessory (the cap applies to per_day charges)")
		}
		if a.MaxChargeCents != 0 && a.MaxChargeCents < a.PriceCents {
			return r.fail("max_charge_cents", "must be 0 (no cap) or at least price_cents (%d)", a.PriceCents)
		}
		q, err := r.integer(e, "max_quantity", 1, maxQuantityLimit, "a positive integer")
		if err != nil {
			return err
		}
		a.MaxQuantity = int(q)
		return offer(c, r, e, c.accByClass, a, accIDs, a.Name)
	}); err != nil {
		return err
	}
	if err := eachExtra(file, root, "insurance", 0, "a non-negative integer (cents per day)", func(r rec, e jsonv.Result, a Accessory) error {
		n, err := r.integer(e, "max_days", 0, maxPolicyDays, "a non-negative integer (days; 0 for no cap)")
		if err != nil {
			return err
		}
		p := InsurancePlan{ID: a.ID, Name: a.Name, PriceCents: a.PriceCents, MaxDays: int(n)}
		return offer(c, r, e, c.insByClass, p, insIDs, p.Name)
	}); err != nil {
		return err
	}
	for ci, cl := range c.classes {
		sort.Slice(c.accByClass[ci], func(a, b int) bool { return c.accByClass[ci][a].ID < c.accByClass[ci][b].ID })
		ps := c.insByClass[ci]
		sort.Slice(ps, func(a, b int) bool { return ps[a].ID < ps[b].ID })
		free := false
		for _, p := range ps {
			free = free || p.PriceCents == 0
		}
		if !free {
			return fmt.Errorf("%s: field \"insurance\": vehicle class %q has no plan with price_cents 0 (the standard cover every hire includes)", file, cl)
		}
	}
	c.accessoryIDs, c.insuranceIDs = newIDNames(accIDs), newIDNames(insIDs)
	return nil
}

type booking struct {
	pair     int32
	from, to int32 // calendar day indices, clipped
	units    int32
}

func (c *Catalog) loadBookings(root jsonv.Result) error {
	bs, n, err := c.parseBookings("bookings.json", "", root)
	if err != nil {
		return err
	}
	c.fleetHash = c.referenceHash()
	inv := c.newInventory(bs, n, "", "bundled data/bookings.json")
	inv.version = "bundled-" + blobVersion(c.EncodeInventory(inv))
	c.inv = inv
	return nil
}

// parseBookings validates the booking records of file (the array list of root, or root
// itself when list is "") against the catalog and returns them clipped to the season
// calendar, with the number of records. Errors name the file, the record and the field.
func (c *Catalog) parseBookings(file, list string, root jsonv.Result) ([]booking, int, error) {
	rs, seen, err := idRecords(file, root, list)
	if err != nil {
		return nil, 0, err
	}
	nd := len(c.depots)
	bs := make([]booking, 0, len(rs))
	for i, e := range rs {
		r, err := recordID(file, list, i, e, seen)
		if err != nil {
			return nil, 0, err
		}
		vid, err := r.integer(e, "vehicle_id", 1, 1<<53, "a vehicle id")
		if err != nil {
			return nil, 0, err
		}
		vi, ok := c.vehicleIdx.find(vid)
		if !ok {
			return nil, 0, r.fail("vehicle_id", "vehicle %d does not exist in vehicles.json", vid)
		}
		did, err := r.integer(e, "depot_id", 1, 1<<53, "a depot id")
		if err != nil {
			return nil, 0, err
		}
		di, ok := c.depotIdx.find(did)
		if !ok {
			return nil, 0, r.fail("depot_id", "depot %d does not exist in depots.json", did)
		}
		pair := int(vi)*nd + int(di)
		if c.fleet[pair] == 0 {
			return nil, 0, r.fail("depot_id", "vehicle %d has no fleet at depot %d (see vehicles.json fleet)", vid, did)
		}
		from, err := r.date(e, "pick_up_date")
		if err != nil {
			return nil, 0, err
		}
		to, err := r.date(e, "drop_off_date")
		if err != nil {
			return nil, 0, err
		}
		if to < from {
			return nil, 0, r.fail("drop_off_date", "must not be before pick_up_date (%s)", from)
		}
		u, err := r.integer(e, "units", 1, maxUnits, "a positive integer")
		if err != nil {
			return nil, 0, err
		}
		// Clip to the calendar; a booking wholly outside it cannot affect a search.
		a, b := int(from)-int(c.calStart), int(to)-int(c.calStart)
		if b < 0 || a >= c.calDays {
			continue
		}
		if a < 0 {
			a = 0
		}
		if b >= c.calDays {
			b = c.calDays - 1
		}
		bs = append(bs, booking{pair: int32(pair), from: int32(a), to: int32(b), units: int32(u)})
	}
	return bs, len(rs), nil
}

// newInventory turns bookings into an Inventory: per (vehicle, depot) pair, the sorted
// spans of days on which the booked units reach the fleet.
func (c *Catalog) newInventory(bs []booking, records int, asOf, source string) *Inventory {
	np := len(c.fleet)
	// Counting sort of the bookings by pair.
	start := make([]int32, np+1)
	for _, b := range bs {
		start[b.pair+1]++
	}
	for p := 0; p < np; p++ {
		start[p+1] += start[p]
	}
	sorted := make([]booking, len(bs))
	fill := make([]int32, np)
	copy(fill, start[:np])
	for _, b := range bs {
		sorted[fill[b.pair]] = b
		fill[b.pair]++
	}
	inv := &Inventory{asOf: asOf, source: source, bookings: records, blockOff: make([]int32, np+1)}
	diff := make([]int64, c.calDays+1)
	for p := 0; p < np; p++ {
		inv.blockOff[p] = int32(len(inv.blocked))
		group := sorted[start[p]:start[p+1]]
		if len(group) == 0 {
			continue
		}
		lo, hi := int32(c.calDays), int32(0)
		for _, b := range group {
			diff[b.from] += int64(b.units)
			diff[b.to+1] -= int64(b.units)
			if b.from < lo {
				lo = b.from
			}
			if b.to+1 > hi {
				hi = b.to + 1
			}
		}
		fleet := int64(c.fleet[p])
		var run int64
		open := int32(-1)
		for d := lo; d <= hi; d++ {
			run += diff[d]
			diff[d] = 0
			full := run >= fleet && d < int32(c.calDays)
			if full && open < 0 {
				open = d
			} else if !full && open >= 0 {
				inv.blocked = append(inv.blocked, span{from: open, to: d - 1})
				open = -1
			}
		}
	}
	inv.blockOff[np] = int32(len(inv.blocked))
	return inv
}
