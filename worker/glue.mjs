// The Worker's entry: a small JS glue around the TinyGo module (app.wasm).
//
// Why hand-written: syumai/workers' glue starts a new Go instance per request and
// crosses syscall/js per header; this glue keeps ONE instance per isolate and makes ONE
// synchronous call per request, passing bytes through the module's linear memory
// (the ABI of core/abi.go). Measured on the real workerd against a plain JS worker
// returning the same bytes: 0.009x-0.12x for the syumai paths (prototypes), 0.84-0.88x
// for this one, 0.69-0.72x with the per-request log line (BENCHMARKS.md).
//
// A trap (a Go panic: TinyGo on wasm cannot recover) drops the instance; the request
// is retried once on a fresh instance, and every later request gets the fresh one.
//
// The live inventory (docs/inventory.md): the bookings come from the INVENTORY KV
// namespace, read in the background; only the requests whose answer reads the bookings,
// while an isolate's first read is under way, wait on KV.
//
// The functions an isolate's first request runs (from fetch to the answer, the
// instance's making and the first inventory read) are written as parenthesized function
// expressions, `const f = (function f() { ... });`: V8 compiles such a function when it
// parses the script (its heuristic for an expression that is about to be called)
// instead of pre-parsing it at load and parsing it again at its first call. esbuild
// keeps the parentheses. Issue 16, session 32: 1.3 M fewer instructions to the first
// answer (79.8 -> 78.5 M under callgrind from a binary config), the rest of the
// functions left lazy.
import wasmModule from "./app.wasm";

const enc = new TextEncoder();
const dec = new TextDecoder();

// The request headers core reads (lower case). Nothing else crosses into Go.
// The first GET_HEADERS are all a GET or HEAD needs (the rate limit's client, and
// If-None-Match); the rest only matter to OPTIONS and POST (CORS and the MCP
// endpoint), so a GET neither reads nor passes them (core treats a header that is not
// passed as empty): every request.headers.get is a call into the runtime. A GET or
// HEAD under one of the module's validator-free paths (the quotes': validatorFree)
// reads only the first: no answer there has an ETag to match.
const HEADERS = ["cf-connecting-ip", "if-none-match", "origin",
  "content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];
const GET_HEADERS = 2;
// The Worker vars core reads (wrangler.toml [vars]) and its secret QUOTE_SIGNING_KEYS.
const VARS = ["BASE_PATH", "WEB_URL", "QUOTE_TTL_SECONDS", "RATE_LIMIT_REQUESTS",
  "RATE_LIMIT_WINDOW_SECONDS", "MAINTENANCE", "CACHE_MAX_AGE_SECONDS",
  "SEARCH_MAX_AGE_SECONDS", "RETRY_AFTER_SECONDS", "MCP_ALLOWED_ORIGINS", "QUOTE_SIGNING_KEYS"];
// The most bytes of a POST body core takes (the MCP endpoint); one more byte tells it
// the body is too long, and it answers 413 as it would for the whole body.
const MAX_BODY = 65536;
const NO_BODY = new Uint8Array(0);
// The answer to a request whose body cannot be read (the body's stream failed).
const BODY_FAILED = '{"error":"the request body could not be read (a malformed chunked encoding, a body shorter than its Content-Length, or an upload that was aborted); send the JSON-RPC message again","code":"invalid_request","param":"body"}';
const BODY_FAILED_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store",
  "access-control-allow-origin": "*", "x-content-type-options": "nosniff" };

// REQUEST_LOG var, read with the instance: 2 = a line for every request ("all" or
// "true"), 1 = only for the answers an operator acts on, 4xx but 429 and 5xx ("errors",
// the default), 0 = none ("off" or "false"). Workers Logs (wrangler.toml
// [observability]) records every invocation anyway, with its URL, status, CPU and wall
// time; the line adds our route name, and costs ~15 us CPU (BENCHMARKS.md).
let logLevel = 1;
let app = null; // the instance: { ex: exports, mem, views of mem, request buffer ptr/cap, header table }
// This request's header values, reused (one request at a time per isolate).
const HV_ALL = new Array(HEADERS.length).fill("");
const HV_GET = new Array(GET_HEADERS).fill("");
const HV_CLIENT = [""]; // the client's address alone (validatorFree)
// The module's validator-free paths (api.Server.ValidatorFreePaths), read with the
// first instance; null until then.
let validatorFreePaths = null;

