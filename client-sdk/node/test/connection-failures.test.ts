// TerrainClient when the connection fails under a call: against a bare HTTP/2 server
// that refuses, resets or closes each stream the way a stopping server can, and one
// that answers a gRPC status itself. A failure the server sent no status for is
// retried (reads; a Subscription reconnects on it), as the Rust SDK does; a status the
// server sent, or the caller's own cancellation, is not.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { describe, test } from "node:test";

import { Code } from "@connectrpc/connect";

import { TerrainClient, TerrainError } from "../src/index";
import { bareH2 } from "./bare-h2";

const H2 = http2.constants;

/** A server that treats every stream with `handle`; counts the streams. */
async function misbehaving(handle: (stream: http2.ServerHttp2Stream) => void) {
  const seen = { streams: 0 };
  const { url, stop } = await bareH2((stream, n) => {
    seen.streams = n;
    handle(stream);
  });
  const client = await TerrainClient.connect(url, {
    lazy: true,
    retry: { maxAttempts: 3, initialBackoffMs: 1, maxBackoffMs: 1 },
  });
  return { client, seen, stop };
}

async function failure(call: Promise<unknown>): Promise<TerrainError> {
  const e = await call.then(
    () => assert.fail("the call succeeded"),
    (e: unknown) => e,
  );
  assert.ok(e instanceof TerrainError, String(e));
  return e;
}

const grpcStatus = (code: number, message: string) => (stream: http2.ServerHttp2Stream) =>
  stream.respond(
    { ":status": 200, "content-type": "application/grpc", "grpc-status": String(code), "grpc-message": message },
    { endStream: true },
  );

describe("a connection that fails under a call", () => {
  const cases: [string, (s: http2.ServerHttp2Stream) => void, Code][] = [
    ["a refused stream (REFUSED_STREAM, as a stopping server sends)", (s) => s.close(H2.NGHTTP2_REFUSED_STREAM), Code.Internal],
    ["a stream reset with INTERNAL_ERROR", (s) => s.close(H2.NGHTTP2_INTERNAL_ERROR), Code.Internal],
    [
      "a stream reset after the response headers (Connect: missing status)",
      (s) => {
        s.respond({ ":status": 200, "content-type": "application/grpc" });
        setTimeout(() => s.close(H2.NGHTTP2_INTERNAL_ERROR), 10);
      },
      Code.Internal,
    ],
    ["a session the server closed", (s) => s.session?.destroy(), Code.Canceled],
    [
      "a session closed after the response headers",
      (s) => {
        s.respond({ ":status": 200, "content-type": "application/grpc" });
        setTimeout(() => s.session?.destroy(), 10);
      },
      Code.Canceled,
    ],
  ];
  for (const [name, handle, code] of cases) {
    test(`${name}: a read is retried, then fails as connectionFailed`, async () => {
      const { client, seen, stop } = await misbehaving(handle);
      try {
        const e = await failure(client.getHeight({ world: "main", x: 1, z: 2 }));
        assert.equal(e.code, code, e.message);
        assert.equal(e.connectionFailed, true, e.message);
        assert.equal(e.transient, true);
        assert.equal(seen.streams, 3, "every attempt of the policy was made");
        // A stream fails the same way, so a Subscription reconnects on it.
        const stream = client.subscribe({ world: "main" })[Symbol.asyncIterator]();
        const s = await failure(stream.next());
        assert.equal(s.connectionFailed, true, s.message);
        // Mutations are sent once, whatever the failure.
        const before = seen.streams;
        const m = await failure(client.registerFlatZone({ world: "main", zone: { id: "z", width: 1, depth: 1 } }));
        assert.equal(m.connectionFailed, true, m.message);
        assert.equal(seen.streams, before + 1, "sent once");
      } finally {
        await stop();
      }
    });
  }

  test("a status the server sent is not a connection failure, whatever its code", async () => {
    for (const [code, name] of [
      [13, Code.Internal],
      [1, Code.Canceled],
    ] as const) {
      const { client, seen, stop } = await misbehaving(grpcStatus(code, "sent by the server"));
      try {
        const e = await failure(client.getHeight({ world: "main", x: 1, z: 2 }));
        assert.equal(e.code, name);
        assert.equal(e.rawMessage, "sent by the server");
        assert.equal(e.connectionFailed, false);
        assert.equal(e.transient, false);
        assert.equal(seen.streams, 1, "not retried");
      } finally {
        await stop();
      }
    }
  });

  test("a call the caller cancelled is not a connection failure", async () => {
    const { client, seen, stop } = await misbehaving(() => {}); // never answers
    try {
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 50);
      const e = await failure(client.getHeight({ world: "main", x: 1, z: 2 }, { signal: abort.signal }));
      assert.equal(e.code, Code.Canceled);
      assert.equal(e.connectionFailed, false);
      assert.equal(e.transient, false);
      assert.equal(seen.streams, 1, "not retried");
    } finally {
      await stop();
    }
  });
});
