// pull_decisions.mjs: the scheduled pull's decisions (worker/glue/scheduled.mjs, pull),
// run against an in-memory KV and a scripted feed server, with the given module's
// build_inventory. Run by TestPullDecisions: node pull_decisions.mjs app.wasm prints one
// JSON object per run, in order: {name, result, writes: [keys], logs, pointer, sentINM,
// sentAuth, status}.
import { readFileSync } from "node:fs";
import { useModule } from "./glue/instance.mjs";
import { buildFeed, pull } from "./glue/scheduled.mjs";

useModule(new WebAssembly.Module(readFileSync(process.argv[2])));

const store = new Map(); // key -> { value, metadata, ttl }
let writes = [];
const kv = {
  async get(key, opts) {
    const e = store.get(key);
    if (!e) return null;
    const type = typeof opts === "string" ? opts : opts && opts.type;
    if (type === "json") return JSON.parse(e.value);
    if (type === "arrayBuffer") return typeof e.value === "string" ? new TextEncoder().encode(e.value).buffer : e.value;
    return typeof e.value === "string" ? e.value : new TextDecoder().decode(e.value);
  },
  async put(key, value, opts) {
    writes.push(key + (opts && opts.expirationTtl ? " ttl" : ""));
    store.set(key, { value: value instanceof Uint8Array ? value.slice().buffer : value, metadata: opts && opts.metadata || null });
  },
};

const enc = new TextEncoder();
const feedOf = (bookings) => JSON.stringify({ source: "decisions", bookings });
const booked = feedOf([{ id: 1, vehicle_id: 3, depot_id: 1, pick_up_date: "2027-03-09", drop_off_date: "2027-03-21", units: 50 }]);
const free = feedOf([{ id: 2, vehicle_id: 3, depot_id: 1, pick_up_date: "2027-05-01", drop_off_date: "2027-05-02", units: 1 }]);
const other = feedOf([{ id: 3, vehicle_id: 3, depot_id: 1, pick_up_date: "2027-06-01", drop_off_date: "2027-06-02", units: 50 }]);
const badRecord = feedOf([{ id: 4, vehicle_id: 777, depot_id: 1, pick_up_date: "2027-03-09", drop_off_date: "2027-03-21", units: 1 }]);

// stream returns a body of chunks made by next() until it returns null; with never
// true it stalls after its first chunk until the request's signal aborts.
const stream = (next, signal, never) => new ReadableStream({
  pull(c) {
    if (never) {
      if (this.sent) return new Promise((_, rej) => signal.addEventListener("abort", () => { const e = new Error("aborted"); c.error(e); rej(e); }));
      this.sent = true;
      c.enqueue(enc.encode("[")); return;
    }
    const v = next();
    if (v === null) c.close(); else c.enqueue(enc.encode(v));
  },
});
const millionBookings = () => {
  let i = 0;
  return () => {
    if (i > 1000000) return null;
    if (i === 1000000) { i++; return "]"; }
    let s = i === 0 ? "[" : "";
    for (let k = 0; k < 1000 && i < 1000000; k++, i++) s += (i ? "," : "") + `{"id":${i + 1},"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-10","units":1}`;
    return s;
  };
};

let clock = Date.UTC(2026, 10, 29, 0, 0, 0);
let answer; // (url, init) -> Response
let seen = {};
const io = {
  fetch: async (url, init) => { seen = { url, inm: init.headers["if-none-match"] || null, auth: init.headers.authorization || null }; return answer(url, init); },
  build: buildFeed,
  now: () => clock,
  log: { n: 0, log() { this.n++; }, error() { this.n++; } },
};
const json = (body, etag, extra) => new Response(body, { status: 200, headers: { "content-type": "application/json", ...(etag ? { etag } : {}), ...extra } });

const env0 = { INVENTORY: kv, FEED_URL: "https://feed.example/bookings.json", FEED_TOKEN: "t0ken" };
const steps = [
  ["off", { ...env0, FEED_URL: "" }, () => json(booked, '"a"')],
  ["not http", { ...env0, FEED_URL: "ftp://feed.example/x" }, () => json(booked, '"a"')],
  ["not http again", { ...env0, FEED_URL: "ftp://feed.example/x" }, () => json(booked, '"a"')],
  ["new content", env0, () => json(booked, '"a"')],
  ["304", env0, (u, i) => i.headers["if-none-match"] === '"a"' ? new Response(null, { status: 304 }) : json(booked, '"a"')],
  ["same content, new etag", env0, () => json(booked, '"a2"')],
  ["503", env0, () => new Response("down", { status: 503 })],
  ["503 again", env0, () => new Response("down", { status: 503 })],
  ["not json", env0, () => json("<html>oops</html>", '"h"')],
  ["bad record", env0, () => json(badRecord, '"r"')],
  ["over the bound by content-length", { ...env0, FEED_MAX_BYTES: "1000" }, () => json(booked + " ".repeat(2000), '"big"')],
  ["over the bound streamed", { ...env0, FEED_MAX_BYTES: "1000" }, (u, i) => new Response(stream((() => { let k = 0; return () => (k++ < 100 ? "          " + "          " : null); })(), i.signal), { status: 200 })],
  ["a million bookings", env0, (u, i) => new Response(stream(millionBookings(), i.signal), { status: 200 })],
  ["never finishes", { ...env0, FEED_TIMEOUT_SECONDS: "1" }, (u, i) => new Response(stream(null, i.signal, true), { status: 200 })],
  ["fetch throws", env0, () => { throw new TypeError("connection refused"); }],
  ["recovered 304", env0, (u, i) => i.headers["if-none-match"] === '"a"' ? new Response(null, { status: 304 }) : json(booked, '"a"')],
  ["bookings gone", env0, () => json(free, '"b"')],
  ["same etag, new body", env0, () => json(other, '"b"')],
  ["retried without the etag", env0, () => json(other, '"b"')],
];
for (const [name, env, fn] of steps) {
  writes = []; io.log.n = 0; answer = fn; seen = {};
  clock += 60000;
  const result = await pull(env, io);
  const p = store.get("inventory/current");
  console.log(JSON.stringify({ name, result, writes, logs: io.log.n, pointer: p ? p.value : null,
    meta: p ? p.metadata : null, sentINM: seen.inm || null, sentAuth: seen.auth || null,
    state: store.has("inventory/feed") ? JSON.parse(store.get("inventory/feed").value) : null }));
}
