// Package limit is the per-client rate limit: exact counts in a fixed-size table in the
// instance's memory (2 MiB, allocated once, whatever the number of clients), shared
// between isolates through Workers KV by write-behind (the glue runs the KV operations
// the Limiter lists). The API uses New, ClientOf, Take, Peek, Due, KVPending and KVDone.
package limit

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/campervan/agent-api/core/bytebuf"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/text"
)

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

// Key is a client's identity: an IPv4 address, an IPv6 /64 prefix, or the shared bucket.
type Key struct{ Hi, Lo uint64 }

// Shared is the one bucket of every request whose CF-Connecting-IP is absent or is not
// an IP address (Cloudflare's edge always sets it; only direct requests lack it).
var Shared = Key{0, 1}

// ClientOf returns the client identity of a CF-Connecting-IP value: an IPv4 address
// (also when written IPv4-mapped, ::ffff:a.b.c.d) by its 32 bits, an IPv6 address by its
// /64 prefix (one subscriber's allocation: a client cannot count as 2^64 clients), in
// any spelling (case, leading zeros, ::). Anything else is Shared. It accepts exactly
// what netip.ParseAddr accepts, zones aside (a test compares them on fuzzed input).
func ClientOf(h string) Key {
	if len(h) == 39 { // the full form, as most clients' addresses arrive (parseV6Full)
		if hi, lo, ok := parseV6Full(h); ok {
			return keyOf64(hi, lo)
		}
	}
	ip, ok := parseIP(h)
	if !ok {
		return Shared
	}
	return keyOf(&ip)
}

func keyOf(ip *[16]byte) Key {
	return keyOf64(binary.BigEndian.Uint64(ip[:8]), binary.BigEndian.Uint64(ip[8:]))
}

func keyOf64(hi, lo uint64) Key {
	if hi == 0 && lo>>32 == 0xffff {
		return Key{0, lo} // IPv4 (IPv4-mapped)
	}
	return Key{hi, 0}
}

// parseIP parses an IP address as netip.ParseAddr does, without zones, into 16 bytes
// (IPv4 as ::ffff:a.b.c.d). Hand-written rather than net/netip, whose code would be a
// large share of the module and whose error values are heap allocations (RATIONALE.md,
// "Why hand-written pieces where a library exists?").
func parseIP(s string) (ip [16]byte, ok bool) {
	if len(s) > 45 { // the longest address: 8 groups with an IPv4 tail
		return ip, false
	}
	if len(s) == 39 {
		if hi, lo, ok := parseV6Full(s); ok {
			binary.BigEndian.PutUint64(ip[:8], hi)
			binary.BigEndian.PutUint64(ip[8:], lo)
			return ip, true
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			ip[10], ip[11] = 0xff, 0xff
			ok = parseV4(s, ip[12:]) // before the return: its operands' order is unspecified
			return ip, ok
		case ':':
			return parseV6(s)
		}
	}
	return ip, false
}

// parseV6Full parses the full form of an IPv6 address, eight groups of four hex digits
// (39 bytes), the way privacy addresses, most clients' addresses, arrive in
// CF-Connecting-IP, into its two 64-bit halves. It fails on anything else, which parseV6
// then reads, so the two agree on every 39-byte string (TestParseV6FullEveryByte).
//
// Two groups at a time as one 64-bit word, their eight digits tested and converted
// together (hexPair), rather than byte by byte or through a table: each byte load and
// each lookup is a bounds-checked access under workerd, on every request (RATIONALE.md,
// "Why cursor writers and word-at-a-time code?").
func parseV6Full(s string) (hi, lo uint64, ok bool) {
	s = s[:39]
	// the seven colons, each 0 after the xor when it is one
	bad := uint32(s[4]^':') | uint32(s[9]^':') | uint32(s[14]^':') | uint32(s[19]^':') |
		uint32(s[24]^':') | uint32(s[29]^':') | uint32(s[34]^':')
	v0, b0 := hexPair(uint64(ld32(s, 0)) | uint64(ld32(s, 5))<<32)
	v1, b1 := hexPair(uint64(ld32(s, 10)) | uint64(ld32(s, 15))<<32)
	v2, b2 := hexPair(uint64(ld32(s, 20)) | uint64(ld32(s, 25))<<32)
	v3, b3 := hexPair(uint64(ld32(s, 30)) | uint64(ld32(s, 35))<<32)
	if uint64(bad)|b0|b1|b2|b3 != 0 {
		return 0, 0, false
	}
	return v0<<32 | v1, v2<<32 | v3, true
}

