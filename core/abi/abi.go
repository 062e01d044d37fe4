// Package abi is the byte interface between the module and its host: the Worker's JS
// glue and the wazero test harness write a request in this form into the module's
// memory, call the exported handle, and read the response back. All integers are
// little endian.
//
//	Request:  u32 len, method | u32 len, target (path?query, or an absolute URL whose
//	          path?query is kept) | u32 n headers, then n x (u32 len, lower-case name |
//	          u32 len, value) | u32 len, body
//	Response: u32 total | u16 status | u16 n headers | u32 body offset | n x (u32 len,
//	          name | u32 len, value) | body (from body offset to total)
//
// Header names starting with ':' are metadata for the shell, never sent to the client
// (":route" is the route pattern, for the request log).
//
// The Worker's module answers in the interned form instead (Response.EncodeInterned,
// hdrtable.go): the same fixed part and body, each header an entry of its table. Only
// core/api and the worker shell use this package.
package abi

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"unsafe"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/text"
)

// Header is one HTTP header; names are lower case.
type Header struct {
	Name, Value string
}

// Request is an HTTP request as core sees it. Its strings may alias the shell's
// buffer: they are valid only during the call to Handle.
type Request struct {
	Method  string
	Target  string // path and query, as on the request line
	Headers []Header
	Body    []byte
	// Now is the host's clock in unix ms when it gives one with the request (the
	// Worker's glue does, so the module makes no call out for it); 0: none given.
	// It is not part of the encoded request.
	Now int64
}

// Header returns the value of the named header (lower case), or "".
//
//go:inline
func (r *Request) Header(name string) string {
	for i := range r.Headers {
		if h := &r.Headers[i]; len(h.Name) == len(name) && text.Same(h.Name, name) { // Same: a word at a time
			return h.Value
		}
	}
	return ""
}

// errShortRequest is returned for a request buffer that does not follow the ABI.
var errShortRequest = errors.New("abi: malformed request buffer")

// DecodeRequest parses an ABI request buffer into r without copying: r's strings
// alias buf. r.Headers is reused. Every field is found by fieldEnd, which returns one
// value (ReadField's three results would come back through memory under TinyGo).
func DecodeRequest(buf []byte, r *Request) error {
	// No closure here: under TinyGo a closure and the variables it captures are heap
	// allocations, three per request.
	e := fieldEnd(buf, 0)
	if e < 0 {
		return errShortRequest
	}
	r.Method = text.BytesString(buf[4:e])
	off := e
	if e = fieldEnd(buf, off); e < 0 {
		return errShortRequest
	}
	r.Target = text.BytesString(originForm(buf[off+4 : e]))
	off = e
	if len(buf)-off < 4 {
		return errShortRequest
	}
	nh := int(ld32(buf, off))
	off += 4
	if nh < 0 || nh > 64 {
		return errShortRequest
	}
	r.Headers = r.Headers[:0]
	for i := 0; i < nh; i++ {
		ne := fieldEnd(buf, off)
		if ne < 0 {
			return errShortRequest
		}
		ve := fieldEnd(buf, ne)
		if ve < 0 {
			return errShortRequest
		}
		// The slice kept from the last request has room: no append call.
		r.Headers = bytebuf.Push(r.Headers, Header{text.BytesString(buf[off+4 : ne]), text.BytesString(buf[ne+4 : ve])})
		off = ve
	}
	if e = fieldEnd(buf, off); e < 0 {
		return errShortRequest
	}
	r.Body = buf[off+4 : e]
	return nil
}

// fieldEnd returns the offset after the u32-length-prefixed field at off (the field is
// buf[off+4:end]), or -1 when buf is too short for it.
//
//go:inline
func fieldEnd(buf []byte, off int) int {
	if off < 0 || len(buf)-off < 4 {
		return -1
	}
	n := int(ld32(buf, off))
	if n < 0 || n > len(buf)-off-4 {
		return -1
	}
	return off + 4 + n
}

// slash is the target of an absolute URL with an empty path.
var slash = []byte{'/'}

// originForm returns the path and query of t when t is an absolute URL
// ("https://host:port/path?query": the JS glue passes request.url whole, which costs
// workerd less than slicing it and encoding the slice), and t itself otherwise (an
// origin-form target, "/path?query", as the native shells and the tests pass).
func originForm(t []byte) []byte {
	if len(t) == 0 || t[0] == '/' {
		return t
	}
	for i := 0; i+2 < len(t); i++ {
		if t[i] == ':' {
			if t[i+1] != '/' || t[i+2] != '/' {
				return t
			}
			// the host, eight bytes at a time
			if j := text.IndexByte(text.BytesString(t[i+3:]), '/'); j >= 0 {
				return t[i+3+j:]
			}
			return slash // a URL's serialization has a path, "/" at least
		}
	}
	return t
}

