package rental

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/internal/snapshottest"
)

func feedOf(t testing.TB, c *Catalog, feed string) ([]byte, *Inventory) {
	t.Helper()
	blob, inv, err := c.BuildInventory([]byte(feed), Feed{File: "feed.json", AsOf: "2026-11-22T00:00:00Z", Source: "test"})
	if err != nil {
		t.Fatalf("BuildInventory: %v", err)
	}
	return blob, inv
}

// TestInventoryRoundTrip: the bundled bookings published as a feed decode to the
// bundled inventory's spans; the version is the blob's hash; the same feed gives the
// same blob.
func TestInventoryRoundTrip(t *testing.T) {
	c := bundledCatalog(t)
	files := snapshottest.Files(t)
	blob, built := feedOf(t, c, string(files["bookings.json"]))
	inv, err := c.DecodeInventory(blob)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inv.blocked, c.inv.blocked) || !reflect.DeepEqual(inv.blockOff, c.inv.blockOff) {
		t.Errorf("decoded spans differ from the bundled inventory's")
	}
	if inv.Version() != built.Version() || inv.Version() != InventoryVersion(blob) || len(inv.Version()) != 16 {
		t.Errorf("version %q, built %q, hash %q", inv.Version(), built.Version(), InventoryVersion(blob))
	}
	if inv.AsOf() != "2026-11-22T00:00:00Z" || inv.Source() != "test" || inv.Bookings() != 19 || inv.Bundled() {
		t.Errorf("as_of %q source %q bookings %d bundled %v", inv.AsOf(), inv.Source(), inv.Bookings(), inv.Bundled())
	}
	again, _ := feedOf(t, c, string(files["bookings.json"]))
	if !bytes.Equal(blob, again) {
		t.Error("the same feed gave two different blobs")
	}
	if v := c.Inventory().Version(); !strings.HasPrefix(v, "bundled-") || len(v) != len("bundled-")+16 || !c.Inventory().Bundled() {
		t.Errorf("bundled version %q", v)
	}
	// The object form with its own as_of and source.
	obj := `{"as_of":"2026-11-23T10:00:00+13:00","source":"reservations export","bookings":` + string(files["bookings.json"]) + `}`
	_, o := feedOf(t, c, obj)
	if o.AsOf() != "2026-11-23T10:00:00+13:00" || o.Source() != "reservations export" || !reflect.DeepEqual(o.blocked, c.inv.blocked) {
		t.Errorf("object feed: as_of %q source %q", o.AsOf(), o.Source())
	}
}

