// `attachTerrainServer`: the game keeps its own `TerrainSystem` object (its lifecycle,
// events, tiles, meshes, spawns, roads, persistence) and this product answers the
// questions whose answers it owns. The instance's methods are shadowed by own
// properties that ask a `HyperscapeTerrain` over a replica of the server's world; since
// the original calls those methods inside itself (its tile builders call
// `getHeightAtComputed`, its spawner `getTerrainInfoAt`, its normals and slopes
// `getHeightAt`), its own meshes and placements then stand on the replica's ground.
//
// Zones flow both ways. The server's zones (another process's, an admin's, a restore's)
// are entered in the instance's own index through its own `registerFlatZone`, so its
// tile builder carves and flattens them and its own path regenerates their tiles;
// zones the game registers go to the replica at once, to the server when a token is
// given, and into its index as before. `detach()` takes back everything it did.
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

import type * as Addon from "./addon";
import { argumentError, describe, optionsArg, stringArg } from "./args";
import { type ZoneMethods, enter, gameZoneOfDoc, leave, zonesHeld } from "./game-index";
import { type FlatZone, HyperscapeTerrain, type ZoneCommitError } from "./hyperscape";
import { addon, internals } from "./native";

/** Options of {@link attachTerrainServer}. */
export interface AttachOptions {
  /** The terrain server (`http://host:port` or `https://`: its one port). */
  url: string;
  /** The world on the server: a hyperscape world with the game's seed. */
  world: string;
  /** The server's admin token. With it, zones the game registers are committed to the
   * server; without it they stay in this process (a browser's, or a read-only peer). */
  token?: string;
  /** PEM CA of an `https://` server's certificate. */
  caFile?: string;
  /** Connect timeout of the replica, milliseconds (default 5,000). */
  connectTimeoutMs?: number;
}

/** Methods shadowed on the instance: each answers from the replica. */
export const ROUTED = [
  "getHeightAt",
  "getHeightAtPosition",
  "getHeightAtComputed",
  "getProceduralHeightAt",
  "getNormalAt",
  "isPositionWalkable",
  "getTerrainInfoAt",
  "findWalkablePath",
  "isInFlatZone",
  "registerFlatZone",
  "unregisterFlatZone",
  "getBiomeAtPosition",
  "getBiomeAt",
  "getBiomeAtWorldPosition",
] as const;

type Routed = (typeof ROUTED)[number];

/** A zone the instance's index holds because of this attachment. */
interface Entered {
  /** The object in the index. */
  zone: FlatZone;
  /** The replica's document of it when entered (`hsZone`). */
  doc: string | null;
  /** Whether it is the game's own object (registered by the game), not the server's. */
  own: boolean;
}

/** The original's five starter towns, in 100 m tile units. */
const TOWN_TILES: readonly (readonly [number, number])[] = [
  [0, 0],
  [10, 0],
  [-10, 0],
  [0, 10],
  [0, -10],
];

/** The original's private lookup by 100 m tile: plains within a tile distance of 3 of a
 * starter town, else the world-position biome at the tile's centre (NaN: plains). */
function biomeAtTile(t: HyperscapeTerrain, tileX: number, tileZ: number): string {
  for (const [cx, cz] of TOWN_TILES) {
    const dx = tileX - cx;
    const dz = tileZ - cz;
    if (Math.sqrt(dx * dx + dz * dz) < 3) return "plains";
  }
  return t.getBiomeAtWorldPosition(tileX * 100 + 50, tileZ * 100 + 50);
}

/** What {@link attachTerrainServer} resolves to. */
export class TerrainAttachment extends EventEmitter {
  /** The adapter over the replica that answers the routed methods. */
  readonly terrain: HyperscapeTerrain;
  private readonly saved = new Map<string, PropertyDescriptor | undefined>();
  private readonly originals: ZoneMethods;
  /** Zones in the instance's index, by id, as this attachment knows them. */
  private readonly entered = new Map<string, Entered>();
  /** The game's own zones of before attaching, given back by `detach` unless the game
   * unregistered them since. */
  private before = new Map<string, FlatZone>();
  /** Ids the game unregistered while attached. */
  private readonly removed = new Set<string>();
  private readonly fast;
  private readonly handle;
  private detached = false;
  /** Full reconciliations in flight (a `rebuilt` or `lagged` event). */
  private resync: Promise<void> = Promise.resolve();

