// Package data holds the bundled snapshot of the upstream reservation system. No logic
// beyond reading it: Files (embedded) and ReadDir (another snapshot on disk, for the
// build tools).
package data

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

//go:embed depots.json
var depots []byte

//go:embed vehicles.json
var vehicles []byte

//go:embed seasons.json
var seasons []byte

//go:embed routes.json
var routes []byte

//go:embed extras.json
var extras []byte

//go:embed bookings.json
var bookings []byte

//go:embed policy.json
var policy []byte

//go:embed terms.json
var terms []byte

// Files returns the snapshot files by name (e.g. "depots.json").
func Files() map[string][]byte {
	return map[string][]byte{
		"depots.json":   depots,
		"vehicles.json": vehicles,
		"seasons.json":  seasons,
		"routes.json":   routes,
		"extras.json":   extras,
		"bookings.json": bookings,
		"policy.json":   policy,
		"terms.json":    terms,
	}
}

// ReadDir reads the *.json files of dir by base name, in the form of Files: another
// snapshot (build/checksnapshot) or a bookings feed (build/publish).
func ReadDir(dir string) (map[string][]byte, error) {
	ms, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%s has no *.json files", dir)
	}
	files := map[string][]byte{}
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(m)] = b
	}
	return files, nil
}
