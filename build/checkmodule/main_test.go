package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	within := bundle{wasmName: "app.wasm", glueName: "worker.mjs", gzipped: 140_000, initial: 49 * pageBytes, renewMiB: 24, renewFrom: "the glue's RENEW_MIB"}
	cases := []struct {
		name string
		b    func(b bundle) bundle
		plan string
		want []string // one substring per problem, in order; none: within the limits
	}{
		{"within", func(b bundle) bundle { return b }, "free", nil},
		{"free plan, 1 MiB over", func(b bundle) bundle { b.gzipped = 4 * mib; return b }, "free",
			[]string{"script size: app.wasm + worker.mjs are 4.00 MiB (4194304 bytes) gzipped, 1048576 bytes (33.3%) over the Workers free plan's limit of 3.00 MiB (3145728 bytes) (compressed); on the Paid plan (limit 10.00 MiB (10485760 bytes)): make build WORKERS_PLAN=paid"}},
		{"paid plan takes it", func(b bundle) bundle { b.gzipped = 4 * mib; return b }, "paid", nil}, // the summary says Paid only: TestCheckPaidOnly
		{"paid plan, over", func(b bundle) bundle { b.gzipped = 10*mib + 1; return b }, "paid",
			[]string{"1 bytes (0.0%) over the Workers paid plan's limit of 10.00 MiB"}},
		{"memory: twice the initial memory", func(b bundle) bundle { b.initial = 44 * mib; return b }, "free",
			[]string{"isolate memory: the module starts at 44.00 MiB (46137344 bytes) of memory and the glue renews an instance at 88.00 MiB (92274688 bytes) (the first doubling of it at or past 88.00 MiB (92274688 bytes), twice the initial memory); " +
				"with the fresh instance beside the old one while it takes over, 132.00 MiB (138412032 bytes), 4194304 bytes (3.1%) over the isolate's limit of 128.00 MiB"}},
		{"memory: the configured threshold, passed by doubling", func(b bundle) bundle {
			b.initial, b.renewMiB, b.renewFrom = 5*mib, 90, "INSTANCE_MEMORY_MIB"
			return b
		}, "free",
			[]string{"renews an instance at 160.00 MiB (167772160 bytes) (the first doubling of it at or past 90.00 MiB (94371840 bytes), INSTANCE_MEMORY_MIB); " +
				"with the fresh instance beside the old one while it takes over, 165.00 MiB (173015040 bytes), 38797312 bytes (28.9%) over"}},
		{"both", func(b bundle) bundle { b.gzipped, b.initial = 5*mib, 50*mib; return b }, "free", []string{"script size:", "isolate memory:"}},
		{"unknown plan", func(b bundle) bundle { return b }, "pro", []string{`-plan is free or paid, not "pro"`}},
		{"the pull within", func(b bundle) bundle {
			b.feedMax, b.feedFrom, b.heapPerFeedByte = 16*mib, "FEED_MAX_BYTES", 2.5
			return b
		}, "free", nil},
		{"the pull over", func(b bundle) bundle {
			b.feedMax, b.feedFrom, b.heapPerFeedByte = 32*mib, "FEED_MAX_BYTES", 2.5
			return b
		}, "free",
			[]string{"isolate memory during the scheduled pull: a feed of up to 32.00 MiB (33554432 bytes) (FEED_MAX_BYTES) is built in an instance of 83.06 MiB (87097344 bytes), which with the feed's bytes in JS and the serving instance at its most (27.56 MiB (28901376 bytes)) comes to 142.62 MiB (149553152 bytes), 15335424 bytes (11.4%) over the isolate's limit of 128.00 MiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			summary, problems := check(c.b(within), c.plan)
			if len(problems) != len(c.want) {
				t.Fatalf("problems %q, want %d", problems, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(problems[i], w) {
					t.Errorf("problem %d:\n%s\nwant it to contain\n%s", i, problems[i], w)
				}
			}
			if len(c.want) == 0 && !strings.Contains(summary, "of the isolate's 128 MiB") {
				t.Errorf("summary %q", summary)
			}
		})
	}
}

// TestCheckRenewal: the instance is renewed at the first doubling of its initial memory
// at or past the threshold (TinyGo grows the memory by doubling it).
func TestCheckRenewal(t *testing.T) {
	for _, c := range []struct {
		pages, renewMiB int
		want            string
	}{
		{48, 24, "initial 3.00 MiB (0 bytes of data segments), renewed at 24.00 MiB (threshold 24.00 MiB, RENEW_MIB), at most 27.00 MiB"},
		{49, 24, "initial 3.06 MiB (0 bytes of data segments), renewed at 24.50 MiB (threshold 24.00 MiB, RENEW_MIB), at most 27.56 MiB"},
		{77, 24, "initial 4.81 MiB (0 bytes of data segments), renewed at 38.50 MiB (threshold 24.00 MiB, RENEW_MIB), at most 43.31 MiB"},
		{320, 24, "initial 20.00 MiB (0 bytes of data segments), renewed at 40.00 MiB (threshold 40.00 MiB, twice the initial memory), at most 60.00 MiB"},
	} {
		t.Run(fmt.Sprint(c.pages), func(t *testing.T) {
			summary, problems := check(bundle{initial: c.pages * pageBytes, renewMiB: c.renewMiB, renewFrom: "RENEW_MIB"}, "free")
			if len(problems) > 0 || !strings.Contains(summary, c.want) {
				t.Errorf("summary %q, problems %q; want %q", summary, problems, c.want)
			}
		})
	}
}