// ld32 is s[i:i+4] as a little-endian word (s is a 39-byte address, i at most 35):
// one 32-bit load. LLVM keeps four byte loads shifted into the top half of a 64-bit
// word as four loads (it joins byte loads into one only from bit 0 up).
// Unaligned, and fine so: wasm, amd64 and arm64 load a word at any address, and the
// Go checker of unsafe conversions (checkptr) tests alignment only for types that
// hold pointers. The module and these tests' hosts are little-endian; a big-endian
// host would fail TestParseV6FullEveryByte, not serve wrong keys unnoticed.
//
//go:inline
func ld32(s string, i int) uint32 {
	_ = s[i+3]
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}

// hexPair reads the eight hex digits in the bytes of x (the first digit in the lowest
// byte) as a 32-bit number, big-endian as written; bad is 0 when all eight are hex
// digits (either case), and not 0 otherwise. Per byte c below 0x80 no sum carries into
// the next byte: c+0x50 has its top bit set when c >= '0', c+0x46 when c > '9';
// y = c|0x20 folds the capitals ('A'-'F' and only they become 'a'-'f'), y+0x1f has its
// top bit set when y >= 'a', y+0x19 when y > 'f'. A byte of 0x80 or more is neither a
// digit nor a letter by these sums (each either keeps its top bit in both or wraps to
// clear it in the first), so it makes bad by itself; the carry it may pass upwards
// changes only bytes whose value is discarded with it.
//
//go:inline
func hexPair(x uint64) (v, bad uint64) {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	digit := (x + (0x80-'0')*ones) &^ (x + (0x80-'9'-1)*ones)
	y := x | 0x20*ones
	letter := (y + (0x80-'a')*ones) &^ (y + (0x80-'f'-1)*ones)
	bad = (digit|letter)&tops ^ tops
	n := x&(0x0f*ones) + (letter&tops)>>7*9                 // each byte its digit's value
	t := n&0x000f000f000f000f<<4 | n>>8&0x000f000f000f000f  // bytes 0, 2, 4, 6: two digits each
	u := t&0x000000ff000000ff<<8 | t>>16&0x000000ff000000ff // 16-bit lanes at bits 0 and 32: the groups
	return u&0xffff<<16 | u>>32, bad
}

// parseV4 parses four decimal fields of 0..255 without leading zeros into out[:4].
func parseV4(s string, out []byte) bool {
	field, digits, val := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || field > 3 {
				return false
			}
			out[field] = byte(val)
			field, digits, val = field+1, 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || (digits == 1 && val == 0) {
			return false
		}
		val, digits = val*10+int(c-'0'), digits+1
		if val > 255 {
			return false
		}
	}
	return field == 4
}

// parseV6 parses up to eight groups of 1-4 hex digits, at most one "::" standing for at
// least one zero group, and an optional IPv4 tail in place of the last two groups.
func parseV6(s string) (ip [16]byte, ok bool) {
	ellipsis, i := -1, 0 // where "::" is (bytes); bytes filled
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		ellipsis, s = 0, s[2:]
		if s == "" {
			return ip, true
		}
	}
	for i < 16 {
		off, acc := 0, 0
		for ; off < len(s); off++ {
			d := hexDigit(s[off])
			if d < 0 {
				break
			}
			if off == 4 {
				return ip, false
			}
			acc = acc<<4 | d
		}
		if off == 0 {
			return ip, false
		}
		if off < len(s) && s[off] == '.' { // an IPv4 tail
			if !v4Tail(s, &ip, i, ellipsis) {
				return ip, false
			}
			i, s = i+4, ""
			break
		}
		ip[i], ip[i+1] = byte(acc>>8), byte(acc)
		i += 2
		s = s[off:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return ip, false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis >= 0 {
				return ip, false
			}
			ellipsis, s = i, s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return ip, false
	}
	ok = expandEllipsis(&ip, i, ellipsis) // before the return: its operands' order is unspecified
	return ip, ok
}

