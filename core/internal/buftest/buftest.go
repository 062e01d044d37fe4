// Package buftest holds what the tests of the writers at an index (core/bytebuf,
// core/jsonw's cursor writers) share. Only tests import it.
package buftest

import "testing"

// Exact runs write into a buffer with exactly max bytes of room after a prefix, and
// returns what it wrote; a write past the room panics (the test fails).
func Exact(t *testing.T, max int, write func(buf []byte, n int) int) string {
	t.Helper()
	buf := make([]byte, 3+max)
	copy(buf, "pre")
	n := write(buf, 3)
	if n < 3 || n > len(buf) {
		t.Fatalf("returned index %d outside [3, %d]", n, len(buf))
	}
	if string(buf[:3]) != "pre" {
		t.Fatalf("overwrote the bytes before n: %q", buf[:3])
	}
	return string(buf[3:n])
}
