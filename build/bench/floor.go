package main

import (
	"fmt"
	"strings"
)

// The floor's workers: plain JS that returns the project's recorded answers.

// floorAnswer is the floor's answer: the bytes recorded for the request's path, with
// their headers as a Headers object made on the path's first request: the cheapest form
// workerd's Response constructor takes (it copies it in C++); an array of pairs is read
// through the JS iterator protocol, at a far higher cost. -floor-headers pairs and
// object give those floors.
const floorAnswer = `    const u = request.url;
    const r = R[u.slice(u.indexOf("/", u.indexOf("//") + 2))];
    if (r === undefined) return new Response("not found", { status: 404 });
    if (r.h === undefined) r.h = FLOOR_HEADERS;
    return new Response(r.body, { status: r.status, headers: r.h });
  },
};
`

const floorWorkerSrc = `export default {
  fetch(request) {
` + floorAnswer

// floorWorkerKV is floorWorker after one KV read of the live inventory, made the way
// the glue makes an isolate's first (worker/glue/inventory.mjs: inventory/latest as an
// ArrayBuffer, cacheTtl 30), once per isolate.
const floorWorkerKVSrc = `let read = null;
export default {
  async fetch(request, env) {
    if (read === null) read = env.INVENTORY.get("inventory/latest", { type: "arrayBuffer", cacheTtl: 30 });
    const blob = await read;
    if (blob === null) return new Response("no inventory in KV", { status: 503 });
` + floorAnswer

// floorWorkers returns floorWorker and floorWorkerKV with the floor's headers in the form
// -floor-headers names.
func floorWorkers(form string) (string, string, error) {
	expr, ok := map[string]string{"headers": "new Headers(r.headers)", "object": "Object.fromEntries(r.headers)", "pairs": "r.headers"}[form]
	if !ok {
		return "", "", fmt.Errorf("-floor-headers %q: want headers, object or pairs", form)
	}
	return strings.Replace(floorWorkerSrc, "FLOOR_HEADERS", expr, 1), strings.Replace(floorWorkerKVSrc, "FLOOR_HEADERS", expr, 1), nil
}
