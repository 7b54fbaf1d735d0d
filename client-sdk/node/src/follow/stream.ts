// A world's events over the WebSocket (`GET /v1/worlds/{world}/events`), resumed
// across reconnections as the Rust SDK's `Subscription` resumes them
// (client-sdk/src/subscription.rs, in its `ResyncMode::Refetch` mode): it remembers
// the revision of the last event it delivered and the epoch of the history that
// revision belongs to, and when the socket ends or fails it opens a new one (with
// backoff, for as long as it takes) from there: the server replays what was missed,
// so every revision comes exactly once, in ascending order. A `resync` (history
// pruned, fell behind, or another history: an epoch change) refetches the zone list
// and hands it over; events continue after its revision.
import {
  type Backoff,
  FollowError,
  type Http,
  type ZoneList,
  backoffDelay,
  describe,
  getJson,
  listZones,
  revisionOf,
  sleep,
} from "./http.js";
import type { TileEvent, WebSocketConstructor, WebSocketLike } from "./types.js";

/** What `EventStream.next` delivers. */
export type StreamItem = { kind: "tiles"; event: TileEvent } | { kind: "resynced"; list: ZoneList };

/** What the open socket said, in order; `end` once it closed or failed. */
type Received = { text: string } | { end: string };

/**
 * One socket and what it has said that was not read yet. Its handlers are set before
 * it opens: a runtime may deliver the server's first frames in the same turn as the
 * open event (`ws` does when they share a packet with the upgrade's answer), and a
 * resync or a replay sent at once must not be lost.
 */
class Socket {
  private readonly queue: Received[] = [];
  private waiting: ((r: Received) => void) | null = null;
  private ended = false;
  /** Resolves `true` once open, or with why it ended before. */
  readonly opened: Promise<true | string>;
  private settle: (r: true | string) => void = () => {};

  constructor(readonly ws: WebSocketLike) {
    this.opened = new Promise((ok) => (this.settle = ok));
    ws.onopen = () => this.settle(true);
    ws.onmessage = (ev: { data?: unknown }) => {
      if (typeof ev.data === "string") this.push({ text: ev.data });
      else this.push({ end: "the server sent a binary message" });
    };
    ws.onerror = (ev: { message?: unknown; error?: unknown }) => this.push({ end: `socket error${errorText(ev)}` });
    ws.onclose = (ev: { code?: unknown; reason?: unknown }) =>
      this.push({ end: `socket closed (${String(ev.code ?? "?")}${ev.reason ? ` ${String(ev.reason)}` : ""})` });
  }

  private push(r: Received): void {
    if (this.ended) return;
    if ("end" in r) {
      this.ended = true;
      // Before the open event, this is why it did not open (a later call is a no-op).
      this.settle(r.end);
    }
    const wake = this.waiting;
    if (wake) {
      this.waiting = null;
      wake(r);
    } else this.queue.push(r);
  }

  /** The next thing the socket said. */
  read(): Promise<Received> {
    const r = this.queue.shift();
    if (r !== undefined) return Promise.resolve(r);
    return new Promise((ok) => (this.waiting = ok));
  }

  /** Closes the socket; a pending `read` (or the wait for opening) answers `end`. */
  close(why: string): void {
    try {
      // No reason: a browser throws on one over 123 bytes, and `why` is for the reader.
      this.ws.close(1000);
    } catch {
      // Closing a socket that never opened throws in some runtimes.
    }
    this.push({ end: why });
  }
}

/** What an error event says, where the runtime says anything (`ws` does; browsers do not). */
function errorText(ev: { message?: unknown; error?: unknown }): string {
  if (typeof ev?.message === "string" && ev.message !== "") return `: ${ev.message}`;
  if (ev?.error instanceof Error) return `: ${ev.error.message}`;
  return "";
}

export interface StreamSettings {
  http: Http;
  backoff: Backoff;
  world: string;
  WebSocket: WebSocketConstructor;
  pageSize: number | undefined;
}

