# The two commands: `make dev` (run locally under wrangler dev) and `make test`.
# Each sets up what is missing first (deps-check below).
SHELL := /bin/bash
# The pinned TinyGo of build/install-tinygo.sh (make TINYGO=... for another compiler);
# exported for the tests that build with it (worker/trap_test.go).
TINYGO_PREFIX ?= /opt/tinygo
TINYGO  ?= $(TINYGO_PREFIX)/bin/tinygo
export TINYGO
PORT    ?= 8787
INSPECTOR_PORT ?= 9229
GO      ?= go
ifeq ($(shell command -v go),)
export PATH := /usr/local/go/bin:$(PATH)
endif
# TinyGo flags of the shipped module (RATIONALE.md, "Why these TinyGo flags?"): a WASI
# reactor with exports; no scheduler, since nothing on the request path needs one; -opt s,
# because an isolate's first answer compiles every function it runs and smaller code starts
# faster; -gc=leaking, so no GC work on any call: the module never frees, and the glue
# replaces an instance whose memory passes INSTANCE_MEMORY_MIB, handing the rate limiter's
# state to the new one. The initial memory is sized from the module: wasm-ld puts the
# stack, then the data and zeroed globals (the catalog, the rate limiter's table), then
# HEAP_RESERVE bytes of heap (whole 64 KiB pages) that the largest first request of
# testdata/http/cases.json fits in (TestWasmFirstRequestFits), so a larger catalog
# makes a larger initial memory and no first request grows it.
# The build keeps debug information, which the wasm-opt steps below strip: without it
# TinyGo inlines every function called from one place into its caller, and V8 compiles
# the resulting large functions whole on an isolate's first request.
HEAP_RESERVE := 786432
TINYGO_FLAGS := -target wasip1 -buildmode c-shared -scheduler none -opt s -gc=leaking -ldflags='-extldflags "--initial-heap=$(HEAP_RESERVE)"'
# The Workers plan the build is checked against (build/checkmodule): free (the script
# size limit of 3 MiB compressed) or paid (10 MiB). The memory limit is both plans' 128 MB.
WORKERS_PLAN ?= free
# Binaryen's wasm-opt after TinyGo, in two steps: --strip-dwarf first (Binaryen skips
# the passes that cannot keep DWARF current while it is there), then -O2 with
# -ocimfs 0 (a function called from one place is not inlined for that reason alone)
# and --strip-debug. The features are the ones TinyGo's wasip1 output uses. Every wasm
# test runs on the optimised module.
WASM_OPT ?= wasm-opt
WASM_FEATURES := --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals
WASM_OPT_FLAGS := -O2 -ocimfs 0 --strip-debug $(WASM_FEATURES)
# $(call wasm-finish,raw,out): TinyGo's output (raw, with debug information) made into
# the module out by the two steps above; raw is removed.
define wasm-finish
	$(WASM_OPT) --strip-dwarf $(WASM_FEATURES) $(1) -o $(2)
	$(WASM_OPT) $(WASM_OPT_FLAGS) $(2) -o $(2)
	rm -f $(1)
endef

.PHONY: all deps deps-check build build-go site dev test lint gen-check dry-run deploy bench bench-cold bench-instructions clean fuzz soak allocs publish scale key dev-key-secret goldens

all: build

# Toolchains and packages at their pins (build/deps.sh): TinyGo + LLVM (apt, Go module),
# the npm packages (wrangler, workerd, Node 22), the Go modules. `make deps` installs all
# up front (CI); every target that builds depends on deps-check, which installs only what
# is missing or whose pins changed and otherwise costs ~0.1 s without network. A new
# target that builds (publish, ...) depends on deps-check too, directly or through build.
deps:
	build/deps.sh install

deps-check:
	@build/deps.sh ensure

