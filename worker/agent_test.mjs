// Tests of worker/glue/agent.mjs (Web Bot Auth verification), run by TestAgentGlue
// (agent_test.go) under the project's Node: the RFC 9421 and webbotauth drafts' Ed25519
// test vectors, requests signed by the web-bot-auth package's reference signer against
// key directories served on loopback, every refusal reason, and the bad-input table.
// Prints one JSON line per case: {"name", "got", "want", "ok"}; exits 1 when one fails.
import http from "node:http";
import { signatureHeaders } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";
import { agentCheck, fetchDirectory, forTests, parseDictionary, signatureBase, thumbprint } from "./glue/agent.mjs";

// The Ed25519 test key of RFC 9421 Appendix B.1.4.
const RFC_KEY = { kty: "OKP", crv: "Ed25519", d: "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" };
const RFC_KEYID = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";

let failed = 0;
function check(name, got, want) {
  const ok = got === want;
  if (!ok) failed++;
  console.log(JSON.stringify({ name, got: String(got), want: String(want), ok }));
}

async function publicKey(x) {
  const raw = Buffer.from(x, "base64url");
  return crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
}

async function verifyVector(name, req, label, wantBase) {
  const input = parseDictionary(req.headers.get("signature-input")).get(label);
  const sig = parseDictionary(req.headers.get("signature")).get(label).value;
  const agents = req.headers.has("signature-agent") ? new Map() : null;
  const base = signatureBase(req, input, agents);
  if (wantBase !== undefined) check(name + ": signature base", base, wantBase);
  const ok = await crypto.subtle.verify({ name: "Ed25519" }, await publicKey(RFC_KEY.x), sig, new TextEncoder().encode(base));
  check(name + ": verifies", ok, true);
}

// RFC 9421 B.2.6: signing a request using ed25519.
async function rfcVector() {
  const req = new Request("https://example.com/foo?param=Value&Pet=dog", {
    method: "POST",
    headers: {
      date: "Tue, 20 Apr 2021 02:07:55 GMT", "content-type": "application/json", "content-length": "18",
      "signature-input": 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
      signature: "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:",
    },
  });
  await verifyVector("RFC 9421 B.2.6", req, "sig-b26",
    '"date": Tue, 20 Apr 2021 02:07:55 GMT\n"@method": POST\n"@path": /foo\n"@authority": example.com\n' +
    '"content-type": application/json\n"content-length": 18\n' +
    '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"');
}

// draft-ietf-webbotauth-httpsig-protocol, Test Vectors, EdDSA: the labelled and the
// legacy (sf-string) Signature-Agent.
async function draftVectors() {
  check("RFC 7638 thumbprint of the RFC 9421 key", await thumbprint(RFC_KEY.x), RFC_KEYID);
  const labelled = new Request("https://example.com/", {
    headers: {
      "signature-agent": 'agent2="https://signature-agent.test"',
      "signature-input": 'sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="' + RFC_KEYID +
        '";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"',
      signature: "sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:",
    },
  });
  await verifyVector("draft vector, labelled Signature-Agent", labelled, "sig2");
  const legacy = new Request("https://example.com/", {
    headers: {
      "signature-agent": '"https://signature-agent.test"',
      "signature-input": 'sig2=("@authority" "signature-agent");created=1735689600;keyid="' + RFC_KEYID +
        '";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"',
      signature: "sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:",
    },
  });
  await verifyVector("draft vector, legacy Signature-Agent", legacy, "sig2");
}

// A loopback key directory server: route(path) -> handler(req, res). Counts hits.
async function server(handler) {
  const s = http.createServer((req, res) => { s.hits++; handler(req, res); });
  s.hits = 0;
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  s.origin = "http://127.0.0.1:" + s.address().port;
  return s;
}

const jwks = (keys) => JSON.stringify({ keys: keys.map((x) => ({ kty: "OKP", crv: "Ed25519", x })) });

function directory(body, extra = {}) {
  return (req, res) => {
    res.writeHead(200, { "content-type": "application/http-message-signatures-directory+json", "cache-control": "max-age=600", ...extra });
    res.end(body);
  };
}

