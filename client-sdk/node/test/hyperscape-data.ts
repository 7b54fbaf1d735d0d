// The original TerrainSystem's own output (core/tests/data/hyperscape/adapter: ADAPTER.md
// describes it) read for the Node tests and benchmarks: the zones as the game registers
// them, the traces' rows, the walkability grids, and the game's own path search.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

import { type FlatZone, type HyperscapeOptions, HyperscapeTerrain } from "../src/hyperscape";
import { zoneRequest } from "../src/hyperscape-common";
import { LocalTerrain } from "../src/index";
import { usingWasm } from "../src/native";

export const DATA = resolve(__dirname, "..", "..", "..", "..", "core", "tests", "data", "hyperscape", "adapter");

/** A configuration with one world per seed, as the traces were made: the original's
 * overlap rule and walkability, no start-up zones. */
export function traceWorlds(seeds: number[]): string {
  return seeds
    .map((s) => `[[worlds]]\nid = "seed${s}"\ngenerator = "hyperscape"\nseed = ${s}\noverlap = "hyperscape"\nwalkability = "hyperscape"\n`)
    .join("\n");
}

/** The zones of `zones_seed{S}.json` as the game builds them: a building's
 * `tileMaskTiles` as `{x, z}` tiles, `tileMask` the Set of their `"x,z"` keys. */
export function gameZones(seed: number): FlatZone[] {
  const raw = JSON.parse(readFileSync(join(DATA, `zones_seed${seed}.json`), "utf8")) as any[];
  return raw.map((z) => {
    const zone: FlatZone = {
      id: z.id,
      centerX: z.centerX,
      centerZ: z.centerZ,
      width: z.width,
      depth: z.depth,
      height: z.height,
      blendRadius: z.blendRadius,
    };
    if (z.carveInset !== undefined) zone.carveInset = z.carveInset;
    if (z.tileMaskTiles) {
      const tiles = (z.tileMaskTiles as [number, number][]).map(([x, zz]) => ({ x, z: zz }));
      zone.tileMaskTiles = tiles;
      zone.tileMask = new Set(tiles.map((t) => `${t.x},${t.z}`));
      zone.tileMaskBounds = z.tileMaskBounds;
    }
    return zone;
  });
}

/** The server's body of a game zone: what the adapter sends for it (`zoneRequest`). */
export function zoneBody(zone: FlatZone): Record<string, unknown> {
  return JSON.parse(zoneRequest(zone).json) as Record<string, unknown>;
}

export function num(s: string): number {
  const v = Number(s);
  if (Number.isNaN(v) && s !== "NaN") throw new Error(`not a number: ${JSON.stringify(s)}`);
  return v;
}

export interface TraceRow {
  x: number;
  z: number;
  [column: string]: number | string;
}

/** The rows of `trace_seed{S}.csv`, each with its columns by name (text). */
export function traceRows(seed: number): { header: string[]; rows: Record<string, string>[] } {
  const lines = readFileSync(join(DATA, `trace_seed${seed}.csv`), "utf8").split("\n").filter((l) => l.length > 0);
  const header = lines[0]!.split(",");
  const rows = lines.slice(1).map((line) => {
    const f = line.split(",");
    const row: Record<string, string> = {};
    header.forEach((h, i) => (row[h] = f[i]!));
    return row;
  });
  return { header, rows };
}

export interface GridRegion {
  name: string;
  minTileX: number;
  minTileZ: number;
  width: number;
  depth: number;
  /** One character a tile, row-major, z rising: `.` walkable, `w` water, `s` steep, `l` lake. */
  cells: string;
}

