package bytebuf

import "unsafe"

type byteString interface{ string | []byte }

// Load64, Load32 and Load16 read the little-endian word of s at i, Store64, Store32
// and Store16 store one at d[0:] (one load or store once compiled). The inline
// directive (TinyGo) makes them part of their callers: at -opt s they would stay calls.
//
//go:inline
func Load64[S byteString](s S, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

//go:inline
func Load32[S byteString](s S, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

//go:inline
func Store32(d []byte, v uint32) {
	_ = d[3]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

//go:inline
func Store64(d []byte, v uint64) {
	_ = d[7]
	d[0], d[1], d[2], d[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	d[4], d[5], d[6], d[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
}

// st64 stores v at d[0:8] little-endian with one 64-bit store through unsafe, where
// Store64's byte stores may stay eight stores, each bounds-checked by workerd's V8.
// Unaligned, and fine so (wasm, amd64 and arm64 store a word at any address); the
// module and the tests' hosts are little-endian.
//
//go:inline
func st64(d []byte, v uint64) {
	*(*uint64)(unsafe.Pointer(&d[:8:8][0])) = v
}

//go:inline
func Load16(s string, i uint32) uint32 {
	s = s[i : i+2]
	return uint32(s[0]) | uint32(s[1])<<8
}

//go:inline
func Store16(d []byte, v uint32) {
	_ = d[1]
	d[0], d[1] = byte(v), byte(v>>8)
}
