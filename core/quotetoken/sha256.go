package quotetoken

import "encoding/binary"

// SHA-256 (FIPS 180-4), written here rather than taken from crypto/sha256 and
// crypto/hmac: under TinyGo (0.41, wasip1) those allocate on every use, measured with
// runtime.MemStats in a wasip1 build: hmac.New(sha256.New, key) reused with
// Reset/Write/Sum 4 allocations per signature, a reused sha256.New() 1 per Sum,
// sha256.Sum256 3 per call. Here a signature or a check allocates nothing
// (TestSignVerifyAllocs natively, `make allocs` under TinyGo), and HMAC starts from
// the key's inner and outer states computed once (two compressions fewer per MAC).
// The tests hold this code to crypto/sha256 and crypto/hmac on random inputs.

const blockSize = 64

var init256 = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// digest is a running SHA-256.
type digest struct {
	h   [8]uint32
	buf [blockSize]byte
	n   int    // bytes waiting in buf
	len uint64 // bytes written in all
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
