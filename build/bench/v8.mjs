// v8.mjs: the shipped glue (build/worker.mjs) and build/app.wasm in V8 under Node, the
// engine of workerd, without the runtime around it. It reports what one isolate's
// cold start is made of, phase by phase, and what one request costs in the glue + module.
//
// Why Node and not workerd: inside a Worker the clock does not advance while JS runs
// (a Spectre mitigation), so the phases of a cold start cannot be timed there; workerd's
// end-to-end first answer is measured by build/bench (go run ./build/bench).
//
//   node build/bench/v8.mjs [build/app.wasm] [runs]
//
// Cold start: each run is a fresh Node process (V8 keeps a process-wide cache of
// compiled wasm code keyed by the module's bytes, so a second module of the same bytes
// in one process starts warm). Each phase is the median of `runs` processes:
//   compile      new WebAssembly.Module(bytes)  (workerd does this when the script loads)
//   instantiate  new WebAssembly.Instance        (the glue, on the isolate's first request)
//   init         _initialize + configure         (Go package init, the server)
//   handle       the module's share of the first request (handle: V8 compiles each
//                function on its first call, so this is mostly compiling)
//   first        the whole first fetch after init (glue + module + Node's Request;
//                Node's own code for it loaded before: coldOne)
// Then the steady state: us per fetch for a few routes, every request from a new client.
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const wasmPath = process.argv[2] || join(root, "build", "app.wasm");
const runs = Number(process.argv[3] || 15);
const bytes = readFileSync(wasmPath);

// The glue imports the module as workerd provides it (a compiled WebAssembly.Module);
// here the import becomes a global the script sets before each fresh import.
const glue = readFileSync(join(root, "build", "worker.mjs"), "utf8")
  .replace(/^import wasmModule from "\.\/app\.wasm";$/m, "const wasmModule = globalThis.__benchModule;");
if (!glue.includes("globalThis.__benchModule")) throw new Error("build/worker.mjs: the app.wasm import line was not found");
const dir = mkdtempSync(join(tmpdir(), "v8bench-"));

// Instance and its exports are wrapped to time instantiate and init apart.
const RealInstance = WebAssembly.Instance;
let phase = null;
WebAssembly.Instance = function (m, imports) {
  const t = performance.now();
  const inst = new RealInstance(m, imports);
  if (phase) phase.instantiate = performance.now() - t;
  const ex = inst.exports;
  const timed = (name) => (...args) => {
    const t = performance.now();
    try { return ex[name](...args); } finally { if (phase) phase.init += performance.now() - t; }
  };
  const handle = (...args) => {
    const t = performance.now();
    try { return ex.handle(...args); } finally { if (phase) phase.handle += performance.now() - t; }
  };
  const wrapped = { ...ex, _initialize: timed("_initialize"), configure: timed("configure"), handle };
  return { exports: wrapped };
};

const env = JSON.parse(process.env.BENCH_ENV || "{}");
// The tests' signing key (worker/harness_test.go): quotes answer 503 without one.
const vars = { BASE_PATH: "/api/agent", RATE_LIMIT_REQUESTS: "1000000000",
  QUOTE_SIGNING_KEYS: "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", ...env };
