package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

// fakeKV records every write, in order.
type fakeKV struct {
	values map[string][]byte
	writes []entry
}

func (k *fakeKV) get(key string) ([]byte, bool, error) {
	v, ok := k.values[key]
	return v, ok, nil
}

func (k *fakeKV) put(es []entry) error {
	for _, e := range es {
		k.values[e.key] = e.value
		k.writes = append(k.writes, e)
	}
	return nil
}

func writeFeed(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "feed.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPublish(t *testing.T) {
	dir := t.TempDir()
	kv := &fakeKV{values: map[string][]byte{}}
	o := options{feed: writeFeed(t, dir, string(data.Files()["bookings.json"])), asOf: "2026-11-23T00:00:00Z"}
	msg, err := publish(o, kv)
	if err != nil {
		t.Fatal(err)
	}
	if len(kv.writes) != 2 || kv.writes[1].key != pointerKey || kv.writes[0].key != blobPrefix+string(kv.writes[1].value) || kv.writes[0].ttl != 0 {
		t.Fatalf("first publish wrote %+v, want the blob then the pointer", kv.writes)
	}
	first := string(kv.values[pointerKey])
	cat, err := rental.LoadCatalog(data.Files())
	if err != nil {
		t.Fatal(err)
	}
	if inv, err := cat.DecodeInventory(kv.values[blobPrefix+first]); err != nil || inv.Version() != first || inv.Source() != defaultSource {
		t.Fatalf("the blob written does not decode to its version: %v", err)
	}
	t.Log(msg)

	// The same feed again: nothing written.
	if msg, err = publish(o, kv); err != nil || len(kv.writes) != 2 || !strings.Contains(msg, "already current") {
		t.Fatalf("same feed twice: %v, %d writes, %s", err, len(kv.writes), msg)
	}

	// Another feed: its blob and the old one (1 h) in one write, then the pointer.
	o.feed = writeFeed(t, dir, `[]`)
	if _, err = publish(o, kv); err != nil {
		t.Fatal(err)
	}
	w := kv.writes[2:]
	if len(w) != 3 || w[1].key != blobPrefix+first || w[1].ttl != oldTTL || w[2].key != pointerKey || string(w[2].value) == first {
		t.Fatalf("second publish wrote %+v", w)
	}

	// A bad feed: an error naming the record and field, nothing written.
	o.feed = writeFeed(t, dir, `[{"id":9,"vehicle_id":7,"depot_id":1,"pick_up_date":"2027-01-01","drop_off_date":"2027-01-05","units":"two"}]`)
	n := len(kv.writes)
	_, err = publish(o, kv)
	if err == nil || !strings.Contains(err.Error(), `feed.json: record 0 (id 9): field "units": must be a positive integer`) || !strings.Contains(err.Error(), "nothing was written") || len(kv.writes) != n {
		t.Fatalf("bad feed: %v, %d writes", err, len(kv.writes)-n)
	}

	// -out writes the blob only.
	o.feed = writeFeed(t, dir, `[]`)
	o.out = filepath.Join(dir, "inv.bin")
	if _, err = publish(o, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(o.out); err != nil || rental.InventoryVersion(b) != string(kv.values[pointerKey]) {
		t.Fatalf("-out: %v", err)
	}
}
