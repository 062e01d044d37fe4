package quotetoken

import (
	"bytes"
	"encoding/base64"
	"math/rand"
	"testing"
)

// TestAppendBase64 holds appendBase64 to encoding/base64's RawURLEncoding: every
// length from 0 to 300, random bytes and the bytes that give each of the 64
// characters, after a prefix and into slices with and without room.
func TestAppendBase64(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	all := make([]byte, 0, 48) // the sextets 0..63 in order: every character once
	for k := 0; k < 64; k += 4 {
		v := uint32(k)<<18 | uint32(k+1)<<12 | uint32(k+2)<<6 | uint32(k+3)
		all = append(all, byte(v>>16), byte(v>>8), byte(v))
	}
	if got, want := string(appendBase64(nil, all)), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"; got != want {
		t.Fatalf("the 64 characters: %q, want %q", got, want)
	}
	for n := 0; n <= 300; n++ {
		for _, src := range [][]byte{randomBytes(r, n), bytes.Repeat([]byte{0xff}, n), make([]byte, n), all[:min(n, len(all))]} {
			want := base64.RawURLEncoding.AppendEncode([]byte("id:"), src)
			for _, room := range []int{0, 1, 7, 8, 200} {
				dst := append(make([]byte, 0, 3+room), "id:"...)
				if got := appendBase64(dst, src); !bytes.Equal(got, want) {
					t.Fatalf("%d bytes %x, room %d: %q, want %q", len(src), src, room, got, want)
				}
			}
		}
	}
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	r.Read(b)
	return b
}

func FuzzAppendBase64(f *testing.F) {
	f.Add([]byte{}, 0)
	f.Add([]byte{0xfb, 0xff, 0xbf}, 3)
	f.Fuzz(func(t *testing.T, src []byte, room int) {
		room = max(0, min(room, 64))
		want := base64.RawURLEncoding.AppendEncode([]byte("x"), src)
		if got := appendBase64(append(make([]byte, 0, 1+room), 'x'), src); !bytes.Equal(got, want) {
			t.Fatalf("%x: %q, want %q", src, got, want)
		}
	})
}
