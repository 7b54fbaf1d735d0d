// `terrain-client/web`: the server's terrain in a browser page, computed by the
// WebAssembly replica (crate terrain-wasm: terrain-core's own maths, never the page's
// `Math`), so a page gets the server's bits.
//
//   import { HyperscapeTerrain } from "terrain-client/web";
//   const terrain = await HyperscapeTerrain.open("https://terrain.example", "main");
//   terrain.getHeightAt(10, 20);                      // synchronous, on the main thread
//   const mesh = await terrain.tile(0, 0);            // computed in a Web Worker
//   terrain.on("tiles", (e) => e.tiles.forEach(([tx, tz]) => redraw(tx, tz)));
//
// The zones come from the server (src/follow: a snapshot over HTTP, then the events
// WebSocket, resumed after a drop). Zones registered in the page stay in the page
// (src/web/zones.ts). Tiles are built in a worker (src/web/worker.ts) holding its own
// replica at the page's state. The Hyperscape adapter's answers are those of the Node
// package's (src/hyperscape.ts): the same point methods (src/hyperscape-points.ts)
// through the same checks and rules (src/hyperscape-common.ts, src/args.ts). `attachTerrainServer` (src/web/attach.ts)
// routes the game's own TerrainSystem instance to it as Node's attach does.
import { argumentError, describe, moduleAnswer, numberArgs, pointsArg, refusal, stringArg, wholeArg } from "../args.js";
import {
  type DifficultySample,
  type FlatZone,
  type Normal,
  NOT_PROVIDED as NODE_NOT_PROVIDED,
  type TerrainInfoAt,
  type WalkableCheck,
  type WalkablePath,
  at,
  coordError,
  coords,
  zoneOfDoc,
  zoneRequest,
} from "../hyperscape-common.js";
import { PointAnswers, type PointReads, worldFacts } from "../hyperscape-points.js";
import { maxWalkGridSide, maxWalkGridTiles } from "../../wasm/terrain_wasm.mjs";
import { TileCache } from "../tiles.js";
import { Link, type WebEventName, type WebEvents, type WebOpenOptions } from "./link.js";
import type { TileMeshData } from "./zones.js";

export type { DifficultySample, FlatZone, FlatZoneTile, Normal, TerrainInfoAt, WalkableCheck, WalkablePath } from "../hyperscape-common.js";
export { BLOCKS_MOVEMENT, REASONS } from "../hyperscape-common.js";
export { FollowError } from "../follow/index.js";
export type { TilesEvent, WebEvents, WebOpenOptions } from "./link.js";
export type { TileMeshData } from "./zones.js";
export { loadModule } from "./link.js";
export { BLOCK, STEEP, STEP, WALKABLE, WATER, ZONE_BLOCKED, ZONE_CORE } from "../tiles.js";
export { type WebAttachOptions, TerrainAttachment, attachTerrainServer } from "./attach.js";
export { ROUTED } from "../attach-common.js";

/** The replica's coordinate range (terrain-core's COORDINATE_LIMIT, 2^46 m). */
const LIMIT = 2 ** 46;

/** What both classes share: the link's revision, events, tiles and closing. */
abstract class WebTerrain {
  /** @internal */
  protected readonly link: Link;
  /** Heights and walk flags at 1 m tile centres, kept in blocks and dropped exactly
   * where the view changes (src/tiles.ts, as the Node package keeps them). */
  protected readonly tiles: TileCache;

  protected constructor(link: Link) {
    this.link = link;
    this.tiles = new TileCache(
      { hsGrid: (_h, x0, z0, w, d, flags, heights) => link.replica.grid(x0, z0, w, d, flags, heights) },
      null,
    );
    link.changeHooks.push((info) => this.tiles.changed(info));
  }

  /** The world's id. */
  get world(): string {
    return this.link.worldInfo!.id;
  }

