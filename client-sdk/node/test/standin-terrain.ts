// A stand-in for the Hyperscape game's own `TerrainSystem`, for the tests of
// `attachTerrainServer` without the game's code (which is not in this repository and
// may not be copied into it). It has the original's public and private method names
// and the calls between them that ADAPTER.md lists ("Which methods the original calls
// inside itself"); its own maths is a plain function of its own, not the original's.
//
// - `getHeightAt`: a zone's height, else a loaded tile's stored grid (bilinear), else the
//   computed height; `getHeightAtComputed` (the tile builder's): a zone's, else computed.
// - The tile builder lays out 64 x 64 vertices as three's 100 m plane of 63 x 63 cells
//   rotated flat (positions rounded to float32), asks `getHeightAtComputed` at each,
//   stores the heights, then carves: below.
// - The spawner asks `getTerrainInfoAt` (and `getBiomeAt`); the boss hotspots ask
//   `getHeightAt` and `isPositionWalkable`; the difficulty asks `getBiomeAtWorldPosition`.
// - `registerFlatZone` files the zone under the 100 m cells `floor((v + 50) / 100)` its
//   reach `centre ± (max(width, depth) / 2 + blendRadius)` spans and queues the loaded
//   tiles there for rebuilding (done by `update`, each emitting
//   TERRAIN_TILE_REGENERATED); `unregisterFlatZone` clears the cells `floor(v / 100)`
//   instead (the original's mismatch, kept so the tests see it cleaned up) and rebuilds
//   nothing.
//
// Carving, as the reference tables describe it (in this file's words): a tile looks at
// the zones filed under its own key. A zone with a tile mask claims a vertex whose world
// position's 1 m tile is in the mask; a zone without one claims vertices only when it
// has a finite `carveInset`, those within its rectangle shrunk by the inset on every
// side (both half-sizes left positive). A cell of the mesh is dropped when a single
// zone claims all four of its corners.
import type { FlatZone } from "../src/hyperscape";

const SIZE = 100;
const RES = 64;
const STEP = SIZE / (RES - 1);

/** three's Vector3 as far as the normal needs (the original hands out one shared). */
export class Vec3 {
  constructor(
    public x = 0,
    public y = 0,
    public z = 0,
  ) {}
}

export interface StandInTile {
  x: number;
  z: number;
  /** Float32 local positions, x y z per vertex, index `ix + 64 * iz`. */
  positions: Float32Array;
  heightData: Float32Array;
  /** The kept cells' triangles. */
  index: number[];
}

export interface Emitted {
  type: string;
  data: unknown;
}

/** The biome tiers of the biomes manifest (ADAPTER.md). */
const TIERS: Record<string, number> = { plains: 0, forest: 1, valley: 0, mountains: 2, tundra: 3, desert: 2, lakes: 0, swamp: 1 };
const TOWNS: [number, number][] = [
  [0, 0],
  [10, 0],
  [-10, 0],
  [0, 10],
  [0, -10],
];

export class StandInTerrainSystem {
  CONFIG = { TILE_SIZE: SIZE, TILE_RESOLUTION: RES, WATER_THRESHOLD: 9 };
  /** Everything it emitted, in order. */
  readonly emitted: Emitted[] = [];
  private flatZones = new Map<string, FlatZone>();
  private flatZonesByTile = new Map<string, FlatZone[]>();
  private terrainTiles = new Map<string, StandInTile>();
  private regenerationQueue = new Set<string>();
  private normal = new Vec3();
  private bossHotspots: { x: number; z: number; y: number }[] | null = null;
  private started = false;

  /** Zones `init` registers, as the game's towns do at start-up. */
  constructor(private readonly initZones: FlatZone[] = []) {}

  // ---- System lifecycle ---------------------------------------------------------
  init(): void {
    for (const zone of this.initZones) this.registerFlatZone(zone);
  }
  start(): void {
    this.started = true;
  }
  update(): void {
    const keys = [...this.regenerationQueue];
    this.regenerationQueue.clear();
    for (const key of keys) {
      const tile = this.terrainTiles.get(key);
      if (tile === undefined) continue;
      this.terrainTiles.set(key, this.createTileGeometry(tile.x, tile.z));
      this.emit("TERRAIN_TILE_REGENERATED", { tileX: tile.x, tileZ: tile.z });
    }
  }
  destroy(): void {
    this.terrainTiles.clear();
    this.started = false;
  }
  isReady(): boolean {
    return this.started;
  }

  private emit(type: string, data: unknown): void {
    this.emitted.push({ type, data });
  }

