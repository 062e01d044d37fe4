package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/campervan/agent-api/build/internal/devrun"
)

// The cold start split into its phases (-cold-split N): binary configs, started N
// times each in turn, each differing from the one before by one step of the project's
// start. A difference of a few per cent needs hundreds of starts: on a shared machine
// one start's wall time moves by a fifth from run to run.

// splitCase is one config of the split: its name, the path of its first request and
// the modules of its binary config.
type splitCase struct {
	name, path string
	mods       []benchModule
}

// The phases the first request of the phases bundle (writePhases) runs before it
// answers, one config each, in the order the glue runs them: nothing (the glue loaded:
// its JS compiled and its top level run); the module instantiated; its Go runtime and
// packages initialised (_initialize); the server configured from the vars (the glue's
// own instantiate: _initialize, configure, the validator-free paths). Each answers a
// short 200; the last config, "first answer", sends the depots request through the
// glue's fetch handler itself.
var phases = []string{"glue loaded", "instantiated", "initialized", "configured"}

// splitCases returns the configs, in the order each adds a step: the floor; the module
// alone (workerd decodes and validates app.wasm; the script does not touch it); the
// phases bundle at each phase, then answering depots; the project as wrangler bundles
// it (build/dist), which the phases bundle's first answer matches but for its few
// bytes of phase code; last, the request path alone.
func splitCases(dir, wasm string, sh shipped) ([]splitCase, error) {
	moduleOnly, err := writeModuleOnly(dir, wasm)
	if err != nil {
		return nil, err
	}
	bundle, err := writePhases(dir)
	if err != nil {
		return nil, err
	}
	wasmMod := benchModule{filepath.Base(wasm), "wasm", wasm}
	withPhases := []benchModule{{"worker.js", "esModule", bundle}, {"app.wasm", "wasm", wasm}}
	cases := []splitCase{
		{"floor", endpoints[0].target, []benchModule{{"worker.js", "esModule", filepath.Join(dir, "floor-cold.mjs")}}},
		{"module alone", "/", []benchModule{{"worker.js", "esModule", moduleOnly}, wasmMod}},
	}
	for i, ph := range phases {
		cases = append(cases, splitCase{ph, fmt.Sprintf("/phase/%d", i), withPhases})
	}
	bound, err := writeRequestPathAlone(dir)
	if err != nil {
		return nil, err
	}
	return append(cases,
		splitCase{"first answer", endpoints[0].target, withPhases},
		splitCase{"project", endpoints[0].target, []benchModule{{"worker.js", "esModule", sh.workerJS}, wasmMod}},
		splitCase{requestPathAlone, endpoints[0].target, []benchModule{{"worker.js", "esModule", bound}, {"app.wasm", "wasm", wasm}}}), nil
}

// phasesEntry is the phases bundle's entry: the glue's modules imported as glue.mjs
// imports them, and a fetch handler that runs the phases up to the one its path names
// (/phase/N) on the isolate's first request, or the glue's own fetch for any other path.
const phasesEntry = `import wasmModule from "./app.wasm";
import { fetch } from "REPO/worker/glue/fetch.mjs";
import { current, useModule } from "REPO/worker/glue/instance.mjs";
import { scheduled } from "REPO/worker/glue/scheduled.mjs";
import { wasi } from "REPO/worker/glue/wasi.mjs";

useModule(wasmModule);

function phase(n, env) {
  if (n === 3) return current(env);
  if (n < 1) return null;
  const state = { mem: null };
  const ex = new WebAssembly.Instance(wasmModule, { wasi_snapshot_preview1: wasi(state) }).exports;
  state.mem = ex.memory;
  if (n === 2) ex._initialize();
  return ex;
}

export default {
  fetch(request, env, ctx) {
    const u = request.url, at = u.indexOf("/phase/");
    if (at < 0) return fetch(request, env, ctx);
    phase(Number(u.slice(at + 7)), env);
    return new Response("phase");
  },
  scheduled,
};
`