/** A resumable event stream of one world; see the module comment. */
export class EventStream {
  private socket: Socket | null = null;
  /**
   * Sockets opened since one last delivered something: the backoff exponent, so a
   * socket that keeps closing at once is not reopened in a tight loop.
   */
  private fruitless = 0;
  /** How many times a socket was opened again after one ended. */
  reconnects = 0;

  private constructor(
    private readonly settings: StreamSettings,
    /** The revision of the last event delivered (or of the list the stream resumes from). */
    private last: number | undefined,
    /** The epoch of the history `last` belongs to. */
    private epoch: string,
  ) {}

  /** Opens the first socket from `revision` of `epoch`, so a refusal fails here. */
  static async open(settings: StreamSettings, revision: number, epoch: string): Promise<EventStream> {
    const stream = new EventStream(settings, revision, epoch);
    await stream.connect();
    return stream;
  }

  /** The revision everything up to has been delivered. */
  get lastRevision(): number | undefined {
    return this.last;
  }

  /** The next event or refetched list: waits, reconnecting as needed; fails only for good. */
  async next(): Promise<StreamItem> {
    for (;;) {
      if (this.socket === null) await this.reconnect();
      const socket = this.socket;
      if (socket === null) continue;
      const received = await socket.read();
      if (this.settings.http.signal.aborted) throw new FollowError("CANCELLED", "the follower is closed");
      if ("end" in received) {
        // Whatever ended the socket, a new one tells whether it lasts.
        this.socket = null;
        continue;
      }
      const item = await this.accept(received.text);
      if (item !== null) return item;
    }
  }

  /** Stops: closes the socket. */
  close(): void {
    this.socket?.close("follower closed");
    this.socket = null;
  }

  /** One frame: the item to deliver, if any. */
  private async accept(text: string): Promise<StreamItem | null> {
    let frame: any;
    try {
      frame = JSON.parse(text);
    } catch (e) {
      throw new FollowError("PROTOCOL", `events of ${JSON.stringify(this.settings.world)}: a frame that is not JSON (${describe(e)}): ${text.slice(0, 200)}`);
    }
    switch (frame?.type) {
      case "event": {
        const event = tileEvent(frame);
        if (event.epoch !== "" && this.epoch !== "" && event.epoch !== this.epoch) {
          // Another history's event without the resync the server sends first (its
          // revision says nothing of what is held): start again from a fresh list.
          return this.resync(event.revision, event.epoch);
        }
        if (this.last !== undefined && event.revision <= this.last) return null;
        this.last = event.revision;
        this.fruitless = 0;
        return { kind: "tiles", event };
      }
      case "resync":
        return this.resync(
          revisionOf(frame.revision, "resync"),
          typeof frame.epoch === "string" ? frame.epoch : "",
        );
      case "error":
        // Answers an area message; the follower sends none.
        throw new FollowError("PROTOCOL", `events of ${JSON.stringify(this.settings.world)}: the server refused a message: ${JSON.stringify(frame.error)}`);
      default:
        // An acknowledgement (`area`) or a frame type newer than this client: not ours.
        return null;
    }
  }

  /** A `resync` at `revision` of `epoch`: the zone list, refetched, and the resume point after it. */
  private async resync(revision: number, epoch: string): Promise<StreamItem> {
    this.fruitless = 0;
    if (this.epoch !== "" && epoch !== this.epoch) {
      // Another history: its revisions are not comparable with the ones held.
      this.last = undefined;
    }
    if (epoch !== "") this.epoch = epoch;
    const list = await this.refetch();
    if (list.epoch !== "" && list.epoch !== this.epoch) {
      // The history changed again in between: the list's is the one.
      this.epoch = list.epoch;
      this.last = list.revision;
    } else {
      this.last = Math.max(list.revision, revision);
    }
    return { kind: "resynced", list };
  }

