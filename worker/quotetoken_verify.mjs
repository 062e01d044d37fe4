// A reference verifier of quote ids (docs/quote-token.md), independent of the Go code:
// what a website does at checkout with the shared key. Node's crypto only.
//
//   node worker/quotetoken_verify.mjs 'kid:base64url-key[,kid:key...]' <quoteId> [<quoteId>...]
//
// prints one JSON line per id: {"ok":true, ...the fields} or {"ok":false,"error":...}.
import { createHmac, timingSafeEqual } from "node:crypto";

const MAC_LEN = 16, NONCE_LEN = 8, VERSION = 1;

export function parseKeys(s) {
  const keys = new Map();
  for (const entry of s.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const i = entry.indexOf(":");
    keys.set(Number(entry.slice(0, i)), Buffer.from(entry.slice(i + 1), "base64url"));
  }
  return keys;
}

// verify returns the fields of id when one of keys signed it, else { ok: false, error }.
export function verify(id, keys) {
  if (!/^[A-Za-z0-9_-]{4,200}$/.test(id)) return { ok: false, error: "malformed" };
  const b = Buffer.from(id, "base64url");
  if (b.toString("base64url") !== id || b.length < 2 + MAC_LEN || b[0] !== VERSION) return { ok: false, error: "malformed" };
  const key = keys.get(b[1]);
  if (!key) return { ok: false, error: "unknown key" };
  const body = b.subarray(0, b.length - MAC_LEN);
  const mac = createHmac("sha256", key).update(body).digest().subarray(0, MAC_LEN);
  if (!timingSafeEqual(mac, b.subarray(b.length - MAC_LEN))) return { ok: false, error: "bad signature" };
  let p = 2;
  const uvarint = () => { // unsigned LEB128, as Go's encoding/binary
    let v = 0n, shift = 0n;
    for (;;) {
      if (p >= body.length) throw new Error("truncated");
      const c = body[p++];
      v |= BigInt(c & 0x7f) << shift;
      if (c < 0x80) return Number(v);
      shift += 7n;
    }
  };
  try {
    const f = { ok: true, version: b[0], keyId: b[1] };
    f.pickUpDepotId = uvarint();
    f.dropOffDepotId = uvarint();
    const pickUp = uvarint();
    const dropOff = pickUp + uvarint();
    const day = (d) => new Date(d * 86400000).toISOString().slice(0, 10);
    f.pickUpDate = day(pickUp);
    f.dropOffDate = day(dropOff);
    f.vehicleId = uvarint();
    f.insuranceId = uvarint(); // 0: none
    const n = uvarint();
    f.accessories = [];
    for (let i = 0; i < n; i++) f.accessories.push({ id: uvarint(), quantity: uvarint() });
    f.totalCents = uvarint();
    f.inventoryTag = body.readUInt32BE(p);
    p += 4;
    const issued = uvarint();
    const ttl = uvarint();
    f.issuedAt = new Date(issued * 1000).toISOString().replace(".000", "");
    f.expiresAt = new Date((issued + ttl) * 1000).toISOString().replace(".000", "");
    f.nonce = body.subarray(p, p + NONCE_LEN).toString("hex");
    if (body.length - p !== NONCE_LEN) return { ok: false, error: "bad payload" };
    return f;
  } catch {
    return { ok: false, error: "bad payload" };
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const keys = parseKeys(process.argv[2] ?? "");
  for (const id of process.argv.slice(3)) console.log(JSON.stringify(verify(id, keys)));
}
