package api

import (
	"math/bits"
	"math/rand"
	"testing"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/rental"
)

// refStop is queryStops' answer found a byte at a time: the index of the first '&',
// '=', '%' or '+' among x's eight bytes, or 8.
func refStop(b []byte) int {
	for i, c := range b {
		if c == '&' || c == '=' || c == '%' || c == '+' {
			return i
		}
	}
	return 8
}

func TestQueryStops(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	alphabet := []byte("&=%+a1_-.,Z\x00\x01\x25\x26\x2a\x2c\x3c\x3e\x7f\x80\xa6\xbd\xc3\xff")
	check := func(b []byte) {
		m := queryStops(bytebuf.Load64(string(b), 0))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if want := refStop(b); got != want {
			t.Fatalf("%q: first stop %d, want %d (mask %#x)", b, got, want, m)
		}
		for j, c := range b { // parse visits every mark: none of the four may go unmarked
			if (c == '&' || c == '=' || c == '%' || c == '+') && m>>(8*j+7)&1 == 0 {
				t.Fatalf("%q: byte %d (%q) not marked (mask %#x)", b, j, c, m)
			}
		}
	}
	for c := 0; c < 256; c++ { // every byte at every place, the others plain or each byte too
		for at := 0; at < 8; at++ {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			check(b)
			for d := 0; d < 256; d += 5 {
				b2 := append([]byte(nil), b...)
				b2[(at+3)%8] = byte(d)
				check(b2)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		b := make([]byte, 8)
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		check(b)
	}
}

// TestQueryParseWordwise holds parse, which reads eight bytes at a time, to the same
// pass a byte at a time (refParse: parse as it was) on random queries made of the
// bytes that matter and some that do not.
func TestQueryParseWordwise(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	// the bytes queryStops may mark wrongly after a stop ('\'', '<', '$', '*') among them
	pieces := []string{"&", "=", "%", "+", "%2C", "%zz", "a", "b", "pick_up_date", "2027-03-08", "vehicle_id", "1", "\xc3\xa9", "_", "==", "&&",
		"'", "<", "$", "*", "&''", "=<<", "%$", "+*"}
	for i := 0; i < 200000; i++ {
		var raw string
		for n := r.Intn(24); n > 0; n-- {
			raw += pieces[r.Intn(len(pieces))]
		}
		var got, want query
		ge, we := got.parse(raw), refParse(&want, raw)
		if (ge == nil) != (we == nil) || (ge != nil && (ge.Param != we.Param || ge.Message != we.Message)) {
			t.Fatalf("%q: error %v, byte at a time %v", raw, ge, we)
		}
		if ge != nil {
			continue
		}
		if got.n != want.n {
			t.Fatalf("%q: %d pairs, byte at a time %d", raw, got.n, want.n)
		}
		for j := 0; j < got.n; j++ {
			if got.p[j].key != want.p[j].key || got.p[j].val != want.p[j].val {
				t.Fatalf("%q: pair %d %q=%q, byte at a time %q=%q", raw, j, got.p[j].key, got.p[j].val, want.p[j].key, want.p[j].val)
			}
			if v, ok := got.get(got.p[j].key); v != got.p[j].val || ok != (v != "") {
				t.Fatalf("%q: get(%q) = %q, %v", raw, got.p[j].key, v, ok)
			}
		}
		if _, ok := got.get("no_such_parameter"); ok {
			t.Fatalf("%q: get of an absent key found it", raw)
		}
	}
}

// refParse is parse a byte at a time, as it was before it read words.
func refParse(q *query, raw string) *rental.Error {
	q.n = 0
	q.buf = q.buf[:0]
	start, eq, esc := 0, -1, false
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '&':
			if i > start {
				if e := q.add(raw[start:i], eq-start, esc); e != nil {
					return e
				}
			}
			start, eq, esc = i+1, -1, false
		case '=':
			if eq < 0 {
				eq = i
			}
		case '%', '+':
			esc = true
		}
	}
	if len(raw) > start {
		return q.add(raw[start:], eq-start, esc)
	}
	return nil
}
