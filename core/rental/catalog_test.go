package rental

import (
	"reflect"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
	"github.com/tidwall/gjson"
)

func TestBundledCatalog(t *testing.T) {
	c := bundledCatalog(t)
	files := snapshottest.Files(t)

	// Every active depot is listed, sorted; the inactive one (Dunedin, 6) is not.
	ds := c.Depots()
	if len(ds) != 6 {
		t.Fatalf("len(Depots()) = %d, want 6", len(ds))
	}
	for i := 1; i < len(ds); i++ {
		if ds[i-1].ID >= ds[i].ID {
			t.Errorf("Depots() not sorted by id: %d before %d", ds[i-1].ID, ds[i].ID)
		}
	}
	if c.Depot(6) != nil {
		t.Errorf("Depot(6) (inactive Dunedin) = %+v, want nil", c.Depot(6))
	}
	if c.Depot(99) != nil || c.Depot(0) != nil || c.Depot(-1) != nil {
		t.Errorf("Depot(unknown) != nil")
	}
	if d := c.Depot(1); d == nil || d.Name != "Auckland Airport" || len(d.PickupTimes) == 0 || d.OpeningHours == "" {
		t.Errorf("Depot(1) = %+v", d)
	}

	vs := c.Vehicles()
	if len(vs) < 10 {
		t.Fatalf("len(Vehicles()) = %d, want >= 10", len(vs))
	}
	for i := range vs {
		v := &vs[i]
		if i > 0 && vs[i-1].ID >= v.ID {
			t.Errorf("Vehicles() not sorted at %d", i)
		}
		if c.Vehicle(v.ID) == nil || c.Vehicle(v.ID).Name != v.Name {
			t.Errorf("Vehicle(%d) does not resolve", v.ID)
		}
		if !strings.HasPrefix(v.ImageURL, "https://images.example-campers.co.nz/") {
			t.Errorf("vehicle %d image %q", v.ID, v.ImageURL)
		}
		if len(c.Accessories(v)) == 0 {
			t.Errorf("vehicle %d has no accessories", v.ID)
		}
		plans := c.InsurancePlans(v)
		free := false
		for j, p := range plans {
			free = free || p.PriceCents == 0
			if j > 0 && plans[j-1].ID >= p.ID {
				t.Errorf("InsurancePlans(%d) not sorted", v.ID)
			}
		}
		if !free {
			t.Errorf("vehicle %d has no zero-price insurance plan", v.ID)
		}
	}
	if c.Vehicle(999) != nil || c.Accessories(nil) != nil || c.InsurancePlans(&Vehicle{ID: 999}) != nil {
		t.Errorf("unknown vehicles must give nil")
	}

	// Every reference in the raw files resolves to a record of the catalog.
	depotIDs := map[int64]bool{}
	for _, dp := range gjson.ParseBytes(files["depots.json"]).Array() {
		depotIDs[dp.Get("id").Int()] = true
	}
	for _, v := range gjson.ParseBytes(files["vehicles.json"]).Array() {
		for _, f := range v.Get("fleet").Array() {
			if !depotIDs[f.Get("depot_id").Int()] {
				t.Errorf("vehicle %d: fleet depot %d unknown", v.Get("id").Int(), f.Get("depot_id").Int())
			}
		}
		for _, s := range []string{"low", "shoulder", "peak"} {
			if v.Get("rates."+s).Int() <= 0 {
				t.Errorf("vehicle %d: no %s rate", v.Get("id").Int(), s)
			}
		}
	}
	for _, b := range gjson.ParseBytes(files["bookings.json"]).Array() {
		if c.Vehicle(b.Get("vehicle_id").Int()) == nil || !depotIDs[b.Get("depot_id").Int()] {
			t.Errorf("booking %d: unresolved reference", b.Get("id").Int())
		}
	}
	for _, r := range gjson.GetBytes(files["routes.json"], "routes").Array() {
		if c.Depot(r.Get("from_depot_id").Int()) == nil || c.Depot(r.Get("to_depot_id").Int()) == nil {
			t.Errorf("route %s: unresolved or inactive depot", r.Raw)
		}
	}

	// The season calendar covers 2026-01-01..2028-12-31 with NZ summer as peak.
	first, last := c.CalendarRange()
	if first.String() != "2026-01-01" || last.String() != "2028-12-31" {
		t.Errorf("CalendarRange() = %s..%s", first, last)
	}
	for _, tt := range []struct{ day, season string }{
		{"2026-01-15", "peak"}, {"2026-07-01", "low"}, {"2026-12-14", "shoulder"},
		{"2026-12-15", "peak"}, {"2028-02-29", "peak"}, {"2028-03-01", "shoulder"}, {"2029-01-01", ""},
	} {
		if got := c.SeasonOf(d(tt.day)); got != tt.season {
			t.Errorf("SeasonOf(%s) = %q, want %q", tt.day, got, tt.season)
		}
	}
	if c.MaxHireDays() != 90 || c.MaxAdvanceDays() != 730 || c.Currency() != "NZD" {
		t.Errorf("policy = %d, %d, %s", c.MaxHireDays(), c.MaxAdvanceDays(), c.Currency())
	}
	if v := c.Version(); len(v) != 16 {
		t.Errorf("Version() = %q, want 16 hex digits", v)
	}
}

