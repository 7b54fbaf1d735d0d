// `surfaceHeightAt` in JavaScript: the tile surfaces a replica reads are kept here, as
// the addon hands them over (one Float32Array of vertex heights per tile, at one
// epoch of the replica's view), and a read of a kept tile is evaluated here with no
// call into the addon.
//
// The heights are float32 values: core rounds each vertex height to f32 and
// interpolates the f32 widened back to f64 (SurfaceTile). A Float32Array holds them
// exactly and an element read is that same double; half the memory of doubles, so more
// of the tiles a game reads stay in the processor's caches.
//
// Bits: the evaluation is core's, operation for operation (core/src/mesh/surface.rs:
// `cell_of`, `on_triangle`, `SurfaceTile::on_cell`; core/src/tile.rs: `tile_of`,
// `origin`). IEEE-754 doubles add, subtract, multiply, divide and floor the same in
// JavaScript and in Rust (neither fuses a multiply-add), so the same operations in the
// same order give the same bits: the server's surface-mode answer at the view. The rule
// stays core's: test/surface-rule.test.ts compares `heightOnTile` with core's own
// evaluation (the addon's `surfaceRuleHeight`) over random tiles, grids and points.
//
// Staleness: the view moves on only on the JavaScript thread, in the addon's hand-over
// callback, which then calls `published(epoch)` before any other JavaScript runs (see
// crate terrain-node's module docs). Each read compares the epoch its tiles were taken
// at with the latest one and drops them all when they differ, so no read answers from a
// tile of an earlier view.

/** A tile read this many times at one epoch is taken from the addon and kept (the
 * addon's own tile cache keeps the same rule: a tile costs about ten reads evaluated
 * on the spot to compute and hand over). */
export const SURFACE_TILE_READS = 16;
/** At most this many tiles are kept (16 KiB each for 64 x 64 vertices). */
export const SURFACE_TILES_KEPT = 1024;
/** With all kept, reads of other tiles are evaluated on the spot until this many of
 * them, then the kept tiles are dropped (the reads have moved elsewhere). */
export const SURFACE_FULL_MISSES = 16 * 1024;

/** Tile indices beyond this (about 2 million tiles from the origin) are not kept:
 * such reads are evaluated by the addon. It keeps tile indices small integers. */
const FAR = 2 ** 21;
/** Slots of the kept tiles' index: open addressing, at most a quarter full. */
const SLOTS = 4 * SURFACE_TILES_KEPT;
const MASK = SLOTS - 1;
/** `tx * ROW + tz`: one exact number per tile within FAR. */
const ROW = 2 ** 22;
/** No tile index (beyond FAR). */
const NONE = 0x7fffffff;

/** The index slot tile `(tx, tz)` is looked for from. */
function slotOf(tx: number, tz: number): number {
  return (Math.imul(tx, 0x9e3779b1) ^ Math.imul(tz, 0x85ebca77)) >>> 20 & MASK;
}

/** What the addon exports for the surface reads (crate terrain-node, module `fast`). */
export interface SurfaceAddon {
  replicaSurfaceEvaluated(handle: unknown, x: number, z: number): number;
  replicaSurfaceLayout(handle: unknown): Float64Array;
  replicaSurfaceTile(handle: unknown, tx: number, tz: number): Float32Array;
}

/** The tile grid surface reads use, as the addon's `replicaSurfaceLayout` gives it:
 * tile `t` owns `floor(c / size + shift) = t` (`shift` 0.5 when tiles are centred on
 * `t * size`, else 0), its vertices `step` apart, `n` per edge. */
export interface SurfaceGrid {
  readonly size: number;
  readonly shift: number;
  readonly step: number;
  readonly n: number;
}

/**
 * The height at `(x, z)` on tile `(tx, tz)` of `grid`, from its vertex heights `h`
 * (row-major, `iz * n + ix`): core's `cell_of` then `on_triangle`
 * (core/src/mesh/surface.rs), the same operations in the same order, so the same bits.
 * The package's tests hold it to core's own evaluation over random tiles and points
 * (the addon's `surfaceRuleHeight`), so the rule has one source, core's.
 */