// hexDigit returns the value of hex digit c (either case), or -1: text.Unhex, inlined,
// as parseV6 runs it for every digit.
//
//go:inline
func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// v4Tail parses the IPv4 tail s into ip[i:i+4], where parseV6 has filled i bytes and
// seen "::" at ellipsis (-1 for none): the tail stands for the last two groups. It and
// expandEllipsis are steps of parseV6, inlined into it.
//
//go:inline
func v4Tail(s string, ip *[16]byte, i, ellipsis int) bool {
	return (ellipsis >= 0 || i == 12) && i+4 <= 16 && parseV4(s, ip[i:i+4])
}

// expandEllipsis completes an address of which parseV6 filled i bytes: the bytes
// after the "::" at ellipsis (-1 for none) move to the end and zeros take their place.
// It reports whether the address is whole: 16 bytes without "::", or fewer with one.
//
//go:inline
func expandEllipsis(ip *[16]byte, i, ellipsis int) bool {
	if i < 16 {
		if ellipsis < 0 {
			return false
		}
		n := 16 - i
		copy(ip[ellipsis+n:], ip[ellipsis:i])
		clear(ip[ellipsis : ellipsis+n])
	} else if ellipsis >= 0 {
		return false
	}
	return true
}

// appendClient appends the client's text form in KV keys: "203.0.113.7",
// "2001:db8:1:2::/64" (RFC 5952) or "unknown".
func appendClient(b []byte, k Key) []byte {
	switch {
	case k == Shared:
		return append(b, "unknown"...)
	case k.Hi == 0 && k.Lo>>32 == 0xffff:
		for i := 3; i >= 0; i-- {
			b = jsonw.AppendInt(b, int64(k.Lo>>(8*i)&0xff))
			if i > 0 {
				b = append(b, '.')
			}
		}
		return b
	}
	// Groups 4-7 are zero: the longest run of zero groups is the trailing one.
	last := -1
	for g := 0; g < 4; g++ {
		if k.Hi>>(48-16*g)&0xffff != 0 {
			last = g
		}
	}
	for g := 0; g <= last; g++ {
		if g > 0 {
			b = append(b, ':')
		}
		v := k.Hi >> (48 - 16*g) & 0xffff
		started := false
		for sh := 12; sh >= 0; sh -= 4 {
			if d := v >> sh & 0xf; d != 0 || started || sh == 0 {
				b = append(b, text.HexDigits[d])
				started = true
			}
		}
	}
	return append(b, "::/64"...)
}

// parseClient is the inverse of appendClient.
func parseClient(s string) (Key, bool) {
	if s == "unknown" {
		return Shared, true
	}
	if p, ok := strings.CutSuffix(s, "/64"); ok {
		ip, ok := parseIP(p)
		k := keyOf(&ip)
		return k, ok && k.Lo == 0 && strings.IndexByte(p, '.') < 0 && k == Key{binary.BigEndian.Uint64(ip[:8]), binary.BigEndian.Uint64(ip[8:])}
	}
	ip, ok := parseIP(s)
	k := keyOf(&ip)
	return k, ok && k.Hi == 0 && k.Lo>>32 == 0xffff && strings.IndexByte(s, ':') < 0
}

// Limiter counts requests per client exactly in this instance's memory and merges the
// counts other isolates shared through KV. It is not safe for concurrent use; a Worker
// isolate runs one request at a time through the module.
type Limiter struct {
	limit, window int64   // requests; seconds
	step          uint32  // a write when a client's count crosses a multiple of it
	near          int64   // re-read a client whose estimated remaining allowance is at most this
	table         []entry // sets x ways, allocated once
	sets          uint64
	seed          uint64
	start         int64 // unix seconds at which the current window began
	win           uint32
	due           []uint32 // indexes of entries with a KV operation scheduled; cap dueCap
	nextDue       int64    // unix ms of the earliest scheduled operation; kvNoDue if none
	pauseUntil    int64    // unix ms: no KV operation before (after a failure)
	announced     bool     // the glue was given a delay for nextDue (its timer runs)
	id            uint64   // this instance's id in KV values (0 until first needed)
	slot          int      // this instance's default slot in each client's key family
	random        func([]byte)
	evictions     int64 // live entries taken by another client (Stats)
}

