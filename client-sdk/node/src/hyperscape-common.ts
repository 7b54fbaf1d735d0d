// The Hyperscape adapter's pieces that need no runtime: the game's types, the
// original's reason strings and biome lookup, its argument checks and errors, the
// zone-bounds cells and the straight-line path check. `HyperscapeTerrain` on Node
// (src/hyperscape.ts, over the addon or the WebAssembly replica) and in the browser
// (src/web/, terrain-client/web) both answer through these, so the two cannot drift.
// Imports carry `.js` extensions: the browser build loads them as ES modules.
import { booleanArg, describe, fieldError, numberArg, numberArgs, optionsArg, stringArg } from "./args.js";

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
  /** Connect timeout of the replica, milliseconds (default 5,000); `open` also waits
   * this long, at least 5,000, for the live tiles of `getActiveChunks`. */
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
  markChunkActive: "the client's chunk loading (report viewers to the server: ViewerTracker)",
  markChunkInactive: "the client's chunk loading (report viewers to the server: ViewerTracker)",
  saveAllActiveChunks: "chunk persistence: the server stores zones durably itself",
  getTerrainStats: "the client's tile statistics",
  getRoadInfluenceAt: "roads: keep the game's RoadNetworkSystem",
  getRoadSegmentsForTile: "roads: keep the game's RoadNetworkSystem",
  findWaterAreas: "rendering: water meshes are the client's",
};

export const BIOME_TOWNS: readonly (readonly [number, number])[] = [
  [0, 0],
  [10, 0],
  [-10, 0],
  [0, 10],
  [0, -10],
];


/** The names of a point's two numbers. */
export const XZ = ["x", "z"] as const;

/** `where` of the errors of method `name`, as the original's say it. */
export const at = (name: string): string => `[TerrainSystem] ${name}`;

/** The coordinates `(x, z)` of method `name`: numbers (what each method does with NaN
 * and infinities is the original's rule), else a TypeError naming the argument. */
export function coords(name: string, x: unknown, z: unknown): void {
  if (typeof x !== "number" || typeof z !== "number") numberArgs(XZ, [x, z], at(name));
}

/** Cells of {@link ZoneCells}, metres. */
export const ZONE_CELL = 32;
/** A zone spanning more cells than this is tested by its bounds instead. */
export const ZONE_CELLS_MAX = 1024;

/**
 * Where zones may decide heights: the 32 m cells their outer bounds (grown by a metre)
 * touch. A point in no marked cell is decided by no zone, so the zone lookups answer it
 * without calling into the addon; others ask the addon, which has the answer.
 */
export class ZoneCells {
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
export function coordError(x: number, z: number, cause: unknown): Error {
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
export function maskTiles(zone: FlatZone, where: string): [number, number][] | undefined {
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
export function zoneOfDoc(doc: any): FlatZone {
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

/** The game's zone `zone` checked as the original's `registerFlatZone` checks it (and
 * as the server would), errors naming the field: the errors' prefix `where` and the
 * body the server takes. */
export function zoneRequest(zone: FlatZone): { where: string; json: string } {
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
  return { where, json };
}

/** The original's straight-line check (`findWalkablePath`): 21 samples from start to
 * end into `pts` (42 numbers), blocked at the first one `firstBlocked` finds (the
 * replica's answer: its index, or -1), `path` empty; else the samples. */
export function walkablePath(
  startX: number,
  startZ: number,
  endX: number,
  endZ: number,
  pts: Float64Array,
  firstBlocked: (points: Float64Array) => number,
): WalkablePath {
  numberArgs(["startX", "startZ", "endX", "endZ"], [startX, startZ, endX, endZ], at("findWalkablePath"));
  const steps = 20;
  const dx = (endX - startX) / steps;
  const dz = (endZ - startZ) / steps;
  
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
      blocked = firstBlocked(valid === steps + 1 ? pts : pts.subarray(0, 2 * valid));
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

/** `getBiomeAtPosition`: plains in the five starter towns' 100 m tile blocks, else
 * `firstBiome` (the type of the seed's first biome centre), the original's lookup. */
export function biomeAtPosition(x: number, z: number, firstBiome: string): string {
  const tx = Math.floor(x / 100);
  const tz = Math.floor(z / 100);
  for (const [cx, cz] of BIOME_TOWNS) {
    // The original's `sqrt(dx^2 + dz^2) < 3` over whole tile indices: the same
    // answer as the squares below 9, with no host maths.
    const dx = tx - cx!;
    const dz = tz - cz!;
    if (dx * dx + dz * dz < 9) return "plains";
  }
  return firstBiome;
}

/** `getDifficultyAtWorldPosition`'s answer at `(x, z)`: the original's answers for
 * `null` and non-finite input here, else terrain-core's formula computed by the replica
 * (`compute(hasTier, tier, out)` writes level, scalar, tier, isSafe into `out`). */
export function difficultySample(
  x: number,
  z: number,
  override: number | null | undefined,
  firstBiome: string,
  firstBiomeTier: number,
  out: Float64Array,
  compute: (hasTier: boolean, tier: number, out: Float64Array) => void,
): DifficultySample {
  coords("getDifficultyAtWorldPosition", x, z);
  const has = override !== undefined;
  if (override === null) {
    // The original compares whatever it is given: null is a tier of 0.
    return { level: 0, scalar: 0, biome: firstBiome, difficultyTier: null as unknown as number, isSafe: true };
  }
  if (has) numberArg("overrideDifficultyLevel", override, at("getDifficultyAtWorldPosition"));
  const tier = has ? override! : firstBiomeTier;
  const biome = firstBiome;
  if (!Number.isFinite(x) || !Number.isFinite(z)) {
    // The original's arithmetic: NaN distances and noise, so NaN unless the tier is 0.
    if (tier <= 0) return { level: 0, scalar: 0, biome, difficultyTier: tier, isSafe: true };
    return { level: Number.NaN, scalar: Number.NaN, biome, difficultyTier: tier, isSafe: false };
  }
  // terrain-core's `walk::difficulty::difficulty` (the original's formula), computed
  // in the replica (the addon, or the WebAssembly module): its `pow` is core's, the
  // same on every host, where the host's Math.pow differs between engines.
  try {
    compute(has, has ? tier : 0, out);
  } catch (e) {
    throw coordError(x, z, e);
  }
  return { level: out[0]!, scalar: out[1]!, biome, difficultyTier: out[2]!, isSafe: out[3] === 1 };
}
