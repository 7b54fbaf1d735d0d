#!/usr/bin/env bash
# A 2-minute soak (terrain-soak) against the debug terrain-server: the binaries
# `cargo test --workspace` already built, so this builds nothing new after it. Mixed
# load (heights, batches, meshes, zone churn, 200 subscribers, 200 moving viewers), a
# table row every 20 s; fails on any error, on resident memory growing more than 10 %
# after the first minute, or on a zone state that differs from the acknowledged changes.
# The rates are lower than the 30-minute release soak's defaults (see docs/src/operations.md, "Soak"):
# a debug server is several times slower.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
cargo build --locked -p terrain-server -p terrain-load --bins
"$target/debug/terrain-soak" \
    --server-bin "$target/debug/terrain-server" \
    --duration "${SOAK_DURATION:-2m}" --interval "${SOAK_INTERVAL:-20s}" --warmup "${SOAK_WARMUP:-60s}" \
    --height-rate 100 --batch-rate 5 --mesh-rate 5 --zone-rate 5
