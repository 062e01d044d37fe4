// pull.mjs: one scheduled pull (worker/glue/scheduled.mjs) of each feed file, in V8
// (node), with the module given, an in-memory KV and a feed server answering from
// memory; prints one JSON line per feed: its bytes, the pull's CPU and wall ms, the
// build's instance memory, and the process's peak RSS.
//   node build/pullcost/pull.mjs build/app.wasm feed...
import { readFileSync } from "node:fs";
import { resourceUsage } from "node:process";
import { useModule } from "../../worker/glue/instance.mjs";
import { buildFeed, pull } from "../../worker/glue/scheduled.mjs";

useModule(new WebAssembly.Module(readFileSync(process.argv[2])));
for (const file of process.argv.slice(3)) {
  const body = readFileSync(file);
  const store = new Map();
  const kv = {
    async get(k, o) { const v = store.get(k); return v === undefined ? null : (o && o.type === "json" ? JSON.parse(v) : v); },
    async put(k, v) { store.set(k, v); },
  };
  let memory = 0;
  const io = {
    fetch: async () => new Response(body, { status: 200, headers: { etag: '"x"', "content-length": String(body.length) } }),
    build: (b) => { const r = buildFeed(b); memory = r.memory || 0; return r; },
    now: Date.now, log: console,
  };
  const env = { INVENTORY: kv, FEED_URL: "https://feed.example/f.json" };
  const c0 = process.cpuUsage(), t0 = performance.now();
  const result = await pull(env, io);
  const c = process.cpuUsage(c0), wall = performance.now() - t0;
  console.log(JSON.stringify({ file, bytes: body.length, result, cpuMs: (c.user + c.system) / 1000, wallMs: wall,
    instanceMiB: memory / 1048576, peakRssMiB: resourceUsage().maxRSS / 1024 }));
}
