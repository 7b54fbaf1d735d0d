// The follower's public types: what it reads from the server (zone documents, the
// world's description, tile events), what it writes to (a `ZoneSink`) and what it
// says (`FollowerEvent`). Runtime-neutral: nothing here needs Node.

/**
 * A flat zone as the server's HTTP API answers it (`GET .../flat-zones/{id}` and the
 * zone list): the registered body with its `id`, its resolved `height` and the
 * `revision` that registered it, which orders overlapping zones of equal priority.
 * Passed to the sink as parsed, unchanged (JSON numbers parse to the server's exact
 * doubles), so a sink that builds terrain from it builds the server's.
 */
export interface ZoneDocument {
  id: string;
  /** The revision that registered this version of the zone. */
  revision: number;
  centerX: number;
  centerZ: number;
  [key: string]: unknown;
}

/**
 * A world as `GET /v1/worlds` lists it (`id`, `generator`, `seed`, `tileSize`,
 * `overlap`, `layout`, `walkability`, ...): what a sink needs to build the world's
 * ground, as listed when the follower opened.
 */
export interface WorldInfo {
  id: string;
  generator: string;
  seed: number;
  [key: string]: unknown;
}

/**
 * Where the follower writes the world's zones: a terrain replica (the WebAssembly
 * module's), or anything that keeps zones.
 *
 * Every call of one publication carries the same revision, and once they are made
 * (and `commit`, when the sink has it, is called with that revision) the sink holds
 * exactly the server's zones at that revision. Between publications the sink is never
 * shown a state the server did not have: a zone whose fetch already saw a later change
 * is held back until that change's event arrives (see `Follower`). Revisions only
 * grow, except across `reset`, which may start another history of the world.
 * A method that throws stops the follower (`stopped`, naming the call).
 */
export interface ZoneSink {
  /** Replace everything with `zones` (in registration order), the state at `revision`. */
  reset(revision: number, zones: ZoneDocument[]): void;
  /** Add `zone`, or replace the zone of the same id. */
  put(revision: number, zone: ZoneDocument): void;
  /** Remove the zone `id`. */
  remove(revision: number, id: string): void;
  /**
   * Optional: every call of the publication at `revision` has been made; the sink now
   * holds the server's state at `revision` (the place to swap a snapshot in).
   */
  commit?(revision: number): void;
}

/** The tiles a change touched, as the events WebSocket names them. */
export interface TileEvent {
  revision: number;
  /** The epoch of the world's history the revision belongs to. */
  epoch: string;
  /** The zone the change registered, replaced or removed. */
  zone: string;
  change: "registered" | "replaced" | "removed";
  /** The area whose heights may have changed, in metres. */
  bounds: { minX: number; minZ: number; maxX: number; maxZ: number };
  /** Inclusive tile rectangles `[minTx, minTz, maxTx, maxTz]`; the change touched their union. */
  tileRects: [number, number, number, number][];
  tileCount: number;
  /** The tiles one by one, only when there are at most 256. */
  tiles: [number, number][];
  /** The largest height change inside `bounds` (sampled), when the server says. */
  maxHeightDelta: number | null;
  /** The 3D Tiles contents the change changed, `[level, minX, minY, maxX, maxY]`. */
  tilesetContents: [number, number, number, number, number][];
}

/** What a follower says, each after the state it describes is in the sink. */
export type FollowerEvent =
  /** A change is now in the sink: re-read what stands inside `event.bounds`. */
  | { kind: "tiles"; event: TileEvent }
  /**
   * The sink was reset from a fresh zone list at `revision` (the server could not
   * replay, or it now holds another history of the world: restored from a backup,
   * restarted empty): re-read everything.
   */
  | { kind: "rebuilt"; revision: number }
  /** The follower stopped for good (its last event): `reason` says why. */
  | { kind: "stopped"; reason: string; error: Error };

/** The smallest part of a WebSocket the follower uses: the browser's, `ws`'s, undici's. */
export interface WebSocketLike {
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers, or `ws`'s on Node 20. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** A `fetch` function (the global one by default). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface FollowerOptions {
  /** The server's base URL, `http://host:port` or `https://...`. */
  url: string;
  /** The world to follow. */
  world: string;
  /**
   * The sink, or a function making it from the world's description (called once,
   * before the first `reset`).
   */
  sink: ZoneSink | ((world: WorldInfo) => ZoneSink);
  /**
   * Sent as `Authorization: Bearer ...` on the HTTP reads. The server's reads are
   * open (only mutations need its admin token), and a browser sends a CORS preflight
   * for every URL a request with this header goes to, so leave it out unless a proxy
   * in front asks for it. The WebSocket never carries it (browsers cannot set headers).
   */
  token?: string;
  /** The WebSocket constructor; default `globalThis.WebSocket` (absent on Node 20). */
  WebSocket?: WebSocketConstructor;
  /** The fetch function; default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Zones a page of the zone list (1 to 1,000); default the server's (500). */
  pageSize?: number;
  /** First reconnection delay in ms, doubled per fruitless attempt (default 50). */
  initialBackoffMs?: number;
  /** Largest reconnection delay in ms (default 2,000). */
  maxBackoffMs?: number;
  /** How long one HTTP request, or one attempt to open the WebSocket, may take in ms (default 10,000). */
  timeoutMs?: number;
}
