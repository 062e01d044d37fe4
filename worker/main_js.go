//go:build js && !wasip1

package main

import (
	"crypto/rand"
	"time"

	"github.com/campervan/agent-api/core/api"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

// main is the standard-Go Worker (make build-go): the same core under syumai's
// workers.Serve, far costlier a request than the TinyGo module (RATIONALE.md: why a glue
// of our own). It exists for users without TinyGo and as the comparison.
func main() {
	var vars []api.Var
	for _, k := range api.Vars {
		if v := cloudflare.Getenv(k); v != "" {
			vars = append(vars, api.Var{Name: k, Value: v})
		}
	}
	h := &httpHandler{s: newServer(vars, func() int64 { return time.Now().UnixMilli() },
		func(b []byte) { rand.Read(b) }, func(s string) { println(s) })}
	workers.Serve(h)
}
