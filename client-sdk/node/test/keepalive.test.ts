// A connection that dies silently: a TCP proxy between the client and a bare HTTP/2
// server stops forwarding in both directions and leaves the sockets open, as a host
// that vanished or a dropped NAT entry does. With keepalive the client's PING goes
// unanswered and the connection is closed: a Subscription reconnects (a new
// connection, forwarded again) and gets the next event, a read in flight fails as a
// transient UNAVAILABLE. Without it the stream waits forever.
import assert from "node:assert/strict";
import type http2 from "node:http2";
import net from "node:net";
import { after, describe, test } from "node:test";

import { Code } from "@connectrpc/connect";

import { Subscription, TerrainClient, TerrainError } from "../src/index";
import { bareH2, frame } from "./bare-h2";

/** A TCP proxy to `port` whose connections so far can be frozen. */
async function freezingProxy(port: number) {
  const pairs: { frozen: boolean; sockets: net.Socket[] }[] = [];
  const server = net.createServer((downstream) => {
    const upstream = net.connect(port, "127.0.0.1");
    const pair = { frozen: false, sockets: [downstream, upstream] };
    pairs.push(pair);
    downstream.on("data", (d) => pair.frozen || upstream.write(d));
    upstream.on("data", (d) => pair.frozen || downstream.write(d));
    for (const s of pair.sockets) {
      s.on("error", () => {});
      s.on("close", () => pair.sockets.forEach((o) => o.destroy()));
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => pairs.length,
    freeze: () => pairs.forEach((p) => (p.frozen = true)),
    stop: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        for (const p of pairs) p.sockets.forEach((s) => s.destroy());
      }),
  };
}

const subscribed = frame({ kind: { case: "subscribed", value: { subscriptionId: "s", revision: 3n, epoch: "e" } } });
const tiles4 = frame({ kind: { case: "tiles", value: { world: "main", revision: 4n } } });
const respond = (stream: http2.ServerHttp2Stream) =>
  stream.respond({ ":status": 200, "content-type": "application/grpc" });

/** `p`, or "waiting" once `ms` have passed. */
const orWaiting = <T>(p: Promise<T>, ms: number): Promise<T | "waiting"> =>
  Promise.race([p, new Promise<"waiting">((ok) => setTimeout(() => ok("waiting"), ms))]);

const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
});

/** The bare server (first stream: `subscribed`, then silence; later: `subscribed` and revision 4) behind a proxy. */
async function world() {
  let streams = 0;
  const h2 = await bareH2((stream, n) => {
    streams = n;
    respond(stream);
    stream.write(subscribed);
    if (n > 1) stream.write(tiles4);
  });
  const proxy = await freezingProxy(Number(new URL(h2.url).port));
  stops.push(proxy.stop, h2.stop);
  return { proxy, streams: () => streams };
}

describe("a connection that dies silently", () => {
  test("with keepalive, a subscription notices, reconnects and gets the next event", async () => {
    const { proxy, streams } = await world();
    const client = await TerrainClient.connect(proxy.url, { lazy: true, keepaliveMs: 200 });
    const sub = await Subscription.open(client, "main", { initialBackoffMs: 1 });
    proxy.freeze();
    const frozenAt = Date.now();
    const event = await orWaiting(sub.next(), 5_000);
    assert.notEqual(event, "waiting", "the dead connection was not noticed");
    assert.equal(event !== "waiting" && event.kind === "tiles" && event.event.revision, 4n);
    assert.ok(Date.now() - frozenAt >= 190, "noticed by the unanswered PING, not earlier");
    assert.equal(streams(), 2);
    assert.equal(proxy.connections(), 2, "a new connection");
    assert.equal(sub.reconnects, 1);
    sub.close();
  });

  test("without keepalive (keepaliveMs 0), the stream waits on the dead connection", async () => {
    const { proxy, streams } = await world();
    const client = await TerrainClient.connect(proxy.url, { lazy: true, keepaliveMs: 0 });
    const sub = await Subscription.open(client, "main", { initialBackoffMs: 1 });
    proxy.freeze();
    const next = sub.next();
    assert.equal(await orWaiting(next, 1_500), "waiting");
    assert.equal(streams(), 1);
    sub.close();
    await assert.rejects(next, /subscription closed/);
  });

  test("with keepalive, a read in flight fails as a transient UNAVAILABLE", async () => {
    const h2 = await bareH2(() => {}); // never answers; the PINGs are answered
    const proxy = await freezingProxy(Number(new URL(h2.url).port));
    stops.push(proxy.stop, h2.stop);
    const client = await TerrainClient.connect(proxy.url, { lazy: true, keepaliveMs: 200, retry: { maxAttempts: 1 } });
    const read = client.getHeight({ world: "main", x: 1, z: 2 }).then(
      () => assert.fail("answered"),
      (e: unknown) => e,
    );
    await new Promise((ok) => setTimeout(ok, 500)); // pings answered meanwhile
    assert.equal(await orWaiting(read, 0), "waiting", "a live connection is kept");
    proxy.freeze();
    const e = await orWaiting(read, 5_000);
    assert.ok(e instanceof TerrainError, String(e));
    assert.equal(e.code, Code.Unavailable, e.message);
    assert.equal(e.transient, true);
  });

  test("a negative or non-finite keepaliveMs is refused, naming it", async () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      await assert.rejects(TerrainClient.connect("http://127.0.0.1:1", { lazy: true, keepaliveMs: bad }), (e: unknown) => {
        assert.ok(e instanceof RangeError, String(e));
        assert.match(e.message, /^keepaliveMs: /);
        return true;
      });
    }
  });
});
