// calls.mjs: n requests through the shipped glue's call() (build/worker.mjs, from
// worker/glue/abi.mjs: write the request into the module's memory, handle, read the
// interned answer back) and build/app.wasm in V8 under Node, every request from a new
// client, nothing else. Run under valgrind's cachegrind at two values of n, the
// difference of the two counts over the difference of the n is the instructions one
// request costs in the glue + module, steady state; unlike throughput on a shared
// machine, it repeats (with the seeded randomness and clock below). build/bench reports
// it for each route when valgrind is installed (instructionsPerCall).
//
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//     node --predictable --no-liftoff build/bench/calls.mjs build/app.wasm availability 25000
//
// --predictable: V8 compiles on the main thread and collects garbage on a schedule of
// its own, so the count does not depend on the background threads' timing.
// --no-liftoff: every wasm function is TurboFan code from the start, as the hot ones are
// on workerd under load; functions still in Liftoff at the smaller n would make two runs
// of one module disagree.
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const routes = {
  depots: "/api/agent/depots",
  availability: "/api/agent/vehicles/availability?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19",
  quotes: "/api/agent/quotes?pick_up_depot_id=2&drop_off_depot_id=3&pick_up_date=2027-03-08&drop_off_date=2027-03-19&vehicle_id=5&accessory_ids=1,1,2,2&insurance_id=33",
  "calendar-done-when": "/api/agent/vehicles/availability/calendar?pick_up_depot_id=1&drop_off_depot_id=1&earliest_pick_up_date=2027-03-15&latest_pick_up_date=2027-03-31&days=10&min_berths=4&transmission=automatic",
};
const [wasmPath, route, n] = [process.argv[2], process.argv[3], Number(process.argv[4])];
if (!routes[route] || !(n > 0)) {
  console.error("usage: node calls.mjs app.wasm (" + Object.keys(routes).join("|") + ") n [full|short]");
  process.exit(2);
}
// The randomness and the clock made repeatable: the module seeds the limiter's hash from
// random_get (crypto.getRandomValues), and the clock moves the limiter's windows and its
// KV schedule; seeded, and the clock one millisecond a call, two runs agree.
let seed = 12345, clock = Date.UTC(2026, 10, 27);
globalThis.crypto.getRandomValues = (a) => {
  const u = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  for (let i = 0; i < u.length; i++) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; u[i] = seed >>> 24; }
  return a;
};
Date.now = () => (clock += 1);
// The glue as shipped (make build), with the module handed in and the functions used
// here exported.
const glue = readFileSync(join(root, "build", "worker.mjs"), "utf8")
  .replace(/^import wasmModule from "\.\/app\.wasm";$/m, "const wasmModule = globalThis.__module;") + "\nexport { call, current, validatorFree };\n";
if (!glue.includes("globalThis.__module")) throw new Error("build/worker.mjs: the app.wasm import line was not found");
globalThis.__module = new WebAssembly.Module(readFileSync(wasmPath));
const dir = mkdtempSync(join(tmpdir(), "calls-"));
writeFileSync(join(dir, "glue.mjs"), glue);
const g = await import(join(dir, "glue.mjs"));
const a = g.current({ BASE_PATH: "/api/agent", RATE_LIMIT_REQUESTS: "100", SEARCH_MAX_AGE_SECONDS: "10",
  QUOTE_SIGNING_KEYS: "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" });
// The target as workerd gives it: request.url whole (the glue passes it so).
// The headers as the glue's fetch reads them: the client's address, and If-None-Match
// but under a validator-free path (a quote).
const path = "http://127.0.0.1:8787" + routes[route], hv = g.validatorFree(path) ? [""] : ["", ""], none = new Uint8Array(0);
// The clients' addresses (argument 5: full, the default, or short: build/bench's -addr),
// made before the loop, as many whatever n up to 25,000 (so the difference of two runs
// does not count them), and flattened (workerd's headers.get gives flat strings; a
// concatenation is a cons string V8 flattens on its first read). full: 39 characters,
// as privacy addresses arrive in CF-Connecting-IP; short: compressed (2001:db8:1:2b67::1).
const FULL = (process.argv[5] ?? "full") !== "short", IPS = [];
for (let k = 0; k < Math.max(n, 25000); k++) { // a new /64 each time
  IPS.push(JSON.parse(JSON.stringify(FULL
    ? "2001:0db8:" + (0x10000 + (k >> 16)).toString(16).slice(1) + ":" + (0x10000 + (k & 0xffff)).toString(16).slice(1) + ":1c4b:33ff:fe12:9a7b"
    : "2001:db8:" + (k >> 16).toString(16) + ":" + (k & 0xffff).toString(16) + "::1")));
}
let ok = 0;
for (let k = 0; k < n; k++) {
  hv[0] = IPS[k];
  g.call(a, "GET", path, hv, none, Date.now()); // the answer is left in a
  if (a.status === 200) ok++;
}
if (ok !== n) {
  console.error(route + ": " + (n - ok) + " of " + n + " answers were not 200");
  process.exit(1);
}