// writePhases bundles phasesEntry with the glue's sources and returns the bundle's path.
func writePhases(dir string) (string, error) {
	repo, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	entry, out := filepath.Join(dir, "phases-entry.mjs"), filepath.Join(dir, "phases.mjs")
	if err := os.WriteFile(entry, []byte(strings.ReplaceAll(phasesEntry, "REPO", repo)), 0o644); err != nil {
		return "", err
	}
	return bundle(entry, out)
}

// requestPathAlone names the last config: a bound, not a build. It is the glue with the
// modules a plain request does not need to answer replaced by stand-ins that do
// nothing (agent.mjs: Web Bot Auth; scheduled.mjs: the pull; inventory.mjs: the live
// inventory's reads; ratelimit.mjs: the limiter's KV write-behind), so that its start
// is what the module and the request path cost without those features.
const requestPathAlone = "request path alone (a bound)"

// standIns are the stand-in modules of the request-path-alone bundle, by file name:
// the exports glue.mjs and fetch.mjs use, doing nothing.
var standIns = map[string]string{
	"agent.mjs":     "export function agentCheck() { return null; }\n",
	"scheduled.mjs": "export async function scheduled() {}\n",
	"inventory.mjs": "export const inventoryTick = () => null;\nexport const readsInventory = () => false;\n",
	"ratelimit.mjs": "export function kvSync() { return null; }\nexport function kvRestart() { return null; }\n",
}

// writeRequestPathAlone bundles glue.mjs from a copy of worker/glue with standIns in
// place, as writePhases bundles, and returns the bundle's path.
func writeRequestPathAlone(dir string) (string, error) {
	src := filepath.Join(dir, "request-path-alone")
	if err := os.MkdirAll(filepath.Join(src, "glue"), 0o755); err != nil {
		return "", err
	}
	files, err := filepath.Glob("worker/glue/*.mjs")
	if err != nil {
		return "", err
	}
	for _, f := range append(files, "worker/glue.mjs") {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if s, ok := standIns[filepath.Base(f)]; ok {
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(src, strings.TrimPrefix(f, "worker/")), b, 0o644); err != nil {
			return "", err
		}
	}
	return bundle(filepath.Join(src, "glue.mjs"), filepath.Join(dir, "request-path-alone.mjs"))
}

// bundle bundles entry into out as make build bundles glue.mjs and as wrangler deploys
// it (esbuild, minified, app.wasm left to the config).
func bundle(entry, out string) (string, error) {
	if o, err := exec.Command("node_modules/.bin/esbuild", entry, "--bundle", "--format=esm", "--external:*.wasm",
		"--minify", "--log-level=warning", "--outfile="+out).CombinedOutput(); err != nil {
		return "", fmt.Errorf("esbuild %s: %v\n%s", entry, err, o)
	}
	return out, nil
}

// writeModuleOnly writes the module-alone script: it imports app.wasm, so workerd
// compiles it, and answers without instantiating it.
func writeModuleOnly(dir, wasm string) (string, error) {
	p := filepath.Join(dir, "module-only.mjs")
	src := `import m from "./` + filepath.Base(wasm) + `";
export default { fetch() { return new Response(m instanceof WebAssembly.Module ? "compiled" : "?"); } };
`
	return p, os.WriteFile(p, []byte(src), 0o644)
}

