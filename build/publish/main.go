// Command publish turns a reservation feed into the Worker's inventory and writes it to
// the INVENTORY Workers KV namespace (docs/inventory.md):
//
//	go run ./build/publish -feed bookings.json            # the local KV of make dev
//	go run ./build/publish -feed bookings.json -remote    # the deployed namespace
//	go run ./build/publish -feed bookings.json -out inv.bin   # only write the blob
//
// (`make publish FEED=... [REMOTE=1]`.) The feed is validated against the reference data
// bundled in data/ (or -data DIR) with core's own validation: an error names the file,
// the record and the field, and then nothing is written. A valid feed becomes one blob
// (rental.Catalog.BuildInventory) whose version is its content hash; publish writes
// inventory/<version>, then moves inventory/current to it, so no reader sees a half
// state, then writes the same blob to inventory/latest (what an isolate's first read
// takes: one KV round trip). The same feed published twice is a no-op. The version it
// replaces is written again with a one-hour expiry: isolates still switching can read
// it, then it expires.
//
// KV is written with the project's wrangler (build/wrangler.sh): the one client that
// speaks to both the local state of wrangler dev and the deployed namespace.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/data"
)

// Keys of the INVENTORY namespace (read by worker/glue/inventory.mjs).
const (
	pointerKey = "inventory/current"
	// latestKey holds the blob of the version pointerKey names, for an isolate's first
	// read: one KV round trip instead of two (the blob carries its version).
	latestKey  = "inventory/latest"
	blobPrefix = "inventory/"
	// oldTTL is how long a replaced version stays readable.
	oldTTL = 3600
	// defaultSource is the source of a feed that does not say.
	defaultSource = "reservation feed"
)

type options struct {
	feed    string
	dataDir string
	out     string
	remote  bool
	persist string
	config  string
	asOf    string
	source  string
}

