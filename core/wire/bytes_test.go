package wire

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestAppendHex64 holds AppendHex64 (eight digits a word, session 29) to fmt's %016x: every
// digit in every place, the extremes and random values, after a prefix, into slices
// with and without room.
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
