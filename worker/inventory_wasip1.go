package main

import (
	"github.com/campervan/agent-api/core/api"
	"github.com/campervan/agent-api/core/rental"
)

// setInventory hands blob to the server (api.Server.SetInventory) and logs the outcome.
// It returns 0 when the blob serves, 1 when it was refused and the previous inventory
// still serves, and the blob's version either way (its content hash; the inventory
// export reports it to the glue).
//
// A refusal is always logged. A blob taken is logged only when it replaces another live
// version (a publish reaching a running isolate), not the bundled bookings: that is
// every isolate's first read, on the cold start's path, where an isolate's first
// console.log is costly. Every answer's X-Inventory-Version names the version serving.
// The log lines are made out of line, so that the inventory export V8 compiles whole
// on an isolate's first read stays small.
func setInventory(s *api.Server, blob []byte, logf func(string)) (uint32, string) {
	was := s.InventoryVersion()
	if err := s.SetInventory(blob); err != nil {
		return 1, logRefused(blob, was, err, logf)
	}
	v := s.InventoryVersion()
	if v != was && !rental.BundledVersion(was) {
		logChanged(v, was, logf)
	}
	return 0, v
}

// logRefused logs a refused blob and returns its version.
//
//go:noinline
func logRefused(blob []byte, was string, err error, logf func(string)) string {
	v := rental.InventoryVersion(blob)
	logf(errorLine("inventory " + v + " refused, still serving " + was + ": " + err.Error()))
	return v
}

// logChanged logs a live version replacing another.
//
//go:noinline
func logChanged(v, was string, logf func(string)) {
	logf(`{"level":"info","msg":"inventory ` + v + ` serving, was ` + was + `"}`)
}
