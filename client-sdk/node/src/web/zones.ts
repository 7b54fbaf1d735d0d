// The zone state of one WebAssembly replica in a page: the server's zones as the
// follower publishes them (reset, put, remove, with revisions) and the zones this page
// registered, which live in this page only. The main thread and the tile worker each
// hold one over their own `Replica`, driven by the same calls in the same order, so the
// two answer at the same state (src/web/index.ts forwards every call to the worker).
//
// A zone registered here whose id the server also holds is shadowed: the server's zone
// decides. It comes back if the server removes its zone, and is withdrawn again when the
// server registers one under its id. Local zones are the replica's local operations
// (`register`, withdrawn with `settle(seq, -1)`); they are never committed, so they stay
// on top of the server's zones (ordered after them, as the server would) until the page
// unregisters them or goes away.
import type { Replica } from "../../wasm/terrain_wasm.mjs";

/** A zone of this page: its body (the HTTP API's JSON) and its local operation, `null`
 * while the server holds a zone under its id. */
interface LocalZone {
  body: string;
  seq: number | null;
}

/** The messages the main thread sends the tile worker (src/web/worker.ts). */
export type ToWorker =
  | {
      t: "init";
      module: WebAssembly.Module;
      world: string;
      revision: number;
      /** The server's zones, JSON documents. */
      zones: string[];
      /** This page's zones in the order of their operations: `[id, body]`. */
      locals: [string, string][];
    }
  | { t: "reset"; revision: number; zones: [string, string][] }
  | { t: "put"; revision: number; id: string; zone: string }
  | { t: "remove"; revision: number; id: string }
  | { t: "register"; id: string; body: string }
  | { t: "unregister"; id: string }
  | { t: "tile"; n: number; tx: number; tz: number; revision: number }
  | { t: "chunk"; n: number; cx: number; cz: number; revision: number };

/** A tile's mesh as the worker hands it over (its arrays transferred). */
export interface TileMeshData {
  /** Vertex positions `[x, y, z, ...]`, relative to `placement`. */
  positions: Float32Array;
  /** Unit vertex normals. */
  normals: Float32Array;
  /** Vertex colours `[r, g, b, ...]` (empty for generators without them). */
  colors: Float32Array;
  /** Each vertex's biome id (empty for generators without biomes). */
  biomeIds: Uint8Array;
  /** Triangle indices. */
  index: Uint32Array;
  /** Where the tile's origin lies, `[x, y, z]`. */
  placement: [number, number, number];
  /** Vertices per edge. */
  resolution: number;
  /** The server's revision the mesh is of (this page's zones on top). */
  revision: number;
}

/** The worker's answers. */
export type FromWorker =
  | { n: number; tile: TileMeshData }
  | { n: number; chunk: Uint8Array | null }
  | { n: number; error: string };

/** `{"zones": [...], "revision": n}` of JSON documents. */
export function zoneList(revision: number, docs: Iterable<string>): string {
  return `{"zones":[${[...docs].join(",")}],"revision":${revision}}`;
}

/** The changed-bounds handoff's rectangles (`[epoch, n, minX, minZ, maxX, maxZ, ...]`)
 * appended to `out`. */
function rects(handoff: Float64Array, out: number[]): void {
  const n = handoff[1] ?? 0;
  for (let k = 0; k < 4 * n; k++) out.push(handoff[2 + k]!);
}

export class ZoneState {
  /** The server's zones at `revision`: id -> JSON document, in registration order. */
  readonly server = new Map<string, string>();
  /** This page's zones, in the order of their operations. */
  readonly local = new Map<string, LocalZone>();
  revision: number;
  /** Rectangles where this page's zones changed as the server's did (shadowed, or
   * back), appended by `reset`, `put` and `remove` for the caller to take. */
  readonly localRects: number[] = [];

  /** The state of `replica`, built from `zones` (the documents it was made with) at
   * `revision`. */
  constructor(
    readonly replica: Replica,
    revision: number,
    zones: Iterable<[string, string]>,
  ) {
    this.revision = revision;
    for (const [id, doc] of zones) this.server.set(id, doc);
  }

  /** The server's whole zone list at `revision`. Answers the rectangles where the
   * server's zones changed, `[minX, minZ, maxX, maxZ, ...]` (this page's, shadowed or
   * back, go to `localRects`). */
  reset(revision: number, zones: Iterable<[string, string]>): number[] {
    this.server.clear();
    for (const [id, doc] of zones) this.server.set(id, doc);
    this.revision = revision;
    const out: number[] = [];
    rects(this.replica.reset(revision, zoneList(revision, this.server.values())), out);
    this.reconcile(this.localRects);
    return out;
  }

  /** The server's zone `id` registered or replaced at `revision`. */
  put(revision: number, id: string, doc: string): number[] {
    this.server.set(id, doc);
    this.revision = revision;
    const out: number[] = [];
    rects(this.replica.put(revision, doc), out);
    this.reconcile(this.localRects);
    return out;
  }

  /** The server's zone `id` removed at `revision`. */
  remove(revision: number, id: string): number[] {
    this.server.delete(id);
    this.revision = revision;
    const out: number[] = [];
    rects(this.replica.remove(revision, id), out);
    this.reconcile(this.localRects);
    return out;
  }

  /** This page's zone `id` (`body` as the HTTP API takes it) registered or replaced;
   * throws (the replica's error, naming the field) when the replica refuses it. */
  register(id: string, body: string): number[] {
    const out: number[] = [];
    const made = this.replica.register(id, body);
    rects(made.subarray(1), out);
    const old = this.local.get(id);
    if (old?.seq != null) rects(this.replica.settle(old.seq, -1), out);
    this.local.delete(id);
    let seq: number | null = made[0]!;
    if (this.server.has(id)) {
      // The server's zone of this id decides.
      rects(this.replica.settle(seq, -1), out);
      seq = null;
    }
    this.local.set(id, { body, seq });
    return out;
  }

  /** This page's zone `id` removed (a zone only the server holds is left alone). */
  unregister(id: string): number[] {
    const out: number[] = [];
    const old = this.local.get(id);
    if (old === undefined) return out;
    if (old.seq !== null) rects(this.replica.settle(old.seq, -1), out);
    this.local.delete(id);
    return out;
  }

  /** This page's zones as `[id, body]` in the order of their operations (shadowed
   * ones last): registered again in this order, they stand as they stand here. */
  locals(): [string, string][] {
    const live = [...this.local].filter(([, z]) => z.seq !== null).sort((a, b) => a[1].seq! - b[1].seq!);
    const shadowed = [...this.local].filter(([, z]) => z.seq === null);
    return [...live, ...shadowed].map(([id, z]) => [id, z.body]);
  }

  /** After a change of the server's zones: shadows this page's zones whose id the
   * server now holds, and brings back those whose id it no longer holds. */
  private reconcile(out: number[]): void {
    const back: string[] = [];
    for (const [id, zone] of this.local) {
      const held = this.server.has(id);
      if (held && zone.seq !== null) {
        rects(this.replica.settle(zone.seq, -1), out);
        zone.seq = null;
      } else if (!held && zone.seq === null) {
        back.push(id);
      }
    }
    // By id: the same order in every copy of the state, whatever its map's order.
    for (const id of back.sort()) {
      const body = this.local.get(id)!.body;
      const made = this.replica.register(id, body);
      rects(made.subarray(1), out);
      // Its operation is now the newest: keep the map in operation order.
      this.local.delete(id);
      this.local.set(id, { body, seq: made[0]! });
    }
  }
}
