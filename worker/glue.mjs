// The Worker's entry: one instance of the TinyGo module (app.wasm) per isolate, called
// once per request through its linear memory (RATIONALE.md: why a glue of our own).
// make build bundles it with worker/glue/*.mjs into build/worker.mjs (esbuild):
//   abi.mjs        the byte ABI: requests written into memory, answers and headers read back
//   wasi.mjs       the WASI functions the module imports
//   instance.mjs   the instance: its making, loss on a trap, renewal
//   fetch.mjs      the fetch handler: headers, body, answer, log line
//   agent.mjs      Web Bot Auth: a signed agent's request verified, its key directory cached
//   ratelimit.mjs  the rate limit's KV write-behind
//   inventory.mjs  the live inventory's reads from KV
//   scheduled.mjs  the Cron Trigger's pull of the reservation feed into KV
//   body.mjs       the bounded read of an outbound fetch's body (directories, the feed)
//
// The functions an isolate's first request runs are parenthesized function
// expressions, `const f = (function (...) { ... });`: V8 compiles those with the script
// rather than pre-parsing them and parsing them again at their first call
// (RATIONALE.md: the cold start). esbuild keeps the parentheses.
import wasmModule from "./app.wasm";
import { fetch } from "./glue/fetch.mjs";
import { useModule } from "./glue/instance.mjs";
import { scheduled } from "./glue/scheduled.mjs";

useModule(wasmModule);

export default { fetch, scheduled };
