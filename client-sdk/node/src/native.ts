// Loads the native addon built by scripts/build-addon.mjs (terrain_node.node beside
// package.json), typed by the hand-written addon.d.ts.
//
// The per-call reads are routed past napi-rs's class methods, which pay a
// borrow-tracking registry on every call (more than the height itself):
// - `heightAt` through the addon's plain function of the replica's `External` handle
//   (`replicaHeightAt`, crate terrain-node, module `fast`);
// - `surfaceHeightAt` is answered in JavaScript from the tile surfaces the addon hands
//   over (src/surface.ts), with no call into the addon for a kept tile. For that,
//   `LocalTerrain.open` passes the addon the callback that tells the kept tiles when
//   the replica's view moves on, and `close` tells them the replica is closed.
// The handle and the kept tiles are created once per object and kept on it under
// private symbols.
import { join } from "node:path";
import type * as Addon from "./addon";
import { type SurfaceAddon, SurfaceTiles } from "./surface";

/** Path of the addon: TERRAIN_NODE_ADDON when set, else the package's build. */
export const addonPath: string =
  process.env.TERRAIN_NODE_ADDON ?? join(__dirname, "..", "..", "terrain_node.node");

/** What the addon exports beyond addon.d.ts: the handle functions. */
interface Fast extends SurfaceAddon {
  replicaHeightAt(handle: unknown, x: number, z: number): number;
}

/** The addon's `open`: the public one's arguments and the view's hand-over callback. */
type RawOpen = (
  url: string,
  world: string,
  options: Addon.OpenOptions | null | undefined,
  onPublish: (epoch: number) => void,
) => Promise<Addon.LocalTerrain>;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require(addonPath) as typeof Addon & Fast;

const HANDLE = Symbol("terrain-node handle");
const SURFACE = Symbol("terrain-node surface tiles");
type WithHandle = Addon.LocalTerrain & {
  [HANDLE]?: unknown;
  [SURFACE]?: SurfaceTiles;
  readonly handle: unknown;
};

function surfaceOf(terrain: WithHandle): SurfaceTiles {
  return (terrain[SURFACE] = new SurfaceTiles(loaded, terrain[HANDLE] ?? (terrain[HANDLE] = terrain.handle)));
}

const proto = loaded.LocalTerrain.prototype as WithHandle;
proto.heightAt = function heightAt(this: WithHandle, x: number, z: number): number {
  return loaded.replicaHeightAt(this[HANDLE] ?? (this[HANDLE] = this.handle), x, z);
};
proto.surfaceHeightAt = function surfaceHeightAt(this: WithHandle, x: number, z: number): number {
  return (this[SURFACE] ?? surfaceOf(this)).heightAt(x, z);
};
const rawClose = proto.close;
proto.close = function close(this: WithHandle): void {
  rawClose.call(this);
  this[SURFACE]?.closed();
};

const rawOpen = loaded.LocalTerrain.open as unknown as RawOpen;
loaded.LocalTerrain.open = async function open(
  url: string,
  world: string,
  options?: Addon.OpenOptions | null,
): Promise<Addon.LocalTerrain> {
  let tiles: SurfaceTiles | undefined;
  const terrain = await rawOpen.call(loaded.LocalTerrain, url, world, options, (epoch: number) => tiles?.published(epoch));
  // Hand-overs before this line need no telling: new tiles read the epoch first.
  tiles = surfaceOf(terrain as WithHandle);
  return terrain;
};

export const addon: typeof Addon = loaded;

/** How many tile surfaces `surfaceHeightAt` keeps for `terrain` (for the tests). */
export function keptSurfaceTiles(terrain: Addon.LocalTerrain): number {
  return (terrain as WithHandle)[SURFACE]?.kept ?? 0;
}
