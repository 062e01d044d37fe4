package text

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
