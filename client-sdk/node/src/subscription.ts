// Subscription: a world's event stream that survives server restarts and network cuts,
// as the Rust SDK's (client-sdk/src/subscription.rs). It remembers the revision of the
// last event it delivered and, when the stream ends or fails, reopens it (with backoff,
// for as long as it takes) from there: the server replays what was missed from its
// mutation log, so the caller sees every revision exactly once, in ascending order.
//
// When the server cannot replay (history pruned, or this subscriber fell behind) it
// says `resync`: in "surface" mode the caller gets `{ kind: "resync" }` and re-reads
// what it holds; in "refetch" mode the subscription fetches the zone list itself and
// hands it over as `{ kind: "resynced" }`, then continues after the list's revision.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import type { TerrainClient } from "./client";
import { durationMs, TerrainError } from "./client";
import type { SubscriptionAreaSchema, TileEvent } from "./gen/terrain/v1/events_pb";
import type { ListFlatZonesResponse } from "./gen/terrain/v1/terrain_pb";

/** An area of interest: `{ area: { case: "circle", value: { x, z, radius } } }`, or tiles. */
export type Area = MessageInitShape<typeof SubscriptionAreaSchema>;

/** What {@link Subscription.next} delivers. */
export type SubscriptionEvent =
  /** A committed mutation; each revision exactly once, in ascending order. */
  | { kind: "tiles"; event: TileEvent }
  /** Events up to `revision` could not be delivered: re-read the state. */
  | { kind: "resync"; revision: bigint }
  /** The zone list, refetched after a resync ("refetch" mode); events continue after it. */
  | { kind: "resynced"; zones: ListFlatZonesResponse };

export interface SubscriptionOptions {
  /** Only events matching this area (default: everything). */
  area?: Area;
  /** Deliver every event after this revision first (default: live from opening). */
  fromRevision?: bigint;
  /**
   * The epoch of the world's history `fromRevision` was heard in (a zone list's
   * `epoch`, or {@link Subscription.epoch}): a server with another history (restored
   * from a backup, restarted on an empty data directory) answers with a resync
   * instead of replaying events that are not the ones after what you hold.
   */
  fromEpoch?: string;
  /** What a `resync` does (default "surface"). */
  resync?: "surface" | "refetch";
  /** First reconnection delay in ms, doubled per fruitless attempt (default 50). */
  initialBackoffMs?: number;
  /** Largest reconnection delay in ms (default 2,000). */
  maxBackoffMs?: number;
  /**
   * How long one attempt to open the stream waits for the server's `subscribed` (its
   * first message) in ms, default 10,000; 0 waits as long as it takes. An attempt that
   * runs out fails as `DEADLINE_EXCEEDED`, which is transient: {@link Subscription.open}
   * rejects with it, a reconnection tries again. A server answers at once; this bounds
   * a connection or proxy that accepts the stream and then says nothing.
   */
  openTimeoutMs?: number;
}

type StreamMessage = Awaited<ReturnType<TerrainClient["subscribe"]>> extends AsyncIterable<infer M>
  ? M
  : never;

/** A resumable event stream of one world; see the module comment. */
export class Subscription implements AsyncIterable<SubscriptionEvent> {
  private last: bigint | undefined;
  /** The epoch of the history `last` belongs to, once known. */
  private epochSeen: string | undefined;
  private area: Area | undefined;
  private stream: AsyncIterator<StreamMessage> | undefined;
  /** The open stream's first message when it was not `subscribed`, for {@link next}. */
  private first: StreamMessage | undefined;
  private abort: AbortController | undefined;
  private subscriptionId: string | undefined;
  private fruitless = 0;
  private closed = false;
  private reconnectCount = 0;
  private readonly resync: "surface" | "refetch";
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly openTimeoutMs: number;
  /** The stream being opened, so {@link close} can stop the wait for `subscribed`. */
  private opening: AbortController | undefined;

