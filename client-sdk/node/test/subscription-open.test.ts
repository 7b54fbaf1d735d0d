// Subscription against a bare HTTP/2 server that accepts a stream and then says nothing
// (a stalled connection or proxy): an attempt to open the stream waits at most
// `openTimeoutMs` for `subscribed`, fails as a transient DEADLINE_EXCEEDED and cancels
// the stream; a reconnection tries again and resumes where it was; `close` stops a
// wait that has no bound; a stream that starts with an event (no `subscribed`) still
// delivers it; a stream reset without a status is opened again. The server speaks gRPC's framing with the generated messages.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { describe, test } from "node:test";

import { fromBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";

import { SubscribeRequestSchema } from "../src/gen/terrain/v1/events_pb";
import { Subscription, TerrainClient, TerrainError } from "../src/index";
import { bareH2, frame } from "./bare-h2";

/** What the server does with the `n`th stream (from 1). */
type Handler = (stream: http2.ServerHttp2Stream, n: number) => void;

/** A server handling each stream with `handle`; records requests and cancelled streams. */
async function server(handle: Handler) {
  const seen = { streams: 0, closedUnanswered: 0, requests: [] as ReturnType<typeof decodeRequest>[] };
  const { url, stop } = await bareH2((stream, n) => {
    seen.streams = n;
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => seen.requests.push(decodeRequest(Buffer.concat(chunks))));
    stream.on("close", () => {
      if (!stream.headersSent) seen.closedUnanswered++;
    });
    handle(stream, n);
  });
  const client = await TerrainClient.connect(url, { lazy: true });
  return { client, seen, stop };
}

function decodeRequest(body: Buffer) {
  assert.ok(body.length >= 5, "a gRPC frame");
  return fromBinary(SubscribeRequestSchema, body.subarray(5, 5 + body.readUInt32BE(1)));
}

const subscribed = (revision: bigint) =>
  frame({ kind: { case: "subscribed", value: { subscriptionId: "s", revision, epoch: "e1" } } });
const tiles = (revision: bigint) => frame({ kind: { case: "tiles", value: { world: "main", revision } } });

/** Answers `messages`, then ends the stream with status OK. */
const answer =
  (...messages: Buffer[]) =>
  (stream: http2.ServerHttp2Stream) => {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    for (const m of messages) stream.write(m);
    stream.end();
  };

const silent: Handler = () => {};
const headersOnly: Handler = (stream) => stream.respond({ ":status": 200, "content-type": "application/grpc" });

