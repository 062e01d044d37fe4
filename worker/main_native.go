//go:build !wasip1 && !js

package main

import (
	"crypto/rand"
	"flag"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/campervan/agent-api/core/api"
)

// main serves the API natively on 127.0.0.1 (go run ./worker -addr 127.0.0.1:8788),
// for debugging without workerd. Vars come from the environment (BASE_PATH, ...).
func main() {
	addr := flag.String("addr", "127.0.0.1:8788", "listen address")
	flag.Parse()
	var vars []api.Var
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars = append(vars, api.Var{Name: k, Value: v})
		}
	}
	h := &httpHandler{s: newServer(vars, func() int64 { return time.Now().UnixMilli() },
		func(b []byte) { rand.Read(b) }, func(s string) { log.Print(s) })}
	log.Printf("listening on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
