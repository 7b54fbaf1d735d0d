// `Follower`: keeps a `ZoneSink` equal to one world's zones on the server, over HTTP
// and the events WebSocket, as the Rust SDK's replica follows over gRPC
// (client-sdk/src/replica.rs), so it runs where gRPC cannot: in a browser, or on
// Node beside the WebAssembly build.
//
// It reads the world's description and every page of one zone listing (one
// revision), resets the sink to it, then follows the events from that revision. Each
// event names a zone: a removal is applied as is; a registration or replacement
// fetches the zone (`GET .../flat-zones/{id}`). The fetch may already see a later
// change of that zone (a newer revision, or the zone gone); the follower then holds
// it *ahead* and publishes nothing until the event of that later change has arrived,
// so every state the sink is handed is exactly the server's at the revision it is
// handed with. A `resync`, or a server that now holds another history of the world,
// resets the sink from a fresh listing and says `rebuilt`.
//
// One loop is the only writer of the sink; `close()` ends it.
import {
  FollowError,
  type Http,
  type ZoneList,
  describe,
  getZone,
  listZones,
  sleep,
  worldInfo,
} from "./http.js";
import { EventStream } from "./stream.js";
import type { FollowerEvent, FollowerOptions, TileEvent, WorldInfo, ZoneDocument, ZoneSink } from "./types.js";

/** Delay between attempts to fetch a zone while the server is away (the Rust replica's `FETCH_BACKOFF`). */
const FETCH_BACKOFF_MS = 100;

type Listener<K extends FollowerEvent["kind"]> = (event: Extract<FollowerEvent, { kind: K }>) => void;

/** A follower of one world's zones; see the module comment. */
export class Follower {
  /** The zones as events are applied; handed to the sink when consistent. */
  private readonly working = new Map<string, ZoneDocument>();
  /** What the sink holds (the last publication). */
  private readonly published = new Map<string, ZoneDocument>();
  /** Ids whose working state may differ from the sink's. */
  private readonly dirty = new Set<string>();
  /**
   * Zones fetched ahead of the event being applied: id -> the revision of the later
   * change to wait for (`null`: a removal).
   */
  private readonly ahead = new Map<string, number | null>();
  /** Events applied to `working` since the last publication. */
  private applied: TileEvent[] = [];
  private current: number;
  private failure: FollowError | null = null;
  private readonly waiters = new Set<{ revision: number; ok: (r: number) => void; fail: (e: Error) => void }>();
  private readonly listeners = new Map<string, Set<(event: any) => void>>();
  private stream: EventStream | null = null;

  private constructor(
    /** The world as `GET /v1/worlds` listed it when the follower opened. */
    readonly world: WorldInfo,
    private readonly sink: ZoneSink,
    private readonly http: Http,
    /** Aborts every request, sleep and socket of this follower when it closes. */
    private readonly controller: AbortController,
    list: ZoneList,
  ) {
    this.current = list.revision;
  }

