// What Node's `attachTerrainServer` (src/attach.ts, terrain-client/hyperscape) and the
// browser's (src/web/attach.ts, terrain-client/web) share: the routing of the game's
// `TerrainSystem` instance's methods to a `HyperscapeTerrain`, the entry of the
// server's zones in its own index (src/game-index.ts) and their leaving, and `detach`.
// No runtime here: both builds compile it (imports with `.js` extensions, no `node:`
// module); each side gives it its adapter, how to read the replica's zone documents,
// the server's zone list and where errors go.
import { argumentError, describe } from "./args.js";
import { type ZoneMethods, enter, gameZoneOfDoc, leave, zonesHeld } from "./game-index.js";
import type { FlatZone, Normal, TerrainInfoAt, WalkableCheck, WalkablePath } from "./hyperscape-common.js";

/**
 * Throws a TypeError naming `terrainSystem` unless it is an object with the methods
 * attaching shadows and calls (`getHeightAt`, `registerFlatZone`, `unregisterFlatZone`):
 * the game's `TerrainSystem` instance, not its class or another system.
 */
export function checkTerrainSystem(terrainSystem: unknown, where: string): void {
  const s = terrainSystem as Record<string, unknown> | null;
  if (s === null || typeof s !== "object") {
    throw argumentError(TypeError, "terrainSystem", `expected the game's TerrainSystem instance, got ${describe(terrainSystem)}`, where);
  }
  for (const name of ["getHeightAt", "registerFlatZone", "unregisterFlatZone"]) {
    if (typeof s[name] !== "function") {
      throw argumentError(TypeError, "terrainSystem", `expected the game's TerrainSystem instance (it has no ${name} method)`, where);
    }
  }
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

/** The adapter's methods the routed ones call (Node's and the page's `HyperscapeTerrain`). */
export interface RoutedTerrain {
  getHeightAt(x: number, z: number): number;
  getProceduralHeightAt(x: number, z: number): number;
  getNormalAt(x: number, z: number): Normal;
  isPositionWalkable(x: number, z: number): WalkableCheck;
  getTerrainInfoAt(x: number, z: number): TerrainInfoAt;
  findWalkablePath(startX: number, startZ: number, endX: number, endZ: number): WalkablePath;
  isInFlatZone(x: number, z: number): boolean;
  registerFlatZone(zone: FlatZone): void;
  unregisterFlatZone(id: string): void;
  getBiomeAtPosition(x: number, z: number): string;
  getBiomeAtWorldPosition(x: number, z: number): string;
}

/** What the runtime's side provides. */
export interface AttachHost {
  /** The adapter over the replica. */
  terrain: RoutedTerrain;
  /** The replica's document of zone `id` (`GET .../flat-zones/{id}`'s JSON), or null. */
  zoneDoc(id: string): string | null;
  /** The ids of the server's zones and the revision of that list. */
  list(): Promise<{ ids: string[]; revision: number }>;
  /** Resolves once the replica holds the server's state at `revision` (when it follows). */
  reach(revision: number): Promise<unknown>;
  /** A failure to report (an index entry that threw, a reconciliation that failed). */
  fail(error: Error): void;
}

/** A zone the instance's index holds because of this attachment. */
interface Entered {
  /** The object in the index. */
  zone: FlatZone;
  /** The replica's document of it when entered. */
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
function biomeAtTile(t: RoutedTerrain, tileX: number, tileZ: number): string {
  for (const [cx, cz] of TOWN_TILES) {
    const dx = tileX - cx;
    const dz = tileZ - cz;
    if (Math.sqrt(dx * dx + dz * dz) < 3) return "plains";
  }
  return t.getBiomeAtWorldPosition(tileX * 100 + 50, tileZ * 100 + 50);
}

/** One attachment's routing and index bookkeeping (the runtime's class wraps it). */
export class AttachCore {
  private readonly saved = new Map<string, PropertyDescriptor | undefined>();
  private readonly originals: ZoneMethods;
  /** Zones in the instance's index, by id, as this attachment knows them. */
  private readonly entered = new Map<string, Entered>();
  /** The game's own zones of before attaching, given back by `detach` unless the game
   * unregistered them since. */
  private before = new Map<string, FlatZone>();
  /** Ids the game unregistered while attached. */
  private readonly removed = new Set<string>();
  detached = false;
  /** Full reconciliations in flight (after the replica was rebuilt). */
  private resync: Promise<void> = Promise.resolve();

  constructor(
    /** The game's `TerrainSystem` instance. */
    readonly system: object,
    private readonly host: AttachHost,
  ) {
    const s = system as Record<string, any>;
    this.originals = { registerFlatZone: s.registerFlatZone, unregisterFlatZone: s.unregisterFlatZone };
  }

  /** Shadows the routed methods and takes in the zones the game already holds. */
  route(): void {
    const t = this.host.terrain;
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
    // The zones the game registered before attaching: the adapter gets them (Node's
    // commits them with a token; the page's keeps them in the page); the index has them.
    this.before = held;
    for (const [id, zone] of held) {
      t.registerFlatZone(zone);
      this.entered.set(id, { zone, doc: this.host.zoneDoc(id), own: true });
    }
  }

  /** Enters every zone the server holds (listed, read from the replica once it reached
   * the listing's revision), and takes out those it does not. */
  async reconcileAll(): Promise<void> {
    const { ids, revision } = await this.host.list();
    if (this.detached) return;
    await this.host.reach(revision);
    if (this.detached) return;
    for (const id of new Set([...ids, ...this.entered.keys()])) this.reconcile(id);
  }

  /** A full reconciliation after the ones in flight (the replica was rebuilt). */
  rebuilt(): void {
    this.resync = this.resync.then(() => this.reconcileAll()).catch((err) => this.host.fail(err instanceof Error ? err : new Error(String(err))));
  }

  /** Resolves once the full reconciliations in flight are done. */
  settled(): Promise<void> {
    return this.resync;
  }

  /** The zone `id` in the instance's index as the replica holds it now. */
  reconcile(id: string): void {
    if (this.detached) return;
    const doc = this.host.zoneDoc(id);
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
      this.host.fail(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** The game's `registerFlatZone`: checked and answered by the adapter (throwing as the
   * original throws), then entered in the instance's index by its own method. */
  private register(zone: FlatZone): void {
    this.host.terrain.registerFlatZone(zone);
    const had = this.entered.get(zone.id);
    if (had !== undefined) leave(this.system, this.originals, had.zone);
    this.removed.delete(zone.id);
    this.entered.set(zone.id, { zone, doc: this.host.zoneDoc(zone.id), own: true });
    enter(this.system, this.originals, zone);
  }

  private unregister(id: string): void {
    this.host.terrain.unregisterFlatZone(id);
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

  /** Ids of the zones entered in the instance's index (the game's and the server's). */
  zoneIds(): string[] {
    return [...this.entered.keys()];
  }

  /**
   * Gives the instance back as it was: its own methods (the same functions), and its
   * index without the server's zones (the game's own zones of before attaching as it
   * had them; those it registered since stay, as it registered them). False when it
   * was detached already. The runtime's side closes the replica.
   */
  detach(): boolean {
    if (this.detached) return false;
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
    return true;
  }
}
