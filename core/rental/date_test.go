package rental

import (
	"testing"
	"time"
	_ "time/tzdata" // only to cross-check NZToday against the tz database in tests
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"2026-01-01", true},
		{"2026-12-31", true},
		{"2028-02-29", true}, // leap year
		{"2027-02-29", false},
		{"2026-02-30", false},
		{"2026-04-31", false},
		{"2000-02-29", true},
		{"2100-02-29", false},
		{"1970-01-01", true},
		{"1969-12-31", false},
		{"9999-12-31", true},
		{"0000-01-01", false},
		{"2026-00-10", false},
		{"2026-13-01", false},
		{"2026-01-00", false},
		{"2026-1-01", false},
		{"2026/01/01", false},
		{"20260101", false},
		{"2026-01-01 ", false},
		{" 2026-01-01", false},
		{"2026-01-0a", false},
		{"+026-01-01", false},
		{"", false},
		{"2026-01-01T00:00:00Z", false},
	}
	for _, tt := range tests {
		got, ok := ParseDate(tt.in)
		if ok != tt.ok {
			t.Errorf("ParseDate(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok && got.String() != tt.in {
			t.Errorf("ParseDate(%q).String() = %q, want %q", tt.in, got.String(), tt.in)
		}
	}
}

func TestDateRoundTrip(t *testing.T) {
	// Every day from 1970 to 2400 round-trips and agrees with package time.
	start := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	for n := 0; n < 157000; n += 1 {
		tm := start.AddDate(0, 0, n)
		dt := DateOf(tm.Year(), int(tm.Month()), tm.Day())
		if int(dt) != n {
			t.Fatalf("DateOf(%s) = %d, want %d", tm.Format("2006-01-02"), dt, n)
		}
		if got, want := dt.String(), tm.Format("2006-01-02"); got != want {
			t.Fatalf("Date(%d).String() = %q, want %q", n, got, want)
		}
		if got, want := dt.Weekday(), int(tm.Weekday()); got != want {
			t.Fatalf("%s.Weekday() = %d, want %d", dt, got, want)
		}
	}
}

func TestAppendToNoAlloc(t *testing.T) {
	buf := make([]byte, 0, 32)
	dt := DateOf(2026, 12, 25)
	allocs := testing.AllocsPerRun(100, func() { buf = dt.AppendTo(buf[:0]) })
	if allocs != 0 {
		t.Errorf("AppendTo allocs = %v, want 0", allocs)
	}
	if string(buf) != "2026-12-25" {
		t.Errorf("AppendTo = %q", buf)
	}
}

