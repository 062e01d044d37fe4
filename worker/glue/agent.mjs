// Web Bot Auth (README, "Who is asking"): the glue verifies a signed agent's request
// (RFC 9421 HTTP Message Signatures as the IETF webbotauth drafts profile them) and
// hands core the outcome in the :agent request header (core/api/identity.go): the
// agent's origin, "!" and a refusal reason, or "" (the address's limit). Only origins
// the operator listed in AGENT_LIMITS are looked at: the Worker fetches no URL a client
// chose. fetch.mjs calls agentCheck only when the request has a Signature-Agent header.
// Verified by hand rather than with the web-bot-auth package (RATIONALE.md, "Why is
// Web Bot Auth verified by hand in the glue?").

import { dec } from "./abi.mjs";
import { readAtMost } from "./body.mjs";

export const WELL_KNOWN = "/.well-known/http-message-signatures-directory";
const DIR_TIMEOUT_MS = 2000; // a directory fetch that takes longer: the address's limit
const DIR_MAX_BYTES = 65536; // a larger directory is refused unread
const DIR_MAX_KEYS = 32; // a directory with more keys is refused
const DIR_TTL_DEFAULT_S = 300, DIR_TTL_MIN_S = 60, DIR_TTL_MAX_S = 86400;
const REFETCH_GAP_MS = 60000; // an unknown keyid, or a failed fetch: at most one fetch a minute
const MAX_FIELD = 4096; // Signature-Agent, Signature-Input or Signature longer than this: malformed
const MAX_MEMBERS = 16; // dictionary members per field
const SKEW_S = 60; // a created this far in the future is still accepted (clock skew)

const enc = new TextEncoder();

// listed returns AGENT_LIMITS's origins as a Set, parsed once per value of the var: an
// origin core accepts (api.AgentOrigin: https://host[:port], or http:// on loopback).
let listedSrc = null, listedSet = new Set();
const ORIGIN = /^(https:\/\/[a-z0-9.\-[\]:]+|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?)$/;
export function listed(env) {
  const s = (env && env.AGENT_LIMITS) || "";
  if (s !== listedSrc) {
    listedSrc = s;
    listedSet = new Set();
    for (const e of s.split(",")) {
      const i = e.indexOf("=");
      const o = i > 0 ? trimSlash(e.slice(0, i).trim()) : "";
      if (ORIGIN.test(o)) listedSet.add(o);
    }
  }
  return listedSet;
}

const trimSlash = (o) => (o.endsWith("/") ? o.slice(0, -1) : o);

// The key directories of listed origins: origin -> { keys: Map(keyid -> CryptoKey),
// until, fetchedAt, pending }. One entry per listed origin at most: bounded by
// AGENT_LIMITS.
const directories = new Map();

// agentCheck returns null when the request carries no Signature-Agent of a listed
// origin (nothing to verify: the address's limit), else a promise of the :agent value.
// It never throws and the promise never rejects.
export function agentCheck(request, env, nowMs) {
  const sa = request.headers.get("signature-agent");
  if (sa === null || sa.length > MAX_FIELD) return null;
  const agents = parseAgents(sa);
  if (agents === null) return null;
  const set = listed(env);
  let any = false;
  for (const v of agents.values()) if (set.has(trimSlash(v))) any = true;
  if (!any) return null; // not a listed agent: ignored
  return verifyRequest(request, agents, set, nowMs).catch(() => "");
}

// parseAgents reads Signature-Agent: the plain quoted origin (an sf-string, stored
// under the key "") or the draft's dictionary of labelled origins. null: neither.
export function parseAgents(v) {
  const t = v.trim();
  if (t.startsWith('"')) {
    const p = new SF(t);
    const s = p.string();
    p.ows();
    return s !== null && p.end() ? new Map([["", s]]) : null;
  }
  const d = parseDictionary(v);
  if (d === null) return null;
  const m = new Map();
  for (const [k, item] of d) if (typeof item.value === "string" && item.kind === "string") m.set(k, item.value);
  return m.size > 0 ? m : null;
}