// Tier-up settling (session 22, issue 16). V8 compiles a hot function's optimized code
// on a background thread and asks the isolate's thread to install it with an interrupt;
// workerd takes the isolate lock for each piece of work, and V8 clears the interrupts
// pending when a thread takes the lock afresh (StackGuard::InitThread). A compile that
// finishes while the isolate is unlocked (between two requests) is therefore never
// installed: the function stays marked "optimizing" and runs its baseline code for the
// isolate's whole life. Under load that took the glue's fetch, answer and call in most
// runs (V8's %GetOptimizationStatus, scratch runs): ~13 us of CPU a depots request,
// 0.82 of the floor instead of 0.95. Any compile that finishes while the lock is held
// installs every finished one, so at the 1,024th request and every doubling after, the
// glue runs one loop of SETTLE after the response (ctx.waitUntil): long enough
// (SETTLE_SPIN iterations, ~7 ms under node) for V8 to compile the loop itself (on-stack
// replacement) while it runs, which installs whatever was left waiting. Each loop is its
// own function literal, so each settle compiles something new (closures made by one
// literal, from a factory, would share its compiled code and compile once); 16 of them
// cover an isolate's first ~34 M requests.
const SETTLE_FIRST = 1024, SETTLE_SPIN = 1000000;
const SETTLE = [
  (n) => { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 1; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 2; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 3; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 4; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 5; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 6; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 7; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 8; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 9; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 10; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 11; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 12; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 13; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 14; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
  (n) => { let x = 15; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; },
];
const settled = { served: 0, at: SETTLE_FIRST, next: 0, sink: 0 }; // sink: the loops' results, so none is dead code

// settle runs the next loop of SETTLE after this request's response.
function settle(ctx) {
  settled.at *= 2;
  const loop = SETTLE[settled.next++];
  if (loop === undefined || !ctx) return;
  ctx.waitUntil(new Promise((resolve) => setTimeout(() => { settled.sink ^= loop(SETTLE_SPIN); resolve(); }, 0)));
}

// wasi returns the WASI functions the module imports: fd_write (stdout and stderr, to
// the console), clock_time_get, random_get, and args_sizes_get/args_get (no arguments).
// Only these five: a build that imported another would fail to instantiate (a LinkError
// naming it), in every test. Issue 16, session 32: the glue's functions an isolate's
// first request runs are compiled with the script, and the fifteen stubs of the
// preview1 functions TinyGo's reactor no longer imports were compiled with them.
const wasi = (function wasi(state) {
  const EBADF = 8;
  let dv = null; // re-made only after memory grew
  const view = () => (dv !== null && dv.buffer === state.mem.buffer ? dv : (dv = new DataView(state.mem.buffer)));
  const lines = { 1: "", 2: "" };
  return {
    fd_write(fd, iovs, iovsLen, nwritten) {
      const dv = view();
      const u8 = new Uint8Array(state.mem.buffer);
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const p = dv.getUint32(iovs + i * 8, true), l = dv.getUint32(iovs + i * 8 + 4, true);
        if (fd === 1 || fd === 2) lines[fd] += dec.decode(u8.subarray(p, p + l));
        n += l;
      }
      if (fd === 1 || fd === 2) {
        let nl;
        while ((nl = lines[fd].indexOf("\n")) >= 0) {
          const line = lines[fd].slice(0, nl);
          lines[fd] = lines[fd].slice(nl + 1);
          (fd === 2 ? console.error : console.log)(line);
        }
      }
      dv.setUint32(nwritten, n, true);
      return fd === 1 || fd === 2 ? 0 : EBADF;
    },
    random_get: (function random_get(buf, len) {
      const u8 = new Uint8Array(state.mem.buffer, buf, len);
      for (let i = 0; i < len; i += 65536) crypto.getRandomValues(u8.subarray(i, Math.min(len, i + 65536)));
      return 0;
    }),
    // Nanoseconds as two 32-bit halves, exact in doubles (ms < 2^44, lo * 1e6 < 2^52),
    // without BigInt arithmetic (two BigInts a call). A request's clock comes with it
    // (call: handle(n, now)); this serves the rate limiter's KV schedule and start-up.
    clock_time_get: (function clock_time_get(id, precision, out) {
      const ms = Date.now(), dv = view();
      const lo = ms % 4294967296, l = lo * 1000000, ll = l % 4294967296;
      dv.setUint32(out, ll, true);
      dv.setUint32(out + 4, ((ms - lo) / 4294967296) * 1000000 + (l - ll) / 4294967296, true);
      return 0;
    }),
    args_sizes_get(argc, size) { const dv = view(); dv.setUint32(argc, 0, true); dv.setUint32(size, 0, true); return 0; },
    args_get() { return 0; },
  };
});

// The request's fixed header names, encoded once with their u32 length prefixes, as
// little-endian 32-bit words (the last one padded): writeRequest stores them with
// DataView stores, which V8's optimized code does inline, where a typed array's set is
// a call into a builtin (session 27, ~180 instructions a name in workerd). The padding
// lands on the bytes the value's length prefix overwrites next.
const NAME_FIELDS = HEADERS.map((h) => {
  const b = enc.encode(h);
  const n = 4 + b.length, f = new Uint8Array((n + 3) & ~3);
  const dv = new DataView(f.buffer);
  dv.setUint32(0, b.length, true);
  f.set(b, 4);
  const words = [];
  for (let k = 0; k < f.length; k += 4) words.push(dv.getUint32(k, true));
  return { n, words };
});

// views returns typed-array views of the module's memory, re-made only after it grew.
// Growth detaches the old ArrayBuffer, whose byteLength is then 0: that check is a load
// in V8's optimized code, where memory.buffer is a call into the runtime (issue 16:
// twice a request, in ensure and after handle). putString's long view goes with them.
const views = (function views(a) {
  if (a.buf === null || a.buf.byteLength === 0) {
    a.buf = a.mem.buffer;
    a.u8 = new Uint8Array(a.buf);
    a.dv = new DataView(a.buf);
    a.longAt = -1;
    a.bodyView = null;
  }
});

