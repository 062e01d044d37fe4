package rental

import (
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
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

// search builds a Search on the bundled data with today = testToday.
func search(from, to int64, pickUp, dropOff string) Search {
	return Search{PickUpDepot: from, DropOffDepot: to, PickUp: d(pickUp), DropOff: d(dropOff), Today: testToday}
}
