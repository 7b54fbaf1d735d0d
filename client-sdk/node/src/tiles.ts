// Heights and walkability at the centres of 1 m movement tiles, kept in JavaScript:
// a game asks at tile centres (`isPositionWalkable(tx + 0.5, tz + 0.5)`, heights of
// the tiles an entity walks over) far more often than anywhere else, and a read from
// a kept block costs no call into the addon.
//
// Blocks of 64 x 64 tiles are handed over by the addon (`hsGrid`: the walk grid of
// terrain-core, `Walker::grid_with_heights`, each tile's flags (`walk::flags`, the
// bytes of the server's `GET .../walk-grid`) and its centre's final height, the point
// answers' bits: core tests the grid against the point judgement and height at every
// tile). A block is taken once it has been read often enough
// (TILE_BLOCK_READS reads of tiles not kept); until then reads are answered by the
// addon one by one, so scattered reads never pay for whole blocks.
//
// Invalidation is exact: every change of the replica's view (the server's events,
// the adapter's own zone changes) comes with the outer bounds of the zones that
// changed (crate terrain-node, `Open::rebuild`), and only the blocks within
// CHANGE_MARGIN of them are dropped. The hand-over callback delivers them before any
// other JavaScript runs, so no read answers from a block of an earlier view.

/** Tiles per block edge. */
export const BLOCK = 64;
const SHIFT = 6;
const MASK_IN = BLOCK - 1;
/** Blocks kept at most (36 KiB each: 32 KiB of heights, 4 KiB of flags): 36 MiB. */
export const TILE_BLOCKS_KEPT = 1024;
/** Reads of a block not kept before it is taken from the addon (a block costs about
 * as much as a few hundred point answers). */
export const TILE_BLOCK_READS = 128;
/** Metres around a changed zone's outer bounds whose tiles may change: a height
 * reads the generator's samples 1 m around it (the shoreline), a walkability judgement
 * the heights 1 m around the tile's centre; one more for rounding. */
export const CHANGE_MARGIN = 3;
/** Tile indices within this of the origin are kept (int32 arithmetic below). */
const FAR = 2 ** 30;
/** Slots of the index: open addressing, at most a quarter full. */
const SLOTS = 4 * TILE_BLOCKS_KEPT;
const SLOT_MASK = SLOTS - 1;

/** Walk flags of a tile (`walkGrid`): walkable. */
export const WALKABLE = 1;
/** Walk flags of a tile: under water. */
export const WATER = 2;
/** Walk flags of a tile: too steep. */
export const STEEP = 4;
/** Walk flags of a tile: its centre lies in a zone's core. */
export const ZONE_CORE = 8;
/** Walk flags of a tile: blocked by a zone registered with `walkable: false`. */
export const ZONE_BLOCKED = 16;
/** Walk flags of a tile: a block too high to step onto (block worlds). */
export const STEP = 32;

/** What the addon exports for tile blocks (crate terrain-node, module `hyperscape`). */
export interface TileAddon {
  hsGrid(handle: unknown, x0: number, z0: number, w: number, d: number, flags: Uint8Array, heights: Float64Array): void;
}

const NO_HEIGHTS = new Float64Array(0);

function slotOf(bx: number, bz: number): number {
  return ((Math.imul(bx, 0x9e3779b1) ^ Math.imul(bz, 0x85ebca77)) >>> 18) & SLOT_MASK;
}

/** One replica's kept tile blocks. */
export class TileCache {
  private readonly heights: (Float64Array | undefined)[] = new Array<Float64Array | undefined>(TILE_BLOCKS_KEPT).fill(undefined);
  private readonly flags: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(TILE_BLOCKS_KEPT).fill(undefined);
  private readonly blockX = new Int32Array(TILE_BLOCKS_KEPT);
  private readonly blockZ = new Int32Array(TILE_BLOCKS_KEPT);
  /** The index: slot -> block number + 1 (0: empty). */
  private readonly index = new Int32Array(SLOTS);
  /** The block taken least recently (reused first when all are in use). */
  private next = 0;
  private count = 0;
  /** Reads of blocks not kept, by `bx * 2^24 + bz`. */
  private readonly reads = new Map<number, number>();
  private lastX = 0x7fffffff;
  private lastZ = 0x7fffffff;
  private lastH: Float64Array | undefined;
  private lastF: Uint8Array | undefined;
  /** Blocks taken from the addon so far (for tests and the benchmarks). */
  taken = 0;
  /** The view's epoch as the last change said (what else JavaScript keeps per view,
   * e.g. the adapter's zone objects, compares it). */
  epoch = 0;