export function heightOnTile(grid: SurfaceGrid, h: Float32Array, tx: number, tz: number, x: number, z: number): number {
  const { size, step, n } = grid;
  const last = n - 2;
  // TileGrid::origin: t * size, less size / 2 when centred (shift 0.5).
  const half = grid.shift === 0 ? 0 : size / 2;
  const gx = (x - (tx * size - half)) / step;
  const gz = (z - (tz * size - half)) / step;
  // (floor(g).max(0) as usize).min(n - 2), then (g - i).clamp(0, 1). A literal 0
  // where Rust's usize is 0 (Math.floor(-0) is -0, the usize +0).
  let ix = Math.floor(gx);
  ix = ix > 0 ? (ix < last ? ix : last) : 0;
  let iz = Math.floor(gz);
  iz = iz > 0 ? (iz < last ? iz : last) : 0;
  let fx = gx - ix;
  if (fx < 0) fx = 0;
  else if (fx > 1) fx = 1;
  let fz = gz - iz;
  if (fz < 0) fz = 0;
  else if (fz > 1) fz = 1;
  // on_triangle over vertex (ix + i, iz + j) at h[(iz + j) * n + ix + i]; the cell
  // split along the (ix, iz+1)-(ix+1, iz) diagonal.
  const at = iz * n + ix;
  if (fx + fz <= 1) {
    const a = h[at]!;
    const b = h[at + n]!;
    const d = h[at + 1]!;
    return a + (d - a) * fx + (b - a) * fz;
  }
  const b = h[at + n]!;
  const c = h[at + n + 1]!;
  const d = h[at + 1]!;
  return c + (b - c) * (1 - fx) + (d - c) * (1 - fz);
}

/** One replica's kept tile surfaces, at one epoch of its view. */
export class SurfaceTiles {
  /** The view's latest epoch, as the addon's hand-over callback last said. */
  epoch = -1;
  /** The epoch the kept tiles were taken at (NaN: none yet, or closed). */
  at = Number.NaN;
  /** The tile grid of the view (from the addon at each refresh). */
  private grid: SurfaceGrid = { size: 1, shift: 0, step: 1, n: 2 };
  /** The kept tiles, by slot (`undefined`: an empty slot), and their indices. A
   * hand-made index: a `Map` by a number key costs more than the whole evaluation. */
  private tiles: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(SLOTS).fill(undefined);
  private readonly slotX = new Int32Array(SLOTS);
  private readonly slotZ = new Int32Array(SLOTS);
  private count = 0;
  /** Reads per tile not kept, at this epoch, by `tx * ROW + tz`. */
  private readonly reads = new Map<number, number>();
  private fullMisses = 0;
  /** The tile of the last read from a kept tile: consecutive reads mostly stay in one. */
  private lastX = NONE;
  private lastZ = NONE;
  private last: Float32Array | undefined;

  constructor(
    private readonly addon: SurfaceAddon,
    private readonly handle: unknown,
  ) {}

  /** The addon's hand-over callback: the view is now at `epoch`. */
  published(epoch: number): void {
    this.epoch = epoch;
  }

  /** The replica was closed: every later read asks the addon (which throws). */
  closed(): void {
    this.at = Number.NaN;
  }

  /** The number of tiles kept. */
  get kept(): number {
    return this.count;
  }

