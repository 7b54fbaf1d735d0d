// The WebAssembly build of the replica (crate terrain-wasm, client-sdk/wasm; built into
// wasm/ by scripts/build-wasm.mjs) behind the native addon's interface, so that
// src/native.ts, src/tiles.ts and src/hyperscape.ts run unchanged over either
// (`surfaceHeightAt` reads through the module's own kept tiles here, where over the
// addon src/surface.ts keeps the addon's in the module's `SurfaceStore`). Used when
// TERRAIN_CLIENT_WASM=1, or when no native addon loads (any OS, any CPU). The answers
// are terrain-core's, computed in the module with its own maths.
//
// What it covers: `LocalTerrain.offline(world, zones)` and everything read from it
// (HyperscapeTerrain's point methods included), and `LocalTerrain.open(url, world)`: a
// follower drives the replica's sink (`reset`, `put`, `remove`: see `WasmSink`) from
// the server's events, by default src/wasm-follow.ts (HTTP and the events WebSocket;
// `setFollower` replaces it).
import { join } from "node:path";
import type * as Addon from "./addon";
import { moduleAnswer } from "./args";
import type { Fast } from "./native";
import { checkWait } from "./revision-wait";
import { followOverHttp } from "./wasm-follow";

/** The module's `Replica` (client-sdk/wasm/src/replica.rs and reads.rs). */
export interface WasmReplica extends WasmSink {
  readonly world: string;
  readonly revision: number;
  readonly epoch: number;
  heightAt(x: number, z: number): number;
  heights(points: Float64Array): Float64Array;
  surfaceHeights(points: Float64Array): Float64Array;
  /** The surface-mode height at `(x, z)` (tiles read often kept in the module); NaN
   * when refused (`refusal` then throws why), as `heightAt` and `proceduralHeightAt`. */
  surfaceHeightAt(x: number, z: number): number;
  /** Throws why `(x, z)` is refused, after a read answered NaN. */
  refusal(x: number, z: number): number;
  readonly surfaceTilesKept: number;
  proceduralHeightAt(x: number, z: number): number;
  surfaceEvaluated(x: number, z: number): number;
  surfaceLayout(): Float64Array;
  surfaceTile(tx: number, tz: number): Float32Array;
  normal(x: number, z: number, out: Float64Array): void;
  blocked(x: number, z: number): number;
  info(x: number, z: number, out: Float64Array): void;
  difficulty(x: number, z: number, hasTier: boolean, tier: number, out: Float64Array): void;
  inZone(x: number, z: number): boolean;
  zoneAt(x: number, z: number): string | undefined;
  sampleZone(x: number, z: number): string | undefined;
  zone(id: string): string | undefined;
  zoneBounds(): Float64Array;
  firstBlocked(points: Float64Array): number;
  grid(x0: number, z0: number, w: number, d: number, flags: Uint8Array, heights: Float64Array): void;
  worldFacts(): string;
  terrainInfo(x: number, z: number): string;
  terrainInfos(points: Float64Array): string;
  checkPath(points: Float64Array, mode?: string | null): string;
  findPath(fromX: number, fromZ: number, toX: number, toZ: number, maxNodes?: number, maxDistance?: number): string;
  register(id: string, body: string): Float64Array;
  unregister(id: string): Float64Array;
  settle(seq: number, revision: number): Float64Array;
  setTowns(towns?: Float64Array): void;
  tileMesh(tx: number, tz: number): WasmTileMesh;
  chunkBlocks(cx: number, cz: number): Uint8Array | undefined;
  free(): void;
}

/** The module's `TileMesh` (client-sdk/wasm/src/reads.rs): each getter copies its
 * array out of the module. */
interface WasmTileMesh {
  readonly positions: Float32Array;
  readonly normals: Float32Array;
  readonly colors: Float32Array;
  readonly biomeIds: Uint8Array;
  readonly index: Uint32Array;
  readonly placement: Float64Array;
  readonly resolution: number;
  free(): void;
}

/** A module `TileMesh` as the addon's plain object (the module's copy freed). */
function tileMeshOf(mesh: WasmTileMesh): Addon.TileMesh {
  try {
    return {
      positions: mesh.positions,
      normals: mesh.normals,
      colors: mesh.colors,
      biomeIds: mesh.biomeIds,
      index: mesh.index,
      placement: mesh.placement,
      resolution: mesh.resolution,
    };
  } finally {
    mesh.free();
  }
}

