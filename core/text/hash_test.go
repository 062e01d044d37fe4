package text

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// TestHash64: equal inputs hash equal; any one byte changed, a byte moved, or the
// length changed gives another hash (over every position of a 70-byte body).
func TestHash64(t *testing.T) {
	body := []byte(`[{"vehicleId":5,"name":"Kea 2-Berth","totalAmount":2943.50},{"id":6}]`)
	h0 := Hash64(FNVOffset, string(body))
	if Hash64(FNVOffset, string(append([]byte(nil), body...))) != h0 {
		t.Fatal("the same bytes hash differently")
	}
	seen := map[uint64]string{h0: "original"}
	for i := range body {
		b := append([]byte(nil), body...)
		b[i] ^= 1
		if prev, dup := seen[Hash64(FNVOffset, string(b))]; dup {
			t.Errorf("byte %d flipped collides with %s", i, prev)
		}
		seen[Hash64(FNVOffset, string(b))] = "flip"
		if prev, dup := seen[Hash64(FNVOffset, string(body[:i]))]; dup && i > 0 {
			t.Errorf("prefix %d collides with %s", i, prev)
		}
		seen[Hash64(FNVOffset, string(body[:i]))] = "prefix"
	}
	if Hash64(1, "abc") == Hash64(2, "abc") {
		t.Error("the seed does not change the hash")
	}
	// A body long enough for the four lanes: every byte flipped, and two words of
	// different lanes swapped, give hashes of their own.
	long := make([]byte, 4639)
	for i := range long {
		long[i] = byte('a' + i*7%26)
	}
	hl := Hash64(FNVOffset, string(long))
	seenLong := map[uint64]int{hl: -1}
	for i := range long {
		b := append([]byte(nil), long...)
		b[i] ^= 0x20
		h := Hash64(FNVOffset, string(b))
		if prev, dup := seenLong[h]; dup {
			t.Fatalf("byte %d flipped collides with %d", i, prev)
		}
		seenLong[h] = i
	}
	sw := append([]byte(nil), long...)
	copy(sw[64:72], long[80:88])
	copy(sw[80:88], long[64:72])
	if Hash64(FNVOffset, string(sw)) == hl {
		t.Error("swapping words of two lanes does not change the hash")
	}
}

// TestAppendHex64 holds AppendHex64 to fmt's %016x: every digit in every place, the
// extremes and random values, after a prefix, into slices with and without room.
func TestAppendHex64(t *testing.T) {
	vs := []uint64{0, 1, 9, 10, 15, 16, 0xff, 0x0123456789abcdef, 0xfedcba9876543210, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for place := 0; place < 16; place++ {
		for d := uint64(0); d < 16; d++ {
			vs = append(vs, d<<(4*place), ^(d << (4 * place)))
		}
	}
	r := rand.New(rand.NewSource(29))
	for i := 0; i < 2000; i++ {
		vs = append(vs, r.Uint64())
	}
	for _, v := range vs {
		want := "x" + fmt.Sprintf("%016x", v)
		for _, room := range []int{0, 15, 16, 64} {
			if got := string(AppendHex64(append(make([]byte, 0, 1+room), 'x'), v)); got != want {
				t.Fatalf("AppendHex64(%#x) = %q, want %q", v, got, want)
			}
		}
	}
}

// TestAppendHex64MatchesStrconv: AppendHex64 gives strconv's digits, padded to 16,
// into a slice with room and one without.
func TestAppendHex64MatchesStrconv(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xabcdef, 1<<64 - 1, 0x0123456789abcdef} {
		want := "[" + strconv.FormatUint(v, 16)
		for len(want) < 17 {
			want = "[0" + want[1:]
		}
		for _, b := range [][]byte{[]byte("["), append(make([]byte, 0, 32), '[')} {
			if got := AppendHex64(b, v); string(got) != want {
				t.Fatalf("AppendHex64(%x) = %q, want %q", v, got, want)
			}
		}
	}
}
