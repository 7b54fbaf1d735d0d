// What `HyperscapeTerrain` and `LocalTerrain` of terrain-client/web share: the
// WebAssembly module, the page's replica and its zone state (src/web/zones.ts), the
// follower of the server's zones (src/follow: HTTP snapshot, then the events
// WebSocket, resumed after a drop), the tile worker (src/web/worker.ts) kept at the
// same state, and the events.
import init, { Replica } from "../../wasm/terrain_wasm.mjs";
import { numberArgs, optionsArg, stringArg } from "../args.js";
import { Follower, type TileEvent, type WorldInfo, type ZoneSink } from "../follow/index.js";
import { checkWait, within } from "../revision-wait.js";
import { type FromWorker, type TileMeshData, type ToWorker, ZoneState, zoneList } from "./zones.js";

/** The module, beside the package's glue (wasm/ of the package; bundlers that follow
 * `new URL(..., import.meta.url)` copy it). */
const WASM_URL = new URL("../../wasm/terrain_wasm_bg.wasm", import.meta.url);

let compiled: Promise<WebAssembly.Module> | null = null;

/** The module compiled once per page (and handed to the tile worker as it is), and the
 * page's instance of it initialised. */
export function loadModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const response = await fetch(WASM_URL);
    if (!response.ok) throw new Error(`terrain-client/web: cannot load the WebAssembly replica ${WASM_URL} (HTTP ${response.status})`);
    const streaming = typeof WebAssembly.compileStreaming === "function" && (response.headers.get("content-type") ?? "").startsWith("application/wasm");
    const module = streaming ? await WebAssembly.compileStreaming(response) : await WebAssembly.compile(await response.arrayBuffer());
    await init({ module_or_path: module });
    return module;
  })();
  compiled.catch(() => {
    compiled = null;
  });
  return compiled;
}

/** Options of `open` in the browser. */
export interface WebOpenOptions {
  /** Accepted for the Node adapter's signature: the page never writes to the server
   * (its zones are its own) and the server's reads need no token, so it is not sent. */
  token?: string;
}

/**
 * A `tiles` event: a change whose tiles are to be drawn again (ask `tile(tx, tz)` for
 * each). From the server: its event's `revision`, `zone`, `change`, `bounds`, tile
 * rectangles and, when it listed them, tiles, plus the tiles where this page's zones
 * changed with it. From this page (`local: true`): a zone registered or removed here,
 * at the current revision.
 */
export interface TilesEvent {
  revision: number;
  zone: string;
  change: "registered" | "replaced" | "removed";
  /** The tiles one by one, `[tx, tz]`. */
  tiles: [number, number][];
  /** Inclusive tile rectangles `[minTx, minTz, maxTx, maxTz]` whose union is `tiles`. */
  tileRects: [number, number, number, number][];
  /** The area, metres. */
  bounds: { minX: number; minZ: number; maxX: number; maxZ: number };
  /** True for a change of this page's zones. */
  local: boolean;
  /** The server's event as it came (absent for local changes). */
  event?: TileEvent;
}

/** The events of terrain-client/web's classes. */
export interface WebEvents {
  tiles: TilesEvent;
  /** The server could not replay its history, or holds another one now (restored,
   * restarted empty): the replica was rebuilt from a fresh zone list; draw everything
   * again. */
  rebuilt: { revision: number };
  /** The follower stopped for good (the world is gone, the server refused): reads go
   * on answering at the last state, `waitForRevision` rejects. */
  error: Error;
}

export type WebEventName = keyof WebEvents;

/** Metres added around a changed area before taking its tiles: a tile's mesh samples
 * the ground just beyond its edges for its normals (src/tiles.ts's CHANGE_MARGIN). */
const CHANGE_MARGIN = 3;

/** The tiles of a tile grid over rectangles `[minX, minZ, maxX, maxZ, ...]` (metres). */
function tilesOf(layout: Float64Array, rects: number[]): { tiles: [number, number][]; tileRects: [number, number, number, number][] } {
  const size = layout[1]!;
  const shift = layout[2]!;
  const step = layout[3]!;
  const margin = CHANGE_MARGIN + step;
  const seen = new Set<string>();
  const tiles: [number, number][] = [];
  const tileRects: [number, number, number, number][] = [];
  for (let k = 0; k + 3 < rects.length; k += 4) {
    const r: [number, number, number, number] = [
      Math.floor((rects[k]! - margin) / size + shift),
      Math.floor((rects[k + 1]! - margin) / size + shift),
      Math.floor((rects[k + 2]! + margin) / size + shift),
      Math.floor((rects[k + 3]! + margin) / size + shift),
    ];
    tileRects.push(r);
    for (let tz = r[1]; tz <= r[3]; tz++) {
      for (let tx = r[0]; tx <= r[2]; tx++) {
        const key = `${tx},${tz}`;
        if (!seen.has(key)) {
          seen.add(key);
          tiles.push([tx, tz]);
        }
      }
    }
  }
  return { tiles, tileRects };
}