  /** The surface-mode height at `(x, z)` at the view: the server's bits. */
  heightAt(x: number, z: number): number {
    if (this.at !== this.epoch) this.refresh();
    const { size, shift } = this.grid;
    // core's TileGrid::tile_of: floor(c / size + shift).
    const qx = x / size + shift;
    const qz = z / size + shift;
    if (!(qx > -FAR && qx < FAR && qz > -FAR && qz < FAR)) {
      // Far out, or not finite: the addon evaluates (and answers what core does).
      return this.addon.replicaSurfaceEvaluated(this.handle, x, z);
    }
    // Small integers within FAR: int32 from here on (Rust's `as i64`, then `as f64`
    // where the index is used as a number, is the same value).
    const tx = Math.floor(qx) | 0;
    const tz = Math.floor(qz) | 0;
    let h = this.last;
    if (tx !== this.lastX || tz !== this.lastZ) {
      h = this.find(tx, tz);
      if (h === undefined) return this.miss(tx, tz, x, z);
      this.lastX = tx;
      this.lastZ = tz;
      this.last = h;
    }
    return heightOnTile(this.grid, h!, tx, tz, x, z);
  }

  /** Kept tile `(tx, tz)`, or `undefined`. */
  private find(tx: number, tz: number): Float32Array | undefined {
    const tiles = this.tiles;
    for (let slot = slotOf(tx, tz); ; slot = (slot + 1) & MASK) {
      const h = tiles[slot];
      if (h === undefined) return undefined;
      if (this.slotX[slot] === tx && this.slotZ[slot] === tz) return h;
    }
  }

  /** Keeps `h` as tile `(tx, tz)` (not kept yet; fewer than SURFACE_TILES_KEPT are). */
  private keep(tx: number, tz: number, h: Float32Array): void {
    let slot = slotOf(tx, tz);
    while (this.tiles[slot] !== undefined) slot = (slot + 1) & MASK;
    this.tiles[slot] = h;
    this.slotX[slot] = tx;
    this.slotZ[slot] = tz;
    this.count += 1;
  }

  /** A read of a tile not kept: evaluated by the addon, or (read often enough) the
   * tile taken from the addon and kept. The addon's rule (terrain-node's
   * `SurfaceCache`), here. */
  private miss(tx: number, tz: number, x: number, z: number): number {
    if (this.reads.size >= SURFACE_TILE_READS * SURFACE_TILES_KEPT) this.reads.clear();
    const key = tx * ROW + tz;
    const reads = (this.reads.get(key) ?? 0) + 1;
    this.reads.set(key, reads);
    if (reads < SURFACE_TILE_READS) return this.addon.replicaSurfaceEvaluated(this.handle, x, z);
    if (this.count >= SURFACE_TILES_KEPT) {
      this.fullMisses += 1;
      if (this.fullMisses < SURFACE_FULL_MISSES) return this.addon.replicaSurfaceEvaluated(this.handle, x, z);
      this.drop();
      this.reads.clear();
    }
    const h = this.addon.replicaSurfaceTile(this.handle, tx, tz);
    const n = this.grid.n;
    if (h.length !== n * n) {
      throw new Error(`surface tile (${tx}, ${tz}): ${h.length} heights, expected ${n * n}`);
    }
    this.reads.delete(key);
    this.keep(tx, tz, h);
    this.lastX = tx;
    this.lastZ = tz;
    this.last = h;
    return heightOnTile(this.grid, h, tx, tz, x, z);
  }

  /** The view moved on (or this is the first read): drop every kept tile, read the
   * grid and the epoch from the addon (which throws once closed). The tiles that were
   * kept are taken again at their next read. */
  private refresh(): void {
    const info = this.addon.replicaSurfaceLayout(this.handle);
    const [epoch, size, shift, step, n] = info;
    for (let slot = 0; slot < SLOTS; slot++) {
      if (this.tiles[slot] !== undefined) this.reads.set(this.slotX[slot]! * ROW + this.slotZ[slot]!, SURFACE_TILE_READS - 1);
    }
    this.drop();
    this.grid = { size: size!, shift: shift!, step: step!, n: n! };
    this.epoch = epoch!;
    this.at = epoch!;
  }

  private drop(): void {
    if (this.count > 0) this.tiles = new Array<Float32Array | undefined>(SLOTS).fill(undefined);
    this.count = 0;
    this.fullMisses = 0;
    this.lastX = NONE;
    this.lastZ = NONE;
    this.last = undefined;
  }
}