// putString writes [u32 len][UTF-8 bytes] at p and returns the next offset. A string
// longer than PUT_LOOP_MAX (the request's URL) goes through TextEncoder.encodeInto in
// one call; a short one (the method, a client address, an ETag) byte by byte, cheaper
// than a call into the runtime, and anything not ASCII through encodeInto. Issue 16: under
// workerd the loop over the target (a slice of request.url) was the glue's largest cost;
// with encodeInto a search costs workerd 690.2 K instructions instead of 694.1 K
// (callgrind over workerd, BENCHMARKS.md). encodeInto writes into a view kept from the
// last long string (a.longView, to the end of the request buffer), made again only
// when the position or the memory changed: with request.url passed whole (no slice,
// core keeps its path: wire.DecodeRequest), ~4 K instructions a request less in
// workerd (session 20). PUT_LOOP_MAX is 45, the longest text form of an IPv6 address
// (an IPv4-mapped one in full), so that a client's address, which changes on every
// request, never takes the URL's kept view away (session 27): with 24, a full-length
// address (39 characters) went through encodeInto too, and each request made two views
// and two of encodeInto's result objects. Over the floor, by make bench-instructions
// (whole collection cycles): depots 21.1 -> 18.1 K, availability 47.3 -> 45.1 K, quotes
// 48.9 -> 47.5 K. Session 26's count of this change (quotes +14 K) was the
// fixed-window artefact build/bench/served.go now avoids.
// Every caller leaves 3 bytes per UTF-16 unit.
const PUT_LOOP_MAX = 45;
const putString = (function putString(a, p, s) {
  const u8 = a.u8, n = s.length;
  let i = 0;
  if (n > PUT_LOOP_MAX) {
    if (a.longAt !== p) { // views() and ensure() reset longAt when the memory or the buffer changed
      a.longView = u8.subarray(p + 4, a.ptr + a.cap);
      a.longAt = p;
    }
    const w = enc.encodeInto(s, a.longView).written;
    a.dv.setUint32(p, w, true);
    return p + 4 + w;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) break;
    u8[p + 4 + i] = c;
  }
  if (i < n) i += enc.encodeInto(s.slice(i), u8.subarray(p + 4 + i)).written;
  a.dv.setUint32(p, i, true);
  return p + 4 + i;
});

// ensure makes the module's request buffer hold at least size bytes (one alloc call
// only when it must grow) and returns its address.
const ensure = (function ensure(a, size) {
  if (size > a.cap) {
    a.cap = Math.max(size, 2 * a.cap, 4096);
    a.ptr = a.ex.alloc(a.cap);
    a.longAt = -1; // putString's view was of the old buffer
  }
  views(a);
  return a.ptr;
});

// writeRequest writes method, target, the first count headers (names[i] pre-encoded when nameFields
// is given) and body (bytes) into the module's buffer; returns the byte length. Every
// string takes at most 3 bytes per UTF-16 unit.
const writeRequest = (function writeRequest(a, method, target, names, values, nameFields, body, count) {
  let size = 16 + 3 * (method.length + target.length) + body.length;
  for (let i = 0; i < count; i++) size += 8 + 3 * (names[i].length + values[i].length);
  const base = ensure(a, size);
  let p;
  if (method === "GET") { // most requests: two stores, not putString's loop (the byte after "GET" is the next field's)
    a.dv.setUint32(base, 3, true);
    a.dv.setUint32(base + 4, 0x544547, true);
    p = base + 7;
  } else {
    p = putString(a, base, method);
  }
  p = putString(a, p, target);
  a.dv.setUint32(p, count, true);
  p += 4;
  for (let i = 0; i < count; i++) {
    if (nameFields) {
      const f = nameFields[i], w = f.words, dv = a.dv;
      for (let k = 0; k < w.length; k++) dv.setUint32(p + 4 * k, w[k], true);
      p += f.n;
    } else {
      p = putString(a, p, names[i]);
    }
    p = putString(a, p, values[i]);
  }
  a.dv.setUint32(p, body.length, true);
  if (body.length > 0) a.u8.set(body, p + 4);
  return p + 4 + body.length - base;
});

const instantiate = (function instantiate(env) {
  const state = { mem: null };
  const instance = new WebAssembly.Instance(wasmModule, { wasi_snapshot_preview1: wasi(state) });
  const mib = Number(env && env.INSTANCE_MEMORY_MIB);
  const a = { ex: instance.exports, mem: instance.exports.memory, buf: null, u8: null, dv: null, ptr: 0, cap: 0,
    hdrs: new Array(HEADER_SLOTS).fill(null), // the glue's half of the header table, as empty as the module's
    longView: null, longAt: -1, // putString's view for long strings
    status: 0, headers: null, body: null, bodyView: null, bodyAt: 0, // the last answer (call)
    prevList: null, prevSimple: false, prevHeaders: null, prevHeadersObj: null, prevRoute: "-", prevKV: false, // the last answer's headers (readAnswerHeaders)
    renewAt: (mib >= 4 && mib <= 1024 ? mib : RENEW_MIB) * 1048576 }; // renew() at this much memory
  state.mem = a.mem;
  a.ex._initialize();
  const rl = env && env.REQUEST_LOG != null ? String(env.REQUEST_LOG).toLowerCase() : "errors";
  logLevel = rl === "all" || rl === "true" ? 2 : rl === "off" || rl === "false" || rl === "none" ? 0 : 1;
  const names = [], values = [];
  for (const k of VARS) {
    if (env && env[k] !== undefined && env[k] !== null) { names.push(k); values.push(String(env[k])); }
  }
  a.ex.configure(writeRequest(a, "", "", names, values, null, NO_BODY, names.length));
  if (validatorFreePaths === null) validatorFreePaths = stringList(a, a.ex.validator_free_paths());
  // A fresh instance (an isolate's first, or after a trap) starts from the bundled
  // bookings: it gets the last inventory this isolate took, without waiting on KV.
  if (inv.blob !== null) {
    try {
      if (inventoryApply(a, inv.blob) !== 0) inv.blob = null;
    } catch (err) { inv.blob = null; throw err; } // the retry starts from the bundled bookings
  }
  views(a);
  a.renewAt = Math.max(a.renewAt, 2 * a.buf.byteLength); // a bound below a fresh instance's memory would renew it at once
  return a;
});

