// Package views holds the MCP Apps views (io.modelcontextprotocol/ui): three HTML
// documents, one per kind of result (a search, a calendar, a quote), that build/views
// makes from src/ (the shared styles and code, no framework) and packs into views.lz4.
// The Worker serves them through the MCP endpoint's resources/read and build/site
// writes the same bytes into the static site.
package views

import (
	_ "embed"
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// View is one view: its resource, what it shows, and the tools whose results it shows.
type View struct {
	Name, URI, Title, Description string
	Tools                         []string
}

// All is the views, in the order views.lz4 holds them.
var All = []View{
	{Name: "search", URI: "ui://views/search", Title: "Vehicles found",
		Description: "A card per vehicle with its total, per-day price and insurance; Book or Get quote.",
		Tools:       []string{"search_vehicles"}},
	{Name: "calendar", URI: "ui://views/calendar", Title: "Flexible dates",
		Description: "Start date by hire length: the cheapest total and how many are free; a cell runs that search.",
		Tools:       []string{"search_calendar"}},
	{Name: "quote", URI: "ui://views/quote", Title: "Quote",
		Description: "The price breakdown, the cancellation and payment terms, and the checkout.",
		Tools:       []string{"get_quote", "check_quote"}},
}

// packed is build/views' output: the documents' lengths (u32 each, little-endian), then
// the documents one after another as one LZ4 block (they share most of their bytes).
// Packed, because every byte of the module is copied when an isolate loads it and the
// views are read only by hosts that show them.
//
//go:embed views.lz4
var packed []byte

var docs [][]byte

// HTML returns view i's document, unpacking them all on the first call. A pack that
// does not unpack (a build that skipped build/views) gives empty documents, which
// TestGeneratedViews catches.
func HTML(i int) []byte {
	if docs == nil {
		docs = Unpack(packed)
	}
	if i < 0 || i >= len(docs) {
		return nil
	}
	return docs[i]
}

// Unpack returns the documents of a pack (nil ones when it does not unpack).
func Unpack(p []byte) [][]byte {
	n := len(All)
	out := make([][]byte, n)
	if len(p) < 4*n {
		return out
	}
	total := 0
	for i := range out {
		total += int(binary.LittleEndian.Uint32(p[4*i:]))
	}
	all := make([]byte, total)
	if m, err := lz4.UncompressBlock(p[4*n:], all); err != nil || m != total {
		return out
	}
	for i := range out {
		l := int(binary.LittleEndian.Uint32(p[4*i:]))
		out[i], all = all[:l:l], all[l:]
	}
	return out
}
