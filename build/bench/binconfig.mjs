// binconfig.mjs: writes a workerd config as an encoded Cap'n Proto message, the form in
// which wrangler dev hands workerd its config (miniflare spawns `workerd serve --binary
// -` and writes miniflare's serializeConfig(config) to its stdin). build/bench starts
// its cold-start pairs from such a config as well as from the text one: a text config
// makes workerd run its capnp compiler over every module embedded in it, which costs
// the project's module more than the floor's few hundred bytes, a step that neither
// wrangler dev nor the edge takes.
//
//   node build/bench/binconfig.mjs spec.json out.bin
//
// spec.json (written by build/bench): { port, kv, vars: [[name, value]...], modules:
// [{ name, esModule | wasm: path }] }. The config is the bench's text config's: one
// worker "main" with the shipped text bindings and RATE_LIMIT / INVENTORY bound to the
// KV stand-in at kv (no KV bindings when kv is empty: build/scale), one HTTP socket on
// 127.0.0.1:port. The serializer is miniflare's (wrangler's dependency, installed with
// it): no hand-written capnp encoding.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const { serializeConfig } = require("miniflare");
const [specPath, out] = process.argv.slice(2);
if (!specPath || !out) {
  console.error("usage: node binconfig.mjs spec.json out.bin");
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specPath, "utf8"));
const modules = spec.modules.map((m) =>
  m.wasm !== undefined ? { name: m.name, wasm: readFileSync(m.wasm) } : { name: m.name, esModule: readFileSync(m.esModule, "utf8") });
const bindings = spec.vars.map(([name, text]) => ({ name, text }));
const services = [{ name: "main", worker: { modules, compatibilityDate: spec.compatibilityDate, bindings } }];
if (spec.kv) {
  bindings.push({ name: "RATE_LIMIT", kvNamespace: { name: "kv" } }, { name: "INVENTORY", kvNamespace: { name: "kv" } });
  services.push({ name: "kv", external: { address: spec.kv, http: {} } });
}
writeFileSync(out, serializeConfig({
  services,
  sockets: [{ name: "http", address: "127.0.0.1:" + spec.port, http: {}, service: { name: "main" } }],
}));
