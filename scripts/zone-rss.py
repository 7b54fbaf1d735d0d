#!/usr/bin/env python3
"""The memory and time the largest legal zone costs a release server in its own process.

Starts `terrain-server` (three worlds: voxel `blocks`, hyperscape `main`, osrs `old`)
on a free loopback port with a fresh data directory, holds one WebSocket and one gRPC
subscription per world in this process, and per world registers a 20 m zone, then the
largest zone the default limits accept (10 km square, 10 km blend ring), and on `main`
the largest tile mask (65,536 tiles; the row with `"zone": "mask"`). Once both
subscribers have the largest zone's event it reads the server's resident set
(`VmRSS` of `/proc/PID/status`) and prints one JSON line per world and run: the
resident set added by the largest zone, the PUT's round trip and the event sizes.

    cargo build --release -p terrain-server
    python3 scripts/zone-rss.py target/release/terrain-server [RUNS [SERVER FLAGS...]]

Extra flags go to the server: `--warm-radius off` leaves out the tiles meshed at start,
which a zone covering them re-meshes (the cache's churn, not the zone's cost).

Needs `pip install websockets grpcio` (the clients of `tests/python/default_clients.py`).
"""

import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import grpc
from websockets.sync.client import connect

WORLDS = ["blocks", "main", "old"]
SMALL = {"centerX": 0, "centerZ": 0, "width": 20, "depth": 20, "heightOffset": 2, "blendRadius": 5}
LARGEST = {"centerX": 0, "centerZ": 0, "width": 10000, "depth": 10000, "heightOffset": 2,
           "blendRadius": 10000}
# The largest legal tile mask: 65,536 tiles (256 x 256 m) with a 10 m blend ring.
LARGEST_MASK = {"centerX": 0, "centerZ": 0, "width": 260, "depth": 260, "heightOffset": 2,
                "blendRadius": 10,
                "tileMask": [[x, z] for x in range(-128, 128) for z in range(-128, 128)]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def subscribe_request(world: str) -> bytes:
    """`SubscribeRequest{world}` in protobuf wire format (live, no resume)."""
    name = world.encode()
    return bytes([0x0A, len(name)]) + name


def websocket_events(addr: str, world: str, out: queue.Queue, ready: threading.Event):
    with connect(f"ws://{addr}/v1/worlds/{world}/events") as ws:  # max_size 1 MiB
        ready.set()
        for frame in ws:  # until the server goes
            if json.loads(frame).get("type") == "event":
                out.put(("ws", world, len(frame)))


def grpc_events(addr: str, world: str, out: queue.Queue, ready: threading.Event):
    channel = grpc.insecure_channel(addr)  # receive limit 4 MiB
    stream = channel.unary_stream("/terrain.v1.TerrainEvents/Subscribe")(subscribe_request(world))
    messages = iter(stream)
    next(messages)  # `subscribed`
    ready.set()
    try:
        for message in messages:
            out.put(("grpc", world, len(message)))
    except grpc.RpcError:
        pass  # the server went


def put(base: str, world: str, zone: str, body: dict) -> float:
    request = urllib.request.Request(
        f"{base}/v1/worlds/{world}/flat-zones/{zone}", data=json.dumps(body).encode(),
        method="PUT", headers={"content-type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        answer.read()
    return time.perf_counter() - start


def wait_events(events: queue.Queue, world: str) -> dict:
    """Both subscribers' next event of `world`: their sizes by surface."""
    got = {}
    while len(got) < 2:
        surface, w, size = events.get(timeout=30)
        if w == world:
            got[surface] = size
    return got


def run() -> list:
    port = free_port()
    addr, base = f"127.0.0.1:{port}", f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [sys.argv[1], "--listen", addr, "--data-dir", data, "--world", "blocks:voxel:7",
             "--world", "main:hyperscape:0", "--world", "old:osrs:0", *sys.argv[3:]],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    urllib.request.urlopen(f"{base}/healthz").read()
                    break
                except OSError:
                    time.sleep(0.1)
            events: queue.Queue = queue.Queue()
            for world in WORLDS:
                for subscriber in (websocket_events, grpc_events):
                    ready = threading.Event()
                    threading.Thread(target=subscriber, args=(addr, world, events, ready),
                                     daemon=True).start()
                    ready.wait(10)
            rows = []
            for world in WORLDS:
                put(base, world, "small", SMALL)
                wait_events(events, world)
                time.sleep(0.5)
                before = rss_kb(server.pid)
                took = put(base, world, "largest", LARGEST)
                sizes = wait_events(events, world)
                time.sleep(0.5)
                rows.append({"world": world, "zone": "rect",
                             "addedRssMB": (rss_kb(server.pid) - before) / 1000,
                             "putMs": round(took * 1e3, 1), "wsEventBytes": sizes["ws"],
                             "grpcEventBytes": sizes["grpc"]})
            before = rss_kb(server.pid)
            took = put(base, "main", "largest-mask", LARGEST_MASK)
            sizes = wait_events(events, "main")
            time.sleep(0.5)
            rows.append({"world": "main", "zone": "mask",
                         "addedRssMB": (rss_kb(server.pid) - before) / 1000,
                         "putMs": round(took * 1e3, 1), "wsEventBytes": sizes["ws"],
                         "grpcEventBytes": sizes["grpc"]})
            return rows
        finally:
            server.terminate()
            server.wait(30)


def main() -> int:
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        for row in run():
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
