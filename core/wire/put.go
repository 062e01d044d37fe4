package wire

import "unsafe"

// Put, PutByte and PutU32 are append for the short pieces an answer is made of, without
// the call to TinyGo's runtime.sliceAppend that every append compiles to (a shadow-stack
// frame, a growth check, its results through memory), and for up to 16 bytes without
// its copy: a wasm memory.copy, which V8 runs as a call out to C (~7-10 ns whatever the
// length, against ~2 ns for a few loads and stores: a wat loop of each under node).
//
// When b has room, a string of up to 16 bytes is copied with at most two overlapping
// 8-byte (or 4-byte, or three 1-byte) loads and stores, in straight-line code (a byte
// loop would be turned back into memory.copy by LLVM); a longer one by copy (an 8-byte
// loop cost more than the call out from ~32 bytes on, and 17-32 byte pieces measured
// the same either way). A b without room grows first (grow); the buffers of an answer
// are kept between requests, so after the first few they always have room. Kept for
// what they take out of the instructions of a request (build/bench/calls.mjs):
// BENCHMARKS.md, "Fewer calls per answer".
// (wasm-dis of a build with names: the short cases are i64 and i32 loads and stores.)

// Put appends s to b: PutAt (cursor.go) after making room.
//
//go:inline
func Put(b []byte, s string) []byte {
	n, m := len(b), len(s)
	if cap(b)-n < m {
		b = grow(b, m)
	}
	return b[:PutAt(b[:cap(b)], n, s)]
}

// grow returns b with room for m more bytes: make and copy, not append, whose growth
// TinyGo's compile-time evaluation of package variables cannot run (math/bits.Len),
// which would leave every package initialiser using it to run time (core/api's
// bundledParts, rendered at compile time).
func grow(b []byte, m int) []byte {
	nb := make([]byte, len(b), 2*cap(b)+m)
	copy(nb, b)
	return nb
}

// PutBytes appends p to b (Put for a byte slice; p may be part of b before len(b)).
func PutBytes(b []byte, p []byte) []byte { return Put(b, BytesString(p)) }

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

// PutU32 appends v as 4 little-endian bytes (the module's ABI).
//
//go:inline
func PutU32(b []byte, v uint32) []byte {
	n := len(b)
	if cap(b)-n < 4 {
		b = grow(b, 4)
	}
	b = b[:n+4]
	put32(b[n:], v)
	return b
}

//go:inline
func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

//go:inline
func put32(d []byte, v uint32) {
	_ = d[3]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// st32 stores v at d[0:4] little-endian with one 32-bit store through unsafe: put32's
// byte stores stay byte stores where LLVM can see that some of v's bytes are
// constants (a header table entry's kind: a byte store and two zero stores, each
// bounds-checked by workerd's V8; session 31). Unaligned, and fine so (wasm, amd64
// and arm64 store a word at any address); the module and the tests' hosts are
// little-endian.
//
//go:inline
func st32(d []byte, v uint32) {
	*(*uint32)(unsafe.Pointer(&d[:4:4][0])) = v
}

// st64 is st32 for a 64-bit word (ShortAt's two stores).
//
//go:inline
func st64(d []byte, v uint64) {
	*(*uint64)(unsafe.Pointer(&d[:8:8][0])) = v
}

//go:inline
func put64(d []byte, v uint64) {
	_ = d[7]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	d[4], d[5], d[6], d[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// Push appends v to s in place when s has room, and through append otherwise: under
// TinyGo every append is a call to runtime.sliceAppend, and the slices a request fills
// (a quote's accessory lines and picks) are kept between requests with room to spare.
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