  constructor(
    private readonly addon: TileAddon,
    private readonly handle: unknown,
  ) {}

  /** Blocks kept. */
  get kept(): number {
    return this.count;
  }

  /** The final height at tile `(tx, tz)`'s centre, or NaN when not kept (the read is
   * counted, and may take the block). `tx`, `tz` whole numbers. */
  heightAt(tx: number, tz: number): number {
    if (!(tx > -FAR && tx < FAR && tz > -FAR && tz < FAR)) return Number.NaN;
    const bx = tx >> SHIFT;
    const bz = tz >> SHIFT;
    if (bx !== this.lastX || bz !== this.lastZ) {
      if (!this.select(bx, bz)) return Number.NaN;
    }
    return this.lastH![((tz & MASK_IN) << SHIFT) | (tx & MASK_IN)]!;
  }

  /** The walk flags of tile `(tx, tz)`, or -1 when not kept (counted as above). */
  flagsAt(tx: number, tz: number): number {
    if (!(tx > -FAR && tx < FAR && tz > -FAR && tz < FAR)) return -1;
    const bx = tx >> SHIFT;
    const bz = tz >> SHIFT;
    if (bx !== this.lastX || bz !== this.lastZ) {
      if (!this.select(bx, bz)) return -1;
    }
    return this.lastF![((tz & MASK_IN) << SHIFT) | (tx & MASK_IN)]!;
  }

  /** Makes block `(bx, bz)` the last one read, taking it from the addon when it has
   * been read often enough; false when it is not kept. */
  private select(bx: number, bz: number): boolean {
    let b = this.find(bx, bz);
    if (b < 0) {
      const key = bx * 0x1000000 + bz;
      const reads = (this.reads.get(key) ?? 0) + 1;
      if (reads < TILE_BLOCK_READS) {
        if (this.reads.size >= 16 * TILE_BLOCKS_KEPT) this.reads.clear();
        this.reads.set(key, reads);
        return false;
      }
      this.reads.delete(key);
      b = this.take(bx, bz);
    }
    this.lastX = bx;
    this.lastZ = bz;
    this.lastH = this.heights[b];
    this.lastF = this.flags[b];
    return true;
  }

  /** The number of kept block `(bx, bz)`, or -1. */
  private find(bx: number, bz: number): number {
    const index = this.index;
    for (let slot = slotOf(bx, bz); ; slot = (slot + 1) & SLOT_MASK) {
      const b = index[slot]! - 1;
      if (b < 0) return -1;
      if (this.blockX[b] === bx && this.blockZ[b] === bz) return b;
    }
  }

  /** Takes block `(bx, bz)` from the addon (not kept yet), reusing the block taken
   * least recently when all are in use. */
  private take(bx: number, bz: number): number {
    let b: number;
    if (this.count < TILE_BLOCKS_KEPT) {
      b = this.count++;
      while (this.heights[b] !== undefined) b = (b + 1) % TILE_BLOCKS_KEPT;
    } else {
      b = this.next;
      this.next = (this.next + 1) % TILE_BLOCKS_KEPT;
      this.heights[b] = undefined;
      this.flags[b] = undefined;
      this.reindex();
    }
    const h = new Float64Array(BLOCK * BLOCK);
    const f = new Uint8Array(BLOCK * BLOCK);
    this.addon.hsGrid(this.handle, bx * BLOCK, bz * BLOCK, BLOCK, BLOCK, f, h);
    this.taken += 1;
    this.heights[b] = h;
    this.flags[b] = f;
    this.blockX[b] = bx;
    this.blockZ[b] = bz;
    this.insert(b);
    return b;
  }

  private insert(b: number): void {
    let slot = slotOf(this.blockX[b]!, this.blockZ[b]!);
    while (this.index[slot] !== 0) slot = (slot + 1) & SLOT_MASK;
    this.index[slot] = b + 1;
  }

  /** Rebuilds the index from the kept blocks (after some were dropped). */
  private reindex(): void {
    this.index.fill(0);
    let n = 0;
    for (let b = 0; b < TILE_BLOCKS_KEPT; b++) {
      if (this.heights[b] !== undefined) {
        this.insert(b);
        n += 1;
      }
    }
    this.count = n;
    this.lastX = 0x7fffffff;
    this.lastZ = 0x7fffffff;
    this.lastH = undefined;
    this.lastF = undefined;
  }

  /** Block `(bx, bz)`'s flags when kept (no read counted). */
  blockFlags(bx: number, bz: number): Uint8Array | undefined {
    const b = this.find(bx, bz);
    return b < 0 ? undefined : this.flags[b];
  }