  private constructor(
    private readonly client: TerrainClient,
    readonly world: string,
    options: SubscriptionOptions,
  ) {
    this.last = options.fromRevision;
    this.epochSeen = options.fromRevision === undefined ? undefined : options.fromEpoch || undefined;
    this.area = options.area;
    const resync = options.resync ?? "surface";
    if (resync !== "surface" && resync !== "refetch") {
      throw new RangeError(`resync: expected "surface" or "refetch" (got ${JSON.stringify(resync)})`);
    }
    this.resync = resync;
    // A NaN, negative or too long backoff would fire at once: reconnections without pause.
    this.initialBackoffMs = durationMs("initialBackoffMs", options.initialBackoffMs ?? 50);
    this.maxBackoffMs = durationMs("maxBackoffMs", options.maxBackoffMs ?? 2_000);
    this.openTimeoutMs = durationMs("openTimeoutMs", options.openTimeoutMs ?? 10_000);
  }

  /** Opens the first stream, so an unknown world or a bad area fails here. */
  static async open(client: TerrainClient, world: string, options: SubscriptionOptions = {}): Promise<Subscription> {
    const sub = new Subscription(client, world, options);
    await sub.connect();
    return sub;
  }

  /** The revision the caller has seen everything up to. */
  get lastRevision(): bigint | undefined {
    return this.last;
  }

  /** The epoch of the history {@link Subscription.lastRevision} belongs to, once a stream said it. */
  get epoch(): string | undefined {
    return this.epochSeen;
  }

  /** How many times the stream was reopened after ending or failing. */
  get reconnects(): number {
    return this.reconnectCount;
  }

  /** Changes the area of interest: on the open stream, and on every stream opened after. */
  async setArea(area: Area | undefined): Promise<void> {
    this.area = area;
    if (this.subscriptionId === undefined || this.stream === undefined) return;
    try {
      await this.client.updateSubscription({ subscriptionId: this.subscriptionId, area });
    } catch (e) {
      // The stream went away meanwhile: the next one opens with the area. (The proto's
      // spelling; servers before it named the field in camelCase.)
      if (e instanceof TerrainError && (e.transient || e.field === "subscription_id" || e.field === "subscriptionId")) {
        this.dropStream();
        return;
      }
      throw e;
    }
  }

  /**
   * The next event: waits, reconnecting as needed. Fails only for errors reconnecting
   * cannot cure (the world is gone, the area is invalid, ...) or after {@link close}.
   */
  async next(): Promise<SubscriptionEvent> {
    for (;;) {
      if (this.closed) throw closedError();
      if (this.stream === undefined) await this.reconnect();
      const stream = this.stream;
      if (stream === undefined) continue;
      let message: IteratorResult<StreamMessage>;
      try {
        const first = this.first;
        this.first = undefined;
        message = first === undefined ? await stream.next() : { done: false, value: first };
      } catch {
        // Whatever broke the open stream, a new one tells whether it lasts.
        this.dropStream();
        continue;
      }
      if (message.done) {
        this.dropStream();
        continue;
      }
      const event = await this.accept(message.value);
      if (event !== undefined) return event;
    }
  }

