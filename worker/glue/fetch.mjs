// The Worker's fetch handler: a request's headers and body read, the answer made by the
// module (retried once on a fresh instance after a trap), the request log line, and the
// background work (rate-limit KV, inventory refresh, renewal) handed to ctx.waitUntil.
import { AGENT_AT, GET_HEADERS, HEADERS, ID_HEADERS, NO_BODY, call, enc } from "./abi.mjs";
import { agentCheck } from "./agent.mjs";
import { readAtMost } from "./body.mjs";
import { app, current, drop, logLevel, renew, validatorFreePaths } from "./instance.mjs";
import { inventoryTick, readsInventory } from "./inventory.mjs";
import { kvRestart, kvSync } from "./ratelimit.mjs";

// The most bytes of a POST body core takes (the MCP endpoint); one more byte tells it
// the body is too long, and it answers 413 as it would for the whole body.
const MAX_BODY = 65536;
// The answer to a request whose body cannot be read (the body's stream failed).
const BODY_FAILED = '{"error":"the request body could not be read (a malformed chunked encoding, a body shorter than its Content-Length, or an upload that was aborted); send the JSON-RPC message again","code":"invalid_request","param":"body"}';
const BODY_FAILED_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store",
  "access-control-allow-origin": "*", "x-content-type-options": "nosniff" };
// FAILED is the answer when the module trapped twice on one request.
const FAILED = {
  status: 500, prevRoute: "-", prevKV: false, body: enc.encode('{"error":"internal error; the request was not completed, retry it"}'),
  headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "access-control-allow-origin": "*", "x-content-type-options": "nosniff" },
};
// The Response init object, its fields set for each answer: workerd reads them in the
// constructor and keeps neither the object nor a reference to it.
const INIT = { status: 200, headers: null };

// This request's header values, reused (one request at a time per isolate): all of
// HEADERS for OPTIONS and POST (CORS and the MCP endpoint), the first GET_HEADERS for a
// GET or HEAD, and the client's address alone under a validator-free path (no answer
// there has an ETag to match).
const HV_ALL = new Array(HEADERS.length).fill("");
const HV_GET = new Array(GET_HEADERS).fill("");
const HV_CLIENT = [""];
const HV_ID = new Array(ID_HEADERS).fill(""); // a GET or HEAD with a key or a signature

// fetch returns the Response itself when nothing has to be awaited (every GET and HEAD
// but those that wait for an isolate's first inventory read): an async handler costs
// every request a promise and a microtask turn.
export const fetch = (function (request, env, ctx) {
  // The target is the URL whole: core takes its path and query, and putString keeps a
  // view for it when it is not sliced.
  const target = request.url;
  const method = request.method;
  if (method === "POST") return post(request, target, env, ctx);
  // A Signature-Agent matters only when the operator lists agents (AGENT_LIMITS, empty
  // as shipped): without a list, a plain request pays one header lookup for identity.
  const rh = request.headers;
  if (rh.has("authorization") || (env.AGENT_LIMITS && rh.has("signature-agent"))) return identified(request, method, target, env, ctx);
  const hv = method === "GET" || method === "HEAD" ? (validatorFree(target) ? HV_CLIENT : HV_GET) : HV_ALL;
  const now = Date.now(); // the inventory's schedule and the module's clock alike
  const ready = inventoryTick(env, ctx, now);
  if (ready !== null && readsInventory(method, target, env)) { // the isolate's first inventory read is under way
    return ready.then(() => answer(method, target, readHeaders(request, hv, ""), NO_BODY, env, ctx, Date.now()));
  }
  return answer(method, target, readHeaders(request, hv, ""), NO_BODY, env, ctx, now);
});

// identified answers a request with a key or a Signature-Agent (README, "Who is
// asking"): core verifies a key; the glue verifies a listed agent's signature first
// (agent.mjs), which may wait for the agent's key directory.
function identified(request, method, target, env, ctx) {
  const hv = method === "GET" || method === "HEAD" ? HV_ID : HV_ALL;
  const now = Date.now();
  const check = agentCheck(request, env, now); // null: no listed agent to verify
  const ready = inventoryTick(env, ctx, now);
  const waits = ready !== null && readsInventory(method, target, env);
  if (check === null && !waits) return answer(method, target, readHeaders(request, hv, ""), NO_BODY, env, ctx, now);
  return (async () => {
    const agent = check === null ? "" : await check;
    if (waits) await ready;
    // the headers after the last await (another request may have filled hv meanwhile)
    return answer(method, target, readHeaders(request, hv, agent), NO_BODY, env, ctx, Date.now());
  })();
}

