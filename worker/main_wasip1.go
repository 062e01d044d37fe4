//go:build wasip1

package main

// The TinyGo Worker: a WASI reactor (-buildmode=c-shared, -scheduler=none) exporting a
// byte-level ABI (see core/abi.go). The glue calls _initialize, then configure once,
// then handle once per request. Memory may grow during any call: the caller re-reads
// its views of memory after each call.

import (
	"encoding/binary"
	"os"
	"time"
	"unsafe"

	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/wire"
)

var (
	inbuf  []byte // the request (or the vars), written by the caller through alloc
	server *api.Server
	req    wire.Request
	resp   wire.Response
	hdrTab wire.HeaderTable // the module's half of the response-header table (core/wire/hdrtable.go)
	kvOut  []byte           // the rate limiter's pending KV operations (kv_pending)
	// trapHook is nil in the shipped build; trap_demo.go (tag trapdemo, tests only)
	// sets it to panic on one path, to test that the glue survives a trap.
	trapHook func(*wire.Request)
)

func main() {}

// alloc returns the address of a Go-owned buffer of at least n bytes for configure and
// handle calls. The buffer stays at that address until alloc is called with a larger n
// (TinyGo's GC does not move objects), so the caller may reuse it without calling alloc.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	if n == 0 {
		n = 1
	}
	if uint32(len(inbuf)) < n {
		inbuf = make([]byte, n)
	}
	return uint32(uintptr(unsafe.Pointer(&inbuf[0])))
}

// configure reads the Worker's vars (u32 count, then count x (u32 len name, u32 len
// value), as the ABI's header list) from the alloc buffer and builds the server.
//
//go:wasmexport configure
func configure(n uint32) {
	var r wire.Request
	// The vars travel as the headers of a request-shaped buffer (method and target empty).
	if int(n) > len(inbuf) || wire.DecodeRequest(inbuf[:n], &r) != nil {
		r.Headers = nil
	}
	vars := make([]wire.Header, len(r.Headers))
	for i, h := range r.Headers {
		vars[i] = wire.Header{Name: string([]byte(h.Name)), Value: string([]byte(h.Value))}
	}
	server = newServer(vars, nowMillis, randomBytes, logLine)
}

// ensureServer makes the Server with no vars when configure has not run; the exports
// that answer from it call it first.
func ensureServer() {
	if server == nil {
		server = newServer(nil, nowMillis, randomBytes, logLine)
	}
}

// handle answers the request in the alloc buffer and returns the address of the
// response (the interned ABI form of core/wire/hdrtable.go, valid until the next call).
// now is the host's clock in unix ms (Date.now() in the glue), a float64 because a JS
// number passes as one without a BigInt; anything but a whole number of ms from 1 to
// 2^53 (a caller that passes none: NaN or 0) leaves the module to read the clock
// itself (nowMillis). Issue 16: reading it through WASI's clock_time_get, a call out of
// wasm into the glue on every request, cost workerd ~1 us of a quote's CPU (perf).
//
//go:wasmexport handle
func handle(n uint32, now float64) uint32 {
	if now >= 1 && now <= 1<<53 && now == float64(int64(now)) {
		givenNow = int64(now)
	}
	ensureServer()
	if int(n) > len(inbuf) || wire.DecodeRequest(inbuf[:n], &req) != nil {
		req = wire.Request{Method: "GET", Target: "/\x00malformed"}
	}
	if trapHook != nil {
		trapHook(&req)
	}
	server.Handle(&req, &resp)
	givenNow = 0 // a trap before here discards the instance (the glue makes a fresh one)
	out := resp.EncodeInterned(&hdrTab)
	return uint32(uintptr(unsafe.Pointer(&out[0])))
}

// kv_pending returns the address of the rate limiter's KV operations due now (format:
// limit.Limiter.KVPending), valid until the next call. The glue calls it when a
// response carries the ":kv" metadata header, or when the delay it gave has passed.
//
//go:wasmexport kv_pending
func kvPending() uint32 {
	ensureServer()
	kvOut = server.KVPending(kvOut[:0])
	return uint32(uintptr(unsafe.Pointer(&kvOut[0])))
}

