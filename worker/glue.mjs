// The Worker's entry: a small JS glue around the TinyGo module (app.wasm).
//
// Why hand-written: syumai/workers' glue starts a new Go instance per request and
// crosses syscall/js per header; this glue keeps ONE instance per isolate and makes ONE
// synchronous call per request, passing bytes through the module's linear memory
// (the ABI of core/abi.go). Measured on the real workerd: 0.009x-0.12x of a plain JS
// worker for the syumai paths, ~0.76x for this one (RATIONALE.md).
//
// A trap (a Go panic: TinyGo on wasm cannot recover) drops the instance; the request
// is retried once on a fresh instance, and every later request gets the fresh one.
import wasmModule from "./app.wasm";

const enc = new TextEncoder();
const dec = new TextDecoder();

// The request headers core reads (lower case). Nothing else crosses into Go.
const HEADERS = ["cf-connecting-ip", "if-none-match", "origin", "access-control-request-method"];
// The Worker vars core reads (wrangler.toml [vars]).
const VARS = ["BASE_PATH", "WEB_URL", "QUOTE_TTL_SECONDS", "RATE_LIMIT_REQUESTS",
  "RATE_LIMIT_WINDOW_SECONDS", "MAINTENANCE", "CACHE_MAX_AGE_SECONDS",
  "SEARCH_MAX_AGE_SECONDS", "RETRY_AFTER_SECONDS"];

let app = null; // { ex: exports, mem: WebAssembly.Memory }

// wasi returns the dozen WASI functions a TinyGo wasip1 reactor imports. The module
// has no files, arguments or environment: only stderr/stdout (to the console), the
// clock and random bytes are real.
function wasi(state) {
  const EBADF = 8, ENOSYS = 52;
  const view = () => new DataView(state.mem.buffer);
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
    random_get(buf, len) {
      const u8 = new Uint8Array(state.mem.buffer, buf, len);
      for (let i = 0; i < len; i += 65536) crypto.getRandomValues(u8.subarray(i, Math.min(len, i + 65536)));
      return 0;
    },
    clock_time_get(id, precision, out) {
      view().setBigUint64(out, BigInt(Date.now()) * 1000000n, true);
      return 0;
    },
    clock_res_get(id, out) { view().setBigUint64(out, 1000000n, true); return 0; },
    args_sizes_get(argc, size) { const dv = view(); dv.setUint32(argc, 0, true); dv.setUint32(size, 0, true); return 0; },
    args_get() { return 0; },
    environ_sizes_get(n, size) { const dv = view(); dv.setUint32(n, 0, true); dv.setUint32(size, 0, true); return 0; },
    environ_get() { return 0; },
    proc_exit(code) { throw new Error("wasm proc_exit(" + code + ")"); },
    fd_close() { return EBADF; },
    fd_fdstat_get() { return EBADF; },
    fd_seek() { return EBADF; },
    fd_read() { return EBADF; },
    fd_prestat_get() { return EBADF; },
    fd_prestat_dir_name() { return EBADF; },
    path_open() { return ENOSYS; },
    poll_oneoff() { return ENOSYS; },
    sched_yield() { return 0; },
  };
}

// write encodes fields [u32 len][bytes] at p (strings may be non-ASCII: encodeInto).
function putString(u8, dv, p, s) {
  const { written } = enc.encodeInto(s, u8.subarray(p + 4));
  dv.setUint32(p, written, true);
  return p + 4 + written;
}

// request writes method, target and the selected headers into the module's buffer;
// returns the byte length. Every string takes at most 3 bytes per UTF-16 unit.
function writeRequest(a, method, target, names, values) {
  let size = 16 + 3 * (method.length + target.length);
  for (let i = 0; i < names.length; i++) size += 8 + 3 * (names[i].length + values[i].length);
  const base = a.ex.alloc(size);
  const u8 = new Uint8Array(a.mem.buffer);
  const dv = new DataView(a.mem.buffer);
  let p = putString(u8, dv, base, method);
  p = putString(u8, dv, p, target);
  dv.setUint32(p, names.length, true);
  p += 4;
  for (let i = 0; i < names.length; i++) {
    p = putString(u8, dv, p, names[i]);
    p = putString(u8, dv, p, values[i]);
  }
  dv.setUint32(p, 0, true); // body: none (GET/HEAD/OPTIONS)
  return p + 4 - base;
}

function instantiate(env) {
  const state = { mem: null };
  const instance = new WebAssembly.Instance(wasmModule, { wasi_snapshot_preview1: wasi(state) });
  const a = { ex: instance.exports, mem: instance.exports.memory };
  state.mem = a.mem;
  a.ex._initialize();
  const names = [], values = [];
  for (const k of VARS) {
    if (env && env[k] !== undefined && env[k] !== null) { names.push(k); values.push(String(env[k])); }
  }
  a.ex.configure(writeRequest(a, "", "", names, values));
  return a;
}

// call runs one request through the module and reads the response back.
function call(a, method, target, hv) {
  const n = writeRequest(a, method, target, HEADERS, hv);
  const ptr = a.ex.handle(n);
  const u8 = new Uint8Array(a.mem.buffer); // memory may have grown: take fresh views
  const dv = new DataView(a.mem.buffer);
  const total = dv.getUint32(ptr, true);
  const status = dv.getUint16(ptr + 4, true);
  const nh = dv.getUint16(ptr + 6, true);
  const bodyOff = dv.getUint32(ptr + 8, true);
  const headers = new Headers();
  let route = "-";
  let p = ptr + 12;
  for (let i = 0; i < nh; i++) {
    const nl = dv.getUint32(p, true);
    const name = dec.decode(u8.subarray(p + 4, p + 4 + nl));
    p += 4 + nl;
    const vl = dv.getUint32(p, true);
    const value = dec.decode(u8.subarray(p + 4, p + 4 + vl));
    p += 4 + vl;
    if (name.charCodeAt(0) === 58 /* ':' */) {
      if (name === ":route") route = value;
    } else {
      headers.append(name, value);
    }
  }
  const nullBody = status === 204 || status === 304 || method === "HEAD";
  const body = nullBody ? null : u8.slice(ptr + bodyOff, ptr + total);
  return { status, headers, body, route };
}

export default {
  async fetch(request, env, ctx) {
    const t0 = Date.now();
    const url = request.url;
    const target = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    const method = request.method;
    const hv = HEADERS.map((h) => request.headers.get(h) ?? "");
    let r;
    for (let attempt = 0; ; attempt++) {
      try {
        if (app === null) app = instantiate(env);
        r = call(app, method, target, hv);
        break;
      } catch (err) {
        app = null; // a trap leaves the instance unusable: the next call starts afresh
        console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), attempt }));
        if (attempt >= 1) {
          r = {
            status: 500, route: "-", body: enc.encode('{"error":"internal error; the request was not completed, retry it"}'),
            headers: new Headers({ "content-type": "application/json; charset=utf-8", "cache-control": "no-store",
              "x-content-type-options": "nosniff", "access-control-allow-origin": "*" }),
          };
          break;
        }
      }
    }
    console.log(JSON.stringify({ method, route: r.route, status: r.status, ms: Date.now() - t0 }));
    return new Response(r.body, { status: r.status, headers: r.headers });
  },
};
