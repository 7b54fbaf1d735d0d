// `terrain-client/hyperscape`: the Hyperscape game's own `TerrainSystem` API over the
// native replica, so that switching a game server is one line:
//
//   const terrain = await HyperscapeTerrain.open(url, world, { token });
//
// Every method the game calls has the original's name, argument order, return shape
// and answers (bit for bit: test/hyperscape.test.ts replays the original's own traces),
// computed by terrain-core in the addon from the replica's view (crate terrain-node,
// module `hyperscape`). Heights and walkability at 1 m tile centres are read from
// blocks kept in JavaScript (src/tiles.ts). Zones registered here decide heights in
// this process at once and are committed to the server over HTTP (`PUT
// /v1/worlds/{w}/flat-zones/{id}`, tile masks included), one after another in the
// order made; a refusal withdraws the zone and emits `error`. Methods of the original
// this service does not own throw, naming themselves (NOT_PROVIDED below).
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

import type * as Addon from "./addon";
import { argumentError, booleanArg, describe, fieldError, numberArg, numberArgs, optionsArg, refusal, stringArg } from "./args";
import { type Fast, LIMIT, MAX_TOWNS, addon, internals } from "./native";
import type { SurfaceTiles } from "./surface";
import { STEEP, STEP, type TileCache, WALKABLE, WATER, ZONE_BLOCKED } from "./tiles";

/** A tile of a zone's mask: the 1 m tile `[x, x + 1) x [z, z + 1)`. */
export interface FlatZoneTile {
  x: number;
  z: number;
}

/** A mask's inclusive tile bounds. */
export interface FlatZoneTileBounds {
  minX: number;
  maxX: number;
  minZ: number;
  maxZ: number;
}

/** The game's flat zone (`types/world/terrain.ts`'s `FlatZone`). */
export interface FlatZone {
  id: string;
  centerX: number;
  centerZ: number;
  width: number;
  depth: number;
  /** The level of the core, metres (absolute). */
  height: number;
  blendRadius: number;
  carveInset?: number;
  /** The core as `"x,z"` tile keys (a building's footprint). */
  tileMask?: Set<string>;
  /** The same tiles as a list (`{x, z}`, or `[x, z]` as the traces write them). */
  tileMaskTiles?: (FlatZoneTile | [number, number])[];
  tileMaskBounds?: FlatZoneTileBounds;
  /** Movement over the core (the server's zone key; the original's zones have none):
   * `false` blocks it, `true` makes it a floor; absent, the terrain rule decides. */
  walkable?: boolean;
}

/** `isPositionWalkable`'s answer: `reason` only when not walkable. */
export interface WalkableCheck {
  walkable: boolean;
  reason?: string;
}

/** `getTerrainInfoAt`'s answer. */
export interface TerrainInfoAt {
  height: number;
  biome: string;
  walkable: boolean;
  slope: number;
  underwater: boolean;
}

/** `getDifficultyAtWorldPosition`'s answer. */
export interface DifficultySample {
  level: number;
  scalar: number;
  biome: string;
  difficultyTier: number;
  isSafe: boolean;
}

/** `getNormalAt`'s answer: a plain object (the original returns a shared
 * `THREE.Vector3` that its next call overwrites; this one is the caller's). */
export interface Normal {
  x: number;
  y: number;
  z: number;
}

/** `findWalkablePath`'s answer. */
export interface WalkablePath {
  path: FlatZoneTile[];
  blocked: boolean;
}

/**
 * What `isTileWalkable` asks of the game's collision matrix (`world.collision`, a
 * `CollisionMatrix`): whether tile `(tileX, tileZ)` has any of `mask`'s flags.
 */
export interface CollisionMatrix {
  hasFlags(tileX: number, tileZ: number, mask: number): boolean;
}

/** The game's `CollisionMask.BLOCKS_MOVEMENT`: BLOCKED | WATER | STEEP_SLOPE |
 * OCCUPIED_PLAYER | OCCUPIED_NPC. */
export const BLOCKS_MOVEMENT = 0x00200000 | 0x00800000 | 0x01000000 | 0x00000100 | 0x00000200;

/** A town of the difficulty rule: difficulty is 0 within `radius` of its centre. The
 * game's towns (`{position: {x, z}, safeZoneRadius}`) are taken as they are. */
export type Town = { x: number; z: number; radius: number } | { position: { x: number; z: number }; safeZoneRadius: number };

/** Options of {@link HyperscapeTerrain.open}. */
export interface HyperscapeOptions {
  /** The server's admin token, sent as `authorization: Bearer` on zone changes. */
  token?: string;
  /** PEM CA of the server's certificate (`https://` URLs), for the replica and the zone API. */
  caFile?: string;
  /** Connect timeout of the replica, milliseconds (default 5,000). */
  connectTimeoutMs?: number;
  /** The game's collision matrix (`world.collision`), read by `isTileWalkable`. */
  collision?: CollisionMatrix | null;
  /** The game's towns for `getDifficultyAtWorldPosition` (default: the world's towns as
   * the server lists them, else the original's five fallback towns, radius 25). */
  towns?: Town[];
}

/** A zone change the server refused (or that could not reach it): the zone was
 * withdrawn in this process; the adapter's `error` event carries it. */
export class ZoneCommitError extends Error {
  constructor(
    message: string,
    /** The zone's id. */
    readonly zoneId: string,
    /** `register` or `unregister`. */
    readonly operation: "register" | "unregister",
    /** The HTTP status (0 when the server could not be reached). */
    readonly status: number,
    /** The field the server named, if any. */
    readonly field: string | undefined,
  ) {
    super(message);
    this.name = "ZoneCommitError";
  }
}

/** The original's reason strings (`isPositionWalkable`), by the addon's reason code. */
export const REASONS = [
  undefined,
  "Water bodies are impassable",
  "Steep mountain slopes block movement",
  // The original's zones carry no walkability; terrain-core's message for a zone
  // registered with `walkable: false` (never one the game registers).
  "A structure blocks movement",
  "The step up is more than one block",
] as const;

