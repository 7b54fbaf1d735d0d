#!/usr/bin/env bash
# Builds docker/Dockerfile with podman and runs the image, on a machine without a
# Docker engine or a reachable registry (Debian's podman, runc, cgroupfs):
#
#   1. the base image: a minimal Debian bookworm root made by debootstrap, cached as
#      a tarball under $CARGO_TARGET_DIR/image-cache (a second run skips it), imported
#      as debian:bookworm-slim, the name the Dockerfile uses;
#   2. the image: the Dockerfile's build stage takes the terrain-server the host built
#      (TERRAIN_IMAGE_BINARY, else target/release, built here if missing) instead of
#      compiling (PREBUILT);
#   3. a container on a named volume, host network, explicit nofile/nproc limits,
#      until its HEALTHCHECK (`terrain-server healthcheck`) passes; from outside, a
#      height query and a zone registration (with the admin token);
#   4. the container removed and a new one started on the same volume: the zone is
#      found again, at the same revision; then containers, volume and image go.
#
# Needs podman, runc and debootstrap (apt-get install -y podman runc debootstrap), curl,
# python3 (a free port) and root.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-$PWD/target}"
cache="$target/image-cache"
mkdir -p "$cache"
base="debian:bookworm-slim"
image="localhost/terrain-server:image-test"
name="terrain-image-test"
volume="terrain-image-test-data"
token="image-test-token"
podman=(podman --runtime runc --cgroup-manager=cgroupfs)
# Explicit limits (podman's defaults exceed what this kind of host lets runc set):
# open files up to the host's hard limit (at most 65536), 4096 processes.
nofile="$(ulimit -Hn)"
if [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; then nofile=65536; fi
limits=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
t0=$(date +%s)
step() { echo "== $* (at $(( $(date +%s) - t0 )) s)"; }

cleanup() {
    "${podman[@]}" rm -f -i "$name" >/dev/null 2>&1 || true
    "${podman[@]}" volume rm -f "$volume" >/dev/null 2>&1 || true
    "${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
    rm -rf docker/prebuilt
}
trap cleanup EXIT
cleanup

# 1. The base image, from Debian's own archive.
if ! "${podman[@]}" image exists "$base"; then
    if [ ! -f "$cache/bookworm-minbase.tar" ]; then
        step "debootstrap a minimal bookworm root into $cache"
        mkdir -p "$cache"
        rm -rf "$cache/rootfs"
        debootstrap --variant=minbase bookworm "$cache/rootfs" http://deb.debian.org/debian \
            > "$cache/debootstrap.log"
        rm -rf "$cache"/rootfs/var/cache/apt/archives/*.deb "$cache"/rootfs/var/lib/apt/lists/*
        tar -C "$cache/rootfs" -cf "$cache/bookworm-minbase.tar.partial" .
        mv "$cache/bookworm-minbase.tar.partial" "$cache/bookworm-minbase.tar"
        rm -rf "$cache/rootfs"
    fi
    step "import the root as $base"
    "${podman[@]}" import --change 'CMD ["/bin/bash"]' "$cache/bookworm-minbase.tar" "$base" >/dev/null
fi

# 2. The image, with the host's binary: TERRAIN_IMAGE_BINARY, or the release build.
binary="${TERRAIN_IMAGE_BINARY:-$target/release/terrain-server}"
if [ ! -x "$binary" ]; then
    step "cargo build --release -p terrain-server"
    cargo build --release --locked -p terrain-server
fi
mkdir -p docker/prebuilt
cp "$binary" docker/prebuilt/terrain-server
step "podman build"
"${podman[@]}" build --quiet --layers=false --format docker --pull=never "${limits[@]}" \
    --build-arg BUILD_IMAGE="$base" --build-arg PREBUILT=docker/prebuilt/terrain-server \
    -f docker/Dockerfile -t "$image" . >/dev/null
rm -rf docker/prebuilt

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"
"${podman[@]}" volume create "$volume" >/dev/null

# podman without systemd logs errors about health-check timers (the check is run by
# hand below): they go to $cache/podman.log.
start() {
    "${podman[@]}" run -d --name "$name" --network host "${limits[@]}" \
        --health-interval=disable \
        -v "$volume:/var/lib/terrain/data" \
        -e TERRAIN_LISTEN="127.0.0.1:$port" -e TERRAIN_ADMIN_TOKEN="$token" \
        "$image" >/dev/null 2>>"$cache/podman.log"
    for _ in $(seq 1 240); do
        if "${podman[@]}" healthcheck run "$name" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.5
    done
    "${podman[@]}" logs "$name" | tail -20
    echo "the container did not become healthy" >&2
    return 1
}

# 3. Run, wait for health, answer from outside.
step "podman run (port $port)"
start
step "healthy"
height="$(curl -sf "$url/v1/worlds/main/height?x=1&z=2")"
echo "height: $height"
case "$height" in *'"height":'*) ;; *) echo "no height in $height" >&2; exit 1 ;; esac
registered="$(curl -sf -X PUT "$url/v1/worlds/main/flat-zones/image_test_pad" \
    -H "authorization: Bearer $token" \
    -d '{"centerX":-40,"centerZ":10,"width":12,"depth":8,"heightOffset":0.5,"blendRadius":3}')"
echo "registered: ${registered:0:160}"
case "$registered" in *'"change":"registered"'*) ;; *) echo "not registered: $registered" >&2; exit 1 ;; esac
before="$(curl -sf "$url/v1/worlds/main/flat-zones/image_test_pad")"

# 4. A new container on the same volume finds the zone again.
step "restart on the same volume"
"${podman[@]}" rm -f "$name" >/dev/null 2>>"$cache/podman.log"
start
step "healthy again"
after="$(curl -sf "$url/v1/worlds/main/flat-zones/image_test_pad")"
echo "after restart: ${after:0:160}"
if [ "$before" != "$after" ]; then
    echo "the zone changed across the restart: $before != $after" >&2
    exit 1
fi
step "image test passed"
