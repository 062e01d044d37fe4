//go:build !wasip1 && !js

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// What a test needs beyond the Go toolchain: the -e2e flag, a built module, an npm
// package. Each helper is called once at the top of the test that needs it, so a plain
// `go test` in a fresh clone reports the test as skipped (not as passed with its
// subtests skipped), with the command that runs it.

// needE2E skips the test unless -e2e is given (make test gives it).
func needE2E(t testing.TB) {
	t.Helper()
	if !*e2e {
		t.Skip("an end-to-end test: it runs with -e2e (make test)")
	}
}

// needPath skips the test when path is missing; under make test (CAMPERVAN_REQUIRE_ALL)
// a missing path fails it instead. what says what the path is.
func needPath(t testing.TB, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CAMPERVAN_REQUIRE_ALL") != "" {
			t.Fatalf("%s (%s): %v", what, path, err)
		}
		t.Skipf("%s (%s) is missing: make test builds or installs it and runs this test", what, path)
	}
}

// workerdBinary returns the workerd binary wrangler's npm package ships, skipping the
// test without it (needPath).
func workerdBinary(t testing.TB) string {
	t.Helper()
	root, _ := filepath.Abs("..")
	bin := filepath.Join(root, "node_modules/@cloudflare/workerd-linux-64/bin/workerd")
	needPath(t, bin, "the workerd binary")
	return bin
}
