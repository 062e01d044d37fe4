package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/campervan/agent-api/core/apikey"
)

// -identity: GET /depots plain, with a partner key and with a Web Bot Auth signature,
// alternating in every round, on the project alone: req/s and workerd's CPU a request
// of each, and a check that every keyed and signed answer counted in its bucket.

var identityRun = flag.Bool("identity", false, "instead of the floor: GET /depots plain, with a partner key (Authorization: Bearer) and with a Web Bot Auth signature (a listed agent whose key directory the bench serves on 127.0.0.1), alternating; req/s and workerd's CPU a request of each, and a check that each keyed and signed answer counted in its bucket")

// The agent's key: the RFC 9421 Appendix B.1.4 Ed25519 test key, whose private half
// worker/agent_sign.mjs signs with.
const benchAgentJWKS = `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]}`

// identityBench is what -identity sets up: the secret and the partner key minted under
// it, and the agent's key directory served on loopback.
type identityBench struct {
	secret, key, agent string
	srv                *http.Server
	hits               atomic.Int64 // the directory's fetches
}

// startIdentity mints a partner key of the largest limit under a fresh API_KEY_SECRET
// and serves the agent's key directory (cached by the Worker for a day) on 127.0.0.1.
func startIdentity() (*identityBench, error) {
	raw := make([]byte, 32)
	rand.Read(raw)
	id := &identityBench{secret: "1:" + base64.RawURLEncoding.EncodeToString(raw)}
	v, err := apikey.NewVerifier(id.secret, "")
	if err != nil {
		return nil, err
	}
	if id.key, err = v.Mint("bench", apikey.MaxLimit, 0); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	id.agent = "http://" + ln.Addr().String()
	id.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/http-message-signatures-directory" {
			http.NotFound(w, r)
			return
		}
		id.hits.Add(1)
		w.Header().Set("content-type", "application/http-message-signatures-directory+json")
		w.Header().Set("cache-control", "max-age=86400")
		io.WriteString(w, benchAgentJWKS)
	})}
	go id.srv.Serve(ln)
	return id, nil
}

// vars are the Worker's vars for -identity (none without it): the secret, and the
// agent listed with a limit no run reaches.
func (id *identityBench) vars() [][2]string {
	if id == nil {
		return nil
	}
	return [][2]string{{"API_KEY_SECRET", id.secret}, {"AGENT_LIMITS", id.agent + "=1000000000"}}
}

func (id *identityBench) stop() { id.srv.Close() }

// way is one kind of request -identity sends: its headers besides the client address,
// the bucket its answers name, and what its runs measured.
type way struct {
	name, policy string
	headers      [][2]string
	runs         []result
	counted      int64   // what the bucket's count rose by over the runs (wrk's requests and those cut off at a run's end)
	requests     float64 // requests wrk completed in them
}

// identityTable loads GET /depots plain, keyed and signed on the project, which goes
// first rotating over the rounds, and adds their table and the buckets' check to report.
func (id *identityBench) identityTable(report *strings.Builder, app *server) error {
	fmt.Fprintf(report, "load average at the start: %s\n", loadAvg())
	target := endpoints[0].target
	ways := []*way{{name: "plain", policy: `"default"`},
		{name: "keyed", policy: `"partner"`, headers: [][2]string{{"Authorization", "Bearer " + id.key}}},
		{name: "signed", policy: `"agent"`}}
	if err := id.warmUp(app, target, ways); err != nil {
		return err
	}
	for _, cs := range strings.Split(*conns, ",") {
		c, _ := strconv.Atoi(cs)
		for r := 0; r < *rounds; r++ {
			// A fresh signature each round: agent_sign.mjs's expires is 10 minutes on.
			sig, err := signHeaders(app.base+target, id.agent)
			if err != nil {
				return err
			}
			ways[2].headers = sig
			for k := range ways {
				w := ways[(r+k)%len(ways)]
				if err := w.run(app, target, c); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "round %d depots c%d %s: %.0f req/s, %.0f us CPU a request\n", r+1, c, w.name, w.runs[len(w.runs)-1].rps, w.runs[len(w.runs)-1].cpuPerReq*1e6)
			}
		}
		fmt.Fprintf(report, "\nGET /depots, %d connections, every request from a new client address (%d rounds of %s each, alternating):\n\n", c, *rounds, duration)
		fmt.Fprintf(report, "| request | req/s (median round) | workerd CPU/req | over plain | p50 / p99 | bucket (RateLimit-Policy) | its count |\n|---|---|---|---|---|---|---|\n")
		plain := pool(ways[0].runs)
		for _, w := range ways {
			p := pool(w.runs)
			counted := "-"
			if w.name != "plain" {
				counted = fmt.Sprintf("+%d (wrk completed %.0f)", w.counted, w.requests)
			}
			fmt.Fprintf(report, "| %s | %.0f | %.0f us | %+.0f us | %s / %s | %s | %s |\n", w.name, p.rps, p.cpuPerReq*1e6,
				(p.cpuPerReq-plain.cpuPerReq)*1e6, p.p50, p.p99, w.policy, counted)
			w.runs, w.counted, w.requests = nil, 0, 0
		}
	}
	fmt.Fprintf(report, "\nthe key directory was fetched %d time(s) (cached for its max-age); load average at the end: %s\n", id.hits.Load(), loadAvg())
	return nil
}

