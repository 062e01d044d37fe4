//go:build wasip1 && trapdemo

package main

// A test-only build (tinygo build -tags trapdemo): any path ending in /__trap panics,
// which traps the instance (TinyGo cannot recover on wasm). TestE2ETrapRecovery runs
// it under wrangler dev to prove that the glue answers 500 and that the next requests
// get a fresh instance. The shipped build has no such route (TestNoTrapRouteShipped).

import "github.com/campervan/agent-api/core/abi"

func init() {
	trapHook = func(r *abi.Request) {
		path := r.Target
		for i := 0; i < len(path); i++ {
			if path[i] == '?' {
				path = path[:i]
				break
			}
		}
		const suffix = "/__trap"
		if len(path) >= len(suffix) && path[len(path)-len(suffix):] == suffix {
			panic("trapdemo: deliberate panic on " + suffix)
		}
	}
}