  /** Stops the stream (or the attempt to open one); a pending or later {@link next} throws. Idempotent. */
  close(): void {
    this.closed = true;
    this.opening?.abort();
    this.dropStream();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SubscriptionEvent> {
    while (!this.closed) yield await this.next();
  }

  private async accept(message: StreamMessage): Promise<SubscriptionEvent | undefined> {
    const kind = message.kind;
    switch (kind.case) {
      case "subscribed":
        this.subscriptionId = kind.value.subscriptionId;
        // A live stream starts at the world's revision of its opening. A resume from
        // another history is followed by a `resync` (the server checks the epoch
        // sent), which moves to the new one.
        this.last ??= kind.value.revision;
        this.epochSeen ??= kind.value.epoch || undefined;
        return undefined;
      case "tiles": {
        const event = kind.value;
        if (this.last !== undefined && event.revision <= this.last) return undefined;
        this.last = event.revision;
        this.fruitless = 0;
        return { kind: "tiles", event };
      }
      case "resync": {
        this.fruitless = 0;
        const revision = kind.value.revision;
        // Another history: its revisions are not comparable with the ones held.
        if (this.epochSeen !== undefined && kind.value.epoch !== this.epochSeen) this.last = undefined;
        this.epochSeen = kind.value.epoch || undefined;
        if (this.resync === "surface") {
          this.last = this.last === undefined || this.last < revision ? revision : this.last;
          return { kind: "resync", revision };
        }
        const zones = await this.refetch();
        if (zones.epoch !== "" && zones.epoch !== this.epochSeen) {
          // The history changed again in between: the list's is the one.
          this.epochSeen = zones.epoch;
          this.last = zones.revision;
        } else {
          this.last = this.last === undefined || zones.revision > revision ? zones.revision : revision;
        }
        return { kind: "resynced", zones };
      }
      default:
        return undefined;
    }
  }

  /** The zone list for a resync; waits out transient failures like a reconnection. */
  private async refetch(): Promise<ListFlatZonesResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.listFlatZones({ world: this.world });
      } catch (e) {
        if (!(e instanceof TerrainError) || !e.transient || this.closed) throw e;
        await sleep(this.backoff(attempt));
      }
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.initialBackoffMs * 2 ** Math.max(0, attempt - 1), this.maxBackoffMs);
  }

  /** Opens a stream from the resume point; retries transient failures forever. */
  private async reconnect(): Promise<void> {
    this.reconnectCount++;
    for (let attempt = this.fruitless; ; attempt++) {
      if (attempt > 0) await sleep(this.backoff(attempt));
      if (this.closed) throw closedError();
      try {
        await this.connect();
        this.fruitless++;
        return;
      } catch (e) {
        if (!(e instanceof TerrainError) || !e.transient) throw e;
      }
    }
  }

  /**
   * One attempt: opens the stream and reads its first message (`subscribed`), so a
   * refusal (unknown world, bad area, server down) surfaces here, not later. Waits at
   * most `openTimeoutMs` for it.
   */
  private async connect(): Promise<void> {
    if (this.closed) throw closedError();
    const abort = new AbortController();
    const fromEpoch = this.last === undefined ? undefined : this.epochSeen;
    const request = { world: this.world, area: this.area, fromRevision: this.last, fromEpoch };
    const stream = this.client.subscribe(request, { signal: abort.signal })[Symbol.asyncIterator]();
    let timedOut = false;
    const timer =
      this.openTimeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            abort.abort();
          }, this.openTimeoutMs)
        : undefined;
    this.opening = abort;
    let first: IteratorResult<StreamMessage>;
    try {
      first = await stream.next();
    } catch (e) {
      abort.abort();
      if (this.closed) throw closedError();
      if (timedOut) {
        const waited = `no \`subscribed\` from the server within openTimeoutMs (${this.openTimeoutMs} ms)`;
        throw new TerrainError(SUBSCRIBE, new ConnectError(waited, Code.DeadlineExceeded));
      }
      throw e;
    } finally {
      clearTimeout(timer);
      this.opening = undefined;
    }
    if (first.done) {
      abort.abort();
      throw new TerrainError(SUBSCRIBE, new ConnectError("the stream ended before `subscribed`", Code.Unavailable));
    }
    if (this.closed) {
      abort.abort();
      throw closedError();
    }
    this.stream = stream;
    this.abort = abort;
    this.subscriptionId = undefined;
    // `subscribed` is taken in here; anything else is the first event, for `next`.
    if (first.value.kind.case === "subscribed") await this.accept(first.value);
    else this.first = first.value;
  }

  private dropStream(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.stream = undefined;
    this.first = undefined;
    this.subscriptionId = undefined;
  }
}

const SUBSCRIBE = "terrain.v1.TerrainEvents.Subscribe";

/** What a {@link Subscription.next} pending at or called after {@link Subscription.close} rejects with. */
const closedError = (): Error => new Error("subscription closed");

const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));
