package api

import (
	"testing"

	"github.com/campervan/agent-api/core/rental"
)

// TestItemHeads holds each pre-rendered item head to what itemAt writes for it, for
// every accessory and insurance plan of the bundled catalog, and to the catalog's ids.
func TestItemHeads(t *testing.T) {
	cat := rental.Bundled()
	for _, c := range []struct {
		name  string
		heads [][]byte
		list  func() ([]int64, []string)
		index func(int64) int
	}{
		{"accessory", bundledParts.accHeads, cat.AccessoryIDs, cat.AccessoryIndex},
		{"insurance plan", bundledParts.insHeads, cat.InsuranceIDs, cat.InsuranceIndex},
	} {
		ids, names := c.list()
		if len(ids) == 0 || len(c.heads) != len(ids) {
			t.Fatalf("%s: %d heads for %d ids", c.name, len(c.heads), len(ids))
		}
		for i, id := range ids {
			buf := make([]byte, 512)
			want := string(buf[:itemAt(buf, 0, id, names[i], 0)])
			got := string(itemHead(c.heads, c.index(id))) + "0"
			if got != want {
				t.Errorf("%s %d: head %q, itemAt %q", c.name, id, got, want)
			}
		}
		if itemHead(c.heads, c.index(-5)) != nil || itemHead(c.heads, len(c.heads)) != nil {
			t.Errorf("%s: a head for an id the catalog does not have", c.name)
		}
	}
}