const ctx = { waitUntil() {}, passThroughOnException() {} };
let ip = 0;
const nextIP = () => { ip++; return `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`; };
const req = (path, init = {}) => {
  const h = new Headers(init.headers || {});
  h.set("cf-connecting-ip", nextIP());
  return new Request("http://localhost" + path, { ...init, headers: h });
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const ms = (x) => x.toFixed(2) + " ms";

// One cold start in this process: prints its phases as JSON and exits.
async function coldOne() {
  // Node loads parts of itself on first use: its WebCrypto on the first
  // crypto.getRandomValues (the module's first random_get, in _initialize) and undici on
  // the first Request, Headers or Response. workerd has both built in, so they are
  // loaded here, before anything is timed.
  crypto.getRandomValues(new Uint8Array(8));
  await new Response(new Uint8Array(1), { headers: new Headers({ a: "b" }) }).arrayBuffer();
  new Request("http://localhost/");
  const t0 = performance.now();
  globalThis.__benchModule = new WebAssembly.Module(bytes);
  const compile = performance.now() - t0;
  const file = join(dir, "glue.mjs");
  writeFileSync(file, glue);
  const w = (await import(file)).default;
  phase = { instantiate: 0, init: 0, handle: 0 };
  const t1 = performance.now();
  const res = await w.fetch(req("/api/agent/depots"), vars, ctx);
  await res.arrayBuffer();
  const total = performance.now() - t1;
  if (res.status !== 200) throw new Error("first request: status " + res.status);
  console.log(JSON.stringify({ compile, instantiate: phase.instantiate, init: phase.init, handle: phase.handle,
    first: total - phase.instantiate - phase.init }));
}
if (process.argv[4] === "--cold-one") {
  await coldOne();
  process.exit(0);
}
const phases = { compile: [], instantiate: [], init: [], handle: [], first: [] };
for (let i = 0; i < runs; i++) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), wasmPath, "1", "--cold-one"], { encoding: "utf8", env: process.env });
  const line = (r.stdout || "").split("\n").find((l) => l.startsWith("{\"compile\""));
  if (r.status !== 0 || !line) throw new Error("cold run: " + r.status + " " + r.stderr);
  const p = JSON.parse(line);
  for (const k in phases) phases[k].push(p[k]);
}
console.log(`v8: ${wasmPath}, ${bytes.length} bytes; node ${process.version}; cold start, median of ${runs} fresh processes:`);
console.log(`  compile ${ms(median(phases.compile))}, instantiate ${ms(median(phases.instantiate))}, init ${ms(median(phases.init))}, first request ${ms(median(phases.first))} of which the module's handle ${ms(median(phases.handle))} (compile + instantiate + init + handle: ${ms(median(phases.compile) + median(phases.instantiate) + median(phases.init) + median(phases.handle))})`);

let worker;
globalThis.__benchModule = new WebAssembly.Module(bytes);
{
  const file = join(dir, "glue-steady.mjs");
  writeFileSync(file, glue);
  worker = (await import(file)).default;
}

// The steady state, on an instance of this process.
const routes = [
  ["depots", () => req("/api/agent/depots")],
  ["availability", () => req("/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=2&pick_up_date=2027-03-10&drop_off_date=2027-03-20")],
  ["quotes", () => req("/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id=1")],
];
// The floor: a JS handler that returns the very bytes the Worker answered (status,
// headers, body), as build/bench's floor does on workerd. Node's Request and Response
// cost far more than workerd's, so the difference is the figure, not either time.
const n = Number(process.env.BENCH_N || 20000);
const timeLoop = async (handler, mk) => {
  const reqs = Array.from({ length: n }, mk); // made outside the timed loop: the runtime's
  const t = performance.now();
  for (const r of reqs) { const res = await handler(r); await res.arrayBuffer(); }
  return ((performance.now() - t) * 1000) / n;
};
for (const [name, mk] of routes) {
  let last;
  for (let i = 0; i < 2000; i++) { last = await worker.fetch(mk(), vars, ctx); await last.clone().arrayBuffer(); }
  const body = new Uint8Array(await last.arrayBuffer()), status = last.status, headers = [...last.headers];
  const floor = async () => new Response(body, { status, headers });
  const app = (r) => worker.fetch(r, vars, ctx);
  const rounds = { app: [], floor: [] };
  for (let k = 0; k < 3; k++) { rounds.app.push(await timeLoop(app, mk)); rounds.floor.push(await timeLoop(floor, mk)); }
  const a = median(rounds.app), f = median(rounds.floor);
  console.log(`  ${name}: status ${status}, ${a.toFixed(2)} us a fetch, floor ${f.toFixed(2)} us, glue + module ${(a - f).toFixed(2)} us over the floor (median of 3 x ${n} requests, each from a new client)`);
}
