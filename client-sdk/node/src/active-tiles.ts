// The tiles the server's chunk lifecycle holds active in a world (the union of every
// viewer's active ring, as `GET /v1/worlds/{w}/live-tiles` lists them), kept current
// for `HyperscapeTerrain.getActiveChunks` from a TrackViewers stream that only listens:
// its first message names the world and changes nothing (the server asks no token of
// such a stream), then the request side is closed and the server sends a snapshot and
// every transition after it. A stream that fails is opened again after a backoff; its
// snapshot replaces what was held. Until then the last tiles known are answered.
import type { TerrainClient } from "./client";
import { type Backoff, backoffDelay, sleep } from "./follow/http";
import { type LifecycleEvent, Ring, TransitionKind } from "./gen/terrain/v1/lifecycle_pb";
import type { TileKey } from "./gen/terrain/v1/terrain_pb";

/** A tile of the original's `getActiveChunks`: its 100 m tile key. */
export interface ActiveChunk {
  x: number;
  z: number;
}

/** The waits before a failed stream is opened again: 100 ms, doubling, at most 5 s. */
const BACKOFF: Backoff = { initialMs: 100, maxMs: 5_000 };

export class ActiveTiles {
  /** `"x,z"` -> the tile, in no particular order. */
  private readonly tiles = new Map<string, ActiveChunk>();
  /** The tiles sorted row-major (z, then x), until they change. */
  private sorted: ActiveChunk[] | undefined;
  private readonly abort = new AbortController();
  private failures = 0;

  private constructor(
    private readonly client: TerrainClient,
    readonly world: string,
    private readonly onError: (e: Error) => void,
  ) {}

  /**
   * Follows `world`'s active tiles; resolves once the first snapshot is held, rejects
   * (the stream closed) when none arrives within `timeoutMs` or the first stream
   * fails. Later failures go to `onError` and the stream is opened again.
   */
  static async open(client: TerrainClient, world: string, timeoutMs: number, onError: (e: Error) => void): Promise<ActiveTiles> {
    const tiles = new ActiveTiles(client, world, onError);
    let first!: { resolve: () => void; reject: (e: Error) => void };
    const held = new Promise<void>((resolve, reject) => {
      first = { resolve, reject };
    });
    const timer = setTimeout(
      () => first.reject(new Error(`world ${world}: no live tiles from the server's chunk lifecycle (TrackViewers) within ${timeoutMs} ms`)),
      timeoutMs,
    );
    void tiles.run(first);
    try {
      await held;
      return tiles;
    } catch (e) {
      tiles.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The active tiles, row-major: a new array of new `{x, z}` objects per call. */
  chunks(): ActiveChunk[] {
    if (this.sorted === undefined) {
      this.sorted = [...this.tiles.values()].sort((a, b) => a.z - b.z || a.x - b.x);
    }
    return this.sorted.map((t) => ({ x: t.x, z: t.z }));
  }

  /** Stops following. Idempotent. */
  close(): void {
    this.abort.abort();
  }

  private async run(first: { resolve: () => void; reject: (e: Error) => void } | undefined): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        const world = this.world;
        const listen = (async function* () {
          yield { world };
        })();
        for await (const event of this.client.trackViewers(listen, { signal })) {
          if (this.apply(event) && first !== undefined) {
            first.resolve();
            first = undefined;
          }
          this.failures = 0;
        }
        if (signal.aborted) return;
        throw new Error(`world ${this.world}: the server ended the live-tiles stream`);
      } catch (e) {
        if (signal.aborted) return;
        const error = e instanceof Error ? e : new Error(String(e));
        if (first !== undefined) {
          first.reject(error);
          return;
        }
        // Whatever failed (the server restarting, the world gone), the server may come
        // back with it: keep trying, at most every 5 s. Said once a streak: the tries
        // that follow stay quiet until one holds.
        if (this.failures === 0) this.onError(error);
        this.failures++;
        await sleep(backoffDelay(BACKOFF, this.failures), signal);
      }
    }
  }

  /** Applies one event; true when it was a snapshot. */
  private apply(event: LifecycleEvent): boolean {
    const key = (t: TileKey): ActiveChunk => ({ x: Number(t.x), z: Number(t.z) });
    switch (event.kind.case) {
      case "snapshot": {
        this.tiles.clear();
        for (const t of event.kind.value.tiles?.active ?? []) {
          const k = key(t);
          this.tiles.set(`${k.x},${k.z}`, k);
        }
        this.sorted = undefined;
        return true;
      }
      case "transitions":
        for (const tr of event.kind.value.transitions) {
          // A transition without its tile names none: skipped, never taken for (0, 0).
          if (tr.ring !== Ring.ACTIVE || tr.tile === undefined) continue;
          const k = key(tr.tile);
          if (tr.kind === TransitionKind.ENTERED) this.tiles.set(`${k.x},${k.z}`, k);
          else if (tr.kind === TransitionKind.LEFT) this.tiles.delete(`${k.x},${k.z}`);
          else continue;
          this.sorted = undefined;
        }
        return false;
      default:
        return false;
    }
  }
}
