#!/usr/bin/env python3
"""The default clients of the Python ecosystem against a world's events and zones.

Events: `websockets` (default max_size 1 MiB) and `grpcio` (default receive limit
4 MiB) both resume the world's event stream from revision 0 and read its first
event; the script prints each event's size and tile count as one JSON line per
client and exits non-zero when either client fails (a frame or message over its
default limit closes the connection).

Zones (`--zones N`): `grpcio` with its defaults lists the world's zones
(`ListFlatZones`), following `next_page_token` until it is empty, and checks it got
N zones, every page of one revision; it prints one JSON line (zones, pages, total
and largest page bytes) and exits non-zero on any failure.

The gRPC client works on raw bytes, so no generated stubs are needed: requests are
hand-encoded and answers read field by field.

    python3 tests/python/default_clients.py 127.0.0.1:PORT WORLD
    python3 tests/python/default_clients.py 127.0.0.1:PORT WORLD --zones N

Run by the e2e tests `zones_large::python_default_clients_receive_the_largest_event`
and `zones_pages::python_default_clients_list_a_mask_heavy_world`
(`pip install websockets grpcio` first).
"""

import asyncio
import json
import sys

import grpc
import websockets


def varint(v: int) -> bytes:
    """`v` as a protobuf varint."""
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def subscribe_request(world: str, from_revision: int) -> bytes:
    """`SubscribeRequest{world, from_revision}` in protobuf wire format."""
    name = world.encode()
    return bytes([0x0A]) + varint(len(name)) + name + bytes([0x18]) + varint(from_revision)


def list_request(world: str, page_token: str) -> bytes:
    """`ListFlatZonesRequest{world, page_token}` in protobuf wire format."""
    name, token = world.encode(), page_token.encode()
    out = bytes([0x0A]) + varint(len(name)) + name
    if token:
        out += bytes([0x1A]) + varint(len(token)) + token
    return out


def read_varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at `data[i:]` and the index after it."""
    v, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def list_response(data: bytes) -> tuple[int, int, str]:
    """Zones, revision and next_page_token of a `ListFlatZonesResponse`."""
    zones, revision, token, i = 0, 0, "", 0
    while i < len(data):
        key, i = read_varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
            if field == 2:
                revision = value
        elif wire == 2:
            length, i = read_varint(data, i)
            value = data[i : i + length]
            i += length
            if field == 1:
                zones += 1
            elif field == 4:
                token = value.decode()
        else:
            raise ValueError(f"unexpected wire type {wire} of field {field}")
    return zones, revision, token


def grpc_zone_list(addr: str, world: str, expected: int) -> dict:
    with grpc.insecure_channel(addr) as channel:  # default receive limit: 4 MiB
        list_zones = channel.unary_unary("/terrain.v1.TerrainService/ListFlatZones")
        zones, pages, total, largest, token, first_revision = 0, 0, 0, 0, "", None
        while True:
            page = list_zones(list_request(world, token), timeout=30)
            count, revision, token = list_response(page)
            if first_revision is None:
                first_revision = revision
            elif revision != first_revision:
                raise ValueError(f"page {pages} is of revision {revision}, not {first_revision}")
            zones += count
            pages += 1
            total += len(page)
            largest = max(largest, len(page))
            if not token:
                break
        if zones != expected:
            raise ValueError(f"listed {zones} zones, expected {expected}")
        return {
            "client": f"grpcio {grpc.__version__}",
            "zones": zones,
            "pages": pages,
            "bytes": total,
            "largestPage": largest,
            "revision": first_revision,
        }


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
    if sys.argv[3:4] == ["--zones"]:
        expected = int(sys.argv[4])
        checks = [("grpcio", lambda: grpc_zone_list(addr, world, expected))]
    else:
        checks = [
            ("websockets", lambda: asyncio.run(websocket_event(addr, world))),
            ("grpcio", lambda: grpc_event(addr, world)),
        ]
    ok = True
    for name, run in checks:
        try:
            print(json.dumps(run()), flush=True)
        except Exception as e:  # noqa: BLE001 - report any failure of the client
            print(json.dumps({"client": name, "error": repr(e)}), flush=True)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
