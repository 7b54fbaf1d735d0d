#!/usr/bin/env bash
# The HTTP contract, checked against the real server: schemathesis (pinned) reads the
# server's own GET /openapi.json and runs every operation with generated input, positive
# and negative, with its default checks (no 5xx, documented status codes, content types,
# headers and bodies, ...) and the stateful phase (OpenAPI links: register a zone, read
# it, delete it). Any failure fails the script.
#
# Usage: .ci/schemathesis.sh [path/to/terrain-server]   (default: the debug binary that
# `cargo test` / `cargo build -p terrain-server` leaves in the target directory)
# Env: SCHEMATHESIS_MAX_EXAMPLES (default 30 per operation: about 1,500 cases, a minute or two), SCHEMATHESIS_SEED.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== schemathesis (the HTTP contract, GET /openapi.json)"

SCHEMATHESIS_VERSION="4.32.5"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
SERVER="${1:-$TARGET_DIR/debug/terrain-server}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-30}"
SEED="${SCHEMATHESIS_SEED:-1}"
TOKEN="schemathesis-admin-token"

if ! python3 -c "import schemathesis, sys; sys.exit(schemathesis.__version__ != '$SCHEMATHESIS_VERSION')" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
if [ ! -x "$SERVER" ]; then
    cargo build --locked -p terrain-server
fi

WORK="$(mktemp -d)"
PID=""
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID"
        wait "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# A terrain world (main) and a layout world (frontier). No voxel world: a debug build
# takes seconds per voxel zone registration or low-zoom map tile, which would turn the
# run into request timeouts; the voxel routes still answer their 404 / 409 here, and
# their bodies are end-to-end tested (voxel_http).
cat > "$WORK/config.toml" <<EOF
listen = "127.0.0.1:0"
data_dir = "$WORK/data"
admin_token = "$TOKEN"
warm_radius = "off"
# Small enough that the largest request the document allows is answered well within
# the request timeouts by a debug build (the document carries these limits).
max_batch_points = 1000
max_heightmap_samples = 4096
max_zone_size = 200
request_timeout = "20s"

[[worlds]]
id = "main"
generator = "hyperscape"
seed = 0

[[worlds]]
id = "frontier"
generator = "hyperscape"
seed = 7
[worlds.layout]
pattern = "rings"
spokes = "planar"
chunk_size = 400.0
cell_size = 8.0
grid_radius = 1
spawn = [[0.0, 0.0]]
EOF

"$SERVER" --config "$WORK/config.toml" --log-format text >"$WORK/server.log" 2>&1 &
PID=$!

ADDR=""
for _ in $(seq 1 600); do
    ADDR="$(grep -o 'listening on [0-9.:]*' "$WORK/server.log" | head -n 1 | awk '{print $3}' || true)"
    if [ -n "$ADDR" ] && curl -sf "http://$ADDR/readyz" >/dev/null; then
        break
    fi
    if ! kill -0 "$PID" 2>/dev/null; then
        cat "$WORK/server.log"
        echo "schemathesis.sh: the server exited before it was ready" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$ADDR" ]; then
    tail -n 50 "$WORK/server.log"
    echo "schemathesis.sh: the server did not report its address" >&2
    exit 1
fi
echo "server ready on $ADDR (pid $PID)"

# Run from the temporary directory: schemathesis keeps its cache in the working directory.
ROOT="$PWD"
status=0
(cd "$WORK" && schemathesis --config-file "$ROOT/.ci/schemathesis.toml" run "http://$ADDR/openapi.json" \
    --header "Authorization: Bearer $TOKEN" \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$SEED" \
    --workers 1 \
    --request-timeout 30 \
    --no-color \
    --generation-database none) || status=$?

if [ "$status" -ne 0 ]; then
    echo "== server log (last 40 lines)"
    tail -n 40 "$WORK/server.log"
fi
exit "$status"
