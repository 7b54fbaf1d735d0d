// Loads the native addon built by scripts/build-addon.mjs (terrain_node.node beside
// package.json), typed by the hand-written addon.d.ts.
//
// The per-call reads are routed past napi-rs's class methods, which pay a
// borrow-tracking registry on every call (more than the height itself):
// - `heightAt` through a function the addon binds to the replica (`replicaHeightFn`,
//   crate terrain-node, module `fast`): a call converts two numbers and nothing else,
//   about 40 ns against 110 ns for a plain `#[napi]` function;
// - `surfaceHeightAt` is answered from the tile surfaces the addon hands over, kept in
//   the WebAssembly module (src/surface.ts), with no call into the addon for a kept
//   tile. For that, `LocalTerrain.open` passes the addon the callback that tells the
//   kept tiles when the replica's view moves on, and `close` tells them the replica
//   is closed.
// - heights and walkability at 1 m tile centres are kept in blocks (src/tiles.ts), read
//   by `walkGrid` and the Hyperscape adapter (src/hyperscape.ts); the same callback
//   hands them the rectangles where the view's zones changed, and they drop exactly
//   the blocks there.
// The handle, the bound height function and the kept tiles are created once per
// object and kept on it under private symbols.
import { join } from "node:path";
import type * as Addon from "./addon";
import { argumentError, fieldError, numberArg, numberArgs, optionsArg, pointsArg, stringArg, wholeArg } from "./args";
import { type SurfaceAddon, SurfaceTiles } from "./surface";
import { type TileAddon, TileCache } from "./tiles";
import { loadWasm } from "./wasm";

/** Path of the addon: TERRAIN_NODE_ADDON when set, else the package's build. */
export const addonPath: string =
  process.env.TERRAIN_NODE_ADDON ?? join(__dirname, "..", "..", "terrain_node.node");

/** What the addon exports beyond addon.d.ts: the handle functions (crate
 * terrain-node, modules `fast` and `hyperscape`). */
export interface Fast extends SurfaceAddon, TileAddon {
  replicaHeightFn(handle: unknown): (x: number, z: number) => number;
  replicaTileMesh(handle: unknown, tx: number, tz: number): Addon.TileMesh;
  replicaChunkBlocks(handle: unknown, cx: number, cz: number): Uint8Array | null;
  hsWorld(handle: unknown): string;
  hsProceduralFn(handle: unknown): (x: number, z: number) => number;
  hsNormal(handle: unknown, x: number, z: number, out: Float64Array): void;
  hsBlocked(handle: unknown, x: number, z: number): number;
  hsInfo(handle: unknown, x: number, z: number, out: Float64Array): void;
  hsDifficulty(handle: unknown, x: number, z: number, hasTier: boolean, tier: number, out: Float64Array): void;
  hsInZone(handle: unknown, x: number, z: number): boolean;
  hsZoneAt(handle: unknown, x: number, z: number): string | null;
  hsZone(handle: unknown, id: string): string | null;
  hsFirstBlocked(handle: unknown, points: Float64Array): number;
  hsRegister(handle: unknown, id: string, body: string): Float64Array;
  hsUnregister(handle: unknown, id: string): Float64Array;
  hsSettle(handle: unknown, seq: number, revision: number): Float64Array;
  hsSetTowns(handle: unknown, towns: Float64Array | null): void;
  hsCoreTime(handle: unknown, kind: string, points: Float64Array, reps: number): number;
  hsCrossing(x: number, z: number): number;
  hsCrossingFn(): (x: number, z: number) => number;
  hsZoneBounds(handle: unknown): Float64Array;
  MAX_WALK_GRID_SIDE: number;
  MAX_WALK_GRID_TILES: number;
  MAX_TOWNS: number;
}

/** The addon's `open`: the public one's arguments and the view's hand-over callback. */
type RawOpen = (
  url: string,
  world: string,
  options: Addon.OpenOptions | null | undefined,
  onPublish: (changed: Float64Array) => void,
) => Promise<Addon.LocalTerrain>;

/** Whether the package runs over the WebAssembly replica (src/wasm.ts) instead of the
 * native addon: TERRAIN_CLIENT_WASM=1 asks for it; TERRAIN_CLIENT_WASM=0 forbids it;
 * unset, it is used when the native addon does not load (another OS or CPU, or a clone
 * before the build). */
export let usingWasm = false;

/** Loads the addon, or the WebAssembly replica (see `usingWasm`), or says what is
 * wrong: the package carries the linux-x64 (glibc) addon and the WebAssembly build. */
function load(): typeof Addon & Fast {
  const mode = process.env.TERRAIN_CLIENT_WASM;
  if (mode === "1") {
    usingWasm = true;
    return loadWasm();
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(addonPath) as typeof Addon & Fast;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    if (mode !== "0") {
      try {
        usingWasm = true;
        return loadWasm();
      } catch {
        usingWasm = false;
      }
    }
    throw new Error(
      `terrain-client: cannot load the native addon ${addonPath} on ${process.platform}-${process.arch} (${why}), ` +
        "nor the WebAssembly replica. The npm package carries the addon built for linux-x64 (glibc) and the WebAssembly build; " +
        "in a clone of the repository, build them from source with cargo: `npm ci && npm run build` in client-sdk/node " +
        "(TERRAIN_NODE_ADDON points at another addon build).",
    );
  }
}

