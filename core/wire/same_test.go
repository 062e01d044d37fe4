package wire

import "testing"

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
