package rental

import (
	"strings"
	"testing"
)

func TestCheckSearch(t *testing.T) {
	c := bundledCatalog(t)
	tests := []struct {
		name     string
		s        Search
		param    string // "" when the search is acceptable
		contains string
	}{
		{"ok round trip", search(1, 1, "2027-06-10", "2027-06-20"), "", ""},
		{"ok same day", search(1, 1, "2027-06-10", "2027-06-10"), "", ""},
		{"ok one-way", search(2, 3, "2026-12-08", "2026-12-19"), "", ""},
		{"unknown pick-up depot", search(99, 1, "2027-06-10", "2027-06-20"), "pick_up_depot_id", "pick_up_depot_id 99 is not an active depot"},
		{"inactive pick-up depot", search(6, 1, "2027-06-10", "2027-06-20"), "pick_up_depot_id", "1 (Auckland Airport)"},
		{"zero pick-up depot", search(0, 1, "2027-06-10", "2027-06-20"), "pick_up_depot_id", "pick_up_depot_id 0"},
		{"unknown drop-off depot", search(1, 99, "2027-06-10", "2027-06-20"), "drop_off_depot_id", "drop_off_depot_id 99 is not an active depot"},
		{"inactive drop-off depot", search(1, 6, "2027-06-10", "2027-06-20"), "drop_off_depot_id", "drop_off_depot_id 6"},
		{"drop-off before pick-up", search(1, 1, "2027-06-10", "2027-06-09"), "drop_off_date", "drop_off_date 2027-06-09 is before pick_up_date 2027-06-10"},
		{"past", search(1, 1, "2026-11-21", "2026-11-30"), "pick_up_date", "pick_up_date 2026-11-21 is in the past; today in New Zealand is 2026-11-22"},
		{"today at 1-day-notice depot", search(1, 1, "2026-11-22", "2026-11-30"), "pick_up_date", "Auckland Airport (depot 1) needs 1 day's notice, so the earliest pick_up_date there is 2026-11-23"},
		{"notice Rotorua 3 days", search(7, 7, "2026-11-24", "2026-11-30"), "pick_up_date", "Rotorua (depot 7) needs 3 days' notice, so the earliest pick_up_date there is 2026-11-25"},
		{"notice Rotorua ok", search(7, 7, "2026-11-25", "2026-11-30"), "", ""},
		{"max advance ok", search(1, 1, "2028-11-21", "2028-11-28"), "", ""},
		{"max advance", search(1, 1, "2028-11-22", "2028-11-28"), "pick_up_date", "the latest pick_up_date is 2028-11-21"},
		{"max hire ok", search(1, 1, "2027-05-01", "2027-07-29"), "", ""},
		{"max hire", search(1, 1, "2027-05-01", "2027-07-30"), "drop_off_date", "is 91 days, longer than the maximum of 90 days"},
		{"beyond calendar", search(1, 1, "2028-11-10", "2029-01-05"), "drop_off_date", "rates are published up to 2028-12-31"},
		{"pick-up depot closed", search(1, 1, "2026-12-25", "2027-01-05"), "pick_up_date", "Auckland Airport (depot 1) is closed on pick_up_date 2026-12-25 (Christmas Day)"},
		{"pick-up closed Good Friday", search(2, 2, "2027-03-26", "2027-04-05"), "pick_up_date", "(Good Friday)"},
		{"drop-off depot closed", search(1, 3, "2026-12-10", "2026-12-26"), "drop_off_date", "Queenstown (depot 3) is closed on drop_off_date 2026-12-26 (Boxing Day)"},
		{"drop-off closed, suggestions skip closures", search(3, 3, "2026-12-10", "2026-12-25"), "drop_off_date", "for example 2026-12-24 or 2026-12-27"},
		{"route not offered", search(7, 3, "2027-06-10", "2027-06-20"), "drop_off_depot_id", "one-way hires from Rotorua (depot 7) to Queenstown (depot 3) are not offered"},
		{"route one direction only", search(5, 1, "2027-06-10", "2027-06-20"), "drop_off_depot_id", "from Picton Ferry Terminal (depot 5) to Auckland Airport (depot 1)"},
		{"route other direction offered", search(1, 5, "2027-06-10", "2027-06-20"), "", ""},
	}
	for _, tt := range tests {
		err := c.CheckSearch(tt.s)
		if tt.param == "" {
			if err != nil {
				t.Errorf("%s: CheckSearch = %q, want nil", tt.name, err.Message)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: CheckSearch = nil, want error on %q", tt.name, tt.param)
			continue
		}
		if err.Kind != KindInvalid || err.Param != tt.param {
			t.Errorf("%s: CheckSearch = kind %d param %q, want KindInvalid %q (%s)", tt.name, err.Kind, err.Param, tt.param, err.Message)
		}
		if !strings.Contains(err.Message, tt.param) || !strings.Contains(err.Message, tt.contains) {
			t.Errorf("%s: CheckSearch message %q, want it to name %q and contain %q", tt.name, err.Message, tt.param, tt.contains)
		}
		// Availability and Quote report the same error.
		if _, e2 := c.Availability(tt.s, nil); e2 == nil || e2.Message != err.Message {
			t.Errorf("%s: Availability error = %v, want %q", tt.name, e2, err.Message)
		}
		var q Quote
		if e3 := c.Quote(&QuoteRequest{Search: tt.s, VehicleID: 5}, &q); e3 == nil || e3.Message != err.Message {
			t.Errorf("%s: Quote error = %v, want %q", tt.name, e3, err.Message)
		}
	}
}

func offerIDs(os []Offer) map[int64]Offer {
	m := map[int64]Offer{}
	for _, o := range os {
		m[o.Vehicle.ID] = o
	}
	return m
}

func TestVehicleAvailability(t *testing.T) {
	c := bundledCatalog(t)
	tests := []struct {
		name     string
		s        Search
		vehicle  int64
		reason   string // "" = available; else a substring of Unavailable
		wantDays int
	}{
		{"partly booked stays available", search(2, 2, "2026-12-20", "2027-01-03"), 5, "", 15},
		{"booked out over summer", search(1, 1, "2026-12-22", "2026-12-30"), 7, "booked out at Auckland Airport (depot 1) on 2026-12-22: every unit there is hired from 2026-12-20 to 2027-01-06", 0},
		{"booked out on the first day only", search(1, 1, "2027-01-06", "2027-01-14"), 7, "on 2027-01-06", 0},
		{"free the day after", search(1, 1, "2027-01-07", "2027-01-14"), 7, "", 8},
		{"booked out from the last day", search(2, 2, "2026-12-18", "2026-12-27"), 1, "booked out at Christchurch Airport (depot 2) on 2026-12-27", 0},
		{"free the day before", search(2, 2, "2026-12-18", "2026-12-26"), 1, "", 9},
		{"same vehicle free elsewhere", search(1, 1, "2026-12-22", "2026-12-30"), 1, "", 9},
		{"min hire peak", search(2, 2, "2027-01-10", "2027-01-18"), 10, "needs a minimum hire of 10 days for pick-ups in the peak season; this hire is 9 days (both the pick-up and the drop-off day count). Choose a drop_off_date on or after 2027-01-19", 0},
		{"min hire met", search(2, 2, "2027-01-10", "2027-01-19"), 10, "", 10},
		{"min hire shoulder", search(2, 2, "2026-12-10", "2026-12-14"), 10, "minimum hire of 6 days for pick-ups in the shoulder season", 0},
		{"min hire set by the pick-up day's season", search(2, 2, "2026-12-12", "2026-12-17"), 10, "", 6},
		{"same-day hire", search(1, 1, "2027-06-10", "2027-06-11"), 1, "", 2},
		{"no fleet at depot", search(3, 3, "2027-06-10", "2027-06-20"), 10, "is not based at Queenstown (depot 3), so it cannot be picked up there; it can be picked up at Auckland Airport (depot 1), Christchurch Airport (depot 2)", 0},
		{"fleet only at the drop-off depot", search(3, 1, "2027-06-10", "2027-06-20"), 10, "is not based at Queenstown", 0},
	}
	for _, tt := range tests {
		offers, err := c.Availability(tt.s, nil)
		if err != nil {
			t.Fatalf("%s: Availability error %q", tt.name, err.Message)
		}
		o, listed := offerIDs(offers)[tt.vehicle]
		got := c.Unavailable(tt.s, tt.vehicle)
		if tt.reason == "" {
			if got != "" || !listed {
				t.Errorf("%s: vehicle %d unavailable (listed %v): %q", tt.name, tt.vehicle, listed, got)
			} else if o.Days != tt.wantDays {
				t.Errorf("%s: Days = %d, want %d", tt.name, o.Days, tt.wantDays)
			}
			continue
		}
		if listed {
			t.Errorf("%s: vehicle %d listed, want it left out", tt.name, tt.vehicle)
		}
		if !strings.Contains(got, tt.reason) {
			t.Errorf("%s: Unavailable = %q, want it to contain %q", tt.name, got, tt.reason)
		}
	}
	if got := c.Unavailable(search(1, 1, "2027-06-10", "2027-06-20"), 999); !strings.Contains(got, "vehicle_id 999") {
		t.Errorf("Unavailable(unknown) = %q", got)
	}
}

func TestAvailabilityOffers(t *testing.T) {
	c := bundledCatalog(t)
	// Christchurch round trip 2026-12-20..2027-01-03: 15 peak days.
	offers, err := c.Availability(search(2, 2, "2026-12-20", "2027-01-03"), nil)
	if err != nil {
		t.Fatal(err.Message)
	}
	for i, o := range offers {
		if i > 0 && offers[i-1].Vehicle.ID >= o.Vehicle.ID {
			t.Errorf("offers not sorted by vehicle id")
		}
		if o.Days != 15 {
			t.Errorf("vehicle %d: Days = %d, want 15", o.Vehicle.ID, o.Days)
		}
	}
	m := offerIDs(offers)
	if _, ok := m[1]; ok {
		t.Errorf("Tui (1) is booked out at Christchurch from 2026-12-27 but was offered")
	}
	if _, ok := m[8]; ok {
		t.Errorf("Kotuku (8) is booked out at Christchurch 2026-12-28..2027-01-04 but was offered")
	}
	if o := m[5]; o.RentalCents != 15*25900 || o.DailyRateCents != 25900 {
		t.Errorf("Pukeko rental = %d / %d a day, want %d / 25900", o.RentalCents, o.DailyRateCents, 15*25900)
	}
	// Across a season boundary the daily rate is the period's average, rounded half up.
	offers, _ = c.Availability(search(2, 3, "2026-12-08", "2026-12-19"), offers)
	if o := offerIDs(offers)[5]; o.RentalCents != 7*15900+5*25900 || o.DailyRateCents != 20067 {
		t.Errorf("Pukeko across boundary = %+v, want rental 240800, daily 20067", o)
	}
}

func TestDailyRate(t *testing.T) {
	tests := []struct {
		rental int64
		days   int
		want   int64
	}{
		{100, 1, 100}, {100, 3, 33}, {101, 2, 51}, {5, 2, 3}, {7, 3, 2}, {8, 3, 3}, {240800, 12, 20067}, {0, 5, 0}, {10, 0, 0},
	}
	for _, tt := range tests {
		if got := dailyRate(tt.rental, tt.days); got != tt.want {
			t.Errorf("dailyRate(%d, %d) = %d, want %d", tt.rental, tt.days, got, tt.want)
		}
	}
}

func TestAvailabilityAllocs(t *testing.T) {
	c := bundledCatalog(t)
	s := search(2, 3, "2026-12-08", "2026-12-19")
	dst, _ := c.Availability(s, nil)
	allocs := testing.AllocsPerRun(200, func() { dst, _ = c.Availability(s, dst) })
	if allocs != 0 {
		t.Errorf("Availability allocs/op = %v, want 0", allocs)
	}
	if len(dst) == 0 {
		t.Errorf("no offers")
	}
}

// TestOffersMatchAvailable holds offers (the search's loop, with what it reads taken
// into locals) to available and rental, vehicle by vehicle: every depot
// pair, pick-up days across the calendar and the seasons, hire lengths from 1 to 30
// days, with and without filters. It fails when offers drops, adds or prices a
// vehicle differently.
func TestOffersMatchAvailable(t *testing.T) {
	c := bundledCatalog(t)
	filters := []Filter{{}, {MinBerths: 4}, {Transmission: "automatic"}, {Class: "campervan"}, {MaxTotalCents: 150000}, {VehicleID: 5}}
	first, last := c.CalendarRange()
	var dst []Offer
	checked, offered := 0, 0
	for _, from := range c.Depots() {
		for _, to := range c.Depots() {
			for day := testToday; day <= last && day < first.AddDays(800); day = day.AddDays(23) {
				for _, n := range []int{1, 3, 7, 12, 30} {
					s := Search{PickUpDepot: from.ID, DropOffDepot: to.ID, PickUp: day, DropOff: day.AddDays(n - 1), Today: testToday}
					var sc searchCtx
					if err := c.check(&s, &sc); err != nil {
						continue
					}
					for fi := range filters {
						f := &filters[fi]
						dst = c.offers(&sc, f, dst[:0])
						var want []Offer
						for vi := range c.vehicleX {
							if !c.available(vi, &sc) {
								continue
							}
							r := c.rental(vi, &sc)
							total := satAdd(r, sc.route)
							if !f.Keep(&c.vehicles[vi], total) {
								continue
							}
							want = append(want, Offer{Vehicle: &c.vehicles[vi], Index: vi, Days: sc.days,
								RentalCents: r, DailyRateCents: dailyRate(r, sc.days), RouteCents: sc.route, TotalCents: total})
						}
						if len(dst) != len(want) {
							t.Fatalf("%+v filter %+v: %d offers, want %d", s, *f, len(dst), len(want))
						}
						for i := range want {
							if dst[i] != want[i] {
								t.Fatalf("%+v filter %+v: offer %d = %+v, want %+v", s, *f, i, dst[i], want[i])
							}
						}
						checked++
						offered += len(dst)
					}
				}
			}
		}
	}
	if checked < 1000 || offered < 1000 {
		t.Fatalf("only %d searches with %d offers compared: the table no longer reaches the catalog", checked, offered)
	}
}
