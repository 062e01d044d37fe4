// Package data holds the bundled snapshot of the upstream reservation system. No logic.
package data

import _ "embed"

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
	}
}
