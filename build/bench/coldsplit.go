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

// The cold start split into its phases (-cold-split N): four binary configs, started
// N times each in turn, each differing from the one before by one step of the project's
// start. A difference of a few per cent needs hundreds of starts: on a shared machine
// one start's wall time moves by a fifth from run to run.

// splitCase is one config of the split: its name, the path of its first request and
// the modules of its binary config.
type splitCase struct {
	name, path string
	mods       []benchModule
}

// splitCases returns the four configs, in the order each adds a step: the floor; the
// module alone (workerd decodes and validates app.wasm; the script does not touch it);
// the glue loaded (the project's worker.js imported, so its JS is compiled and its top
// level run, and not called); the project.
func splitCases(dir, wasm string, sh shipped) ([]splitCase, error) {
	moduleOnly, err := writeModuleOnly(dir, wasm)
	if err != nil {
		return nil, err
	}
	glueLoaded := filepath.Join(dir, "glue-loaded.mjs")
	src := `import w from "./project.js";
export default { fetch() { return new Response(typeof w.fetch === "function" ? "loaded" : "?"); } };
`
	if err := os.WriteFile(glueLoaded, []byte(src), 0o644); err != nil {
		return nil, err
	}
	wasmMod := benchModule{filepath.Base(wasm), "wasm", wasm}
	return []splitCase{
		{"floor", endpoints[0].target, []benchModule{{"worker.js", "esModule", filepath.Join(dir, "floor-cold.mjs")}}},
		{"module alone", "/", []benchModule{{"worker.js", "esModule", moduleOnly}, wasmMod}},
		{"glue loaded", "/", []benchModule{{"worker.js", "esModule", glueLoaded}, {"project.js", "esModule", sh.workerJS}, wasmMod}},
		{"project", endpoints[0].target, []benchModule{{"worker.js", "esModule", sh.workerJS}, wasmMod}},
	}, nil
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
	fmt.Fprintf(report, "the project's start over the floor's (goal: under 1.2x), %.1f ms of wall time: the module's compile %.1f, the glue's compile and top level %.1f, instantiate + configure + the first request %.1f\n",
		m(3)-m(0), m(1)-m(0), m(2)-m(1), m(3)-m(2))
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
