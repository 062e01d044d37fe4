//go:build !wasip1 && !js

package main

// The rate limit on the real workerd (wrangler dev, -e2e): 130 concurrent requests from
// one client get exactly 100 answers of 200 and 30 of 429, every response carries the
// headers, the window resets, and the write-behind reached the local KV namespace
// (the final count: the 100 allowed; a refused request is not counted).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestE2ERateLimit(t *testing.T) {
	needE2E(t)
	const window, limit, burst = 10, 100, 130
	const ip = "198.51.100.77"
	d := startDev(t, "wrangler.toml", "--var", fmt.Sprintf("RATE_LIMIT_WINDOW_SECONDS:%d", window))

	// Start just after a window boundary, so that the burst falls in one window.
	waitForWindow := func() int64 {
		now := time.Now()
		next := now.Truncate(window * time.Second).Add(window*time.Second + 150*time.Millisecond)
		time.Sleep(time.Until(next))
		return next.Unix() - next.Unix()%window
	}
	get := func(ctx context.Context) (*http.Response, string, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", d.base+"/api/agent/depots", nil)
		req.Header.Set("CF-Connecting-IP", ip)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}

	start := waitForWindow()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type answer struct {
		status int
		h      http.Header
		body   string
		err    error
	}
	answers := make([]answer, burst)
	var wg sync.WaitGroup
	t1 := time.Now()
	for i := range answers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, body, err := get(ctx)
			if err != nil {
				answers[i].err = err
				return
			}
			answers[i] = answer{status: resp.StatusCode, h: resp.Header, body: body}
		}(i)
	}
	wg.Wait()
	took := time.Since(t1)
	if end := time.Unix(start+window, 0); time.Now().After(end) {
		t.Fatalf("the burst took %v and crossed the window's end: rerun on a less loaded machine", took)
	}
	counts := map[int]int{}
	var remaining []int
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("request %d: %v", i, a.err)
		}
		counts[a.status]++
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"} {
			if a.h.Get(h) == "" {
				t.Errorf("a %d answer without %s", a.status, h)
			}
		}
		if a.h.Get("X-RateLimit-Limit") != strconv.Itoa(limit) || a.h.Get("RateLimit-Policy") != fmt.Sprintf(`"default";q=%d;w=%d`, limit, window) {
			t.Errorf("limit headers %q / %q", a.h.Get("X-RateLimit-Limit"), a.h.Get("RateLimit-Policy"))
		}
		reset, err := strconv.Atoi(a.h.Get("X-RateLimit-Reset"))
		if err != nil || reset < 1 || reset > window {
			t.Errorf("X-RateLimit-Reset %q, want 1..%d", a.h.Get("X-RateLimit-Reset"), window)
		}
		for k := range a.h {
			if strings.HasPrefix(k, ":") {
				t.Errorf("metadata header %s reached the client", k)
			}
		}
		r, _ := strconv.Atoi(a.h.Get("X-RateLimit-Remaining"))
		if want := fmt.Sprintf(`"default";r=%d;t=%d`, r, reset); a.h.Get("RateLimit") != want {
			t.Errorf("RateLimit %q, want %q", a.h.Get("RateLimit"), want)
		}
		switch a.status {
		case 200:
			remaining = append(remaining, r)
		case 429:
			if r != 0 || a.h.Get("Retry-After") != strconv.Itoa(reset) || a.h.Get("Cache-Control") != "no-store" ||
				!strings.HasPrefix(a.h.Get("Content-Type"), "text/plain") ||
				!strings.Contains(a.body, fmt.Sprintf("Retry in %d seconds", reset)) {
				t.Errorf("429: remaining %d, Retry-After %q, Cache-Control %q, Content-Type %q, body %q",
					r, a.h.Get("Retry-After"), a.h.Get("Cache-Control"), a.h.Get("Content-Type"), a.body)
			}
		}
	}
	t.Logf("%d concurrent requests in %v: %v", burst, took, counts)
	if counts[200] != limit || counts[429] != burst-limit || len(counts) != 2 {
		t.Fatalf("statuses %v, want exactly %d x 200 and %d x 429", counts, limit, burst-limit)
	}
	// Exact: the 200s saw every remaining value from 99 down to 0 once.
	sort.Ints(remaining)
	for i, r := range remaining {
		if r != i {
			t.Fatalf("the 200 answers' X-RateLimit-Remaining values are not 0..99 once each: %v", remaining)
		}
	}

	// The next window starts afresh.
	waitForWindow()
	resp, _, err := get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-1) {
		t.Fatalf("first request of the next window: %d, remaining %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}

	// The write-behind: this isolate's final count of the burst's window is in KV.
	logText, _ := os.ReadFile(d.log.Name())
	if strings.Contains(string(logText), "rate-limit KV operation failed") {
		t.Errorf("the glue logged a KV failure:\n%s", logText)
	}
	d.stop()
	root, _ := filepath.Abs("..")
	wr := func(args ...string) []byte {
		cmd := exec.Command(filepath.Join(root, "build/wrangler.sh"), append(args, "--local", "--persist-to", d.persist, "--binding", "RATE_LIMIT", "-c", "wrangler.toml")...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("wrangler %v: %v\n%s", args, err, out)
		}
		return out
	}
	var keys []struct {
		Name       string `json:"name"`
		Expiration int64  `json:"expiration"`
	}
	out := wr("kv", "key", "list", "--prefix", fmt.Sprintf("rl:%d:", start))
	if err := json.Unmarshal(out, &keys); err != nil {
		t.Fatalf("kv key list: %v\n%s", err, out)
	}
	if len(keys) != 1 || !strings.HasSuffix(keys[0].Name, ":"+ip) {
		t.Fatalf("KV keys of the burst's window: %+v, want one key of this isolate for %s", keys, ip)
	}
	if keys[0].Expiration < start+window+60-2 {
		t.Errorf("key %s expires at %d, want about the window's end + 60 s (%d)", keys[0].Name, keys[0].Expiration, start+window+60)
	}
	val := strings.TrimSpace(string(wr("kv", "key", "get", keys[0].Name, "--text")))
	if !strings.HasSuffix(val, fmt.Sprintf(":%d", limit)) {
		t.Errorf("KV %s = %q, want this isolate's exact count of allowed requests, %d", keys[0].Name, val, limit)
	}
	t.Logf("KV after the burst: %s = %s (expires %d)", keys[0].Name, val, keys[0].Expiration)
}

// TestE2ERateLimitKVDown: with no KV namespace bound every KV operation fails; every
// request is still answered from the isolate's exact count, and the failure is logged
// once, not once per request.
func TestE2ERateLimitKVDown(t *testing.T) {
	needE2E(t)
	d := startDev(t, "testdata/wrangler.nokv.toml")
	if left := time.Hour - time.Since(time.Now().Truncate(time.Hour)); left < 15*time.Second {
		time.Sleep(left + 100*time.Millisecond) // all requests in one (3600-s) window
	}
	counts := map[int]int{}
	for i := 0; i < 25; i++ {
		req, _ := http.NewRequest("GET", d.base+"/api/agent/depots", nil)
		req.Header.Set("CF-Connecting-IP", "198.51.100.88")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		counts[resp.StatusCode]++
		if i == 11 {
			time.Sleep(1200 * time.Millisecond) // let a delayed write-behind run (and fail)
		}
	}
	if counts[200] != 20 || counts[429] != 5 {
		t.Errorf("statuses %v, want 20 x 200 and 5 x 429 (limit 20)", counts)
	}
	time.Sleep(500 * time.Millisecond)
	logText, _ := os.ReadFile(d.log.Name())
	if n := strings.Count(string(logText), "rate-limit KV operation failed"); n != 1 {
		t.Errorf("the KV failure was logged %d times, want once; log:\n%s", n, logText)
	}
}
