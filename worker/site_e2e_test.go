//go:build !wasip1 && !js

package main

// The static site beside the API under wrangler dev (make dev's server and
// wrangler.toml): every file build/site wrote is served as written by Workers Static
// Assets, with its media type and an ETag and without the Worker (no rate-limit
// headers); every API path still reaches the Worker; the docs page shows every
// operation of the table in headless Chromium (worker/docs_browser.mjs, which saves
// build/out/docs.png); and the Go client that oapi-codegen generates from the served
// OpenAPI document calls every operation (worker/testdata/genclient). With -e2e.

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/api"
)

func TestE2ESite(t *testing.T) {
	needE2E(t)
	root, _ := filepath.Abs("..")
	siteDir := filepath.Join(root, "build/out/site")
	if _, err := os.Stat(filepath.Join(siteDir, "docs.html")); err != nil {
		t.Fatalf("no static site in build/out/site (make build writes it): %v", err)
	}
	base := ""
	for _, v := range wranglerVars(t) {
		if v.Name == "BASE_PATH" {
			base = v.Value
		}
	}
	d := startDev(t, "wrangler.toml")

	t.Run("static", func(t *testing.T) {
		types := map[string]string{
			"/":                        "text/html; charset=utf-8",
			"/docs":                    "text/html; charset=utf-8",
			"/llms.txt":                "text/plain; charset=utf-8",
			"/llms-full.txt":           "text/plain; charset=utf-8",
			"/.well-known/api-catalog": `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`,
			"/.well-known/openapi":     "application/vnd.oai.openapi+json",
			"/openapi.json":            "application/json",
		}
		n := 0
		err := filepath.WalkDir(siteDir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || e.Name() == "_headers" {
				return err
			}
			rel := "/" + filepath.ToSlash(strings.TrimPrefix(p, siteDir+string(filepath.Separator)))
			path := strings.TrimSuffix(strings.TrimSuffix(rel, "index.html"), ".html")
			want, _ := os.ReadFile(p)
			resp, body := get(t, d.base+path, "")
			n++
			switch {
			case resp.StatusCode != 200 || string(body) != string(want):
				t.Errorf("GET %s: %d, %d bytes; want 200 and the %d bytes of %s", path, resp.StatusCode, len(body), len(want), rel)
			case resp.Header.Get("x-ratelimit-limit") != "":
				t.Errorf("GET %s: answered by the Worker (rate-limit headers), not the static assets", path)
			case types[path] != "" && resp.Header.Get("content-type") != types[path]:
				t.Errorf("GET %s: content-type %q, want %q", path, resp.Header.Get("content-type"), types[path])
			case resp.Header.Get("etag") == "":
				t.Errorf("GET %s: no ETag", path)
			default:
				if again, _ := get(t, d.base+path, resp.Header.Get("etag")); again.StatusCode != 304 {
					t.Errorf("GET %s with If-None-Match its ETag: %d, want 304", path, again.StatusCode)
				}
			}
			return nil
		})
		if err != nil || n < len(types) {
			t.Fatalf("%d files served from %s: %v", n, siteDir, err)
		}
		// Every path under the base path is the Worker's, even one named like a file.
		for _, path := range []string{base, base + "/", base + "/openapi.json", base + "/docs", base + "/llms.txt", "/favicon.ico"} {
			resp, body := get(t, d.base+path, "")
			if resp.Header.Get("x-ratelimit-limit") == "" || !strings.HasPrefix(resp.Header.Get("content-type"), "application/json") {
				t.Errorf("GET %s: %d %q, not the Worker's answer: %.100s", path, resp.StatusCode, resp.Header.Get("content-type"), body)
			}
		}
	})

	t.Run("browser", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/chromium"); err != nil && os.Getenv("CHROMIUM") == "" {
			t.Fatalf("no Chromium (make deps installs Debian's chromium): %v", err)
		}
		args := []string{filepath.Join(root, "worker/docs_browser.mjs"), d.base, filepath.Join(root, "build/out/docs.png")}
		for _, o := range api.SiteOps() {
			args = append(args, "GET "+base+o.Path)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(root, "node_modules/.bin/node"), args...)
		cmd.Dir = root
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("docs_browser.mjs (%.1f s): %s\n%s", time.Since(t0).Seconds(), lastLine(out), out)
		if err != nil || !strings.Contains(string(out), "PASS all checks") {
			t.Fatalf("the docs page in Chromium: %v", err)
		}
	})

	t.Run("client", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"go.mod", "go.sum", "main.go"} {
			b, err := os.ReadFile(filepath.Join("testdata/genclient", f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		_, doc := get(t, d.base+"/.well-known/openapi", "")
		if err := os.WriteFile(filepath.Join(dir, "openapi.json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		for _, args := range [][]string{
			{"tool", "oapi-codegen", "-generate", "types,client", "-package", "main", "-o", "client.gen.go", "openapi.json"},
			{"run", ".", d.base + base},
		} {
			cmd := exec.CommandContext(ctx, "go", args...) // go test puts its own go first in PATH
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			t.Logf("go %s (%.1f s): %s\n%s", strings.Join(args[:2], " "), time.Since(t0).Seconds(), lastLine(out), out)
			if err != nil {
				t.Fatalf("go %s: %v", strings.Join(args, " "), err)
			}
			if args[0] == "run" && !strings.Contains(string(out), "PASS every operation") {
				t.Fatal("the generated client did not call every operation")
			}
		}
	})
}

// lastLine returns the last line of a program's output (its verdict).
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// get fetches url (with If-None-Match when etag is not "") and returns the answer and
// its body.
func get(t *testing.T, url, etag string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	c := http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}