/** The regions of `grid_seed{S}.txt`. */
export function gridRegions(seed: number): GridRegion[] {
  const lines = readFileSync(join(DATA, `grid_seed${seed}.txt`), "utf8").split("\n");
  const out: GridRegion[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i]!.trim();
    if (!head.startsWith("#")) continue;
    const field = (k: string): number => Number(new RegExp(`${k}=(-?\\d+)`).exec(head)![1]);
    const r: GridRegion = {
      name: head.slice(1).trim().split(/\s+/)[0]!,
      minTileX: field("minTileX"),
      minTileZ: field("minTileZ"),
      width: field("width"),
      depth: field("depth"),
      cells: "",
    };
    r.cells = lines.slice(i + 1, i + 1 + r.depth).join("");
    if (r.cells.length !== r.width * r.depth) throw new Error(`grid ${r.name}: ${r.cells.length} cells`);
    out.push(r);
  }
  return out;
}

/** The game's tile path search as the game's server runs it: breadth-first over 1 m
 * tiles from `start` to `end`, at most `radius` tiles from the start on each axis and
 * `maxIterations` tiles taken off the queue, the eight neighbours in the order W, E, S,
 * N, SW, SE, NW, NE, a diagonal step only where both tiles beside it are walkable, each
 * tile asked of `walkable` (its centre's `isPositionWalkable`); string keys, as the game
 * keys its visited set. Answers the tiles from the start (exclusive) to the end, or null
 * when the end is not reached. */
export function gamePathSearch(
  start: { x: number; z: number },
  end: { x: number; z: number },
  walkable: (tx: number, tz: number) => boolean,
  radius = 128,
  maxIterations = 8000,
): { x: number; z: number }[] | null {
  const dirs = [
    [-1, 0],
    [1, 0],
    [0, -1],
    [0, 1],
    [-1, -1],
    [1, -1],
    [-1, 1],
    [1, 1],
  ] as const;
  const key = (x: number, z: number): string => `${x},${z}`;
  const visited = new Set<string>([key(start.x, start.z)]);
  const parent = new Map<string, { x: number; z: number }>();
  const queue: { x: number; z: number }[] = [start];
  let head = 0;
  let iterations = 0;
  while (head < queue.length && iterations < maxIterations) {
    iterations++;
    const cur = queue[head++]!;
    if (cur.x === end.x && cur.z === end.z) {
      const path: { x: number; z: number }[] = [];
      for (let t = cur; t.x !== start.x || t.z !== start.z; t = parent.get(key(t.x, t.z))!) path.push(t);
      return path.reverse();
    }
    for (const [dx, dz] of dirs) {
      const nx = cur.x + dx;
      const nz = cur.z + dz;
      if (Math.abs(nx - start.x) > radius || Math.abs(nz - start.z) > radius) continue;
      const k = key(nx, nz);
      if (visited.has(k)) continue;
      if (!walkable(nx, nz)) continue;
      if (dx !== 0 && dz !== 0 && (!walkable(cur.x + dx, cur.z) || !walkable(cur.x, cur.z + dz))) continue;
      visited.add(k);
      parent.set(k, cur);
      queue.push({ x: nx, z: nz });
    }
  }
  return null;
}

/** `HyperscapeTerrain.open(url, world, options)`; over the WebAssembly replica
 * (TERRAIN_CLIENT_WASM=1), whose following of a server is another module's work (src/follow),
 * the same world built offline from the server's listing and zone list at this moment
 * (`LocalTerrain.offline`) and wrapped with the same URL and token, so the traces check
 * every answer the offline path gives. */
export async function openHyperscape(url: string, world: string, options: HyperscapeOptions = {}): Promise<HyperscapeTerrain> {
  if (!usingWasm) return HyperscapeTerrain.open(url, world, options);
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const listed = (await (await fetch(`${url}/v1/worlds`, { headers })).json()) as { worlds: { id: string }[] };
  const info = listed.worlds.find((w) => w.id === world);
  if (!info) throw new Error(`world ${world} is not listed`);
  const zones = await (await fetch(`${url}/v1/worlds/${world}/flat-zones`, { headers })).text();
  return HyperscapeTerrain.wrap(LocalTerrain.offline(JSON.stringify(info), zones), { ...options, url });
}
