//go:build !wasip1 && !js

package main

// startWorkerd runs the built Worker (build/worker.mjs + build/app.wasm) on the raw
// workerd binary wrangler ships, without wrangler dev's proxy and inspector: what the
// soak test measures memory on (under wrangler dev even an empty JS worker's workerd
// processes grow by tens of kB a request; README "Limits and robustness").

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWorkerd writes a workerd config for the shipped bundle with the [vars] of
// wrangler.toml as text bindings, serves it on a free 127.0.0.1 port and waits for
// the API. The process (its own group) is stopped with SIGTERM when the test ends.
// src is the folder of worker.mjs and app.wasm ("" for build/); a folder without
// app.wasm serves worker.mjs alone (a plain JS worker, for comparison).
// runWorkerd writes config into dir and runs workerd (bin) serving it, in its own
// process group with its output in a temporary log; the process is stopped by PID when
// the test ends. The caller waits for what it needs (an answer, or the socket alone).
func runWorkerd(t *testing.T, bin, dir, config string, port int) *devServer {
	t.Helper()
	cfgPath := filepath.Join(dir, "config.capnp")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.CreateTemp("", "workerd-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", cfgPath)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &devServer{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, log: logf, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(d.exited) }()
	t.Cleanup(d.stop)
	return d
}

// waitListening waits (at most 30 s) until d's port accepts a connection, without
// sending a request: the first request must be the test's own.
func waitListening(t *testing.T, d *devServer, port int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-d.exited:
			out, _ := os.ReadFile(d.log.Name())
			t.Fatalf("workerd exited; its log:\n%s", out)
		default:
		}
		if c, err := (&net.Dialer{}).Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("workerd not listening after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bundleDir returns the workerd binary wrangler ships (skipping the test without it)
// and a temporary folder holding a copy of the built bundle (build/worker.mjs and
// build/app.wasm).
func bundleDir(t *testing.T) (bin, dir string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	bin = workerdBinary(t)
	dir = t.TempDir()
	for _, f := range []string{"worker.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(root, "build", f))
		if err != nil {
			t.Fatalf("%v (make build)", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin, dir
}

// varBindings returns wrangler.toml's [vars] as workerd text bindings, but those named
// in over (which the caller binds itself).
func varBindings(t *testing.T, over map[string]string) []string {
	t.Helper()
	var bindings []string
	for _, v := range wranglerVars(t) {
		if _, ok := over[v.Name]; !ok {
			bindings = append(bindings, fmt.Sprintf("(name = %s, text = %s)", strconv.Quote(v.Name), strconv.Quote(v.Value)))
		}
	}
	return bindings
}

// startWorkerdWithKV runs the shipped bundle on raw workerd with the KV namespace
// binding bound to the KV service at kvAddr (host:port) and vars over wrangler.toml's,
// and waits for its socket (the first request is the test's own).
func startWorkerdWithKV(t *testing.T, binding, kvAddr string, vars map[string]string) *devServer {
	t.Helper()
	bin, dir := bundleDir(t)
	bindings := varBindings(t, vars)
	for k, v := range vars {
		bindings = append(bindings, fmt.Sprintf("(name = %s, text = %s)", strconv.Quote(k), strconv.Quote(v)))
	}
	bindings = append(bindings, fmt.Sprintf("(name = %s, kvNamespace = \"kv\")", strconv.Quote(binding)))
	port := freePort(t)
	config := `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .w), (name = "kv", external = (address = "` + kvAddr + `", http = ()))],
  sockets = [(name = "http", address = "127.0.0.1:` + strconv.Itoa(port) + `", http = (), service = "main")],
);
const w :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs"), (name = "app.wasm", wasm = embed "app.wasm")],
  compatibilityDate = "2026-11-01",
  bindings = [` + strings.Join(bindings, ", ") + `],
);
`
	d := runWorkerd(t, bin, dir, config, port)
	waitListening(t, d, port)
	return d
}

func startWorkerd(t *testing.T, src string) *devServer {
	t.Helper()
	root, _ := filepath.Abs("..")
	bin := workerdBinary(t)
	dir := t.TempDir()
	if src == "" {
		src = filepath.Join(root, "build")
	}
	modules := `(name = "worker.mjs", esModule = embed "worker.mjs")`
	for _, f := range []string{"worker.mjs", "app.wasm"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil && f == "app.wasm" && src != filepath.Join(root, "build") {
			continue
		}
		if err != nil {
			t.Fatalf("%v (make build)", err)
		}
		if f == "app.wasm" {
			modules += `, (name = "app.wasm", wasm = embed "app.wasm")`
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var bindings []string
	for _, v := range wranglerVars(t) {
		bindings = append(bindings, fmt.Sprintf("(name = %s, text = %s)", strconv.Quote(v.Name), strconv.Quote(v.Value)))
	}
	port := freePort(t)
	config := `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .w)],
  sockets = [(name = "http", address = "127.0.0.1:` + strconv.Itoa(port) + `", http = (), service = "main")],
);
const w :Workerd.Worker = (
  modules = [` + modules + `],
  compatibilityDate = "2026-11-01",
  bindings = [` + strings.Join(bindings, ", ") + `],
);
`
	d := runWorkerd(t, bin, dir, config, port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(d.base + "/api/agent/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				t.Logf("workerd serving build/worker.mjs at %s", d.base)
				return d
			}
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(d.log.Name())
			t.Fatalf("workerd not ready after 30 s; its log:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
