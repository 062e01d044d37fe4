//go:build !wasip1 && !js

package main

// The end-to-end test: the built Worker (build/worker.mjs + build/app.wasm) under the
// real workerd, started by wrangler dev on 127.0.0.1, answers every HTTP case as the
// native server does at the same moment. With -e2e (make test passes it); -e2e-config
// selects another wrangler config (the standard-Go build: wrangler.go.toml).

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/abi"
)

var (
	e2e       = flag.Bool("e2e", false, "run the end-to-end tests against wrangler dev (make test does)")
	e2eConfig = flag.String("e2e-configs", "wrangler.toml,wrangler.go.toml", "wrangler configs to test, comma-separated")
)

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// devServer is a wrangler dev process group, stopped by PID when the test ends.
type devServer struct {
	base    string
	persist string // --persist-to: the local KV state lives here
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	log     *os.File
}

// startDev runs build/wrangler.sh dev with config on free ports and waits until the
// API answers (at most 90 s: a cold wrangler takes 4-6 s here).
func startDev(t *testing.T, config string, extra ...string) *devServer {
	t.Helper()
	root, _ := filepath.Abs("..")
	port, inspector := freePort(t), freePort(t)
	logf, err := os.CreateTemp("", "wrangler-dev-*.log")
	if err != nil {
		t.Fatal(err)
	}
	persist := t.TempDir()
	args := append([]string{"dev", "-c", config, "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--inspector-port", fmt.Sprint(inspector), "--persist-to", persist,
		"--show-interactive-dev-session=false", "--log-level", "warn",
		"--var", "QUOTE_SIGNING_KEYS:" + testQuoteKeys, "--var", "API_KEY_SECRET:" + testQuoteKeys}, extra...) // the secrets, whatever .dev.vars holds
	cmd := exec.Command(filepath.Join(root, "build/wrangler.sh"), args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &devServer{base: fmt.Sprintf("http://127.0.0.1:%d", port), persist: persist, cmd: cmd, log: logf,
		exited: make(chan struct{})}
	go func() { cmd.Wait(); close(d.exited) }()
	t.Cleanup(d.stop)
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(d.base + "/api/agent/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				t.Logf("%s ready in wrangler dev at %s", config, d.base)
				return d
			}
		}
		select {
		case <-d.exited:
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("wrangler dev (%s) exited before it was ready; its log:\n%s", config, out)
		default:
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("wrangler dev (%s) not ready after 90 s; its log:\n%s", config, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop ends the whole process group (wrangler and its workerd): SIGTERM, then SIGKILL.
func (d *devServer) stop() {
	pgid := d.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-d.exited
	}
	d.log.Close()
	os.Remove(d.log.Name())
}

// do sends req over HTTP and returns the response in core's decoded form.
func (d *devServer) do(t *testing.T, req abi.Request) abi.DecodedResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var reqBody io.Reader
	if len(req.Body) > 0 {
		reqBody = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, d.base+req.Target, reqBody)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range req.Headers {
		if h.Value != "" {
			hr.Header.Set(h.Name, h.Value)
		}
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.Target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := abi.DecodedResponse{Status: resp.StatusCode, Body: body}
	for k, vs := range resp.Header {
		out.Headers = append(out.Headers, abi.Header{Name: strings.ToLower(k), Value: strings.Join(vs, ", ")})
	}
	return out
}

var (
	// a quote's signed id carries its issue time and a random nonce; expiresAt is now + TTL
	volatile     = regexp.MustCompile(`"quoteId":"[A-Za-z0-9_-]{20,200}","expiresAt":"[0-9T:Z-]{20}"`)
	volatileLink = regexp.MustCompile(`quote_id=[A-Za-z0-9_-]{20,200}`)
	// the same inside a JSON string (an MCP tool result's text block)
	volatileEscaped = regexp.MustCompile(`\\"quoteId\\":\\"[A-Za-z0-9_-]{20,200}\\",\\"expiresAt\\":\\"[0-9T:Z-]{20}\\"`)
)

// comparable masks what differs by design between two runs: the quote's id and expiry.
func comparable(b []byte) string {
	s := volatile.ReplaceAllString(string(b), `"quoteId":"<id>","expiresAt":"<time>"`)
	s = volatileLink.ReplaceAllString(s, `quote_id=<id>`)
	return volatileEscaped.ReplaceAllString(s, `"quoteId":"<id>","expiresAt":"<time>"`)
}

// nativeAnswer is req's answer from a native server of its own (a fresh rate-limit count).
func nativeAnswer(t *testing.T, vars []abi.Header, req abi.Request) abi.DecodedResponse {
	t.Helper()
	w := nativeServer(t, vars, func() int64 { return time.Now().UnixMilli() }, constRand)
	want, err := abi.DecodeResponse(nativeDo(w, &req))
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// sameHeaders reports each of want's headers that got lacks or has with another value,
// but the metadata (":") and the rate-limit headers, which depend on the client's count.
func sameHeaders(t *testing.T, what string, got, want abi.DecodedResponse) {
	t.Helper()
	for _, h := range want.Headers {
		if strings.HasPrefix(h.Name, ":") || strings.Contains(h.Name, "ratelimit") {
			continue
		}
		if g := got.Header(h.Name); g != h.Value {
			t.Errorf("%s: header %s = %q, native %q", what, h.Name, g, h.Value)
		}
	}
}

func TestE2EWorkerd(t *testing.T) {
	needE2E(t)
	vars := wranglerVars(t)
	cases := loadCases(t)
	for _, config := range strings.Split(*e2eConfig, ",") {
		t.Run(config, func(t *testing.T) {
			d := startDev(t, config)
			for i, c := range cases {
				ip := fmt.Sprintf("198.18.%d.%d", len(config), i+1) // its own rate-limit count
				req := c.request(ip)
				got := d.do(t, req)
				want := nativeAnswer(t, vars, req)
				if got.Status != c.Status || got.Status != want.Status {
					t.Errorf("%s %s: workerd %d, native %d, case wants %d; body %s", req.Method, c.Target, got.Status, want.Status, c.Status, got.Body)
					continue
				}
				if comparable(got.Body) != comparable(want.Body) {
					t.Errorf("%s %s: body differs:\n--- workerd\n%s\n--- native\n%s", req.Method, c.Target, got.Body, want.Body)
				}
				sameHeaders(t, req.Method+" "+c.Target, got, want)
				for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
					if want.Header(h) != "" && got.Header(h) == "" {
						t.Errorf("%s %s: no %s header", req.Method, c.Target, h)
					}
				}
			}
			// One client asking every GET case in turn: its remaining count goes down by one
			// on every answer the limit counts, so no two answers' lists are the same, and
			// the glue sends each as the last list's Headers object with the values that
			// changed set, when its names are the last list's (readAnswerHeaders). Every
			// answer's headers are the native server's for that case, and the count is exact.
			// A client asks at most 90 cases, within the limit of 100 a window; then the
			// next client goes on.
			repeat := fmt.Sprintf("198.19.%d.1", len(config))
			prevLeft, asked := -1, 0
			for _, c := range cases {
				if (c.Method != "GET" && c.Method != "") || c.Headers["CF-Connecting-IP"] != "" || c.Headers["cf-connecting-ip"] != "" || c.Headers["Authorization"] != "" {
					continue // a partner key counts in its own bucket, not the client's
				}
				if asked++; asked%90 == 0 {
					repeat, prevLeft = fmt.Sprintf("198.19.%d.%d", len(config), 1+asked/90), -1
				}
				req := c.request(repeat)
				got := d.do(t, req)
				want := nativeAnswer(t, vars, req)
				if got.Status != want.Status {
					t.Errorf("GET %s from a client asking again: workerd %d, native %d", c.Target, got.Status, want.Status)
					continue
				}
				sameHeaders(t, "GET "+c.Target+" from a client asking again", got, want)
				left, err := strconv.Atoi(got.Header("x-ratelimit-remaining"))
				reset := got.Header("x-ratelimit-reset")
				switch {
				case err != nil || got.Header("ratelimit") != fmt.Sprintf(`"default";r=%d;t=%s`, left, reset):
					t.Errorf("GET %s from a client asking again: remaining %q, RateLimit %q, reset %q", c.Target, got.Header("x-ratelimit-remaining"), got.Header("ratelimit"), reset)
				case want.Header("x-ratelimit-remaining") != "99":
					// an answer the limit does not count (a new client's count is not 99 after it)
				case prevLeft >= 0 && left != prevLeft-1 && left != 99:
					t.Errorf("GET %s from a client asking again: remaining %d after %d (not one less, nor a new window's 99)", c.Target, left, prevLeft)
				default:
					prevLeft = left
				}
			}
			// The same request from new clients, back to back: the glue passes the first
			// answer's headers as an object and, when the module says the next ones are
			// the same (SAME_HEADERS), a Headers object made once (worker/glue/abi.mjs). Every
			// answer carries the same headers, none lost or added.
			for i, c := range cases {
				if (c.Method != "GET" && c.Method != "") || c.Headers["Authorization"] != "" {
					continue // a partner key's bucket is the same whatever the client
				}
				var first string
				for k := 0; k < 4; k++ {
					req := c.request(fmt.Sprintf("2001:db8:%x:%x::1", len(config), 256*i+k))
					got := d.do(t, req)
					var lines []string
					for _, h := range got.Headers {
						switch n := strings.ToLower(h.Name); n {
						case "date":
						case "ratelimit", "x-ratelimit-reset": // the seconds left may tick between two answers
							lines = append(lines, n)
						default:
							lines = append(lines, n+": "+h.Value)
						}
					}
					sort.Strings(lines)
					all := fmt.Sprintf("%d\n%s", got.Status, strings.Join(lines, "\n"))
					if k == 0 {
						first = all
					} else if all != first {
						t.Errorf("GET %s, answer %d from a new client: headers differ from the first's:\n--- first\n%s\n--- now\n%s", c.Target, k+1, first, all)
					}
				}
			}
			// A client address of 39 characters (a full IPv6 address, as privacy addresses
			// arrive) is longer than the glue writes byte by byte: it goes through
			// encodeInto and the glue's kept long view, which it takes from the URL's. It
			// must reach the module whole: the same /64 written full or compressed is one
			// client, counted down by one each time, whatever the URL before it.
			full := fmt.Sprintf("2001:0db8:%04x:00ff:1c4b:33ff:fe12:9a7b", len(config))
			short := fmt.Sprintf("2001:db8:%x:ff::1", len(config))
			prev := -1
			for i, ip := range []string{full, full, short, full, full} {
				target := "/api/agent/depots"
				if i == 3 {
					target = "/api/agent/vehicles/5/accessories" // another URL length: the address lands elsewhere
				}
				got := d.do(t, abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: ip}}})
				left, err := strconv.Atoi(got.Header("x-ratelimit-remaining"))
				if got.Status != 200 || err != nil || (prev >= 0 && left != prev-1 && left != 99) {
					t.Errorf("GET %s from %s (answer %d of one /64): status %d, remaining %q after %d", target, ip, i+1, got.Status, got.Header("x-ratelimit-remaining"), prev)
				}
				prev = left
			}
		})
	}
}