// signed makes a request to url from agent origin, signed by key (a JWK with d) with
// the reference signer; form "plain" or "labelled"; options override created/expires
// and the covered components.
async function signed(url, origin, key, { form = "plain", created, expires, components, method = "GET" } = {}) {
  const sa = form === "plain" ? '"' + origin + '"' : 'sig1="' + origin + '"';
  const req = new Request(url, { method, headers: { "signature-agent": sa } });
  const now = Date.now();
  const h = await signatureHeaders(req, await signerFromJWK(key), {
    created: new Date(created ?? now), expires: new Date(expires ?? now + 300000),
    ...(components ? { components } : {}),
  });
  return new Request(url, { method, headers: { "signature-agent": sa, "signature-input": h["Signature-Input"], signature: h["Signature"] } });
}

async function newKey() {
  const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  return crypto.subtle.exportKey("jwk", kp.privateKey);
}

async function outcome(req, env, later = 0) {
  const p = agentCheck(req, env, Date.now() + later);
  return p === null ? "null (address)" : await p;
}

async function flows() {
  const dir = await server(directory(jwks([RFC_KEY.x])));
  const o = dir.origin;
  const env = { AGENT_LIMITS: "https://chatgpt.com=3000, " + o + "=5" };
  const url = "http://127.0.0.1:8787/api/agent/depots";
  check("plain Signature-Agent, valid", await outcome(await signed(url, o, RFC_KEY), env), o);
  check("labelled Signature-Agent (0.1.3 signs the whole field), valid", await outcome(await signed(url, o, RFC_KEY, { form: "labelled" }), env), o);
  check("the directory was fetched once and cached", dir.hits, 1);

  // a labelled member covered with its key, as the draft has it
  const other = await newKey();
  const keyed = await signedKeyed(url, o, RFC_KEY);
  check('labelled, covered as "signature-agent";key="sig1"', await outcome(keyed, env), o);

  // refusals
  const good = await signed(url, o, RFC_KEY);
  const moved = new Request("http://127.0.0.1:9999/api/agent/depots", { headers: good.headers });
  check("another authority (signed for another host)", await outcome(moved, env), "!tampered");
  const sig = good.headers.get("signature");
  const flipped = sig.slice(0, 10) + (sig[10] === "A" ? "B" : "A") + sig.slice(11);
  const h2 = new Headers(good.headers);
  h2.set("signature", flipped);
  check("tampered signature", await outcome(new Request(url, { headers: h2 }), env), "!tampered");
  const now = Date.now();
  check("expired", await outcome(await signed(url, o, RFC_KEY, { created: now - 600000, expires: now - 1000 }), env), "!expired");
  check("not yet valid", await outcome(await signed(url, o, RFC_KEY, { created: now + 600000, expires: now + 900000 }), env), "!not_yet_valid");
  const hitsBefore = dir.hits;
  check("unknown keyid", await outcome(await signed(url, o, other), env), "!unknown_keyid");
  check("unknown keyid: no refetch within a minute of the last fetch", dir.hits - hitsBefore, 0);
  check("unknown keyid a minute later", await outcome(await signed(url, o, other), env, 61000), "!unknown_keyid");
  check("unknown keyid a minute later: one refetch", dir.hits - hitsBefore, 1);
  check("unknown keyid again", await outcome(await signed(url, o, other), env, 62000), "!unknown_keyid");
  check("unknown keyid again: no second refetch", dir.hits - hitsBefore, 1);
  check("no @authority covered", await outcome(await signed(url, o, RFC_KEY, { components: ["signature-agent", "@path"] }), env), "!authority");
  check("unlisted Signature-Agent", await outcome(await signed(url, "https://unlisted.example", RFC_KEY), env), "null (address)");
  check("no Signature-Agent", await outcome(new Request(url), env), "null (address)");
  check("AGENT_LIMITS empty", await outcome(good, {}), "null (address)");
  check("AGENT_LIMITS listing plain http:// off loopback", await outcome(await signed(url, "http://agent.example", RFC_KEY), { AGENT_LIMITS: "http://agent.example=5" }), "null (address)");

  // the bad-input table
  const bad = (name, patch) => {
    const h = new Headers(good.headers);
    for (const [k, v] of Object.entries(patch)) h.set(k, v);
    return [name, new Request(url, { headers: h })];
  };
  const si = good.headers.get("signature-input");
  const fifty = Array.from({ length: 50 }, (_, i) => "s" + i + "=:" + Buffer.alloc(64, i).toString("base64") + ":").join(", ");
  for (const [name, req] of [
    bad("malformed Signature-Input", { "signature-input": "sig1=(@authority" }),
    bad("10 KB Signature-Input", { "signature-input": si + ";x=\"" + "a".repeat(10240) + "\"" }),
    bad("fifty signatures", { signature: fifty }),
    bad("Signature-Input without the web-bot-auth tag", { "signature-input": si.replace('tag="web-bot-auth"', 'tag="other"') }),
    bad("no Signature header", { signature: "" }),
    bad("alg other than ed25519", { "signature-input": si.replace('alg="ed25519"', 'alg="rsa-pss-sha512"') }),
    bad("a decimal created", { "signature-input": si.replace(/created=\d+/, "created=1.5") }),
  ]) check(name, await outcome(req, env), "!malformed");
  check("10 KB Signature-Agent", await outcome(bad("", { "signature-agent": '"' + "a".repeat(10240) + '"' })[1], env), "null (address)");

  dir.close();
}

