// Hand-written types of the native addon (crate terrain-node, client-sdk/node/addon/src/local_terrain.rs
// and the objects of options.rs, answers.rs and events.rs):
// what `require("terrain_node.node")` exports. Keep in step with the #[napi] items there.

/** Options of {@link LocalTerrain.open}. */
export interface OpenOptions {
  /** PEM file of the CA that signed the server's certificate (for `https://` URLs). */
  caFile?: string;
  /** Connect timeout in milliseconds: a whole number from 1 to 3,600,000 (default 5,000). */
  connectTimeoutMs?: number;
}

/** A rectangle in metres. */
export interface EventBounds {
  minX: number;
  minZ: number;
  maxX: number;
  maxZ: number;
}

/**
 * One event of a replica ({@link LocalTerrain.nextEvent}), handed over once the
 * snapshot it describes is the one the reads see:
 * - `registered`, `replaced`, `removed`: zone `zone` changed at `revision`; heights
 *   inside `bounds` may differ (by at most `maxHeightDelta` metres): re-snap there;
 * - `rebuilt`: rebuilt from a fresh zone list at `revision`: re-read everything;
 * - `lagged`: `missed` events were dropped (the reader fell 1,024 behind); the
 *   replica is at `revision`: re-read everything.
 */
export interface LocalEvent {
  kind: "registered" | "replaced" | "removed" | "rebuilt" | "lagged";
  revision: number;
  zone?: string;
  bounds?: EventBounds;
  maxHeightDelta?: number;
  /** The zone's `walkable` after the change (absent: the terrain rule decides). */
  walkable?: boolean;
  /** How many tiles the change touched. */
  tileCount?: number;
  missed?: number;
}

/** One point of terrain info by the world's walkability rule (the server's `terrain-info`). */
export interface TerrainInfo {
  /** The final height (zones included), metres. */
  height: number;
  /** The biome the rule used; null where the world has none. */
  biome: string | null;
  /** The 8-direction slope at 1 m (rise over run). */
  slope: number;
  underwater: boolean;
  walkable: boolean;
  /** null when walkable, else "water", "slope" or "zone". */
  reason: string | null;
}

/** A path check's answer (the server's `paths/check`). */
export interface PathCheck {
  blocked: boolean;
  /** The first blocked point [x, z], null when not blocked. */
  at: number[] | null;
  /** Why `at` is blocked ("water", "slope", "zone", "step"), null when not. */
  reason: string | null;
  /** [x0, z0, x1, z1, ...]: hyperscape mode the samples (empty when blocked), exact mode the tiles' centres up to the blocked one. */
  path: Float64Array;
}

/** Options of {@link LocalTerrain.findPath}. */
export interface FindOptions {
  /** Most tiles to expand (default 100,000; 1 to 1,000,000). */
  maxNodes?: number;
  /** Longest straight distance between the ends, metres (default 1,000; at most 5,000). */
  maxDistance?: number;
}

/** A path search's answer (the server's `paths/find`). */
export interface FoundPath {
  found: boolean;
  /** [x0, z0, x1, z1, ...]: from, the corners, to; empty when not found. */
  waypoints: Float64Array;
  /** The waypoint polyline's length, metres (0 when not found). */
  length: number;
  /** Tiles taken off the open set. */
  expanded: number;
  /** When not found: "start_blocked", "goal_blocked", "no_path" or "node_budget"; else null. */
  reason: string | null;
}

/**
 * A tile's mesh ({@link LocalTerrain.tileMesh}), in the original game's layout and
 * bit for bit the server's (`GET /v1/worlds/{w}/tiles/{tx}/{tz}/mesh`).
 */
export interface TileMesh {
  /** `x, y, z` per vertex (float32), relative to `placement`; `y` is the height. */
  positions: Float32Array;
  /** Unit normals, `x, y, z` per vertex. */
  normals: Float32Array;
  /** Linear `r, g, b` per vertex: the original's vertex colours (empty for generators without them). */
  colors: Float32Array;
  /** Each vertex's biome id (0 plains ... 7 swamp; empty for generators without biomes). */
  biomeIds: Uint8Array;
  /** Three vertex indices per triangle, two triangles per cell; carved cells are absent. */
  index: Uint32Array;
  /** The world position of the tile's local origin, `[x, y, z]`. */
  placement: Float64Array;
  /** Vertices per edge (64 on hyperscape tiles, 65 on osrs map squares). */
  resolution: number;
}

/**
 * A local replica of one world: heights computed in-process by the Rust SDK's code,
 * bit for bit what the server answers at {@link LocalTerrain.revision}.
 *
 * Every read answers at the replica's view: one snapshot, which moves on to the
 * follower's latest between JavaScript tasks, never while JavaScript code runs (so a
 * synchronous tick reads one revision throughout).
 */