// Renewal. The module is built with TinyGo's leaking allocator (RATIONALE.md, "No
// garbage collector"): it never frees, and in return its code keeps no GC bookkeeping
// (issue 16: ~8 K instructions of a search, 14% of the module's size). The 200 answers of
// the GET routes allocate nothing (make allocs); an error answer, an MCP call or an
// inventory update does (~0.3-2.3 KB a request). When the instance's memory has grown to
// renewAt (INSTANCE_MEMORY_MIB, default RENEW_MIB; TinyGo doubles the memory from 3 MiB,
// so 24 MiB means more than 12 MiB allocated), the glue replaces it between two requests
// with a fresh one, which takes the rate limiter's state (counts, KV schedule and
// identity: state_save, state_table, state_load; its 2 MiB table copied as bytes, ~2 ms
// in all under node) and the last inventory taken. An adversary cannot reset its own
// limit by making the instance grow.
const RENEW_MIB = 24;

function renew(env, ctx) {
  const old = app, memory = old.buf.byteLength;
  let head = null, table = null;
  try {
    let p = old.ex.state_save();
    views(old);
    const n = old.dv.getUint32(p, true);
    head = old.u8.subarray(p + 4, p + 4 + n);
    p += 4 + n;
    const tp = old.dv.getUint32(p, true);
    table = old.u8.subarray(tp, tp + old.dv.getUint32(p + 4, true));
  } catch (err) { head = null; } // the counts are lost, as after a trap
  let a, took = false;
  try {
    a = instantiate(env);
    if (head !== null) {
      const p = a.ex.state_table();
      views(a);
      const tp = a.dv.getUint32(p, true);
      if (a.dv.getUint32(p + 4, true) === table.length) a.u8.set(table, tp); // the same module: the same layout
      const q = ensure(a, head.length);
      a.u8.set(head, q);
      took = a.ex.state_load(head.length) === 0;
    }
  } catch (err) {
    old.renewAt = 2 * memory; // keep serving from the old instance; try again at twice its memory
    console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), where: "renew" }));
    return;
  }
  app = a; // instantiate set its renewAt past its own memory: a fresh instance is not renewed again at once
  console.log(JSON.stringify({ level: "info", msg: "instance renewed", memory_mib: memory / 1048576, limiter: took ? "handed over" : "started empty" }));
  // The old instance's KV timer is moot: the new one's schedule starts now.
  if (kvTimer !== null) { clearTimeout(kvTimer.id); kvTimer.resolve(); kvTimer = null; }
  const p = kvSync(a, env);
  if (p && ctx) ctx.waitUntil(p);
}

// Live inventory. KV holds "inventory/current" (a version), "inventory/<version>" (the
// blob build/publish wrote) and "inventory/latest" (the blob of the version current
// names, written after it). An isolate's first read starts with its first request and
// takes inventory/latest: one KV round trip (the module reports the blob's version); only
// when that key is missing or its blob refused does it go on to the pointer and the blob
// it names. Until it ends (at most INVENTORY_FIRST_WAIT_MS), the requests whose answer
// reads the bookings (the module's reads_inventory) wait for it, and the others (the
// depots, a vehicle's extras, a preflight) are answered at once. After that the pointer
// is read in the background (ctx.waitUntil) at most every INVENTORY_REFRESH_SECONDS, and
// the blob only when the pointer moved. The module takes a blob in one call (inventory),
// between requests, or refuses it and keeps serving the one it has. A KV failure is
// logged once per isolate; serving goes on from the last inventory taken (the bundled
// one at first).
const INVENTORY_POINTER = "inventory/current";
const INVENTORY_LATEST = "inventory/latest";
const INVENTORY_CACHE_TTL = 30; // seconds (KV's minimum): docs/inventory.md, the freshness bound
const INVENTORY_FIRST_WAIT_MS = 1000;
const inv = { pointer: null, blob: null, next: 0, pending: null, ready: null, logged: false }; // next: 0 until the first read starts

const inventoryApply = (function inventoryApply(a, bytes) {
  const p = ensure(a, bytes.length);
  a.u8.set(bytes, p);
  return a.ex.inventory(bytes.length);
});

function inventoryFail(msg, err) {
  if (inv.logged) return;
  inv.logged = true;
  console.error(JSON.stringify({ level: "error", msg: msg + "; serving the last inventory taken (logged once per isolate)", error: String(err) }));
}

// inventoryTake offers the blob read from key to the module; true when it serves. With
// version (the key names none: inventory/latest) it sets inv.pointer to the version the
// module reports for the blob, taken or refused: the pointer naming that version then
// reads nothing more.
const inventoryTake = (function inventoryTake(env, buf, key, version) {
  const bytes = new Uint8Array(buf);
  try {
    if (app === null) app = instantiate(env);
    const ok = inventoryApply(app, bytes) === 0;
    if (version) {
      const p = app.ex.inventory_version();
      views(app);
      inv.pointer = ascii(app.u8, p + 4, p + 4 + app.dv.getUint32(p, true));
    }
    if (ok) inv.blob = bytes;
    else console.error(JSON.stringify({ level: "error", msg: key + " refused (the line before says why); serving the previous version, and this one is not read again" }));
    return ok;
  } catch (err) {
    app = null;
    console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), where: "inventory" }));
    return false;
  }
});

