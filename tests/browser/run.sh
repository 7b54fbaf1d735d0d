#!/usr/bin/env bash
# The live map in a real Chromium, as one command (from anywhere):
#   tests/browser/run.sh
# Installs what a fresh machine lacks (Debian's chromium package; playwright-core from
# npm, pinned by package-lock.json; no browser is downloaded), builds the server, and
# runs map.test.mjs against the built binary. Screenshots go to target/browser/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

if [ ! -x /usr/bin/chromium ]; then
    echo "== installing chromium (Debian package)"
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq && apt-get install -y -qq chromium
    else
        sudo apt-get update -qq && sudo apt-get install -y -qq chromium
    fi
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
    echo "== npm ci (playwright-core)"
    (cd "$here" && npm ci --no-audit --no-fund)
fi

cd "$repo"
echo "== cargo build -p terrain-server"
cargo build -p terrain-server --locked
target="${CARGO_TARGET_DIR:-target}"
echo "== map browser test"
node "$here/map.test.mjs" "$target/debug/terrain-server"