// TestInventorySwap: a catalog WithInventory answers from the new bookings; the
// original is unchanged. An empty feed frees every vehicle.
func TestInventorySwap(t *testing.T) {
	c := bundledCatalog(t)
	// Vehicle 7 at depot 1 is booked out over the new year in the bundled data.
	s := search(1, 1, "2026-12-27", "2027-01-06")
	if r := c.Unavailable(s, 7); !strings.Contains(r, "booked out") {
		t.Fatalf("bundled: vehicle 7 should be booked out: %q", r)
	}
	vi, _ := c.vehicleIdx.find(3)
	di, _ := c.depotIdx.find(1)
	units := c.fleet[int(vi)*len(c.depots)+int(di)]
	blob, _ := feedOf(t, c, `[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-01","drop_off_date":"2027-03-31","units":`+itoa(int(units))+`}]`)
	inv, err := c.DecodeInventory(blob)
	if err != nil {
		t.Fatal(err)
	}
	c2 := c.WithInventory(inv)
	if r := c2.Unavailable(s, 7); r != "" {
		t.Errorf("new inventory: vehicle 7 still unavailable: %s", r)
	}
	if r := c2.Unavailable(search(1, 1, "2027-03-10", "2027-03-20"), 3); !strings.Contains(r, "booked out") || !strings.Contains(r, "2027-03-01 to 2027-03-31") {
		t.Errorf("new inventory: vehicle 3 reason %q", r)
	}
	if c.Unavailable(s, 7) == "" || c.Inventory() == inv {
		t.Error("WithInventory changed the original catalog")
	}
	empty, _ := feedOf(t, c, `[]`)
	inv0, err := c.DecodeInventory(empty)
	if err != nil {
		t.Fatal(err)
	}
	if inv0.Spans() != 0 || inv0.Bookings() != 0 {
		t.Errorf("empty feed: %d spans, %d bookings", inv0.Spans(), inv0.Bookings())
	}
	c0 := c.WithInventory(inv0)
	offers, e := c0.Availability(s, nil)
	if e != nil {
		t.Fatal(e)
	}
	for _, o := range offers {
		if o.Vehicle.ID == 7 {
			return
		}
	}
	t.Error("empty inventory: vehicle 7 not offered")
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestFeedErrors: a bad feed names the file, the record and the field.
func TestFeedErrors(t *testing.T) {
	c := bundledCatalog(t)
	rec := `{"id":5,"vehicle_id":7,"depot_id":1,"pick_up_date":"2027-01-01","drop_off_date":"2027-01-05","units":1}`
	for _, tc := range []struct{ name, feed, want string }{
		{"not json", `[`, `feed.json: not valid JSON`},
		{"scalar", `42`, `feed.json: must be a JSON array of booking records`},
		{"unknown vehicle", `[` + strings.Replace(rec, `"vehicle_id":7`, `"vehicle_id":777`, 1) + `]`,
			`feed.json: record 0 (id 5): field "vehicle_id": vehicle 777 does not exist in vehicles.json`},
		{"bad units in object", `{"bookings":[` + rec + `,` + strings.Replace(rec, `"units":1`, `"units":0`, 1) + `]}`,
			`feed.json: bookings record 1 (id 5): field "id": duplicate id 5`},
		{"bad date", `[` + strings.Replace(rec, `2027-01-05`, `2027-02-30`, 1) + `]`,
			`feed.json: record 0 (id 5): field "drop_off_date": must be a real calendar date`},
		{"no bookings", `{"as_of":"now"}`, `feed.json: field "bookings": must be a JSON array of records`},
		{"bad as_of", `{"as_of":7,"bookings":[]}`, `feed.json: field "as_of": must be a string`},
		{"control in source", `{"source":"a\nb","bookings":[]}`, `feed.json: field "source": must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.BuildInventory([]byte(tc.feed), Feed{File: "feed.json"})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

// TestDecodeInventoryRejects: every kind of bad blob is an error, none a panic, and
// every truncation of a good blob is rejected.
func TestDecodeInventoryRejects(t *testing.T) {
	c := bundledCatalog(t)
	blob, _ := feedOf(t, c, string(snapshottest.Files(t)["bookings.json"]))
	for n := 0; n < len(blob); n++ {
		if _, err := c.DecodeInventory(blob[:n]); err == nil {
			t.Fatalf("a blob cut to %d of %d bytes decoded", n, len(blob))
		}
	}
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), blob...)) }
	// The header: magic 4, format 1, as_of (1+20), source (1+4), records 1, hash 8.
	hashAt := 5 + 21 + 5 + 1
	for _, tc := range []struct {
		name string
		blob []byte
		want string
	}{
		{"magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), "not an inventory"},
		{"format", mut(func(b []byte) []byte { b[4] = 2; return b }), "format 2"},
		{"trailing", mut(func(b []byte) []byte { return append(b, 0) }), "bytes after the last pair"},
		{"fleet hash", mut(func(b []byte) []byte { b[hashAt] ^= 1; return b }), "another fleet"},
		{"json", []byte(`[{"id":1}]`), "not an inventory"},
		{"unknown vehicle", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			h = binary.AppendUvarint(h, 1)
			return append(h, 1, 99, 1, 1, 2, 0)
		}), "vehicle 99 is not in"},
		{"no fleet", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			h = binary.AppendUvarint(h, 1)
			return append(h, 1, 7, 5, 1, 2, 0)
		}), "has no fleet"},
		{"order", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			h = binary.AppendUvarint(h, 2)
			return append(h, 2, 7, 1, 1, 2, 0, 1, 2, 1, 2, 0)
		}), "out of order"},
		{"huge count", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			return binary.AppendUvarint(h, 1<<40)
		}), "number of pairs"},
		{"span count", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			h = binary.AppendUvarint(h, 1)
			return append(h, 2, 7, 1, 1, 2, 0)
		}), "1 spans, the header says 2"},
		{"unknown depot", mut(func(b []byte) []byte {
			h := b[:hashAt+8]
			h = binary.AppendUvarint(h, 1)
			return append(h, 1, 7, 77, 1, 2, 0)
		}), "depot 77 is not in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.DecodeInventory(tc.blob); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSyntheticInventory: 100,000 bookings over 2,000 vehicles published as a feed
// decode to the spans LoadCatalog computed; the blob stays far below 1 MiB.
func TestSyntheticInventory(t *testing.T) {
	c := syntheticCatalog(t)
	blob, _ := feedOf(t, c, string(synth.files["bookings.json"]))
	inv, err := c.DecodeInventory(blob)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inv.blocked, c.inv.blocked) || !reflect.DeepEqual(inv.blockOff, c.inv.blockOff) {
		t.Error("synthetic: decoded spans differ from LoadCatalog's")
	}
	t.Logf("synthetic inventory: %d bookings -> %d spans, %d bytes (%d bytes of feed JSON)", inv.Bookings(), inv.Spans(), len(blob), len(synth.files["bookings.json"]))
	if len(blob) > 1<<20 {
		t.Errorf("blob is %d bytes, more than 1 MiB", len(blob))
	}
}

func BenchmarkDecodeInventorySynthetic(b *testing.B) {
	c := syntheticCatalog(b)
	blob, _, err := c.BuildInventory(synth.files["bookings.json"], Feed{File: "feed.json"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(blob)), "blob-bytes")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.DecodeInventory(blob); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildInventorySynthetic(b *testing.B) {
	c := syntheticCatalog(b)
	for i := 0; i < b.N; i++ {
		if _, _, err := c.BuildInventory(synth.files["bookings.json"], Feed{File: "feed.json"}); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzDecodeInventory(f *testing.F) {
	c := bundledCatalog(f)
	blob, _ := feedOf(f, c, string(snapshottest.Files(f)["bookings.json"]))
	f.Add(blob)
	empty, _ := feedOf(f, c, `[]`)
	f.Add(empty)
	f.Add([]byte("CVIX\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := c.DecodeInventory(b)
		if err != nil {
			return
		}
		// A blob that decodes re-encodes to one that decodes to the same spans.
		again, err := c.DecodeInventory(c.EncodeInventory(inv))
		if err != nil {
			t.Fatalf("re-encoded blob rejected: %v", err)
		}
		if !reflect.DeepEqual(again.blocked, inv.blocked) || !reflect.DeepEqual(again.blockOff, inv.blockOff) {
			t.Fatal("re-encoded blob decodes to other spans")
		}
		for p := 0; p+1 < len(inv.blockOff); p++ {
			ss := inv.blocked[inv.blockOff[p]:inv.blockOff[p+1]]
			for i, s := range ss {
				if s.from > s.to || s.from < 0 || int(s.to) >= c.calDays || i > 0 && s.from <= ss[i-1].to {
					t.Fatalf("pair %d: bad spans %v", p, ss)
				}
			}
		}
	})
}