func TestMemoryOf(t *testing.T) {
	module := []byte("\x00asm\x01\x00\x00\x00")
	module = append(module, 5, 3, 1, 0, 49) // memory: one, no maximum, 49 pages
	module = append(module, 11, 15, 2,      // data: two segments
		0, 0x41, 0x80, 0x80, 0x04, 0x0b, 3, 'a', 'b', 'c', // active at 65536: 3 bytes
		1, 2, 'd', 'e') // passive: 2 bytes
	pages, data, err := memoryOf(module)
	if err != nil || pages != 49 || data != 5 {
		t.Fatalf("memoryOf: %d pages, %d bytes of data, %v; want 49, 5", pages, data, err)
	}
	if _, _, err := memoryOf(module[:len(module)-3]); err == nil {
		t.Error("a truncated module: no error")
	}
	if _, _, err := memoryOf([]byte("\x00asm\x01\x00\x00\x00")); err == nil || err.Error() != "no memory section" {
		t.Errorf("no memory section: %v", err)
	}
}

// TestCheckPullSummary: the pull's line of the summary, at the shipped bound.
func TestCheckPullSummary(t *testing.T) {
	b := bundle{initial: 48 * pageBytes, renewMiB: 24, renewFrom: "RENEW_MIB", feedMax: 16 * mib, feedFrom: "FEED_MAX_BYTES", heapPerFeedByte: 2.5}
	summary, problems := check(b, "free")
	want := "the scheduled pull of a feed of up to 16.00 MiB (FEED_MAX_BYTES): its instance 43.00 MiB, 86.00 MiB with the feed and the serving instance"
	if len(problems) > 0 || !strings.Contains(summary, want) {
		t.Errorf("summary %q, problems %q; want %q", summary, problems, want)
	}
}

func TestPullMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sched := write("scheduled.mjs", "const MAX_BYTES = 16 << 20; // note\nconst HEAP_PER_FEED_BYTE = 2.5;\n")
	for _, c := range []struct {
		toml, from string
		n          int
	}{
		{"[vars]\nFEED_MAX_BYTES = \"1000\"\n", "FEED_MAX_BYTES", 1000},
		{"[vars]\nFEED_MAX_BYTES = \"0\"\n", "the glue's MAX_BYTES", 16 << 20},
		{"[vars]\nFEED_MAX_BYTES = \"lots\"\n", "the glue's MAX_BYTES", 16 << 20},
		{"[vars]\nA = \"1\"\n", "the glue's MAX_BYTES", 16 << 20},
	} {
		n, from, heap, err := pullMemory(sched, write("wrangler.toml", c.toml))
		if err != nil || n != c.n || from != c.from || heap != 2.5 {
			t.Errorf("%q: %d %q %v %v; want %d %q 2.5", c.toml, n, from, heap, err, c.n, c.from)
		}
	}
	if _, _, _, err := pullMemory(write("other.mjs", "const MAX_BYTES = 5;\n"), write("wrangler.toml", "")); err == nil {
		t.Error("no HEAP_PER_FEED_BYTE: no error")
	}
}

func TestWranglerVar(t *testing.T) {
	toml := "name = \"x\"\nINSTANCE_MEMORY_MIB = \"1\"\n[vars]\nA = \"1\"\nINSTANCE_MEMORY_MIB = \"48\"   # comment\n[[kv_namespaces]]\nB = \"2\"\n"
	if v, ok := wranglerVar(toml, "INSTANCE_MEMORY_MIB"); !ok || v != "48" {
		t.Errorf("INSTANCE_MEMORY_MIB: %q %v, want 48 from [vars]", v, ok)
	}
	if _, ok := wranglerVar(toml, "B"); ok {
		t.Error("B is not in [vars]")
	}
}

func TestCheckPaidOnly(t *testing.T) {
	b := bundle{gzipped: 4 * mib, initial: 48 * pageBytes, renewMiB: 24}
	if summary, _ := check(b, "paid"); !strings.HasSuffix(summary, "; the script is over the Free plan's 3 MiB: it deploys on the Paid plan only") {
		t.Errorf("summary %q", summary)
	}
	b.gzipped = 3 * mib
	if summary, _ := check(b, "paid"); strings.Contains(summary, "Paid plan only") {
		t.Errorf("3 MiB exactly is within the Free plan: %q", summary)
	}
}
