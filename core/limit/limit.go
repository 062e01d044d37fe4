// Package limit is the per-client rate limit: exact counts in a fixed-size table in the
// instance's memory (2 MiB, allocated once, whatever the number of clients), shared
// between isolates through Workers KV by write-behind (the glue runs the KV operations
// the Limiter lists). The API uses New, ClientOf, Take, Peek, Due, KVPending and KVDone.
package limit

// The rate limit: every counted request of a client (ClientOf) counts in fixed windows
// aligned to multiples of the window length (unix time).
//
// Memory. The counts live in one table of TableBytes, made by New (a global for the
// first one of a process: staticTable) and never grown:
// a set-associative hash table of sets of `ways` entries, hashed with a per-instance
// random seed (a client cannot aim at one set). An entry of an ended window is free. A
// new client in a full set takes the entry with the smallest estimate (own count plus the
// others' counts), the least recently seen among equals: a client at or near the limit
// is evicted only when every other entry of its set has at least as large a count, which
// one-request clients never have. An evicted client loses its count: it is counted from
// 0 again, never from more than it sent (under-estimated, never over-estimated).
//
// Within one isolate the count is exact (while the client's entry stays): the Limiter
// decides every request synchronously. Only allowed requests count: a request refused
// with 429 changes nothing, so a limited client causes no KV write.
//
// Across isolates the counts are shared through Workers KV, never on the request path:
//
//   - A client's count is written when it crosses a multiple of the step (ceil(limit/11),
//     so at most 11 such writes in a window) and once when the client is first refused in
//     this isolate (its final count): at most 12 writes per client, isolate and window,
//     and at most one per key per second (KV's limit).
//   - Each write goes with one bulk get of the client's key family; a client whose
//     estimated remaining allowance is at most half the limit, and whom another
//     isolate serves too, is also re-read at
//     most every reReadMs while it sends requests. A limited client is never re-read
//     (counts only grow within a window: it stays limited).
//   - The keys of a client and window are a fixed family of kvSlots keys
//     "rl:<window start>:<slot>:<client>"; each isolate writes only the slot it drew at
//     random, as "<isolate id hex>:<count>", so reading a client's counts is one bulk
//     get of known keys (no list(), which the Free plan allows 1,000 times a day).
//   - A request is allowed while this isolate's count plus the others' counts last read
//     is below the limit. RATIONALE.md, "Why is the rate limit counted in the isolate
//     and shared through KV?", gives the bound and the evidence.
//
// The Go side decides everything (which keys, values, TTLs, when); the glue only runs
// the KV operations that KVPending lists and hands the outcomes to KVDone, which returns
// when the next operation falls due (the glue keeps one timer). A failed operation never
// fails a request: KV is left alone for kvBackoffMs, then the operation is retried.
const (
	TableBytes   = 2 << 20 // the table's memory budget
	ways         = 8       // entries per set
	kvSlots      = 8       // keys per client and window; one bulk get reads them all
	kvWriteGapMs = 1000    // at most one write per key per second (KV's limit)
	maxWrites    = 12      // writes per client, isolate and window; the last is kept for the final count
	reReadMs     = 1000    // near the limit: re-read a client's keys at most this often
	kvBackoffMs  = 10000   // after a failed KV operation, none for this long
	kvMinTTL     = 60      // KV's minimum expirationTtl, seconds
	kvMaxOps     = 20      // operations per KVPending batch (subrequest limits)
	dueCap       = 1024    // clients with KV operations pending at once; more wait their turn
	kvNoDue      = 1 << 62 // "nothing scheduled"
	maxWindowSec = 1 << 21 // 24 days: window-relative milliseconds fit in 32 bits
)

// entry flags
const (
	fDirty   = 1 << iota // n differs from what KV was last asked to hold
	fReadDue             // a bulk get of the client's keys is due
	fQueued              // in Limiter.due
	fLimited             // refused at least once in this window (its final count is written)
	fReading             // a bulk get is on its way: no write until its result (KVDone)
)

// entry is one client in one window: 48 bytes, no pointers.
type entry struct {
	key     Key
	win     uint32 // window number + 1 of the count (0: never used)
	n       uint32 // requests this instance allowed (exact)
	remote  uint32 // the other isolates' counts, as last read (an under-estimate)
	written uint32 // n last handed to the glue for KV
	seen    uint32 // window-relative ms of the last request
	writeAt uint32 // window-relative ms: the earliest time of the next write
	readAt  uint32 // window-relative ms of the last read handed out (0: none)
	flags   uint8
	nw      uint8 // writes handed out in this window (at most maxWrites)
	slot    uint8 // 1 + this isolate's slot in the client's key family; 0: not chosen yet
}

// entrySize is unsafe.Sizeof(entry{}) (checked by a test).
const entrySize = 48