const loaded = load();

const HANDLE = Symbol("terrain-node handle");
const HEIGHT = Symbol("terrain-node heightAt");
const SURFACE = Symbol("terrain-node surface tiles");
const TILES = Symbol("terrain-node tile blocks");
type WithHandle = Addon.LocalTerrain & {
  [HANDLE]?: unknown;
  [HEIGHT]?: (x: number, z: number) => number;
  [SURFACE]?: SurfaceTiles;
  [TILES]?: TileCache;
  readonly handle: unknown;
};

function handleOf(terrain: WithHandle): unknown {
  return terrain[HANDLE] ?? (terrain[HANDLE] = terrain.handle);
}

function heightOf(terrain: WithHandle): (x: number, z: number) => number {
  return (terrain[HEIGHT] = loaded.replicaHeightFn(handleOf(terrain)));
}

function surfaceOf(terrain: WithHandle): SurfaceTiles {
  return (terrain[SURFACE] = new SurfaceTiles(loaded, handleOf(terrain)));
}

function tilesOf(terrain: WithHandle): TileCache {
  return terrain[TILES] ?? (terrain[TILES] = new TileCache(loaded, handleOf(terrain)));
}

/** Most tiles a side of one `walkGrid`: terrain-core's limit, the server's
 * `walk-grid` limit (read from the addon, so it is defined once). */
export const MAX_WALK_GRID_SIDE: number = loaded.MAX_WALK_GRID_SIDE;

/** Most tiles of one `walkGrid` (`width * depth`): the server's default
 * `max_batch_points`, over which its `walk-grid` answers 413 naming `width` (read from
 * the addon: terrain-core's `walk::limits::MAX_WALK_GRID_TILES`). */
export const MAX_WALK_GRID_TILES: number = loaded.MAX_WALK_GRID_TILES;

/** Most towns `HyperscapeTerrain.setTowns` takes: as many as a world may list (the
 * server's `towns` key; read from the addon: terrain-core's `walk::MAX_TOWNS`). */
export const MAX_TOWNS: number = loaded.MAX_TOWNS;

/** The replica's coordinate range (terrain-core's COORDINATE_LIMIT, 2^46 m). */
export const LIMIT = 2 ** 46;

const proto = loaded.LocalTerrain.prototype as WithHandle;
const XZ = ["x", "z"] as const;
proto.heightAt = function heightAt(this: WithHandle, x: number, z: number): number {
  if (typeof x !== "number" || typeof z !== "number") numberArgs(XZ, [x, z]);
  return (this[HEIGHT] ?? heightOf(this))(x, z);
};
// Over the addon, through the tiles src/surface.ts keeps; over WebAssembly, the module's
// own read (one call, tiles kept in the module).
const rawSurface = proto.surfaceHeightAt;
proto.surfaceHeightAt = usingWasm
  ? function surfaceHeightAt(this: WithHandle, x: number, z: number): number {
      if (typeof x !== "number" || typeof z !== "number") numberArgs(XZ, [x, z]);
      return rawSurface.call(this, x, z);
    }
  : function surfaceHeightAt(this: WithHandle, x: number, z: number): number {
      if (typeof x !== "number" || typeof z !== "number") numberArgs(XZ, [x, z]);
      return (this[SURFACE] ?? surfaceOf(this)).heightAt(x, z);
    };
proto.walkGrid = function walkGrid(this: WithHandle, minTileX: number, minTileZ: number, width: number, depth: number): Uint8Array {
  wholeArg("minTileX", minTileX, -LIMIT, LIMIT);
  wholeArg("minTileZ", minTileZ, -LIMIT, LIMIT);
  wholeArg("width", width, 1, MAX_WALK_GRID_SIDE);
  wholeArg("depth", depth, 1, MAX_WALK_GRID_SIDE);
  const tiles = width * depth;
  if (tiles > MAX_WALK_GRID_TILES) {
    // The server's words for the same request (its `walk-grid` answers 413).
    throw argumentError(RangeError, "width", `${tiles} points exceed the limit of ${MAX_WALK_GRID_TILES} per request`);
  }
  return tilesOf(this).walkGrid(minTileX, minTileZ, width, depth);
};

/** The refusal `e` of a tile or chunk read (`tx: ...`, terrain-client's
 * `view::tile_mesh` and `view::chunk_blocks`) naming its field: a RangeError for an
 * index, an Error for the world. */
