//go:build !wasip1 && !js

package main

// startWorkerd runs the built Worker (build/worker.mjs + build/app.wasm) on the raw
// workerd binary wrangler ships, without wrangler dev's proxy and inspector: what the
// soak test measures memory on (under wrangler dev even an empty JS worker's workerd
// processes grow by tens of kB a request; README "Limits and robustness").

import (
	"fmt"
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
func startWorkerd(t *testing.T, src string) *devServer {
	t.Helper()
	root, _ := filepath.Abs("..")
	bin := filepath.Join(root, "node_modules/@cloudflare/workerd-linux-64/bin/workerd")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no workerd binary (npm install): %v", err)
	}
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
			out, _ := os.ReadFile(logf.Name())
			t.Fatalf("workerd not ready after 30 s; its log:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