export declare class LocalTerrain {
  private constructor();
  /**
   * Connects to `url` (`http://host:port` or `https://`; any other scheme is refused),
   * loads `world` and follows its events. Bad options reject naming the option.
   */
  static open(url: string, world: string, options?: OpenOptions | null): Promise<LocalTerrain>;
  /**
   * A fixed replica with no server: `world` is one world of `GET /v1/worlds` as JSON,
   * `zones` the JSON answer of `GET /v1/worlds/{world}/flat-zones` (or its zone array).
   */
  static offline(world: string, zones: string): LocalTerrain;
  /** The world's id. */
  readonly world: string;
  /** Whether the replica follows a server (false for offline ones). */
  readonly live: boolean;
  /** The world revision the replica reflects: its view's. */
  readonly revision: number;
  /** The exact height at (x, z). */
  heightAt(x: number, z: number): number;
  /**
   * The surface-mode height at (x, z): the served mesh's triangle under the point.
   * A tile read 16 times at one view is kept in JavaScript (at most 1,024 tiles;
   * all dropped when the view moves on) and its reads are evaluated there, with no
   * call into the addon, in the same operations as the Rust code: the same bits.
   */
  surfaceHeightAt(x: number, z: number): number;
  /** Exact heights of `[x0, z0, x1, z1, ...]` (read in place), at one snapshot. */
  heights(points: Float64Array): Float64Array;
  /** Surface-mode heights of `[x0, z0, x1, z1, ...]`, at one snapshot. */
  surfaceHeights(points: Float64Array): Float64Array;
  /** Terrain info at (x, z) by the world's walkability rule, as the server answers at {@link revision}. */
  terrainInfo(x: number, z: number): TerrainInfo;
  /** Terrain info at `[x0, z0, x1, z1, ...]`, at one snapshot. */
  terrainInfos(points: Float64Array): TerrainInfo[];
  /** The path check of the polyline `[x0, z0, ...]` (1 to 1,024 points, at most 10 km) in `mode` (default "exact"). */
  checkPath(points: Float64Array, mode?: "hyperscape" | "exact" | null): PathCheck;
  /** A shortest path over the 1 m movement tiles, as the server's `paths/find`. */
  findPath(fromX: number, fromZ: number, toX: number, toZ: number, options?: FindOptions | null): FoundPath;
  /** The id of the flat zone deciding the height at (x, z), or null. */
  zoneAt(x: number, z: number): string | null;
  /**
   * The walkability of the `width x depth` movement tiles (1 m) from tile
   * `(minTileX, minTileZ)`: one byte a tile, rows of `width` tiles with z rising; flags
   * 1 walkable, 2 water, 4 steep, 8 the centre lies in a zone's core, 16 blocked by a
   * zone registered with `walkable: false`, 32 a step too high (block worlds): the
   * server's `GET .../walk-grid` bytes. Each tile is judged at its centre
   * `(tx + 0.5, tz + 0.5)` by the world's walkability rule, as `terrainInfo` there (and
   * the Hyperscape adapter's `isPositionWalkable`) judges it. Blocks of 64 x 64 tiles
   * read often are kept (src/tiles.ts), dropped exactly where a zone changes. At most
   * 4,096 tiles a side and 1,000,000 tiles in all (the server's default limits: its
   * `walk-grid` answers 413 beyond); bad arguments throw naming them.
   */
  walkGrid(minTileX: number, minTileZ: number, width: number, depth: number): Uint8Array;
  /**
   * Tile `(tx, tz)`'s mesh at the replica's view: what the server's mesh routes serve
   * for that tile at {@link revision}, bit for bit (terrain-core's `build_tile`, the
   * function the server calls; zones flatten and carve it). Tile indices are whole
   * numbers with `tx * tileSize` within ±2^46 m (else a TypeError or RangeError naming
   * `tx` or `tz`); a voxel world's tiles are its chunks' greedy meshes, which the
   * replica does not build: an error naming `world` (read {@link chunkBlocks}).
   */
  tileMesh(tx: number, tz: number): TileMesh;
  /**
   * A voxel world's chunk `(cx, cz)` (32 x 32 columns) at the replica's view, in the
   * compact binary form of the server's `GET .../tiles/{cx}/{cz}/blocks?format=binary`
   * (and gRPC `ChunkBlocks.blocks`), bit for bit; `null` on other worlds. Chunk
   * indices are whole numbers with `|cx|`, `|cz|` at most 2^20 (else a TypeError or
   * RangeError naming them).
   */
  chunkBlocks(cx: number, cz: number): Uint8Array | null;
  /**
   * Resolves once the replica reflects `revision` or later, with the revision reached.
   * Rejects when the replica stopped following or was closed, or once `timeoutMs`
   * (default 30,000; 1 to 3,600,000) passed without reaching it (the error gives the
   * revision the replica is at), e.g. while the server is down.
   */
  waitForRevision(revision: number, timeoutMs?: number | null): Promise<number>;
  /**
   * The next event, in revision order, each once, from the replica's opening; `null`
   * for an offline replica, once closed, or when the replica stopped following.
   */
  nextEvent(): Promise<LocalEvent | null>;
  /** Stops following; later calls throw. Idempotent. */
  close(): void;
}