// verifyRequest checks the request's web-bot-auth signature and returns the :agent value.
async function verifyRequest(request, agents, set, nowMs) {
  const h = request.headers;
  const si = h.get("signature-input"), sg = h.get("signature");
  if (si === null || sg === null || si.length > MAX_FIELD || sg.length > MAX_FIELD) return "!malformed";
  const inputs = parseDictionary(si), sigs = parseDictionary(sg);
  if (inputs === null || sigs === null) return "!malformed";
  let label = null, input = null;
  for (const [k, item] of inputs) {
    if (Array.isArray(item.value) && item.params.get("tag") === "web-bot-auth") { label = k; input = item; break; }
  }
  if (input === null) return "!malformed";
  const sig = sigs.get(label);
  if (!sig || sig.kind !== "bytes" || sig.value.length !== 64) return "!malformed";
  const checked = checkParams(input, agents, set, nowMs);
  if (typeof checked === "string") return checked;
  const { origin, keyid } = checked;
  const base = signatureBase(request, input, agents);
  if (base === null) return "!malformed";
  let key = await keyFor(origin, keyid, nowMs);
  if (key === undefined) return ""; // no directory to be had: the address's limit
  if (key === null) return "!unknown_keyid";
  const ok = await crypto.subtle.verify({ name: "Ed25519" }, key, sig.value, enc.encode(base));
  return ok ? origin : "!tampered";
}

// checkParams checks the signature's parameters and covered components: returns the
// agent's origin and the keyid, or a refusal.
function checkParams(input, agents, set, nowMs) {
  const p = input.params;
  const created = p.get("created"), expires = p.get("expires"), keyid = p.get("keyid"), alg = p.get("alg");
  if (!Number.isInteger(created) || !Number.isInteger(expires) || typeof keyid !== "string" ||
    (alg !== undefined && alg !== "ed25519")) return "!malformed";
  let authority = false, origin = null;
  for (const c of input.value) {
    if (c.value === "@authority" || c.value === "@target-uri") authority = true;
    if (c.value === "signature-agent") {
      const k = c.params.get("key");
      const o = k === undefined ? (agents.size === 1 ? agents.values().next().value : undefined) : agents.get(k);
      if (o !== undefined) origin = trimSlash(o);
    }
  }
  if (origin === null) return "!malformed"; // the signature must cover its Signature-Agent
  if (!set.has(origin)) return "!malformed";
  if (!authority) return "!authority";
  const now = Math.floor(nowMs / 1000);
  if (created > now + SKEW_S) return "!not_yet_valid";
  if (expires <= now) return "!expired";
  return { origin, keyid };
}

// signatureBase builds the RFC 9421 signature base (section 2.5) of the request for the
// covered components of input; null when a component cannot be had.
export function signatureBase(request, input, agents) {
  const url = new URL(request.url);
  const h = request.headers;
  let out = "";
  for (const c of input.value) {
    const name = c.value;
    let v;
    switch (name) {
      case "@authority": v = url.host.toLowerCase(); break;
      case "@method": v = request.method; break;
      case "@path": v = url.pathname || "/"; break;
      case "@query": v = url.search === "" ? "?" : url.search; break;
      case "@target-uri": v = request.url; break;
      case "@scheme": v = url.protocol.slice(0, -1); break;
      case "@request-target": v = (url.pathname || "/") + url.search; break;
      default: {
        if (name.startsWith("@") || name !== name.toLowerCase()) return null;
        const raw = h.get(name);
        if (raw === null) return null;
        const key = c.params.get("key");
        if (key !== undefined) {
          if (typeof key !== "string" || c.params.size !== 1) return null;
          const d = parseDictionary(raw);
          const m = d && d.get(key);
          if (!m) return null;
          v = serializeItem(m);
        } else {
          if (c.params.size !== 0) return null;
          v = raw.trim();
        }
      }
    }
    out += serializeComponent(c) + ": " + v + "\n";
  }
  return out + '"@signature-params": ' + serializeInner(input);
}