// kv_done takes the outcomes of those operations (format: limit.Limiter.KVDone) from
// the alloc buffer: counts read are merged, failed operations retried later. It returns
// the ms until the next KV operation falls due (0: none): the glue's one timer.
//
//go:wasmexport kv_done
func kvDone(n uint32) uint32 {
	if server == nil || int(n) > len(inbuf) {
		return 0
	}
	return uint32(server.KVDone(inbuf[:n]))
}

// state_save returns the address of the state a fresh instance takes over, valid until
// the next call: [u32 n][n bytes: the head of the rate limiter's state][u32 address][u32
// length of its table's bytes] (limit.Limiter.AppendState and Table: the counts, the KV
// schedule and identity). The module is built with TinyGo's leaking allocator, so the
// glue replaces an instance whose memory has grown past a bound (worker/glue.mjs, renew):
// it copies the table's bytes into the new instance's (state_table), then hands it the
// head (state_load).
//
//go:wasmexport state_save
func stateSave() uint32 {
	ensureServer()
	stateOut = server.LimitState(append(stateOut[:0], 0, 0, 0, 0))
	binary.LittleEndian.PutUint32(stateOut, uint32(len(stateOut)-4))
	stateOut = appendTable(stateOut)
	return uint32(uintptr(unsafe.Pointer(&stateOut[0])))
}

var stateOut []byte

// state_table returns the address of [u32 address][u32 length] of this instance's rate
// limiter table, where the glue copies the old instance's before state_load.
//
//go:wasmexport state_table
func stateTable() uint32 {
	ensureServer()
	tableOut = appendTable(tableOut[:0])
	return uint32(uintptr(unsafe.Pointer(&tableOut[0])))
}

var tableOut []byte

func appendTable(dst []byte) []byte {
	t := server.LimitTable()
	p, n := uint32(0), uint32(len(t))
	if n > 0 {
		p = uint32(uintptr(unsafe.Pointer(&t[0])))
	}
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(dst, p), n)
}

// state_load takes the head of state_save's state (n bytes in the alloc buffer), made by
// the instance this one replaces, the table's bytes already copied into state_table's.
// It returns 0 when it took it, 1 when it refused it (another configuration, or not
// whole: the counts then start from zero).
//
//go:wasmexport state_load
func stateLoad(n uint32) uint32 {
	ensureServer()
	if int(n) > len(inbuf) || !server.LoadLimitState(inbuf[:n]) {
		return 1
	}
	return 0
}

// inventory takes a new inventory, the blob of rental.Catalog.DecodeInventory (n bytes
// in the alloc buffer), and serves it from the next request on. It returns 0 when the
// blob was taken, 1 when it was refused (the inventory serving is kept). A refusal is
// logged, and so is a live version replacing another (setInventory says why an isolate's
// first live version is not). The glue calls it between requests.
//
//go:wasmexport inventory
func inventory(n uint32) uint32 {
	ensureServer()
	if int(n) > len(inbuf) {
		offered = wire.AppendField(offered[:0], "")
		return 1
	}
	r, v := setInventory(server, inbuf[:n], logLine)
	offered = wire.AppendField(offered[:0], v)
	return r
}

// offered is the version of the blob the last inventory call was offered: [u32 len][bytes]
// (length 0 before any).
var offered = []byte{0, 0, 0, 0}

// inventory_version returns the address of the version (u32 length, then the ASCII of
// its 16 hex digits) of the blob the last inventory call was offered, taken or refused:
// the glue reads inventory/latest, whose key does not name its version, and must not
// read that version again under its own key (docs/inventory.md). Before any inventory
// call, the length is 0.
//
//go:wasmexport inventory_version
func inventoryVersion() uint32 {
	return uint32(uintptr(unsafe.Pointer(&offered[0])))
}