// New returns a limiter of limit requests per window seconds over a table of
// TableBytes. random (may be nil: then a fixed seed and id) seeds the table's hash and
// draws this instance's KV id and slot.
func New(limit, window int64, random func([]byte)) *Limiter {
	return NewSized(limit, window, TableBytes, random)
}

// NewSized is New with a table of about bytes (tests use small tables).
func NewSized(limit, window int64, bytes int, random func([]byte)) *Limiter {
	limit = min(max(limit, 1), 1<<31)
	window = min(max(window, 1), maxWindowSec)
	step := (limit + 10) / 11
	sets := max(bytes/(entrySize*ways), 1)
	l := &Limiter{limit: limit, window: window, step: uint32(step), near: max(limit/2, 1),
		table: newTable(sets * ways), sets: uint64(sets), nextDue: kvNoDue,
		due: make([]uint32, 0, dueCap), random: random}
	var b [8]byte
	if random != nil {
		random(b[:])
	}
	l.seed = binary.LittleEndian.Uint64(b[:]) | 1
	return l
}

// Verdict is the outcome of Take: the limit, the requests left in the window after this
// one, the seconds until the window resets, and whether this request is allowed.
type Verdict struct {
	Limit, Remaining, Reset int64
	Allowed                 bool
}

// Stats reports the table: its entries, those in use in the current window, and the
// live entries evicted so far.
func (l *Limiter) Stats() (entries, inUse int, evictions int64) {
	for i := range l.table {
		if l.table[i].win == l.win {
			inUse++
		}
	}
	return len(l.table), inUse, l.evictions
}

// Take counts one request of client k at unix time nowMs (milliseconds) and returns
// the verdict. It allocates nothing.
func (l *Limiter) Take(k Key, nowMs int64) Verdict {
	now := text.FloorDiv(nowMs, 1000)
	l.advance(now)
	rel := l.rel(nowMs)
	i := l.find(k, true)
	e := &l.table[i]
	e.seen = rel
	total := int64(e.n) + int64(e.remote)
	v := Verdict{Limit: l.limit, Reset: l.start + l.window - now}
	if total >= l.limit {
		if e.flags&fLimited == 0 { // first refusal: record the final count, once
			e.flags |= fLimited
			if e.n != e.written && e.nw < maxWrites {
				l.wantWrite(i, e, nowMs, false)
			}
		}
		return v
	}
	e.n++
	v.Allowed, v.Remaining = true, l.limit-total-1
	switch {
	case e.n%l.step == 0 && e.nw < maxWrites-1:
		l.wantWrite(i, e, nowMs, true)
	case v.Remaining <= l.near && e.remote > 0 && e.flags&(fDirty|fReadDue) == 0:
		// Near the limit, when another isolate serves the client too: this isolate's
		// latest count and the others' are worth a write and a read each second
		// (while requests come). A client seen by this isolate only costs none.
		if rel-e.readAt >= reReadMs {
			e.flags |= fReadDue
			l.schedule(i, e, nowMs)
		}
		// Only from the writes the steps still to come leave over: a step's write,
		// and the final count's, always have their place in the 12. This isolate
		// allows at most Remaining more (the others' counts only grow), so no more
		// steps than those up to n + Remaining are to come.
		stepsLeft := (e.n+uint32(v.Remaining))/l.step - e.n/l.step
		if e.n != e.written && uint32(e.nw)+stepsLeft < maxWrites-1 {
			l.wantWrite(i, e, nowMs, false)
		}
	}
	return v
}

// wantWrite schedules a write of e's count and, with read, a read of the others'.
func (l *Limiter) wantWrite(i uint32, e *entry, nowMs int64, read bool) {
	e.flags |= fDirty
	if read {
		e.flags |= fReadDue
	}
	l.schedule(i, e, max(nowMs, l.abs(e.writeAt)))
}

