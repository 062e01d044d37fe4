package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/campervan/agent-api/build/internal/devrun"
)

// A workerd the bench runs: started and polled to its first answer (startAt),
// restarted, stopped, and read for its CPU time, threads and memory.

// confCopy writes a copy of the workerd config conf beside it (its name with suffix)
// whose HTTP socket listens on a free port of its own, with V8 --single-threaded when
// singleThreaded, and returns the copy's path and port.
func confCopy(conf, suffix string, singleThreaded bool) (string, int, error) {
	b, err := os.ReadFile(conf)
	if err != nil {
		return "", 0, err
	}
	text := string(b)
	m := regexp.MustCompile(`name = "http", address = "127\.0\.0\.1:\d+"`).FindString(text) // the socket, not the KV service
	if m == "" {
		return "", 0, fmt.Errorf("%s: no 127.0.0.1 socket", conf)
	}
	if singleThreaded {
		// --trace-gc: servedCount reads each collection's line to start and end its
		// count right after one (a whole number of collection cycles).
		text = addV8Flags(text, "--single-threaded", "--trace-gc")
		if !strings.Contains(text, "--single-threaded") {
			return "", 0, fmt.Errorf("%s: the sockets line is not where confCopy expects it", conf)
		}
	}
	port := devrun.FreePort()
	text = strings.Replace(text, m, fmt.Sprintf(`name = "http", address = "127.0.0.1:%d"`, port), 1)
	vconf := strings.TrimSuffix(conf, ".capnp") + suffix + ".capnp"
	return vconf, port, os.WriteFile(vconf, []byte(text), 0o644)
}

type server struct {
	base        string
	cmd         *exec.Cmd
	firstAnswer time.Duration
	workerd     string // how it was started: restart starts it so again
	conf, path  string
	port        int
}

func start(workerd, conf string, port int) (*server, error) {
	return startAt(workerd, conf, port, endpoints[0].target)
}

// startAt starts workerd with conf and polls path every millisecond until it answers 200.
func startAt(workerd, conf string, port int, path string) (*server, error) {
	cmd := exec.Command(workerd, serveArgs(conf)...)
	if *pin {
		cmd = exec.Command("taskset", append([]string{"-c", strconv.Itoa(runtime.NumCPU() - 1), workerd}, serveArgs(conf)...)...) // taskset execs workerd: the pid is workerd's
	}
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	t0 := time.Now()
	if err := devrun.Start(cmd); err != nil {
		return nil, err
	}
	s := &server{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, workerd: workerd, conf: conf, path: path, port: port}
	var ok bool
	if s.firstAnswer, ok = devrun.WaitFor(s.base+path, t0, 20*time.Second, time.Millisecond); !ok {
		s.stop()
		return nil, fmt.Errorf("%s: no answer in 20 s", conf)
	}
	return s, nil
}

// boundRSS restarts both workerds when either's RSS is over -max-rss. workerd keeps
// much of what the largest calendar's 476 KB answers take, and a run whose processes
// outgrow the machine's memory stalls both in its last rounds. Both processes start
// afresh alike, so the pair stays comparable; stderr says so, naming what comes next.
func boundRSS(app, floor *server, next string) error {
	limit, pa, pf := *maxRSS*1024, app.rss(), floor.rss()
	if limit <= 0 || (pa <= limit && pf <= limit) {
		return nil
	}
	fmt.Fprintf(os.Stderr, "before %s: workerd RSS project %.0f MB, floor %.0f MB, over -max-rss %d MB: both restarted\n",
		next, float64(pa)/1024, float64(pf)/1024, *maxRSS)
	for _, s := range []*server{app, floor} {
		if err := s.restart(); err != nil {
			return err
		}
	}
	return nil
}

// restart stops s and starts the same workerd again in its place (a fresh process).
func (s *server) restart() error {
	s.stop()
	n, err := startAt(s.workerd, s.conf, s.port, s.path)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// stop ends workerd by PID: it ignores SIGINT when detached, so SIGTERM, then SIGKILL.
func (s *server) stop() {
	defer devrun.Untrack(s.cmd)
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// cpu returns workerd's user+system CPU time in seconds.
func (s *server) cpu() float64 {
	_, u, st := statCPU(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	return u + st
}

// statCPU reads a /proc stat file (a process's or a thread's) and returns its name and
// its user and system CPU time in seconds (zeros when it cannot be read).
func statCPU(path string) (name string, user, sys float64) {
	b, err := os.ReadFile(path)
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 || j < i || len(b) < j+2 {
		return "", 0, 0
	}
	f := strings.Fields(string(b[j+2:]))
	if len(f) < 13 {
		return "", 0, 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return string(b[i+1 : j]), u / 100, st / 100 // clock ticks (USER_HZ = 100)
}

// withV8Flags adds -v8-flags to a workerd config's text.
func withV8Flags(conf string) string {
	var flags []string
	if *v8flags != "" {
		flags = strings.Split(*v8flags, ",")
	}
	if *jitNames && *instrN > 0 {
		flags = append(flags, jitNamesFlag)
	}
	if len(flags) == 0 {
		return conf
	}
	return addV8Flags(conf, flags...)
}

// addV8Flags adds flags to a workerd config's v8Flags list, making the list (before its
// sockets) when it has none.
func addV8Flags(conf string, flags ...string) string {
	var q []string
	for _, f := range flags {
		q = append(q, strconv.Quote(f))
	}
	if strings.Contains(conf, "  v8Flags = [") {
		return strings.Replace(conf, "  v8Flags = [", "  v8Flags = ["+strings.Join(q, ", ")+", ", 1)
	}
	return strings.Replace(conf, "  sockets = [", "  v8Flags = ["+strings.Join(q, ", ")+"],\n  sockets = [", 1)
}

// threadCPU returns workerd's user+system CPU time in seconds per thread name (the
// main thread is named "workerd"; V8's platform workers, its GC helpers and compilers,
// carry names of their own).
func (s *server) threadCPU() map[string]float64 {
	out := map[string]float64{}
	dir := fmt.Sprintf("/proc/%d/task", s.cmd.Process.Pid)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name, u, st := statCPU(filepath.Join(dir, e.Name(), "stat"))
		if name == "" {
			continue
		}
		out[name+" user"] += u
		out[name+" sys"] += st
	}
	return out
}

// kernelCounts returns workerd's minor page faults (all its threads: /proc/<pid>/stat)
// and its voluntary and involuntary context switches (/proc/<pid>/status, the main
// thread's).
func (s *server) kernelCounts() (c [3]float64) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid)); err == nil {
		if j := bytes.LastIndexByte(b, ')'); j >= 0 && len(b) > j+2 {
			if f := strings.Fields(string(b[j+2:])); len(f) > 7 {
				c[0], _ = strconv.ParseFloat(f[7], 64)
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				c[1], _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			} else if v, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				c[2], _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		}
	}
	return c
}

// rss returns workerd's resident memory in KB.
func (s *server) rss() int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(sc.Text())[1])
			return n
		}
	}
	return 0
}

// serveArgs is workerd's command line for conf: a text config, or an encoded one
// (binaryConfig's, ending in .bin).
func serveArgs(conf string) []string {
	if strings.HasSuffix(conf, ".bin") {
		return []string{"serve", "--binary", conf}
	}
	return []string{"serve", conf}
}