  /** The world as `GET /v1/worlds` listed it when the page opened it. */
  get worldInfo(): Readonly<Record<string, unknown>> {
    return this.link.worldInfo!;
  }

  /** The server's revision the replica holds (this page's zones on top). */
  get revision(): number {
    return this.link.revision;
  }

  /** True while the replica follows the server. */
  get live(): boolean {
    return this.link.live;
  }

  /** Resolves once the replica holds the server's state at `revision` or later (the
   * revision a zone change answered); rejects after `timeoutMs` (default 30,000), or
   * when the follower stops. A bad argument throws at once. */
  waitForRevision(revision: number, timeoutMs?: number | null): Promise<number> {
    return this.link.waitForRevision(revision, timeoutMs);
  }

  /**
   * Tile `(tx, tz)`'s mesh at the current state, as the server builds it (terrain-core's
   * `build_tile`: the server's mesh of that tile, carving included, and this page's
   * zones), computed in a Web Worker; its arrays are transferred to the caller.
   */
  tile(tx: number, tz: number): Promise<TileMeshData> {
    return this.link.tile(tx, tz);
  }

  /** A voxel world's chunk `(cx, cz)` in the server's encoding (`GetChunkBlocks`),
   * computed in the worker; `undefined` for other worlds. */
  chunkBlocks(cx: number, cz: number): Promise<Uint8Array | undefined> {
    return this.link.chunkBlocks(cx, cz);
  }

  /** Calls `listener` with every event `name` from now on: `tiles` (tiles to draw
   * again), `rebuilt` (draw everything again), `error` (the follower stopped). */
  on<K extends WebEventName>(name: K, listener: (event: WebEvents[K]) => void): this {
    this.link.on(name, listener);
    return this;
  }

  off<K extends WebEventName>(name: K, listener: (event: WebEvents[K]) => void): this {
    this.link.off(name, listener);
    return this;
  }

  /** Stops following the server, ends the worker and frees the replica; later reads
   * throw, pending tiles reject. */
  close(): void {
    this.link.close();
    this.tiles.clear();
  }

  /** The walk grid (the server's `walk-grid` bytes), checked as the Node package
   * checks it (the server's limits and words). */
  walkGrid(minTileX: number, minTileZ: number, width: number, depth: number): Uint8Array {
    const side = maxWalkGridSide();
    const most = maxWalkGridTiles();
    wholeArg("minTileX", minTileX, -LIMIT, LIMIT);
    wholeArg("minTileZ", minTileZ, -LIMIT, LIMIT);
    wholeArg("width", width, 1, side);
    wholeArg("depth", depth, 1, side);
    const tiles = width * depth;
    if (tiles > most) throw argumentError(RangeError, "width", `${tiles} points exceed the limit of ${most} per request`);
    void this.link.replica;
    return this.tiles.walkGrid(minTileX, minTileZ, width, depth);
  }
}

/**
 * The Hyperscape game's `TerrainSystem` in a page: the Node adapter's method names,
 * arguments and answers (terrain-client/hyperscape), synchronous on the main thread,
 * over a WebAssembly replica following the server. Zones registered here decide
 * heights in this page only, and never reach the server.
 */
export class HyperscapeTerrain extends WebTerrain {
  /** The point answers (src/hyperscape-points.ts) over the module's reads. */
  private readonly points: PointAnswers;
  /** Zones registered here: the game's object and the replica's document of it then. */
  private readonly mine = new Map<string, { zone: FlatZone; doc: string | undefined }>();

  private constructor(link: Link) {
    super(link);
    // Through `link.replica` at each call: it throws once the page closed it.
    const reads: PointReads = {
      height: (x, z) => {
        const r = link.replica;
        return moduleAnswer(r.heightAt(x, z), r, x, z);
      },
      procedural: (x, z) => {
        const r = link.replica;
        return moduleAnswer(r.proceduralHeightAt(x, z), r, x, z);
      },
      normal: (x, z, out) => link.replica.normal(x, z, out),
      blocked: (x, z) => link.replica.blocked(x, z),
      info: (x, z, out) => link.replica.info(x, z, out),
      firstBlocked: (points) => link.replica.firstBlocked(points),
      difficulty: (x, z, has, tier, out) => link.replica.difficulty(x, z, has, tier, out),
    };
    this.points = new PointAnswers(reads, this.tiles, worldFacts(link.replica.worldFacts(), link.worldInfo!.id));
  }

