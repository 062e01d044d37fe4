// Package devrun holds what the development tools under build/ share to run the
// Worker locally: the vars of a wrangler.toml and a free port on 127.0.0.1.
package devrun

import (
	"net"
	"os"
	"regexp"
	"strings"
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