func TestVersionChangesWithContent(t *testing.T) {
	files := snapshottest.Files(t)
	c1, err := LoadCatalog(files)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := LoadCatalog(snapshottest.Files(t))
	if c1.Version() != c2.Version() {
		t.Errorf("Version not stable: %s vs %s", c1.Version(), c2.Version())
	}
	files["policy.json"] = append(append([]byte{}, files["policy.json"]...), ' ')
	c3, err := LoadCatalog(files)
	if err != nil {
		t.Fatal(err)
	}
	if c3.Version() == c1.Version() {
		t.Errorf("Version did not change with content")
	}
}

// TestLoadErrors breaks one thing in the bundled snapshot at a time and checks
// that the error names the file, the record and the field.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, old, new string
		want                 string
	}{
		{"negative rate", "vehicles.json", `"peak": 21900`, `"peak": -5`,
			`vehicles.json: record 2 (id 3): field "rates.peak": must be a positive integer (cents)`},
		{"fractional rate", "vehicles.json", `"low": 8900`, `"low": 89.5`,
			`vehicles.json: record 2 (id 3): field "rates.low": must be a positive integer (cents)`},
		{"missing season rate", "vehicles.json", `"shoulder": 8900,`, ``,
			`vehicles.json: record 0 (id 1): field "rates.shoulder": is missing`},
		{"unknown class", "vehicles.json", `"class": "motorhome"`, `"class": "spaceship"`,
			`vehicles.json: record 5 (id 6): field "class": unknown vehicle class "spaceship"`},
		{"fleet depot unknown", "vehicles.json", `"depot_id": 7,`, `"depot_id": 77,`,
			`vehicles.json: record 1 (id 2): field "fleet[3].depot_id": depot 77 does not exist`},
		{"duplicate vehicle id", "vehicles.json", `"id": 2,`, `"id": 1,`,
			`vehicles.json: record 1 (id 1): field "id": duplicate id 1`},
		{"image not https", "vehicles.json", `https://images.example-campers.co.nz/fleet/tui`, `http://x/tui`,
			`vehicles.json: record 0 (id 1): field "image_url": must be an https:// URL`},
		{"impossible closed date", "depots.json", `"2026-04-03"`, `"2026-02-30"`,
			`depots.json: record 0 (id 1): field "closed_dates[1].date": must be a real calendar date`},
		{"bad pickup time", "depots.json", `"time": "08:30"`, `"time": "8.30"`,
			`depots.json: record 0 (id 1): field "pickup_times[0].time": must be a 24-hour time`},
		{"bad day kind", "depots.json", `"day": "weekend"`, `"day": "holiday"`,
			`depots.json: record 0 (id 1): field "pickup_times[4].day": must be "weekday" or "weekend"`},
		{"active not bool", "depots.json", `"active": true`, `"active": "yes"`,
			`depots.json: record 0 (id 1): field "active": must be true or false`},
		{"booking vehicle unknown", "bookings.json", `"vehicle_id": 7,`, `"vehicle_id": 99,`,
			`bookings.json: record 0 (id 1001): field "vehicle_id": vehicle 99 does not exist`},
		{"booking depot without fleet", "bookings.json", `"depot_id": 1,`, `"depot_id": 5,`,
			`bookings.json: record 0 (id 1001): field "depot_id": vehicle 7 has no fleet at depot 5`},
		{"booking dates reversed", "bookings.json", `"drop_off_date": "2027-01-06"`, `"drop_off_date": "2026-01-06"`,
			`bookings.json: record 0 (id 1001): field "drop_off_date": must not be before pick_up_date`},
		{"route depot unknown", "routes.json", `"to_depot_id": 2,`, `"to_depot_id": 42,`,
			`routes.json: routes record 0: field "to_depot_id": depot 42 does not exist`},
		{"route negative fee", "routes.json", `"fee_cents": 29500`, `"fee_cents": -1`,
			`routes.json: routes record 0: field "fee_cents": must be a non-negative integer (cents)`},
		{"accessory class unknown", "extras.json", `"classes": [
        "campervan",
        "motorhome"
      ]`, `"classes": ["spaceship"]`,
			`extras.json: accessories record 0 (id 1): field "classes[0]": unknown vehicle class "spaceship"`},
		{"accessory charge", "extras.json", `"charge": "per_day"`, `"charge": "weekly"`,
			`extras.json: accessories record 0 (id 1): field "charge": must be "per_day" or "per_hire"`},
		{"accessory max quantity", "extras.json", `"max_quantity": 2`, `"max_quantity": 0`,
			`extras.json: accessories record 0 (id 1): field "max_quantity": must be a positive integer`},
		{"insurance price", "extras.json", `"price_cents": 2500,
      "max_days": 30`, `"price_cents": "25.00",
      "max_days": 30`,
			`extras.json: insurance record 1 (id 22): field "price_cents": must be a non-negative integer`},
		{"no free plan", "extras.json", `"id": 21,
      "name": "Standard cover (NZ$3,000 excess)",
      "price_cents": 0`, `"id": 21,
      "name": "Standard cover (NZ$3,000 excess)",
      "price_cents": 100`,
			`extras.json: field "insurance": vehicle class "compact" has no plan with price_cents 0`},
		{"season gap", "seasons.json", `"from": "2026-03-01"`, `"from": "2026-03-02"`,
			`seasons.json: calendar record 1: field "from": must be 2026-03-01`},
		{"season unknown", "seasons.json", `"season": "low"`, `"season": "winter"`,
			`seasons.json: calendar record 2: field "season": unknown season "winter"`},
		{"policy missing", "policy.json", `"max_hire_days": 90,`, ``,
			`policy.json: field "max_hire_days": is missing`},
		{"policy zero", "policy.json", `"max_hire_days": 90,`, `"max_hire_days": 0,`,
			`policy.json: field "max_hire_days": must be a positive integer (days)`},
		{"not JSON", "routes.json", `{`, `{{`, `routes.json: not valid JSON`},
		{"not array", "bookings.json", `[`, `{"x":[`, `bookings.json: not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := snapshottest.Files(t)
			src := string(files[tt.file])
			if !strings.Contains(src, tt.old) {
				t.Fatalf("%s does not contain %q", tt.file, tt.old)
			}
			files[tt.file] = []byte(strings.Replace(src, tt.old, tt.new, 1))
			_, err := LoadCatalog(files)
			if err == nil {
				t.Fatalf("LoadCatalog succeeded, want error %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("LoadCatalog error\n got %q\nwant %q...", err, tt.want)
			}
		})
	}
}

func TestLoadMissingFileAndShapes(t *testing.T) {
	files := snapshottest.Files(t)
	delete(files, "extras.json")
	if _, err := LoadCatalog(files); err == nil || err.Error() != "extras.json: missing from the snapshot" {
		t.Errorf("missing file: err = %v", err)
	}
	files = snapshottest.Files(t)
	files["bookings.json"] = []byte(`{"id": 1}`)
	if _, err := LoadCatalog(files); err == nil || !strings.HasPrefix(err.Error(), "bookings.json: must be a JSON array") {
		t.Errorf("object instead of array: err = %v", err)
	}
	files = snapshottest.Files(t)
	files["bookings.json"] = []byte(`[1]`)
	if _, err := LoadCatalog(files); err == nil || err.Error() != "bookings.json: record 0: must be a JSON object" {
		t.Errorf("number record: err = %v", err)
	}
	files = snapshottest.Files(t)
	files["bookings.json"] = []byte(`[]`)
	if _, err := LoadCatalog(files); err != nil {
		t.Errorf("no bookings must load: %v", err)
	}
}

// TestGeneratedBundledCatalog checks the catalog prepared at build time (bundled_gen.go)
// against LoadCatalog of data/*.json, field by field (unexported ones included).
func TestGeneratedBundledCatalog(t *testing.T) {
	want := bundledCatalog(t)
	got := Bundled()
	if got.Version() != want.Version() {
		t.Fatalf("bundled_gen.go is of snapshot %s, data/ is %s: run go generate ./... (make build does)", got.Version(), want.Version())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("bundled_gen.go differs from LoadCatalog(data/*.json): run go generate ./... (make build does)")
	}
	// The test can fail: a catalog that differs in one unexported field is not equal.
	other := *want
	other.fleet = append([]int32(nil), want.fleet...)
	other.fleet[0]++
	if reflect.DeepEqual(got, &other) {
		t.Fatal("DeepEqual does not see a change in the fleet")
	}
}