func TestNZToday(t *testing.T) {
	utc := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return tm.Unix()
	}
	tests := []struct {
		at   string
		want string
	}{
		// Winter, NZST (UTC+12): midnight falls at 12:00 UTC.
		{"2026-07-01T11:59:59Z", "2026-07-01"},
		{"2026-07-01T12:00:00Z", "2026-07-02"},
		// Summer, NZDT (UTC+13): midnight falls at 11:00 UTC.
		{"2026-12-31T10:59:59Z", "2026-12-31"},
		{"2026-12-31T11:00:00Z", "2027-01-01"},
		// DST ends Sunday 2026-04-05 03:00 NZDT = 2026-04-04 14:00 UTC.
		{"2026-04-04T10:59:59Z", "2026-04-04"},
		{"2026-04-04T11:00:00Z", "2026-04-05"}, // still NZDT
		{"2026-04-04T13:59:59Z", "2026-04-05"},
		{"2026-04-04T14:00:00Z", "2026-04-05"}, // 02:00 NZST
		{"2026-04-05T11:30:00Z", "2026-04-05"}, // NZST now: 23:30
		{"2026-04-05T12:00:00Z", "2026-04-06"},
		// DST starts Sunday 2026-09-27 02:00 NZST = 2026-09-26 14:00 UTC.
		{"2026-09-26T11:30:00Z", "2026-09-26"}, // NZST: 23:30
		{"2026-09-26T12:00:00Z", "2026-09-27"},
		{"2026-09-26T13:59:59Z", "2026-09-27"},
		{"2026-09-26T14:00:00Z", "2026-09-27"}, // 03:00 NZDT
		{"2026-09-27T10:59:59Z", "2026-09-27"},
		{"2026-09-27T11:00:00Z", "2026-09-28"}, // NZDT: 00:00
		// 2027: ends 2027-04-04, starts 2027-09-26; 2028: ends 2028-04-02, starts 2028-09-24.
		{"2027-04-03T11:30:00Z", "2027-04-04"},
		{"2027-04-04T11:30:00Z", "2027-04-04"},
		{"2027-09-25T11:30:00Z", "2027-09-25"},
		{"2027-09-26T11:30:00Z", "2027-09-27"},
		{"2028-04-01T11:30:00Z", "2028-04-02"},
		{"2028-04-02T11:30:00Z", "2028-04-02"},
		{"2028-09-23T11:30:00Z", "2028-09-23"},
		{"2028-09-24T11:30:00Z", "2028-09-25"},
		{"1970-01-01T00:00:00Z", "1970-01-01"},
	}
	for _, tt := range tests {
		if got := NZToday(utc(tt.at)).String(); got != tt.want {
			t.Errorf("NZToday(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
	// Out-of-range instants clamp instead of misbehaving.
	if got := NZToday(-1 << 62); got != 0 {
		t.Errorf("NZToday(very negative) = %s, want 1970-01-01", got)
	}
	if got := NZToday(1<<62 + 5); got.String() != "9999-12-31" {
		t.Errorf("NZToday(huge) = %s, want 9999-12-31", got)
	}
}

func TestNZTodayMatchesTZDatabase(t *testing.T) {
	loc, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	// Every quarter hour from 2008 (rules in force since 2007) to 2040.
	start := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	end := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for u := start; u < end; u += 900 {
		want := time.Unix(u, 0).In(loc).Format("2006-01-02")
		if got := NZToday(u).String(); got != want {
			t.Fatalf("NZToday(%s) = %s, want %s", time.Unix(u, 0).UTC().Format(time.RFC3339), got, want)
		}
	}
}

// refParseDate is ParseDate field by field, as it was before it read words.
func refParseDate(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, ok1 := twoOrFour(s[0:4])
	m, ok2 := twoOrFour(s[5:7])
	d, ok3 := twoOrFour(s[8:10])
	if !ok1 || !ok2 || !ok3 || y < minYear || y > maxYear || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return DateOf(y, m, d), true
}

// TestParseDateEveryByte holds ParseDate, which tests the digits and dashes a word at
// a time, to refParseDate with each of a date's ten bytes replaced by every byte value,
// on dates across the range, leap days and month ends among them.
func TestParseDateEveryByte(t *testing.T) {
	for _, s := range []string{"2026-11-27", "1970-01-01", "9999-12-31", "2028-02-29", "2100-02-28", "2000-02-29",
		"2026-04-30", "2026-12-31", "1999-09-09", "2027-03-08"} {
		if got, ok := ParseDate(s); !ok || got.String() != s {
			t.Fatalf("ParseDate(%q) = %s, %v", s, got, ok)
		}
		b := []byte(s)
		for i := range b {
			for c := 0; c < 256; c++ {
				b[i] = byte(c)
				got, ok := ParseDate(string(b))
				want, wok := refParseDate(string(b))
				if ok != wok || got != want {
					t.Fatalf("ParseDate(%q) = %d, %v; field by field %d, %v", b, got, ok, want, wok)
				}
			}
			b[i] = s[i]
		}
	}
	for _, s := range []string{"", "2026-11-2", "2026-11-277", "2026/11/27", "２０２６-11-27"} {
		if _, ok := ParseDate(s); ok {
			t.Fatalf("ParseDate(%q) accepted it", s)
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-02-30", "2028-02-29", "9999-12-31", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dt, ok := ParseDate(s)
		if ok && dt.String() != s {
			t.Fatalf("ParseDate(%q) = %s", s, dt)
		}
	})
}

// TestDateAtMatchesAppendTo: the cursor writer writes AppendTo's ten bytes, clamped
// years included, and nothing around them.
func TestDateAtMatchesAppendTo(t *testing.T) {
	for _, d := range []Date{0, 1, -1, 20000, DateOf(2026, 11, 22), DateOf(9999, 12, 31), DateOf(10000, 1, 1), -800000, 1 << 30, -(1 << 30)} {
		buf := []byte("..............")
		if n := d.At(buf, 2); n != 2+DateLen {
			t.Fatalf("Date(%d).At returned %d", d, n)
		}
		if got, want := string(buf), ".."+string(d.AppendTo(nil))+".."; got != want {
			t.Fatalf("Date(%d).At wrote %q, want %q", d, got, want)
		}
	}
}