  /** @internal */
  constructor(
    /** The game's `TerrainSystem` instance. */
    readonly system: object,
    terrain: HyperscapeTerrain,
    private readonly list: () => Promise<{ ids: string[]; revision: number }>,
  ) {
    super();
    this.terrain = terrain;
    const inner = internals(terrain.replica);
    this.fast = inner.fast;
    this.handle = inner.handle;
    const s = system as Record<string, any>;
    this.originals = { registerFlatZone: s.registerFlatZone, unregisterFlatZone: s.unregisterFlatZone };
  }

  /** Shadows the routed methods and takes in the zones the game already holds. */
  route(): void {
    const t = this.terrain;
    const s = this.system as Record<string, unknown>;
    const held = zonesHeld(this.system);
    // The shared vector the original's `getNormalAt` hands out (three's Vector3), so the
    // routed one answers in the game's own type; a plain object if it has none.
    let normal: { x: number; z: number; y: number } | undefined;
    const fns: Record<Routed, (...a: any[]) => unknown> = {
      getHeightAt: (x: number, z: number) => t.getHeightAt(x, z),
      getHeightAtPosition: (x: number, z: number) => t.getHeightAt(x, z),
      getHeightAtComputed: (x: number, z: number) => t.getHeightAt(x, z),
      getProceduralHeightAt: (x: number, z: number) => t.getProceduralHeightAt(x, z),
      getNormalAt: (x: number, z: number) => {
        const n = t.getNormalAt(x, z);
        if (normal === undefined) return n;
        normal.x = n.x;
        normal.y = n.y;
        normal.z = n.z;
        return normal;
      },
      isPositionWalkable: (x: number, z: number) => t.isPositionWalkable(x, z),
      getTerrainInfoAt: (x: number, z: number) => t.getTerrainInfoAt(x, z),
      findWalkablePath: (sx: number, sz: number, ex: number, ez: number) => t.findWalkablePath(sx, sz, ex, ez),
      isInFlatZone: (x: number, z: number) => t.isInFlatZone(x, z),
      registerFlatZone: (zone: FlatZone) => this.register(zone),
      unregisterFlatZone: (id: string) => this.unregister(id),
      getBiomeAtPosition: (x: number, z: number) => t.getBiomeAtPosition(x, z),
      getBiomeAt: (tileX: number, tileZ: number) => biomeAtTile(t, tileX, tileZ),
      getBiomeAtWorldPosition: (x: number, z: number) => t.getBiomeAtWorldPosition(x, z),
    };
    for (const name of ROUTED) {
      // Only what the instance has: a method it lacks is not added.
      if (typeof s[name] !== "function") continue;
      this.saved.set(name, Object.getOwnPropertyDescriptor(this.system, name));
      Object.defineProperty(this.system, name, { value: fns[name], writable: true, configurable: true, enumerable: false });
    }
    if (this.saved.has("getNormalAt")) {
      const saved = this.saved.get("getNormalAt");
      const original = (saved?.value ?? Object.getPrototypeOf(this.system).getNormalAt) as (x: number, z: number) => unknown;
      const v = original.call(this.system, 0, 0) as { x?: unknown; y?: unknown; z?: unknown } | null;
      if (v !== null && typeof v === "object" && typeof v.x === "number" && typeof v.y === "number" && typeof v.z === "number") {
        normal = v as { x: number; y: number; z: number };
      }
    }
    // The zones the game registered before attaching: the replica (and the server, with
    // a token) gets them; the index has them already.
    this.before = held;
    for (const [id, zone] of held) {
      t.registerFlatZone(zone);
      this.entered.set(id, { zone, doc: this.fast.hsZone(this.handle, id), own: true });
    }
    t.on("change", (e: Addon.LocalEvent) => this.changed(e));
    t.on("error", (e: ZoneCommitError) => this.refused(e));
  }

