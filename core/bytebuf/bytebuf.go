// Package bytebuf writes into byte buffers, below every other package of core:
// appenders (Put, PutByte, PutU32, ...), which grow their buffer when it is short, and
// cursor writers (PutAt, BytesAt, ShortAt, ...), which write at an index into room
// made beforehand (Room) and never allocate; Push, append for the slices a request
// refills; and the little-endian word loads and stores they are made of. It imports
// nothing of the project.
package bytebuf

import "unsafe"

// Put, PutByte and PutU32 are append for the short pieces an answer is made of,
// without the call to TinyGo's runtime.sliceAppend that every append compiles to, and
// for up to 16 bytes without its copy: a wasm memory.copy, which V8 runs as a call out
// to C. A string of up to 16 bytes is copied with at most two overlapping word loads
// and stores in straight-line code (a byte loop would be turned back into memory.copy
// by LLVM), a longer one with copy. A b without room grows first; the buffers of an
// answer are kept between requests, so after the first few they have room.

// Put appends s to b: PutAt after making room.
//
//go:inline
func Put(b []byte, s string) []byte {
	n, m := len(b), len(s)
	if cap(b)-n < m {
		b = grow(b, m)
	}
	return b[:PutAt(b[:cap(b)], n, s)]
}

// PutBytes appends p to b (Put for a byte slice; p may be part of b before len(b)).
func PutBytes(b []byte, p []byte) []byte { return Put(b, bytesString(p)) }

// bytesString returns b as a string without copying (text.BytesString, which this
// package sits below).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// PutByte appends c to b.
func PutByte(b []byte, c byte) []byte {
	n := len(b)
	if n == cap(b) {
		b = grow(b, 1)
	}
	b = b[:n+1]
	b[n] = c
	return b
}

// PutU32 appends v as 4 little-endian bytes.
//
//go:inline
func PutU32(b []byte, v uint32) []byte {
	n := len(b)
	if cap(b)-n < 4 {
		b = grow(b, 4)
	}
	b = b[:n+4]
	Store32(b[n:], v)
	return b
}

// Room returns b with room for at least n more bytes after len(b), growing it at most
// once.
func Room(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		return grow(b, n)
	}
	return b
}

// grow returns b with room for m more bytes: make and copy, not append, whose growth
// TinyGo cannot evaluate at compile time (math/bits.Len), which would move package
// initialisers that use it (core/api's bundled answers) to run time.
func grow(b []byte, m int) []byte {
	nb := make([]byte, len(b), 2*cap(b)+m)
	copy(nb, b)
	return nb
}

// Push appends v to s in place when s has room, and through append otherwise: under
// TinyGo every append is a call to runtime.sliceAppend, and the slices a request fills
// are kept between requests with room to spare.
//
//go:inline
func Push[T any](s []T, v T) []T {
	if n := len(s); n < cap(s) {
		s = s[:n+1]
		s[n] = v
		return s
	}
	return append(s, v)
}
