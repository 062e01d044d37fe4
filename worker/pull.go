//lint:file-ignore U1000 used by the wasip1 build's build_inventory export (and the native tests), not by the standard-Go build

package main

import (
	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/text"
)

// The scheduled pull's build (worker/glue/scheduled.mjs, docs/inventory.md): a feed
// fetched by the Worker is validated and built as build/publish builds it.

// pullSource is the source of a pulled feed that does not say its own.
const pullSource = "reservation feed (scheduled pull)"

// maxPullRecords bounds the records of a pulled feed; FEED_MAX_BYTES bounds its bytes
// before it reaches the module.
const maxPullRecords = 150_000

// buildPulled validates feed against cat with core's validation (an error names the
// record and the field, as build/publish's does) and returns its blob and version.
func buildPulled(cat *rental.Catalog, feed []byte) (blob []byte, version string, err error) {
	blob, inv, err := cat.BuildInventory(feed, rental.Feed{File: "feed", Source: pullSource})
	if err != nil {
		return nil, "", err
	}
	if inv.Bookings() > maxPullRecords {
		return nil, "", text.Errorf("feed: %d records, over the bound of %d", inv.Bookings(), maxPullRecords)
	}
	return blob, inv.Version(), nil
}