// ReadField reads one u32-length-prefixed field at off; it returns the field (aliasing
// buf), the offset after it, and false when buf is too short. It is the one reader of
// length-prefixed data of the ABI.
func ReadField(buf []byte, off int) ([]byte, int, bool) {
	e := fieldEnd(buf, off)
	if e < 0 {
		return nil, off, false
	}
	return buf[off+4 : e], e, true
}

// EncodeRequest appends r in the ABI form to dst (used by tests and native shells).
func EncodeRequest(dst []byte, r *Request) []byte {
	dst = AppendField(dst, r.Method)
	dst = AppendField(dst, r.Target)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(r.Headers)))
	for _, h := range r.Headers {
		dst = AppendField(dst, h.Name)
		dst = AppendField(dst, h.Value)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(r.Body)))
	return append(dst, r.Body...)
}

// AppendField appends s as one u32-length-prefixed field of the ABI.
func AppendField(dst []byte, s string) []byte {
	return bytebuf.Put(bytebuf.PutU32(dst, uint32(len(s))), s)
}

// Response is built by Handle and reused between requests: headers are kept already
// encoded in the ABI form, so adding one allocates nothing once the buffers have grown.
//
// Body starts bodyReserve bytes into its buffer (front): EncodeInterned writes the
// headers into the room before it, so the answer goes out without copying its body (an
// availability answer is ~5 KB, the largest calendar ~476 KB).
type Response struct {
	Status int
	Body   []byte
	hdr    []byte
	nhdr   int
	// the blocks SetHeaders added that EncodeInterned may send as hits (1 to
	// maxFixedPairs pairs; the first maxRespBlocks of them), and their offsets in hdr
	fixed  [maxRespBlocks]*Headers
	fixAt  [maxRespBlocks]int
	nfixed int
	out    []byte
	front  []byte
}

// bodyReserve is the room before the body for the interned headers: 12 bytes and ~4
// a header once they are in the shell's table; the first answers, which send the
// pairs, may need more, and are then copied after the headers.
const bodyReserve = 1024

// Reset empties w for the next request, keeping its buffers.
func (w *Response) Reset() {
	w.Status = 0
	if cap(w.Body) > cap(w.front)-bodyReserve { // the body outgrew its place (or none yet)
		w.front = make([]byte, bodyReserve+cap(w.Body))
	}
	w.Body = w.front[bodyReserve:bodyReserve]
	w.hdr = w.hdr[:0]
	w.nhdr = 0
	w.nfixed = 0
}

// maxRespBlocks is how many header blocks of one response EncodeInterned may send as
// hits (an availability answer has three: the inventory version, the rate limit, and
// the common headers with its Cache-Control).
const maxRespBlocks = 4

// bodyInPlace reports whether Body is still at the start of its place in front.
func (w *Response) bodyInPlace() bool {
	return len(w.Body) > 0 && cap(w.Body) == cap(w.front)-bodyReserve && &w.Body[0] == &w.front[bodyReserve]
}

// SetHeader adds a header (lower-case name by convention; each name is added once).
//
//go:inline
func (w *Response) SetHeader(name, value string) {
	w.hdr = AppendField(w.hdr, name)
	w.hdr = AppendField(w.hdr, value)
	w.nhdr++
}

// Headers are header pairs encoded once (NewHeaders), for SetHeaders: a response's
// fixed headers cost one copy instead of four appends each.
type Headers struct {
	enc []byte
	n   int
	// ver names the block's bytes: NewHeaders, Reset, Add and AddInt each take a new
	// one from headerVersions, so two blocks, or one block before and after a change,
	// never share it. EncodeInterned sends a block whose ver is the one its pairs went
	// to the shell with, and whose slots still hold them, as hits without comparing
	// their bytes (hdrtable.go, fixedBlock). A Headers is not to be copied and then
	// changed: the copy would share its bytes and keep its ver.
	ver uint64
	at  int // the HeaderTable.blocks entry it was last recorded in (a hint)
}

// headerVersions counts the versions given to Headers (64 bits: never wraps; atomic
// for the tests' servers in parallel, a plain add in the single-threaded module).
var headerVersions atomic.Uint64

func (h *Headers) changed() { h.ver = headerVersions.Add(1) }

// NewHeaders encodes pairs: name, value, name, value...
func NewHeaders(pairs ...string) Headers {
	var h Headers
	for i := 0; i+1 < len(pairs); i += 2 {
		h.enc = AppendField(AppendField(h.enc, pairs[i]), pairs[i+1])
		h.n++
	}
	h.changed()
	return h
}

// Len returns the number of pairs in h.
func (h *Headers) Len() int { return h.n }

// Reset empties h, keeping its buffer.
func (h *Headers) Reset() {
	h.enc, h.n = h.enc[:0], 0
	h.changed()
}

// Add appends a pair to h.
func (h *Headers) Add(name string, value []byte) {
	h.enc = appendBytesPair(h.enc, name, value)
	h.n++
	h.changed()
}

// appendBytesPair appends the pair name, value in the ABI form.
func appendBytesPair(b []byte, name string, value []byte) []byte {
	return bytebuf.PutBytes(bytebuf.PutU32(AppendField(b, name), uint32(len(value))), value)
}

