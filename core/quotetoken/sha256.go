package quotetoken

import "encoding/binary"

// SHA-256 (FIPS 180-4), written here rather than taken from crypto/sha256 and
// crypto/hmac: under TinyGo those allocate on every use, even a reused hmac or digest
// (RATIONALE.md: signed quote ids). Here a signature or a check allocates nothing
// (TestSignVerifyAllocs natively, `make allocs` under TinyGo), and HMAC starts from
// the key's inner and outer states computed once (two compressions fewer per MAC).
// The tests hold this code to crypto/sha256 and crypto/hmac on random inputs.

const blockSize = 64

// k256 are the round constants (FIPS 180-4 4.2.2), read by block 16 a turn.
var k256 = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

var init256 = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// digest is a running SHA-256.
type digest struct {
	h   [8]uint32
	w   [16]uint32 // the block compress takes, as words
	buf [blockSize]byte
	n   int    // bytes waiting in buf
	len uint64 // bytes written in all
}

// block runs the compression function over one 64-byte block. The words are read
// here, not with binary.BigEndian.Uint32, which TinyGo at -opt s leaves a call.
func (d *digest) block(p []byte) {
	p = p[:blockSize:blockSize]
	for i := range d.w {
		q := p[4*i : 4*i+4 : 4*i+4]
		d.w[i] = uint32(q[0])<<24 | uint32(q[1])<<16 | uint32(q[2])<<8 | uint32(q[3])
	}
	compress(&d.h, &d.w)
}

func (d *digest) reset(h *[8]uint32, written uint64) {
	d.h, d.n, d.len = *h, 0, written
}

func (d *digest) write(p []byte) {
	d.len += uint64(len(p))
	if d.n > 0 {
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
		if d.n < blockSize {
			return
		}
		d.block(d.buf[:])
		d.n = 0
	}
	for len(p) >= blockSize {
		d.block(p[:blockSize])
		p = p[blockSize:]
	}
	d.n = copy(d.buf[:], p)
}

// finish pads the message and writes the hash into out.
func (d *digest) finish(out *[32]byte) {
	bits := d.len << 3
	d.buf[d.n] = 0x80
	for i := d.n + 1; i < blockSize; i++ {
		d.buf[i] = 0
	}
	if d.n >= blockSize-8 {
		d.block(d.buf[:])
		for i := range d.buf {
			d.buf[i] = 0
		}
	}
	binary.BigEndian.PutUint64(d.buf[blockSize-8:], bits)
	d.block(d.buf[:])
	for i, v := range d.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
}

func rotr(x uint32, n uint) uint32 { return x>>n | x<<(32-n) }