function boundsOf(rects: number[]): { minX: number; minZ: number; maxX: number; maxZ: number } {
  const b = { minX: Infinity, minZ: Infinity, maxX: -Infinity, maxZ: -Infinity };
  for (let k = 0; k + 3 < rects.length; k += 4) {
    b.minX = Math.min(b.minX, rects[k]!);
    b.minZ = Math.min(b.minZ, rects[k + 1]!);
    b.maxX = Math.max(b.maxX, rects[k + 2]!);
    b.maxZ = Math.max(b.maxZ, rects[k + 3]!);
  }
  return b;
}

/** One page's replica of one world and everything around it. */
export class Link {
  state: ZoneState | null = null;
  follower: Follower | null = null;
  worldInfo: WorldInfo | null = null;
  private worldJson = "";
  private readonly listeners = new Map<string, Set<(event: never) => void>>();
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { ok: (v: never) => void; fail: (e: Error) => void }>();
  private next = 1;
  private closed = false;
  /** Rectangles where this page's zones changed with the server's last publication. */
  private localRects: number[] = [];
  /** Told every change of the view, `[epoch, n, minX, minZ, maxX, maxZ, ...]`, before
   * any other JavaScript runs (what the classes keep of the view drops what changed). */
  readonly changeHooks: ((info: Float64Array) => void)[] = [];

  private constructor(private readonly module: WebAssembly.Module) {}

  /** Loads the module and follows `world` of the server at `url` (`where` names the
   * caller in errors). */
  static async open(url: unknown, world: unknown, options: unknown, where: string): Promise<Link> {
    stringArg("url", url, where);
    stringArg("world", world, where);
    const o = optionsArg("options", options, where);
    if (o?.token !== undefined) stringArg("token", o.token, where);
    const link = new Link(await loadModule());
    link.follower = await Follower.open({ url: url as string, world: world as string, sink: (listing) => link.sink(listing) });
    const follower = link.follower;
    follower.on("tiles", ({ event }) => link.serverTiles(event));
    follower.on("rebuilt", ({ revision }) => link.emit("rebuilt", { revision }));
    follower.on("stopped", ({ error }) => {
      if (!link.closed) link.emit("error", error);
    });
    return link;
  }

  /** The sink the follower drives: the page's state, and the worker's. */
  private sink(listing: WorldInfo): ZoneSink {
    this.worldInfo = listing;
    this.worldJson = JSON.stringify(listing);
    return {
      reset: (revision, zones) => {
        const entries = zones.map((z): [string, string] => [z.id, JSON.stringify(z)]);
        if (this.state === null) {
          const replica = new Replica(this.worldJson, zoneList(revision, entries.map((e) => e[1])));
          this.state = new ZoneState(replica, revision, entries);
          return;
        }
        this.viewChanged(this.state.reset(revision, entries));
        this.post({ t: "reset", revision, zones: entries });
      },
      put: (revision, zone) => {
        const doc = JSON.stringify(zone);
        this.viewChanged(this.state!.put(revision, zone.id, doc));
        this.post({ t: "put", revision, id: zone.id, zone: doc });
      },
      remove: (revision, id) => {
        this.viewChanged(this.state!.remove(revision, id));
        this.post({ t: "remove", revision, id });
      },
    };
  }

  /** After a change of the server's zones (`rects`: where they changed): takes the
   * rectangles where this page's zones changed with them, and tells the hooks. */
  private viewChanged(rects: number[]): void {
    const r = this.state!.localRects;
    if (r.length > 0) {
      this.localRects.push(...r);
      rects = rects.concat(r);
      r.length = 0;
    }
    this.tell(rects);
  }

  private tell(rects: number[]): void {
    const info = new Float64Array(2 + rects.length);
    info[0] = this.state!.replica.epoch;
    info[1] = rects.length / 4;
    info.set(rects, 2);
    for (const hook of this.changeHooks) hook(info);
  }

  /** The replica, or the error of a closed one. */
  get replica(): Replica {
    const s = this.state;
    if (s === null || this.closed) throw new Error("LocalTerrain is closed");
    return s.replica;
  }

  get revision(): number {
    return this.state?.revision ?? 0;
  }

  get live(): boolean {
    return !this.closed && this.follower?.stopped === null;
  }

  /** A zone of this page registered (`body`: the HTTP API's JSON) or removed (`null`);
   * answers the rectangles where the view changed. Throws the replica's refusal. */
  local(id: string, body: string | null, change: "registered" | "replaced" | "removed"): void {
    const state = this.state;
    if (state === null || this.closed) throw new Error("LocalTerrain is closed");
    const rects = body === null ? state.unregister(id) : state.register(id, body);
    this.tell(rects);
    this.post(body === null ? { t: "unregister", id } : { t: "register", id, body });
    if (rects.length > 0) this.emitTiles(rects, id, change, undefined);
  }

