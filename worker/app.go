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
func setInventory(s *api.Server, blob []byte, logf func(string)) (uint32, string) {
	if err := s.SetInventory(blob); err != nil {
		v := rental.InventoryVersion(blob)
		logf(errorLine("inventory " + v + " refused, still serving " + s.InventoryVersion() + ": " + err.Error()))
		return 1, v
	}
	logf(`{"level":"info","msg":"inventory ` + s.InventoryVersion() + ` serving"}`)
	return 0, s.InventoryVersion()
}
