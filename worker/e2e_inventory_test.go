//go:build !wasip1 && !js

package main

// The live inventory end to end (-e2e):
//
//   - TestE2EInventoryPublish, under wrangler dev (make dev's settings): a search offers a
//     vehicle; build/publish writes a feed that books every unit of it to the local KV;
//     within 5 s the search leaves it out, a quote for it is a 404 giving the booked-out
//     dates and X-Inventory-Version is the new version. Then a bad feed: publish exits
//     non-zero naming the record and field, and KV and the answers are unchanged.
//   - TestE2EInventoryKV, on raw workerd with the INVENTORY namespace served by this test
//     (workerd speaks HTTP to a KV service): the first request already has the current
//     inventory; with KV failing, answers go on from the last version, logged once; a
//     refused blob keeps the version serving; when KV is back the next version serves.
//   - TestE2EInventoryFirstRead and TestE2EInventoryLatest: what waits for an isolate's
//     first read, and that read's keys (inventory/latest alone, or the pointer and its
//     blob when latest is missing or refused).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/campervan/agent-api/core/abi"
	"github.com/campervan/agent-api/core/rental"
)

const (
	e2eSearch = "/api/agent/vehicles/availability?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20"
	e2eQuote  = "/api/agent/quotes?pick_up_depot_id=1&drop_off_depot_id=1&pick_up_date=2027-03-10&drop_off_date=2027-03-20&vehicle_id="
)

// offeredIDs returns the vehicle ids of an availability answer.
func offeredIDs(t *testing.T, body []byte) map[int64]bool {
	t.Helper()
	var offers []struct {
		VehicleID int64 `json:"vehicleId"`
	}
	if err := json.Unmarshal(body, &offers); err != nil {
		t.Fatalf("availability body: %v: %s", err, body)
	}
	m := map[int64]bool{}
	for _, o := range offers {
		m[o.VehicleID] = true
	}
	return m
}

// buildPublish compiles build/publish once for the test.
func buildPublish(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs("..")
	bin := filepath.Join(t.TempDir(), "publish")
	cmd := exec.Command("go", "build", "-o", bin, "./build/publish")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./build/publish: %v\n%s", err, out)
	}
	return bin
}