// Peek returns the verdict client k would get at nowMs without counting a request (for
// answers that do not count: preflights, other methods, paths outside the API).
func (l *Limiter) Peek(k Key, nowMs int64) Verdict {
	now := text.FloorDiv(nowMs, 1000)
	l.advance(now)
	total := int64(0)
	if i := l.find(k, false); i != noEntry {
		total = int64(l.table[i].n) + int64(l.table[i].remote)
	}
	v := Verdict{Limit: l.limit, Remaining: max(l.limit-total, 0), Reset: l.start + l.window - now, Allowed: total < l.limit}
	return v
}

// Due reports whether the shell should call KVPending at nowMs (the Worker's glue
// does, after the response is made): an operation is due, or one was scheduled that
// the glue's timer does not cover.
func (l *Limiter) Due(nowMs int64) bool {
	return nowMs >= l.pauseUntil && (nowMs >= l.nextDue || (l.nextDue != kvNoDue && !l.announced))
}

const noEntry = ^uint32(0)

// find returns the index of k's entry in the current window; when there is none it
// returns noEntry, or with insert a fresh entry (evicting as described above).
func (l *Limiter) find(k Key, insert bool) uint32 {
	h := (k.Hi^l.seed)*0x9E3779B97F4A7C15 ^ (k.Lo+l.seed)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	base := uint32((h>>32)*l.sets>>32) * ways
	victim, vScore, vSeen := noEntry, uint64(1<<63), uint32(0)
	for i := base; i < base+ways; i++ {
		e := &l.table[i]
		if e.win != l.win {
			if victim == noEntry || vScore != 0 {
				victim, vScore = i, 0 // free: an ended window's entry, or never used
			}
			continue
		}
		if e.key == k {
			return i
		}
		if s := uint64(e.n) + uint64(e.remote); victim == noEntry || s < vScore || (s == vScore && vScore != 0 && e.seen < vSeen) {
			victim, vScore, vSeen = i, s, e.seen
		}
	}
	if !insert {
		return noEntry
	}
	e := &l.table[victim]
	if e.win == l.win {
		l.evictions++ // a live entry: its pending KV operations are dropped with it (KVPending skips it)
	}
	*e = entry{key: k, win: l.win}
	return victim
}

// advance starts a new window when now is past the current one: the counts of an
// ended window, and its pending KV operations, are never needed again (its entries
// are free from now on).
func (l *Limiter) advance(now int64) {
	start := text.FloorDiv(now, l.window) * l.window
	if start != l.start || l.win == 0 {
		l.start = start
		l.win = uint32(start/l.window) + 1
		if l.win == 0 {
			l.win = 1
		}
		l.due = l.due[:0]
		l.nextDue = kvNoDue
	}
}

// rel and abs convert between unix ms and the window-relative ms of entries.
func (l *Limiter) rel(nowMs int64) uint32 {
	return uint32(min(max(nowMs-l.start*1000, 0), 1<<32-1))
}
func (l *Limiter) abs(rel uint32) int64 { return l.start*1000 + int64(rel) }

func (l *Limiter) schedule(i uint32, e *entry, when int64) {
	if e.flags&fQueued == 0 {
		if len(l.due) == cap(l.due) {
			return // full: the client's counts stay local until a later request
		}
		e.flags |= fQueued
		l.due = append(l.due, i)
	}
	if when < l.nextDue {
		l.nextDue = when
		l.announced = false
	}
}

// ensureID draws this instance's id and slot once.
func (l *Limiter) ensureID() {
	if l.id != 0 {
		return
	}
	var b [8]byte
	if l.random != nil {
		l.random(b[:])
	}
	l.id = binary.LittleEndian.Uint64(b[:]) | 1 // never 0: 0 is "no id"
	l.slot = int((l.id >> 8) % kvSlots)
}

// The KV operation lists exchanged with the glue. All integers little endian; a
// string is u32 length + bytes.
//
// KVPending: u32 total | u32 ms until the next operation falls due (0: none
// scheduled) | u32 n ops | n x (u32 n strings | strings). An op is
// ["put", key, value, expirationTtl seconds] or ["get", key1, ..., keyN] (one bulk get).
//
// KVDone: u32 n records | n x (u32 n strings | strings). A record is
// ["put", key, "1" ok | "0" failed] or ["get", key, "1" | "0", value ("" when absent)];
// the records of one bulk get follow each other.

