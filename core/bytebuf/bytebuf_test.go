package bytebuf

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/internal/buftest"
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

// TestShortAt: MakeShort takes 0 to 16 bytes and refuses 17; ShortAt writes the piece
// whole, leaves the bytes before n, and panics with less than 16 bytes of room.
func TestShortAt(t *testing.T) {
	src := []byte("0123456789abcdefg")
	for m := 0; m <= 16; m++ {
		s, ok := MakeShort(src[:m])
		if !ok || s.Len() != m {
			t.Fatalf("MakeShort of %d bytes: ok %v, Len %d", m, ok, s.Len())
		}
		if got := buftest.Exact(t, 16, func(buf []byte, n int) int { return ShortAt(buf, n, &s) }); got != string(src[:m]) {
			t.Fatalf("ShortAt of %q wrote %q", src[:m], got)
		}
	}
	if s, ok := MakeShort(src); ok || s.Len() != 0 {
		t.Fatalf("MakeShort of 17 bytes: ok %v, Len %d", ok, s.Len())
	}
	s, _ := MakeShort([]byte("12"))
	defer func() {
		if recover() == nil {
			t.Fatal("ShortAt with 15 bytes of room did not panic")
		}
	}()
	ShortAt(make([]byte, 18), 3, &s)
}

// TestShortOrBytesAt: the Short when it holds the piece (0 to 16 bytes), the bytes
// themselves when MakeShort refused them (17 and more).
func TestShortOrBytesAt(t *testing.T) {
	src := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for m := 0; m <= len(src); m++ {
		s, _ := MakeShort(src[:m])
		if got := buftest.Exact(t, max(m, 16), func(buf []byte, n int) int { return ShortOrBytesAt(buf, n, &s, src[:m]) }); got != string(src[:m]) {
			t.Fatalf("ShortOrBytesAt of %q wrote %q", src[:m], got)
		}
	}
}

// TestPutAtEveryLength: each of PutAt's paths (0-3, 4-7, 8-16, longer) writes exactly
// s, CopyAt too, and BytesAt copies from earlier in the same buffer.
func TestPutAtEveryLength(t *testing.T) {
	src := "0123456789abcdefghijklmnopqrstuvwxyz!"
	for m := 0; m <= len(src); m++ {
		s := src[:m]
		if got := buftest.Exact(t, m, func(buf []byte, n int) int { return PutAt(buf, n, s) }); got != s {
			t.Fatalf("PutAt(%q) wrote %q", s, got)
		}
		if got := buftest.Exact(t, m, func(buf []byte, n int) int { return CopyAt(buf, n, []byte(s)) }); got != s {
			t.Fatalf("CopyAt(%q) wrote %q", s, got)
		}
		buf := make([]byte, 2*m+1)
		copy(buf, s)
		if n := BytesAt(buf, m, buf[:m]); n != 2*m || string(buf[m:n]) != s {
			t.Fatalf("BytesAt of the buffer's own first %d bytes wrote %q", m, buf[m:n])
		}
	}
	if got := buftest.Exact(t, 1, func(buf []byte, n int) int { return ByteAt(buf, n, 'x') }); got != "x" {
		t.Fatalf("ByteAt wrote %q", got)
	}
}

// TestRoom: Room leaves b's bytes and grows only when the room is short.
func TestRoom(t *testing.T) {
	b := make([]byte, 3, 10)
	copy(b, "abc")
	if r := Room(b, 7); &r[0] != &b[0] || len(r) != 3 {
		t.Fatalf("Room with enough room moved or resized b")
	}
	r := Room(b, 8)
	if len(r) != 3 || cap(r)-len(r) < 8 || string(r) != "abc" {
		t.Fatalf("Room(b, 8) = len %d cap %d %q", len(r), cap(r), r)
	}
}

// TestPush: Push is append, in place while the slice has room.
func TestPush(t *testing.T) {
	s := make([]int, 0, 2)
	s = Push(s, 1)
	s = Push(s, 2)
	if len(s) != 2 || cap(s) != 2 || s[0] != 1 || s[1] != 2 {
		t.Fatalf("Push into room: %v (cap %d), want [1 2] in the same array", s, cap(s))
	}
	full := s
	s = Push(s, 3)
	if len(s) != 3 || s[2] != 3 || &s[0] == &full[0] {
		t.Fatalf("Push past cap: %v, want [1 2 3] in a new array", s)
	}
	kept := s[:1]
	kept = Push(kept, 9) // room: overwrites s[1], as append would
	if s[1] != 9 || kept[1] != 9 {
		t.Fatalf("Push into a shorter view of s: s %v, kept %v, want s[1] = 9 as append gives", s, kept)
	}
}
