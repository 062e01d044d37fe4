package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

// kvStore is the KV namespace behind the Worker's two bindings, RATE_LIMIT and
// INVENTORY, under raw workerd: an external service workerd speaks HTTP to (GET, PUT and
// DELETE /<key>, POST /bulk/get, GET /?prefix= to list), served by this process, as
// Workers KV is served outside the isolate. The two namespaces' keys do not meet
// (inventory/... against the limiter's rl:...).
type kvStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (k *kvStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	switch {
	case r.Method == "POST" && key == "bulk/get":
		var q struct{ Keys []string }
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		out := map[string]*string{}
		k.mu.Lock()
		for _, key := range q.Keys {
			if v, ok := k.m[key]; ok {
				s := string(v)
				out[key] = &s
			} else {
				out[key] = nil
			}
		}
		k.mu.Unlock()
		json.NewEncoder(w).Encode(out)
	case r.Method == "PUT":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		k.mu.Lock()
		k.m[key] = b
		k.mu.Unlock()
	case r.Method == "DELETE":
		k.mu.Lock()
		delete(k.m, key)
		k.mu.Unlock()
	case key == "":
		prefix := r.URL.Query().Get("prefix")
		type name struct {
			Name string `json:"name"`
		}
		keys := []name{}
		k.mu.Lock()
		for key := range k.m {
			if strings.HasPrefix(key, prefix) {
				keys = append(keys, name{key})
			}
		}
		k.mu.Unlock()
		sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
		json.NewEncoder(w).Encode(map[string]any{"keys": keys, "list_complete": true, "cursor": ""})
	default:
		k.mu.Lock()
		v, ok := k.m[key]
		k.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(v)
	}
}

// startKV serves a kvStore on 127.0.0.1 holding the live inventory build/publish would
// write for data/bookings.json (the bundled bookings, published: the same answers, now
// from KV, as the shipped Worker reads them). It returns the address, the inventory's
// version, and a function that stops the server.
func startKV() (addr, version string, stop func(), err error) {
	cat, err := rental.LoadCatalog(data.Files())
	if err != nil {
		return "", "", nil, err
	}
	feed, err := os.ReadFile("data/bookings.json")
	if err != nil {
		return "", "", nil, err
	}
	blob, inv, err := cat.BuildInventory(feed, rental.Feed{File: "bookings.json", Source: "make bench"})
	if err != nil {
		return "", "", nil, err
	}
	version = inv.Version()
	// The keys build/publish writes: the pointer, the blob under its version, and the
	// same blob as inventory/latest (an isolate's first read).
	k := &kvStore{m: map[string][]byte{"inventory/current": []byte(version), "inventory/" + version: blob, "inventory/latest": blob}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	srv := &http.Server{Handler: k}
	go srv.Serve(ln)
	return ln.Addr().String(), version, func() { srv.Close() }, nil
}
