#!/usr/bin/env python3
"""Receives a world's first event with the default clients of the Python ecosystem.

`websockets` (default max_size 1 MiB) and `grpcio` (default receive limit 4 MiB)
both resume the world's event stream from revision 0 and read its first event; the
script prints each event's size and tile count as one JSON line per client and exits
non-zero when either client fails (a frame or message over its default limit closes
the connection). The gRPC client works on raw bytes, so no generated stubs are
needed: the request is a hand-encoded `SubscribeRequest`.

    python3 tests/python/default_clients.py 127.0.0.1:PORT WORLD

Run by the e2e test `zones_large::python_default_clients_receive_the_largest_event`
(`pip install websockets grpcio` first).
"""

import asyncio
import json
import sys

import grpc
import websockets


def subscribe_request(world: str, from_revision: int) -> bytes:
    """`SubscribeRequest{world, from_revision}` in protobuf wire format."""
    name = world.encode()
    out = bytes([0x0A, len(name)]) + name
    out += bytes([0x18])
    v = from_revision
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            out += bytes([b])
            return out


async def websocket_event(addr: str, world: str) -> dict:
    url = f"ws://{addr}/v1/worlds/{world}/events?fromRevision=0"
    async with websockets.connect(url) as ws:  # default max_size: 1 MiB
        while True:
            frame = await asyncio.wait_for(ws.recv(), timeout=30)
            event = json.loads(frame)
            if event.get("type") == "event":
                return {
                    "client": f"websockets {websockets.__version__}",
                    "bytes": len(frame),
                    "tileCount": event["tileCount"],
                    "tileRects": event["tileRects"],
                }


def grpc_event(addr: str, world: str) -> dict:
    with grpc.insecure_channel(addr) as channel:  # default receive limit: 4 MiB
        subscribe = channel.unary_stream("/terrain.v1.TerrainEvents/Subscribe")
        stream = subscribe(subscribe_request(world, 0), timeout=30)
        messages = iter(stream)
        next(messages)  # `subscribed`
        event = next(messages)
        stream.cancel()
        return {"client": f"grpcio {grpc.__version__}", "bytes": len(event)}


def main() -> int:
    addr, world = sys.argv[1], sys.argv[2]
    ok = True
    for name, run in [
        ("websockets", lambda: asyncio.run(websocket_event(addr, world))),
        ("grpcio", lambda: grpc_event(addr, world)),
    ]:
        try:
            print(json.dumps(run()), flush=True)
        except Exception as e:  # noqa: BLE001 - report any failure of the client
            print(json.dumps({"client": name, "error": repr(e)}), flush=True)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
