//go:build !wasip1 && !js

package main

// TestE2EIsolates: several raw workerd processes (one isolate each) share one KV
// namespace served by the test; one client's requests go round-robin to them. The
// allowed count must be within limit.Bound, and no isolate may write a client's count
// more than 12 times in a window. -e2e (make test): 4 processes, a 15-s window, 160
// requests over 14 s; -soak (make soak): 4 processes, the 60-s window, 600 requests
// over 55 s.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/limit"
)

// rlKV is a KV namespace for workerd's kvNamespace binding: GET and PUT /<key>, and
// POST /bulk/get (what a get of several keys becomes), with its operations counted.
type rlKV struct {
	mu         sync.Mutex
	values     map[string]string
	puts       map[string]int // by key
	gets, bulk int
}

func (k *rlKV) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	body, _ := io.ReadAll(r.Body)
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case r.Method == "POST" && key == "bulk/get":
		var req struct {
			Keys []string `json:"keys"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		k.bulk++
		out := map[string]any{}
		for _, key := range req.Keys {
			if v, ok := k.values[key]; ok {
				out[key] = v
			} else {
				out[key] = nil
			}
		}
		json.NewEncoder(w).Encode(out)
	case r.Method == "PUT":
		k.puts[key]++
		k.values[key] = string(body)
	case r.Method == "GET":
		k.gets++
		if v, ok := k.values[key]; ok {
			io.WriteString(w, v)
			return
		}
		http.NotFound(w, r)
	default:
		http.Error(w, "unsupported", http.StatusMethodNotAllowed)
	}
}

// startWorkerdRL runs the shipped bundle on raw workerd with RATE_LIMIT bound to the
// KV service at kvAddr and vars over wrangler.toml's, and waits for its socket.
func startWorkerdRL(t *testing.T, kvAddr string, vars map[string]string) *devServer {
	t.Helper()
	return startWorkerdWithKV(t, "RATE_LIMIT", kvAddr, vars)
}

func TestE2EIsolates(t *testing.T) {
	if !*soak {
		needE2E(t)
	}
	k, window, n, span := 4, 15, 160, 14*time.Second
	if *soak {
		window, n, span = 60, 600, 55*time.Second
	}
	kv := &rlKV{values: map[string]string{}, puts: map[string]int{}}
	srv := httptest.NewServer(kv)
	defer srv.Close()
	vars := map[string]string{"RATE_LIMIT_WINDOW_SECONDS": strconv.Itoa(window), "REQUEST_LOG": "off"}
	var ds []*devServer
	for i := 0; i < k; i++ {
		ds = append(ds, startWorkerdRL(t, strings.TrimPrefix(srv.URL, "http://"), vars))
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(d *devServer, ip string) int {
		req, _ := http.NewRequest("GET", d.base+"/api/agent/depots", nil)
		req.Header.Set("CF-Connecting-IP", ip)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, d := range ds { // warm each isolate up with another client
		get(d, "192.0.2.200")
	}
	// Start just after a window boundary: all requests fall into one window.
	w := time.Duration(window) * time.Second
	startAt := time.Now().Truncate(w).Add(w + 200*time.Millisecond)
	time.Sleep(time.Until(startAt))
	const ip = "198.51.100.123"
	statuses := map[int]int{}
	for i := 0; i < n; i++ {
		time.Sleep(time.Until(startAt.Add(time.Duration(i) * span / time.Duration(n))))
		statuses[get(ds[i%k], ip)]++
	}
	if time.Now().After(startAt.Truncate(w).Add(w)) {
		t.Fatalf("the requests crossed the window's end (a loaded machine): rerun")
	}
	time.Sleep(1500 * time.Millisecond) // the last write-behind
	kv.mu.Lock()
	defer kv.mu.Unlock()
	rate := float64(n) / span.Seconds() / float64(k)
	bound := limit.Bound(100, k, rate, 0.005)
	maxPuts, slots := 0, 0
	var counts []string
	for key, c := range kv.puts {
		if strings.HasSuffix(key, ":"+ip) {
			slots++
			maxPuts = max(maxPuts, c)
			counts = append(counts, key[strings.Index(key, ":")+1:]+"="+kv.values[key]+fmt.Sprintf(" (%d writes)", c))
		}
	}
	t.Logf("%d workerd processes, %d requests of one client round-robin over %v in a %d-s window: %v (bound %d allowed); KV: %d bulk reads in all, writes by slot: %s",
		k, n, span, window, statuses, bound, kv.bulk, strings.Join(counts, ", "))
	if statuses[200] < 100 || int64(statuses[200]) > bound || statuses[200]+statuses[429] != n {
		t.Errorf("statuses %v: want 100..%d x 200, the rest 429", statuses, bound)
	}
	if maxPuts > 12 {
		t.Errorf("an isolate wrote the client's count %d times in one window, want at most 12", maxPuts)
	}
	if slots != k {
		t.Errorf("%d KV keys written for the client, want one per isolate (%d): two isolates share a slot", slots, k)
	}
}
