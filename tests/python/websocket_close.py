#!/usr/bin/env python3
"""The events WebSocket's closing handshake, as Python's `websockets` client sees it.

Two checks, each printed as one JSON line (`check`, `closeCode`, `closeReason`, `ok`);
the script exits non-zero when either fails:

- `close echoed`: the client changes its area, then closes with 1000. The server
  echoes the close frame, so `websockets` reports the code it received, 1000; a
  server that drops the connection instead leaves it at 1006 (no close frame).
- `oversize closed`: the client sends one text message in two fragments of 3,000
  bytes, over the server's 4,096-byte cap for a client message; the server closes
  with 1009 (Message Too Big).

    python3 tests/python/websocket_close.py 127.0.0.1:PORT WORLD

Run by the e2e test `events_ws_close::python_websockets_sees_its_close_echoed_and_1009`
(`pip install websockets` first).
"""

import asyncio
import json
import sys

import websockets

WAIT = 10


async def close_echoed(url: str) -> dict:
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"tiles": [0, 0, 1, 1]}))
        ack = json.loads(await asyncio.wait_for(ws.recv(), timeout=WAIT))
        if ack.get("type") != "area":
            raise RuntimeError(f"expected the area's acknowledgement, got {ack}")
        await ws.close(code=1000, reason="done")
    return {
        "check": "close echoed",
        "closeCode": ws.close_code,
        "closeReason": ws.close_reason,
        "ok": ws.close_code == 1000,
    }


async def oversize_closed(url: str) -> dict:
    async with websockets.connect(url) as ws:
        # An iterable of strings: one text message, one fragment each.
        await ws.send(["{" + " " * 2999, " " * 2999 + "}"])
        try:
            answer = await asyncio.wait_for(ws.recv(), timeout=WAIT)
            raise RuntimeError(f"expected the socket closed, got {answer}")
        except websockets.ConnectionClosed:
            pass
    return {
        "check": "oversize closed",
        "closeCode": ws.close_code,
        "closeReason": ws.close_reason,
        "ok": ws.close_code == 1009,
    }


async def main(addr: str, world: str) -> int:
    url = f"ws://{addr}/v1/worlds/{world}/events"
    failed = 0
    for check in (close_echoed, oversize_closed):
        report = await check(url)
        report["client"] = f"websockets {websockets.__version__}"
        print(json.dumps(report), flush=True)
        failed += not report["ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