const inventoryRefresh = (async function inventoryRefresh(env, first) {
  let ptr, buf;
  try {
    let noLatest = false;
    if (first) {
      buf = await env.INVENTORY.get(INVENTORY_LATEST, { type: "arrayBuffer", cacheTtl: INVENTORY_CACHE_TTL });
      if (buf !== null && inventoryTake(env, buf, INVENTORY_LATEST, true)) return;
      noLatest = buf === null;
    }
    ptr = await env.INVENTORY.get(INVENTORY_POINTER, { cacheTtl: INVENTORY_CACHE_TTL });
    if (ptr === null || ptr === inv.pointer) return;
    if (noLatest) { // published by a build/publish from before inventory/latest (session 11)
      console.log(JSON.stringify({ level: "warn", msg: INVENTORY_LATEST + " is missing from KV: an isolate's first read takes two KV round trips instead of one until the inventory is published again (make publish)" }));
    }
    buf = await env.INVENTORY.get("inventory/" + ptr, { type: "arrayBuffer", cacheTtl: INVENTORY_CACHE_TTL });
  } catch (err) {
    inventoryFail("inventory KV read failed", err);
    return;
  }
  if (buf === null) { // not visible here yet: read again at the next refresh
    inventoryFail("inventory/" + ptr + " is missing from KV", "not found");
    return;
  }
  inv.pointer = ptr; // tried once per version: a refused blob is not read again
  inventoryTake(env, buf, "inventory/" + ptr, false);
});

// inventoryTick starts a refresh when one is due. While the isolate's first read is
// under way it returns a promise that settles when the read ends or
// INVENTORY_FIRST_WAIT_MS have passed, whichever is first (every request of that
// window that reads the bookings awaits it, not only the first); after, null.
const inventoryTick = (function inventoryTick(env, ctx, now) {
  if (!env || !env.INVENTORY) return null;
  if (inv.pending !== null) return inv.ready; // a read is under way
  if (now < inv.next) return null; // inv.ready is null once the first read ended
  const first = inv.next === 0; // no read has started yet
  const every = Number(env.INVENTORY_REFRESH_SECONDS);
  inv.next = now + 1000 * (every > 0 ? every : 15);
  const p = inventoryRefresh(env, first).finally(() => { inv.pending = null; });
  inv.pending = p;
  ctx.waitUntil(p);
  if (first) {
    let timer;
    inv.ready = Promise.race([p, new Promise((res) => { timer = setTimeout(res, INVENTORY_FIRST_WAIT_MS); })])
      .finally(() => { clearTimeout(timer); inv.ready = null; });
  }
  return inv.ready;
});

// readsInventory asks the module whether the answer to method target reads the
// bookings (or names their version); asked only while the first read is under way. It
// makes the instance if there is none: its compile and start then overlap the read.
const NO_VALUES = [];
const readsInventory = (function readsInventory(method, target, env) {
  try {
    if (app === null) app = instantiate(env);
    return app.ex.reads_inventory(writeRequest(app, method, target, HEADERS, NO_VALUES, NAME_FIELDS, NO_BODY, 0)) !== 0;
  } catch (err) {
    app = null; // answer() makes a fresh instance, and logs if that traps too
    return true;
  }
});

// The response's headers arrive interned (core/wire/hdrtable.go): each is a slot of a
// table the module and this glue keep alike (a.hdrs), sent whole only when the slot
// changes. A repeated header costs no decoding, and its strings are the ones made the
// first time: one-byte strings, which workerd copies into the response as they are (a
// TextDecoder makes two-byte strings, which it must convert: issue 16 measured the
// decoding and the conversions at ~10 us of CPU per request).
const HEADER_SLOTS = 128, ENTRY_HIT = 0, ENTRY_STORE = 1, SAME_HEADERS = 0x8000;
const latin1 = new TextDecoder("latin1");

// ascii makes the string of bytes [p, end) of u8 (ASCII: core writes header names and
// values), a one-byte string where the length allows one call.
const ascii = (function ascii(u8, p, end) {
  return end - p <= 4096 ? String.fromCharCode.apply(null, u8.subarray(p, end)) : latin1.decode(u8.subarray(p, end));
});

// call runs one request through the module and leaves its answer in a: a.status,
// a.headers and a.body (route and kv in a.prevRoute and a.prevKV), the instance's own
// fields rather than an object a request (issue 16, session 28: every object a request
// makes brings V8's next scavenge nearer). now (Date.now()) goes with it: the module
// reads no clock of its own on a request (main_wasip1.go: handle).
const call = (function call(a, method, target, hv, reqBody, now) {
  const n = writeRequest(a, method, target, HEADERS, hv, NAME_FIELDS, reqBody, hv.length);
  const ptr = a.ex.handle(n, now);
  views(a); // memory may have grown during the call
  const dv = a.dv;
  const total = dv.getUint32(ptr, true);
  const status = dv.getUint16(ptr + 4, true);
  const nhw = dv.getUint16(ptr + 6, true);
  const bodyOff = dv.getUint32(ptr + 8, true);
  // SAME_HEADERS: the previous answer's headers, pair for pair (core/wire/hdrtable.go),
  // so its list serves again: from its second use on, as a Headers object made once
  // (readAnswerHeaders says why).
  if ((nhw & SAME_HEADERS) === 0 || a.prevList === null) {
    a.headers = readAnswerHeaders(a, ptr + 12, nhw & ~SAME_HEADERS);
  } else {
    a.headers = keptHeaders(a);
  }
  a.status = status;
  if (status === 204 || status === 304 || method === "HEAD") {
    a.body = null;
    return;
  }
  // A view, not a copy: the Response constructor copies a BufferSource's bytes (Fetch:
  // "extract a body"; workerd's JsReadableStream), before the next call can overwrite
  // them. So the view of the last answer serves again when this one has the same place
  // and length (an answer of the same size: the module writes every answer at the same
  // address), and no new view is made; views() drops it when the memory grew.
  // (The view's place is kept beside it, a.bodyAt: its byteOffset is a builtin call in
  // V8's optimized code, ~35 instructions, where its length is a load.)
  const start = ptr + bodyOff, len = total - bodyOff, v = a.bodyView;
  if (v !== null && a.bodyAt === start && v.length === len) {
    a.body = v;
  } else {
    a.body = a.bodyView = a.u8.subarray(start, start + len);
    a.bodyAt = start;
  }
});

