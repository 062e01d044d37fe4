// The live inventory (docs/inventory.md). KV holds "inventory/current" (a version),
// "inventory/<version>" (the blob build/publish wrote) and "inventory/latest" (the blob
// of the version current names). An isolate's first read takes inventory/latest, one
// round trip, and goes on to the pointer and the blob it names only when that key is
// missing or its blob refused. Until that read ends (at most INVENTORY_FIRST_WAIT_MS),
// the requests whose answer reads the bookings wait for it; the others are answered at
// once. After, the pointer is read in the background at most every
// INVENTORY_REFRESH_SECONDS, and the blob only when the pointer moved. The module takes
// a blob between requests or refuses it and keeps serving the one it has. A KV failure
// is logged once per isolate; serving goes on from the last inventory taken.
import { HEADERS, NAME_FIELDS, NO_BODY, ascii, enc, views, writeRequest } from "./abi.mjs";
import { current, drop, feedStatusApply, inventoryApply, keepInventory } from "./instance.mjs";

const INVENTORY_POINTER = "inventory/current";
const INVENTORY_LATEST = "inventory/latest";
const INVENTORY_CACHE_TTL = 30; // seconds (KV's minimum): docs/inventory.md, the freshness bound
const INVENTORY_FIRST_WAIT_MS = 1000;
const inv = { pointer: null, next: 0, pending: null, ready: null, logged: false, status: "" }; // next: 0 until the first read starts

function inventoryFail(msg, err) {
  if (inv.logged) return;
  inv.logged = true;
  console.error(JSON.stringify({ level: "error", msg: msg + "; serving the last inventory taken (logged once per isolate)", error: String(err) }));
}

// inventoryTake offers the blob read from key to the module; true when it serves. With
// version (the key names none: inventory/latest) it sets inv.pointer to the version the
// module reports for the blob, taken or refused, so that the pointer naming that version
// reads nothing more.
const inventoryTake = (function (env, buf, key, version) {
  const bytes = new Uint8Array(buf);
  try {
    const a = current(env);
    const ok = inventoryApply(a, bytes) === 0;
    if (version) {
      const p = a.ex.inventory_version();
      views(a);
      inv.pointer = ascii(a.u8, p + 4, p + 4 + a.dv.getUint32(p, true));
    }
    if (ok) keepInventory(bytes);
    else console.error(JSON.stringify({ level: "error", msg: key + " refused (the line before says why); serving the previous version, and this one is not read again" }));
    return ok;
  } catch (err) {
    drop();
    console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), where: "inventory" }));
    return false;
  }
});

// feedStatus hands the scheduled pull's status, the metadata of inventory/latest or of
// the pointer (scheduled.mjs), to the module when it changed: "takenAt failedAt
// maxAge\nreason", the text of api.Server.SetFeedStatus. A key without metadata (make
// publish) clears the report.
function feedStatus(env, m) {
  const maxAge = Number(env.FEED_MAX_AGE_SECONDS) > 0 ? Math.min(Math.floor(Number(env.FEED_MAX_AGE_SECONDS)), 31536000) : 0; // at most a year
  const s = m && typeof m === "object" ? Math.floor(Number(m.takenAt) || 0) + " " + Math.floor(Number(m.failedAt) || 0) + " " + maxAge + "\n" + String(m.error || "") : "";
  if (s === inv.status) return;
  inv.status = s;
  try {
    feedStatusApply(current(env), enc.encode(s));
  } catch (err) {
    drop();
  }
}

const inventoryRefresh = (async function (env, first) {
  let ptr, buf;
  try {
    let noLatest = false;
    if (first) {
      const r = await env.INVENTORY.getWithMetadata(INVENTORY_LATEST, { type: "arrayBuffer", cacheTtl: INVENTORY_CACHE_TTL });
      buf = r.value;
      if (buf !== null && r.metadata) feedStatus(env, r.metadata);
      if (buf !== null && inventoryTake(env, buf, INVENTORY_LATEST, true)) return;
      noLatest = buf === null;
    }
    const r = await env.INVENTORY.getWithMetadata(INVENTORY_POINTER, { cacheTtl: INVENTORY_CACHE_TTL });
    ptr = r.value;
    if (ptr !== null && (r.metadata || inv.status !== "")) feedStatus(env, r.metadata);
    if (ptr === null || ptr === inv.pointer) return;
    if (noLatest) { // published by a build/publish that wrote no inventory/latest
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
// INVENTORY_FIRST_WAIT_MS have passed, whichever is first (every request of that window
// that reads the bookings awaits it); after, null.
export const inventoryTick = (function (env, ctx, now) {
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
// makes the instance if there is none, so that its start overlaps the read.
const NO_VALUES = [];
export const readsInventory = (function (method, target, env) {
  try {
    const a = current(env);
    return a.ex.reads_inventory(writeRequest(a, method, target, HEADERS, NO_VALUES, NAME_FIELDS, NO_BODY, 0)) !== 0;
  } catch (err) {
    drop(); // answer() makes a fresh instance, and logs if that traps too
    return true;
  }
});
