package wire

import (
	"errors"
	"fmt"
	"testing"
)

type day int32

func (d day) String() string { return fmt.Sprintf("2026-01-%02d", int(d)) }

func TestSprintfMatchesFmt(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"%s is closed on %s (%s); 100%%", []any{"Auckland", day(3), "Christmas"}},
		{"vehicle_id %d is not a vehicle; %d days, %d, %d", []any{int64(-42), 7, int32(9), uint8(200)}},
		{"%d %d %d %d %d %d %d", []any{int8(-8), int16(-16), uint(1), uint16(16), uint32(32), uint64(1 << 63), int64(-1 << 63)}},
		{"does not start with %q (not an inventory)", []any{"CVIX\x01\"é"}},
		{"error: %s", []any{errors.New("boom")}},
		{"trailing %", nil},
		{"ünïcode %s ✓", []any{"ok"}},
		{"%[1]s: the same %[4]d days from %[2]s to %[3]s", []any{"x", day(2), day(9), 8}},
		{"%[2]d then %d", []any{1, 2, 3}},
	}
	for _, c := range cases {
		want := fmt.Sprintf(c.format, c.args...)
		if got := Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q) = %q, fmt says %q", c.format, got, want)
		}
		if got := Errorf(c.format, c.args...).Error(); got != want {
			t.Errorf("Errorf(%q) = %q, fmt says %q", c.format, got, want)
		}
	}
	// Outside the subset it says so rather than guessing: the test can fail.
	if got := Sprintf("%d and %v and %s", "x", 1); got != "%!d(?) and %!v(?) and %!s(MISSING)" {
		t.Errorf("bad verbs: %q", got)
	}
}

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