func main() {
	var o options
	flag.StringVar(&o.feed, "feed", "", "the reservation feed (JSON): the records of data/bookings.json, or {\"as_of\",\"source\",\"bookings\":[...]}")
	flag.StringVar(&o.dataDir, "data", "", "reference data directory (default: the snapshot bundled from data/)")
	flag.StringVar(&o.out, "out", "", "write the blob to this file and touch no KV")
	flag.BoolVar(&o.remote, "remote", false, "write the deployed namespace (wrangler --remote) instead of make dev's local one")
	flag.StringVar(&o.persist, "persist-to", ".wrangler/state", "local KV state directory (make dev's --persist-to)")
	flag.StringVar(&o.config, "config", "wrangler.toml", "wrangler configuration with the INVENTORY binding")
	flag.StringVar(&o.asOf, "as-of", "", "when the feed was exported, unless it says (default: unknown)")
	flag.StringVar(&o.source, "source", "", "where the feed comes from, unless it says (default: \""+defaultSource+"\")")
	flag.Parse()
	if o.feed == "" {
		fmt.Fprintln(os.Stderr, "publish: -feed is required (make publish FEED=path)")
		os.Exit(2)
	}
	var kv store
	if o.out == "" {
		kv = &wrangler{remote: o.remote, persist: o.persist, config: o.config}
	}
	msg, err := publish(o, kv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
	fmt.Println("publish:", msg)
}

// store is the INVENTORY namespace.
type store interface {
	// get returns the value of key, ok false when there is none.
	get(key string) (value []byte, ok bool, err error)
	// put writes the entries in one call, each with its expiry (0: none).
	put(entries []entry) error
}

type entry struct {
	key   string
	value []byte
	ttl   int
}

// publish validates the feed, builds its blob and writes it (or o.out), and returns
// what it did in one line.
func publish(o options, kv store) (string, error) {
	blob, v, what, err := buildBlob(o)
	if err != nil {
		return "", err
	}
	if kv == nil {
		if err := os.WriteFile(o.out, blob, 0o644); err != nil {
			return "", err
		}
		return what + "; written to " + o.out, nil
	}
	return writeKV(kv, blob, v, what)
}

// buildBlob validates the feed against the reference data, builds its blob and
// decodes it as the Worker will: a blob the Worker would refuse is never written. It
// returns the blob, its version and what it holds in words.
func buildBlob(o options) (blob []byte, version, what string, err error) {
	files := data.Files()
	if o.dataDir != "" {
		var err error
		if files, err = data.ReadDir(o.dataDir); err != nil {
			return nil, "", "", err
		}
	}
	cat, err := rental.LoadCatalog(files)
	if err != nil {
		return nil, "", "", fmt.Errorf("reference data: %v", err)
	}
	feed, err := os.ReadFile(o.feed)
	if err != nil {
		return nil, "", "", err
	}
	// No as_of by default (not the file's time): the same bookings exported again into a
	// new file must give the same version, so that publishing them is a no-op.
	f := rental.Feed{File: filepath.Base(o.feed), AsOf: o.asOf, Source: o.source}
	if f.Source == "" {
		f.Source = defaultSource // not the file's name: exports are often named by their time
	}
	t0 := time.Now()
	blob, inv, err := cat.BuildInventory(feed, f)
	if err != nil {
		return nil, "", "", fmt.Errorf("%v (nothing was written)", err)
	}
	built := time.Since(t0)
	t1 := time.Now()
	if _, err := cat.DecodeInventory(blob); err != nil {
		return nil, "", "", fmt.Errorf("the blob does not decode: %v (nothing was written)", err)
	}
	decoded := time.Since(t1)
	v := inv.Version()
	return blob, v, fmt.Sprintf("inventory %s: %d records, %d booked-out spans, %d bytes (feed %d bytes; built in %v, decoded in %v)",
		v, inv.Bookings(), inv.Spans(), len(blob), len(feed), built.Round(time.Microsecond), decoded.Round(time.Microsecond)), nil
}

// writeKV writes blob, of version v, to the namespace: the blob under its version, the
// pointer, then inventory/latest (or only what is missing when the pointer already
// names v), the previous blob kept for an hour; it returns what (the blob in words)
// and what it did.
func writeKV(kv store, blob []byte, v, what string) (string, error) {
	cur, ok, err := kv.get(pointerKey)
	if err != nil {
		return "", fmt.Errorf("reading %s: %v (nothing was written)", pointerKey, err)
	}
	old := strings.TrimSpace(string(cur))
	if ok && old == v {
		// inventory/latest too? (a namespace published before that key existed, or a
		// publish whose last write failed): written when it does not hold this blob.
		if lat, found, err := kv.get(latestKey); err == nil && found && rental.InventoryVersion(lat) == v {
			return what + "; already current, nothing written", nil
		}
		if err := kv.put([]entry{{key: latestKey, value: blob}}); err != nil {
			return "", fmt.Errorf("%s is already %s, but writing %s failed: %v; isolates read it first and move to %s at their first refresh; run publish again", pointerKey, v, latestKey, err, v)
		}
		return what + "; already current, " + latestKey + " written", nil
	}
	entries := []entry{{key: blobPrefix + v, value: blob}}
	if ok && old != "" {
		if prev, found, err := kv.get(blobPrefix + old); err == nil && found {
			entries = append(entries, entry{key: blobPrefix + old, value: prev, ttl: oldTTL})
		}
	}
	if err := kv.put(entries); err != nil {
		return "", fmt.Errorf("writing %s%s: %v (%s unchanged)", blobPrefix, v, err, pointerKey)
	}
	if err := kv.put([]entry{{key: pointerKey, value: []byte(v)}}); err != nil {
		return "", fmt.Errorf("moving %s to %s: %v", pointerKey, v, err)
	}
	// After the pointer: an isolate's first read takes inventory/latest (one round trip),
	// and written last it is never newer than the pointer, so an isolate never moves back.
	if err := kv.put([]entry{{key: latestKey, value: blob}}); err != nil {
		return "", fmt.Errorf("%s now %s, but writing %s failed: %v; isolates that start now take the previous one and move to %s at their first refresh; run publish again", pointerKey, v, latestKey, err, v)
	}
	was := "none"
	if ok {
		was = old + " (expires in 1 h)"
	}
	return fmt.Sprintf("%s; %s now %s at %s, was %s", what, pointerKey, v, time.Now().UTC().Format(time.RFC3339Nano), was), nil
}

// wrangler is the namespace through build/wrangler.sh kv.
type wrangler struct {
	remote  bool
	persist string
	config  string
}

func (w *wrangler) run(args ...string) ([]byte, error) {
	args = append(args, "--binding", "INVENTORY", "-c", w.config)
	if w.remote {
		args = append(args, "--remote")
	} else {
		args = append(args, "--local", "--persist-to", w.persist)
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(root, "build/wrangler.sh"), append([]string{"kv"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("wrangler kv %s: %v: %s", args[0]+" "+args[1], err, strings.TrimSpace(errb.String()+out.String()))
	}
	return out.Bytes(), nil
}

func (w *wrangler) get(key string) ([]byte, bool, error) {
	out, err := w.run("key", "get", key)
	if err != nil {
		return nil, false, err
	}
	// wrangler prints this (and exits 0) for a missing key; no value of ours is this text.
	if bytes.Equal(bytes.TrimSpace(out), []byte("Value not found")) {
		return nil, false, nil
	}
	return out, true, nil
}

func (w *wrangler) put(entries []entry) error {
	type bulk struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Base64 bool   `json:"base64,omitempty"`
		TTL    int    `json:"expiration_ttl,omitempty"`
	}
	var bs []bulk
	for _, e := range entries {
		bs = append(bs, bulk{Key: e.key, Value: base64.StdEncoding.EncodeToString(e.value), Base64: true, TTL: e.ttl})
	}
	b, err := json.Marshal(bs)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "publish-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		return err
	}
	f.Close()
	_, err = w.run("bulk", "put", f.Name())
	return err
}

// repoRoot finds the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "build/wrangler.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("build/wrangler.sh not found above the working directory")
		}
		dir = parent
	}
}
