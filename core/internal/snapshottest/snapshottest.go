// Package snapshottest gives the tests of core's packages the bundled snapshot
// (data/*.json): the files, a fresh copy each call, and whatever a package loads from
// them, loaded once per test binary. It imports nothing of the project, so the
// domain's own tests can use it.
package snapshottest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Files returns a fresh copy of the bundled snapshot's files by name ("depots.json"),
// read from the module's data directory, which a test may change.
func Files(tb testing.TB) map[string][]byte {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("snapshottest: no source path")
	}
	ms, err := filepath.Glob(filepath.Join(filepath.Dir(self), "..", "..", "..", "data", "*.json"))
	if err != nil || len(ms) == 0 {
		tb.Fatalf("the bundled snapshot: no data/*.json (%v)", err)
	}
	files := map[string][]byte{}
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			tb.Fatal(err)
		}
		files[filepath.Base(m)] = b
	}
	return files
}

// Loaded is what a test binary loads once from the bundled snapshot (a catalog).
type Loaded[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns load's result over the bundled snapshot's files, loading it on the first
// call; a load that failed fails every test that asks.
func (l *Loaded[T]) Get(tb testing.TB, load func(map[string][]byte) (T, error)) T {
	tb.Helper()
	l.once.Do(func() { l.v, l.err = load(Files(tb)) })
	if l.err != nil {
		tb.Fatalf("loading the bundled snapshot: %v", l.err)
	}
	return l.v
}