# The shipped Worker: build/worker.mjs (the glue) + build/app.wasm (TinyGo), checked
# against the platform's limits (build/checkmodule: script size, isolate memory; a
# bundle past one fails here, with the limit and by how much), and the static site that
# Workers Static Assets serves beside it (build/out/site: build/site).
build: build/app.wasm build/worker.mjs site
	@$(GO) run ./build/checkmodule -plan $(WORKERS_PLAN) -wasm build/app.wasm -glue build/worker.mjs

# The static site, from the operations table, the OpenAPI document and wrangler.toml
# (docs/static-assets.md); ~1 s.
site: core/views/views.lz4 | deps-check
	@$(GO) run ./build/site -config wrangler.toml -out build/out/site

# The MCP Apps views (core/views): three HTML documents from core/views/src, packed.
core/views/views.lz4: $(wildcard core/views/src/*) build/views/main.go | deps-check
	$(GO) run ./build/views

build/app.wasm: $(shell find core data worker -name '*.go' -not -name '*_test.go') $(wildcard data/*.json core/*/*.json) core/api/openapi.lz4 core/views/views.lz4 go.mod go.sum Makefile | deps-check
	$(GO) generate ./...   # the generated files (bad data fails the build here)
	$(TINYGO) build $(TINYGO_FLAGS) -o build/app.debug.wasm ./worker
	$(call wasm-finish,build/app.debug.wasm,$@)
	@printf 'build/app.wasm: %d bytes, %d gzipped\n' $$(stat -c %s $@) $$(gzip -9c $@ | wc -c)