  /**
   * Reads world `world`'s zones from the server at `url`, resets the sink to them and
   * starts following. Rejects (a `FollowError` naming what failed) when the world is
   * not hosted, the server cannot be reached, or the WebSocket cannot be opened.
   */
  static async open(options: FollowerOptions): Promise<Follower> {
    const fetchFn = options.fetch ?? (globalThis.fetch?.bind(globalThis) as FollowerOptions["fetch"]);
    if (fetchFn === undefined) throw new FollowError("INVALID_ARGUMENT", "fetch: this runtime has no global fetch; pass one", "fetch");
    const WebSocket = options.WebSocket ?? (globalThis as { WebSocket?: FollowerOptions["WebSocket"] }).WebSocket;
    if (WebSocket === undefined) {
      throw new FollowError("INVALID_ARGUMENT", "WebSocket: this runtime has no global WebSocket (Node 20): pass a constructor, e.g. the ws package's", "WebSocket");
    }
    const base = checkUrl(options.url);
    if (typeof options.world !== "string" || options.world === "") {
      throw new FollowError("INVALID_ARGUMENT", "world: must be a world's id", "world");
    }
    const pageSize = options.pageSize;
    if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) {
      throw new FollowError("INVALID_ARGUMENT", `pageSize: must be a whole number from 1 to 1000, got ${pageSize}`, "pageSize");
    }
    const backoff = { initialMs: positive(options.initialBackoffMs, 50, "initialBackoffMs"), maxMs: positive(options.maxBackoffMs, 2000, "maxBackoffMs") };
    const controller = new AbortController();
    const http: Http = {
      base,
      fetch: fetchFn,
      token: options.token,
      timeoutMs: positive(options.timeoutMs, 10_000, "timeoutMs"),
      signal: controller.signal,
    };
    const world = await worldInfo(http, backoff, options.world);
    const list = await listZones(http, backoff, options.world, pageSize);
    let sink: ZoneSink;
    try {
      sink = typeof options.sink === "function" ? options.sink(world) : options.sink;
    } catch (e) {
      throw new FollowError("UNKNOWN", `sink: the function making the sink from world ${JSON.stringify(world.id)} threw: ${describe(e)}`, "sink");
    }
    const follower = new Follower(world, sink, http, controller, list);
    follower.reset(list);
    if (follower.failure !== null) throw follower.failure;
    // The list's epoch with its revision: a server that comes back with another
    // history answers the resume with a resync, and the follower rebuilds instead
    // of applying that history's events on top.
    follower.stream = await EventStream.open(
      { http, backoff, world: options.world, WebSocket, pageSize },
      list.revision,
      list.epoch,
    );
    void follower.run(follower.stream);
    return follower;
  }

  /** The revision the sink holds the server's state of. */
  get revision(): number {
    return this.current;
  }

  /** Why the follower stopped, once it has (`null` while it follows). */
  get stopped(): FollowError | null {
    return this.failure;
  }

  /** How many times the WebSocket was opened again after one ended. */
  get reconnects(): number {
    return this.stream?.reconnects ?? 0;
  }

  /** Calls `listener` with every event of `kind` from now on; returns what removes it. */
  on<K extends FollowerEvent["kind"]>(kind: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(kind);
    if (set === undefined) this.listeners.set(kind, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Resolves with the published revision once it is `revision` or later; rejects
   * with why the follower stopped (or was closed) if it stops first.
   */
  waitForRevision(revision: number): Promise<number> {
    if (!Number.isSafeInteger(revision) || revision < 0) {
      return Promise.reject(new FollowError("INVALID_ARGUMENT", `revision: must be a whole number from 0, got ${revision}`, "revision"));
    }
    if (this.current >= revision) return Promise.resolve(this.current);
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((ok, fail) => this.waiters.add({ revision, ok, fail }));
  }

  /** Stops following: closes the socket, ends pending reads; waiters reject (CANCELLED). */
  close(): void {
    if (this.controller.signal.aborted) return;
    this.controller.abort();
    this.stream?.close();
    this.fail(new FollowError("CANCELLED", "the follower is closed"), false);
  }

  // === the loop ===

  private async run(stream: EventStream): Promise<void> {
    for (;;) {
      try {
        const item = await stream.next();
        if (this.controller.signal.aborted) return;
        if (item.kind === "tiles") await this.apply(item.event);
        else this.rebuild(item.list);
        if (this.failure !== null) return;
      } catch (e) {
        if (this.controller.signal.aborted) return;
        const error = e instanceof FollowError ? e : new FollowError("UNKNOWN", describe(e));
        this.fail(error, true);
        stream.close();
        return;
      }
    }
  }

  private rebuild(list: ZoneList): void {
    this.ahead.clear();
    this.applied = [];
    this.reset(list);
    if (this.failure === null) this.emit({ kind: "rebuilt", revision: list.revision });
  }

  /** The sink and the working state set to `list`, published at its revision. */
  private reset(list: ZoneList): void {
    this.working.clear();
    for (const zone of list.zones) this.working.set(zone.id, zone);
    this.dirty.clear();
    this.published.clear();
    for (const [id, zone] of this.working) this.published.set(id, zone);
    if (!this.call(() => this.sink.reset(list.revision, list.zones), `reset(${list.revision}, ${list.zones.length} zones)`)) return;
    this.commit(list.revision);
  }

  private async apply(event: TileEvent): Promise<void> {
    const id = event.zone;
    const waited = this.ahead.get(id);
    this.ahead.delete(id);
    if (event.change === "removed") {
      this.working.delete(id);
      this.dirty.add(id);
    } else if (waited != null && waited > event.revision) {
      // Already holding a later state of this zone: wait on.
      this.ahead.set(id, waited);
    } else {
      await this.fetchAndInstall(id, event.revision);
    }
    this.applied.push(event);
    if (this.ahead.size === 0) {
      if (!this.publish(event.revision)) return;
      const applied = this.applied;
      this.applied = [];
      for (const e of applied) this.emit({ kind: "tiles", event: e });
    }
  }

  /**
   * Fetches zone `id` after the event at `revision` and installs what the server
   * holds, noting when that is a later state than `revision`'s.
   */
  private async fetchAndInstall(id: string, revision: number): Promise<void> {
    let zone: ZoneDocument | null;
    for (;;) {
      try {
        zone = await getZone(this.http, this.world.id, id);
        break;
      } catch (e) {
        if (!(e instanceof FollowError) || !e.transient) throw e;
        await sleep(FETCH_BACKOFF_MS, this.controller.signal);
        if (this.controller.signal.aborted) throw new FollowError("CANCELLED", "the follower is closed");
      }
    }
    if (zone !== null) {
      if (zone.revision > revision) this.ahead.set(id, zone.revision);
      this.working.set(id, zone);
    } else {
      // Removed since: the removal's event is on its way.
      this.working.delete(id);
      this.ahead.set(id, null);
    }
    this.dirty.add(id);
  }

  /** Hands the sink what changed since the last publication, at `revision`. */
  private publish(revision: number): boolean {
    for (const id of this.dirty) {
      const zone = this.working.get(id);
      const held = this.published.get(id);
      if (zone !== undefined) {
        if (zone === held) continue;
        this.published.set(id, zone);
        if (!this.call(() => this.sink.put(revision, zone), `put(${revision}, zone ${JSON.stringify(id)})`)) return false;
      } else if (held !== undefined) {
        this.published.delete(id);
        if (!this.call(() => this.sink.remove(revision, id), `remove(${revision}, ${JSON.stringify(id)})`)) return false;
      }
    }
    this.dirty.clear();
    return this.commit(revision);
  }

  /** The publication at `revision` is complete: the sink's `commit`, then the waiters. */
  private commit(revision: number): boolean {
    const sink = this.sink;
    if (sink.commit !== undefined && !this.call(() => sink.commit!(revision), `commit(${revision})`)) return false;
    this.current = revision;
    for (const w of this.waiters) {
      if (w.revision <= revision) {
        this.waiters.delete(w);
        w.ok(revision);
      }
    }
    return true;
  }

  /** Runs a sink call; one that throws stops the follower, naming the call. */
  private call(f: () => void, what: string): boolean {
    try {
      f();
      return true;
    } catch (e) {
      this.fail(new FollowError("UNKNOWN", `sink.${what} threw: ${describe(e)}`), true);
      this.stream?.close();
      this.controller.abort();
      return false;
    }
  }

  /** Stops for good: waiters reject with `error`; `stopped` is said when `say`. */
  private fail(error: FollowError, say: boolean): void {
    if (this.failure !== null) return;
    this.failure = error;
    for (const w of this.waiters) w.fail(error);
    this.waiters.clear();
    if (say) this.emit({ kind: "stopped", reason: error.message, error });
  }

  private emit(event: FollowerEvent): void {
    for (const listener of this.listeners.get(event.kind) ?? []) {
      try {
        listener(event);
      } catch (e) {
        // A listener's bug must not stop the follower; the runtime reports it.
        const report = (globalThis as { reportError?: (e: unknown) => void }).reportError;
        if (report) report(e);
        else console.error("terrain follower: a listener threw", e);
      }
    }
  }
}

/** The server's base URL without a trailing slash; refused unless http(s). */
function checkUrl(url: unknown): string {
  if (typeof url !== "string" || !/^https?:\/\/[^/?#]+/.test(url)) {
    throw new FollowError("INVALID_ARGUMENT", `url: must be the server's http:// or https:// base URL, got ${JSON.stringify(url)}`, "url");
  }
  return url.replace(/\/+$/, "");
}

/** The longest timer runtimes keep: 2^31 - 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/** An optional positive number of milliseconds (a timer's), else `fallback`. */
function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  // A longer timer fires at once in Node (and in some browsers).
  if (!(Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS)) {
    throw new FollowError("INVALID_ARGUMENT", `${field}: must be a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${value}`, field);
  }
  return value;
}