/** The sink a follower drives (another module, src/follow): each call changes the
 * replica's server state and answers the changed-bounds handoff `[epoch, n, minX,
 * minZ, maxX, maxZ, ...]`, which the follower passes to `LocalTerrain`'s `onPublish`
 * callback (the same hand-over the native addon makes), so kept surfaces and tile
 * blocks drop exactly what changed. Revisions are whole numbers below 2^53. */
export interface WasmSink {
  /** The server's whole zone list at `revision` (`{"zones": [...]}` or an array, as
   * `GET /v1/worlds/{w}/flat-zones` answers it): a snapshot, or a resync. */
  reset(revision: number, zones: string): Float64Array;
  /** Zone `zone` (JSON as `GET .../flat-zones/{id}` answers it) registered or
   * replaced at `revision`. */
  put(revision: number, zone: string): Float64Array;
  /** Zone `id` removed at `revision`. */
  remove(revision: number, id: string): Float64Array;
}

/** A follower of a server for a WebAssembly replica: given the URL, the world, the
 * options and the world's listing JSON (as `GET /v1/worlds` lists it), it builds the
 * replica's sink's first state and keeps feeding it; `onPublish` is called with each
 * handoff. Resolves once the replica holds the server's state; `close` stops it. */
export type WasmFollower = (args: {
  url: string;
  world: string;
  options: Addon.OpenOptions | null | undefined;
  /** Builds the replica from the world's listing and its first zone list. */
  create(world: string, zones: string): WasmSink;
  onPublish(changed: Float64Array): void;
}) => Promise<FollowerHandle>;

/** What a started follower gives back: `close` stops it; `waitForRevision` and
 * `nextEvent`, when given, answer the replica's methods of those names. */
export interface FollowerHandle {
  close(): void;
  waitForRevision?(revision: number, timeoutMs: number): Promise<number>;
  nextEvent?(): Promise<Addon.LocalEvent | null>;
}

/** The module's `SurfaceStore` (client-sdk/wasm/src/surface.rs): tile surfaces handed
 * over by the native addon, read by core's rule (src/surface.ts). */
export interface SurfaceStore {
  /** The height from a kept tile; NaN when none holds the point (then `miss`). */
  height(x: number, z: number): number;
  /** `[tx, tz]`: the tile to hand over now (`insert`); `[]`: evaluate elsewhere. */
  miss(x: number, z: number): Float64Array;
  insert(tx: number, tz: number, heights: Float32Array): void;
  clear(): void;
  readonly kept: number;
  free(): void;
}

interface WasmModule {
  Replica: new (world: string, zones: string) => WasmReplica;
  SurfaceStore: new (size: number, resolution: number, centred: boolean) => SurfaceStore;
  surfaceTileReads(): number;
  maxWalkGridSide(): number;
  maxWalkGridTiles(): number;
  maxTowns(): number;
}

/** The Node glue of the module: TERRAIN_CLIENT_WASM_PATH when set, else the package's
 * build (wasm/terrain_wasm_node.js beside package.json). */
export const wasmPath: string =
  process.env.TERRAIN_CLIENT_WASM_PATH ?? join(__dirname, "..", "..", "wasm", "terrain_wasm_node.js");

let follower: WasmFollower | null = followOverHttp;

/** Attaches the follower `LocalTerrain.open` runs over the WebAssembly replica. */
export function setFollower(f: WasmFollower | null): void {
  follower = f;
}

const undef = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/** The handle the addon's per-call functions take: the replica, `null` once closed (so
 * a function bound before `close` throws as the addon's do, not on a freed object). */
interface Slot {
  r: WasmReplica | null;
}

function throwClosed(): never {
  throw new Error("LocalTerrain is closed");
}

/** The module (loaded once, at the first call). */
function wasmModule(): WasmModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(wasmPath) as WasmModule;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `terrain-client: cannot load the WebAssembly replica ${wasmPath} (${why}). ` +
        "Build it with `npm run build` in client-sdk/node (scripts/build-wasm.mjs).",
    );
  }
}

/** A `SurfaceStore` of the grid of `size` m tiles, `resolution` vertices per edge
 * (`centred`: tile `t` centred on `t * size`): the native addon's surface reads keep
 * their tiles in one (src/surface.ts), so the module is loaded beside the addon at the
 * first surface read. */
export function surfaceStore(size: number, resolution: number, centred: boolean): SurfaceStore {
  return new (wasmModule().SurfaceStore)(size, resolution, centred);
}

/** Reads of one tile at one view after which `surfaceHeightAt` keeps its surface
 * (terrain-client's keeping rule; for the tests). */
export function surfaceTileReads(): number {
  return wasmModule().surfaceTileReads();
}

