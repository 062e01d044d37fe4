package text

import (
	"strings"
	"testing"
)

// TestSame holds Same to == for every length to 40, equal strings and strings that
// differ in one byte at every place (or in length).
func TestSame(t *testing.T) {
	base := "pick_up_depot_id=drop_off_depot_id&insurance_id"
	for n := 0; n <= 40; n++ {
		a := base[:n]
		b := string(append([]byte(nil), a...)) // another backing array
		if !Same(a, b) {
			t.Fatalf("Same(%q, copy) = false", a)
		}
		for i := 0; i < n; i++ {
			for _, d := range []byte{1, 0x80, 0xff} {
				c := []byte(a)
				c[i] ^= d
				if Same(a, string(c)) || Same(string(c), a) {
					t.Fatalf("Same(%q, %q) = true", a, c)
				}
			}
		}
		if n > 0 && (Same(a, a[:n-1]) || Same(a[:n-1], a)) {
			t.Fatalf("Same(%q, %q) = true", a, a[:n-1])
		}
	}
}

// TestIndexByte: IndexByte is strings.IndexByte for every length to 40, the byte at
// every place (and twice, and with its neighbours 0x80 apart), and absent.
func TestIndexByte(t *testing.T) {
	for n := 0; n <= 40; n++ {
		base := []byte(strings.Repeat("a/b-c=d&", 6)[:n])
		for _, c := range []byte{'?', 0, 0x80, 0xff, 'a', '/'} {
			check := func(s string) {
				if got, want := IndexByte(s, c), strings.IndexByte(s, c); got != want {
					t.Fatalf("IndexByte(%q, %q) = %d, want %d", s, c, got, want)
				}
			}
			check(string(base))
			for i := 0; i < n; i++ {
				b := append([]byte(nil), base...)
				b[i] = c
				check(string(b))
				for j := i + 1; j < n; j++ {
					b2 := append([]byte(nil), b...)
					b2[j] = c
					check(string(b2))
				}
				b[i] = c ^ 0x80
				check(string(b))
				b[i] = c + 1
				check(string(b))
				b[i] = c - 1
				check(string(b))
			}
		}
	}
}
