package main

import (
	"fmt"
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
	fail   string // a put of this key fails
}

func (k *fakeKV) get(key string) ([]byte, bool, error) {
	v, ok := k.values[key]
	return v, ok, nil
}

func (k *fakeKV) put(es []entry) error {
	for _, e := range es {
		if e.key == k.fail {
			return fmt.Errorf("put %s: KV is down (test)", e.key)
		}
	}
	for _, e := range es {
		k.values[e.key] = e.value
		k.writes = append(k.writes, e)
	}
	return nil
}

// keys lists the keys of writes, with their TTLs.
func keys(es []entry) []string {
	var ks []string
	for _, e := range es {
		ks = append(ks, fmt.Sprintf("%s (ttl %d)", e.key, e.ttl))
	}
	return ks
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
	if len(kv.writes) != 3 || kv.writes[1].key != pointerKey || kv.writes[0].key != blobPrefix+string(kv.writes[1].value) || kv.writes[0].ttl != 0 ||
		kv.writes[2].key != latestKey || string(kv.writes[2].value) != string(kv.writes[0].value) || kv.writes[2].ttl != 0 {
		t.Fatalf("first publish wrote %v, want the blob, the pointer, then the blob again as %s", keys(kv.writes), latestKey)
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
	if msg, err = publish(o, kv); err != nil || len(kv.writes) != 3 || !strings.Contains(msg, "already current, nothing written") {
		t.Fatalf("same feed twice: %v, %d writes, %s", err, len(kv.writes), msg)
	}
	// A namespace without inventory/latest (published before it existed): the same feed
	// writes it, and only it.
	delete(kv.values, latestKey)
	if msg, err = publish(o, kv); err != nil || len(kv.writes) != 4 || kv.writes[3].key != latestKey || rental.InventoryVersion(kv.writes[3].value) != first ||
		!strings.Contains(msg, "already current, "+latestKey+" written") {
		t.Fatalf("same feed, no %s: %v, writes %v, %s", latestKey, err, keys(kv.writes[3:]), msg)
	}

	// Another feed: its blob and the old one (1 h) in one write, then the pointer, then latest.
	o.feed = writeFeed(t, dir, `[]`)
	if _, err = publish(o, kv); err != nil {
		t.Fatal(err)
	}
	w := kv.writes[4:]
	second := string(kv.values[pointerKey])
	if len(w) != 4 || w[0].key != blobPrefix+second || w[1].key != blobPrefix+first || w[1].ttl != oldTTL || w[2].key != pointerKey || second == first ||
		w[3].key != latestKey || rental.InventoryVersion(w[3].value) != second {
		t.Fatalf("second publish wrote %v", keys(w))
	}

	// The last write fails: the pointer has moved, the error says inventory/latest is
	// behind and to publish again, which writes it.
	o.feed = writeFeed(t, dir, `[{"id":1,"vehicle_id":3,"depot_id":1,"pick_up_date":"2027-03-01","drop_off_date":"2027-03-05","units":1}]`)
	kv.fail = latestKey
	_, err = publish(o, kv)
	third := string(kv.values[pointerKey])
	if err == nil || third == second || !strings.Contains(err.Error(), pointerKey+" now "+third+", but writing "+latestKey+" failed") || !strings.Contains(err.Error(), "run publish again") ||
		rental.InventoryVersion(kv.values[latestKey]) != second {
		t.Fatalf("latest failing: %v (pointer %s)", err, third)
	}
	kv.fail = ""
	if msg, err := publish(o, kv); err != nil || rental.InventoryVersion(kv.values[latestKey]) != third || !strings.Contains(msg, latestKey+" written") {
		t.Fatalf("publish again after latest failed: %v, %s", err, msg)
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
	if b, err := os.ReadFile(o.out); err != nil || rental.InventoryVersion(b) != second { // the blob of `[]`, as published second
		t.Fatalf("-out: %v", err)
	}
}