# The glue's modules bundled into one ES module (esbuild, installed with wrangler), not
# minified: the raw workerd tests load it as it is, and wrangler minifies it on deploy,
# its source map leading back to worker/glue/*.mjs through build/worker.mjs.map.
build/worker.mjs: worker/glue.mjs $(wildcard worker/glue/*.mjs) Makefile | deps-check
	node_modules/.bin/esbuild $< --bundle --format=esm --external:'*.wasm' --sourcemap --log-level=warning --outfile=$@

# The same core on standard Go under syumai/workers' workers.Serve (GOOS=js).
build-go: deps-check
	$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode go -o build/go-worker
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o build/go-worker/app.wasm ./worker
	@printf 'build/go-worker/app.wasm: %d bytes, %d gzipped\n' $$(stat -c %s build/go-worker/app.wasm) $$(gzip -9c build/go-worker/app.wasm | wc -c)

# --test-scheduled: GET /__scheduled runs the Cron Trigger's feed pull once (FEED_URL).
# Prints "make dev: ready on ..." with the docs page's URL and a curl to try once the API
# answers; Ctrl-C stops it.
# The first run writes .dev.vars (git-ignored) with a random quote signing key: the
# secret QUOTE_SIGNING_KEYS that wrangler dev hands the Worker (docs/quote-token.md).
dev: build .dev.vars dev-key-secret
	@u=http://127.0.0.1:$(PORT)/api/agent; sh=$$$$; \
	if command -v curl >/dev/null; then ( for i in $$(seq 600); do sleep 0.5; kill -0 $$sh 2>/dev/null || exit 0; \
	  curl -sf -o /dev/null $$u/ || continue; \
	  printf '\nmake dev: ready on %s/ (Ctrl-C stops it); docs on %s/docs. Try:\n  curl -s %s/depots\n\n' $$u $${u%/api/agent} $$u; exit 0; done ) & fi; \
	exec build/wrangler.sh dev --ip 127.0.0.1 --port $(PORT) --inspector-port $(INSPECTOR_PORT) \
	  --persist-to .wrangler/state --show-interactive-dev-session=false --var INVENTORY_REFRESH_SECONDS:2 --test-scheduled

# Publish a reservation feed as the live inventory (docs/inventory.md): validated against
# data/, written to make dev's local KV (.wrangler/state; a running make dev shows it
# within ~2 s), or with REMOTE=1 to the deployed INVENTORY namespace.
publish: deps-check
	@test -n "$(FEED)" || { echo 'usage: make publish FEED=path/to/bookings.json [REMOTE=1]' >&2; exit 2; }
	$(GO) run ./build/publish -feed "$(FEED)" $(if $(REMOTE),-remote)

# The inventory at scale: 100,000 bookings over 2,000 vehicles at 6 depots (synthetic, in
# build/out/scale/): blob size, build and decode time natively, and of the swap in TinyGo
# wasm under wazero and in V8 (node). Then the Worker built for 12 (the bundled catalog),
# 200 and 2,000 vehicles (build/out/scale/<n>/, from a copy of the tree: data/ stays as
# it is): build time, size, initial memory, cold start, and each operation's answer size
# and CPU a request on workerd (a few minutes; SCALE_FLAGS='-vehicles 12,500' for others).
SCALE_FLAGS ?=
scale: deps-check
	$(GO) run ./build/scale -out build/out/scale -tinygo $(TINYGO) $(SCALE_FLAGS)

.dev.vars:
	@umask 077; printf 'QUOTE_SIGNING_KEYS="1:%s"\n' "$$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')" > $@
	@echo "make dev: wrote .dev.vars with a new random quote signing key (local only, never committed)"

# Partner keys (README, "Who is asking"): .dev.vars gets a random API_KEY_SECRET when it
# has none; `make key` mints a key under it (or under API_KEY_SECRET from the environment)
# and prints it as its last line.
dev-key-secret: .dev.vars
	@grep -q '^API_KEY_SECRET=' .dev.vars || { umask 077; printf 'API_KEY_SECRET="1:%s"\n' "$$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')" >> .dev.vars; \
	  echo "make dev: added a random API_KEY_SECRET to .dev.vars (local only, never committed)"; }

key:
	@$(GO) run ./build/key -name "$(NAME)" -limit "$(LIMIT)" -expires "$(EXPIRES)"

# The tests that need build/app.wasm skip under a plain `go test ./...` without it; here
# CAMPERVAN_REQUIRE_ALL makes a missing module or npm package a failure instead.
test: gen-check build build-go lint
	CAMPERVAN_REQUIRE_ALL=1 $(GO) test -count=1 ./...
	CAMPERVAN_REQUIRE_ALL=1 $(GO) test -count=1 -run 'E2E' -v ./worker -e2e 2>&1 | grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+(site_)?e2e_test)' ; exit $${PIPESTATUS[0]}
	$(MAKE) --no-print-directory dry-run

# Rewrite the golden files (testdata/http/golden, testdata/golden) from what the code
# answers now; review the diff before committing it. On a clean checkout it changes
# nothing (.ci/run checks that).
goldens:
	$(GO) test -count=1 -run '^TestGolden' ./worker ./core/rental -update

# The checked-in generated files are what `go generate ./...` makes of their sources
# (checked before make build regenerates them).
gen-check:
	$(GO) test -count=1 -run '^TestGenerated' ./...

# go vet and staticcheck (build/deps.sh pins it) on every build of the code: native,
# the TinyGo module's wasip1 files and the standard-Go worker's js files.
STATICCHECK := build/out/tools/staticcheck
lint: deps-check
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./worker
	$(STATICCHECK) ./...
	GOOS=wasip1 GOARCH=wasm $(STATICCHECK) ./worker
	GOOS=js GOARCH=wasm $(STATICCHECK) ./worker

# Heap allocations per request in the TinyGo module (build/memstats.wasm: the shipped
# build plus a mallocs export): every request path of TestWasmAllocs must make none.
allocs: deps-check
	$(TINYGO) build $(TINYGO_FLAGS) -tags memstats -o build/memstats.debug.wasm ./worker
	$(call wasm-finish,build/memstats.debug.wasm,build/memstats.wasm)
	$(GO) test -count=1 -run '^TestWasmAllocs' -v ./worker -wasm ../build/memstats.wasm 2>&1 | grep -E '^(---|\s+wasm_bench_test|\s+diff_identity_test|ok|FAIL|PASS)'; exit $${PIPESTATUS[0]}

# Fuzz every target of core/... for FUZZTIME each, one at a time (make fuzz FUZZTIME=10m).
# Seeds: core/<package>/testdata/fuzz/FuzzXxx/ (go test also replays them on every run).
FUZZTIME ?= 30s
FUZZPARALLEL ?= 1
FUZZ_TARGETS := ./core/api:FuzzQueryParse ./core/api:FuzzParseID ./core/api:FuzzParsePicks ./core/api:FuzzParseDateParam \
  ./core/rental:FuzzParseDate ./core/rental:FuzzDecodeInventory ./core/api:FuzzDecodeRequest ./core/api:FuzzHandle ./core/api:FuzzQuoteEndpoint ./core/rental:FuzzQuote \
  ./core/api:FuzzQuoteCheck ./core/quotetoken:FuzzVerify ./core/quotetoken:FuzzDecode ./core/quotetoken:FuzzRoundTrip \
  ./core/limit:FuzzClientOf ./core/apikey:FuzzVerify ./core/api:FuzzIdentity ./worker:FuzzWasmMatchesNativeIdentity ./core/jsonv:FuzzMatchesGJSON ./worker:FuzzWasmMatchesNative
fuzz: build
	@set -e; for t in $(FUZZ_TARGETS); do p=$${t%%:*}; f=$${t#*:}; echo "== $$p $$f ($(FUZZTIME))"; \
	  $(GO) test $$p -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPARALLEL) 2>&1 | tail -n 3; \
	  test $${PIPESTATUS[0]} -eq 0; done

# Soak (not part of make test): 20,000 mixed requests on 8 connections against wrangler
# dev; zero 5xx, zero failed connections, workerd RSS within 20% of after warm-up.
soak: build
	$(GO) test -count=1 -run '^(TestSoak|TestE2EIsolates)$$' -v -timeout 20m ./worker -soak 2>&1 | grep --line-buffered -E '^(=== RUN|--- |PASS|FAIL|ok|\s+(soak|e2e|e2e_isolates)_test)'; exit $${PIPESTATUS[0]}

# Instructions per request served by workerd, project against floor, under callgrind (a
# figure that does not move with the machine's load; ~12 min: BENCHMARKS.md).
bench-instructions: dry-run
	@command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
	@command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
	$(GO) run ./build/bench -instructions 2000 -rounds 0 -cold 0 -memory-requests 0

# The cold start split into its steps (floor, module alone, glue loaded, instantiated,
# initialized, configured, first answer, project, and the request path alone as a
# bound), from binary configs, 300 starts of each in turn (~3 min; BENCHMARKS.md, "The
# cold start").
bench-cold: dry-run
	$(GO) run ./build/bench -cold-split 300

# The deployable bundle exactly as `wrangler deploy` would upload it.
dry-run: build
	rm -rf build/dist
	build/wrangler.sh deploy --dry-run --outdir build/dist >/dev/null
	@printf 'deployable bundle (worker.js + wasm): %d bytes, %d gzipped\n' \
	  $$(cat build/dist/worker.js build/dist/*.wasm | wc -c) $$(cat build/dist/worker.js build/dist/*.wasm | gzip -9 | wc -c)

deploy: build
	build/wrangler.sh deploy

clean:
	rm -rf build/app.wasm build/worker.mjs build/worker.mjs.map build/go-worker build/dist build/out/site

# Project vs a plain JS worker returning the same bytes, on raw workerd (BENCHMARKS.md).
BENCH_FLAGS ?=
bench: dry-run build-go
	@command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
	@command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null || echo 'no valgrind: the cold start is reported without its instruction count'
	$(GO) test -run '^$$' -bench . -benchmem ./core/... | grep -E '^(Benchmark|ok)'
	@printf 'sizes: build/app.wasm %d bytes (%d gzipped); standard Go build/go-worker/app.wasm %d bytes (%d gzipped)\n' \
	  $$(stat -c %s build/app.wasm) $$(gzip -9c build/app.wasm | wc -c) \
	  $$(stat -c %s build/go-worker/app.wasm) $$(gzip -9c build/go-worker/app.wasm | wc -c)
	$(GO) run ./build/bench $(BENCH_FLAGS)
