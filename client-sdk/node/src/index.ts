// The terrain server's Node.js SDK.
//
// - `LocalTerrain`: a bit-exact local replica of one world (the Rust SDK's, as a native
//   addon): `await LocalTerrain.open(url, world)`, then `heightAt(x, z)` synchronously.
import type * as Addon from "./addon";
import { addon } from "./native";

export type { OpenOptions } from "./addon";
export const LocalTerrain: typeof Addon.LocalTerrain = addon.LocalTerrain;
export type LocalTerrain = Addon.LocalTerrain;
export { addonPath } from "./native";
