// Loads the native addon built by scripts/build-addon.mjs (terrain_node.node beside
// package.json), typed by the hand-written addon.d.ts.
//
// The per-call reads `heightAt` and `surfaceHeightAt` are routed through the addon's
// plain functions of the replica's `External` handle (`replicaHeightAt`,
// `replicaSurfaceHeightAt`, crate terrain-node, module `fast`): a napi-rs class method
// pays a borrow-tracking registry on every call, which costs more than the height.
// The handle is read once per object and kept on it under a private symbol.
import { join } from "node:path";
import type * as Addon from "./addon";

/** Path of the addon: TERRAIN_NODE_ADDON when set, else the package's build. */
export const addonPath: string =
  process.env.TERRAIN_NODE_ADDON ?? join(__dirname, "..", "..", "terrain_node.node");

/** What the addon exports beyond addon.d.ts: the handle functions. */
interface Fast {
  replicaHeightAt(handle: unknown, x: number, z: number): number;
  replicaSurfaceHeightAt(handle: unknown, x: number, z: number): number;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require(addonPath) as typeof Addon & Fast;

const HANDLE = Symbol("terrain-node handle");
type WithHandle = Addon.LocalTerrain & { [HANDLE]?: unknown; readonly handle: unknown };

const proto = loaded.LocalTerrain.prototype as WithHandle;
proto.heightAt = function heightAt(this: WithHandle, x: number, z: number): number {
  return loaded.replicaHeightAt(this[HANDLE] ?? (this[HANDLE] = this.handle), x, z);
};
proto.surfaceHeightAt = function surfaceHeightAt(this: WithHandle, x: number, z: number): number {
  return loaded.replicaSurfaceHeightAt(this[HANDLE] ?? (this[HANDLE] = this.handle), x, z);
};

export const addon: typeof Addon = loaded;