// KVPending appends to dst the KV operations due at nowMs, marks them as handed over,
// and returns dst. It never blocks and never fails.
func (l *Limiter) KVPending(dst []byte, nowMs int64) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	ops := 0
	now := text.FloorDiv(nowMs, 1000)
	if l.start != text.FloorDiv(now, l.window)*l.window {
		l.advance(now) // the window ended without a request: its operations are moot
	}
	if nowMs >= l.pauseUntil {
		l.ensureID()
		rel := l.rel(nowMs)
		kept := l.due[:0]
		for _, i := range l.due {
			e := &l.table[i]
			if e.win != l.win || e.flags&fQueued == 0 {
				continue // evicted meanwhile
			}
			if ops < kvMaxOps && e.flags&fReadDue != 0 && (e.flags&fDirty == 0 || rel >= e.writeAt || e.slot == 0) {
				dst = binary.LittleEndian.AppendUint32(dst, 1+kvSlots)
				dst = appendField(dst, "get")
				for s := 0; s < kvSlots; s++ {
					dst = l.appendKey(dst, s, e.key)
				}
				e.flags = e.flags&^fReadDue | fReading
				e.readAt = max(rel, 1)
				ops++
			}
			if ops < kvMaxOps && e.flags&(fDirty|fReading) == fDirty && rel >= e.writeAt && e.slot != 0 {
				dst = binary.LittleEndian.AppendUint32(dst, 4)
				dst = appendField(dst, "put")
				dst = l.appendKey(dst, int(e.slot-1), e.key)
				dst = appendLenPrefixed(dst, func(b []byte) []byte {
					b = text.AppendHex64(b, l.id)
					b = append(b, ':')
					return jsonw.AppendInt(b, int64(e.n))
				})
				ttl := l.start + l.window - now + kvMinTTL
				dst = appendLenPrefixed(dst, func(b []byte) []byte { return jsonw.AppendInt(b, ttl) })
				e.written, e.writeAt = e.n, rel+kvWriteGapMs
				e.flags &^= fDirty
				e.nw++
				ops++
			}
			if e.flags&(fDirty|fReadDue|fReading) == 0 {
				e.flags &^= fQueued
				continue
			}
			kept = append(kept, i)
		}
		l.due = kept
	}
	l.recompute(nowMs)
	wait := l.wait(nowMs)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	binary.LittleEndian.PutUint32(dst[at+4:], uint32(wait))
	binary.LittleEndian.PutUint32(dst[at+8:], uint32(ops))
	return dst
}

// appendField appends s as a string of the KV operation lists: u32 length + bytes.
func appendField(dst []byte, s string) []byte {
	return bytebuf.Put(bytebuf.PutU32(dst, uint32(len(s))), s)
}

// readU32 reads the u32 at off; it returns the value, the offset after it, and false
// when buf is too short.
func readU32(buf []byte, off int) (uint32, int, bool) {
	if off < 0 || len(buf)-off < 4 {
		return 0, off, false
	}
	return binary.LittleEndian.Uint32(buf[off:]), off + 4, true
}

// readField reads the string at off (u32 length + bytes); it returns its bytes
// (aliasing buf), the offset after it, and false when buf is too short.
func readField(buf []byte, off int) ([]byte, int, bool) {
	n, at, ok := readU32(buf, off)
	if !ok || uint64(n) > uint64(len(buf)-at) {
		return nil, off, false
	}
	return buf[at : at+int(n)], at + int(n), true
}

// recompute sets nextDue from the due list (at most dueCap entries).
func (l *Limiter) recompute(nowMs int64) {
	next := int64(kvNoDue)
	for _, i := range l.due {
		e := &l.table[i]
		switch {
		case e.flags&fReading != 0: // its read is on its way: KVDone reschedules it
		case e.flags&fReadDue != 0 && (e.flags&fDirty == 0 || e.slot == 0):
			next = min(next, nowMs)
		case e.flags&(fDirty|fReadDue) != 0:
			next = min(next, l.abs(e.writeAt))
		}
	}
	if len(l.due) > 0 && next < l.pauseUntil {
		next = l.pauseUntil
	}
	l.nextDue = next
}