// readAnswerHeaders reads nh interned header entries from p, updating the table, and
// returns what the Response constructor gets: the list SAME_HEADERS refers to next
// (a.prevList), with the route and kv metadata.
//
// The list goes as an object (name: value), not an array of pairs (session 20, issue 16):
// workerd's Response constructor reads an array of pairs through the JS iterator
// protocol, a call back into JS for every pair and every element, and that cost a
// depots answer ~270 K instructions, about half of all workerd spends on it; an object
// costs it ~35 K, and a Headers object, which it copies in C++, nothing more. So a list
// served a second time (SAME_HEADERS: every answer of a second while the rate-limit
// headers stand still) goes as a Headers object made from the object once.
//
// A list with the same names in the same places as the last one, some values changed
// (one client asking again: its remaining count and reset go down on every answer),
// goes as the last list's Headers object with only those values set (session 21): a
// set is a call into the runtime, a few K instructions, where a new object costs ~35 K.
// The Response constructor copied the object's headers, so changing it after changes
// no answer already made.
const readAnswerHeaders = (function readAnswerHeaders(a, p, nh) {
  const dv = a.dv, u8 = a.u8, tab = a.hdrs;
  const list = new Array(nh);
  for (let i = 0; i < nh; i++) {
    const slot = dv.getUint16(p, true), kind = dv.getUint16(p + 2, true);
    p += 4;
    if (kind === ENTRY_HIT) {
      list[i] = tab[slot];
    } else {
      const nl = dv.getUint32(p, true);
      const name = ascii(u8, p + 4, p + 4 + nl);
      p += 4 + nl;
      const vl = dv.getUint32(p, true);
      const pair = [name, ascii(u8, p + 4, p + 4 + vl)];
      p += 4 + vl;
      if (kind === ENTRY_STORE) tab[slot] = pair;
      list[i] = pair;
    }
  }
  const prev = a.prevList;
  a.prevList = list;
  if (prev !== null && a.prevSimple && prev.length === nh) {
    let i = 0;
    for (; i < nh; i++) if (list[i] !== prev[i] && list[i][0] !== prev[i][0]) break;
    if (i === nh) { // the same names in the same places: set what changed
      const h = keptHeaders(a);
      for (i = 0; i < nh; i++) {
        const pair = list[i];
        if (pair === prev[i] || pair[1] === prev[i][1]) continue;
        if (pair[0].charCodeAt(0) === 58 /* ':' */) setMeta(a, pair);
        else h.set(pair[0], pair[1]);
      }
      return h;
    }
  }
  const headers = {};
  let simple = true;
  a.prevRoute = "-"; a.prevKV = false;
  for (let i = 0; i < nh; i++) {
    const pair = list[i], name = pair[0];
    if (name.charCodeAt(0) === 58 /* ':' */) {
      setMeta(a, pair);
    } else if (headers[name] === undefined) {
      headers[name] = pair[1]; // shared between responses: the Response constructor only reads it
    } else {
      headers[name] += ", " + pair[1]; // a repeated name: as Headers.append joins them
      simple = false; // a set would replace the joined values: this list is not set in place
    }
  }
  a.prevHeaders = headers; a.prevHeadersObj = null; a.prevSimple = simple;
  return headers;
});

// keptHeaders returns the last list as a Headers object, made from its object on first
// use (a.prevHeadersObj, when set, is always the last list's: readAnswerHeaders keeps it so).
function keptHeaders(a) {
  return a.prevHeadersObj ?? (a.prevHeadersObj = new Headers(a.prevHeaders));
}

// setMeta takes a pseudo-header of the answer's list: the route's name for the log
// line, and whether rate-limit KV work is due.
const setMeta = (function setMeta(a, pair) {
  if (pair[0] === ":route") a.prevRoute = pair[1];
  else if (pair[0] === ":kv") a.prevKV = pair[1] !== "0";
});

// Rate-limit write-behind. core decides which KV operations run and when (kv_pending:
// a client's count when it crosses a step, at most once a second per key, with a bulk
// read of the other isolates' counts); the glue only runs them after the response,
// under ctx.waitUntil, and hands the outcomes back (kv_done). Both calls return when the
// next operation falls due; the glue keeps ONE timer, at the earliest of them. A KV
// failure never fails a request: it is logged once per isolate and core retries later.
// Reads ask KV's edge cache for at most 30 s (cacheTtl: KV's minimum; its default is 60).
const KV_CACHE_TTL = 30;
let kvTimer = null; // the one pending timer: { at (ms), id, resolve }
let kvLogged = false;

