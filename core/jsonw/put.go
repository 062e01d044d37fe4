// Package jsonw writes the JSON of answers: appenders (Put, AppendInt, AppendMoney,
// AppendJSONString, ...), which grow their buffer when it is short, and cursor writers
// (PutAt, IntAt, MoneyAt, JSONStringAt, ...), which write at an index into room made
// beforehand and never allocate. Money stays int64 cents until it is written here.
package jsonw

import (
	"unsafe"

	"github.com/campervan/agent-api/core/text"
)

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
func PutBytes(b []byte, p []byte) []byte { return Put(b, text.BytesString(p)) }

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
	put32(b[n:], v)
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

type byteString interface{ string | []byte }

// ld64 and ld32 read the little-endian word of s at i, put64 and put32 store one (one
// load or store once compiled). The inline directive (TinyGo) makes them part of their
// callers: at -opt s they would stay calls.
//
//go:inline
func ld64[S byteString](s S, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

//go:inline
func ld32[S byteString](s S, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

//go:inline
func put32(d []byte, v uint32) {
	_ = d[3]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

//go:inline
func put64(d []byte, v uint64) {
	_ = d[7]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	d[4], d[5], d[6], d[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// st64 stores v at d[0:8] little-endian with one 64-bit store through unsafe, where
// put64's byte stores may stay eight stores, each bounds-checked by workerd's V8.
// Unaligned, and fine so (wasm, amd64 and arm64 store a word at any address); the
// module and the tests' hosts are little-endian.
//
//go:inline
func st64(d []byte, v uint64) {
	*(*uint64)(unsafe.Pointer(&d[:8:8][0])) = v
}

// ld16 returns the two bytes of s at i as a little-endian word.
//
//go:inline
func ld16(s string, i uint32) uint32 {
	s = s[i : i+2]
	return uint32(s[0]) | uint32(s[1])<<8
}

//go:inline
func put16(d []byte, v uint32) {
	_ = d[1]
	d[0], d[1] = byte(v), byte(v>>8)
}
