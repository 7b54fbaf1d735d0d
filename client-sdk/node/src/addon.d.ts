// Hand-written types of the native addon (crate terrain-node, client-sdk/node/addon/src/lib.rs):
// what `require("terrain_node.node")` exports. Keep in step with the #[napi] items there.

/** Options of {@link LocalTerrain.open}. */
export interface OpenOptions {
  /** PEM file of the CA that signed the server's certificate (for `https://` URLs). */
  caFile?: string;
  /** Connect timeout in milliseconds. */
  connectTimeoutMs?: number;
}

/**
 * A local replica of one world: heights computed in-process by the Rust SDK's code,
 * bit for bit what the server answers at {@link LocalTerrain.revision}.
 */
export declare class LocalTerrain {
  private constructor();
  /** Connects to `url` (`http://host:port`), loads `world` and follows its events. */
  static open(url: string, world: string, options?: OpenOptions | null): Promise<LocalTerrain>;
  /**
   * A fixed replica with no server: `world` is one world of `GET /v1/worlds` as JSON,
   * `zones` the JSON answer of `GET /v1/worlds/{world}/flat-zones` (or its zone array).
   */
  static offline(world: string, zones: string): LocalTerrain;
  /** The world's id. */
  readonly world: string;
  /** Whether the replica follows a server (false for offline ones). */
  readonly live: boolean;
  /** The world revision the replica reflects. */
  readonly revision: number;
  /** The exact height at (x, z). */
  heightAt(x: number, z: number): number;
  /** The surface-mode height at (x, z): the served mesh's triangle under the point. */
  surfaceHeightAt(x: number, z: number): number;
  /** Exact heights of `[x0, z0, x1, z1, ...]` (read in place), at one snapshot. */
  heights(points: Float64Array): Float64Array;
  /** Surface-mode heights of `[x0, z0, x1, z1, ...]`, at one snapshot. */
  surfaceHeights(points: Float64Array): Float64Array;
  /** The id of the flat zone deciding the height at (x, z), or null. */
  zoneAt(x: number, z: number): string | null;
  /** Resolves once the replica reflects `revision` or later, with the revision reached. */
  waitForRevision(revision: number): Promise<number>;
  /** Stops following; later calls throw. Idempotent. */
  close(): void;
}