function kvFail(err) {
  if (kvLogged) return;
  kvLogged = true;
  console.error(JSON.stringify({ level: "error", msg: "rate-limit KV operation failed; counting in this isolate only and retrying later (logged once per isolate)", error: String(err) }));
}

function kvDrop(err) {
  app = null;
  console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), where: "kv" }));
}

// kvAt makes the one timer fire wait ms from now, unless it already fires sooner; it
// returns a promise for ctx.waitUntil, or null when the running timer covers it. A
// timer replaced by an earlier one resolves at once (its waitUntil ends).
function kvAt(a, env, wait) {
  if (wait <= 0) return null;
  const at = Date.now() + wait;
  if (kvTimer !== null && kvTimer.at <= at) return null;
  if (kvTimer !== null) { clearTimeout(kvTimer.id); kvTimer.resolve(); }
  const t = { at, id: 0, resolve: null };
  const p = new Promise((res) => { t.resolve = res; });
  t.id = setTimeout(() => {
    if (kvTimer === t) kvTimer = null;
    t.resolve(kvSync(a, env));
  }, wait);
  kvTimer = t;
  return p;
}

// kvSync runs the operations due now and schedules the next round; it returns a
// promise for ctx.waitUntil, or null when there is nothing to do.
function kvSync(a, env) {
  if (a !== app) return app !== null ? kvSync(app, env) : null; // the instance was replaced: the timer serves the current one
  let ptr;
  try { ptr = a.ex.kv_pending(); } catch (err) { kvDrop(err); return null; }
  views(a);
  const dv = a.dv, u8 = a.u8;
  const wait = dv.getUint32(ptr + 4, true), n = dv.getUint32(ptr + 8, true);
  const ops = [];
  let p = ptr + 12;
  for (let i = 0; i < n; i++) {
    const nf = dv.getUint32(p, true);
    p += 4;
    const op = [];
    for (let j = 0; j < nf; j++) {
      const l = dv.getUint32(p, true);
      op.push(dec.decode(u8.subarray(p + 4, p + 4 + l)));
      p += 4 + l;
    }
    ops.push(op);
  }
  const work = [];
  if (ops.length > 0) work.push(kvRun(a, env, env && env.RATE_LIMIT, ops));
  const t = kvAt(a, env, wait);
  if (t) work.push(t);
  return work.length > 0 ? Promise.all(work) : null;
}

async function kvRun(a, env, kv, ops) {
  const recs = [];
  await Promise.all(ops.map(async (op) => {
    if (op[0] === "put") {
      let ok = "1";
      try { await kv.put(op[1], op[2], { expirationTtl: Number(op[3]) }); } catch (err) { ok = "0"; kvFail(err); }
      recs.push(["put", op[1], ok]);
    } else if (op[0] === "get") {
      const keys = op.slice(1);
      try {
        const m = await kv.get(keys, { type: "text", cacheTtl: KV_CACHE_TTL }); // one bulk read: a Map of key -> value or null
        for (const k of keys) recs.push(["get", k, "1", m.get(k) ?? ""]);
      } catch (err) {
        kvFail(err);
        for (const k of keys) recs.push(["get", k, "0", ""]);
      }
    }
  }));
  if (a !== app) return;
  let size = 4;
  for (const r of recs) { size += 4; for (const f of r) size += 4 + 3 * f.length; }
  let wait = 0;
  try {
    const base = ensure(a, size); // the request buffer: alloc must not replace it behind ensure's back
    a.dv.setUint32(base, recs.length, true);
    let p = base + 4;
    for (const r of recs) {
      a.dv.setUint32(p, r.length, true);
      p += 4;
      for (const f of r) p = putString(a, p, f);
    }
    wait = a.ex.kv_done(p - base) >>> 0;
  } catch (err) { kvDrop(err); return; }
  await kvAt(a, env, wait);
}

// readBody reads a POST body, at most MAX_BODY + 1 bytes: a longer body is not read
// further (nor at all when Content-Length says so), and core answers 413 on its length.
async function readBody(request) {
  if (Number(request.headers.get("content-length")) > MAX_BODY) return new Uint8Array(MAX_BODY + 1);
  if (request.body === null) return NO_BODY;
  const reader = request.body.getReader();
  const chunks = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.length;
    if (n > MAX_BODY) { reader.cancel().catch(() => {}); break; }
  }
  if (chunks.length === 1 && n <= MAX_BODY) return chunks[0];
  const out = new Uint8Array(Math.min(n, MAX_BODY + 1));
  let p = 0;
  for (const c of chunks) {
    const k = Math.min(c.length, out.length - p);
    out.set(c.subarray(0, k), p);
    p += k;
    if (p === out.length) break;
  }
  return out;
}