// wait returns the ms until nextDue (at least 1; 0: nothing scheduled) and marks it
// announced: the glue's timer covers it.
func (l *Limiter) wait(nowMs int64) int64 {
	if l.nextDue == kvNoDue {
		l.announced = false
		return 0
	}
	l.announced = true
	return min(max(l.nextDue-nowMs, 1), 1<<31)
}

// KVDone takes the outcomes of operations KVPending listed (in the form described
// above) at nowMs, and returns the ms until the next operation falls due (0: none
// scheduled): the glue sets its timer to it. Counts read are merged; a failed
// operation is retried after kvBackoffMs. Malformed input is ignored as far as it is
// malformed.
func (l *Limiter) KVDone(buf []byte, nowMs int64) int64 {
	n, off, ok := readU32(buf, 0)
	g := getSum{i: noEntry}
	for i := uint32(0); i < n && ok; i++ {
		var nf uint32
		nf, off, ok = readU32(buf, off)
		if !ok || nf < 3 || nf > 4 {
			break
		}
		var f [4][]byte
		for j := uint32(0); j < nf && ok; j++ {
			f[j], off, ok = readField(buf, off)
		}
		if !ok {
			break
		}
		l.done(&g, text.BytesString(f[0]), text.BytesString(f[1]), len(f[2]) == 1 && f[2][0] == '1', text.BytesString(f[3]), nowMs)
	}
	l.finishGet(&g, nowMs)
	l.recompute(nowMs)
	return l.wait(nowMs)
}

// getSum adds up the records of one bulk get of a client's keys.
type getSum struct {
	i      uint32 // the entry (noEntry: none)
	ids    [kvSlots]uint64
	counts [kvSlots]uint64 // the largest count of each other isolate (ids) read
	taken  uint8           // slots holding another isolate's count
	failed bool
}

// finishGet merges one bulk get: the others' counts, and this isolate's slot for the
// client. The slot is chosen after the first read, free of other isolates' counts
// (from the isolate's default slot on), so two isolates rarely share one; when a read
// shows another isolate's count in this isolate's slot (both chose it at once), this
// isolate moves to a free slot and writes its whole count there.
func (l *Limiter) finishGet(g *getSum, nowMs int64) {
	if g.i != noEntry {
		l.table[g.i].flags &^= fReading
	}
	if g.i != noEntry && !g.failed {
		e := &l.table[g.i]
		sum := uint64(0)
		for _, c := range g.counts {
			sum += c
		}
		if uint64(e.remote) < sum { // a sum of counts never shrinks in a window
			e.remote = uint32(min(sum, 1<<32-1))
		}
		if e.slot == 0 || g.taken&(1<<(e.slot-1)) != 0 {
			moved := e.slot != 0
			for k := 0; k < kvSlots; k++ {
				if c := (l.slot + k) % kvSlots; g.taken&(1<<c) == 0 {
					e.slot = uint8(c + 1)
					break
				}
			}
			if e.slot == 0 {
				e.slot = uint8(l.slot + 1) // all taken: share the default
			}
			if moved && e.n > 0 && e.nw < maxWrites {
				e.flags |= fDirty
			}
		}
		if e.flags&fDirty != 0 {
			l.schedule(g.i, e, max(nowMs, l.abs(e.writeAt)))
		}
	}
	*g = getSum{i: noEntry}
}

func (l *Limiter) done(g *getSum, kind, key string, ok bool, value string, nowMs int64) {
	start, slot, client, good := parseKey(key)
	if !good || start != l.start || slot >= kvSlots {
		return // another window's key: its counts no longer matter
	}
	i := l.find(client, false)
	if i == noEntry {
		return
	}
	e := &l.table[i]
	if kind == "get" && g.i != i {
		l.finishGet(g, nowMs)
		g.i = i
	}
	if !ok {
		if kind == "get" {
			g.failed = true
		}
		l.pauseUntil = nowMs + kvBackoffMs
		switch kind {
		case "put":
			e.flags |= fDirty
			e.writeAt = max(e.writeAt, l.rel(l.pauseUntil))
		case "get":
			e.flags |= fReadDue
		}
		l.schedule(i, e, l.pauseUntil)
		return
	}
	if kind != "get" || value == "" {
		return
	}
	// An isolate's count is counted once, even if it is in two slots (it moved).
	if id, cnt, good := parseValue(value); good && id != l.id {
		g.taken |= 1 << slot
		for k := range g.ids {
			if g.ids[k] == id || g.ids[k] == 0 {
				g.ids[k], g.counts[k] = id, max(g.counts[k], uint64(cnt))
				break
			}
		}
	}
}

