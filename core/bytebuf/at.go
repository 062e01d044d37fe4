package bytebuf

// The cursor writers, for the hot loops of an answer (a search's offers, a quote's
// lines): the loop first makes room for all it will write (Room, the one call that may
// allocate), then writes at an index into the buffer's whole capacity, each writer
// returning the index after what it wrote.
//
// Why not the appenders: they may grow their buffer, so they may allocate, and under
// TinyGo every function that may allocate, and every caller of one that holds a
// pointer, pushes a frame on the collector's stack chain at each call (transform/gc.go
// places frames by "may allocate", without liveness). They also return a slice, which
// wasm gets back through memory. The frame and the result are loads and stores to
// linear memory, each bounds-checked by workerd's V8. A cursor writer never allocates
// and returns an int: TinyGo gives it no frame, nor a loop that only calls cursor
// writers.
//
// A writer that outgrows its room panics (an index out of range, a trap the glue answers
// with a 500 and a new instance); it never truncates. The callers size their room from
// the lengths they write and the Max* bounds of package jsonw; their tests render the largest
// values.

// PutAt writes s at buf[n:] and returns n + len(s): up to 16 bytes with at most two
// overlapping word loads and stores, longer with copy (Put says why).
//
//go:inline
func PutAt(buf []byte, n int, s string) int { return putAt(buf, n, s) }

// BytesAt writes p at buf[n:] and returns n + len(p); p may lie in buf before n. It is
// PutAt for a byte slice, instantiated rather than called through BytesString: that
// conversion may panic, which would give the wrapper a collector frame.
//
//go:inline
func BytesAt(buf []byte, n int, p []byte) int { return putAt(buf, n, p) }

// CopyAt writes p at buf[n:] with copy (memory.copy) and returns n + len(p): BytesAt
// for pieces that are always longer than its word paths (a vehicle's parts, a booking
// link), small enough to be inlined into the writer's loop where BytesAt, with its
// cases, is a call.
//
//go:inline
func CopyAt(buf []byte, n int, p []byte) int { return n + copy(buf[n:n+len(p)], p) }

// Short is a piece of at most 16 bytes held as two little-endian words, for ShortAt:
// a piece a loop writes many times (a vehicle's id and the end of its offer, the
// search's days and the name after them), which BytesAt would copy through a call and
// its cases by length.
type Short struct {
	w0, w1 uint64
	n      int
}

// MakeShort returns p as a Short, and false (and an empty Short) when p is longer than
// 16 bytes.
func MakeShort(p []byte) (Short, bool) {
	if len(p) > 16 {
		return Short{}, false
	}
	var b [16]byte
	copy(b[:], p)
	return Short{w0: Load64(b[:], 0), w1: Load64(b[:], 8), n: len(p)}, true
}

// Len returns the length of s.
func (s *Short) Len() int { return s.n }

// ShortAt writes s at buf[n:] with two 8-byte stores and returns n + s.Len(). It
// writes 16 bytes: buf must have 16 bytes of room at n, and what follows s there is
// overwritten (the caller's room has 16 bytes to spare). The stores go through unsafe
// (st64), so each is one store in every caller; MakeShort's words assume a
// little-endian host, as the module and the tests' hosts are.
//
//go:inline
func ShortAt(buf []byte, n int, s *Short) int {
	d := buf[n : n+16 : n+16]
	st64(d, s.w0)
	st64(d[8:], s.w1)
	return n + s.n
}

// ShortOrBytesAt writes p at buf[n:]: as ShortAt(s) when s holds p (MakeShort took
// it: s.Len() == len(p)), else as BytesAt. The same room rule as ShortAt.
//
//go:inline
func ShortOrBytesAt(buf []byte, n int, s *Short, p []byte) int {
	if s.n == len(p) {
		return ShortAt(buf, n, s)
	}
	return BytesAt(buf, n, p)
}

func putAt[S byteString](buf []byte, n int, s S) int {
	m := len(s)
	d := buf[n : n+m]
	switch {
	case m > 16:
		copy(d, s)
	case m >= 8:
		t := d[m-8:] // every bounds check before the loads, so each word is one load and one store
		w0, w1 := Load64(s, 0), Load64(s, m-8)
		Store64(d, w0)
		Store64(t, w1)
	case m >= 4:
		t := d[m-4:]
		w0, w1 := Load32(s, 0), Load32(s, m-4)
		Store32(d, w0)
		Store32(t, w1)
	case m > 0:
		d[0], d[m>>1], d[m-1] = s[0], s[m>>1], s[m-1]
	}
	return n + m
}

// ByteAt writes c at buf[n] and returns n + 1.
func ByteAt(buf []byte, n int, c byte) int {
	buf[n] = c
	return n + 1
}