  // ---- tiles --------------------------------------------------------------------
  /** Builds and keeps tile `(tx, tz)` (centred on `(100 tx, 100 tz)`). */
  loadTile(tx: number, tz: number): StandInTile {
    const tile = this.createTileGeometry(tx, tz);
    this.terrainTiles.set(`${tx},${tz}`, tile);
    this.emit("TERRAIN_TILE_GENERATED", { tileX: tx, tileZ: tz });
    const points = this.spawnCandidates([[tx * SIZE, tz * SIZE]]);
    this.emit("RESOURCE_SPAWN_POINTS_REGISTERED", { tileX: tx, tileZ: tz, points });
    return tile;
  }
  getTile(tx: number, tz: number): StandInTile | undefined {
    return this.terrainTiles.get(`${tx},${tz}`);
  }
  getTiles(): Map<string, StandInTile> {
    return this.terrainTiles;
  }
  getActiveChunks(): { x: number; z: number }[] {
    return [...this.terrainTiles.values()].map((t) => ({ x: t.x, z: t.z }));
  }

  private createTileGeometry(tx: number, tz: number): StandInTile {
    const positions = new Float32Array(RES * RES * 3);
    const heightData = new Float32Array(RES * RES);
    for (let iz = 0; iz < RES; iz++) {
      for (let ix = 0; ix < RES; ix++) {
        const v = ix + RES * iz;
        positions[3 * v] = ix * STEP - SIZE / 2;
        positions[3 * v + 2] = iz * STEP - SIZE / 2;
        const h = this.getHeightAtComputed(positions[3 * v]! + tx * SIZE, positions[3 * v + 2]! + tz * SIZE);
        positions[3 * v + 1] = h;
        heightData[v] = h;
      }
    }
    const tile: StandInTile = { x: tx, z: tz, positions, heightData, index: [] };
    tile.index = this.applyFlatZoneCarve(tile);
    return tile;
  }

  private applyFlatZoneCarve(tile: StandInTile): number[] {
    const zones = this.flatZonesByTile.get(`${tile.x},${tile.z}`) ?? [];
    const claims: Uint8Array[] = zones.map((zone) => {
      const claimed = new Uint8Array(RES * RES);
      const hw = zone.width / 2 - (zone.carveInset ?? 0);
      const hd = zone.depth / 2 - (zone.carveInset ?? 0);
      const masked = zone.tileMask !== undefined && zone.tileMask.size > 0;
      if (!masked && !(Number.isFinite(zone.carveInset) && hw > 0 && hd > 0)) return claimed;
      for (let v = 0; v < RES * RES; v++) {
        const wx = tile.positions[3 * v]! + tile.x * SIZE;
        const wz = tile.positions[3 * v + 2]! + tile.z * SIZE;
        if (masked) claimed[v] = zone.tileMask!.has(`${Math.floor(wx)},${Math.floor(wz)}`) ? 1 : 0;
        else claimed[v] = Math.abs(wx - zone.centerX) <= hw && Math.abs(wz - zone.centerZ) <= hd ? 1 : 0;
      }
      return claimed;
    });
    const index: number[] = [];
    for (let iz = 0; iz < RES - 1; iz++) {
      for (let ix = 0; ix < RES - 1; ix++) {
        const a = ix + RES * iz;
        const b = ix + RES * (iz + 1);
        const dropped = claims.some((c) => c[a] && c[a + 1] && c[b] && c[b + 1]);
        if (!dropped) index.push(a, b, a + 1, b, b + 1, a + 1);
      }
    }
    return index;
  }

  private storeHeightData(): void {
    // kept on the tile by createTileGeometry
  }