// appendKey appends the length-prefixed KV key of client's slot in the current window.
func (l *Limiter) appendKey(dst []byte, slot int, client Key) []byte {
	return appendLenPrefixed(dst, func(b []byte) []byte {
		b = append(b, "rl:"...)
		b = jsonw.AppendInt(b, l.start)
		b = append(b, ':')
		b = jsonw.AppendInt(b, int64(slot))
		b = append(b, ':')
		return appendClient(b, client)
	})
}

// parseKey splits "rl:<start>:<slot>:<client>".
func parseKey(k string) (start int64, slot int, client Key, ok bool) {
	if len(k) < 3 || k[:3] != "rl:" {
		return 0, 0, Key{}, false
	}
	k = k[3:]
	i := strings.IndexByte(k, ':')
	if i < 0 {
		return 0, 0, Key{}, false
	}
	start, ok = parseDecimal(k[:i])
	k = k[i+1:]
	j := strings.IndexByte(k, ':')
	if !ok || j < 0 {
		return 0, 0, Key{}, false
	}
	s, ok := parseDecimal(k[:j])
	if !ok || s >= kvSlots {
		return 0, 0, Key{}, false
	}
	client, ok = parseClient(k[j+1:])
	return start, int(s), client, ok
}

// parseValue splits "<16 hex id>:<count>".
func parseValue(v string) (id uint64, n int64, ok bool) {
	i := strings.IndexByte(v, ':')
	if i != 16 {
		return 0, 0, false
	}
	for k := 0; k < 16; k++ {
		c := v[k]
		switch {
		case c >= '0' && c <= '9':
			id = id<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			id = id<<4 | uint64(c-'a'+10)
		default:
			return 0, 0, false
		}
	}
	n, ok = parseDecimal(v[17:])
	return id, n, ok && id != 0
}

// parseDecimal parses a non-negative decimal of at most 18 digits.
func parseDecimal(s string) (int64, bool) {
	if len(s) > 18 {
		return 0, false
	}
	return text.Digits(s, 1<<62)
}

// appendLenPrefixed appends a u32 length and what f appends.
func appendLenPrefixed(dst []byte, f func([]byte) []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = f(dst)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// Bound is the most requests of one client that k isolates on one consistent KV allow
// in a window of limit requests, each isolate seeing rate requests per second of it and
// KV operations taking latency seconds (RATIONALE.md, "Why is the rate limit counted in
// the isolate and shared through KV?"). What an isolate has not seen of another when it allows its last request
// is at most: what the other has not written yet (less than a step), plus what the
// other allowed after this isolate's last read (this isolate reads at each of its steps,
// and near the limit, once it has seen another isolate, every re-read period: at most
// a step, or rate x the period), plus what the other allowed while its write and this
// isolate's read were on their way (the write gap and four KV latencies: the other's
// read before its write, the write, this isolate's read).
func Bound(limit int64, k int, rate, latency float64) int64 {
	step := float64((limit + 10) / 11)
	missed := step - 1 + max(step, rate*reReadMs/1000) + rate*(kvWriteGapMs/1000.0+4*latency)
	b := float64(limit) + float64(k-1)*missed
	return min(int64(b), int64(k)*limit)
}

// staticTable is the table of the process's first full-size Limiter (the Worker's one
// per instance): a zero-initialised global, so an instance starts without allocating
// and zeroing 2 MiB (the engine's fresh memory is already zero; its pages are touched
// as sets are used). The module is built without a collector (-gc=leaking), so
// nothing scans these 2 MiB.
var (
	staticTable [TableBytes / (entrySize * ways) * ways]entry
	staticTaken atomic.Bool
)

// newTable returns a zeroed table of n entries: staticTable the first time one of its
// size is asked for, a new slice after that (tests build many Limiters; no two share).
func newTable(n int) []entry {
	if n == len(staticTable) && staticTaken.CompareAndSwap(false, true) {
		return staticTable[:]
	}
	return make([]entry, n)
}