  /** Counts `reads` reads of block `(bx, bz)` (not kept), taking it when they reach
   * TILE_BLOCK_READS; answers its flags when kept. */
  touch(bx: number, bz: number, reads: number): Uint8Array | undefined {
    if (!(bx > -FAR && bx < FAR && bz > -FAR && bz < FAR)) return undefined;
    const kept = this.blockFlags(bx, bz);
    if (kept !== undefined) return kept;
    const key = bx * 0x1000000 + bz;
    const total = (this.reads.get(key) ?? 0) + reads;
    if (total < TILE_BLOCK_READS) {
      this.reads.set(key, total);
      return undefined;
    }
    this.reads.delete(key);
    return this.flags[this.take(bx, bz)];
  }

  /** The view changed (`[epoch, n, minX, minZ, maxX, maxZ, ...]`, crate terrain-node's
   * `Open::rebuild`): drops the blocks within CHANGE_MARGIN of a changed rectangle. */
  changed(info: Float64Array): void {
    this.epoch = info[0] ?? this.epoch;
    const n = info[1] ?? 0;
    if (n === 0 || this.count === 0) return;
    let dropped = false;
    for (let b = 0; b < TILE_BLOCKS_KEPT; b++) {
      if (this.heights[b] === undefined) continue;
      const x0 = this.blockX[b]! * BLOCK;
      const z0 = this.blockZ[b]! * BLOCK;
      for (let k = 0; k < n; k++) {
        const at = 2 + 4 * k;
        // Tile centres x0 + 0.5 .. x0 + 63.5; a change reaches a centre within the
        // margin of its rectangle (NaN bounds: everything).
        const minX = info[at]! - CHANGE_MARGIN;
        const minZ = info[at + 1]! - CHANGE_MARGIN;
        const maxX = info[at + 2]! + CHANGE_MARGIN;
        const maxZ = info[at + 3]! + CHANGE_MARGIN;
        const apart = x0 + BLOCK < minX || x0 > maxX || z0 + BLOCK < minZ || z0 > maxZ;
        if (!apart) {
          this.heights[b] = undefined;
          this.flags[b] = undefined;
          dropped = true;
          break;
        }
      }
    }
    if (dropped) this.reindex();
  }

  /** Drops every block (the replica was closed). */
  clear(): void {
    this.heights.fill(undefined);
    this.flags.fill(undefined);
    this.reads.clear();
    this.reindex();
  }

  /** The walk flags of `w x d` tiles from `(x0, z0)` (row-major, z rising): copied
   * from kept blocks when every block the rectangle covers is kept (or read often
   * enough to be taken now), else computed by the addon for the rectangle alone. */
  walkGrid(x0: number, z0: number, w: number, d: number): Uint8Array {
    const out = new Uint8Array(w * d);
    const bx0 = Math.floor(x0 / BLOCK);
    const bz0 = Math.floor(z0 / BLOCK);
    const bx1 = Math.floor((x0 + w - 1) / BLOCK);
    const bz1 = Math.floor((z0 + d - 1) / BLOCK);
    const blocks = (bx1 - bx0 + 1) * (bz1 - bz0 + 1);
    let all = blocks <= TILE_BLOCKS_KEPT / 4;
    if (all) {
      // Touching a block counts half a block's worth of reads: the second grid over
      // the same blocks takes them, later ones copy.
      for (let bz = bz0; bz <= bz1; bz++) {
        for (let bx = bx0; bx <= bx1; bx++) {
          if (this.touch(bx, bz, TILE_BLOCK_READS / 2) === undefined) all = false;
        }
      }
    }
    if (all) {
      for (let bz = bz0; bz <= bz1; bz++) {
        for (let bx = bx0; bx <= bx1; bx++) {
          const f = this.blockFlags(bx, bz);
          if (f === undefined) {
            // Dropped to make room for a later block of this grid: compute instead.
            this.addon.hsGrid(this.handle, x0, z0, w, d, out, NO_HEIGHTS);
            return out;
          }
          const ix0 = Math.max(x0, bx * BLOCK);
          const ix1 = Math.min(x0 + w, (bx + 1) * BLOCK);
          const iz0 = Math.max(z0, bz * BLOCK);
          const iz1 = Math.min(z0 + d, (bz + 1) * BLOCK);
          for (let tz = iz0; tz < iz1; tz++) {
            const from = (tz - bz * BLOCK) * BLOCK + (ix0 - bx * BLOCK);
            out.set(f.subarray(from, from + (ix1 - ix0)), (tz - z0) * w + (ix0 - x0));
          }
        }
      }
      return out;
    }
    this.addon.hsGrid(this.handle, x0, z0, w, d, out, NO_HEIGHTS);
    return out;
  }
}