// post reads a POST's body first (the MCP endpoint), then answers.
async function post(request, target, env, ctx) {
  let body;
  try {
    body = await readBody(request);
  } catch (err) {
    // A malformed chunked body, a client that aborted mid-upload, a body shorter
    // than its Content-Length: nothing core could answer, so the glue does.
    if (logLevel > 0) console.log('{"method":"POST","route":"-","status":400}');
    return new Response(BODY_FAILED, { status: 400, headers: BODY_FAILED_HEADERS });
  }
  const ready = inventoryTick(env, ctx, Date.now()); // the MCP endpoint's tools search: it waits
  if (ready !== null) await ready;
  let agent = "";
  if (env.AGENT_LIMITS && request.headers.has("signature-agent")) {
    const check = agentCheck(request, env, Date.now());
    if (check !== null) agent = await check;
  }
  // The headers are read after the last await: while it waited, another request may
  // have filled HV_ALL (one request runs at a time, but they interleave at awaits).
  return answer("POST", target, readHeaders(request, HV_ALL, agent), body, env, ctx, Date.now());
}

// answer runs one request through the module, retrying once on a fresh instance after
// a trap, and makes its Response.
const answer = (function (method, target, hv, body, env, ctx, now) {
  let r; // the instance that answered (call left its answer in it), or FAILED
  for (let attempt = 0; ; attempt++) {
    try {
      r = current(env);
      call(r, method, target, hv, body, now);
      break;
    } catch (err) {
      drop();
      console.error(JSON.stringify({ level: "error", msg: "wasm trap", error: String(err), attempt }));
      if (attempt >= 1) {
        r = FAILED;
        break;
      }
    }
  }
  if (r.prevKV && app !== null) { const p = kvSync(app, env); if (p) ctx.waitUntil(p); }
  // The request log line (method is an HTTP token and route one of ours: no escaping).
  // No duration: a Worker's clock stands still while it computes, and Workers Logs has
  // the invocation's wall and CPU time.
  if (logLevel === 2 || (logLevel === 1 && r.status >= 400 && r.status !== 429)) {
    console.log('{"method":"' + method + '","route":"' + r.prevRoute + '","status":' + r.status + "}");
  }
  INIT.status = r.status;
  INIT.headers = r.headers;
  const res = new Response(r.body, INIT); // copies the body out of the module's memory
  INIT.headers = null;
  if (app !== null && app.buf.byteLength >= app.renewAt && renew(env)) {
    const p = kvRestart(env);
    if (p && ctx) ctx.waitUntil(p);
  }
  return res;
});

// validatorFree says whether target (request.url, whole) is under one of the module's
// validator-free paths: its path is one, or one followed by "?" or "/". The test is an
// indexOf, the character after the path and the path's last character, then the path
// as one substring comparison. A target it does not recognise (any before the first
// instance, a path written another way) gets If-None-Match.
export const validatorFree = (function (target) {
  const paths = validatorFreePaths;
  if (paths === null) return false;
  const p = target.indexOf("/", 8); // the path: after "https://" (or "http://") and the host
  if (p < 0) return false;
  for (let i = 0; i < paths.length; i++) {
    const s = paths[i], n = s.length;
    const c = target.charCodeAt(p + n); // what follows the path: the end (NaN, c !== c), '?' or '/'
    if ((c !== c || c === 63 /* ? */ || c === 47 /* / */) && target.charCodeAt(p + n - 1) === s.charCodeAt(n - 1) &&
      target.substring(p, p + n) === s) return true;
  }
  return false;
});

// readHeaders fills hv with the request's values of the first hv.length HEADERS, agent
// (agent.mjs's outcome) as ":agent", and returns it.
const readHeaders = (function (request, hv, agent) {
  const h = request.headers;
  const n = hv.length;
  for (let i = 0; i < n && i < AGENT_AT; i++) hv[i] = h.get(HEADERS[i]) ?? "";
  if (n > AGENT_AT) {
    hv[AGENT_AT] = agent;
    for (let i = AGENT_AT + 1; i < n; i++) hv[i] = h.get(HEADERS[i]) ?? "";
  }
  return hv;
});

// readBody reads a POST body: a body over MAX_BODY is not read further (nor at all when
// Content-Length says so), and core answers 413 on the MAX_BODY + 1 bytes it is given.
async function readBody(request) {
  const body = await readAtMost(request, MAX_BODY);
  return body === null ? new Uint8Array(MAX_BODY + 1) : body;
}
