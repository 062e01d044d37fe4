// The module's byte ABI from the JS side (core/abi/abi.go): a request written into the
// module's memory, its answer read back with the interned header table
// (core/abi/hdrtable.go). Everything here works on an instance record `a` (instance.mjs).
export const enc = new TextEncoder();
export const dec = new TextDecoder();
const latin1 = new TextDecoder("latin1");
export const NO_BODY = new Uint8Array(0);

// The request headers core reads (lower case); nothing else crosses into Go. A GET or
// HEAD passes only the first GET_HEADERS (the client, If-None-Match), since each
// request.headers.get is a call into the runtime; core treats a header not passed as
// empty. One with Authorization or Signature-Agent passes the first ID_HEADERS: also
// the key and the Web Bot Auth outcome (":agent", which the glue writes: AGENT_AT is
// its index, and no client can send a header of that name). TestShellListsMatchCore
// holds this list to api.RequestHeaders.
export const HEADERS = ["cf-connecting-ip", "if-none-match", "authorization", ":agent",
  "origin", "content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];
export const GET_HEADERS = 2;
export const AGENT_AT = 3;
export const ID_HEADERS = AGENT_AT + 1;

// The header names encoded once with their u32 length prefixes, as little-endian
// 32-bit words (the last one padded), so that writeRequest stores them with DataView
// stores, which optimized code inlines, rather than a typed array's set. The padding
// lands on the bytes the value's length prefix overwrites next.
export const NAME_FIELDS = HEADERS.map((h) => {
  const b = enc.encode(h);
  const n = 4 + b.length, f = new Uint8Array((n + 3) & ~3);
  const dv = new DataView(f.buffer);
  dv.setUint32(0, b.length, true);
  f.set(b, 4);
  const words = [];
  for (let k = 0; k < f.length; k += 4) words.push(dv.getUint32(k, true));
  return { n, words };
});

// views re-makes a's typed-array views of the module's memory after it grew. Growth
// detaches the old ArrayBuffer (byteLength 0): a load in optimized code, where
// memory.buffer is a call into the runtime. putString's and call's kept views go with them.
export const views = (function (a) {
  if (a.buf === null || a.buf.byteLength === 0) {
    a.buf = a.mem.buffer;
    a.u8 = new Uint8Array(a.buf);
    a.dv = new DataView(a.buf);
    a.longAt = -1;
    a.bodyView = null;
  }
});

// putString writes [u32 len][UTF-8 bytes] at p and returns the next offset; callers
// leave 3 bytes per UTF-16 unit. A long string (the URL) goes through one encodeInto,
// into a view kept while its position and the memory stay (a.longView); a short one
// byte by byte, cheaper than a call into the runtime, until a non-ASCII character.
// PUT_LOOP_MAX is the longest IPv6 address, so a client's address keeps the URL's view.
const PUT_LOOP_MAX = 45;
export const putString = (function (a, p, s) {
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
export const ensure = (function (a, size) {
  if (size > a.cap) {
    a.cap = Math.max(size, 2 * a.cap, 4096);
    a.ptr = a.ex.alloc(a.cap);
    a.longAt = -1; // putString's view was of the old buffer
  }
  views(a);
  return a.ptr;
});

// writeRequest writes method, target, the first count headers (names[i] pre-encoded
// when nameFields is given) and body (bytes) into the module's buffer and returns the
// byte length.
export const writeRequest = (function (a, method, target, names, values, nameFields, body, count) {
  let size = 16 + 3 * (method.length + target.length) + body.length;
  for (let i = 0; i < count; i++) size += 8 + 3 * (names[i].length + values[i].length);
  const base = ensure(a, size);
  let p;
  if (method === "GET") { // two stores (the byte after "GET" is the next field's)
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

// ascii makes the string of bytes [p, end) of u8 (core writes ASCII header names and
// values): a one-byte string, which workerd copies into a response as it is.
export const ascii = (function (u8, p, end) {
  return end - p <= 4096 ? String.fromCharCode.apply(null, u8.subarray(p, end)) : latin1.decode(u8.subarray(p, end));
});

// stringList reads a list of strings the module wrote at p (u32 count, then count x
// (u32 len, bytes)).
export const stringList = (function (a, p) {
  views(a);
  const out = [];
  for (let i = 0, n = a.dv.getUint32(p, true); i < n; i++) {
    const l = a.dv.getUint32(p + 4, true);
    out.push(ascii(a.u8, p + 8, p + 8 + l));
    p += 4 + l;
  }
  return out;
});

// The answer's headers arrive interned: each is a slot of a table the module and the
// glue keep alike (a.hdrs), sent whole only when the slot changes, so a repeated header
// costs no decoding and reuses the strings made the first time.
export const HEADER_SLOTS = 128;
const ENTRY_HIT = 0, ENTRY_STORE = 1, SAME_HEADERS = 0x8000;

// call runs one request through the module and leaves its answer in a's own fields
// (no object a request): a.status, a.headers, a.body, a.prevRoute and a.prevKV. now
// (Date.now()) goes with it: the module reads no clock of its own on a request.
export const call = (function (a, method, target, hv, reqBody, now) {
  const n = writeRequest(a, method, target, HEADERS, hv, NAME_FIELDS, reqBody, hv.length);
  const ptr = a.ex.handle(n, now);
  views(a); // memory may have grown during the call
  const dv = a.dv;
  const total = dv.getUint32(ptr, true);
  const status = dv.getUint16(ptr + 4, true);
  const nhw = dv.getUint16(ptr + 6, true);
  const bodyOff = dv.getUint32(ptr + 8, true);
  // SAME_HEADERS: the previous answer's headers, pair for pair, so its list serves again.
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
  // A view, not a copy: the Response constructor copies its bytes before the next call
  // can overwrite them. The module writes every answer at the same address, so the last
  // view serves again for an answer of the same length (a.bodyAt: byteOffset is a call).
  const start = ptr + bodyOff, len = total - bodyOff, v = a.bodyView;
  if (v !== null && a.bodyAt === start && v.length === len) {
    a.body = v;
  } else {
    a.body = a.bodyView = a.u8.subarray(start, start + len);
    a.bodyAt = start;
  }
});

// readAnswerHeaders reads nh interned header entries from p, updating the table, and
// returns the Response's headers; the pseudo-headers go to setMeta. A new list goes as
// an object (name: value), which workerd reads cheaper than an array of pairs; a list
// with the same names in the same places as the last (one client asking again) as the
// last Headers object with the changed values set. The Response constructor copies the
// headers, so changing them after changes no answer already made.
const readAnswerHeaders = (function (a, p, nh) {
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
// use (a.prevHeadersObj, when set, is always the last list's).
function keptHeaders(a) {
  return a.prevHeadersObj ?? (a.prevHeadersObj = new Headers(a.prevHeaders));
}

// setMeta takes a pseudo-header of the answer: the route's name for the log line, and
// whether rate-limit KV work is due.
const setMeta = (function (a, pair) {
  if (pair[0] === ":route") a.prevRoute = pair[1];
  else if (pair[0] === ":kv") a.prevKV = pair[1] !== "0";
});