// AddInt appends a pair whose value is the decimal form of v.
func (h *Headers) AddInt(name string, v int64) {
	h.enc = appendIntPair(h.enc, name, v)
	h.n++
	h.changed()
}

// appendIntPair appends the pair name, and v in decimal, in the ABI form.
func appendIntPair(b []byte, name string, v int64) []byte {
	b = AppendField(b, name)
	at := len(b)
	b = appendDecimal(bytebuf.PutU32(b, 0), v)
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// appendDecimal appends the decimal form of v, its digits written in place from the
// last (a header's number has a few digits; the JSON writers' faster ones are
// jsonw's, which this package sits below).
func appendDecimal(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = bytebuf.PutByte(b, '-')
		u = -u // math.MinInt64 too: its magnitude fits a uint64
	}
	n := 1
	for x := u; x >= 10; x /= 10 {
		n++
	}
	b = bytebuf.Room(b, n)
	at := len(b)
	b = b[:at+n]
	for i := at + n - 1; i >= at; i-- {
		b[i] = byte('0' + u%10)
		u /= 10
	}
	return b
}

// SetHeaders adds the headers of h, in their order.
//
//go:inline
func (w *Response) SetHeaders(h *Headers) {
	if h.n > 0 && h.n <= maxFixedPairs && w.nfixed < maxRespBlocks {
		w.fixed[w.nfixed], w.fixAt[w.nfixed] = h, len(w.hdr)
		w.nfixed++
	}
	w.hdr = bytebuf.PutBytes(w.hdr, h.enc)
	w.nhdr += h.n
}

// SetHeaderInt adds a header whose value is the decimal form of v.
func (w *Response) SetHeaderInt(name string, v int64) {
	w.hdr = appendIntPair(w.hdr, name, v)
	w.nhdr++
}

// Encode returns the response in the ABI form, in a buffer owned by w and valid until
// the next Reset.
func (w *Response) Encode() []byte {
	const fixed = 12
	n := fixed + len(w.hdr) + len(w.Body)
	if cap(w.out) < n {
		w.out = make([]byte, 0, n+n/4)
	}
	out := w.out[:fixed]
	binary.LittleEndian.PutUint32(out[0:], uint32(n))
	binary.LittleEndian.PutUint16(out[4:], uint16(w.Status))
	binary.LittleEndian.PutUint16(out[6:], uint16(w.nhdr))
	binary.LittleEndian.PutUint32(out[8:], uint32(fixed+len(w.hdr)))
	out = append(out, w.hdr...)
	out = append(out, w.Body...)
	w.out = out
	return out
}

// DecodedResponse is a response read back from the ABI form (tests and native shells).
type DecodedResponse struct {
	Status  int
	Headers []Header // in the order they were set, metadata (":route") included
	Body    []byte
}

// Header returns the first value of the named header, or "".
func (d *DecodedResponse) Header(name string) string {
	for _, h := range d.Headers {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// DecodeResponse parses an ABI response buffer, copying everything out of buf.
func DecodeResponse(buf []byte) (DecodedResponse, error) {
	var d DecodedResponse
	if len(buf) < 12 {
		return d, errors.New("abi: response shorter than its fixed part")
	}
	total := int(binary.LittleEndian.Uint32(buf))
	if total < 12 || total > len(buf) {
		return d, errors.New("abi: response total length out of range")
	}
	buf = buf[:total]
	d.Status = int(binary.LittleEndian.Uint16(buf[4:]))
	nh := int(binary.LittleEndian.Uint16(buf[6:]))
	bodyOff := int(binary.LittleEndian.Uint32(buf[8:]))
	if bodyOff < 12 || bodyOff > total {
		return d, errors.New("abi: response body offset out of range")
	}
	off := 12
	hdrs := buf[:bodyOff]
	for i := 0; i < nh; i++ {
		name, next, ok1 := ReadField(hdrs, off)
		value, next, ok2 := ReadField(hdrs, next)
		if !ok1 || !ok2 {
			return d, errors.New("abi: response header out of range")
		}
		off = next
		d.Headers = append(d.Headers, Header{string(name), string(value)})
	}
	if off != bodyOff {
		return d, errors.New("abi: response headers do not end at the body offset")
	}
	d.Body = append([]byte(nil), buf[bodyOff:]...)
	return d, nil
}

// ld32 reads the little-endian u32 of b at i (one load once compiled).
//
//go:inline
func ld32(b []byte, i int) uint32 {
	b = b[i : i+4]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// st32 stores v at d[0:4] little-endian with one 32-bit store through unsafe: byte
// stores stay byte stores where LLVM can see that some of v's bytes are constants (a
// header table entry's kind), each bounds-checked by workerd's V8. Unaligned, and fine
// so (wasm, amd64 and arm64 store a word at any address); the module and the tests'
// hosts are little-endian.
//
//go:inline
func st32(d []byte, v uint32) {
	*(*uint32)(unsafe.Pointer(&d[:4:4][0])) = v
}
