package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/campervan/agent-api/build/internal/devrun"
)

// What run sets up before it measures: the tools it needs, the vars, the wrk scripts,
// the project's workerd config, and the floor made from the project's answers.

// checkTools returns workerd's path, and an error naming what is missing (workerd,
// wrk, taskset for -pin).
func checkTools() (string, error) {
	workerd, err := filepath.Abs("node_modules/@cloudflare/workerd-linux-64/bin/workerd")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(workerd); err != nil {
		return "", fmt.Errorf("workerd not installed (npm install): %v", err)
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return "", fmt.Errorf("wrk not installed (apt-get install wrk): %v", err)
	}
	if *pin {
		if _, err := exec.LookPath("taskset"); err != nil {
			return "", fmt.Errorf("-pin: taskset not installed (util-linux): %v", err)
		}
		if runtime.NumCPU() < 2 {
			return "", fmt.Errorf("-pin needs two CPUs or more (one for workerd, the rest for wrk); this machine has %d", runtime.NumCPU())
		}
	}
	return workerd, nil
}

// benchVars returns wrangler.toml's vars, the secret quotes are signed with (the
// tests' key: worker/harness_test.go), then extra's and the -var overrides.
func benchVars(extra [][2]string) ([][2]string, error) {
	vars, err := devrun.WranglerVars("wrangler.toml")
	if err != nil {
		return nil, err
	}
	vars = append(vars, [2]string{"QUOTE_SIGNING_KEYS", "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"})
	for _, o := range append(extra, setVars...) {
		found := false
		for i := range vars {
			if vars[i][0] == o[0] {
				vars[i][1], found = o[1], true
			}
		}
		if !found {
			vars = append(vars, o)
		}
	}
	return vars, nil
}

// writeLua writes wrk's request scripts into the out folder and returns their paths:
// ips.lua cycles over -clients IPv4 addresses; churn.lua sends every request from a new
// /64 (churnScript); fixed.lua cycles over -compare-clients addresses.
func writeLua() (ipsLua, churnLua, fixedLua string) {
	ipsLua = filepath.Join(*outDir, "ips.lua")
	os.WriteFile(ipsLua, []byte(fmt.Sprintf(`local n = 0
request = function()
  n = (n + 1) %% %d
  return wrk.format(nil, nil, {["CF-Connecting-IP"] = "198.18." .. (n %% 256) .. "." .. (math.floor(n / 256) %% 256)})
end
`, *ips)), 0o644)
	churnLua = filepath.Join(*outDir, "churn.lua")
	os.WriteFile(churnLua, []byte(churnScript(nil)), 0o644)
	fixedLua = filepath.Join(*outDir, "fixed.lua")
	os.WriteFile(fixedLua, []byte(fmt.Sprintf(`local n = 0
request = function()
  n = (n + 1) %% %d
  return wrk.format(nil, nil, {["CF-Connecting-IP"] = "198.18.0." .. n})
end
`, max(*compare, 1))), 0o644)
	return ipsLua, churnLua, fixedLua
}

// churnScript is wrk's script that sends every request from a new /64, unique across
// wrk's threads (2001:<thread>:<n high>:<n low>:..., in -addr's form), with the headers
// extra besides.
func churnScript(extra [][2]string) string {
	var h strings.Builder
	for _, e := range extra {
		fmt.Fprintf(&h, "[%q] = %q, ", e[0], e[1])
	}
	return strings.NewReplacer("ADDR", clientAddr(), "EXTRA", h.String()).Replace(`local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, {EXTRA["CF-Connecting-IP"] = string.format("ADDR", tid, math.floor(n / 65536) % 65536, n % 65536)})
end
`)
}

// relOut returns p relative to the out folder: capnp embeds are relative to the
// config file's folder.
func relOut(p string) string { r, _ := filepath.Rel(*outDir, p); return r }

