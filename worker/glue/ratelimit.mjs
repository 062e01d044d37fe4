// The rate limit's KV write-behind (RATIONALE.md: the rate limit across isolates). core
// decides which KV operations run and when (kv_pending: a client's count when it
// crosses a step, at most once a second per key, and a bulk read of the other isolates'
// counts); the glue runs them after the response, under ctx.waitUntil, and hands the
// outcomes back (kv_done). Both calls return when the next operation falls due, and the
// glue keeps ONE timer, at the earliest. A KV failure never fails a request: it is
// logged once per isolate and core retries later.
import { dec, ensure, putString, views } from "./abi.mjs";
import { app, drop } from "./instance.mjs";

// Reads ask KV's edge cache for at most 30 s (KV's minimum cacheTtl; its default is 60).
const KV_CACHE_TTL = 30;
let kvTimer = null; // the one pending timer: { at (ms), id, resolve }
let kvLogged = false;

function kvFail(err) {
  if (kvLogged) return;
  kvLogged = true;
  console.error(JSON.stringify({ level: "error", msg: "rate-limit KV operation failed; counting in this isolate only and retrying later (logged once per isolate)", error: String(err) }));
}

function kvDrop(err) {
  drop();
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
export function kvSync(a, env) {
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

// kvRestart drops the timer of a replaced instance and starts the new one's schedule;
// it returns a promise for ctx.waitUntil, or null.
export function kvRestart(env) {
  if (kvTimer !== null) { clearTimeout(kvTimer.id); kvTimer.resolve(); kvTimer = null; }
  return app !== null ? kvSync(app, env) : null;
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