/**
 * Methods of the original's `TerrainSystem` this service does not own: calling one
 * throws an error naming it and saying what to do instead (the package README lists
 * them).
 */
export const NOT_PROVIDED: Readonly<Record<string, string>> = {
  getTerrainMaterialWithUniforms: "rendering: keep the client's TerrainSystem for materials and shaders",
  getTerrainColorAt: "rendering: vertex colours are the client's (the server's meshes carry them: GET .../tiles/{x}/{z}/mesh.glb)",
  prefetchTile: "rendering: the client's tile streaming (this replica answers everywhere without loading tiles)",
  precomputeTilesWithWorker: "rendering: the client's web workers",
  createDeterministicRng: "resource and mob placement: keep the game's own generator",
  getMobSpawnPositionsForTile: "mob spawn placement: keep the game's spawner (it may ask getTerrainInfoAt and getDifficultyAtWorldPosition here)",
  getLoadedTilesWithSpawnData: "mob spawn placement: keep the game's spawner",
  getBiomeMobTypes: "mob spawn placement: the game's biome manifest",
  getBiomeDifficulty: "mob spawn placement: the game's biome manifest (getDifficultyAtWorldPosition answers per position here)",
  getBossLevelAtWorldPosition: "boss hotspots: keep the game's boss system",
  getBossHotspots: "boss hotspots: keep the game's boss system",
  getBossHotspotAtWorldPosition: "boss hotspots: keep the game's boss system",
  getLoadedTiles: "rendering: the client's loaded tiles (use the server's chunk lifecycle, TrackViewers, for live tiles)",
  getActiveChunks: "the client's chunk loading (use the server's chunk lifecycle)",
  markChunkActive: "the client's chunk loading (report viewers to the server: ViewerTracker)",
  markChunkInactive: "the client's chunk loading (report viewers to the server: ViewerTracker)",
  saveAllActiveChunks: "chunk persistence: the server stores zones durably itself",
  getTerrainStats: "the client's tile statistics",
  getRoadInfluenceAt: "roads: keep the game's RoadNetworkSystem",
  getRoadSegmentsForTile: "roads: keep the game's RoadNetworkSystem",
  findWaterAreas: "rendering: water meshes are the client's",
};

const BIOME_TOWNS: readonly (readonly [number, number])[] = [
  [0, 0],
  [10, 0],
  [-10, 0],
  [0, 10],
  [0, -10],
];


/** The names of a point's two numbers. */
const XZ = ["x", "z"] as const;

/** `where` of the errors of method `name`, as the original's say it. */
const at = (name: string): string => `[TerrainSystem] ${name}`;

/** The coordinates `(x, z)` of method `name`: numbers (what each method does with NaN
 * and infinities is the original's rule), else a TypeError naming the argument. */
function coords(name: string, x: unknown, z: unknown): void {
  if (typeof x !== "number" || typeof z !== "number") numberArgs(XZ, [x, z], at(name));
}

/** Cells of {@link ZoneCells}, metres. */
const ZONE_CELL = 32;
/** A zone spanning more cells than this is tested by its bounds instead. */
const ZONE_CELLS_MAX = 1024;

/**
 * Where zones may decide heights: the 32 m cells their outer bounds (grown by a metre)
 * touch. A point in no marked cell is decided by no zone, so the zone lookups answer it
 * without calling into the addon; others ask the addon, which has the answer.
 */
class ZoneCells {
  private keys = new Int32Array(64);
  private used = new Uint8Array(32);
  private mask = 31;
  private readonly large: number[] = [];
  empty = true;

  constructor(bounds: Float64Array) {
    const cells: [number, number][] = [];
    for (let k = 0; k + 3 < bounds.length; k += 4) {
      const x0 = Math.floor((bounds[k]! - 1) / ZONE_CELL);
      const z0 = Math.floor((bounds[k + 1]! - 1) / ZONE_CELL);
      const x1 = Math.floor((bounds[k + 2]! + 1) / ZONE_CELL);
      const z1 = Math.floor((bounds[k + 3]! + 1) / ZONE_CELL);
      const far = !(Math.abs(x0) < 2 ** 29 && Math.abs(x1) < 2 ** 29 && Math.abs(z0) < 2 ** 29 && Math.abs(z1) < 2 ** 29);
      if (far || (x1 - x0 + 1) * (z1 - z0 + 1) > ZONE_CELLS_MAX) {
        this.large.push(bounds[k]! - 1, bounds[k + 1]! - 1, bounds[k + 2]! + 1, bounds[k + 3]! + 1);
        continue;
      }
      for (let cz = z0; cz <= z1; cz++) for (let cx = x0; cx <= x1; cx++) cells.push([cx, cz]);
    }
    this.empty = cells.length === 0 && this.large.length === 0;
    let size = 32;
    while (size < 4 * cells.length) size *= 2;
    this.keys = new Int32Array(2 * size);
    this.used = new Uint8Array(size);
    this.mask = size - 1;
    for (const [cx, cz] of cells) {
      let slot = this.slot(cx, cz);
      while (this.used[slot] && (this.keys[2 * slot] !== cx || this.keys[2 * slot + 1] !== cz)) slot = (slot + 1) & this.mask;
      this.used[slot] = 1;
      this.keys[2 * slot] = cx;
      this.keys[2 * slot + 1] = cz;
    }
  }

  private slot(cx: number, cz: number): number {
    return ((Math.imul(cx, 0x9e3779b1) ^ Math.imul(cz, 0x85ebca77)) >>> 12) & this.mask;
  }

  /** Whether a zone may decide the height at `(x, z)` (finite). */
  may(x: number, z: number): boolean {
    if (this.empty) return false;
    const cx = Math.floor(x / ZONE_CELL);
    const cz = Math.floor(z / ZONE_CELL);
    if (Math.abs(cx) >= 2 ** 29 || Math.abs(cz) >= 2 ** 29) return true;
    for (let slot = this.slot(cx, cz); this.used[slot]; slot = (slot + 1) & this.mask) {
      if (this.keys[2 * slot] === cx && this.keys[2 * slot + 1] === cz) return true;
    }
    const large = this.large;
    for (let k = 0; k < large.length; k += 4) {
      if (x >= large[k]! && z >= large[k + 1]! && x <= large[k + 2]! && z <= large[k + 3]!) return true;
    }
    return false;
  }
}