// keyFor returns the CryptoKey of keyid in origin's directory: null when the directory
// has no such key, undefined when the directory cannot be had.
async function keyFor(origin, keyid, nowMs) {
  let d = directories.get(origin);
  if (d === undefined) {
    d = { keys: null, until: 0, fetchedAt: -Infinity, pending: null };
    directories.set(origin, d);
  }
  const fresh = d.keys !== null && nowMs < d.until;
  if ((!fresh || !d.keys.has(keyid)) && (d.pending !== null || nowMs - d.fetchedAt >= REFETCH_GAP_MS)) {
    await refresh(d, origin, nowMs);
  }
  if (d.keys === null || nowMs >= d.until) return undefined;
  return d.keys.get(keyid) ?? null;
}

// refresh fetches origin's directory into d (one fetch at a time per origin). A failed
// fetch keeps the keys d had while they last, and the next try waits a minute.
async function refresh(d, origin, nowMs) {
  if (d.pending === null) {
    d.fetchedAt = nowMs;
    d.pending = fetchDirectory(origin).then((r) => {
      if (r !== null) {
        d.keys = r.keys;
        d.until = nowMs + r.ttl * 1000;
      } else if (nowMs >= d.until) {
        d.keys = null;
      }
    }, () => {}).finally(() => { d.pending = null; });
  }
  await d.pending;
}

// fetchDirectory fetches and reads a key directory: { keys, ttl } or null when it
// cannot be had (an error, a timeout, not 200, too large, not JSON, too many keys).
export async function fetchDirectory(origin, timeoutMs = DIR_TIMEOUT_MS) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    const res = await fetch(origin + WELL_KNOWN, { signal: ctrl.signal, redirect: "manual",
      headers: { accept: "application/http-message-signatures-directory+json, application/json" } });
    if (res.status !== 200) { res.body?.cancel().catch(() => {}); return null; }
    const body = await readAtMost(res, DIR_MAX_BYTES);
    if (body === null) return null;
    let doc;
    try { doc = JSON.parse(dec.decode(body)); } catch { return null; }
    const list = doc && doc.keys;
    if (!Array.isArray(list) || list.length > DIR_MAX_KEYS) return null;
    const keys = new Map();
    for (const jwk of list) {
      if (!jwk || jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") continue;
      const raw = b64urlDecode(jwk.x);
      if (raw === null || raw.length !== 32) continue;
      keys.set(await thumbprint(jwk.x), await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]));
    }
    return { keys, ttl: maxAge(res.headers.get("cache-control")) };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

// maxAge is the directory's lifetime from Cache-Control's max-age, in bounds.
function maxAge(cc) {
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cc || "");
  const s = m ? Number(m[1]) : DIR_TTL_DEFAULT_S;
  return Math.min(Math.max(s, DIR_TTL_MIN_S), DIR_TTL_MAX_S);
}

// thumbprint is the RFC 7638 JWK thumbprint of an Ed25519 key (RFC 8037 A.3), base64url.
export async function thumbprint(x) {
  const d = await crypto.subtle.digest("SHA-256", enc.encode('{"crv":"Ed25519","kty":"OKP","x":"' + x + '"}'));
  return b64urlEncode(new Uint8Array(d));
}

function b64urlDecode(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch { return null; }
}

