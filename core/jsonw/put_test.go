package jsonw

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// TestPutMatchesAppend: Put, PutBytes, PutByte and PutU32 give what append gives, for
// every length up to 320 (each branch: 1-3, 4-7, 8-16, longer), into a buffer
// with room and one without, leaving the bytes before untouched.
func TestPutMatchesAppend(t *testing.T) {
	src := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCD", 8)
	for _, room := range []int{0, 64} {
		for m := 0; m <= len(src); m++ {
			s := src[len(src)-m:]
			b := append(make([]byte, 0, 5+room*5), "head:"...)
			got := Put(b, s)
			if want := "head:" + s; string(got) != want {
				t.Fatalf("Put(room %d, %q) = %q, want %q", room, s, got, want)
			}
			if room > 0 && &got[0] != &b[:1][0] {
				t.Fatalf("Put(room %d, %d bytes) moved the buffer", room, m)
			}
			if got := PutBytes(b, []byte(s)); string(got) != "head:"+s {
				t.Fatalf("PutBytes(room %d, %q) = %q", room, s, got)
			}
		}
	}
	// PutBytes of a part of b itself (appendFees copies the rental fee's digits).
	b := append(make([]byte, 0, 64), "2943.5,"...)
	if got := PutBytes(b, b[:6]); string(got) != "2943.5,2943.5" {
		t.Fatalf("PutBytes of itself = %q", got)
	}
	b = append(make([]byte, 0, 8), "20,"...)
	if got := PutBytes(b, b[:2]); string(got) != "20,20" {
		t.Fatalf("PutBytes of itself with little room = %q", got)
	}
	for _, room := range []int{0, 1, 8} {
		b := append(make([]byte, 0, 2+room), "ab"...)
		if got := PutByte(b, 'c'); string(got) != "abc" {
			t.Fatalf("PutByte(room %d) = %q", room, got)
		}
		if got := PutU32(b, 0x04030201); !bytes.Equal(got, binary.LittleEndian.AppendUint32([]byte("ab"), 0x04030201)) {
			t.Fatalf("PutU32(room %d) = %v", room, got)
		}
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