// answer runs one request through the module (retrying once on a fresh instance after
// a trap) and makes its Response. It is synchronous: fetch returns its Response itself
// when nothing had to be awaited, which is every GET and HEAD but those that wait for an
// isolate's first inventory read
// (issue 16: an async fetch costs every request a promise and a microtask turn in
// workerd, as much CPU as the module's whole handle).
const answer = (function answer(method, target, hv, body, env, ctx, now) {
  let r; // the instance that answered (call left its answer in it), or FAILED
  for (let attempt = 0; ; attempt++) {
    try {
      if (app === null) app = instantiate(env);
      r = app;
      call(r, method, target, hv, body, now);
      break;
    } catch (err) {
      app = null; // a trap leaves the instance unusable: the next call starts afresh
      console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), attempt }));
      if (attempt >= 1) {
        r = FAILED;
        break;
      }
    }
  }
  if (r.prevKV && app !== null) { const p = kvSync(app, env); if (p) ctx.waitUntil(p); }
  // The request log line (method is an HTTP token and route one of ours: no escaping).
  // No duration: a Worker's clock stands still while it computes, and Workers Logs has
  // the invocation's wall and CPU time.
  if (logLevel === 2 || (logLevel === 1 && r.status >= 400 && r.status !== 429)) {
    console.log('{"method":"' + method + '","route":"' + r.prevRoute + '","status":' + r.status + "}");
  }
  // The init object is one, its fields set for each answer: workerd reads them in the
  // constructor and keeps neither the object nor a reference to it.
  INIT.status = r.status;
  INIT.headers = r.headers;
  const res = new Response(r.body, INIT); // copies the body out of the module's memory
  INIT.headers = null;
  if (app !== null && app.buf.byteLength >= app.renewAt) renew(env, ctx);
  if (++settled.served === settled.at) settle(ctx);
  return res;
});

// FAILED is the answer when the module trapped twice on one request.
const FAILED = {
  status: 500, prevRoute: "-", prevKV: false, body: enc.encode('{"error":"internal error; the request was not completed, retry it"}'),
  headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "access-control-allow-origin": "*", "x-content-type-options": "nosniff" },
};
const INIT = { status: 200, headers: null };

// stringList reads a list of strings the module wrote at p (u32 count, then count x
// (u32 len, bytes)).
const stringList = (function stringList(a, p) {
  views(a);
  const out = [];
  for (let i = 0, n = a.dv.getUint32(p, true); i < n; i++) {
    const l = a.dv.getUint32(p + 4, true);
    out.push(ascii(a.u8, p + 8, p + 8 + l));
    p += 4 + l;
  }
  return out;
});

// validatorFree says whether target (request.url, whole) is under one of the module's
// validator-free paths: its path is one, or one followed by "?" or "/". Issue 16,
// session 28: the If-None-Match a quote does not read was ~1.5 K instructions of
// workerd's a request (request.headers.get is a call into the runtime). The test is an
// indexOf, the character after the path and the path's last character, then the path
// as a substring compared whole (a slice of the URL and one StringEqual). Until
// session 30 the path's characters were compared one by one from the first, ~40
// instructions a character under workerd: 744 for a quote's 17 (and 589 for /depots,
// which shares the first 11 with it), against 184 + 38 (substring) + 69 (StringEqual)
// now, by callgrind over workerd with V8's perf map (String.prototype.startsWith with
// a position was ~350 on a match, session 29). A target it does not recognise (none
// before the first instance, a path written another way) gets If-None-Match as before.
const validatorFree = (function validatorFree(target) {
  const paths = validatorFreePaths;
  if (paths === null) return false;
  const p = target.indexOf("/", 8); // the path: after "https://" (or "http://") and the host
  if (p < 0) return false;
  for (let i = 0; i < paths.length; i++) {
    const s = paths[i], n = s.length;
    const c = target.charCodeAt(p + n); // what follows the path: the end (NaN, c !== c), '?' or '/'
    if ((c !== c || c === 63 /* ? */ || c === 47 /* / */) && target.charCodeAt(p + n - 1) === s.charCodeAt(n - 1) &&
      target.substring(p, p + n) === s) return true;
  }
  return false;
});

// readHeaders fills hv (HV_GET or HV_ALL) with the request's values of the first
// hv.length HEADERS and returns it; request.headers is one call into the runtime.
const readHeaders = (function readHeaders(request, hv) {
  const h = request.headers;
  for (let i = 0; i < hv.length; i++) hv[i] = h.get(HEADERS[i]) ?? "";
  return hv;
});

// post reads a POST's body first (the MCP endpoint), then answers.
async function post(request, target, env, ctx) {
  let body;
  try {
    body = await readBody(request);
  } catch (err) {
    // A malformed chunked body, a client that aborted mid-upload, a body shorter
    // than its Content-Length: nothing core could answer, so the glue does.
    if (logLevel > 0) console.log('{"method":"POST","route":"-","status":400}');
    return new Response(BODY_FAILED, { status: 400, headers: BODY_FAILED_HEADERS });
  }
  const ready = inventoryTick(env, ctx, Date.now()); // the MCP endpoint's tools search: it waits
  if (ready !== null) await ready;
  // The headers are read after the last await: while it waited, another request may
  // have filled HV_ALL (one request runs at a time, but they interleave at awaits).
  return answer("POST", target, readHeaders(request, HV_ALL), body, env, ctx, Date.now());
}

export default {
  fetch: (function fetch(request, env, ctx) {
    // The target is the URL whole: core takes its path and query (wire.DecodeRequest),
    // and the glue passes it without slicing it (putString says why).
    const target = request.url;
    const method = request.method;
    if (method === "POST") return post(request, target, env, ctx);
    const hv = method === "GET" || method === "HEAD" ? (validatorFree(target) ? HV_CLIENT : HV_GET) : HV_ALL;
    const now = Date.now(); // the inventory's schedule and the module's clock alike
    const ready = inventoryTick(env, ctx, now);
    if (ready !== null && readsInventory(method, target, env)) { // the isolate's first inventory read is under way
      return ready.then(() => answer(method, target, readHeaders(request, hv), NO_BODY, env, ctx, Date.now()));
    }
    return answer(method, target, readHeaders(request, hv), NO_BODY, env, ctx, now);
  }),
};