// reads_inventory takes a request in the alloc buffer (as handle does; its headers are
// not read) and returns 1 when its answer reads the bookings or names the inventory
// version (api.Server.ReadsInventory), else 0. The glue asks while an isolate's first
// read of the live inventory is under way, to hold only those requests. Nothing is
// counted against the client. A buffer it cannot read gets 1: wait when unsure.
//
//go:wasmexport reads_inventory
func readsInventory(n uint32) uint32 {
	ensureServer()
	if int(n) > len(inbuf) || wire.DecodeRequest(inbuf[:n], &req) != nil || server.ReadsInventory(&req) {
		return 1
	}
	return 0
}

// validator_free_paths returns the address of api.Server.ValidatorFreePaths as a list
// of strings (u32 count, then count x (u32 len, bytes)), valid until the next call. The
// glue reads it once per instance and then reads no If-None-Match for the targets under
// those paths.
//
//go:wasmexport validator_free_paths
func validatorFreePaths() uint32 {
	ensureServer()
	paths := server.ValidatorFreePaths()
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(paths)))
	for _, p := range paths {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

// nowMillis reads the host's realtime clock (Date.now() in the Worker) straight from
// WASI: TinyGo's time.Now passes a pointer to a local to clock_time_get, which makes
// that local a heap allocation on every call; a package-level result slot does not.
//
// During handle, the clock the glue passed with the request (givenNow) instead.
func nowMillis() int64 {
	if givenNow != 0 {
		return givenNow
	}
	if clockTimeGet(0, 1000, unsafe.Pointer(&clockNow)) != 0 {
		return time.Now().UnixMilli()
	}
	return int64(clockNow / 1e6)
}

var clockNow uint64

// givenNow is handle's now while it runs (0: none given).
var givenNow int64

//go:wasmimport wasi_snapshot_preview1 clock_time_get
func clockTimeGet(id uint32, precision uint64, out unsafe.Pointer) uint32

// randomBytes fills b from the host's random_get (crypto.getRandomValues in the
// Worker), 1 KiB at a time: a call into the host for every 16-byte quote id was the
// largest single cost of a quote in V8 (profiled with node --cpu-prof). crypto/rand
// would go through wasi-libc's arc4random, a PRNG seeded from the host, which also
// makes the bytes differ from the host's source in tests.
//
// A quote's 8-byte nonce, the commonest call, is one word's load and store: copy is a
// memory.copy, which V8 runs as a call out of wasm into C, ~120 instructions for 8
// bytes under node with workerd's bounds checks (issue 16, session 32). Wasm allows the
// unaligned access.
func randomBytes(b []byte) {
	if len(b) == 8 && randPos <= len(randPool)-8 {
		*(*uint64)(unsafe.Pointer(&b[0])) = *(*uint64)(unsafe.Pointer(&randPool[randPos]))
		randPos += 8
		return
	}
	for len(b) > 0 {
		if randPos == len(randPool) {
			randomGet(unsafe.Pointer(&randPool[0]), uint32(len(randPool)))
			randPos = 0
		}
		n := copy(b, randPool[randPos:])
		randPos += n
		b = b[n:]
	}
}

var (
	randPool [1024]byte
	randPos  = len(randPool)
)

// arc4random stands in for wasi-libc's: TinyGo's runtime calls it for its random seeds
// (the map hash seed at start, runtime.rand). Defining the symbol here keeps the linker
// from taking libc's, a ChaCha20 generator whose failure path pulls in printf: ~20 KB of
// the module with them (issue 16: every byte of the module is copied and decoded when an
// isolate loads it), and a ChaCha20 key set-up in every isolate's start. The bytes come
// from the host's random_get (crypto.getRandomValues) through randomBytes' pool.
//
//go:linkname arc4random arc4random
func arc4random() uint32 {
	randomBytes(arcWord[:])
	return uint32(arcWord[0]) | uint32(arcWord[1])<<8 | uint32(arcWord[2])<<16 | uint32(arcWord[3])<<24
}

var arcWord [4]byte

//go:wasmimport wasi_snapshot_preview1 random_get
func randomGet(buf unsafe.Pointer, n uint32) uint32

func logLine(s string) { os.Stderr.WriteString(s + "\n") }
