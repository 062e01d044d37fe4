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
	"github.com/campervan/agent-api/data"
)

// newServer builds the server once per instance: config from the Worker's vars, the
// catalog from the bundled snapshot. A bad var or snapshot does not stop the instance:
// every API request then answers 503, and the reason is logged once.
func newServer(vars []wire.Header, now func() int64, random func([]byte), logf func(string)) *api.Server {
	cfg, err := api.ConfigFromVars(vars)
	if err != nil {
		logf(`{"level":"error","msg":` + jsonQuote(err.Error()) + `}`)
		return api.NewServer(cfg, nil, err, now, random)
	}
	cat, err := rental.LoadCatalog(data.Files())
	if err != nil {
		logf(`{"level":"error","msg":` + jsonQuote("snapshot: "+err.Error()) + `}`)
	}
	return api.NewServer(cfg, cat, err, now, random)
}

// jsonQuote quotes s for a log line (plain ASCII escaping is enough for our messages).
func jsonQuote(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