/** Loads the module and builds the addon's interface over it. */
export function loadWasm(): typeof Addon & Fast {
  const m = wasmModule();

  class LocalTerrain {
    readonly #slot: Slot;
    #stop: FollowerHandle | null;
    readonly #world: string;

    private constructor(replica: WasmReplica, stop: FollowerHandle | null = null) {
      this.#slot = { r: replica };
      this.#world = replica.world;
      this.#stop = stop;
    }

    static async open(
      url: string,
      world: string,
      options?: Addon.OpenOptions | null,
      onPublish?: (changed: Float64Array) => void,
    ): Promise<LocalTerrain> {
      if (follower === null) {
        throw new Error(
          "LocalTerrain.open over WebAssembly needs a follower of the server's events (src/follow); " +
            "none is attached. LocalTerrain.offline works; or use the native addon (linux-x64).",
        );
      }
      let replica: WasmReplica | null = null;
      const stop = await follower({
        url,
        world,
        options,
        create(w: string, zones: string): WasmSink {
          replica = new m.Replica(w, zones);
          return replica;
        },
        onPublish: (changed) => onPublish?.(changed),
      });
      if (replica === null) throw new Error("the follower built no replica");
      return new LocalTerrain(replica, stop);
    }

    static offline(world: string, zones: string): LocalTerrain {
      return new LocalTerrain(new m.Replica(world, zones));
    }

    get replica(): WasmReplica {
      return this.#slot.r ?? throwClosed();
    }

    get handle(): unknown {
      if (this.#slot.r === null) throwClosed();
      return this.#slot;
    }

    get world(): string {
      return this.#world;
    }

    get live(): boolean {
      return this.#stop !== null && this.#slot.r !== null;
    }

    get revision(): number {
      return this.replica.revision;
    }

    heightAt(x: number, z: number): number {
      const replica = this.replica;
      return moduleAnswer(replica.heightAt(x, z), replica, x, z);
    }

    surfaceHeightAt(x: number, z: number): number {
      const replica = this.replica;
      return moduleAnswer(replica.surfaceHeightAt(x, z), replica, x, z);
    }

    /** How many tile surfaces `surfaceHeightAt` keeps (for the tests). */
    get surfaceTilesKept(): number {
      return this.replica.surfaceTilesKept;
    }

    heights(points: Float64Array): Float64Array {
      return this.replica.heights(points);
    }

    surfaceHeights(points: Float64Array): Float64Array {
      return this.replica.surfaceHeights(points);
    }

    terrainInfo(x: number, z: number): Addon.TerrainInfo {
      return JSON.parse(this.replica.terrainInfo(x, z)) as Addon.TerrainInfo;
    }

    terrainInfos(points: Float64Array): Addon.TerrainInfo[] {
      return JSON.parse(this.replica.terrainInfos(points)) as Addon.TerrainInfo[];
    }

    checkPath(points: Float64Array, mode?: "hyperscape" | "exact" | null): Addon.PathCheck {
      const c = JSON.parse(this.replica.checkPath(points, mode)) as { blocked: boolean; at: number[] | null; reason: string | null; path: number[] };
      return { blocked: c.blocked, at: c.at, reason: c.reason, path: Float64Array.from(c.path) };
    }

    findPath(fromX: number, fromZ: number, toX: number, toZ: number, options?: Addon.FindOptions | null): Addon.FoundPath {
      const f = JSON.parse(this.replica.findPath(fromX, fromZ, toX, toZ, options?.maxNodes, options?.maxDistance)) as {
        found: boolean;
        waypoints: number[];
        length: number;
        expanded: number;
        reason: string | null;
      };
      return { found: f.found, waypoints: Float64Array.from(f.waypoints), length: f.length, expanded: f.expanded, reason: f.reason };
    }

    zoneAt(x: number, z: number): string | null {
      return undef(this.replica.sampleZone(x, z));
    }

    walkGrid(minTileX: number, minTileZ: number, width: number, depth: number): Uint8Array {
      const flags = new Uint8Array(width * depth);
      this.replica.grid(minTileX, minTileZ, width, depth, flags, new Float64Array(0));
      return flags;
    }

    waitForRevision(revision: number, timeoutMs?: number | null): Promise<number> {
      // Checked before a promise exists, as the addon's: a bad argument throws here.
      const wait = checkWait(revision, timeoutMs);
      const at = this.replica.revision;
      if (at >= revision) return Promise.resolve(at);
      if (this.#stop?.waitForRevision) return this.#stop.waitForRevision(revision, wait);
      return Promise.reject(new Error(`revision ${revision}: an offline replica stays at ${at}`));
    }

    async nextEvent(): Promise<Addon.LocalEvent | null> {
      if (this.#slot.r === null || !this.#stop?.nextEvent) return null;
      return this.#stop.nextEvent();
    }

    close(): void {
      this.#stop?.close();
      const replica = this.#slot.r;
      this.#slot.r = null;
      replica?.free();
    }
  }

  const r = (handle: unknown): WasmReplica => (handle as Slot).r ?? throwClosed();
  const fast: Fast = {
    replicaHeightFn: (h) => {
      const slot = h as Slot;
      return (x, z) => {
        const r = slot.r ?? throwClosed();
        return moduleAnswer(r.heightAt(x, z), r, x, z);
      };
    },
    replicaSurfaceEvaluated: (h, x, z) => r(h).surfaceEvaluated(x, z),
    replicaSurfaceLayout: (h) => r(h).surfaceLayout(),
    replicaSurfaceTile: (h, tx, tz) => r(h).surfaceTile(tx, tz),
    replicaTileMesh: (h, tx, tz) => tileMeshOf(r(h).tileMesh(tx, tz)),
    replicaChunkBlocks: (h, cx, cz) => undef(r(h).chunkBlocks(cx, cz)),
    hsGrid: (h, x0, z0, w, d, flags, heights) => r(h).grid(x0, z0, w, d, flags, heights),
    hsWorld: (h) => r(h).worldFacts(),
    hsProceduralFn: (h) => {
      const slot = h as Slot;
      return (x, z) => {
        const r = slot.r ?? throwClosed();
        return moduleAnswer(r.proceduralHeightAt(x, z), r, x, z);
      };
    },
    hsNormal: (h, x, z, out) => r(h).normal(x, z, out),
    hsBlocked: (h, x, z) => r(h).blocked(x, z),
    hsInfo: (h, x, z, out) => r(h).info(x, z, out),
    hsDifficulty: (h, x, z, hasTier, tier, out) => r(h).difficulty(x, z, hasTier, tier, out),
    hsInZone: (h, x, z) => r(h).inZone(x, z),
    hsZoneAt: (h, x, z) => undef(r(h).zoneAt(x, z)),
    hsZone: (h, id) => undef(r(h).zone(id)),
    hsFirstBlocked: (h, points) => r(h).firstBlocked(points),
    hsRegister: (h, id, body) => r(h).register(id, body),
    hsUnregister: (h, id) => r(h).unregister(id),
    hsSettle: (h, seq, revision) => r(h).settle(seq, revision),
    hsSetTowns: (h, towns) => r(h).setTowns(towns ?? undefined),
    hsCoreTime: (h, kind, points, reps) => coreTime(r(h), kind, points, reps),
    hsCrossing: (x, z) => x + z,
    hsCrossingFn: () => (x, z) => x + z,
    hsZoneBounds: (h) => r(h).zoneBounds(),
    MAX_WALK_GRID_SIDE: m.maxWalkGridSide(),
    MAX_WALK_GRID_TILES: m.maxWalkGridTiles(),
    MAX_TOWNS: m.maxTowns(),
  };
  return { ...fast, LocalTerrain } as unknown as typeof Addon & Fast;
}

/** The benchmarks' core time over the module: here measured from JavaScript, so it
 * includes the crossing into WebAssembly (the addon measures inside Rust). */
function coreTime(replica: WasmReplica, kind: string, points: Float64Array, reps: number): number {
  const out = new Float64Array(5);
  const n = points.length >> 1;
  const calls: Record<string, (x: number, z: number) => unknown> = {
    height: (x, z) => replica.heightAt(x, z),
    procedural: (x, z) => replica.proceduralHeightAt(x, z),
    normal: (x, z) => replica.normal(x, z, out),
    blocked: (x, z) => replica.blocked(x, z),
    info: (x, z) => replica.info(x, z, out),
    difficulty: (x, z) => replica.difficulty(x, z, false, 0, out),
    zoneAt: (x, z) => replica.zoneAt(x, z),
  };
  const call = calls[kind];
  // The addon's kinds the module has no single call for: no figure.
  if (kind === "sampled" || kind === "grid") return Number.NaN;
  if (!call) throw new Error(`kind: unknown ${JSON.stringify(kind)} (over WebAssembly: ${Object.keys(calls).join(", ")})`);
  const start = process.hrtime.bigint();
  for (let rep = 0; rep < Math.max(1, reps); rep++) {
    for (let i = 0; i < n; i++) call(points[2 * i]!, points[2 * i + 1]!);
  }
  return Number(process.hrtime.bigint() - start) / Math.max(1, n * Math.max(1, reps));
}