  /**
   * Loads the WebAssembly replica and follows `world` on the server at `url`
   * (`http://host:port`; a page on another origin needs it in the server's
   * `cors_origins`). Rejects, naming the problem, when the world is not a hyperscape
   * world or the server cannot be reached.
   */
  static async open(url: string, world: string, options?: WebOpenOptions): Promise<HyperscapeTerrain> {
    const link = await Link.open(url, world, options, "HyperscapeTerrain.open");
    try {
      return new HyperscapeTerrain(link);
    } catch (e) {
      link.close();
      throw e;
    }
  }

  private get r() {
    return this.link.replica;
  }

  // ---- heights ------------------------------------------------------------------

  /** The final height at `(x, z)` (the Node adapter's answer). */
  getHeightAt(x: number, z: number): number {
    return this.points.getHeightAt(x, z);
  }

  /** The original's wrapper of {@link getHeightAt}. */
  getHeightAtPosition(x: number, z: number): number {
    return this.points.getHeightAtPosition(x, z);
  }

  /** The procedural height with the mountain boost: no zones, no shoreline. */
  getProceduralHeightAt(x: number, z: number): number {
    return this.points.getProceduralHeightAt(x, z);
  }

  /** The surface normal: a new plain `{x, y, z}` per call. */
  getNormalAt(x: number, z: number): Normal {
    return this.points.getNormalAt(x, z);
  }

  // ---- flat zones ---------------------------------------------------------------