  // ---- heights ------------------------------------------------------------------
  getHeightAt(x: number, z: number): number {
    if (!Number.isFinite(x) || !Number.isFinite(z)) throw new Error(`[StandIn] getHeightAt: invalid coords (${x}, ${z})`);
    const zone = this.getFlatZoneHeight(x, z);
    if (zone !== null) return zone;
    const cached = this.getHeightAtCached(x, z);
    if (cached !== null) return cached;
    return this.getHeightAtComputedSkipFlatZone(x, z);
  }
  getHeightAtPosition(x: number, z: number): number {
    return this.getHeightAt(x, z);
  }
  private getHeightAtComputed(x: number, z: number): number {
    return this.getFlatZoneHeight(x, z) ?? this.getHeightAtComputedSkipFlatZone(x, z);
  }
  private getHeightAtCached(x: number, z: number): number | null {
    const tx = Math.floor((x + SIZE / 2) / SIZE);
    const tz = Math.floor((z + SIZE / 2) / SIZE);
    const tile = this.terrainTiles.get(`${tx},${tz}`);
    if (tile === undefined) return null;
    const clamp = (v: number): number => Math.min(RES - 1 - 0.001, Math.max(0, v));
    const gx = clamp((x - tx * SIZE + SIZE / 2) / STEP);
    const gz = clamp((z - tz * SIZE + SIZE / 2) / STEP);
    const ix = Math.floor(gx);
    const iz = Math.floor(gz);
    const fx = gx - ix;
    const fz = gz - iz;
    const h = (i: number, k: number): number => tile.heightData[i + RES * k]!;
    return (h(ix, iz) * (1 - fx) + h(ix + 1, iz) * fx) * (1 - fz) + (h(ix, iz + 1) * (1 - fx) + h(ix + 1, iz + 1) * fx) * fz;
  }
  private getHeightAtComputedSkipFlatZone(x: number, z: number): number {
    return 20 + 8 * Math.sin(x * 0.013) + 6 * Math.cos(z * 0.021);
  }
  getProceduralHeightAt(x: number, z: number): number {
    return this.getHeightAtComputedSkipFlatZone(x, z);
  }
  getNormalAt(x: number, z: number): Vec3 {
    const dx = this.getHeightAt(x + 0.5, z) - this.getHeightAt(x - 0.5, z);
    const dz = this.getHeightAt(x, z + 0.5) - this.getHeightAt(x, z - 0.5);
    const len = Math.sqrt(dx * dx + 1 + dz * dz);
    this.normal.x = -dx / len;
    this.normal.y = 1 / len;
    this.normal.z = -dz / len;
    return this.normal;
  }