func TestE2EInventoryPublish(t *testing.T) {
	needE2E(t)
	root, _ := filepath.Abs("..")
	pub := buildPublish(t)
	d := startDev(t, "wrangler.toml", "--var", "INVENTORY_REFRESH_SECONDS:2")
	get := func(target string) abi.DecodedResponse {
		return d.do(t, abi.Request{Method: "GET", Target: target, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.13"}}})
	}
	before := get(e2eSearch)
	if before.Status != 200 || !strings.HasPrefix(before.Header("x-inventory-version"), "bundled-") {
		t.Fatalf("before: %d, x-inventory-version %q", before.Status, before.Header("x-inventory-version"))
	}
	const vehicle = 3
	if !offeredIDs(t, before.Body)[vehicle] {
		t.Fatalf("vehicle %d is not offered before the publish: %s", vehicle, before.Body)
	}
	dir := t.TempDir()
	publish := func(feed string) (string, error) {
		path := filepath.Join(dir, "feed.json")
		if err := os.WriteFile(path, []byte(feed), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(pub, "-feed", path, "-persist-to", d.persist, "-config", filepath.Join(root, "wrangler.toml"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// Every unit of the vehicle at depot 1 for the searched dates (more units than the fleet).
	feed := fmt.Sprintf(`{"as_of":"2026-11-23T09:00:00Z","source":"e2e","bookings":[{"id":1,"vehicle_id":%d,"depot_id":1,"pick_up_date":"2027-03-09","drop_off_date":"2027-03-21","units":50}]}`, vehicle)
	out, err := publish(feed)
	published := time.Now()
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	i := strings.Index(out, "inventory ")
	if i < 0 || len(out) < i+10+16 {
		t.Fatalf("publish printed no version: %s", out)
	}
	version := out[i+10 : i+10+16]
	var after abi.DecodedResponse
	for {
		after = get(e2eSearch)
		if after.Header("x-inventory-version") == version {
			break
		}
		if time.Since(published) > 5*time.Second {
			t.Fatalf("5 s after the publish the search still answers from %q, want %q", after.Header("x-inventory-version"), version)
		}
		time.Sleep(50 * time.Millisecond)
	}
	seen := time.Now()
	if m := regexp.MustCompile(`inventory/current now [0-9a-f]{16} at (\S+),`).FindStringSubmatch(out); m != nil {
		if at, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			t.Logf("publish -> visible: %v after the pointer was written (%v after build/publish exited)", seen.Sub(at).Round(time.Millisecond), seen.Sub(published).Round(time.Millisecond))
		}
	}
	if after.Status != 200 || offeredIDs(t, after.Body)[vehicle] {
		t.Errorf("after the publish the search still offers vehicle %d: %s", vehicle, after.Body)
	}
	if after.Header("etag") == before.Header("etag") {
		t.Error("the availability ETag did not change with the version")
	}
	q := get(e2eQuote + strconv.Itoa(vehicle))
	if q.Status != 404 || !strings.Contains(string(q.Body), "booked out") || !strings.Contains(string(q.Body), "2027-03-09 to 2027-03-21") || q.Header("x-inventory-version") != version {
		t.Errorf("quote after the publish: %d, version %q: %s; want a 404 giving 2027-03-09 to 2027-03-21", q.Status, q.Header("x-inventory-version"), q.Body)
	}
	idx := get("/api/agent/")
	if !strings.Contains(string(idx.Body), `"inventory":{"version":"`+version+`","asOf":"2026-11-23T09:00:00Z","bookings":1,`) {
		t.Errorf("index: %s", idx.Body)
	}

	// A bad feed: refused with the record and field, nothing written, answers unchanged.
	bad := strings.Replace(feed, fmt.Sprintf(`"vehicle_id":%d`, vehicle), `"vehicle_id":777`, 1)
	out, err = publish(bad)
	if err == nil || !strings.Contains(out, `feed.json: bookings record 0 (id 1): field "vehicle_id": vehicle 777 does not exist`) || !strings.Contains(out, "nothing was written") {
		t.Errorf("publish of a bad feed: err %v, output %s", err, out)
	}
	cmd := exec.Command(filepath.Join(root, "build/wrangler.sh"), "kv", "key", "get", "inventory/current", "--text",
		"--binding", "INVENTORY", "--local", "--persist-to", d.persist, "-c", "wrangler.toml")
	cmd.Dir = root
	cur, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(cur)) != version {
		t.Errorf("inventory/current after the bad feed: %q (%v), want %s", cur, err, version)
	}
	// inventory/latest holds the same blob (what an isolate's first read takes).
	cmd = exec.Command(filepath.Join(root, "build/wrangler.sh"), "kv", "key", "get", "inventory/latest",
		"--binding", "INVENTORY", "--local", "--persist-to", d.persist, "-c", "wrangler.toml")
	cmd.Dir = root
	if latest, err := cmd.Output(); err != nil || rental.InventoryVersion(latest) != version {
		t.Errorf("inventory/latest after the publish: %d bytes of version %s (%v), want the blob of %s", len(latest), rental.InventoryVersion(latest), err, version)
	}
	time.Sleep(2500 * time.Millisecond) // past one refresh
	if r := get(e2eSearch); r.Header("x-inventory-version") != version || offeredIDs(t, r.Body)[vehicle] {
		t.Errorf("after the bad feed: version %q, want %q unchanged", r.Header("x-inventory-version"), version)
	}
}

// kvService is a KV namespace for workerd's kvNamespace binding (GET /<key>), served by
// the test: it can fail every read.
type kvService struct {
	mu     sync.Mutex
	values map[string][]byte
	fail   bool
	reads  int
	keys   []string // every key read, in order
	// gates hold the reads of a key until the test closes the channel.
	gates map[string]chan struct{}
}

// read returns the keys read so far, in order.
func (k *kvService) read() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.keys...)
}

func (k *kvService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	k.mu.Lock()
	gate := k.gates[key]
	k.mu.Unlock()
	if gate != nil {
		<-gate
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reads++
	k.keys = append(k.keys, key)
	if k.fail {
		http.Error(w, "KV is down (test)", 500)
		return
	}
	v, ok := k.values[key]
	if r.Method != "GET" || !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(v)
}

func (k *kvService) set(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f()
}

// startWorkerdKV runs the shipped bundle on raw workerd with INVENTORY bound to kv.
func startWorkerdKV(t *testing.T, kv http.Handler, vars map[string]string) (*devServer, string) {
	t.Helper()
	srv := httptest.NewServer(kv)
	t.Cleanup(srv.Close)
	d := startWorkerdWithKV(t, "INVENTORY", strings.TrimPrefix(srv.URL, "http://"), vars)
	return d, d.log.Name()
}

func TestE2EInventoryKV(t *testing.T) {
	needE2E(t)
	booked, invA := inventoryBlob(t, testFeed) // vehicle 3 booked out at depot 1 in March 2027
	empty, invB := inventoryBlob(t, `[]`)
	kv := &kvService{values: map[string][]byte{
		"inventory/current":           []byte(invA.Version()),
		"inventory/" + invA.Version(): booked,
	}}
	d, logPath := startWorkerdKV(t, kv, map[string]string{"INVENTORY_REFRESH_SECONDS": "1"})
	get := func() abi.DecodedResponse {
		return d.do(t, abi.Request{Method: "GET", Target: e2eSearch, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.14"}}})
	}
	// The isolate's first request waits (at most 1 s) for the current inventory.
	r := get()
	if r.Header("x-inventory-version") != invA.Version() || offeredIDs(t, r.Body)[3] {
		t.Fatalf("first request: version %q, want %q with vehicle 3 booked out", r.Header("x-inventory-version"), invA.Version())
	}
	// No inventory/latest here (a namespace published before it existed): the first read
	// goes on to the pointer and the blob it names.
	if k := kv.read(); len(k) < 3 || k[0] != "inventory/latest" || k[1] != "inventory/current" || k[2] != "inventory/"+invA.Version() {
		t.Fatalf("the first read's keys: %q, want inventory/latest, inventory/current, inventory/%s", k, invA.Version())
	}
	// KV fails: the answers go on from A, and the failure is logged once.
	kv.set(func() { kv.fail = true; kv.values["inventory/current"] = []byte(invB.Version()) })
	deadline := time.Now().Add(3500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if r := get(); r.Status != 200 || r.Header("x-inventory-version") != invA.Version() || offeredIDs(t, r.Body)[3] {
			t.Fatalf("with KV failing: %d, version %q, want %q unchanged", r.Status, r.Header("x-inventory-version"), invA.Version())
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(logPath)
	if n := strings.Count(string(log), "inventory KV read failed"); n != 1 {
		t.Errorf("the KV failure was logged %d times, want once:\n%s", n, log)
	}
	// The operator hears that inventory/latest is missing (publish again), once.
	if n := strings.Count(string(log), "inventory/latest is missing from KV"); n != 1 {
		t.Errorf("the missing inventory/latest was logged %d times, want once:\n%s", n, log)
	}
	// KV back, pointing at a blob the module refuses: A still serves.
	kv.set(func() {
		kv.fail = false
		kv.values["inventory/current"] = []byte("0123456789abcdef")
		kv.values["inventory/0123456789abcdef"] = []byte("CVIX\x01 not an inventory")
	})
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if r := get(); r.Status != 200 || r.Header("x-inventory-version") != invA.Version() {
			t.Fatalf("after a bad blob: %d, version %q, want %q", r.Status, r.Header("x-inventory-version"), invA.Version())
		}
		log, _ = os.ReadFile(logPath)
		if strings.Contains(string(log), "inventory/0123456789abcdef refused") && strings.Contains(string(log), "refused, still serving "+invA.Version()) {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("no log line for the refused blob after 5 s:\n%s", log)
		}
	}
	// The next good version: it serves within two refreshes.
	kv.set(func() {
		kv.values["inventory/current"] = []byte(invB.Version())
		kv.values["inventory/"+invB.Version()] = empty
	})
	moved := time.Now()
	for {
		r := get()
		if r.Header("x-inventory-version") == invB.Version() {
			if !offeredIDs(t, r.Body)[3] {
				t.Error("the empty inventory still books out vehicle 3")
			}
			break
		}
		if time.Since(moved) > 5*time.Second {
			t.Fatalf("5 s after the pointer moved: version %q, want %q", r.Header("x-inventory-version"), invB.Version())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("pointer moved -> visible: %v (INVENTORY_REFRESH_SECONDS 1)", time.Since(moved).Round(time.Millisecond))
}

// TestE2EInventoryFirstRead: while an isolate's first read of the live inventory is
// under way, the requests whose answer reads the bookings wait for it (all of them, not
// only the first), and the others are answered at once from the bundled reference data.
func TestE2EInventoryFirstRead(t *testing.T) {
	needE2E(t)
	booked, invA := inventoryBlob(t, testFeed) // vehicle 3 booked out at depot 1 in March 2027
	gate := make(chan struct{})
	kv := &kvService{
		values: map[string][]byte{"inventory/current": []byte(invA.Version()), "inventory/" + invA.Version(): booked, "inventory/latest": booked},
		gates:  map[string]chan struct{}{"inventory/latest": gate},
	}
	d, _ := startWorkerdKV(t, kv, nil)
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(gate) }) }) // before the KV server's Close, which waits for held reads
	ip := []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.15"}}
	// The depots do not read the bookings: answered while the blob's read is held, so
	// before the glue's bound on the wait (1 s), by the bundled data.
	start := time.Now()
	r := d.do(t, abi.Request{Method: "GET", Target: "/api/agent/depots", Headers: ip})
	took := time.Since(start)
	if r.Status != 200 || !strings.HasPrefix(r.Header("x-inventory-version"), "bundled-") || took >= time.Second {
		t.Fatalf("depots during the first read: %d, version %q, after %v; want 200 from the bundled data, before the 1-s bound", r.Status, r.Header("x-inventory-version"), took)
	}
	// Two searches sent while the read is held: both wait, and both get the live
	// inventory once it is released.
	type answer struct {
		status  int
		version string
		body    []byte
	}
	got := make(chan answer, 2)
	for i := 0; i < 2; i++ {
		go func() {
			req, _ := http.NewRequest("GET", d.base+e2eSearch, nil)
			req.Header.Set("cf-connecting-ip", "198.51.100.16")
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				got <- answer{status: -1, version: err.Error()}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got <- answer{resp.StatusCode, resp.Header.Get("x-inventory-version"), b}
		}()
	}
	select {
	case a := <-got:
		t.Fatalf("a search was answered (%d, version %q) while the first inventory read was held", a.status, a.version)
	case <-time.After(150 * time.Millisecond):
	}
	release.Do(func() { close(gate) })
	for i := 0; i < 2; i++ {
		a := <-got
		if a.status != 200 || a.version != invA.Version() || offeredIDs(t, a.body)[3] {
			t.Errorf("search %d after the read: %d, version %q; want 200 from %s, vehicle 3 booked out", i+1, a.status, a.version, invA.Version())
		}
	}
	// One KV round trip: inventory/latest holds the blob, which names its version (the
	// next read, of the pointer alone, is a refresh 15 s later).
	if k := kv.read(); len(k) != 1 || k[0] != "inventory/latest" {
		t.Errorf("the first read's keys: %q, want inventory/latest alone", k)
	}
	t.Logf("depots answered in %v during the first read", took.Round(time.Millisecond))
}

// TestE2EInventoryLatest: an isolate's first read takes inventory/latest, and the pointer
// stays the authority: a refused latest goes on to the pointer's blob at once; a latest
// behind the pointer (a publish whose last write failed) serves first, and the pointer's
// version within a refresh; a latest at the pointer's version is never read again under
// its own key.
func TestE2EInventoryLatest(t *testing.T) {
	needE2E(t)
	booked, invA := inventoryBlob(t, testFeed) // vehicle 3 booked out at depot 1 in March 2027
	empty, invB := inventoryBlob(t, `[]`)
	blobA := "inventory/" + invA.Version()
	for _, c := range []struct {
		name   string
		latest []byte
		first  string   // the version of the first search
		keys   []string // the keys of the first read
		log    string   // a line the log must have
	}{
		// The first version over the bundled one is not logged (setInventory); a change
		// from one live version to another is.
		{"the pointer's version", booked, invA.Version(), []string{"inventory/latest"}, ""},
		{"refused", []byte("CVIX\x01 not an inventory"), invA.Version(), []string{"inventory/latest", "inventory/current", blobA}, "inventory/latest refused"},
		{"behind the pointer", empty, invB.Version(), []string{"inventory/latest"}, `"inventory ` + invA.Version() + ` serving, was ` + invB.Version() + `"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			kv := &kvService{values: map[string][]byte{"inventory/current": []byte(invA.Version()), blobA: booked, "inventory/latest": c.latest}}
			d, logPath := startWorkerdKV(t, kv, map[string]string{"INVENTORY_REFRESH_SECONDS": "1"})
			get := func() abi.DecodedResponse {
				return d.do(t, abi.Request{Method: "GET", Target: e2eSearch, Headers: []abi.Header{{Name: "cf-connecting-ip", Value: "198.51.100.17"}}})
			}
			if r := get(); r.Status != 200 || r.Header("x-inventory-version") != c.first {
				t.Fatalf("first search: %d, version %q, want %q", r.Status, r.Header("x-inventory-version"), c.first)
			}
			if k := kv.read(); strings.Join(k, " ") != strings.Join(c.keys, " ") {
				t.Errorf("the first read's keys: %q, want %q", k, c.keys)
			}
			// Within two refreshes every answer is from the pointer's version, A.
			for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
				r := get()
				if r.Header("x-inventory-version") == invA.Version() && !offeredIDs(t, r.Body)[3] {
					break
				}
				if time.Since(start) > 3*time.Second {
					t.Fatalf("3 s after the first read: version %q, want the pointer's %q", r.Header("x-inventory-version"), invA.Version())
				}
			}
			// A refresh starts with a request: 2.5 s of them, past two more refreshes.
			for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if r := get(); r.Header("x-inventory-version") != invA.Version() {
					t.Fatalf("after the switch to the pointer's version: %q", r.Header("x-inventory-version"))
				}
			}
			reads := kv.read()
			blobReads := 0
			for _, k := range reads[len(c.keys):] {
				if k != "inventory/current" {
					blobReads++
				}
			}
			// A refresh reads the pointer; the blob only when the pointer names another
			// version than the one serving: once when latest was behind, else never.
			if want := map[bool]int{true: 1, false: 0}[c.first != invA.Version()]; blobReads != want || len(reads) < len(c.keys)+2 {
				t.Errorf("reads after the first: %q; want the pointer each refresh and %d blob read(s)", reads[len(c.keys):], want)
			}
			log, _ := os.ReadFile(logPath)
			if c.log != "" && !strings.Contains(string(log), c.log) {
				t.Errorf("the log has no %s:\n%s", c.log, log)
			}
			if n := strings.Count(string(log), " serving, was "); n != map[bool]int{true: 1, false: 0}[c.name == "behind the pointer"] {
				t.Errorf("%d changes of version logged:\n%s", n, log)
			}
			if n := strings.Count(string(log), "refused"); c.name != "refused" && n != 0 {
				t.Errorf("%d refusals logged:\n%s", n, log)
			}
			if strings.Contains(string(log), "is missing from KV") {
				t.Errorf("a missing key logged with inventory/latest in KV:\n%s", log)
			}
		})
	}
}
