// Package devrun holds what the development tools under build/ share to run the
// Worker locally: the vars of a wrangler.toml, a free port on 127.0.0.1, the process
// groups they start (Start, then WaitFor its first answer), ended on a signal.
package devrun

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

var varLine = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\s*=\s*"([^"]*)"`)

// WranglerVars returns [vars] of the wrangler.toml at path (NAME = "value" lines), in
// file order.
func WranglerVars(path string) ([][2]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vars [][2]string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			in = l == "[vars]"
			continue
		}
		if m := varLine.FindStringSubmatch(l); in && m != nil {
			vars = append(vars, [2]string{m[1], m[2]})
		}
	}
	return vars, nil
}

// FreePort returns a port on 127.0.0.1 that was free a moment ago.
func FreePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// live holds the process groups a tool started and has not stopped yet.
var live sync.Map // pid (the group's) -> *exec.Cmd

// StartTracked starts cmd (made with Setpgid) and records its process group, which
// StopOnSignal ends.
func StartTracked(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	live.Store(cmd.Process.Pid, cmd)
	return nil
}

// Start starts cmd in a process group of its own, tracked (StartTracked): a server
// the tool stops by its group, and StopOnSignal ends.
func Start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return StartTracked(cmd)
}

// WaitFor polls url every interval until it answers 200, for at most timeout from
// since (the server's start), and returns the time from since to that answer and
// whether it came. Each poll waits at most 5 s for its answer.
func WaitFor(url string, since time.Time, timeout, interval time.Duration) (time.Duration, bool) {
	client := &http.Client{Timeout: 5 * time.Second}
	for time.Since(since) < timeout {
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(since), true
			}
		}
		time.Sleep(interval)
	}
	return 0, false
}

// Untrack forgets cmd's process group, once the tool has stopped it.
func Untrack(cmd *exec.Cmd) { live.Delete(cmd.Process.Pid) }

// StopOnSignal kills every tracked process group when the tool gets SIGINT, SIGTERM or
// SIGHUP (^C, a timeout), then exits: deferred stops do not run then, and a workerd
// left behind would load the machine through the next run. tool names it in the message.
func StopOnSignal(tool string) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		live.Range(func(k, _ any) bool {
			syscall.Kill(-k.(int), syscall.SIGKILL)
			return true
		})
		fmt.Fprintln(os.Stderr, tool+":", sig, "- stopped the workerds it had started")
		os.Exit(1)
	}()
}
