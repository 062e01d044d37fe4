// glue_paths.mjs: which request URLs the shipped glue reads no If-None-Match for
// (worker/glue.mjs, validatorFree), with the module's validator-free paths taken from
// build/app.wasm as an isolate's first instance takes them. Run by
// TestGlueValidatorFree: node glue_paths.mjs app.wasm url... prints one JSON array of
// booleans, in the order of the URLs.
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const glue = readFileSync(join(here, "glue.mjs"), "utf8")
  .replace(/^import wasmModule from "\.\/app\.wasm";$/m, "const wasmModule = globalThis.__module;") + "\nexport { instantiate, validatorFree };\n";
globalThis.__module = new WebAssembly.Module(readFileSync(process.argv[2]));
const dir = mkdtempSync(join(tmpdir(), "glue-paths-"));
writeFileSync(join(dir, "glue.mjs"), glue);
const g = await import(join(dir, "glue.mjs"));
const urls = process.argv.slice(3);
const before = urls.map((u) => g.validatorFree(u)); // no instance yet: none
g.instantiate({ BASE_PATH: "/api/agent" });
console.log(JSON.stringify({ before, after: urls.map((u) => g.validatorFree(u)) }));
