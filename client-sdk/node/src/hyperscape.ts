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

import { type ActiveChunk, ActiveTiles } from "./active-tiles";
import type * as Addon from "./addon";
import { TerrainClient } from "./client";
import { argumentError, describe, numberArg, optionsArg, refusal, stringArg } from "./args";
import { PointAnswers, type PointReads, worldFacts } from "./hyperscape-points";
import { type Fast, LIMIT, MAX_TOWNS, addon, internals } from "./native";
import type { SurfaceTiles } from "./surface";
import type { TileCache } from "./tiles";
import {
  type CollisionMatrix,
  type DifficultySample,
  type FlatZone,
  type HyperscapeOptions,
  type Normal,
  type TerrainInfoAt,
  type Town,
  type WalkableCheck,
  type WalkablePath,
  BLOCKS_MOVEMENT,
  NOT_PROVIDED,
  ZoneCells,
  ZoneCommitError,
  at,
  coordError,
  coords,
  zoneOfDoc,
  zoneRequest,
} from "./hyperscape-common";
export {
  type CollisionMatrix,
  type DifficultySample,
  type FlatZone,
  type FlatZoneTile,
  type FlatZoneTileBounds,
  type HyperscapeOptions,
  type Normal,
  type TerrainInfoAt,
  type Town,
  type WalkableCheck,
  type WalkablePath,
  BLOCKS_MOVEMENT,
  NOT_PROVIDED,
  REASONS,
  ZoneCommitError,
} from "./hyperscape-common";

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
  private readonly tiles: TileCache;
  private readonly surface: SurfaceTiles;
  /** The point answers (src/hyperscape-points.ts) over the addon's reads. */
  private readonly points: PointAnswers;
  /** Where zones may decide heights, at `zonesEpoch`. */
  private zoneCells: ZoneCells | undefined;
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
    /** The server's active tiles (`open` only). */
    private readonly activeTiles?: ActiveTiles,
  ) {
    super();
    this.replica = replica;
    const inner = internals(replica);
    this.fast = inner.fast;
    this.handle = inner.handle;
    this.tiles = inner.tiles;
    this.surface = inner.surface;
    const { fast, handle } = inner;
    // The heights are functions the addon binds to the replica (a call crosses into
    // the addon for about 40 ns instead of 110 ns).
    const reads: PointReads = {
      height: inner.height,
      procedural: fast.hsProceduralFn(handle),
      normal: (x, z, out) => fast.hsNormal(handle, x, z, out),
      blocked: (x, z) => fast.hsBlocked(handle, x, z),
      info: (x, z, out) => fast.hsInfo(handle, x, z, out),
      firstBlocked: (points) => fast.hsFirstBlocked(handle, points),
      difficulty: (x, z, has, tier, out) => fast.hsDifficulty(handle, x, z, has, tier, out),
    };
    this.points = new PointAnswers(reads, this.tiles, worldFacts(fast.hsWorld(handle), replica.world));
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
    let active: ActiveTiles | undefined;
    try {
      const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile);
      const client = await TerrainClient.connect(url, {
        lazy: true,
        ...(options.token === undefined ? {} : { token: options.token }),
        ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
      });
      // Stream failures after open reach the adapter's `error` listeners.
      let terrain: HyperscapeTerrain | undefined;
      active = await ActiveTiles.open(client, world, Math.max(options.connectTimeoutMs ?? 0, 5_000), (e) => terrain?.failed(e));
      terrain = new HyperscapeTerrain(replica, url.replace(/\/+$/, ""), options.token, ca, options, active);
      return terrain;
    } catch (e) {
      active?.close();
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
    return this.points.getHeightAt(x, z);
  }

  /** The original's wrapper of {@link getHeightAt}. */
  getHeightAtPosition(x: number, z: number): number {
    return this.points.getHeightAtPosition(x, z);
  }

  /** The procedural height with the mountain boost: no zones, no shoreline. NaN for
   * non-finite coordinates (the original's arithmetic gives NaN). */
  getProceduralHeightAt(x: number, z: number): number {
    return this.points.getProceduralHeightAt(x, z);
  }

  /** The surface normal (central differences at 0.5 m, normalised as three.js does):
   * a new plain `{x, y, z}` per call. */
  getNormalAt(x: number, z: number): Normal {
    return this.points.getNormalAt(x, z);
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
    const { where, json } = zoneRequest(zone);
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
    this.failed(error);
  }

  // ---- walkability --------------------------------------------------------------

  /** Whether an entity may stand at `(x, z)`, with the original's reason strings
   * (`reason` only when not walkable). */
  isPositionWalkable(x: number, z: number): WalkableCheck {
    return this.points.isPositionWalkable(x, z);
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
    return this.points.getTerrainInfoAt(x, z);
  }

  /** The original's straight-line check: 21 samples from start to end, blocked at the
   * first unwalkable one (`path` empty), else the samples. */
  findWalkablePath(startX: number, startZ: number, endX: number, endZ: number): WalkablePath {
    return this.points.findWalkablePath(startX, startZ, endX, endZ);
  }

  /** The biome of the position's 100 m tile: plains in the five starter towns' tile
   * blocks, else the type of the seed's first biome centre (the original's lookup). */
  getBiomeAtPosition(x: number, z: number): string {
    return this.points.getBiomeAtPosition(x, z);
  }

  /**
   * The difficulty at `(x, z)`: the biome's tier (or `overrideDifficultyLevel`) faded in
   * over 300 m from the nearest town's edge, mixed with slow noise, curved into a level
   * from 1 to 1000 (0 and `isSafe` in towns and tier-0 biomes).
   */
  getDifficultyAtWorldPosition(x: number, z: number, overrideDifficultyLevel?: number): DifficultySample {
    return this.points.getDifficultyAtWorldPosition(x, z, overrideDifficultyLevel);
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
    return this.points.getBiomeAtWorldPosition(x, z);
  }

  /**
   * The tiles the server's chunk lifecycle holds active in this world (every viewer's
   * active ring, as `GET /v1/worlds/{w}/live-tiles` lists them), as the original's
   * `{x, z}` 100 m tile keys, row-major: a new array per call. Kept current from the
   * server's lifecycle stream (a stream that fails is opened again; meanwhile the last
   * tiles known, and an `error` event). The original answers the tiles it loaded
   * itself; here the viewers the game reports to the server decide (ViewerTracker).
   * A terrain made by `wrap` has no server to ask: an Error.
   */
  getActiveChunks(): ActiveChunk[] {
    if (this.activeTiles === undefined) {
      throw new Error("HyperscapeTerrain.getActiveChunks: a terrain made by wrap follows no server's live tiles; open it with HyperscapeTerrain.open");
    }
    return this.activeTiles.chunks();
  }

  /** What went wrong in the background (a zone withdrawn, a stream that failed): an
   * `error` event, or a process warning without a listener; nothing once closed. */
  private failed(e: unknown): void {
    if (this.closed) return;
    if (this.listenerCount("error") > 0) this.emit("error", e);
    else process.emitWarning(e instanceof Error ? e : String(e));
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
    this.activeTiles?.close();
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
      this.failed(e);
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
