// The game's own zone index, reached only through its own methods: a zone enters it
// through the instance's original `registerFlatZone` (which files it under its cells
// and queues its tiles' regeneration, emitting the game's own events) and leaves it
// through the original `unregisterFlatZone` (which rebuilds nothing). The original's
// removal can leave a zone listed in some cells (it clears the cells `floor(v / 100)`
// while it filed the zone under `floor((v + 50) / 100)`: ADAPTER.md), so after it the
// object is also taken out of any list of the instance's own `Map`s that still holds it
// (found by identity: nothing here depends on the index's field names).
import type { FlatZone, FlatZoneTile } from "./hyperscape-common.js";

/** The instance's zone methods as they were before attaching. */
export interface ZoneMethods {
  registerFlatZone: (zone: FlatZone) => void;
  unregisterFlatZone: (id: string) => void;
}

/** Whether `v` looks like the game's `FlatZone` (an id and a centre). */
function isZone(v: unknown): v is FlatZone {
  const z = v as FlatZone | null;
  return typeof z === "object" && z !== null && typeof z.id === "string" && typeof z.centerX === "number" && typeof z.centerZ === "number";
}

/** The instance's own `Map`s (its private members are plain properties at run time). */
function ownMaps(system: object): Map<unknown, unknown>[] {
  const maps: Map<unknown, unknown>[] = [];
  for (const key of Object.keys(system)) {
    const v = (system as Record<string, unknown>)[key];
    if (v instanceof Map) maps.push(v);
  }
  return maps;
}

/**
 * The zones the instance holds now, by id: the entries of its own `Map`s that map an id
 * to a zone with that id (its registry), in the registry's order. Empty when it holds
 * none (or keeps them in no such map).
 */
export function zonesHeld(system: object): Map<string, FlatZone> {
  const held = new Map<string, FlatZone>();
  for (const map of ownMaps(system)) {
    if (map.size === 0) continue;
    let registry = true;
    for (const [k, v] of map) {
      if (!isZone(v) || v.id !== k) {
        registry = false;
        break;
      }
    }
    if (registry) for (const [k, v] of map) held.set(k as string, v as FlatZone);
  }
  return held;
}

/** A snapshot of the instance's zone index: every own `Map` entry that is a zone or a
 * list holding zones, as `[map, key, copy]` (the test compares them before and after). */
export function indexSnapshot(system: object): [Map<unknown, unknown>, unknown, unknown][] {
  const out: [Map<unknown, unknown>, unknown, unknown][] = [];
  for (const map of ownMaps(system)) {
    for (const [k, v] of map) {
      if (isZone(v)) out.push([map, k, v]);
      else if (Array.isArray(v) && v.some(isZone)) out.push([map, k, v.slice()]);
    }
  }
  return out;
}

/** Enters `zone` through the original method. */
export function enter(system: object, methods: ZoneMethods, zone: FlatZone): void {
  methods.registerFlatZone.call(system, zone);
}

/** Takes `zone` out through the original method, then out of any own list or map entry
 * that still holds this object (a list it leaves empty is dropped, as it was not there
 * before the zone). */
export function leave(system: object, methods: ZoneMethods, zone: FlatZone): void {
  methods.unregisterFlatZone.call(system, zone.id);
  for (const map of ownMaps(system)) {
    for (const [k, v] of map) {
      if (v === zone) map.delete(k);
      else if (Array.isArray(v) && v.includes(zone)) {
        for (let i = v.length - 1; i >= 0; i--) if (v[i] === zone) v.splice(i, 1);
        if (v.length === 0) map.delete(k);
      }
    }
  }
}

/**
 * The game's `FlatZone` of a zone document of the replica (`hsZone`): `tileMask` a `Set`
 * of `"x,z"` with `tileMaskTiles` (`{x, z}`) and `tileMaskBounds` where it has a mask,
 * and `carveInset` only where the zone has one (0 included: the original carves the whole
 * core at 0 and nothing when it is absent; the server keeps an absent one absent).
 */
export function gameZoneOfDoc(doc: {
  id: string;
  centerX: number;
  centerZ: number;
  width?: number;
  depth?: number;
  radius?: number;
  height: number;
  blendRadius: number;
  carveInset?: number;
  walkable?: boolean;
  tileMask?: [number, number][];
}): FlatZone {
  const zone: FlatZone = {
    id: doc.id,
    centerX: doc.centerX,
    centerZ: doc.centerZ,
    width: doc.width ?? 2 * (doc.radius ?? 0),
    depth: doc.depth ?? 2 * (doc.radius ?? 0),
    height: doc.height,
    blendRadius: doc.blendRadius,
  };
  if (typeof doc.carveInset === "number") zone.carveInset = doc.carveInset;
  if (typeof doc.walkable === "boolean") zone.walkable = doc.walkable;
  if (Array.isArray(doc.tileMask) && doc.tileMask.length > 0) {
    const tiles: FlatZoneTile[] = doc.tileMask.map(([x, z]) => ({ x, z }));
    zone.tileMask = new Set(tiles.map((t) => `${t.x},${t.z}`));
    zone.tileMaskTiles = tiles;
    let [minX, maxX, minZ, maxZ] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const t of tiles) {
      if (t.x < minX) minX = t.x;
      if (t.x > maxX) maxX = t.x;
      if (t.z < minZ) minZ = t.z;
      if (t.z > maxZ) maxZ = t.z;
    }
    zone.tileMaskBounds = { minX, maxX, minZ, maxZ };
  }
  return zone;
}
