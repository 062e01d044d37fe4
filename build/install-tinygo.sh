#!/usr/bin/env bash
# build/install-tinygo.sh: install TinyGo (pinned) on Debian 12 x86-64 from the Go module
# and Debian's LLVM, without any download outside the package registries.
#
#   TinyGo  v0.41.1, compiled from its Go module with the build tag llvm19 against
#           Debian's LLVM 19 (dynamic linking; clang-19, wasm-ld-19 and wasm-opt from apt).
#   TINYGOROOT = $TINYGO_PREFIX (default /opt/tinygo): src/, targets/, lib/ from the module.
#   Three git submodules of TinyGo are not in the module zip:
#     - wasi-libc and compiler-rt: replaced by Debian's wasi-libc and
#       libclang-rt-19-dev-wasm32; the bin/tinygo wrapper seeds TinyGo's cache with them.
#     - src/net: no allowed source serves it; an empty folder stands in its place, so code
#       built with this TinyGo must not import net or net/http (this project's never does).
#   Only the wasm32-unknown-wasi targets (-target=wasip1, -target=wasm) are covered.
#
# Idempotent: a second run with the same pins is a no-op (~1 s).
# Env: TINYGO_PREFIX (/opt/tinygo), TINYGO_BIN_DIR (/usr/local/bin; empty = no symlink),
#      TINYGO_FORCE=1 to rebuild.
set -euo pipefail

TINYGO_VERSION=v0.41.1
LLVM_MAJOR=19
REV=1   # bump when this script's output changes

PREFIX=${TINYGO_PREFIX:-/opt/tinygo}
BIN_DIR=${TINYGO_BIN_DIR-/usr/local/bin}
APT_PKGS=(llvm-$LLVM_MAJOR-dev libclang-$LLVM_MAJOR-dev clang-$LLVM_MAJOR lld-$LLVM_MAJOR
          libclang-rt-$LLVM_MAJOR-dev-wasm32 wasi-libc binaryen g++)
STAMP="tinygo=$TINYGO_VERSION llvm=$LLVM_MAJOR rev=$REV"

log() { printf '[install-tinygo %(%T)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || die "go not found"

# 1. Debian packages, only when one is missing.
missing=()
for p in "${APT_PKGS[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
RT=/usr/lib/llvm-$LLVM_MAJOR/lib/clang/$LLVM_MAJOR/lib/wasi/libclang_rt.builtins-wasm32.a
for f in "$RT" /usr/lib/wasm32-wasi/libc.a /usr/include/wasm32-wasi/stdlib.h \
         /usr/bin/clang-$LLVM_MAJOR /usr/bin/wasm-ld-$LLVM_MAJOR /usr/bin/wasm-opt; do
  [ -e "$f" ] || die "missing $f after apt install"
done

# 2. Already installed with the same pins?
if [ "${TINYGO_FORCE:-0}" != 1 ] && [ -f "$PREFIX/.stamp" ] && [ "$(cat "$PREFIX/.stamp")" = "$STAMP" ] \
   && "$PREFIX/libexec/tinygo" version >/dev/null 2>&1; then
  log "TinyGo $TINYGO_VERSION already in $PREFIX"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  log "go mod download github.com/tinygo-org/tinygo@$TINYGO_VERSION"
  (cd "$tmp" && GOWORK=off GOFLAGS=-buildvcs=false go mod download "github.com/tinygo-org/tinygo@$TINYGO_VERSION")
  moddir="$(go env GOMODCACHE)/github.com/tinygo-org/tinygo@$TINYGO_VERSION"
  [ -f "$moddir/go.mod" ] || die "module not found in $moddir"
  log "building the TinyGo compiler (llvm$LLVM_MAJOR)"
  (cd "$moddir" && GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=1 \
     go build -tags "llvm$LLVM_MAJOR" -ldflags='-s -w' -o "$tmp/tinygo" .)
  stage="$PREFIX.tmp.$$"
  $SUDO rm -rf "$stage"; $SUDO mkdir -p "$stage/libexec" "$stage/bin" "$stage/lib/prebuilt"
  $SUDO cp -r "$moddir/src" "$moddir/targets" "$moddir/lib" "$stage/"
  $SUDO cp "$tmp/tinygo" "$stage/libexec/tinygo"
  $SUDO chmod -R u+w,go+rX "$stage"
  $SUDO mkdir -p "$stage/src/net"   # stands in for the missing net submodule
  # LLVM 19 does not know these LLVM-20 wasm features.
  $SUDO sed -i 's/,+bulk-memory-opt//; s/,+call-indirect-overlong//' "$stage"/targets/*.json
  $SUDO cp "$RT" "$stage/lib/prebuilt/compiler-rt-wasm32.a"
  $SUDO cp /usr/lib/wasm32-wasi/libc.a "$stage/lib/prebuilt/wasi-libc.a"
  $SUDO cp -r /usr/include/wasm32-wasi "$stage/lib/prebuilt/wasi-libc-include"
  $SUDO tee "$stage/bin/tinygo" >/dev/null <<'WRAP'
#!/bin/sh
# TinyGo wrapper (build/install-tinygo.sh): seeds TinyGo's library cache with Debian's
# prebuilt wasi-libc and compiler-rt, whose git-submodule sources are not installed.
root=$(dirname "$(dirname "$(readlink -f "$0")")")
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tinygo"
t=wasm32-unknown-wasi-generic
if [ ! -f "$cache/wasi-libc-$t/lib.a" ] || [ ! -f "$cache/compiler-rt-$t/lib.a" ]; then
  mkdir -p "$cache/wasi-libc-$t" "$cache/compiler-rt-$t"
  [ -e "$cache/wasi-libc-$t/include" ] || ln -sfn "$root/lib/prebuilt/wasi-libc-include" "$cache/wasi-libc-$t/include"
  cp "$root/lib/prebuilt/wasi-libc.a" "$cache/wasi-libc-$t/lib.a"
  cp "$root/lib/prebuilt/compiler-rt-wasm32.a" "$cache/compiler-rt-$t/lib.a"
fi
command -v go >/dev/null 2>&1 || PATH=/usr/local/go/bin:$PATH
exec "$root/libexec/tinygo" "$@"
WRAP
  $SUDO chmod 755 "$stage/bin/tinygo"
  echo "$STAMP" | $SUDO tee "$stage/.stamp" >/dev/null
  $SUDO rm -rf "$PREFIX"; $SUDO mv "$stage" "$PREFIX"
  log "installed TinyGo $TINYGO_VERSION into $PREFIX"
fi
if [ -n "$BIN_DIR" ]; then $SUDO mkdir -p "$BIN_DIR"; $SUDO ln -sfn "$PREFIX/bin/tinygo" "$BIN_DIR/tinygo"; fi
"$PREFIX/bin/tinygo" version
