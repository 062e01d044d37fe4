package jsonw

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
)

// TestAppendMoneyMatchesDecimal: the appender is defined as shopspring/decimal's exact
// conversion of cents to NZD; it must agree on every value we can produce.
func TestAppendMoneyMatchesDecimal(t *testing.T) {
	check := func(c int64) {
		got := string(AppendMoney(nil, c))
		want := decimal.New(c, -2).String()
		if got != want {
			t.Fatalf("AppendMoney(%d) = %q, want %q", c, got, want)
		}
	}
	for c := int64(-100_000); c <= 1_000_000; c++ {
		check(c)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200_000; i++ {
		check(r.Int63() >> uint(r.Intn(63)))
	}
	check(math.MaxInt64)
	check(math.MinInt64 + 1)
	check(math.MinInt64)
}

func TestAppendInt(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 9, 10, 99, 100, 1234567890, math.MaxInt64, math.MinInt64} {
		var want string
		b, _ := json.Marshal(n)
		want = string(b)
		if got := string(AppendInt(nil, n)); got != want {
			t.Errorf("AppendInt(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f",
		"</script><b>&amp;", "Māori: Tāmaki Makaurau", "emoji 🚐"} {
		b := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("AppendJSONString(%q) = %s: invalid JSON: %v", s, b, err)
			continue
		}
		if back != s {
			t.Errorf("AppendJSONString(%q) round-trips to %q", s, back)
		}
	}
	if got := string(AppendJSONString(nil, "<a>&")); got != `"\u003ca\u003e\u0026"` {
		t.Errorf("HTML-significant characters not escaped: %s", got)
	}
}

func BenchmarkAppendMoney(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendMoney(buf[:0], int64(i)*37)
	}
}

func TestAppendIntMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	check := func(n int64) {
		if got, want := string(AppendInt(nil, n)), strconv.FormatInt(n, 10); got != want {
			t.Fatalf("AppendInt(%d) = %q, want %q", n, got, want)
		}
	}
	for n := int64(-1000); n <= 100000; n++ {
		check(n)
	}
	for _, n := range []int64{1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<31 - 1, 1 << 31, -(1 << 31), -(1 << 32)} {
		check(n)
	}
	for i := 0; i < 200000; i++ {
		check(r.Int63() >> uint(r.Intn(63)))
		check(-(r.Int63() >> uint(r.Intn(63))))
	}
}

// TestAppendIntInPlace: the digits written in place into a buffer with room equal
// strconv's, at every digit count of 32 bits and around every power of ten.
func TestAppendIntInPlace(t *testing.T) {
	buf := make([]byte, 0, 64)
	for p := int64(1); p <= 1<<33; p *= 10 {
		for _, n := range []int64{p - 1, p, p + 1, 2*p - 1, 9 * p, 1<<32 - 1, 1 << 32} {
			buf = append(buf[:0], '[')
			got := AppendInt(buf, n)
			if want := "[" + strconv.FormatInt(n, 10); string(got) != want {
				t.Fatalf("AppendInt([, %d) = %q, want %q", n, got, want)
			}
		}
	}
}