/** The original's error for coordinates `getHeightAt` refuses (`(x, z)` as it reads
 * them), or the replica's range error (finite but beyond ±2^46 m), naming the axis. */
function coordError(x: number, z: number, cause: unknown): Error {
  if (!Number.isFinite(x) || !Number.isFinite(z)) {
    return fieldError(`[TerrainSystem] getHeightAt: invalid coords (${x}, ${z})`, Number.isFinite(x) ? "z" : "x");
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const m = /^([xz]): (.*)$/.exec(message);
  if (m) {
    return fieldError(`[TerrainSystem] getHeightAt: coords (${x}, ${z}) outside the terrain server's range: ${m[1]}: ${m[2]}`, m[1]!, RangeError);
  }
  return cause instanceof Error ? cause : new Error(message);
}

/** The tiles of a game zone's mask as `[x, z]` pairs, or undefined without one;
 * errors name the field. */
function maskTiles(zone: FlatZone, where: string): [number, number][] | undefined {
  let fromList: [number, number][] | undefined;
  if (zone.tileMaskTiles !== undefined && zone.tileMaskTiles !== null) {
    if (!Array.isArray(zone.tileMaskTiles)) {
      throw fieldError(`${where}: invalid tileMaskTiles: expected an array`, "tileMaskTiles", TypeError);
    }
    fromList = zone.tileMaskTiles.map((t, i) => {
      const [x, z] = Array.isArray(t) ? t : [t?.x, t?.z];
      if (!Number.isInteger(x) || !Number.isInteger(z)) {
        const kind = typeof x === "number" && typeof z === "number" ? RangeError : TypeError;
        throw fieldError(`${where}: invalid tileMaskTiles[${i}]: expected whole tile coordinates, got ${describe(t)}`, `tileMaskTiles[${i}]`, kind);
      }
      return [x as number, z as number];
    });
  }
  let fromSet: [number, number][] | undefined;
  if (zone.tileMask !== undefined && zone.tileMask !== null) {
    if (!(zone.tileMask instanceof Set)) {
      throw fieldError(`${where}: invalid tileMask: expected a Set of "x,z" keys`, "tileMask", TypeError);
    }
    fromSet = [];
    for (const key of zone.tileMask) {
      const m = typeof key === "string" ? /^(-?\d+),(-?\d+)$/.exec(key) : null;
      if (!m) throw fieldError(`${where}: invalid tileMask key ${typeof key === "string" ? JSON.stringify(key) : describe(key)}: expected "x,z"`, "tileMask", RangeError);
      fromSet.push([Number(m[1]), Number(m[2])]);
    }
  }
  if (fromList && fromSet) {
    // The original tests the core against the Set and measures the blend from the
    // list; the server holds one mask, so the two must be the same tiles.
    const keys = new Set(fromList.map(([x, z]) => `${x},${z}`));
    const same = keys.size === zone.tileMask!.size && fromSet.every(([x, z]) => keys.has(`${x},${z}`));
    if (!same) {
      throw fieldError(`${where}: invalid tileMaskTiles: not the tiles of tileMask (${keys.size} distinct tiles against ${zone.tileMask!.size})`, "tileMaskTiles", RangeError);
    }
  }
  return fromList ?? fromSet;
}

/** A game zone of the replica's zone document (`hsZone`). */
function zoneOfDoc(doc: any): FlatZone {
  const width = doc.width ?? 2 * doc.radius;
  const depth = doc.depth ?? 2 * doc.radius;
  const zone: FlatZone = {
    id: doc.id,
    centerX: doc.centerX,
    centerZ: doc.centerZ,
    width,
    depth,
    height: doc.height,
    blendRadius: doc.blendRadius,
  };
  if (typeof doc.carveInset === "number") zone.carveInset = doc.carveInset;
  if (typeof doc.walkable === "boolean") zone.walkable = doc.walkable;
  if (Array.isArray(doc.tileMask)) {
    const tiles: FlatZoneTile[] = doc.tileMask.map(([x, z]: [number, number]) => ({ x, z }));
    zone.tileMask = new Set(tiles.map((t) => `${t.x},${t.z}`));
    zone.tileMaskTiles = tiles;
    const xs = tiles.map((t) => t.x);
    const zs = tiles.map((t) => t.z);
    zone.tileMaskBounds = { minX: Math.min(...xs), maxX: Math.max(...xs), minZ: Math.min(...zs), maxZ: Math.max(...zs) };
  }
  if (doc.radius !== undefined) (zone as FlatZone & { radius: number }).radius = doc.radius;
  return zone;
}

interface HttpAnswer {
  status: number;
  text: string;
}

/** One HTTP request (node:http or node:https with the given CA), 30 s at most. */
function send(method: string, url: string, body: string | undefined, token: string | undefined, ca: Buffer | undefined): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const u = new URL(url);
    const options = { method, headers, timeout: 30_000, ...(ca === undefined ? {} : { ca }) };
    const req = (u.protocol === "https:" ? httpsRequest : httpRequest)(u, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${url}: no answer within 30 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** `options` of `open` or `wrap`, checked (the towns are checked by `setTowns`). */
function checkOptions<T extends HyperscapeOptions>(options: T | null | undefined, where: string): T {
  const o = optionsArg("options", options, where) as T | undefined;
  if (o === undefined) return {} as T;
  if (o.token !== undefined) stringArg("token", o.token, where);
  if (o.caFile !== undefined) stringArg("caFile", o.caFile, where);
  if (o.connectTimeoutMs !== undefined) numberArg("connectTimeoutMs", o.connectTimeoutMs, where);
  if (o.collision !== undefined && o.collision !== null && typeof (o.collision as Partial<CollisionMatrix>).hasFlags !== "function") {
    throw argumentError(TypeError, "collision", `expected a collision matrix (hasFlags(tileX, tileZ, mask)) or null, got ${describe(o.collision)}`, where);
  }
  return o;
}

/** Attempts of a zone change the server could not take yet (unreachable, 503). */
const COMMIT_ATTEMPTS = 5;

/**
 * The Hyperscape game's `TerrainSystem`, answered by a local replica of a terrain
 * server's world. See the module comment and the package README ("The Hyperscape
 * adapter") for what each method answers.
 */
export class HyperscapeTerrain extends EventEmitter {
  /** The replica every answer is read from. */
  readonly replica: Addon.LocalTerrain;
  /** The game's collision matrix (`world.collision`) `isTileWalkable` reads; none:
   * terrain alone. */
  collision: CollisionMatrix | null;
  private readonly fast: Fast;
  private readonly handle: unknown;
  /** The replica's `heightAt` and the procedural height, bound to it by the addon
   * (a call crosses into the addon for about 40 ns instead of 110 ns). */
  private readonly heightAt: (x: number, z: number) => number;
  private readonly proceduralAt: (x: number, z: number) => number;
  private readonly tiles: TileCache;
  private readonly surface: SurfaceTiles;
  private readonly firstBiome: string;
  private readonly firstBiomeTier: number;
  private readonly biomes: string[];
  /** Where zones may decide heights, at `zonesEpoch`. */
  private zoneCells: ZoneCells | undefined;
  private readonly out = new Float64Array(8);
  private readonly samples = new Float64Array(42);
  /** Zones registered here: the game's object and the replica's document of it then. */
  private readonly local = new Map<string, { zone: FlatZone; doc: string | null }>();
  /** The zone objects handed out at `zonesEpoch`, by id. */
  private zoneObjects = new Map<string, FlatZone>();
  private zonesEpoch = -1;
  private commits: Promise<void> = Promise.resolve();
  private lastCommitted = 0;
  private closed = false;
  private following = false;

  private constructor(
    replica: Addon.LocalTerrain,
    private readonly url: string | undefined,
    private readonly token: string | undefined,
    private readonly ca: Buffer | undefined,
    options: HyperscapeOptions,
  ) {
    super();
    this.replica = replica;
    const inner = internals(replica);
    this.fast = inner.fast;
    this.handle = inner.handle;
    this.heightAt = inner.height;
    this.proceduralAt = this.fast.hsProceduralFn(this.handle);
    this.tiles = inner.tiles;
    this.surface = inner.surface;
    const world = JSON.parse(this.fast.hsWorld(this.handle)) as {
      generator: string;
      firstBiome: string | null;
      firstBiomeTier: number | null;
      biomes: string[];
    };
    if (world.generator !== "hyperscape") {
      throw fieldError(`world ${replica.world}: the Hyperscape adapter needs a hyperscape world, this one is ${world.generator}`, "world");
    }
    this.firstBiome = world.firstBiome ?? "plains";
    this.firstBiomeTier = world.firstBiomeTier ?? 0;
    this.biomes = world.biomes;
    this.collision = options.collision ?? null;
    if (options.towns !== undefined) this.setTowns(options.towns);
    // `change` events follow the replica's only while someone listens (a pending read
    // of the replica's events is never left behind otherwise).
    this.on("newListener", (event: string) => {
      if (event === "change" && !this.following) void this.follow();
    });
  }

  /**
   * Opens a replica of `world` on the server at `url` (`http://host:port`, the port that
   * serves gRPC and HTTP) and wraps it. Rejects, naming the problem, when the world is
   * not a hyperscape world or the server cannot be reached.
   */
  static async open(url: string, world: string, options: HyperscapeOptions = {}): Promise<HyperscapeTerrain> {
    stringArg("url", url, "HyperscapeTerrain.open");
    stringArg("world", world, "HyperscapeTerrain.open");
    options = checkOptions(options, "HyperscapeTerrain.open");
    const replicaOptions: Addon.OpenOptions = {};
    if (options.caFile !== undefined) replicaOptions.caFile = options.caFile;
    if (options.connectTimeoutMs !== undefined) replicaOptions.connectTimeoutMs = options.connectTimeoutMs;
    const replica = await addon.LocalTerrain.open(url, world, replicaOptions);
    try {
      const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile);
      return new HyperscapeTerrain(replica, url.replace(/\/+$/, ""), options.token, ca, options);
    } catch (e) {
      replica.close();
      throw e;
    }
  }

  /**
   * Wraps a replica opened elsewhere (e.g. `LocalTerrain.offline`). Without `url`, zone
   * changes stay in this process.
   */
  static wrap(replica: Addon.LocalTerrain, options: HyperscapeOptions & { url?: string } = {}): HyperscapeTerrain {
    if (!(replica instanceof addon.LocalTerrain)) {
      throw argumentError(TypeError, "replica", `expected a LocalTerrain, got ${describe(replica)}`, "HyperscapeTerrain.wrap");
    }
    options = checkOptions(options, "HyperscapeTerrain.wrap");
    if (options.url !== undefined) stringArg("url", options.url, "HyperscapeTerrain.wrap");
    const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile);
    return new HyperscapeTerrain(replica, options.url?.replace(/\/+$/, ""), options.token, ca, options);
  }

  /** The world's id. */
  get world(): string {
    return this.replica.world;
  }

  /** The server's revision the replica reflects (zones registered here and not yet
   * committed come on top of it). */
  get revision(): number {
    return this.replica.revision;
  }

  // ---- heights ------------------------------------------------------------------

  /** The final height at `(x, z)`: zones, then the shoreline-adjusted procedural
   * height. Throws the original's error for non-finite coordinates. */
  getHeightAt(x: number, z: number): number {
    coords("getHeightAt", x, z);
    const tx = Math.floor(x);
    const tz = Math.floor(z);
    if (x - tx === 0.5 && z - tz === 0.5) {
      const h = this.tiles.heightAt(tx, tz);
      if (h === h) return h;
    }
    try {
      return this.heightAt(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /** The original's wrapper of {@link getHeightAt}. */
  getHeightAtPosition(x: number, z: number): number {
    coords("getHeightAtPosition", x, z);
    return this.getHeightAt(x, z);
  }

  /** The procedural height with the mountain boost: no zones, no shoreline. NaN for
   * non-finite coordinates (the original's arithmetic gives NaN). */
  getProceduralHeightAt(x: number, z: number): number {
    coords("getProceduralHeightAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return Number.NaN;
    try {
      return this.proceduralAt(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /** The surface normal (central differences at 0.5 m, normalised as three.js does):
   * a new plain `{x, y, z}` per call. */
  getNormalAt(x: number, z: number): Normal {
    coords("getNormalAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) throw coordError(x - 0.5, z, undefined);
    const out = this.out;
    try {
      this.fast.hsNormal(this.handle, x, z, out);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return { x: out[0]!, y: out[1]!, z: out[2]! };
  }

  // ---- flat zones ---------------------------------------------------------------

  /** Whether a zone decides the height at `(x, z)` (its core or its blend ring). */
  isInFlatZone(x: number, z: number): boolean {
    coords("isInFlatZone", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return false;
    if (!this.zonesNear(x, z)) return false;
    try {
      return this.fast.hsInZone(this.handle, x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /**
   * The zone that decides the height at `(x, z)` (core or blend), or null: the object
   * the game registered, when it was registered here and is still the server's, else
   * an equal `FlatZone` built from the replica. (The original scans one 100 m cell of
   * its index for the first zone whose blend rectangle holds the point, so it misses
   * zones near cell edges and answers a zone that lost to another: README.)
   */
  getFlatZoneAt(x: number, z: number): FlatZone | null {
    coords("getFlatZoneAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return null;
    if (!this.zonesNear(x, z)) return null;
    let id: string | null;
    try {
      id = this.fast.hsZoneAt(this.handle, x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return id === null ? null : this.zoneObject(id);
  }

  /** Whether a zone may decide the height at `(x, z)` (finite), by the view's zone
   * bounds (taken again when the view changed). Points beyond the replica's range are
   * left to the addon, which refuses them. */
  private zonesNear(x: number, z: number): boolean {
    if (this.zonesEpoch !== this.tiles.epoch) this.newZoneEpoch();
    if (!(Math.abs(x) <= LIMIT && Math.abs(z) <= LIMIT)) return true;
    return this.zoneCells!.may(x, z);
  }

  private newZoneEpoch(): void {
    this.zoneObjects = new Map();
    this.zoneCells = new ZoneCells(this.fast.hsZoneBounds(this.handle));
    this.zonesEpoch = this.tiles.epoch;
  }

  private zoneObject(id: string): FlatZone | null {
    if (this.zonesEpoch !== this.tiles.epoch) this.newZoneEpoch();
    const kept = this.zoneObjects.get(id);
    if (kept !== undefined) return kept;
    const doc = this.fast.hsZone(this.handle, id);
    if (doc === null) return null;
    const mine = this.local.get(id);
    const zone = mine !== undefined && mine.doc === doc ? mine.zone : zoneOfDoc(JSON.parse(doc));
    this.zoneObjects.set(id, zone);
    return zone;
  }

  /**
   * Registers `zone` (the game's `FlatZone`: `tileMask` / `tileMaskTiles` make its core
   * those 1 m tiles): it decides heights here at once, and is committed to the server
   * in the background. Invalid zones throw as the original throws (naming the field),
   * and so do zones the server would refuse; a zone the server refuses later (another
   * limit, no token) is withdrawn and an `error` event says why.
   */
  registerFlatZone(zone: FlatZone): void {
    if (zone !== undefined && zone !== null) optionsArg("zone", zone, at("registerFlatZone"));
    if (zone?.id !== undefined && zone.id !== null) stringArg("id", zone.id, at("registerFlatZone"));
    if (!zone || !zone.id) {
      throw fieldError(`[TerrainSystem] registerFlatZone: invalid zone id: ${zone?.id}`, "id", zone ? RangeError : TypeError);
    }
    const where = `[TerrainSystem] registerFlatZone "${zone.id}"`;
    for (const key of ["centerX", "centerZ", "width", "depth", "height", "blendRadius"] as const) numberArg(key, zone[key], where);
    if (zone.carveInset !== undefined && zone.carveInset !== null) numberArg("carveInset", zone.carveInset, where);
    if (zone.walkable !== undefined && zone.walkable !== null) booleanArg("walkable", zone.walkable, where);
    if (!Number.isFinite(zone.centerX) || !Number.isFinite(zone.centerZ)) {
      throw fieldError(`${where}: invalid center (${zone.centerX}, ${zone.centerZ})`, Number.isFinite(zone.centerX) ? "centerZ" : "centerX", RangeError);
    }
    if (!Number.isFinite(zone.width) || zone.width <= 0) throw fieldError(`${where}: invalid width ${zone.width}`, "width", RangeError);
    if (!Number.isFinite(zone.depth) || zone.depth <= 0) throw fieldError(`${where}: invalid depth ${zone.depth}`, "depth", RangeError);
    if (!Number.isFinite(zone.height)) throw fieldError(`${where}: invalid height ${zone.height}`, "height", RangeError);
    if (!Number.isFinite(zone.blendRadius) || zone.blendRadius < 0) {
      throw fieldError(`${where}: invalid blendRadius ${zone.blendRadius}`, "blendRadius", RangeError);
    }
    const mask = maskTiles(zone, where);
    const body: Record<string, unknown> = {
      centerX: zone.centerX,
      centerZ: zone.centerZ,
      width: zone.width,
      depth: zone.depth,
      height: zone.height,
      blendRadius: zone.blendRadius,
    };
    if (zone.carveInset !== undefined && zone.carveInset !== null) body.carveInset = zone.carveInset;
    if (zone.walkable !== undefined && zone.walkable !== null) body.walkable = zone.walkable;
    if (mask !== undefined) body.tileMask = mask;
    const json = JSON.stringify(body);
    let info: Float64Array;
    try {
      info = this.fast.hsRegister(this.handle, zone.id, json);
    } catch (e) {
      throw refusal(e, where, RangeError, undefined, "invalid ");
    }
    const seq = info[0]!;
    this.applied(info.subarray(1));
    this.local.set(zone.id, { zone, doc: this.fast.hsZone(this.handle, zone.id) });
    this.commit(seq, zone.id, "register", "PUT", json);
  }

  /** Removes zone `id` here at once and from the server in the background; an id no
   * zone has is ignored, as the original ignores it. An `id` that is not a string is a
   * TypeError naming `id`. */
  unregisterFlatZone(id: string): void {
    stringArg("id", id, at("unregisterFlatZone"));
    if (this.fast.hsZone(this.handle, id) === null) return;
    const info = this.fast.hsUnregister(this.handle, id);
    this.applied(info.subarray(1));
    this.local.delete(id);
    this.commit(info[0]!, id, "unregister", "DELETE", undefined);
  }

  /** Resolves once every zone change made so far has been answered by the server and
   * the replica reflects the answers (refused ones are withdrawn by then). */
  async flush(timeoutMs?: number): Promise<void> {
    if (timeoutMs !== undefined && timeoutMs !== null) numberArg("timeoutMs", timeoutMs, "HyperscapeTerrain.flush");
    let at: Promise<void>;
    do {
      at = this.commits;
      await at;
    } while (at !== this.commits);
    if (this.lastCommitted > 0 && this.replica.live) await this.replica.waitForRevision(this.lastCommitted, timeoutMs ?? null);
  }

  /** The view changed here (`[epoch, n, rectangles...]`): what JavaScript keeps is told. */
  private applied(info: Float64Array): void {
    this.surface.published(info[0]!);
    this.tiles.changed(info);
  }

  private commit(seq: number, id: string, operation: "register" | "unregister", method: "PUT" | "DELETE", body: string | undefined): void {
    const url = this.url;
    if (url === undefined) return;
    const target = `${url}/v1/worlds/${encodeURIComponent(this.replica.world)}/flat-zones/${encodeURIComponent(id)}`;
    // Never rejects: the queue has no reader that would handle a rejection (an
    // unhandled one ends a Node process). Whatever goes wrong withdraws the change.
    const run = async (): Promise<void> => {
      try {
        await attempt();
      } catch (e) {
        if (this.closed) return;
        try {
          this.withdraw(seq, id, operation, 0, e instanceof Error ? e.message : String(e), undefined);
        } catch {
          // An `error` listener that throws: the change is withdrawn all the same.
        }
      }
    };
    const attempt = async (): Promise<void> => {
      if (this.closed) return;
      let failure: { status: number; message: string; field: string | undefined } | undefined;
      for (let attempt = 1; ; attempt++) {
        let answer: HttpAnswer | undefined;
        let reason: string;
        try {
          answer = await send(method, target, body, this.token, this.ca);
          reason = answer.text;
        } catch (e) {
          reason = e instanceof Error ? e.message : String(e);
        }
        if (this.closed) return;
        if (answer !== undefined && answer.status >= 200 && answer.status < 300) {
          const revision = Number((JSON.parse(answer.text) as { revision?: number }).revision ?? 0);
          this.lastCommitted = Math.max(this.lastCommitted, revision);
          this.applied(this.fast.hsSettle(this.handle, seq, revision));
          return;
        }
        if (answer !== undefined && answer.status === 404 && method === "DELETE") {
          this.applied(this.fast.hsSettle(this.handle, seq, -2));
          return;
        }
        const transient = answer === undefined || answer.status === 503 || answer.status === 504;
        if (transient && attempt < COMMIT_ATTEMPTS) {
          await new Promise((ok) => setTimeout(ok, 50 * 4 ** (attempt - 1)));
          continue;
        }
        let field: string | undefined;
        let message = reason;
        try {
          const err = (JSON.parse(reason) as { error?: { message?: string; field?: string; code?: string } }).error;
          if (err?.message) message = `${err.code ?? ""} ${err.message}`.trim();
          field = err?.field ?? undefined;
        } catch {
          // not JSON: the transport's message
        }
        failure = { status: answer?.status ?? 0, message, field };
        break;
      }
      this.withdraw(seq, id, operation, failure.status, failure.message, failure.field);
    };
    this.commits = this.commits.then(run, run);
  }

  /** Withdraws local change `seq` (refused, or it could not reach the server) and says
   * why: an `error` event, or a process warning without a listener. */
  private withdraw(seq: number, id: string, operation: "register" | "unregister", status: number, message: string, field: string | undefined): void {
    this.applied(this.fast.hsSettle(this.handle, seq, -1));
    if (operation === "register") this.local.delete(id);
    const verb = operation === "register" ? "registerFlatZone" : "unregisterFlatZone";
    const error = new ZoneCommitError(
      `[TerrainSystem] ${verb} "${id}": the terrain server ${status === 0 ? "could not be reached" : `refused it (HTTP ${status})`}: ${message}; withdrawn in this process`,
      id,
      operation,
      status,
      field,
    );
    if (this.listenerCount("error") > 0) this.emit("error", error);
    else process.emitWarning(error);
  }

  // ---- walkability --------------------------------------------------------------

  /** Whether an entity may stand at `(x, z)`, with the original's reason strings
   * (`reason` only when not walkable). */
  isPositionWalkable(x: number, z: number): WalkableCheck {
    coords("isPositionWalkable", x, z);
    const tx = Math.floor(x);
    const tz = Math.floor(z);
    if (x - tx === 0.5 && z - tz === 0.5) {
      const f = this.tiles.flagsAt(tx, tz);
      if (f >= 0) {
        if (f & WALKABLE) return { walkable: true };
        const code = f & WATER ? 1 : f & STEEP ? 2 : f & ZONE_BLOCKED ? 3 : f & STEP ? 4 : 3;
        return { walkable: false, reason: REASONS[code] as string };
      }
    }
    let code: number;
    try {
      code = this.fast.hsBlocked(this.handle, x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return code === 0 ? { walkable: true } : { walkable: false, reason: REASONS[code] as string };
  }

  /** The collision matrix's blocking flags at tile `(floor(x), floor(z))`, then
   * {@link isPositionWalkable}. Without a collision matrix, terrain alone. */
  isTileWalkable(x: number, z: number): boolean {
    coords("isTileWalkable", x, z);
    const collision = this.collision;
    if (collision !== null && collision.hasFlags(Math.floor(x), Math.floor(z), BLOCKS_MOVEMENT)) return false;
    return this.isPositionWalkable(x, z).walkable;
  }

  /** Height, biome, walkability, slope and water at `(x, z)`. */
  getTerrainInfoAt(x: number, z: number): TerrainInfoAt {
    coords("getTerrainInfoAt", x, z);
    const out = this.out;
    try {
      this.fast.hsInfo(this.handle, x, z, out);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return {
      height: out[0]!,
      biome: this.biomes[out[4]!] ?? "plains",
      walkable: out[3] === 0,
      slope: out[1]!,
      underwater: out[2] === 1,
    };
  }

  /** The original's straight-line check: 21 samples from start to end, blocked at the
   * first unwalkable one (`path` empty), else the samples. */
  findWalkablePath(startX: number, startZ: number, endX: number, endZ: number): WalkablePath {
    numberArgs(["startX", "startZ", "endX", "endZ"], [startX, startZ, endX, endZ], at("findWalkablePath"));
    const steps = 20;
    const dx = (endX - startX) / steps;
    const dz = (endZ - startZ) / steps;
    const pts = this.samples;
    let valid = steps + 1;
    for (let i = 0; i <= steps; i++) {
      const x = startX + dx * i;
      const z = startZ + dz * i;
      if (!Number.isFinite(x) || !Number.isFinite(z)) {
        valid = i;
        break;
      }
      pts[2 * i] = x;
      pts[2 * i + 1] = z;
    }
    let blocked = -1;
    if (valid > 0) {
      try {
        blocked = this.fast.hsFirstBlocked(this.handle, valid === steps + 1 ? pts : pts.subarray(0, 2 * valid));
      } catch (e) {
        const m = /^points\[(\d+)\]/.exec(e instanceof Error ? e.message : "");
        const k = m ? Number(m[1]) >> 1 : 0;
        throw coordError(pts[2 * k]!, pts[2 * k + 1]!, e instanceof Error ? new Error(e.message.replace(/^points\[\d+\]/, Number(m?.[1]) % 2 === 0 ? "x" : "z")) : e);
      }
    }
    if (blocked >= 0) return { path: [], blocked: true };
    if (valid <= steps) throw coordError(startX + dx * valid, startZ + dz * valid, undefined);
    const path: FlatZoneTile[] = new Array(steps + 1);
    for (let i = 0; i <= steps; i++) path[i] = { x: pts[2 * i]!, z: pts[2 * i + 1]! };
    return { path, blocked: false };
  }

  /** The biome of the position's 100 m tile: plains in the five starter towns' tile
   * blocks, else the type of the seed's first biome centre (the original's lookup). */
  getBiomeAtPosition(x: number, z: number): string {
    coords("getBiomeAtPosition", x, z);
    const tx = Math.floor(x / 100);
    const tz = Math.floor(z / 100);
    for (const [cx, cz] of BIOME_TOWNS) {
      // The original's `sqrt(dx^2 + dz^2) < 3` over whole tile indices: the same
      // answer as the squares below 9, with no host maths.
      const dx = tx - cx!;
      const dz = tz - cz!;
      if (dx * dx + dz * dz < 9) return "plains";
    }
    return this.firstBiome;
  }

  /**
   * The difficulty at `(x, z)`: the biome's tier (or `overrideDifficultyLevel`) faded in
   * over 300 m from the nearest town's edge, mixed with slow noise, curved into a level
   * from 1 to 1000 (0 and `isSafe` in towns and tier-0 biomes).
   */
  getDifficultyAtWorldPosition(x: number, z: number, overrideDifficultyLevel?: number): DifficultySample {
    coords("getDifficultyAtWorldPosition", x, z);
    const has = overrideDifficultyLevel !== undefined;
    if (overrideDifficultyLevel === null) {
      // The original compares whatever it is given: null is a tier of 0.
      return { level: 0, scalar: 0, biome: this.firstBiome, difficultyTier: null as unknown as number, isSafe: true };
    }
    if (has) numberArg("overrideDifficultyLevel", overrideDifficultyLevel, at("getDifficultyAtWorldPosition"));
    const tier = has ? overrideDifficultyLevel! : this.firstBiomeTier;
    const biome = this.firstBiome;
    if (!Number.isFinite(x) || !Number.isFinite(z)) {
      // The original's arithmetic: NaN distances and noise, so NaN unless the tier is 0.
      if (tier <= 0) return { level: 0, scalar: 0, biome, difficultyTier: tier, isSafe: true };
      return { level: Number.NaN, scalar: Number.NaN, biome, difficultyTier: tier, isSafe: false };
    }
    // terrain-core's `walk::difficulty::difficulty` (the original's formula), computed
    // in the addon: its `pow` is core's, the same on every host, where the host's
    // Math.pow differs between Node versions.
    const out = this.out;
    try {
      this.fast.hsDifficulty(this.handle, x, z, has, has ? tier : 0, out);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return { level: out[0]!, scalar: out[1]!, biome, difficultyTier: out[2]!, isSafe: out[3] === 1 };
  }

  /** The towns of {@link getDifficultyAtWorldPosition}: the game's towns (empty: the
   * original's five fallback towns), each `{x, z, radius}` or the game's `{position: {x,
   * z}, safeZoneRadius}`, checked as the server checks a world's `towns` (at most
   * {@link MAX_TOWNS}, finite centres, radii above 0; errors name the town and key:
   * `towns[2].radius`); `null`, the world's towns as the server lists them again (its
   * `towns` key; none listed: the fallback towns). */
  setTowns(towns: Town[] | null): void {
    const where = at("setTowns");
    if (towns === null) {
      this.fast.hsSetTowns(this.handle, null);
      return;
    }
    if (!Array.isArray(towns)) throw argumentError(TypeError, "towns", `expected an array of towns or null, got ${describe(towns)}`, where);
    if (towns.length > MAX_TOWNS) throw argumentError(RangeError, "towns", `${towns.length} towns exceed the limit of ${MAX_TOWNS}`, where);
    const flat = new Float64Array(towns.length * 3);
    towns.forEach((t: unknown, i) => {
      const o = optionsArg(`towns[${i}]`, t, where);
      if (o === undefined) throw argumentError(TypeError, `towns[${i}]`, `expected a town, got ${describe(t)}`, where);
      let values: [string, unknown][];
      if ("position" in o) {
        const p = optionsArg(`towns[${i}].position`, o.position, where);
        values = [
          [`towns[${i}].position.x`, p?.x],
          [`towns[${i}].position.z`, p?.z],
          [`towns[${i}].safeZoneRadius`, o.safeZoneRadius],
        ];
      } else {
        values = [
          [`towns[${i}].x`, o.x],
          [`towns[${i}].z`, o.z],
          [`towns[${i}].radius`, o.radius],
        ];
      }
      values.forEach(([name, v], k) => {
        flat[3 * i + k] = numberArg(name, v, where);
      });
    });
    try {
      this.fast.hsSetTowns(this.handle, flat);
    } catch (e) {
      // The addon names the keys `{x, z, radius}` has; the game's form has its own.
      const game = (field: string): string => {
        const m = /^towns\[(\d+)\]\.(x|z|radius)$/.exec(field);
        if (!m || !("position" in (towns[Number(m[1])] as object))) return field;
        return `towns[${m[1]}].${m[2] === "radius" ? "safeZoneRadius" : `position.${m[2]}`}`;
      };
      throw refusal(e, where, RangeError, game);
    }
  }

  /**
   * The walkability of `width x depth` 1 m tiles from `(minTileX, minTileZ)`, one byte a
   * tile, rows of `width` with z rising: 1 walkable, 2 water, 4 steep, 8 in a zone's
   * core, 16 blocked by a zone, 32 a step; each tile as `isPositionWalkable` at its
   * centre ({@link LocalTerrain.walkGrid}: the server's `walk-grid` bytes).
   */
  walkGrid(minTileX: number, minTileZ: number, width: number, depth: number): Uint8Array {
    // Checked by the replica's walkGrid: the server's limits (src/native.ts).
    return this.replica.walkGrid(minTileX, minTileZ, width, depth);
  }

  // ---- the rest of the original's surface ----------------------------------------

  /** The original's terrain tile size, 100 m. */
  getTileSize(): number {
    return 100;
  }

  /** The original's `CONFIG` as the game reads it from outside: `TILE_SIZE`, 100 m. */
  readonly CONFIG: Readonly<{ TILE_SIZE: number }> = Object.freeze({ TILE_SIZE: 100 });

  /**
   * The original's (private) world-position biome: the type of the seed's first biome
   * centre wherever the point is (the original lists every biome's weight in the
   * centres' order, never sorted, and answers the first), `"plains"` for non-finite
   * coordinates (its weights are NaN there). The original also answers `"plains"` where
   * every centre's weight underflows to 0, some 120 km from the island; the replica has
   * no such bound and answers the first centre's type there.
   */
  getBiomeAtWorldPosition(x: number, z: number): string {
    coords("getBiomeAtWorldPosition", x, z);
    return Number.isFinite(x) && Number.isFinite(z) ? this.firstBiome : "plains";
  }

  /** True once open (the replica answers everywhere), false once closed. */
  isReady(): boolean {
    return !this.closed;
  }

  /** True wherever the replica answers (the original: whether its physics tile is
   * loaded, looked up as `floor(x / 100)`; this replica loads no tiles). */
  isPhysicsReadyAt(x: number, z: number): boolean {
    coords("isPhysicsReadyAt", x, z);
    return !this.closed && Number.isFinite(x) && Number.isFinite(z);
  }

  /** Stops following the server and releases the replica; pending zone commits are
   * abandoned. Later reads throw. */
  close(): void {
    this.closed = true;
    this.replica.close();
  }

  /** The original's name for {@link close}. */
  destroy(): void {
    this.close();
  }

  private async follow(): Promise<void> {
    this.following = true;
    try {
      for (let e = await this.replica.nextEvent(); e !== null; e = await this.replica.nextEvent()) {
        this.emit("change", e);
        if (this.listenerCount("change") === 0) break;
      }
    } catch (e) {
      if (!this.closed) {
        if (this.listenerCount("error") > 0) this.emit("error", e);
        else process.emitWarning(e instanceof Error ? e : String(e));
      }
    } finally {
      this.following = false;
    }
  }
}

export interface HyperscapeTerrain {
  getTerrainMaterialWithUniforms(): never;
  getTerrainColorAt(): never;
  prefetchTile(): never;
  precomputeTilesWithWorker(): never;
  createDeterministicRng(): never;
  getMobSpawnPositionsForTile(): never;
  getLoadedTilesWithSpawnData(): never;
  getBiomeMobTypes(): never;
  getBiomeDifficulty(): never;
  getBossLevelAtWorldPosition(): never;
  getBossHotspots(): never;
  getBossHotspotAtWorldPosition(): never;
  getLoadedTiles(): never;
  getActiveChunks(): never;
  markChunkActive(): never;
  markChunkInactive(): never;
  saveAllActiveChunks(): never;
  getTerrainStats(): never;
  getRoadInfluenceAt(): never;
  getRoadSegmentsForTile(): never;
  findWaterAreas(): never;
}

for (const [name, instead] of Object.entries(NOT_PROVIDED)) {
  Object.defineProperty(HyperscapeTerrain.prototype, name, {
    value: function notProvided(): never {
      throw new Error(`HyperscapeTerrain.${name} is not provided by the terrain server (${instead}); to keep it, keep the game's own TerrainSystem: use attachTerrainServer`);
    },
    writable: true,
    configurable: true,
  });
}

export { BLOCK, STEEP, STEP, WALKABLE, WATER, ZONE_BLOCKED, ZONE_CORE } from "./tiles";
export { MAX_TOWNS, MAX_WALK_GRID_SIDE, MAX_WALK_GRID_TILES } from "./native";
export { type AttachOptions, ROUTED, TerrainAttachment, attachTerrainServer } from "./attach";
