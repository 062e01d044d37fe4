// The scheduled pull of the reservation feed (docs/inventory.md): each Cron Trigger run
// fetches FEED_URL (If-None-Match the last ETag taken, Authorization: Bearer FEED_TOKEN
// when set, FEED_TIMEOUT_SECONDS for the whole answer, at most FEED_MAX_BYTES). A 304 or
// the same content writes nothing; new content is validated and built by the module's
// build_inventory export, in an instance made for it and dropped after it, and written
// to INVENTORY as build/publish writes it: the blob, the replaced blob again with an
// expiry, the pointer, inventory/latest. Every failure keeps the inventory serving; it is
// logged once while its reason stays the same, and recorded in the pull's state
// (inventory/feed) and in the pointer's metadata, which the isolates' refresh hands to
// the module for the index.
import { dec } from "./abi.mjs";
import { readAtMost } from "./body.mjs";
import { fresh } from "./instance.mjs";

const POINTER = "inventory/current";
const LATEST = "inventory/latest";
const STATE = "inventory/feed";
const OLD_TTL = 3600; // seconds a replaced blob stays readable (build/publish's oldTTL)
const TIMEOUT_S = 30;
const MAX_BYTES = 16 << 20; // ~150,000 bookings; the build's instance then takes ~43 MiB
// The heap the module's build takes per byte of feed (~2.3; docs/inventory.md: the
// pull's memory), reserved before it starts.
const HEAP_PER_FEED_BYTE = 2.5;
const MAX_REASON = 300; // characters of a failure's reason kept in metadata (KV's limit: 1,024 bytes)

// scheduled is the Worker's Cron Trigger handler.
export async function scheduled(controller, env, ctx) {
  await pull(env, { fetch: (url, init) => globalThis.fetch(url, init), build: buildFeed, now: () => Date.now(), log: console });
}

// feedURL returns the configured feed URL, null when none (no pull), or throws when it
// is not an http(s) URL.
function feedURL(env) {
  const raw = env.FEED_URL == null ? "" : String(env.FEED_URL).trim();
  if (raw === "") return null;
  let u;
  try { u = new URL(raw); } catch (err) { u = null; }
  if (u === null || (u.protocol !== "http:" && u.protocol !== "https:")) throw new Refusal("FEED_URL is not an http(s) URL");
  return u.href;
}

class Refusal extends Error {}

const positive = (v, d) => { const n = Number(v); return n > 0 ? n : d; };

// pull runs one pull with io's fetch, build, clock and log, and returns what it did:
// "off", "not modified", "same content", "taken <version>" or "failed: <reason>".
export async function pull(env, io) {
  const kv = env.INVENTORY;
  if (!kv || env.FEED_URL == null || String(env.FEED_URL).trim() === "") return "off"; // no KV read either
  let st = null;
  try {
    st = await kv.get(STATE, { type: "json" });
  } catch (err) {
    st = null; // unreadable: this run pulls without If-None-Match
  }
  st = st || {};
  let url;
  try {
    url = feedURL(env);
  } catch (err) {
    return fail(kv, st, err.message, io);
  }
  if (url === null) return "off";
  const maxBytes = positive(env.FEED_MAX_BYTES, MAX_BYTES);
  const headers = { accept: "application/json" };
  if (st.etag) headers["if-none-match"] = st.etag;
  if (env.FEED_TOKEN) headers.authorization = "Bearer " + env.FEED_TOKEN;
  let res, body;
  const timeout = positive(env.FEED_TIMEOUT_SECONDS, TIMEOUT_S);
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeout * 1000);
  try {
    res = await io.fetch(url, { headers, signal: ac.signal, redirect: "manual" });
    if (res.status === 304) return await ok(kv, st, "not modified", io);
    if (res.status < 200 || res.status > 299) {
      if (res.body) res.body.cancel().catch(() => {});
      return await fail(kv, st, "the feed server answered HTTP " + res.status, io);
    }
    body = await readAtMost(res, maxBytes);
    if (body === null) throw new Refusal("the feed is over " + maxBytes + " bytes (FEED_MAX_BYTES)");
  } catch (err) {
    const why = err instanceof Refusal ? err.message : ac.signal.aborted ? "no whole answer within " + timeout + " s (FEED_TIMEOUT_SECONDS)" : "fetch failed: " + String(err && err.message || err);
    return await fail(kv, st, why, io);
  } finally {
    clearTimeout(timer);
  }
  const hash = await sha256(body);
  const etag = res.headers.get("etag");
  if (hash === st.hash) return await ok(kv, st, "same content", io, etag);
  if (etag && etag === st.etag) {
    // New content under the ETag of the last feed taken: the server's ETag cannot be
    // trusted. The state drops it, so that the next run asks without If-None-Match.
    return await fail(kv, st, "the feed server sent different content under the same ETag " + etag, io, true);
  }
  const built = io.build(body);
  if (built.error) return await fail(kv, st, built.error, io);
  return await take(kv, st, built, { etag, hash }, io);
}

