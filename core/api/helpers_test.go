package api

import (
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
	"github.com/campervan/agent-api/core/quotetoken"
	. "github.com/campervan/agent-api/core/rental"
)

// testToday is the fixed "today" of the tests on the bundled data.
var testToday = DateOf(2026, 11, 22)

// bundled is the Catalog of the bundled snapshot, loaded once (bundledCatalog).
var bundled snapshottest.Loaded[*Catalog]

// bundledCatalog returns the Catalog of the bundled snapshot.
func bundledCatalog(tb testing.TB) *Catalog {
	tb.Helper()
	return bundled.Get(tb, LoadCatalog)
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
