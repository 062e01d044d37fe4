package rental

import (
	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// Civil dates without time zones. A Date counts days since 1970-01-01; the
// conversions use Howard Hinnant's days-from-civil algorithms, so they need no
// time zone data and no package time (TinyGo on wasm has no tz database).

const (
	minYear = 1970
	maxYear = 9999
	// maxDate is 9999-12-31.
	maxDate Date = 2932896
)

// ParseDate returns the date written as "YYYY-MM-DD"; ok is false for anything
// else, including impossible dates (2026-02-30) and years outside 1970..9999.
//
// "YYYY-MM-" is read as one 64-bit word and its six digits and two dashes tested
// together, the day's two digits as a pair, rather than byte by byte: each byte load is
// a bounds check under workerd. A byte is a digit when its high nibble is 3 and adding
// 6 leaves it 3 ('0'-'9' are 0x30-0x39);
// once every byte has passed (a digit's, or a dash), none carried into the next.
// TestParseDateEveryByte holds it to the field-by-field reading on every byte value at
// every place.
func ParseDate(s string) (Date, bool) {
	if len(s) != 10 {
		return 0, false
	}
	const (
		ones    = 0x0101010101010101
		digitsM = 0x00ffff00ffffffff // the bytes of YYYY and MM (little-endian: s[0] lowest)
		dashesM = 0xff0000ff00000000 // s[4] and s[7]
		dashes  = 0x2d00002d00000000
	)
	x := bytebuf.Load64(s, 0)
	dd := uint32(s[8]) | uint32(s[9])<<8
	if x&dashesM != dashes || x&(0xf0*ones)&digitsM != 0x30*ones&digitsM ||
		(x+0x06*ones)&(0xf0*ones)&digitsM != 0x30*ones&digitsM ||
		dd&0xf0f0 != 0x3030 || (dd+0x0606)&0xf0f0 != 0x3030 {
		return 0, false
	}
	v := x & (0x0f * ones)
	y := int(v&0xf)*1000 + int(v>>8&0xf)*100 + int(v>>16&0xf)*10 + int(v>>24&0xf)
	m := int(v>>40&0xf)*10 + int(v>>48&0xf)
	d := int(dd&0xf)*10 + int(dd>>8&0xf)
	if y < minYear || y > maxYear || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return DateOf(y, m, d), true
}

// twoOrFour reads a fixed-width field of a date or a time (all digits).
func twoOrFour(s string) (int, bool) {
	n, ok := text.Digits(s, 9999)
	return int(n), ok
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// daysIn returns the number of days of month m (1..12) of year y.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DateOf returns the date y-m-d; it does not validate (out-of-range months and
// days are normalised arithmetically, so use ParseDate for input).
func DateOf(y, m, d int) Date {
	if m <= 2 {
		y--
	}
	era := int(text.FloorDiv(int64(y), 400))
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return Date(era*146097 + doe - 719468)
}

// Civil returns the year, month (1..12) and day (1..31) of d.
//
//go:inline
func (d Date) Civil() (y, m, day int) {
	z := int(d) + 719468
	era := int(text.FloorDiv(int64(z), 146097))
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, day
}

// String returns d as "YYYY-MM-DD".
func (d Date) String() string {
	var b [10]byte
	return string(d.AppendTo(b[:0]))
}

// AppendTo appends d as "YYYY-MM-DD" to b; it allocates only if b lacks capacity.
// Years outside 0..9999 are clamped to that range so the output is always 10 bytes.
func (d Date) AppendTo(b []byte) []byte {
	y, m, day := d.Civil()
	if y < 0 {
		y = 0
	} else if y > 9999 {
		y = 9999
	}
	return append(b,
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-',
		byte('0'+day/10), byte('0'+day%10))
}

// DateLen is how many bytes At writes.
const DateLen = 10

// At writes d as AppendTo does, at buf[n:] (a cursor writer), and returns n + DateLen.
//
//go:inline
func (d Date) At(buf []byte, n int) int {
	y, m, day := d.Civil()
	if y < 0 {
		y = 0
	} else if y > 9999 {
		y = 9999
	}
	out := buf[n : n+DateLen]
	out[0], out[1], out[2], out[3], out[4] = byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-'
	out[5], out[6], out[7] = byte('0'+m/10), byte('0'+m%10), '-'
	out[8], out[9] = byte('0'+day/10), byte('0'+day%10)
	return n + DateLen
}

// Weekday returns the day of the week of d, 0 = Sunday .. 6 = Saturday.
func (d Date) Weekday() int {
	w := (int(d) + 4) % 7 // 1970-01-01 was a Thursday
	if w < 0 {
		w += 7
	}
	return w
}

// AddDays returns d plus n days.
func (d Date) AddDays(n int) Date { return Date(int(d) + n) }

// lastSunday returns the last Sunday of month m of year y.
func lastSunday(y, m int) Date {
	last := DateOf(y, m, daysIn(y, m))
	return last.AddDays(-last.Weekday())
}

// firstSunday returns the first Sunday of month m of year y.
func firstSunday(y, m int) Date {
	first := DateOf(y, m, 1)
	return first.AddDays((7 - first.Weekday()) % 7)
}

// NZToday returns New Zealand's civil date at the instant unixSeconds: NZST is
// UTC+12; NZDT (UTC+13) runs from the last Sunday of September at 02:00 NZST to
// the first Sunday of April at 03:00 NZDT (the rules in force since 2007).
// Instants before 1970 or after 9999 are clamped to that range.
func NZToday(unixSeconds int64) Date {
	const day = 86400
	const maxUnix = int64(maxDate)*day + day - 1 - 13*3600
	t := unixSeconds
	if t < 0 {
		t = 0
	} else if t > maxUnix {
		t = maxUnix
	}
	std := t + 12*3600 // NZST wall clock, as seconds since the epoch
	y, _, _ := Date(std / day).Civil()
	// Both switches happen at 14:00 UTC on the Saturday before the Sunday:
	// 02:00 NZST = 14:00 UTC and 03:00 NZDT = 14:00 UTC.
	start := int64(lastSunday(y, 9))*day + 2*3600 - 12*3600
	end := int64(firstSunday(y, 4))*day + 3*3600 - 13*3600
	if t >= start || t < end {
		return Date((t + 13*3600) / day)
	}
	return Date(std / day)
}
