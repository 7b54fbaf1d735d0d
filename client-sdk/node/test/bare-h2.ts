// A bare HTTP/2 server on 127.0.0.1:0 for tests of how the client meets a server that
// misbehaves: every stream goes to `handle` (with its number, from 1), stream and
// session errors are expected (the resets are the point), and `stop` closes it with
// its sessions. `frame` is one event as gRPC frames it, for a server that answers.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";

import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";

import { EventSchema } from "../src/gen/terrain/v1/events_pb";

export async function bareH2(handle: (stream: http2.ServerHttp2Stream, n: number) => void) {
  const server = http2.createServer();
  let streams = 0;
  server.on("stream", (stream) => {
    stream.on("error", () => {});
    handle(stream, ++streams);
  });
  server.on("sessionError", () => {});
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = () =>
    new Promise<void>((ok) => {
      server.close(() => ok());
      for (const session of sessions) session.destroy();
    });
  return { url, stop };
}

/** `event` as one gRPC message frame (uncompressed, its length big-endian). */
export function frame(event: MessageInitShape<typeof EventSchema>): Buffer {
  const bytes = toBinary(EventSchema, create(EventSchema, event));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, Buffer.from(bytes)]);
}