/** `p`, or a failure after `ms` (so a hang fails the test instead of stalling it). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, no) => {
    timer = setTimeout(() => no(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const settle = async (until: () => boolean) => {
  for (let i = 0; i < 200 && !until(); i++) await new Promise((ok) => setTimeout(ok, 10));
};

describe("opening a subscription when the server says nothing", () => {
  for (const [name, handle] of [
    ["no response at all", silent],
    ["response headers, then nothing", headersOnly],
  ] as const) {
    test(`${name}: open fails after openTimeoutMs as a transient DEADLINE_EXCEEDED and cancels the stream`, async () => {
      const { client, seen, stop } = await server(handle);
      try {
        const started = Date.now();
        const e = await within(
          Subscription.open(client, "main", { openTimeoutMs: 200 }).then(
            () => assert.fail("opened"),
            (e: unknown) => e,
          ),
          5_000,
          "Subscription.open",
        );
        const waited = Date.now() - started;
        assert.ok(e instanceof TerrainError, String(e));
        assert.equal(e.code, Code.DeadlineExceeded, e.message);
        assert.equal(e.transient, true);
        assert.match(e.message, /openTimeoutMs \(200 ms\)/);
        assert.ok(waited >= 190 && waited < 3_000, `waited ${waited} ms`);
        assert.equal(seen.streams, 1, "one attempt");
        if (handle === silent) {
          await settle(() => seen.closedUnanswered === 1);
          assert.equal(seen.closedUnanswered, 1, "the client cancelled the stream it gave up on");
        }
      } finally {
        await stop();
      }
    });
  }

  test("a reconnection that meets a silent server tries again and resumes from its last revision", async () => {
    const { client, seen, stop } = await server((stream, n) => {
      if (n === 1) answer(subscribed(3n), tiles(4n))(stream);
      else if (n <= 3) silent(stream, n);
      else answer(subscribed(4n), tiles(4n), tiles(5n))(stream);
    });
    try {
      const sub = await Subscription.open(client, "main", { openTimeoutMs: 150, initialBackoffMs: 1 });
      const first = await within(sub.next(), 5_000, "the first event");
      assert.equal(first.kind === "tiles" && first.event.revision, 4n);
      const second = await within(sub.next(), 10_000, "the event after the reconnection");
      assert.equal(second.kind === "tiles" && second.event.revision, 5n, "revision 4 is not delivered twice");
      assert.equal(seen.streams, 4, "two silent attempts, then the answer");
      assert.equal(sub.reconnects, 1);
      await settle(() => seen.requests.length === 4);
      const resumed = seen.requests[3];
      assert.equal(resumed?.fromRevision, 4n);
      assert.equal(resumed?.fromEpoch, "e1");
      sub.close();
    } finally {
      await stop();
    }
  });

  test("a stream whose first message is an event delivers it", async () => {
    const { client, stop } = await server((stream, n) => (n === 1 ? answer(tiles(5n), tiles(6n))(stream) : silent(stream, n)));
    try {
      const sub = await Subscription.open(client, "main", { fromRevision: 2n, openTimeoutMs: 150 });
      for (const revision of [5n, 6n]) {
        const e = await within(sub.next(), 5_000, `event ${revision}`);
        assert.equal(e.kind === "tiles" && e.event.revision, revision);
      }
      sub.close();
    } finally {
      await stop();
    }
  });

  test("a stream reset without a status fails open as transient; after events, it is reconnected and resumed", async () => {
    // As a proxy in between does when the server behind it goes: a reset, no trailers.
    const reset = (stream: http2.ServerHttp2Stream) => setTimeout(() => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 20);
    const { client, seen, stop } = await server((stream, n) => {
      if (n === 3) return answer(subscribed(4n), tiles(5n))(stream);
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      if (n === 1) reset(stream);
      else stream.write(Buffer.concat([subscribed(3n), tiles(4n)]), () => reset(stream));
    });
    try {
      // `open` makes one attempt: it rejects, with an error to retry on.
      const e = await within(Subscription.open(client, "main", { initialBackoffMs: 1 }).then(
        () => assert.fail("opened"),
        (e: unknown) => e,
      ), 5_000, "the first open");
      assert.ok(e instanceof TerrainError, String(e));
      assert.equal(e.connectionFailed, true, e.message);
      assert.equal(e.transient, true);
      const sub = await within(Subscription.open(client, "main", { initialBackoffMs: 1 }), 5_000, "open");
      for (const revision of [4n, 5n]) {
        const e = await within(sub.next(), 5_000, `event ${revision}`);
        assert.equal(e.kind === "tiles" && e.event.revision, revision);
      }
      assert.equal(seen.streams, 3);
      assert.equal(seen.requests[2]?.fromRevision, 4n, "resumed after the last event delivered");
      sub.close();
    } finally {
      await stop();
    }
  });

  test("close stops a wait for `subscribed` that has no bound", async () => {
    const { client, seen, stop } = await server((stream, n) => (n === 1 ? answer(subscribed(7n))(stream) : silent(stream, n)));
    try {
      const sub = await Subscription.open(client, "main", { openTimeoutMs: 0, initialBackoffMs: 1 });
      const pending = sub.next().then(
        () => assert.fail("an event"),
        (e: unknown) => e,
      );
      await settle(() => seen.streams === 2);
      assert.equal(seen.streams, 2, "the reconnection is waiting on the silent server");
      sub.close();
      const e = await within(pending, 2_000, "next after close");
      assert.match(String(e), /subscription closed/);
      await settle(() => seen.closedUnanswered === 1);
      assert.equal(seen.closedUnanswered, 1, "the waiting stream was cancelled");
    } finally {
      await stop();
    }
  });

  test("a bad openTimeoutMs, backoff or resync is refused, naming it, before any stream is opened", async () => {
    const { client, seen, stop } = await server(silent);
    try {
      for (const option of ["openTimeoutMs", "initialBackoffMs", "maxBackoffMs"]) {
        for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
          const opening = Subscription.open(client, "main", { [option]: bad });
          await assert.rejects(within(opening, 2_000, `${option} ${bad}`), (e: unknown) => {
            assert.ok(e instanceof RangeError, String(e));
            assert.ok(e.message.startsWith(`${option}: `), e.message);
            return true;
          });
        }
      }
      // As plain JavaScript may pass it (the type allows only the two names).
      const resync = { resync: "refech" } as unknown as { resync: "surface" };
      await assert.rejects(Subscription.open(client, "main", resync), /^RangeError: resync: expected "surface" or "refetch"/);
      assert.equal(seen.streams, 0, "nothing was sent");
    } finally {
      await stop();
    }
  });
});
