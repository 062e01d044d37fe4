// The WASI functions the module imports, and only those: a build that imported another
// fails to instantiate (a LinkError naming it) in every test.
import { dec } from "./abi.mjs";

// wasi returns the imports for the instance whose memory state.mem will hold:
// fd_write (stdout and stderr, line by line to the console), clock_time_get,
// random_get, and args_sizes_get/args_get (no arguments).
export const wasi = (function (state) {
  const EBADF = 8;
  let kept = null; // a DataView of the memory, re-made only after it grew
  const view = () => (kept !== null && kept.buffer === state.mem.buffer ? kept : (kept = new DataView(state.mem.buffer)));
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
    random_get: (function (buf, len) {
      const u8 = new Uint8Array(state.mem.buffer, buf, len);
      for (let i = 0; i < len; i += 65536) crypto.getRandomValues(u8.subarray(i, Math.min(len, i + 65536)));
      return 0;
    }),
    // Nanoseconds as two 32-bit halves, exact in doubles (ms < 2^44, lo * 1e6 < 2^52),
    // without BigInt arithmetic. A request's clock comes with it (handle's now); this
    // serves the rate limiter's KV schedule and start-up.
    clock_time_get: (function (id, precision, out) {
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
