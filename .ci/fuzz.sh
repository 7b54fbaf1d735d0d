#!/usr/bin/env bash
# Fuzz regression check: builds the cargo-fuzz targets of fuzz/ once, replays each
# target's seed corpus (fuzz/corpus/<target>, committed) and fuzzes each for a few
# seconds more. Any crash or failed property assertion fails the script; libFuzzer
# leaves the input in fuzz/artifacts/<target>/ and prints it.
#
# Needs the nightly toolchain (installed here when missing) and cargo-fuzz (pinned).
# FUZZ_SECONDS sets the length of the short run per target (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION="0.13.1"
FUZZ_SECONDS="${FUZZ_SECONDS:-10}"
# A development build (no optimisation: it compiles several times faster than the
# release build, and a replay plus seconds of fuzzing do not need the speed), with
# its debug assertions and overflow checks, so an arithmetic overflow is a crash. No
# sanitizer: the workspace forbids unsafe code.
BUILD_FLAGS=(--dev --sanitizer none)

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "== rustup toolchain install nightly"
    rustup toolchain install nightly --profile minimal
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    echo "== cargo install cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

echo "== cargo fuzz build"
# cargo-fuzz has no --locked: a lock file behind the workspace would be rewritten (and
# the clone left changed), so check it first.
if ! (cd fuzz && cargo metadata --locked --format-version 1 >/dev/null); then
    echo "fuzz/Cargo.lock is out of date: run 'cargo metadata --format-version 1' in fuzz/ and commit it" >&2
    exit 1
fi
cargo +nightly fuzz build "${BUILD_FLAGS[@]}"

# New inputs found by the short runs go to a scratch directory, not into the
# committed corpus (libFuzzer writes to the first corpus directory it is given).
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

for target in $(cargo +nightly fuzz list); do
    seeds="fuzz/corpus/$target"
    if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds")" ]; then
        echo "fuzz target $target has no seed corpus in $seeds" >&2
        exit 1
    fi
    mkdir -p "$scratch/$target"
    echo "== fuzz $target: replay $(ls "$seeds" | wc -l) seeds"
    cargo +nightly fuzz run "${BUILD_FLAGS[@]}" "$target" "$seeds" -- -runs=0
    echo "== fuzz $target: ${FUZZ_SECONDS} s"
    cargo +nightly fuzz run "${BUILD_FLAGS[@]}" "$target" "$scratch/$target" "$seeds" -- \
        -max_total_time="$FUZZ_SECONDS" -print_final_stats=1
done