  /** Whether a zone decides the height at `(x, z)` (its core or its blend ring). */
  isInFlatZone(x: number, z: number): boolean {
    coords("isInFlatZone", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return false;
    try {
      return this.r.inZone(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /** The zone that decides the height at `(x, z)` (core or blend), or null: the object
   * registered here when it is the one that decides, else a `FlatZone` built from the
   * replica. */
  getFlatZoneAt(x: number, z: number): FlatZone | null {
    coords("getFlatZoneAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return null;
    let id: string | undefined;
    try {
      id = this.r.zoneAt(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
    if (id === undefined) return null;
    const doc = this.r.zone(id);
    if (doc === undefined) return null;
    const mine = this.mine.get(id);
    return mine !== undefined && mine.doc === doc ? mine.zone : zoneOfDoc(JSON.parse(doc));
  }

  /**
   * Registers `zone` (the game's `FlatZone`) in this page: it decides heights here at
   * once (a `tiles` event names the tiles it changes) and is never sent to the server.
   * A zone the server holds under the same id decides instead, for as long as the
   * server holds it. Invalid zones throw as the Node adapter's (naming the field).
   */
  registerFlatZone(zone: FlatZone): void {
    const { where, json } = zoneRequest(zone);
    const replaced = this.mine.has(zone.id);
    try {
      this.link.local(zone.id, json, replaced ? "replaced" : "registered");
    } catch (e) {
      throw refusal(e, where, RangeError, undefined, "invalid ");
    }
    this.mine.set(zone.id, { zone, doc: this.r.zone(zone.id) });
  }

  /** Removes this page's zone `id`; an id no zone of this page has is ignored (the
   * server's zones are the server's). An `id` that is not a string is a TypeError. */
  unregisterFlatZone(id: string): void {
    stringArg("id", id, at("unregisterFlatZone"));
    if (!this.mine.has(id)) return;
    this.mine.delete(id);
    this.link.local(id, null, "removed");
  }

  /** @internal The replica's document of zone `id` (the server's, or this page's where
   * the server has none), or null: what src/web/attach.ts enters in the game's index. */
  zoneDocument(id: string): string | null {
    return this.r.zone(id) ?? null;
  }

  /** @internal The ids of the server's zones the replica holds, in the server's order. */
  serverZoneIds(): string[] {
    void this.r;
    return [...this.link.state!.server.keys()];
  }

  // ---- walkability --------------------------------------------------------------

  /** Whether an entity may stand at `(x, z)`, with the original's reason strings. */
  isPositionWalkable(x: number, z: number): WalkableCheck {
    return this.points.isPositionWalkable(x, z);
  }

  /** {@link isPositionWalkable}'s answer (the page has no collision matrix). */
  isTileWalkable(x: number, z: number): boolean {
    coords("isTileWalkable", x, z);
    return this.isPositionWalkable(x, z).walkable;
  }

  /** Height, biome, walkability, slope and water at `(x, z)`. */
  getTerrainInfoAt(x: number, z: number): TerrainInfoAt {
    return this.points.getTerrainInfoAt(x, z);
  }

  /** The original's straight-line check: 21 samples, blocked at the first unwalkable. */
  findWalkablePath(startX: number, startZ: number, endX: number, endZ: number): WalkablePath {
    return this.points.findWalkablePath(startX, startZ, endX, endZ);
  }

  /** The biome of the position's 100 m tile (the original's lookup). */
  getBiomeAtPosition(x: number, z: number): string {
    return this.points.getBiomeAtPosition(x, z);
  }

  /** The original's (private) world-position biome: the seed's first biome centre's
   * type, `"plains"` for non-finite coordinates. */
  getBiomeAtWorldPosition(x: number, z: number): string {
    return this.points.getBiomeAtWorldPosition(x, z);
  }

  /** The difficulty at `(x, z)` (terrain-core's formula in the module). */
  getDifficultyAtWorldPosition(x: number, z: number, overrideDifficultyLevel?: number): DifficultySample {
    return this.points.getDifficultyAtWorldPosition(x, z, overrideDifficultyLevel);
  }

  // ---- the rest of the original's surface ----------------------------------------

  /** The original's terrain tile size, 100 m. */
  getTileSize(): number {
    return 100;
  }

  /** The original's `CONFIG` as the game reads it from outside. */
  readonly CONFIG: Readonly<{ TILE_SIZE: number }> = Object.freeze({ TILE_SIZE: 100 });

  /** True once open, false once closed. */
  isReady(): boolean {
    return this.link.state !== null;
  }

  /** True wherever the replica answers. */
  isPhysicsReadyAt(x: number, z: number): boolean {
    coords("isPhysicsReadyAt", x, z);
    return this.isReady() && Number.isFinite(x) && Number.isFinite(z);
  }

  /** The original's name for {@link close}. */
  destroy(): void {
    this.close();
  }
}

/** The Node adapter's list, and `getActiveChunks`: a game server's persistence asks it
 * (the Node package's `HyperscapeTerrain` follows the server's live tiles), a page
 * never. */
export const NOT_PROVIDED: Readonly<Record<string, string>> = {
  ...NODE_NOT_PROVIDED,
  getActiveChunks: "chunk persistence runs on the game server: the Node package's HyperscapeTerrain answers the server's live tiles",
};

for (const [name, instead] of Object.entries(NOT_PROVIDED)) {
  Object.defineProperty(HyperscapeTerrain.prototype, name, {
    value: function notProvided(): never {
      throw new Error(`HyperscapeTerrain.${name} is not provided by the terrain server (${instead})`);
    },
    writable: true,
    configurable: true,
  });
}

/** `terrainInfo`'s answer (the server's `terrain-info` point). */
export interface TerrainInfo {
  height: number;
  walkable: boolean;
  biome: string | null;
  slope: number;
  underwater: boolean;
  reason: string | null;
}

/**
 * A world's terrain in a page, any generator: the Node `LocalTerrain`'s reads,
 * synchronous, over a WebAssembly replica following the server; tiles and voxel chunks
 * from the worker.
 */
export class LocalTerrain extends WebTerrain {
  private constructor(link: Link) {
    super(link);
  }

  /** Loads the WebAssembly replica and follows `world` on the server at `url`. */
  static async open(url: string, world: string, options?: WebOpenOptions): Promise<LocalTerrain> {
    return new LocalTerrain(await Link.open(url, world, options, "LocalTerrain.open"));
  }

  private get r() {
    return this.link.replica;
  }

  /** The exact height at `(x, z)`, zones included. */
  heightAt(x: number, z: number): number {
    if (typeof x !== "number" || typeof z !== "number") numberArgs(["x", "z"], [x, z]);
    const r = this.r;
    return moduleAnswer(r.heightAt(x, z), r, x, z);
  }

  /** The height on the served mesh's surface at `(x, z)` (tiles read often are kept
   * in the module, as the Node replica keeps them). */
  surfaceHeightAt(x: number, z: number): number {
    if (typeof x !== "number" || typeof z !== "number") numberArgs(["x", "z"], [x, z]);
    const r = this.r;
    return moduleAnswer(r.surfaceHeightAt(x, z), r, x, z);
  }

  /** Exact heights of `points` (`[x0, z0, x1, z1, ...]`). */
  heights(points: Float64Array): Float64Array {
    return this.r.heights(pointsArg("points", points));
  }

  /** Surface heights of `points`. */
  surfaceHeights(points: Float64Array): Float64Array {
    return this.r.surfaceHeights(pointsArg("points", points));
  }

  /** Terrain info at `(x, z)` by the world's walkability rule. */
  terrainInfo(x: number, z: number): TerrainInfo {
    numberArgs(["x", "z"], [x, z]);
    return JSON.parse(this.r.terrainInfo(x, z)) as TerrainInfo;
  }

  /** Terrain info at `points`. */
  terrainInfos(points: Float64Array): TerrainInfo[] {
    return JSON.parse(this.r.terrainInfos(pointsArg("points", points))) as TerrainInfo[];
  }

  /** The id of the zone whose height the exact height at `(x, z)` is, or null. */
  zoneAt(x: number, z: number): string | null {
    numberArgs(["x", "z"], [x, z]);
    return this.r.sampleZone(x, z) ?? null;
  }


  /** The path check of the polyline `points` (`"exact"`, or `"hyperscape"`). */
  checkPath(points: Float64Array, mode?: "hyperscape" | "exact" | null): { blocked: boolean; at: number[] | null; reason: string | null; path: Float64Array } {
    pointsArg("points", points);
    if (mode !== undefined && mode !== null) stringArg("mode", mode);
    const c = JSON.parse(this.r.checkPath(points, mode)) as { blocked: boolean; at: number[] | null; reason: string | null; path: number[] };
    return { blocked: c.blocked, at: c.at, reason: c.reason, path: Float64Array.from(c.path) };
  }

  /** A shortest path over the 1 m movement tiles. */
  findPath(
    fromX: number,
    fromZ: number,
    toX: number,
    toZ: number,
    options?: { maxNodes?: number; maxDistance?: number } | null,
  ): { found: boolean; waypoints: Float64Array; length: number; expanded: number; reason: string | null } {
    numberArgs(["fromX", "fromZ", "toX", "toZ"], [fromX, fromZ, toX, toZ]);
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw argumentError(TypeError, "options", `expected an object, got ${describe(options)}`);
    }
    const f = JSON.parse(this.r.findPath(fromX, fromZ, toX, toZ, options?.maxNodes, options?.maxDistance)) as {
      found: boolean;
      waypoints: number[];
      length: number;
      expanded: number;
      reason: string | null;
    };
    return { found: f.found, waypoints: Float64Array.from(f.waypoints), length: f.length, expanded: f.expanded, reason: f.reason };
  }
}

