// Command worker is the campervan agent API as a Cloudflare Worker. It has three
// builds of the same api.Server:
//
//   - wasip1 (TinyGo, the shipped Worker and what the wazero tests load): exports a
//     byte-level request/response ABI, driven by the JS glue in glue.mjs.
//   - js (standard Go, `make build-go`): github.com/syumai/workers' workers.Serve.
//   - native (`go run ./worker`): a net/http server on 127.0.0.1, for debugging.
package main

import (
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// newServer builds the server once per instance: config from the Worker's vars, the
// catalog of the bundled snapshot as prepared at build time (rental.Bundled: no JSON at
// instance start; make build refuses a bad snapshot). A bad var does not stop the
// instance: every API request then answers 503, and the reason is logged once.
func newServer(vars []wire.Header, now func() int64, random func([]byte), logf func(string)) *api.Server {
	cfg, err := api.ConfigFromVars(vars)
	if err != nil {
		logf(errorLine(err.Error()))
		return api.NewServer(cfg, nil, err, now, random, logf)
	}
	return api.NewServer(cfg, rental.Bundled(), nil, now, random, logf)
}

// errorLine returns an error log line (JSON) with message msg.
func errorLine(msg string) string {
	return string(wire.AppendJSONString([]byte(`{"level":"error","msg":`), msg)) + "}"
}

// setInventory hands blob to the server (api.Server.SetInventory) and logs the outcome.
// It returns 0 when the blob serves, 1 when it was refused and the previous inventory
// still serves, and the blob's version either way (its content hash; the inventory
// export reports it to the glue).
//
// A refusal is always logged. A blob taken is logged only when it replaces another live
// version ("inventory B serving, was A": a publish reaching a running isolate), not when
// it replaces the bundled bookings: that is every isolate's first read, and a fresh
// instance's after a renewal or a trap. Every answer's X-Inventory-Version names the
// version serving. Issue 16 (session 24): an isolate's first console.log costs workerd
// ~1.5 M instructions (1.1 M of them the runtime's own), 1.3% of a cold start whose
// first request is a search, and that line was on its path.
//
// The two log lines are made out of line (V8 compiles the inventory export whole, with
// what is inlined into it, when an isolate takes its first live inventory).
func setInventory(s *api.Server, blob []byte, logf func(string)) (uint32, string) {
	was := s.InventoryVersion()
	if err := s.SetInventory(blob); err != nil {
		return 1, logRefused(blob, was, err, logf)
	}
	v := s.InventoryVersion()
	if v != was && !rental.BundledVersion(was) {
		logChanged(v, was, logf)
	}
	return 0, v
}

// logRefused logs a refused blob and returns its version.
//
//go:noinline
func logRefused(blob []byte, was string, err error, logf func(string)) string {
	v := rental.InventoryVersion(blob)
	logf(errorLine("inventory " + v + " refused, still serving " + was + ": " + err.Error()))
	return v
}

// logChanged logs a live version replacing another.
//
//go:noinline
func logChanged(v, was string, logf func(string)) {
	logf(`{"level":"info","msg":"inventory ` + v + ` serving, was ` + was + `"}`)
}
