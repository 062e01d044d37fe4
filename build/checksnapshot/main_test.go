package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/campervan/agent-api/data"
)

// TestSnapshotValid is the bundled snapshot's check at test time (make build runs the
// same check before compiling the module).
func TestSnapshotValid(t *testing.T) {
	_, msg, err := check(data.Files())
	if err != nil {
		t.Fatalf("bundled snapshot: %v", err)
	}
	t.Log(msg)
}

// TestBadSnapshotFailsTheCheck corrupts copies of the data and requires the command to
// exit non-zero naming the problem: bad data fails the build, never a request.
func TestBadSnapshotFailsTheCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run")
	}
	for _, c := range []struct {
		name, file, from, to, want string
	}{
		{"negative-rate", "vehicles.json", `"low": 5900`, `"low": -5900`, "vehicles.json"},
		{"booking-of-unknown-vehicle", "bookings.json", `"vehicle_id": 7,`, `"vehicle_id": 777,`, "bookings.json"},
		{"not-json", "depots.json", `[`, `[[`, "depots.json"},
		{"max-hire-zero", "policy.json", `"max_hire_days": 90`, `"max_hire_days": 0`, "max_hire_days"},
		{"terms-share-goes-down", "terms.json", `"percent_of_total": 50,`, `"percent_of_total": 10,`, `terms.json: cancellation record 2: field "percent_of_total"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := data.Files()[c.file]; !ok {
				t.Fatalf("the snapshot has no %s", c.file)
			}
			for name, b := range data.Files() {
				if name == c.file {
					s := string(b)
					if !strings.Contains(s, c.from) {
						t.Fatalf("%s no longer contains %q: the case needs a new corruption to apply", c.file, c.from)
					}
					b = []byte(strings.Replace(s, c.from, c.to, 1))
				}
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command("go", "run", ".", dir).CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("go run ./build/checksnapshot %s: err %v, output %s (want a failure naming %q)", c.file, err, out, c.want)
			}
			t.Logf("%s", strings.TrimSpace(string(out)))
		})
	}
}
