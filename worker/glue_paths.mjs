// glue_paths.mjs: which request URLs the glue reads no If-None-Match for
// (worker/glue/fetch.mjs, validatorFree), with the module's validator-free paths taken
// from the given module as an isolate's first instance takes them. Run by
// TestGlueValidatorFree: node glue_paths.mjs app.wasm url... prints one JSON object,
// {before, after}: booleans in the order of the URLs, before and after the first instance.
import { readFileSync } from "node:fs";
import { validatorFree } from "./glue/fetch.mjs";
import { current, useModule } from "./glue/instance.mjs";

useModule(new WebAssembly.Module(readFileSync(process.argv[2])));
const urls = process.argv.slice(3);
const before = urls.map((u) => validatorFree(u)); // no instance yet: none
current({ BASE_PATH: "/api/agent" });
console.log(JSON.stringify({ before, after: urls.map((u) => validatorFree(u)) }));
