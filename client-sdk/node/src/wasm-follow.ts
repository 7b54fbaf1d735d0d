// The follower `LocalTerrain.open` runs over the WebAssembly replica (src/wasm.ts): the
// zone follower of src/follow (the Rust replica's protocol over HTTP and the events
// WebSocket) driving the module's sink. The native addon follows over gRPC in Rust;
// this is the same protocol for where that addon does not load.
//
// On Node 22 and later the runtime's own WebSocket is used; Node 20 has none, and the
// `ws` package (a dependency) is taken instead. With `caFile` (a private CA for an
// `https://` server, as the addon's option), the HTTP reads go over node:https and the
// WebSocket is `ws`'s, both trusting that CA alone, as the addon's TLS does (no system
// roots): Node's fetch and its own WebSocket take their CAs from the process only.
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { Follower, type ZoneSink } from "./follow";
import type { FetchLike, WebSocketConstructor, WebSocketLike } from "./follow/types";
import type { FollowerHandle, WasmFollower, WasmSink } from "./wasm";
import type * as Addon from "./addon";
import { checkTimeoutMs, within } from "./revision-wait";

/** The runtime's WebSocket, else the `ws` package's. */
function webSocket(): WebSocketConstructor {
  const own = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (own !== undefined) return own;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("ws") as WebSocketConstructor;
}

/** The PEM text of `caFile`, refused as the addon refuses it (naming the option and
 * the path): a file that cannot be read, or holds no PEM certificate. */
function caPem(caFile: string): string {
  let pem: string;
  try {
    pem = readFileSync(caFile, "latin1");
  } catch (e) {
    throw new Error(`caFile ${caFile}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error(`caFile ${caFile}: no PEM CERTIFICATE block in the file`);
  }
  return pem;
}

/** A `fetch` of `GET`s over node:https trusting `ca` alone: what the follower asks of
 * fetch (the status, the body as text, its abort signal and headers). */
function fetchWithCa(ca: string): FetchLike {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason ?? new Error("aborted"));
        return;
      }
      const req = httpsRequest(
        input,
        { method: init?.method ?? "GET", headers: init?.headers as Record<string, string> | undefined, ca, ...(signal ? { signal } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (typeof v === "string") headers.set(k, v);
              else if (Array.isArray(v)) for (const one of v) headers.append(k, one);
            }
            const empty = status === 204 || status === 304 || status < 200;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
}

/** `ws`'s WebSocket trusting `ca` alone. */
function webSocketWithCa(ca: string): WebSocketConstructor {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const WS = require("ws") as new (url: string, options: { ca: string }) => WebSocketLike;
  return class extends WS {
    constructor(url: string) {
      super(url, { ca });
    }
  } as unknown as WebSocketConstructor;
}

/** Follows `world` of the server at `url` over HTTP and its events WebSocket, building
 * the replica from the first zone list and handing every later change to its sink. */
export const followOverHttp: WasmFollower = async ({ url, world, options, create, onPublish }) => {
  // Refused as the native addon refuses them, before anything is sent.
  const timeoutMs = options?.connectTimeoutMs;
  if (timeoutMs !== undefined) checkTimeoutMs("connectTimeoutMs", timeoutMs);
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1];
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
    throw new Error(`url: the scheme must be http:// or https://, got ${JSON.stringify(scheme)}`);
  }
  let transport: { fetch?: FetchLike; WebSocket: WebSocketConstructor } = { WebSocket: webSocket() };
  if (options?.caFile !== undefined) {
    // As the addon (terrain-client's ClientBuilder): a CA only for an https:// URL.
    if (scheme !== "https") throw new Error("caFile is given but the URL is not https:// (TLS would not be used)");
    const ca = caPem(options.caFile);
    transport = { fetch: fetchWithCa(ca), WebSocket: webSocketWithCa(ca) };
  }
  let sink: WasmSink | null = null;
  const events: Addon.LocalEvent[] = [];
  const takers: ((event: Addon.LocalEvent | null) => void)[] = [];
  let ended = false;
  const deliver = (event: Addon.LocalEvent | null) => {
    const taker = takers.shift();
    if (taker !== undefined) taker(event);
    else if (event !== null) events.push(event);
  };
  const zones = (revision: number, list: unknown[]) => JSON.stringify({ zones: list, revision });
  const follower = await Follower.open({
    url,
    world,
    ...transport,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    sink: (listing): ZoneSink => ({
      reset(revision, list) {
        if (sink === null) sink = create(JSON.stringify(listing), zones(revision, list));
        else onPublish(sink.reset(revision, zones(revision, list)));
      },
      put(revision, zone) {
        if (sink !== null) onPublish(sink.put(revision, JSON.stringify(zone)));
      },
      remove(revision, id) {
        if (sink !== null) onPublish(sink.remove(revision, id));
      },
    }),
  });
  follower.on("tiles", ({ event }) => {
    const b = event.bounds;
    const local: Addon.LocalEvent = {
      kind: event.change,
      revision: event.revision,
      zone: event.zone,
      bounds: { minX: b.minX, minZ: b.minZ, maxX: b.maxX, maxZ: b.maxZ },
      tileCount: event.tileCount,
    };
    if (event.maxHeightDelta !== null) local.maxHeightDelta = event.maxHeightDelta;
    deliver(local);
  });
  follower.on("rebuilt", ({ revision }) => deliver({ kind: "rebuilt", revision }));
  follower.on("stopped", () => {
    ended = true;
    while (takers.length > 0) deliver(null);
  });
  const handle: FollowerHandle = {
    close() {
      ended = true;
      follower.close();
      while (takers.length > 0) deliver(null);
    },
    waitForRevision(revision, timeoutMs) {
      return within(revision, timeoutMs, follower.waitForRevision(revision), () => follower.revision);
    },
    nextEvent() {
      const event = events.shift();
      if (event !== undefined) return Promise.resolve(event);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => takers.push(resolve));
    },
  };
  return handle;
};
