// The isolate's one instance of the module: its making (the vars, the last inventory
// taken), its loss on a trap, and its renewal when its memory has grown.
import { HEADER_SLOTS, NO_BODY, ensure, stringList, views, writeRequest } from "./abi.mjs";
import { wasi } from "./wasi.mjs";

// The Worker vars core reads (wrangler.toml [vars]) and its secrets QUOTE_SIGNING_KEYS
// and API_KEY_SECRET. TestShellListsMatchCore holds this list to api.Vars.
const VARS = ["BASE_PATH", "WEB_URL", "QUOTE_TTL_SECONDS", "RATE_LIMIT_REQUESTS",
  "RATE_LIMIT_WINDOW_SECONDS", "MAINTENANCE", "CACHE_MAX_AGE_SECONDS",
  "SEARCH_MAX_AGE_SECONDS", "RETRY_AFTER_SECONDS", "MCP_ALLOWED_ORIGINS", "QUOTE_SIGNING_KEYS",
  "API_KEY_SECRET", "REVOKED_KEYS", "AGENT_LIMITS"];

let compiled = null; // app.wasm, compiled: given by the entry (useModule)

// useModule sets the compiled module every instance is made from.
export function useModule(m) {
  compiled = m;
}

// The instance record: { ex: exports, mem, views of mem, request buffer ptr/cap, header
// table, the last answer }; null until the first request and after a trap.
export let app = null;

// REQUEST_LOG, read with the instance: 2 = a line for every request ("all" or "true"),
// 1 = only for the answers an operator acts on, 4xx but 429 and 5xx ("errors", the
// default), 0 = none ("off", "false" or "none"). Workers Logs records every invocation
// anyway; the line adds the route's name.
export let logLevel = 1;

// The module's validator-free paths (api.Server.ValidatorFreePaths), read with the
// first instance; null until then.
export let validatorFreePaths = null;

// The last inventory blob this isolate took (inventory.mjs): a fresh instance starts
// from it rather than from the bundled bookings, without waiting on KV.
let inventoryBlob = null;

// current returns the isolate's instance, making one when there is none.
export const current = (function (env) {
  return app !== null ? app : (app = instantiate(env));
});

// fresh returns the exports of a new instance of the module, not the isolate's serving
// one, initialised and configured with nothing, its memory first grown by reserve
// bytes: the scheduled pull's build runs in one and drops it (scheduled.mjs). The
// module's allocator takes the memory it finds at start as its heap and doubles the
// memory whenever that is used up, so a heap sized to the work up front ends near what
// the work needs rather than at the next power of two.
export function fresh(reserve) {
  const state = { mem: null };
  const ex = new WebAssembly.Instance(compiled, { wasi_snapshot_preview1: wasi(state) }).exports;
  state.mem = ex.memory;
  if (reserve > 0) ex.memory.grow(Math.ceil(reserve / 65536));
  ex._initialize();
  return ex;
}

// drop discards the instance: a trap leaves it unusable, and the next call makes a fresh one.
export function drop() {
  app = null;
}

const instantiate = (function (env) {
  const state = { mem: null };
  const instance = new WebAssembly.Instance(compiled, { wasi_snapshot_preview1: wasi(state) });
  const mib = Number(env && env.INSTANCE_MEMORY_MIB);
  const a = { ex: instance.exports, mem: instance.exports.memory, buf: null, u8: null, dv: null, ptr: 0, cap: 0,
    hdrs: new Array(HEADER_SLOTS).fill(null), // the glue's half of the header table, as empty as the module's
    longView: null, longAt: -1, // putString's view for long strings
    status: 0, headers: null, body: null, bodyView: null, bodyAt: 0, // the last answer (call)
    prevList: null, prevSimple: false, prevHeaders: null, prevHeadersObj: null, prevRoute: "-", prevKV: false, // the last answer's headers (readAnswerHeaders)
    renewAt: (mib >= 4 && mib <= 1024 ? mib : RENEW_MIB) * 1048576 }; // renew at this much memory
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
  if (feedStatusBytes !== null) feedStatusApply(a, feedStatusBytes);
  if (inventoryBlob !== null) {
    try {
      if (inventoryApply(a, inventoryBlob) !== 0) inventoryBlob = null;
    } catch (err) { inventoryBlob = null; throw err; } // the retry starts from the bundled bookings
  }
  views(a);
  a.renewAt = Math.max(a.renewAt, 2 * a.buf.byteLength); // a bound below a fresh instance's memory would renew it at once
  return a;
});

// inventoryApply hands an inventory blob to instance a; 0 when it serves, 1 when refused.
export const inventoryApply = (function (a, bytes) {
  const p = ensure(a, bytes.length);
  a.u8.set(bytes, p);
  return a.ex.inventory(bytes.length);
});

// The scheduled pull's status last handed to the module (inventory.mjs, feedStatus),
// which a fresh instance is given too.
let feedStatusBytes = null;

// feedStatusApply hands the pull's status (api.Server.SetFeedStatus's text) to instance
// a, and records it for the instances made after.
export function feedStatusApply(a, bytes) {
  feedStatusBytes = bytes;
  const p = ensure(a, bytes.length);
  a.u8.set(bytes, p);
  a.ex.feed_status(bytes.length);
}

// keepInventory records the blob a fresh instance starts from.
export function keepInventory(bytes) {
  inventoryBlob = bytes;
}

// Renewal. The module never frees (TinyGo's leaking allocator: RATIONALE.md, no garbage
// collector). The 200 answers of the GET routes allocate nothing; an error answer, an
// MCP call or an inventory update does. When the instance's memory reaches renewAt
// (INSTANCE_MEMORY_MIB, default RENEW_MIB), renew replaces it between two requests with
// a fresh one, which takes the rate limiter's state (counts, KV schedule and identity:
// state_save, state_table, state_load) and the last inventory taken, so that a client
// cannot reset its own limit by making the instance grow.
const RENEW_MIB = 24;

// renew replaces the instance; it returns true when the new one serves (the caller then
// restarts the rate limiter's KV schedule), false when the old one keeps serving.
export function renew(env) {
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
    return false;
  }
  app = a; // instantiate set its renewAt past its own memory: a fresh instance is not renewed again at once
  console.log(JSON.stringify({ level: "info", msg: "instance renewed", memory_mib: memory / 1048576, limiter: took ? "handed over" : "started empty" }));
  return true;
}
