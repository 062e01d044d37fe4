//go:build wasip1 && memstats

package main

import "runtime"

// mallocs returns the heap allocations so far. Only in -tags memstats builds, for
// profiling: the wazero benchmarks report wasm-mallocs/op when it is there
// (tinygo build ... -tags memstats -o /tmp/ms.wasm ./worker; go test -bench Wasm ./worker -wasm /tmp/ms.wasm).
//
//go:wasmexport mallocs
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// heap returns the bytes allocated so far (TotalAlloc). Only in -tags memstats builds.
//
//go:wasmexport heap
func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}
