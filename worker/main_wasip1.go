//go:build wasip1

//lint:file-ignore U1000 the //go:wasmexport functions are called by the host

package main

// The TinyGo Worker: a WASI reactor (-buildmode=c-shared, -scheduler=none) exporting a
// byte-level ABI (core/abi/abi.go) to the JS glue (worker/glue/). The glue calls
// _initialize, then configure once, then handle once per request. Memory may grow
// during any call: the caller re-reads its views of memory after each call.

import (
	"encoding/binary"
	"os"
	"time"
	"unsafe"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/api"
)

var (
	inbuf  []byte // the request (or the vars), written by the caller through alloc
	server *api.Server
	req    abi.Request
	resp   abi.Response
	hdrTab abi.HeaderTable // the module's half of the response-header table (core/abi/hdrtable.go)
	kvOut  []byte          // the rate limiter's pending KV operations (kv_pending)
	// trapHook is nil in the shipped build; trap_demo.go (tag trapdemo, tests only)
	// sets it to panic on one path.
	trapHook func(*abi.Request)
)

func main() {}

// alloc returns the address of a buffer of at least n bytes for the calls that read
// one. It stays at that address until alloc is called with a larger n.
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

// configure builds the server from the Worker's vars, which arrive in the alloc buffer
// as the header list of a request with an empty method and target.
//
//go:wasmexport configure
func configure(n uint32) {
	var r abi.Request
	if int(n) > len(inbuf) || abi.DecodeRequest(inbuf[:n], &r) != nil {
		r.Headers = nil
	}
	vars := make([]api.Var, len(r.Headers))
	for i, h := range r.Headers {
		vars[i] = api.Var{Name: string([]byte(h.Name)), Value: string([]byte(h.Value))}
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
// response (the interned form of core/abi/hdrtable.go, valid until the next call).
// now is the host's clock in unix ms, passed with the request so that handle makes no
// call out to clock_time_get; a float64, as a JS number passes without a BigInt.
// Anything but a whole number of ms from 1 to 2^53 (NaN, 0) leaves the module to read
// the clock itself.
//
//go:wasmexport handle
func handle(n uint32, now float64) uint32 {
	ensureServer()
	if int(n) > len(inbuf) || abi.DecodeRequest(inbuf[:n], &req) != nil {
		req = abi.Request{Method: "GET", Target: "/\x00malformed"}
	}
	req.Now = 0
	if now >= 1 && now <= 1<<53 && now == float64(int64(now)) {
		req.Now = int64(now)
	}
	if trapHook != nil {
		trapHook(&req)
	}
	server.Handle(&req, &resp)
	out := resp.EncodeInterned(&hdrTab)
	return uint32(uintptr(unsafe.Pointer(&out[0])))
}

// kv_pending returns the address of the rate limiter's KV operations due now (format:
// limit.Limiter.KVPending), valid until the next call. The glue calls it when an
// answer carries the ":kv" pseudo-header, or when the delay it gave has passed.
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

// state_save returns the address of the rate limiter's state, for the instance that
// renews this one (worker/glue/instance.mjs, renew): [u32 n][n bytes: the head][u32
// address][u32 length] of its table (limit.Limiter.AppendState and Table).
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
// blob was taken, 1 when it was refused (the inventory serving is kept); setInventory
// logs. The glue calls it between requests.
//
//go:wasmexport inventory
func inventory(n uint32) uint32 {
	ensureServer()
	if int(n) > len(inbuf) {
		offered = abi.AppendField(offered[:0], "")
		return 1
	}
	r, v := setInventory(server, inbuf[:n], logLine)
	offered = abi.AppendField(offered[:0], v)
	return r
}

// offered is what inventory_version returns.
var offered = []byte{0, 0, 0, 0}

// inventory_version returns the address of the version ([u32 len][16 hex digits]; len 0
// before any) of the blob the last inventory call was offered, taken or refused: the
// glue reads inventory/latest, whose key names no version, and must not read that
// version again under its own key (docs/inventory.md).
//
//go:wasmexport inventory_version
func inventoryVersion() uint32 {
	return uint32(uintptr(unsafe.Pointer(&offered[0])))
}

// reads_inventory takes a request in the alloc buffer (headers not read) and returns 1
// when its answer reads the bookings or names their version (api.Server.ReadsInventory),
// or the buffer cannot be read; else 0. Nothing is counted against the client.
//
//go:wasmexport reads_inventory
func readsInventory(n uint32) uint32 {
	ensureServer()
	if int(n) > len(inbuf) || abi.DecodeRequest(inbuf[:n], &req) != nil || server.ReadsInventory(&req) {
		return 1
	}
	return 0
}

// validator_free_paths returns the address of api.Server.ValidatorFreePaths as a list
// of strings (u32 count, then count x (u32 len, bytes)). The glue reads no
// If-None-Match for the targets under those paths.
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

// nowMillis reads the host's clock straight from WASI into a package-level slot
// (time.Now would allocate its result on every call): the Server's clock, for what
// runs outside a request and for a request the glue gave no clock (abi.Request.Now).
func nowMillis() int64 {
	if clockTimeGet(0, 1000, unsafe.Pointer(&clockNow)) != 0 {
		return time.Now().UnixMilli()
	}
	return int64(clockNow / 1e6)
}

var clockNow uint64

//go:wasmimport wasi_snapshot_preview1 clock_time_get
func clockTimeGet(id uint32, precision uint64, out unsafe.Pointer) uint32

// randomBytes fills b from a pool refilled 1 KiB at a time from the host's random_get
// (crypto.getRandomValues), so that a quote makes no call out of wasm. crypto/rand
// would go through wasi-libc's arc4random, a PRNG seeded from the host. An 8-byte
// nonce, the commonest call, is one unaligned word's load and store: copy is a
// memory.copy, which V8 runs as a call out of wasm.
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

// arc4random stands in for wasi-libc's, which TinyGo's runtime calls for its random
// seeds: libc's is a ChaCha20 generator whose failure path links printf, bytes every
// isolate loads and a key set-up every isolate runs (TestModuleStartsLean). The bytes
// come from randomBytes' pool.
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