function indexRefusal(e: unknown): unknown {
  const m = e instanceof Error ? /^(tx|tz|cx|cz|world): /.exec(e.message) : null;
  if (!m) return e;
  return fieldError((e as Error).message, m[1]!, m[1] === "world" ? Error : RangeError);
}
const TILE = ["tx", "tz"] as const;
const CHUNK = ["cx", "cz"] as const;
proto.tileMesh = function tileMesh(this: WithHandle, tx: number, tz: number): Addon.TileMesh {
  if (typeof tx !== "number" || typeof tz !== "number") numberArgs(TILE, [tx, tz]);
  try {
    return loaded.replicaTileMesh(handleOf(this), tx, tz);
  } catch (e) {
    throw indexRefusal(e);
  }
};
proto.chunkBlocks = function chunkBlocks(this: WithHandle, cx: number, cz: number): Uint8Array | null {
  if (typeof cx !== "number" || typeof cz !== "number") numberArgs(CHUNK, [cx, cz]);
  try {
    return loaded.replicaChunkBlocks(handleOf(this), cx, cz);
  } catch (e) {
    throw indexRefusal(e);
  }
};

/** Puts `check` of the arguments in front of the addon's method `name`. */
function checked(name: keyof Addon.LocalTerrain, check: (args: unknown[]) => void): void {
  const raw = proto[name] as unknown as (...args: unknown[]) => unknown;
  (proto as unknown as Record<string, unknown>)[name] = function (this: WithHandle, ...args: unknown[]): unknown {
    check(args);
    return raw.apply(this, args);
  };
}
const point = (args: unknown[]): void => numberArgs(XZ, args);
const points = (args: unknown[]): void => void pointsArg("points", args[0]);
checked("heights", points);
checked("surfaceHeights", points);
checked("terrainInfo", point);
checked("terrainInfos", points);
checked("zoneAt", point);
checked("checkPath", (args) => {
  pointsArg("points", args[0]);
  if (args[1] !== undefined && args[1] !== null) stringArg("mode", args[1]);
});
checked("findPath", (args) => {
  numberArgs(["fromX", "fromZ", "toX", "toZ"], args);
  const options = optionsArg("options", args[4]);
  if (options?.maxNodes !== undefined) numberArg("maxNodes", options.maxNodes);
  if (options?.maxDistance !== undefined) numberArg("maxDistance", options.maxDistance);
});
checked("waitForRevision", (args) => {
  numberArg("revision", args[0]);
  if (args[1] !== undefined && args[1] !== null) numberArg("timeoutMs", args[1]);
});

/** The options of `open`, checked. */
function openOptions(options: unknown): void {
  const o = optionsArg("options", options);
  if (o?.caFile !== undefined) stringArg("caFile", o.caFile);
  if (o?.connectTimeoutMs !== undefined) numberArg("connectTimeoutMs", o.connectTimeoutMs);
}

const rawClose = proto.close;
proto.close = function close(this: WithHandle): void {
  rawClose.call(this);
  this[SURFACE]?.closed();
  this[TILES]?.clear();
};

const rawOpen = loaded.LocalTerrain.open as unknown as RawOpen;
loaded.LocalTerrain.open = async function open(
  url: string,
  world: string,
  options?: Addon.OpenOptions | null,
): Promise<Addon.LocalTerrain> {
  stringArg("url", url);
  stringArg("world", world);
  openOptions(options);
  let tiles: SurfaceTiles | undefined;
  let blocks: TileCache | undefined;
  const terrain = await rawOpen.call(loaded.LocalTerrain, url, world, options, (changed: Float64Array) => {
    tiles?.published(changed[0]!);
    blocks?.changed(changed);
  });
  // Hand-overs before this line need no telling: new tiles read the epoch first, and
  // no block is kept yet.
  if (!usingWasm) tiles = surfaceOf(terrain as WithHandle);
  blocks = tilesOf(terrain as WithHandle);
  return terrain;
};

const rawOffline = loaded.LocalTerrain.offline;
loaded.LocalTerrain.offline = function offline(world: string, zones: string): Addon.LocalTerrain {
  stringArg("world", world);
  stringArg("zones", zones);
  return rawOffline.call(loaded.LocalTerrain, world, zones);
};

export const addon: typeof Addon = loaded;

/** The addon's handle functions and test hooks (crate terrain-node, modules `fast` and
 * `hyperscape`), for the tests. */
export const fastAddon: Fast = loaded;

/** How many tile surfaces `surfaceHeightAt` keeps for `terrain` (for the tests). */
export function keptSurfaceTiles(terrain: Addon.LocalTerrain): number {
  if (usingWasm) return (terrain as unknown as { surfaceTilesKept: number }).surfaceTilesKept;
  return (terrain as WithHandle)[SURFACE]?.kept ?? 0;
}

/** The addon's handle functions, the replica's handle, its bound `heightAt`, and its
 * kept tile surfaces and tile blocks: what the Hyperscape adapter reads through
 * (src/hyperscape.ts). */
export function internals(terrain: Addon.LocalTerrain): {
  fast: Fast;
  handle: unknown;
  height: (x: number, z: number) => number;
  surface: SurfaceTiles;
  tiles: TileCache;
} {
  const t = terrain as WithHandle;
  return {
    fast: loaded,
    handle: handleOf(t),
    height: t[HEIGHT] ?? heightOf(t),
    surface: t[SURFACE] ?? surfaceOf(t),
    tiles: tilesOf(t),
  };
}
