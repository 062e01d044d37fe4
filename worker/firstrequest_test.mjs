// firstrequest_test.mjs: an isolate's first request as workerd makes it (the glue
// imports the compiled module, the first fetch instantiates and configures it and
// answers), in Node's V8. TestColdStartBudget runs it under
// --trace-wasm-compilation-times and sums the module's functions V8 compiles for it.
//
//   node --trace-wasm-compilation-times firstrequest_test.mjs app.wasm worker.mjs vars.json path
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [wasmPath, gluePath, varsPath, path] = process.argv.slice(2);
const src = readFileSync(gluePath, "utf8");
const glue = src.replace(/^import wasmModule from "\.\/app\.wasm";$/m, "const wasmModule = globalThis.__firstModule;");
if (glue === src) throw new Error(gluePath + ": the app.wasm import line was not found");
globalThis.__firstModule = new WebAssembly.Module(readFileSync(wasmPath));
const dir = mkdtempSync(join(tmpdir(), "firstrequest-"));
try {
  writeFileSync(join(dir, "glue.mjs"), glue);
  const worker = (await import(join(dir, "glue.mjs"))).default;
  const headers = { "cf-connecting-ip": "2001:0db8:0000:002a:1c4b:33ff:fe12:9a7b" };
  const res = await worker.fetch(new Request("http://localhost" + path, { headers }), JSON.parse(readFileSync(varsPath, "utf8")),
    { waitUntil() {}, passThroughOnException() {} });
  await res.arrayBuffer();
  console.log("status " + res.status);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
