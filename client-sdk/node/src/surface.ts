// `surfaceHeightAt` over the native addon: the tile surfaces a replica reads often are
// handed over by the addon (one Float32Array of vertex heights per tile, at one epoch
// of the replica's view) and kept in the WebAssembly module's `SurfaceStore`
// (terrain-client's `HeldSurfaces`), so a read of a kept tile is one call into the
// module, with no call into the addon: a call into the addon costs more than the read
// (napi-rs's argument handling), a call into the module does not.
//
// Bits: the module answers with core's rule (terrain-core's `SurfaceTiles`), and
// decides which tiles to keep by the rule the replica's own `SurfaceCache` keeps
// (terrain-client): nothing here computes a height or picks a tile. Reads it does not
// answer are evaluated by the addon on the spot.
//
// Staleness: the view moves on only on the JavaScript thread, in the addon's hand-over
// callback, which then calls `published(epoch)` before any other JavaScript runs (see
// crate terrain-node's module docs). Each read compares the epoch its tiles were taken
// at with the latest one and drops them all when they differ, so no read answers from a
// tile of an earlier view.
import { type SurfaceStore, surfaceStore } from "./wasm";

/** What the addon exports for the surface reads (crate terrain-node, module `fast`). */
export interface SurfaceAddon {
  replicaSurfaceEvaluated(handle: unknown, x: number, z: number): number;
  replicaSurfaceLayout(handle: unknown): Float64Array;
  replicaSurfaceTile(handle: unknown, tx: number, tz: number): Float32Array;
}

/** One replica's kept tile surfaces, at one epoch of its view. */
export class SurfaceTiles {
  /** The view's latest epoch, as the addon's hand-over callback last said. */
  epoch = -1;
  /** The epoch the kept tiles were taken at (NaN: none yet, or closed). */
  at = Number.NaN;
  /** The kept tiles (made at the first read: the module is loaded then). */
  private store: SurfaceStore | null = null;

  constructor(
    private readonly addon: SurfaceAddon,
    private readonly handle: unknown,
  ) {}

  /** The addon's hand-over callback: the view is now at `epoch`. */
  published(epoch: number): void {
    this.epoch = epoch;
  }

  /** The replica was closed: the kept tiles go, and every later read asks the addon
   * (which throws). */
  closed(): void {
    this.at = Number.NaN;
    this.store?.free();
    this.store = null;
  }

  /** The number of tiles kept. */
  get kept(): number {
    return this.store?.kept ?? 0;
  }

  /** The surface-mode height at `(x, z)` at the view: the server's bits. */
  heightAt(x: number, z: number): number {
    // `at` is NaN until the first refresh and once closed: no store then.
    if (this.at !== this.epoch) this.refresh();
    const h = this.store!.height(x, z);
    // NaN: no kept tile holds the point (or it is refused).
    return h === h ? h : this.miss(x, z);
  }

  /** A read no kept tile answered: the tile handed over when the module's keeping
   * rule says so, else the point evaluated by the addon (which refuses what the
   * server refuses). */
  private miss(x: number, z: number): number {
    const store = this.store!;
    const tile = store.miss(x, z);
    if (tile.length === 2) {
      const tx = tile[0]!;
      const tz = tile[1]!;
      store.insert(tx, tz, this.addon.replicaSurfaceTile(this.handle, tx, tz));
      const h = store.height(x, z);
      if (h === h) return h;
    }
    return this.addon.replicaSurfaceEvaluated(this.handle, x, z);
  }

  /** The view moved on (or this is the first read): drop every kept tile, read the
   * grid and the epoch from the addon (which throws once closed). */
  private refresh(): void {
    const [epoch, size, shift, , n] = this.addon.replicaSurfaceLayout(this.handle);
    if (this.store === null) this.store = surfaceStore(size!, n!, shift !== 0);
    else this.store.clear();
    this.epoch = epoch!;
    this.at = epoch!;
  }
}
