// Runs build/scale's wasmload module in V8 (node's WASI), the engine of workerd:
//   node build/scale/wasi.mjs <wasmload.wasm> <out dir> <runs>
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";
const [wasmPath, dir, runs] = process.argv.slice(2);
const wasi = new WASI({ version: "preview1", args: ["wasmload", "/w/data", "/w/inventory.bin", runs], preopens: { "/w": dir } });
const inst = await WebAssembly.instantiate(await WebAssembly.compile(await readFile(wasmPath)), wasi.getImportObject());
wasi.start(inst);
