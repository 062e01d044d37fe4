package api

import (
	"github.com/campervan/agent-api/core/quotetoken"
	. "github.com/campervan/agent-api/core/rental"

	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testToday is the fixed "today" of the tests on the bundled data.
var testToday = DateOf(2026, 11, 22)

var bundled struct {
	once  sync.Once
	files map[string][]byte
	cat   *Catalog
	err   error
}

// bundledFiles returns a fresh copy of the bundled snapshot files (../../data/*.json).
func bundledFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	ms, err := filepath.Glob("../../data/*.json")
	if err != nil || len(ms) == 0 {
		tb.Fatalf("no ../../data/*.json: %v", err)
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

// bundledCatalog returns the Catalog of the bundled snapshot, loaded once.
func bundledCatalog(tb testing.TB) *Catalog {
	tb.Helper()
	bundled.once.Do(func() {
		bundled.files = bundledFiles(tb)
		bundled.cat, bundled.err = LoadCatalog(bundled.files)
	})
	if bundled.err != nil {
		tb.Fatalf("LoadCatalog(bundled) = %v", bundled.err)
	}
	return bundled.cat
}

// d parses a test date or panics.
func d(s string) Date {
	x, ok := ParseDate(s)
	if !ok {
		panic("bad test date " + s)
	}
	return x
}

// maxEcho is how many runes of client input a message echoes (text.Clean).
const maxEcho = 40

// testQuoteKeys is the quote signing key of the tests and of `make dev`'s first
// .dev.vars (bytes 0 to 31), never a deployment's.
const testQuoteKeys = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// testConfig is DefaultConfig with the tests' quote signing key.
func testConfig() Config {
	c := DefaultConfig()
	k, err := quotetoken.ParseKeys(testQuoteKeys)
	if err != nil {
		panic(err)
	}
	c.QuoteKeys = k
	return c
}