function b64urlEncode(b) {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// Structured fields (RFC 8941), as far as these three headers use them: a dictionary
// of inner lists or items with parameters; items are strings, tokens, integers,
// booleans and byte sequences. Decimals and anything else: not parsed (null).

// parseDictionary returns a Map of key -> { kind, value, params }, or null.
export function parseDictionary(s) {
  const p = new SF(s);
  const out = new Map();
  p.ows();
  if (p.end()) return null;
  for (;;) {
    const key = p.key();
    if (key === null) return null;
    let member;
    if (p.peek() === "=") {
      p.i++;
      member = p.peek() === "(" ? p.innerList() : p.item();
    } else {
      member = { kind: "boolean", value: true, params: p.params() };
    }
    if (member === null || member.params === null) return null;
    out.set(key, member);
    if (out.size > MAX_MEMBERS) return null;
    p.ows();
    if (p.end()) return out;
    if (p.peek() !== ",") return null;
    p.i++;
    p.ows();
    if (p.end()) return null;
  }
}

class SF {
  constructor(s) { this.s = s; this.i = 0; }
  peek() { return this.s[this.i]; }
  end() { return this.i >= this.s.length; }
  ows() { while (this.s[this.i] === " " || this.s[this.i] === "\t") this.i++; }
  sp() { while (this.s[this.i] === " ") this.i++; }
  key() {
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i, this.i + 64));
    if (!m) return null;
    this.i += m[0].length;
    return m[0];
  }
  innerList() {
    this.i++; // (
    const items = [];
    for (;;) {
      this.sp();
      if (this.peek() === ")") { this.i++; break; }
      const it = this.item();
      if (it === null || it.params === null || items.length >= 32) return null;
      items.push(it);
      const c = this.peek();
      if (c !== " " && c !== ")") return null;
    }
    return { kind: "inner", value: items, params: this.params() };
  }
  item() {
    const v = this.bare();
    if (v === null) return null;
    return { kind: v.kind, value: v.value, params: this.params() };
  }
  params() {
    const m = new Map();
    while (this.peek() === ";") {
      this.i++;
      this.sp();
      const k = this.key();
      if (k === null || m.size >= 16) return null;
      let v = true;
      if (this.peek() === "=") {
        this.i++;
        const b = this.bare();
        if (b === null) return null;
        v = b.value;
      }
      m.set(k, v);
    }
    return m;
  }
  bare() {
    const c = this.peek();
    if (c === '"') { const s = this.string(); return s === null ? null : { kind: "string", value: s }; }
    if (c === ":") {
      const j = this.s.indexOf(":", this.i + 1);
      if (j < 0) return null;
      const body = this.s.slice(this.i + 1, j);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return null;
      this.i = j + 1;
      try {
        const bin = atob(body);
        const out = new Uint8Array(bin.length);
        for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
        return { kind: "bytes", value: out };
      } catch { return null; }
    }
    if (c === "?") {
      const b = this.s[this.i + 1];
      if (b !== "0" && b !== "1") return null;
      this.i += 2;
      return { kind: "boolean", value: b === "1" };
    }
    let m = /^-?[0-9]{1,15}/.exec(this.s.slice(this.i, this.i + 17));
    if (m) {
      if (this.s[this.i + m[0].length] === ".") return null; // a decimal
      this.i += m[0].length;
      return { kind: "integer", value: Number(m[0]) };
    }
    m = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/.exec(this.s.slice(this.i, this.i + 512));
    if (m) { this.i += m[0].length; return { kind: "token", value: { token: m[0] } }; }
    return null;
  }
  string() {
    if (this.peek() !== '"') return null;
    let out = "";
    for (let j = this.i + 1; j < this.s.length; j++) {
      const ch = this.s[j];
      if (ch === "\\") {
        const n = this.s[j + 1];
        if (n !== '"' && n !== "\\") return null;
        out += n;
        j++;
      } else if (ch === '"') {
        this.i = j + 1;
        return out;
      } else {
        const code = ch.charCodeAt(0);
        if (code < 0x20 || code > 0x7e) return null;
        out += ch;
      }
    }
    return null;
  }
}

// Serialization (RFC 8941 section 4.1) of what the signature base needs.
function serializeBare(kind, v) {
  switch (kind) {
    case "string": return '"' + v.replace(/[\\"]/g, (c) => "\\" + c) + '"';
    case "integer": return String(v);
    case "boolean": return v ? "?1" : "?0";
    case "bytes": { let s = ""; for (let i = 0; i < v.length; i++) s += String.fromCharCode(v[i]); return ":" + btoa(s) + ":"; }
    default: return v.token;
  }
}

function kindOf(v) {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "integer";
  if (typeof v === "boolean") return "boolean";
  return v instanceof Uint8Array ? "bytes" : "token";
}

function serializeParams(params) {
  let s = "";
  for (const [k, v] of params) s += v === true ? ";" + k : ";" + k + "=" + serializeBare(kindOf(v), v);
  return s;
}

function serializeItem(it) { return serializeBare(it.kind, it.value) + serializeParams(it.params); }
function serializeComponent(c) { return serializeBare("string", c.value) + serializeParams(c.params); }
function serializeInner(input) {
  return "(" + input.value.map(serializeComponent).join(" ") + ")" + serializeParams(input.params);
}

// forTests exposes the directory cache to worker/agent_test.mjs.
export const forTests = { directories };