  // ---- zones --------------------------------------------------------------------
  private reach(zone: FlatZone): number {
    return Math.max(zone.width, zone.depth) / 2 + zone.blendRadius;
  }
  private cells(zone: FlatZone, cell: (v: number) => number): string[] {
    const r = this.reach(zone);
    const out: string[] = [];
    for (let cx = cell(zone.centerX - r); cx <= cell(zone.centerX + r); cx++) {
      for (let cz = cell(zone.centerZ - r); cz <= cell(zone.centerZ + r); cz++) out.push(`${cx},${cz}`);
    }
    return out;
  }
  registerFlatZone(zone: FlatZone): void {
    if (!zone || !zone.id) throw new Error("[StandIn] registerFlatZone: invalid zone id");
    this.flatZones.set(zone.id, zone);
    for (const key of this.cells(zone, (v) => Math.floor((v + SIZE / 2) / SIZE))) {
      const list = this.flatZonesByTile.get(key);
      if (list === undefined) this.flatZonesByTile.set(key, [zone]);
      else list.push(zone);
    }
    this.queueTerrainTileRegeneration(zone);
  }
  unregisterFlatZone(id: string): void {
    const zone = this.flatZones.get(id);
    if (zone === undefined) return;
    this.flatZones.delete(id);
    for (const key of this.cells(zone, (v) => Math.floor(v / SIZE))) {
      const list = this.flatZonesByTile.get(key);
      if (list === undefined) continue;
      const i = list.indexOf(zone);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.flatZonesByTile.delete(key);
    }
  }
  private queueTerrainTileRegeneration(zone: FlatZone): void {
    for (const key of this.cells(zone, (v) => Math.floor((v + SIZE / 2) / SIZE))) {
      if (this.terrainTiles.has(key)) this.regenerationQueue.add(key);
    }
  }
  private getFlatZoneHeight(x: number, z: number): number | null {
    const tx = Math.floor((x + SIZE / 2) / SIZE);
    const tz = Math.floor((z + SIZE / 2) / SIZE);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dz = -1; dz <= 1; dz++) {
        for (const zone of this.flatZonesByTile.get(`${tx + dx},${tz + dz}`) ?? []) {
          const core = zone.tileMask
            ? zone.tileMask.has(`${Math.floor(x)},${Math.floor(z)}`)
            : Math.abs(x - zone.centerX) <= zone.width / 2 && Math.abs(z - zone.centerZ) <= zone.depth / 2;
          if (core) return zone.height;
        }
      }
    }
    return null;
  }
  isInFlatZone(x: number, z: number): boolean {
    return this.getFlatZoneHeight(x, z) !== null;
  }
  getFlatZoneAt(x: number, z: number): FlatZone | null {
    for (const zone of this.flatZonesByTile.get(`${Math.floor(x / SIZE)},${Math.floor(z / SIZE)}`) ?? []) {
      if (Math.abs(x - zone.centerX) <= zone.width / 2 + zone.blendRadius && Math.abs(z - zone.centerZ) <= zone.depth / 2 + zone.blendRadius) return zone;
    }
    return null;
  }

  // ---- biomes, walkability ------------------------------------------------------
  private getBiomeAt(tileX: number, tileZ: number): string {
    for (const [cx, cz] of TOWNS) if (Math.sqrt((tileX - cx) ** 2 + (tileZ - cz) ** 2) < 3) return "plains";
    return this.getBiomeAtWorldPosition(tileX * SIZE + SIZE / 2, tileZ * SIZE + SIZE / 2);
  }
  private getBiomeAtWorldPosition(_x: number, _z: number): string {
    return "forest";
  }
  getBiomeAtPosition(x: number, z: number): string {
    return this.getBiomeAt(Math.floor(x / SIZE), Math.floor(z / SIZE));
  }
  private calculateSlope(x: number, z: number): number {
    const h = this.getHeightAt(x, z);
    let max = 0;
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) max = Math.max(max, Math.abs(this.getHeightAt(x + dx, z + dz) - h));
    return max;
  }
  isPositionWalkable(x: number, z: number): { walkable: boolean; reason?: string } {
    const slope = this.calculateSlope(x, z);
    this.getBiomeAt(Math.floor(x / SIZE), Math.floor(z / SIZE));
    if (this.getHeightAt(x, z) < 9) return { walkable: false, reason: "water" };
    if (slope > 0.7) return { walkable: false, reason: "steep" };
    return { walkable: true };
  }
  getTerrainInfoAt(x: number, z: number): { height: number; biome: string; walkable: boolean; slope: number; underwater: boolean } {
    const height = this.getHeightAt(x, z);
    return {
      height,
      biome: this.getBiomeAt(Math.floor(x / SIZE), Math.floor(z / SIZE)),
      walkable: this.isPositionWalkable(x, z).walkable,
      slope: this.calculateSlope(x, z),
      underwater: height < 9,
    };
  }
  findWalkablePath(sx: number, sz: number, ex: number, ez: number): { path: { x: number; z: number }[]; blocked: boolean } {
    const path: { x: number; z: number }[] = [];
    for (let i = 0; i <= 20; i++) {
      const x = sx + ((ex - sx) / 20) * i;
      const z = sz + ((ez - sz) / 20) * i;
      if (!this.isPositionWalkable(x, z).walkable) return { path: [], blocked: true };
      path.push({ x, z });
    }
    return { path, blocked: false };
  }

  // ---- the game's own: difficulty, spawns, bosses -------------------------------
  getDifficultyAtWorldPosition(x: number, z: number): { level: number; scalar: number; biome: string; difficultyTier: number; isSafe: boolean } {
    const biome = this.getBiomeAtWorldPosition(x, z);
    const tier = TIERS[biome] ?? 0;
    const scalar = Math.min(1, Math.hypot(x, z) / 1000) * (tier / 3);
    return { level: Math.floor(1 + scalar * 999), scalar, biome, difficultyTier: tier, isSafe: tier <= 0 };
  }
  getBossLevelAtWorldPosition(x: number, z: number): number {
    return this.getDifficultyAtWorldPosition(x, z).level + 10;
  }
  createDeterministicRng(seed: number): () => number {
    let s = seed >>> 0;
    return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  }
  /** The spawner's test of candidate points (the original draws them from Math.random):
   * where it stands, on what, whether a mob may stand there. */
  spawnCandidates(points: [number, number][]): { x: number; y: number; z: number; biome: string; ok: boolean }[] {
    return points.map(([x, z]) => {
      const info = this.getTerrainInfoAt(x, z);
      return { x, y: info.height, z, biome: info.biome, ok: info.walkable && !info.underwater };
    });
  }
  getMobSpawnPositionsForTile(tx: number, tz: number, count: number): { x: number; y: number; z: number }[] {
    const rng = this.createDeterministicRng(tx * 73856093 + tz * 19349663);
    const pts: [number, number][] = [];
    for (let i = 0; i < count; i++) pts.push([tx * SIZE + (rng() - 0.5) * SIZE, tz * SIZE + (rng() - 0.5) * SIZE]);
    return this.spawnCandidates(pts).filter((p) => p.ok);
  }
  getBossHotspots(): { x: number; z: number; y: number }[] {
    return (this.bossHotspots ??= this.generateBossHotspots());
  }
  private generateBossHotspots(): { x: number; z: number; y: number }[] {
    const out: { x: number; z: number; y: number }[] = [];
    for (let x = -300; x <= 300; x += 150) {
      for (let z = -300; z <= 300; z += 150) if (this.isPositionWalkable(x, z).walkable) out.push({ x, z, y: this.getHeightAt(x, z) });
    }
    return out;
  }
}