// warmUp runs each way once at one connection, not reported: V8 compiles the glue's
// paths of a keyed and a signed request when they first run hot, as the default load's
// first rounds compile the plain one.
func (id *identityBench) warmUp(app *server, target string, ways []*way) error {
	sig, err := signHeaders(app.base+target, id.agent)
	if err != nil {
		return err
	}
	ways[2].headers = sig
	for _, w := range ways {
		if err := w.run(app, target, 1); err != nil {
			return err
		}
		w.runs, w.counted, w.requests = nil, 0, 0
	}
	return nil
}

// run loads target with w's requests at c connections and checks, with one request
// before and one after, that the answers name w's bucket and that the bucket's count
// rose by the requests wrk completed (up to c more: those cut off at its end).
func (w *way) run(app *server, target string, c int) error {
	before, err := w.check(app, target, true)
	if err != nil {
		return err
	}
	lua := filepath.Join(*outDir, "identity-"+w.name+".lua")
	if err := os.WriteFile(lua, []byte(churnScript(w.headers)), 0o644); err != nil {
		return err
	}
	x, err := load(app, target, c, lua)
	if err != nil {
		return err
	}
	after, err := w.check(app, target, false)
	if err != nil {
		return err
	}
	w.runs = append(w.runs, x)
	if w.name == "plain" {
		return nil // each request's own address: no one count to follow
	}
	// after is one request on from the last of wrk's.
	n := float64(before - after - 1)
	if n < x.requests || n > x.requests+float64(c) {
		return fmt.Errorf("%s: the %s bucket counted %.0f requests over a run wrk completed %.0f of", w.name, w.policy, n, x.requests)
	}
	w.counted += before - after - 1
	w.requests += x.requests
	return nil
}

// check sends one of w's requests and returns its X-RateLimit-Remaining, after checking
// that it is a 200 counted in w's bucket. Before a run (first), it waits out a window
// that ends within the run, so that one window holds the run and both checks.
func (w *way) check(app *server, target string, first bool) (int64, error) {
	for {
		req, _ := http.NewRequest("GET", app.base+target, nil)
		req.Header.Set("CF-Connecting-IP", "198.18.255.254")
		for _, h := range w.headers {
			req.Header.Set(h[0], h[1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		policy := resp.Header.Get("RateLimit-Policy")
		if resp.StatusCode != 200 || !strings.HasPrefix(policy, w.policy+";") {
			return 0, fmt.Errorf("%s: %d, RateLimit-Policy %q (want %s): %s", w.name, resp.StatusCode, policy, w.policy, body)
		}
		remaining, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Remaining"), 10, 64)
		reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		if !first || time.Duration(reset)*time.Second > *duration+2*time.Second {
			return remaining, nil
		}
		time.Sleep(time.Duration(reset+1) * time.Second)
	}
}

// signHeaders signs a GET of url as the agent origin with the web-bot-auth package's
// signer (worker/agent_sign.mjs) and returns the Signature-Agent, Signature-Input and
// Signature headers.
func signHeaders(url, agent string) ([][2]string, error) {
	out, err := exec.Command("node_modules/.bin/node", "worker/agent_sign.mjs", url, agent, "plain").Output()
	if err != nil {
		return nil, fmt.Errorf("worker/agent_sign.mjs (make deps-check installs web-bot-auth): %v", err)
	}
	var h map[string]string
	if err := json.Unmarshal(out, &h); err != nil {
		return nil, err
	}
	var hs [][2]string
	for _, k := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
		hs = append(hs, [2]string{k, h[k]})
	}
	return hs, nil
}

// loadAvg is the machine's load average over 1, 5 and 15 minutes (/proc/loadavg).
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
