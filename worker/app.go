// Command worker is the campervan agent API as a Cloudflare Worker. It has three
// builds of the same api.Server:
//
//   - wasip1 (TinyGo, the shipped Worker and what the wazero tests load): exports a
//     byte-level request/response ABI, driven by the JS glue (glue.mjs, glue/).
//   - js (standard Go, `make build-go`): github.com/syumai/workers' workers.Serve.
//   - native (`go run ./worker`): a net/http server on 127.0.0.1, for debugging.
package main

import (
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/jsonw"
	"github.com/campervan/agent-api/core/rental"
)

// newServer builds the server once per instance: config from the Worker's vars, the
// catalog of the bundled snapshot as prepared at build time (rental.Bundled: no JSON at
// instance start; make build refuses a bad snapshot). A bad var does not stop the
// instance: every API request then answers 503, and the reason is logged once.
func newServer(vars []api.Var, now func() int64, random func([]byte), logf func(string)) *api.Server {
	cfg, err := api.ConfigFromVars(vars)
	if err != nil {
		logf(errorLine(err.Error()))
		return api.NewServer(cfg, nil, err, now, random, logf)
	}
	return api.NewServer(cfg, rental.Bundled(), nil, now, random, logf)
}

// errorLine returns an error log line (JSON) with message msg.
func errorLine(msg string) string {
	return string(jsonw.AppendJSONString([]byte(`{"level":"error","msg":`), msg)) + "}"
}