// signedKeyed signs the labelled form covering "signature-agent";key="sig1" with the
// RFC key by hand (web-bot-auth 0.1.3 covers the whole field).
async function signedKeyed(url, origin, key) {
  const now = Math.floor(Date.now() / 1000);
  const params = '("@authority" "signature-agent";key="sig1");created=' + now + ';keyid="' + RFC_KEYID + '";alg="ed25519";expires=' + (now + 300) + ';tag="web-bot-auth"';
  const base = '"@authority": ' + new URL(url).host + '\n"signature-agent";key="sig1": "' + origin + '"\n"@signature-params": ' + params;
  const pk = await crypto.subtle.importKey("jwk", key, { name: "Ed25519" }, false, ["sign"]);
  const s = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, pk, new TextEncoder().encode(base)));
  return new Request(url, { headers: { "signature-agent": 'sig1="' + origin + '"', "signature-input": "sig1=" + params, signature: "sig1=:" + Buffer.from(s).toString("base64") + ":" } });
}

// Directories that cannot be had: each leaves the address's limit ("").
async function badDirectories() {
  const url = "http://127.0.0.1:8787/api/agent/depots";
  const many = [];
  for (let i = 0; i < 1000; i++) many.push(Buffer.alloc(32, i % 256).toString("base64url"));
  const cases = [
    ["a 10 MB directory, chunked", (req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"keys":[');
      const chunk = " ".repeat(1 << 20);
      let n = 0;
      const more = () => { while (n < 10) { n++; if (!res.write(chunk)) return res.once("drain", more); } res.end("]}"); };
      res.on("error", () => {});
      more();
    }],
    ["a 10 MB directory, Content-Length given", (req, res) => { res.writeHead(200, { "content-length": String(10 << 20) }); res.end(Buffer.alloc(10 << 20, 32)); }],
    ["a directory of 1,000 keys", directory(jwks(many))],
    ["a directory answering HTML", directory("<html><body>hello</body></html>", { "content-type": "text/html" })],
    ["a directory answering 404", (req, res) => { res.writeHead(404); res.end(); }],
    ["a redirect", (req, res) => { res.writeHead(302, { location: "https://example.com/" }); res.end(); }],
    ["a hanging directory", () => {}],
  ];
  for (const [name, handler] of cases) {
    const s = await server(handler);
    const env = { AGENT_LIMITS: s.origin + "=5" };
    const t0 = Date.now();
    check(name, await outcome(await signed(url, s.origin, RFC_KEY), env), "");
    if (name === "a hanging directory") check("the hanging directory gives up within 3 s", Date.now() - t0 < 3000, true);
    const hits = s.hits;
    check(name + ": not fetched again within the minute", await outcome(await signed(url, s.origin, RFC_KEY), env), "");
    check(name + ": fetch count", s.hits, hits);
    s.closeAllConnections?.();
    s.close();
  }
  check("fetchDirectory of a closed port", await fetchDirectory("http://127.0.0.1:1"), null);
}

await rfcVector();
await draftVectors();
await flows();
await badDirectories();
forTests.directories.clear();
process.exit(failed > 0 ? 1 : 0);