// coldSplit starts each case *coldSplitN times, in turn, and adds to report each one's
// wall time to the first 200, workerd's CPU time (medians and quartiles) and page
// faults, their ratios to the floor's, and the project's start split into the steps.
func coldSplit(report *strings.Builder, workerd, dir, wasm string, sh shipped) error {
	cases, err := splitCases(dir, wasm, sh)
	if err != nil {
		return err
	}
	confs := make([]string, len(cases))
	for i, c := range cases {
		confs[i] = filepath.Join(dir, fmt.Sprintf("split-%d.bin", i))
		if err := binaryConfig(confs[i], devrun.FreePort(), sh, c.mods); err != nil {
			return err
		}
	}
	wall, cpu, faults := make([][]float64, len(cases)), make([][]float64, len(cases)), make([][]float64, len(cases))
	for n := 0; n < *coldSplitN; n++ {
		for i, c := range cases {
			s, err := oneColdStart(workerd, confs[i], c.path)
			if err != nil {
				return fmt.Errorf("cold start of %s: %v", c.name, err)
			}
			wall[i], cpu[i], faults[i] = append(wall[i], s.wall), append(cpu[i], s.cpu), append(faults[i], s.faults)
		}
	}
	fmt.Fprintf(report, "cold start split, binary configs as wrangler dev starts workerd, %d starts of each in turn, each request sent on the listening socket as workerd starts (median [quartiles]; ratio of medians to the floor's):\n", *coldSplitN)
	fmt.Fprintf(report, "| config | wall ms | ratio | workerd CPU ms | ratio | page faults |\n|---|---|---|---|---|---|\n")
	for i, c := range cases {
		fmt.Fprintf(report, "| %s | %s | %.3f | %s | %.3f | %.0f |\n", c.name, quartiles(wall[i]), med(wall[i])/med(wall[0]), quartiles(cpu[i]), med(cpu[i])/med(cpu[0]), med(faults[i]))
	}
	m := func(i int) float64 { return med(wall[i]) }
	project := len(cases) - 2
	fmt.Fprintf(report, "the project's start over the floor's (goal: under 1.2x, %.1f ms): %.1f ms of wall time; each step over the one before:", 0.2*m(0), m(project)-m(0))
	for i := 1; i < project; i++ {
		fmt.Fprintf(report, " %s %+.1f,", cases[i].name, m(i)-m(i-1))
	}
	fmt.Fprintf(report, " and the project as wrangler bundles it against the phases bundle's first answer %+.1f; the request path alone %.1f ms over the floor (%.3fx)\n",
		m(project)-m(project-1), m(project+1)-m(0), m(project+1)/m(0))
	return nil
}

// coldSample is one cold start: the wall time to the first answer and workerd's CPU
// time (user + system, all threads), in ms, and its minor page faults.
type coldSample struct{ wall, cpu, faults float64 }

// oneColdStart starts workerd on the binary config conf with its HTTP socket already
// listening (--socket-fd: the harness opens it), sends GET path on it at once, and
// kills workerd when the answer's status line arrives. The request waits in the
// socket's backlog until workerd serves it: no polling shares the machine with the start.
func oneColdStart(workerd, conf, path string) (coldSample, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return coldSample{}, err
	}
	sock, err := ln.(*net.TCPListener).File()
	addr := ln.Addr().String()
	ln.Close()
	if err != nil {
		return coldSample{}, err
	}
	cmd := exec.Command(workerd, append(serveArgs(conf), "--socket-fd", "http=3")...)
	cmd.ExtraFiles = []*os.File{sock}
	t0 := time.Now()
	err = devrun.Start(cmd)
	sock.Close()
	if err != nil {
		return coldSample{}, err
	}
	defer devrun.Untrack(cmd)
	status, err := firstStatus(addr, path)
	d := time.Since(t0)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if err != nil || status != "200" {
		return coldSample{}, fmt.Errorf("GET %s: status %q, %v", path, status, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return coldSample{d.Seconds() * 1000, float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6, float64(ru.Minflt)}, nil
}

// firstStatus sends GET path to addr and returns the status code of the answer, read
// from its status line alone.
func firstStatus(addr, path string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if f := strings.Fields(line); len(f) >= 2 {
		return f[1], nil
	}
	return "", err
}

// quartiles formats the median of xs with its first and third quartiles.
func quartiles(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(f float64) float64 { return s[int(f*float64(len(s)-1)+0.5)] }
	return fmt.Sprintf("%.1f [%.1f, %.1f]", med(xs), q(0.25), q(0.75))
}