  /** The zone list after a resync; waits out transient failures as a reconnection does. */
  private async refetch(): Promise<ZoneList> {
    const { http, backoff, world, pageSize } = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        return await listZones(http, backoff, world, pageSize);
      } catch (e) {
        if (!(e instanceof FollowError) || !e.transient || http.signal.aborted) throw e;
        await sleep(backoffDelay(backoff, attempt), http.signal);
      }
    }
  }

  /** Opens a socket from the resume point; retries transient failures for ever. */
  private async reconnect(): Promise<void> {
    const signal = this.settings.http.signal;
    this.reconnects++;
    let attempt = this.fruitless;
    for (;;) {
      if (signal.aborted) throw new FollowError("CANCELLED", "the follower is closed");
      if (attempt > 0) await sleep(backoffDelay(this.settings.backoff, attempt), signal);
      try {
        await this.connect();
        this.fruitless++;
        return;
      } catch (e) {
        if (!(e instanceof FollowError) || !e.transient) throw e;
        attempt++;
      }
    }
  }

  /** The socket's URL: the events route with the resume point. */
  private url(): string {
    const { http, world } = this.settings;
    const query = new URLSearchParams();
    if (this.last !== undefined) {
      query.set("fromRevision", String(this.last));
      if (this.epoch !== "") query.set("fromEpoch", this.epoch);
    }
    const base = http.base.replace(/^http/, "ws");
    const q = query.toString();
    return `${base}/v1/worlds/${encodeURIComponent(world)}/events${q === "" ? "" : `?${q}`}`;
  }

  /** One attempt to open a socket; a refusal is explained by asking over HTTP. */
  private async connect(): Promise<void> {
    const { http, WebSocket } = this.settings;
    const url = this.url();
    let ws: WebSocketLike;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      throw new FollowError("INVALID_ARGUMENT", `events: cannot open a WebSocket to ${url}: ${describe(e)}`, "url");
    }
    const socket = new Socket(ws);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abort = (): void => socket.close("the follower is closed");
    http.signal.addEventListener("abort", abort, { once: true });
    const opened = await Promise.race([
      socket.opened,
      new Promise<string>((ok) => (timer = setTimeout(() => ok(`no answer within ${http.timeoutMs} ms`), http.timeoutMs))),
    ]);
    clearTimeout(timer);
    http.signal.removeEventListener("abort", abort);
    if (opened === true) {
      this.socket = socket;
      return;
    }
    socket.close(opened);
    if (http.signal.aborted) throw new FollowError("CANCELLED", "the follower is closed");
    throw await this.explain(url, opened);
  }

  /**
   * Why a socket did not open. A WebSocket refused before the upgrade says nothing
   * of why to a browser page, so the world is asked for over HTTP: an answer naming
   * a missing world or refused access is that; a server that answers well was
   * refused something passing (its stream caps' 503, a restart), tried again.
   */
  private async explain(url: string, failure: string): Promise<FollowError> {
    const { http, world } = this.settings;
    const what = `events: ${url}: ${failure}`;
    try {
      await getJson(http, `/v1/worlds/${encodeURIComponent(world)}/height?x=0&z=0`, what);
    } catch (e) {
      if (e instanceof FollowError) return e;
      return new FollowError("UNAVAILABLE", `${what}: ${describe(e)}`);
    }
    return new FollowError("UNAVAILABLE", what);
  }
}

/** A tile event frame, checked for what the follower relies on. */
function tileEvent(frame: any): TileEvent {
  const revision = revisionOf(frame.revision, "event");
  const cause = frame.cause;
  const change = cause?.kind;
  if (typeof cause?.zone !== "string" || (change !== "registered" && change !== "replaced" && change !== "removed")) {
    throw new FollowError("PROTOCOL", `event at revision ${revision}: no cause {zone, kind} the follower knows: ${JSON.stringify(cause)}`);
  }
  return {
    revision,
    epoch: typeof frame.epoch === "string" ? frame.epoch : "",
    zone: cause.zone,
    change,
    bounds: frame.bounds,
    tileRects: frame.tileRects ?? [],
    tileCount: frame.tileCount ?? 0,
    tiles: frame.tiles ?? [],
    maxHeightDelta: frame.maxHeightDelta ?? null,
    tilesetContents: frame.tilesetContents ?? [],
  };
}
