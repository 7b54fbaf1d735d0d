#!/usr/bin/env bash
# The live map in a real Chromium, as one command (from anywhere):
#   tests/browser/run.sh
# Installs what a fresh machine lacks (Debian's chromium package; playwright-core from
# npm, pinned by package-lock.json; no browser is downloaded), builds the server, and
# runs map.test.mjs, then tiles3d.test.mjs (the 3-D mode), against the built binary.
# Screenshots go to target/browser/.
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
# The binary's path as cargo reports it (whatever target directory is configured).
bin="$(cargo build -p terrain-server --bin terrain-server --locked --message-format=json-render-diagnostics \
  | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      for (const line of s.split("\n")) {
        if (!line) continue;
        const m = JSON.parse(line);
        if (m.reason === "compiler-artifact" && m.target.name === "terrain-server" && m.executable) console.log(m.executable);
      }
    });')"
if [ -z "$bin" ]; then
    echo "cargo reported no terrain-server executable" >&2
    exit 1
fi
echo "== map browser test ($bin)"
node "$here/map.test.mjs" "$bin"
echo "== 3-D mode browser test ($bin)"
node "$here/tiles3d.test.mjs" "$bin"
echo "== 3-D mode browser test, voxel world ($bin)"
node "$here/tiles3d_voxel.test.mjs" "$bin"