async function sha256(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let s = "";
  for (const b of d) s += (b < 16 ? "0" : "") + b.toString(16);
  return s;
}

// buildFeed validates and builds a feed in a fresh instance of the module: { version,
// blob, memory: the instance's memory in bytes } or { error }.
export function buildFeed(bytes) {
  let ex;
  try {
    ex = fresh(HEAP_PER_FEED_BYTE * bytes.length);
    const p = ex.alloc(bytes.length);
    new Uint8Array(ex.memory.buffer).set(bytes, p);
    const r = ex.build_inventory(bytes.length);
    const dv = new DataView(ex.memory.buffer), u8 = new Uint8Array(ex.memory.buffer);
    const status = dv.getUint32(r, true), n = dv.getUint32(r + 4, true);
    const text = dec.decode(u8.subarray(r + 8, r + 8 + n));
    if (status !== 0) return { error: text };
    const m = dv.getUint32(r + 8 + n, true);
    return { version: text, blob: u8.slice(r + 12 + n, r + 12 + n + m), memory: ex.memory.buffer.byteLength };
  } catch (err) {
    return { error: "the build trapped: " + String(err) };
  } finally {
    ex = null; // the instance and its memory go with this call
  }
}

// publicStatus is what the pointer's metadata carries for the index.
const publicStatus = (st) => {
  const m = { takenAt: st.takenAt || 0 };
  if (st.failedAt) { m.failedAt = st.failedAt; m.error = st.error; }
  return m;
};

// take writes a new inventory as build/publish does, then the pull's state.
async function take(kv, st, built, seen, io) {
  const v = built.version;
  const now = io.now();
  const next = { etag: seen.etag || null, hash: seen.hash, version: v, takenAt: now };
  const meta = { metadata: publicStatus(next) };
  try {
    const old = await kv.get(POINTER);
    if (old !== v) {
      await kv.put("inventory/" + v, built.blob);
      if (old) {
        const prev = await kv.get("inventory/" + old, { type: "arrayBuffer" });
        if (prev !== null) await kv.put("inventory/" + old, prev, { expirationTtl: OLD_TTL });
      }
    }
    await kv.put(POINTER, v, meta);
    await kv.put(LATEST, built.blob, meta);
    await kv.put(STATE, JSON.stringify(next));
  } catch (err) {
    return fail(kv, st, "writing the inventory to KV failed: " + String(err && err.message || err), io);
  }
  if (st.failedAt) io.log.log(JSON.stringify({ level: "info", msg: "feed pull recovered: inventory " + v + " taken" }));
  return "taken " + v;
}

// ok ends a run that changed nothing; a failure recorded before is cleared.
async function ok(kv, st, what, io) {
  if (!st.failedAt) return what;
  const next = { ...st, failedAt: 0, error: "" };
  delete next.failedAt; delete next.error;
  try {
    await kv.put(STATE, JSON.stringify(next));
    const ptr = await kv.get(POINTER);
    if (ptr) await kv.put(POINTER, ptr, { metadata: publicStatus(next) });
  } catch (err) {
    io.log.error(JSON.stringify({ level: "error", msg: "feed pull: recording the recovery failed", error: String(err) }));
  }
  io.log.log(JSON.stringify({ level: "info", msg: "feed pull recovered: " + what }));
  return what;
}

// fail ends a run that changed nothing: the inventory serving stays. The reason is
// logged and recorded when it differs from the one recorded; a repeat writes and logs
// nothing. dropETag also forgets the ETag, so that the next run asks without it.
async function fail(kv, st, reason, io, dropETag) {
  reason = String(reason).slice(0, MAX_REASON);
  if (st.failedAt && st.error === reason && !dropETag) return "failed: " + reason;
  io.log.error(JSON.stringify({ level: "error", msg: "feed pull failed; the inventory serving stays, the next run tries again", reason }));
  const next = { ...st, failedAt: st.failedAt || io.now(), error: reason };
  if (dropETag) next.etag = null;
  try {
    await kv.put(STATE, JSON.stringify(next));
    const ptr = await kv.get(POINTER);
    if (ptr) await kv.put(POINTER, ptr, { metadata: publicStatus(next) });
  } catch (err) {
    // The next run logs the same reason again: the state could not say it was logged.
  }
  return "failed: " + reason;
}
