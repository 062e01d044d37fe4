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
#   --check   exit 0 when the apt packages and this TinyGo (same pins, see STAMP) are
#             installed, else 1 with the reason on stdout: no network, no root, ~30 ms.
#             build/deps.sh runs it before every build.
#   --apt     print the apt packages still missing (one line, empty when none).
# Env: TINYGO_PREFIX (/opt/tinygo), TINYGO_BIN_DIR (/usr/local/bin for the default prefix,
#      else none; empty = no symlink),
#      TINYGO_FORCE=1 to rebuild.
set -euo pipefail

TINYGO_VERSION=v0.41.1
LLVM_MAJOR=19
REV=1   # bump when this script's output changes

PREFIX=${TINYGO_PREFIX:-/opt/tinygo}
# The symlink on PATH only for the default prefix: another prefix is used by its path.
if [ "$PREFIX" = /opt/tinygo ]; then BIN_DIR=${TINYGO_BIN_DIR-/usr/local/bin}; else BIN_DIR=${TINYGO_BIN_DIR-}; fi
APT_PKGS=(llvm-$LLVM_MAJOR-dev libclang-$LLVM_MAJOR-dev clang-$LLVM_MAJOR lld-$LLVM_MAJOR
          libclang-rt-$LLVM_MAJOR-dev-wasm32 wasi-libc binaryen g++)
STAMP="tinygo=$TINYGO_VERSION llvm=$LLVM_MAJOR rev=$REV"

log() { printf '[install-tinygo %(%T)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 3; }   # 3: the message says what to do
RT=/usr/lib/llvm-$LLVM_MAJOR/lib/clang/$LLVM_MAJOR/lib/wasi/libclang_rt.builtins-wasm32.a
FILES=("$RT" /usr/lib/wasm32-wasi/libc.a /usr/include/wasm32-wasi/stdlib.h
       /usr/bin/clang-$LLVM_MAJOR /usr/bin/wasm-ld-$LLVM_MAJOR /usr/bin/wasm-opt)
declare -A ok=()
while read -r p st; do
  [ "$st" != "install ok installed" ] || ok[$p]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${APT_PKGS[@]}" 2>/dev/null || true)
missing=()
for p in "${APT_PKGS[@]}"; do [ -n "${ok[$p]:-}" ] || missing+=("$p"); done
installed() {   # this TinyGo, with these pins, runs
  [ -f "$PREFIX/.stamp" ] && [ "$(cat "$PREFIX/.stamp")" = "$STAMP" ] && [ -x "$PREFIX/bin/tinygo" ] \
    && PATH=$PATH:/usr/local/go/bin "$PREFIX/libexec/tinygo" version >/dev/null 2>&1
}
case "${1:-}" in
  --apt) echo "${missing[*]}"; exit 0 ;;
  --check)
    [ ${#missing[@]} -eq 0 ] || { echo "apt packages missing: ${missing[*]}"; exit 1; }
    for f in "${FILES[@]}"; do [ -e "$f" ] || { echo "missing $f"; exit 1; }; done
    installed || { echo "TinyGo $TINYGO_VERSION ($STAMP) not in $PREFIX"; exit 1; }
    exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--check|--apt]" >&2; exit 2 ;;
esac

# Root for apt and for a prefix we cannot write: sudo, only when needed and usable
# (passwordless, or asking for the password on a terminal).
can_sudo() { [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && { [ -t 0 ] || sudo -n true 2>/dev/null; }; }; }
asroot() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || die "go not found: install Go >= 1.22 (/usr/local/go) first"

# 1. Debian packages, only when one is missing.
if [ ${#missing[@]} -gt 0 ]; then
  can_sudo || die "apt packages missing and no root (not root, no sudo): as root run
  apt-get install --no-install-recommends ${missing[*]}
then run $0 again"
  log "apt-get install ${missing[*]}"
  asroot apt-get -o DPkg::Lock::Timeout=300 update -qq \
    || die "apt-get update failed (no network?): as root run
  apt-get update && apt-get install --no-install-recommends ${missing[*]}"
  asroot env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed (no network?): as root run
  apt-get install --no-install-recommends ${missing[*]}"
fi
for f in "${FILES[@]}"; do
  [ -e "$f" ] || die "missing $f after apt install"
done

# The prefix (and the symlink in BIN_DIR) need root only when their parents are not ours.
writable() { local d=$1; while [ ! -e "$d" ]; do d=$(dirname "$d"); done; [ -w "$d" ]; }
SUDO=
if ! writable "$(dirname "$PREFIX")" || { [ -n "$BIN_DIR" ] && ! writable "$BIN_DIR"; }; then
  can_sudo || die "cannot write $PREFIX${BIN_DIR:+ or $BIN_DIR} (not root, no sudo): run as root,
  or choose a prefix of your own: TINYGO_PREFIX=\$HOME/.local/tinygo TINYGO_BIN_DIR= (make passes them on)"
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
fi

# 2. Already installed with the same pins?
if [ "${TINYGO_FORCE:-0}" != 1 ] && installed; then
  log "TinyGo $TINYGO_VERSION already in $PREFIX"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  log "go mod download github.com/tinygo-org/tinygo@$TINYGO_VERSION"
  (cd "$tmp" && GOWORK=off GOFLAGS=-buildvcs=false go mod download "github.com/tinygo-org/tinygo@$TINYGO_VERSION") \
    || die "go mod download failed: the Go module proxy must be reachable (GOPROXY=$(go env GOPROXY))"
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
