package text

import (
	"strconv"
	"testing"
)

var parseCases = []string{"", "0", "-0", "+0", "1", "+1", "-1", "42", "007", "1_000", "0x10", " 1", "1 ", "+", "-", "--1",
	"+-1", "1e3", "1.0", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "99999999999999999999", "922337203685477580", "9223372036854775799",
	"t", "T", "TRUE", "true", "True", "tRUE", "f", "F", "FALSE", "false", "False", "fALSE", "yes", "no", "١"}

func TestParseIntMatchesStrconv(t *testing.T) {
	check := func(s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := ParseInt(s)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("ParseInt(%q) = %d, %v; strconv: %d, %v", s, got, ok, want, err)
		}
		wb, err := strconv.ParseBool(s)
		gb, ok := ParseBool(s)
		if ok != (err == nil) || gb != wb {
			t.Errorf("ParseBool(%q) = %v, %v; strconv: %v, %v", s, gb, ok, wb, err)
		}
	}
	for _, s := range parseCases {
		check(s)
	}
	for n := int64(1); n > 0 && n < 1<<62; n = n*3 + 1 {
		check(strconv.FormatInt(n, 10))
		check(strconv.FormatInt(-n, 10))
	}
}

func FuzzParseIntMatchesStrconv(f *testing.F) {
	for _, s := range parseCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := strconv.ParseInt(s, 10, 64)
		if got, ok := ParseInt(s); ok != (err == nil) || ok && got != want {
			t.Fatalf("ParseInt(%q) = %d, %v; strconv: %d, %v", s, got, ok, want, err)
		}
	})
}

// Digits at the edges of max: a max below 9, and max = MaxInt64, where n*10 would wrap
// (the fuzz target found "21000000000000000000" read as 2553255926290448384).
func TestDigitsBounds(t *testing.T) {
	for _, c := range []struct {
		s   string
		max int64
		n   int64
		ok  bool
	}{
		{"5", 5, 5, true}, {"7", 5, 0, false}, {"0", 0, 0, true}, {"1", 0, 0, false}, {"10", 9, 1, false},
		{"2147483647", 1<<31 - 1, 1<<31 - 1, true}, {"2147483648", 1<<31 - 1, 214748364, false},
		{"9223372036854775807", 1<<63 - 1, 1<<63 - 1, true}, {"9223372036854775808", 1<<63 - 1, 922337203685477580, false},
		{"21000000000000000000", 1<<63 - 1, 2100000000000000000, false},
	} {
		if n, ok := Digits(c.s, c.max); n != c.n || ok != c.ok {
			t.Errorf("Digits(%q, %d) = %d, %v; want %d, %v", c.s, c.max, n, ok, c.n, c.ok)
		}
	}
}
