// identity.mjs: the CPU a request with a partner key and one with a Web Bot Auth
// signature cost against a plain one, through the shipped glue (build/worker.mjs) and
// build/app.wasm in V8 under Node: n GET /depots from one client each way, timed with
// process.cpuUsage (user + system) after a warm-up. Keyed: core verifies the key's MAC.
// Signed: the glue's agentCheck (the signature base, WebCrypto Ed25519, the key
// directory cached after its first fetch from a loopback server), then core with the
// verified origin. The signer is the web-bot-auth package's.
//
//   node_modules/.bin/node build/bench/identity.mjs [n]
import http from "node:http";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { signatureHeaders } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const n = Number(process.argv[2] ?? 20000);
const glue = readFileSync(join(root, "build", "worker.mjs"), "utf8")
  .replace(/^import wasmModule from "\.\/app\.wasm";$/m, "const wasmModule = globalThis.__module;") + "\nexport { call, current, agentCheck };\n";
globalThis.__module = new WebAssembly.Module(readFileSync(join(root, "build", "app.wasm")));
const dir = mkdtempSync(join(tmpdir(), "identity-"));
writeFileSync(join(dir, "glue.mjs"), glue);
const g = await import(join(dir, "glue.mjs"));

const KEY = { kty: "OKP", crv: "Ed25519", d: "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" };
const srv = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" });
  res.end(JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", x: KEY.x }] }));
});
await new Promise((r) => srv.listen(0, "127.0.0.1", r));
const agent = "http://127.0.0.1:" + srv.address().port;
const env = { BASE_PATH: "/api/agent", RATE_LIMIT_REQUESTS: "1000000000", API_KEY_SECRET: "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
  AGENT_LIMITS: agent + "=1000000000", QUOTE_SIGNING_KEYS: "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" };
const a = g.current(env);
const url = "http://127.0.0.1:8787/api/agent/depots", none = new Uint8Array(0);
// a key of the largest limit under env's secret (make key NAME=bench LIMIT=2147483648)
const key = "Bearer " + process.env.BENCH_KEY;
const sa = '"' + agent + '"';
const sh = await signatureHeaders(new Request(url, { headers: { "signature-agent": sa } }), await signerFromJWK(KEY),
  { created: new Date(), expires: new Date(Date.now() + 3600000) });
const signed = new Request(url, { headers: { "signature-agent": sa, "signature-input": sh["Signature-Input"], signature: sh["Signature"] } });

const ways = {
  plain: async () => { g.call(a, "GET", url, ["203.0.113.7", ""], none, Date.now()); },
  keyed: async () => { g.call(a, "GET", url, ["203.0.113.7", "", key, ""], none, Date.now()); },
  signed: async () => {
    const origin = await g.agentCheck(signed, env, Date.now());
    g.call(a, "GET", url, ["203.0.113.7", "", "", origin], none, Date.now());
  },
};
// the Ed25519 verification alone (WebCrypto, a 300-byte base): the part of "signed"
// that is the platform's, not the glue's
const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
const base = new TextEncoder().encode("x".repeat(300));
const sig = await crypto.subtle.sign({ name: "Ed25519" }, kp.privateKey, base);
ways["ed25519-verify-only"] = async () => { await crypto.subtle.verify({ name: "Ed25519" }, kp.publicKey, sig, base); };
const want = { plain: '"default"', keyed: '"partner"', signed: '"agent"' };
for (const [name, f] of Object.entries(ways)) {
  for (let k = 0; k < 2000; k++) await f(); // warm-up (and the directory's one fetch)
  if (want[name] && (a.status !== 200 || !String(a.headers.get?.("ratelimit-policy") ?? JSON.stringify(a.headers)).includes(want[name]))) {
    console.error(name + ": status " + a.status + ", headers " + JSON.stringify(a.headers));
  }
  const t0 = process.cpuUsage();
  for (let k = 0; k < n; k++) await f();
  const t = process.cpuUsage(t0);
  console.log(JSON.stringify({ way: name, n, cpuUsPerRequest: +((t.user + t.system) / n).toFixed(2) }));
}
srv.close();