  /** Enters every zone the server holds (listed over HTTP, read from the replica once
   * it reached the listing's revision), and takes out those it does not. */
  async reconcileAll(): Promise<void> {
    const { ids, revision } = await this.list();
    if (this.detached) return;
    if (this.terrain.replica.live) await this.terrain.replica.waitForRevision(revision);
    if (this.detached) return;
    for (const id of new Set([...ids, ...this.entered.keys()])) this.reconcile(id);
  }

  /** The registered zone `id` in the instance's index as the replica holds it now. */
  private reconcile(id: string): void {
    if (this.detached) return;
    const doc = this.fast.hsZone(this.handle, id);
    const had = this.entered.get(id);
    if (had !== undefined && had.doc === doc) return;
    if (had !== undefined) leave(this.system, this.originals, had.zone);
    this.entered.delete(id);
    if (doc === null) return;
    const zone = gameZoneOfDoc(JSON.parse(doc));
    this.entered.set(id, { zone, doc, own: false });
    this.enterSafely(zone);
  }

  private enterSafely(zone: FlatZone): void {
    try {
      enter(this.system, this.originals, zone);
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** The game's `registerFlatZone`: checked and answered by the replica (throwing as the
   * original throws), then entered in the instance's index by its own method. */
  private register(zone: FlatZone): void {
    this.terrain.registerFlatZone(zone);
    const had = this.entered.get(zone.id);
    if (had !== undefined) leave(this.system, this.originals, had.zone);
    this.removed.delete(zone.id);
    this.entered.set(zone.id, { zone, doc: this.fast.hsZone(this.handle, zone.id), own: true });
    enter(this.system, this.originals, zone);
  }

  private unregister(id: string): void {
    this.terrain.unregisterFlatZone(id);
    const had = this.entered.get(id);
    this.removed.add(id);
    if (had === undefined) {
      // A zone of the index this attachment never saw: the game's own path.
      this.originals.unregisterFlatZone.call(this.system, id);
      return;
    }
    this.entered.delete(id);
    leave(this.system, this.originals, had.zone);
  }

  private changed(e: Addon.LocalEvent): void {
    if (this.detached) return;
    if (e.kind === "rebuilt" || e.kind === "lagged") {
      this.resync = this.resync.then(() => this.reconcileAll()).catch((err) => this.fail(err));
    } else if (e.zone !== undefined) {
      this.reconcile(e.zone);
    }
    this.emit("change", e);
  }

  /** A zone change the server refused was withdrawn from the replica: the index follows. */
  private refused(e: ZoneCommitError): void {
    if (typeof e.zoneId === "string") this.reconcile(e.zoneId);
    this.fail(e);
  }

  private fail(e: Error): void {
    if (this.listenerCount("error") > 0) this.emit("error", e);
    else process.emitWarning(e);
  }

  /** Resolves once every zone change made so far was answered by the server and the
   * replica (and so the instance's index) reflects the answers. */
  async flush(timeoutMs?: number): Promise<void> {
    await this.terrain.flush(timeoutMs);
    await this.resync;
  }

  /** Ids of the zones entered in the instance's index (the game's and the server's). */
  zoneIds(): string[] {
    return [...this.entered.keys()];
  }

  /**
   * Gives the instance back as it was: its own methods (the same functions), and its
   * index without the server's zones (the game's own zones of before attaching as it
   * had them; those it registered since stay, as it registered them). Closes the replica.
   */
  detach(): void {
    if (this.detached) return;
    this.detached = true;
    for (const [name, descriptor] of this.saved) {
      if (descriptor === undefined) delete (this.system as Record<string, unknown>)[name];
      else Object.defineProperty(this.system, name, descriptor);
    }
    this.saved.clear();
    for (const { zone, own } of this.entered.values()) if (!own) leave(this.system, this.originals, zone);
    // The game's own zones of before attaching that a server version displaced (those
    // still in the index, re-registered or unregistered by the game are left alone).
    const held = zonesHeld(this.system);
    for (const [id, zone] of this.before) {
      if (held.has(id) || this.entered.get(id)?.own === true || this.removed.has(id)) continue;
      this.enterSafely(zone);
    }
    this.entered.clear();
    this.terrain.removeAllListeners("change");
    this.terrain.close();
  }
}

/** One JSON GET (node:http or node:https with the given CA), 30 s at most. */
function getJson(url: string, token: string | undefined, ca: Buffer | undefined): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const u = new URL(url);
    const options = { method: "GET", headers, timeout: 30_000, ...(ca === undefined ? {} : { ca }) };
    const req = (u.protocol === "https:" ? httpsRequest : httpRequest)(u, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
          reject(new Error(`GET ${url}: HTTP ${res.statusCode}: ${text}`));
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(e);
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: no answer within 30 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** Every page of one listing of the world's zones: their ids and its revision. */
async function listZoneIds(base: string, world: string, token: string | undefined, ca: Buffer | undefined): Promise<{ ids: string[]; revision: number }> {
  const path = `${base}/v1/worlds/${encodeURIComponent(world)}/flat-zones`;
  const ids: string[] = [];
  let page = await getJson(path, token, ca);
  const revision = Number(page.revision ?? 0);
  for (;;) {
    for (const z of page.zones ?? []) ids.push(String(z.id));
    const next = typeof page.nextPageToken === "string" ? page.nextPageToken : "";
    if (next === "") return { ids, revision };
    page = await getJson(`${path}?pageToken=${encodeURIComponent(next)}`, token, ca);
  }
}

/**
 * Attaches the terrain server's world to the game's own `TerrainSystem` instance (after
 * its construction, before or after its `init`): the routed methods ({@link ROUTED})
 * answer from a replica of the world, the server's zones enter its own index, and zones
 * it registers go to the server (with `token`). Resolves once the replica holds the
 * server's zones and the instance's index has them.
 */
export async function attachTerrainServer(terrainSystem: object, options: AttachOptions): Promise<TerrainAttachment> {
  const where = "attachTerrainServer";
  const s = terrainSystem as Record<string, unknown> | null;
  if (s === null || typeof s !== "object") {
    throw argumentError(TypeError, "terrainSystem", `expected the game's TerrainSystem instance, got ${describe(terrainSystem)}`, where);
  }
  for (const name of ["getHeightAt", "registerFlatZone", "unregisterFlatZone"]) {
    if (typeof s[name] !== "function") {
      throw argumentError(TypeError, "terrainSystem", `expected the game's TerrainSystem instance (it has no ${name} method)`, where);
    }
  }
  const o = optionsArg("options", options, where);
  if (o === undefined) throw argumentError(TypeError, "options", "expected { url, world, token? }", where);
  const url = stringArg("url", o.url, where).replace(/\/+$/, "");
  const world = stringArg("world", o.world, where);
  const token = o.token === undefined ? undefined : stringArg("token", o.token, where);
  const caFile = o.caFile === undefined ? undefined : stringArg("caFile", o.caFile, where);
  const open: Addon.OpenOptions = {};
  if (caFile !== undefined) open.caFile = caFile;
  if (o.connectTimeoutMs !== undefined) open.connectTimeoutMs = o.connectTimeoutMs as number;
  const ca = caFile === undefined ? undefined : readFileSync(caFile);
  const replica = await addon.LocalTerrain.open(url, world, open);
  let attachment: TerrainAttachment | undefined;
  try {
    // Without a token nothing is ever written to the server: the adapter has no URL.
    const terrain =
      token === undefined
        ? HyperscapeTerrain.wrap(replica, caFile === undefined ? {} : { caFile })
        : HyperscapeTerrain.wrap(replica, { url, token, ...(caFile === undefined ? {} : { caFile }) });
    attachment = new TerrainAttachment(terrainSystem, terrain, () => listZoneIds(url, world, token, ca));
    attachment.route();
    await attachment.reconcileAll();
    return attachment;
  } catch (e) {
    if (attachment !== undefined) attachment.detach();
    else replica.close();
    throw e;
  }
}
