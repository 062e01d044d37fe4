package jsonw

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/internal/buftest"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/shopspring/decimal"
)

// TestMoneyAtMatchesDecimal: MoneyAt is AppendMoney at an index, defined the same way
// (shopspring/decimal's exact rendering of cents as NZD), and fits MaxMoney.
func TestMoneyAtMatchesDecimal(t *testing.T) {
	check := func(c int64) {
		got := buftest.Exact(t, MaxMoney, func(buf []byte, n int) int { return MoneyAt(buf, n, c) })
		if want := decimal.New(c, -2).String(); got != want {
			t.Fatalf("MoneyAt(%d) = %q, want %q", c, got, want)
		}
	}
	for c := int64(-100_000); c <= 1_000_000; c++ {
		check(c)
	}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 200_000; i++ {
		c := r.Int63() >> uint(r.Intn(63))
		check(c)
		check(-c)
	}
	for _, c := range []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 32 * 100, -(1 << 32) * 100} {
		check(c)
	}
	// With room for exactly the text, under 8 bytes: the word path cannot store its
	// eight, and moneyAt writes it.
	for c := int64(0); c < 1_000_000; c += 7 {
		want := decimal.New(c, -2).String()
		if got := buftest.Exact(t, len(want), func(buf []byte, n int) int { return MoneyAt(buf, n, c) }); got != want {
			t.Fatalf("MoneyAt(%d) with %d bytes of room = %q", c, len(want), got)
		}
	}
}

// TestMoneyWord: the word path's text and length, every amount it takes.
func TestMoneyWord(t *testing.T) {
	var b [8]byte
	for c := uint32(0); c < 1_000_000; c++ {
		w, n := moneyWord(c)
		bytebuf.Store64(b[:], w)
		if want := decimal.New(int64(c), -2).String(); string(b[:n]) != want {
			t.Fatalf("moneyWord(%d) = %q, want %q", c, b[:n], want)
		}
	}
}

// TestIntAtMatchesStrconv: IntAt writes strconv's decimal form and fits MaxInt.
func TestIntAtMatchesStrconv(t *testing.T) {
	check := func(v int64) {
		got := buftest.Exact(t, MaxInt, func(buf []byte, n int) int { return IntAt(buf, n, v) })
		if want := strconv.FormatInt(v, 10); got != want {
			t.Fatalf("IntAt(%d) = %q, want %q", v, got, want)
		}
	}
	for v := int64(-10_000); v <= 200_000; v++ {
		check(v)
	}
	for p := int64(1); p > 0 && p < math.MaxInt64/10; p *= 10 {
		check(p - 1)
		check(p)
		check(-p)
	}
	for _, v := range []int64{1<<32 - 1, 1 << 32, math.MaxInt32, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(v)
	}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 100_000; i++ {
		v := r.Int63() >> uint(r.Intn(63))
		check(v)
		check(-v)
	}
}

// TestCursorNeverTruncates: a writer without room panics instead of writing part.
func TestCursorNeverTruncates(t *testing.T) {
	for name, write := range map[string]func(buf []byte, n int) int{
		"PutAt":   func(buf []byte, n int) int { return bytebuf.PutAt(buf, n, strings.Repeat("x", 20)) },
		"PutAt 5": func(buf []byte, n int) int { return bytebuf.PutAt(buf, n, "12345") },
		"IntAt":   func(buf []byte, n int) int { return IntAt(buf, n, 1234567) },
		"IntAt64": func(buf []byte, n int) int { return IntAt(buf, n, math.MinInt64) },
		"MoneyAt": func(buf []byte, n int) int { return MoneyAt(buf, n, 123456) },
		"ByteAt":  func(buf []byte, n int) int { return bytebuf.ByteAt(buf, n, 'x') },
		"CopyAt":  func(buf []byte, n int) int { return bytebuf.CopyAt(buf, n, []byte(strings.Repeat("x", 20))) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s into a buffer one byte short did not panic", name)
				}
			}()
			full := write(make([]byte, 64), 0)
			write(make([]byte, full-1), 0)
		}()
	}
}

// TestJSONStringAtMatchesAppend: JSONStringAt writes AppendJSONString's bytes and fits
// MaxJSONString, for every byte value and the strings of the catalog's kind.
func TestJSONStringAtMatchesAppend(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f",
		"</script><b>&amp;", "Māori: Tāmaki Makaurau", "emoji 🚐", string(all), strings.Repeat("\x01", 50)} {
		got := buftest.Exact(t, MaxJSONString(len(s)), func(buf []byte, n int) int { return JSONStringAt(buf, n, s) })
		if want := string(AppendJSONString(nil, s)); got != want {
			t.Fatalf("JSONStringAt(%q) = %s, want %s", s, got, want)
		}
	}
}
