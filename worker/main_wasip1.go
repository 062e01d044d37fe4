//go:build wasip1

package main

// The TinyGo Worker: a WASI reactor (-buildmode=c-shared, -scheduler=none) exporting a
// byte-level ABI (see core/abi.go). The glue calls _initialize, then configure once,
// then handle once per request. Memory may grow during any call: the caller re-reads
// its views of memory after each call.

import (
	"os"
	"time"
	"unsafe"

	"github.com/campervan/agent-api/core"
)

var (
	inbuf  []byte // the request (or the vars), written by the caller through alloc
	server *core.Server
	req    core.Request
	resp   core.Response
	// trapHook is nil in the shipped build; trap_demo.go (tag trapdemo, tests only)
	// sets it to panic on one path, to test that the glue survives a trap.
	trapHook func(*core.Request)
)

func main() {}

// alloc returns the address of a Go-owned buffer of at least n bytes for the next
// configure or handle call; the buffer is reused between calls.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	if uint32(cap(inbuf)) < n {
		inbuf = make([]byte, n)
	}
	inbuf = inbuf[:n]
	if n == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&inbuf[0])))
}

// configure reads the Worker's vars (u32 count, then count x (u32 len name, u32 len
// value), as the ABI's header list) from the alloc buffer and builds the server.
//
//go:wasmexport configure
func configure(n uint32) {
	var r core.Request
	// The vars travel as the headers of a request-shaped buffer (method and target empty).
	if err := core.DecodeRequest(inbuf[:n], &r); err != nil {
		r.Headers = nil
	}
	vars := make([]core.Header, len(r.Headers))
	for i, h := range r.Headers {
		vars[i] = core.Header{Name: string([]byte(h.Name)), Value: string([]byte(h.Value))}
	}
	server = newServer(vars, nowMillis, randomBytes, logLine)
}

// handle answers the request in the alloc buffer and returns the address of the
// response (ABI form, valid until the next call).
//
//go:wasmexport handle
func handle(n uint32) uint32 {
	if server == nil {
		server = newServer(nil, nowMillis, randomBytes, logLine)
	}
	if int(n) > len(inbuf) || core.DecodeRequest(inbuf[:n], &req) != nil {
		req = core.Request{Method: "GET", Target: "/\x00malformed"}
	}
	if trapHook != nil {
		trapHook(&req)
	}
	server.Handle(&req, &resp)
	out := resp.Encode()
	return uint32(uintptr(unsafe.Pointer(&out[0])))
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// randomBytes fills b straight from the host's random_get (crypto.getRandomValues in
// the Worker). crypto/rand would go through wasi-libc's arc4random, a PRNG seeded from
// the host, which also makes the bytes differ from the host's source in tests.
func randomBytes(b []byte) {
	if len(b) > 0 {
		randomGet(unsafe.Pointer(&b[0]), uint32(len(b)))
	}
}

//go:wasmimport wasi_snapshot_preview1 random_get
func randomGet(buf unsafe.Pointer, n uint32) uint32

func logLine(s string) { os.Stderr.WriteString(s + "\n") }