  private serverTiles(event: TileEvent): void {
    const local = this.localRects;
    this.localRects = [];
    const tiles = new Map<string, [number, number]>();
    const tileRects = event.tileRects.map((r) => [...r] as [number, number, number, number]);
    for (const [tx, tz] of this.expand(event.tileRects)) tiles.set(`${tx},${tz}`, [tx, tz]);
    if (local.length > 0 && this.state !== null) {
      const more = tilesOf(this.state.replica.surfaceLayout(), local);
      for (const t of more.tiles) tiles.set(`${t[0]},${t[1]}`, t);
      tileRects.push(...more.tileRects);
    }
    this.emit("tiles", {
      revision: event.revision,
      zone: event.zone,
      change: event.change,
      tiles: [...tiles.values()],
      tileRects,
      bounds: { ...event.bounds },
      local: false,
      event,
    });
  }

  private expand(rects: [number, number, number, number][]): [number, number][] {
    const out: [number, number][] = [];
    for (const [x0, z0, x1, z1] of rects) {
      for (let tz = z0; tz <= z1; tz++) for (let tx = x0; tx <= x1; tx++) out.push([tx, tz]);
    }
    return out;
  }

  private emitTiles(rects: number[], zone: string, change: TilesEvent["change"], event: TileEvent | undefined): void {
    const { tiles, tileRects } = tilesOf(this.replica.surfaceLayout(), rects);
    const e: TilesEvent = { revision: this.revision, zone, change, tiles, tileRects, bounds: boundsOf(rects), local: event === undefined };
    this.emit("tiles", e);
  }

  on<K extends WebEventName>(name: K, listener: (event: WebEvents[K]) => void): void {
    let set = this.listeners.get(name);
    if (set === undefined) this.listeners.set(name, (set = new Set()));
    set.add(listener as (event: never) => void);
  }

  off<K extends WebEventName>(name: K, listener: (event: WebEvents[K]) => void): void {
    this.listeners.get(name)?.delete(listener as (event: never) => void);
  }

  private emit<K extends WebEventName>(name: K, event: WebEvents[K]): void {
    const set = this.listeners.get(name);
    if (set === undefined || set.size === 0) {
      if (name === "error") console.error(event);
      return;
    }
    for (const listener of [...set]) {
      try {
        (listener as (event: WebEvents[K]) => void)(event);
      } catch (e) {
        // A listener's mistake is the page's: reported, the others still called.
        setTimeout(() => {
          throw e;
        });
      }
    }
  }

  /** Resolves with the revision once the replica holds the server's state at `revision`
   * or later; the arguments are checked before a promise exists, as the Node package's. */
  waitForRevision(revision: number, timeoutMs?: number | null): Promise<number> {
    const wait = checkWait(revision, timeoutMs);
    const at = this.revision;
    if (at >= revision) return Promise.resolve(at);
    return within(revision, wait, this.follower!.waitForRevision(revision), () => this.revision);
  }

  // === the tile worker ===

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  /** The worker, started at the page's state when first needed. */
  private ensureWorker(): Worker {
    if (this.worker !== null) return this.worker;
    const state = this.state!;
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const answer = e.data;
      const waiter = this.pending.get(answer.n);
      if (waiter === undefined) return;
      this.pending.delete(answer.n);
      if ("error" in answer) waiter.fail(new Error(answer.error));
      else if ("tile" in answer) (waiter.ok as (v: TileMeshData) => void)(answer.tile);
      else (waiter.ok as (v: Uint8Array | undefined) => void)(answer.chunk ?? undefined);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.dropWorker(new Error(`terrain-client/web: the tile worker failed: ${e.message || "it could not be loaded"} (${new URL("./worker.js", import.meta.url)})`));
    };
    worker.postMessage({
      t: "init",
      module: this.module,
      world: this.worldJson,
      revision: state.revision,
      zones: [...state.server.values()],
      locals: state.locals(),
    } satisfies ToWorker);
    this.worker = worker;
    return worker;
  }

  private dropWorker(error: Error): void {
    this.worker?.terminate();
    this.worker = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.fail(error);
  }

  private ask<T>(message: ToWorker): Promise<T> {
    this.ensureWorker().postMessage(message);
    return new Promise<T>((ok, fail) => this.pending.set((message as { n: number }).n, { ok: ok as (v: never) => void, fail }));
  }

  /** Tile `(tx, tz)`'s mesh at the current state, computed in the worker. */
  async tile(tx: number, tz: number): Promise<TileMeshData> {
    numberArgs(["tx", "tz"], [tx, tz], "tile");
    void this.replica;
    return this.ask<TileMeshData>({ t: "tile", n: this.next++, tx, tz, revision: this.revision });
  }

  /** A voxel world's chunk `(cx, cz)` in the server's encoding, computed in the worker;
   * `undefined` for other worlds. */
  async chunkBlocks(cx: number, cz: number): Promise<Uint8Array | undefined> {
    numberArgs(["cx", "cz"], [cx, cz], "chunkBlocks");
    void this.replica;
    return this.ask<Uint8Array | undefined>({ t: "chunk", n: this.next++, cx, cz, revision: this.revision });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.follower?.close();
    this.dropWorker(new Error("LocalTerrain is closed"));
    const state = this.state;
    this.state = null;
    state?.replica.free();
  }
}