// appConfig returns the project's workerd config (capnp text): the bundle's worker.js
// and wasm with the shipped bindings, its HTTP socket on 127.0.0.1:port.
func appConfig(sh shipped, wasm string, port int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "using Workerd = import \"/workerd/workerd.capnp\";\nconst config :Workerd.Config = (\n")
	internet := ""
	if sh.localFetch { // the Worker's fetches may reach loopback (-identity's key directory)
		internet = `, (name = "internet", network = (allow = ["public", "local"]))`
	}
	fmt.Fprintf(&b, "  services = [ (name = \"main\", worker = .app), (name = \"kv\", external = (address = %q, http = ()))%s ],\n", sh.kv, internet)
	fmt.Fprintf(&b, "  sockets = [ (name = \"http\", address = \"127.0.0.1:%d\", http = (), service = \"main\") ],\n);\n", port)
	fmt.Fprintf(&b, "const app :Workerd.Worker = (\n  modules = [ (name = \"worker.js\", esModule = embed %q), (name = %q, wasm = embed %q) ],\n",
		relOut(sh.workerJS), filepath.Base(wasm), relOut(wasm))
	fmt.Fprintf(&b, "  compatibilityDate = \"2026-11-01\",\n  bindings = [\n")
	for _, v := range sh.vars {
		fmt.Fprintf(&b, "    (name = %q, text = %q),\n", v[0], v[1])
	}
	// The shipped bindings (wrangler.toml): the limiter's counts and the live inventory.
	fmt.Fprintf(&b, "    (name = \"RATE_LIMIT\", kvNamespace = \"kv\"),\n    (name = \"INVENTORY\", kvNamespace = \"kv\"),\n  ],\n);\n")
	return b.String()
}

// answer is one of the project's answers as the floor returns it.
type answer struct {
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"`
}

// captureAnswers asks the project each endpoint and returns its answers by target,
// each a 200 from the live inventory (invVersion) in KV. A search goes first: it waits
// for the isolate's first inventory read (docs/inventory.md), after which every answer
// names the live version.
func captureAnswers(app *server, invVersion string) (map[string]answer, error) {
	if resp, err := http.Get(app.base + endpoints[1].target); err == nil {
		resp.Body.Close()
	}
	answers := map[string]answer{}
	for _, e := range endpoints {
		resp, err := http.Get(app.base + e.target)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%s answered %d: %s", e.target, resp.StatusCode, body)
		}
		if v := resp.Header.Get("x-inventory-version"); v != invVersion {
			return nil, fmt.Errorf("%s answered from inventory %q, not the live one (%s) in KV", e.target, v, invVersion)
		}
		answers[e.target] = answerOf(resp, body)
	}
	return answers, nil
}

// answerOf is resp (its body read) as an answer: the headers in name order, lower
// case, without Content-Length and Date, which workerd sets itself.
func answerOf(resp *http.Response, body []byte) answer {
	a := answer{Status: resp.StatusCode, Body: string(body)}
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "Content-Length" || k == "Date" {
			continue
		}
		a.Headers = append(a.Headers, [2]string{strings.ToLower(k), strings.Join(resp.Header[k], ", ")})
	}
	return a
}

// writeFloors writes the floor's scripts into the out folder (floor.mjs with every
// answer; the cold start's floors with only the answer each is asked for, the whole
// table, ~476 KB with the largest calendar, making its script the slower one to load)
// and the floor's workerd config on 127.0.0.1:port, whose path it returns.
func writeFloors(answers map[string]answer, port int) (string, error) {
	table, _ := json.Marshal(answers)
	floorWorker, floorWorkerKV, err := floorWorkers(*floorHdrs)
	if err != nil {
		return "", err
	}
	os.WriteFile(filepath.Join(*outDir, "floor.mjs"), []byte("const R = "+string(table)+";\n"+floorWorker), 0o644)
	for i, name := range []string{"floor-cold.mjs", "floor-cold-search.mjs"} {
		first, _ := json.Marshal(map[string]answer{endpoints[i].target: answers[endpoints[i].target]})
		os.WriteFile(filepath.Join(*outDir, name), []byte("const R = "+string(first)+";\n"+floorWorker), 0o644)
		if i == 1 {
			// The search's floor that reads what a search needs from KV first, as the
			// glue's first read does (one get of inventory/latest), then returns the same
			// bytes: any Worker that answers from the live inventory makes that read.
			os.WriteFile(filepath.Join(*outDir, "floor-cold-search-kv.mjs"), []byte("const R = "+string(first)+";\n"+floorWorkerKV), 0o644)
		}
	}
	conf := filepath.Join(*outDir, "floor.capnp")
	os.WriteFile(conf, []byte(withV8Flags(fmt.Sprintf(`using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = (modules = [ (name = "floor.mjs", esModule = embed %q) ], compatibilityDate = "2026-11-01")) ],
  sockets = [ (name = "http", address = "127.0.0.1:%d", http = (), service = "main") ],
);
`, relOut(filepath.Join(*outDir, "floor.mjs")), port))), 0o644)
	return conf, nil
}
