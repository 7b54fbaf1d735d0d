// The terrain server's Node.js SDK.
//
// - `LocalTerrain`: a bit-exact local replica of one world (the Rust SDK's, as a native
//   addon): `await LocalTerrain.open(url, world)`, then `heightAt(x, z)` synchronously.
import type * as Addon from "./addon";
import { addon } from "./native";

export type { EventBounds, FindOptions, FoundPath, LocalEvent, OpenOptions, PathCheck, TerrainInfo, TileMesh } from "./addon";
export const LocalTerrain: typeof Addon.LocalTerrain = addon.LocalTerrain;
export type LocalTerrain = Addon.LocalTerrain;
export { MAX_TOWNS, MAX_WALK_GRID_SIDE, MAX_WALK_GRID_TILES, addonPath, usingWasm } from "./native";

// - `TerrainClient`: a typed gRPC client of every service in proto/terrain/v1.
export {
  DEFAULT_RETRY,
  MUTATIONS,
  RETRIED_CODES,
  type ClientOptions,
  type RetryPolicy,
  TerrainClient,
  TerrainError,
  retryDelay,
} from "./client";
// - `Subscription`: a world's events, resumed across reconnections; `ViewerTracker`: a
//   TrackViewers stream.
export { type Area, Subscription, type SubscriptionEvent, type SubscriptionOptions } from "./subscription";
export { type Viewer, ViewerTracker } from "./tracker";
export { Code } from "@connectrpc/connect";
// The generated messages and enums (e.g. HeightMode), for building requests.
export * as pb from "./gen/terrain/v1/terrain_pb";
export * as events from "./gen/terrain/v1/events_pb";
export * as lifecycle from "./gen/terrain/v1/lifecycle_pb";
// - `HyperscapeTerrain`: the Hyperscape game's `TerrainSystem` API over the replica (also
//   `terrain-client/hyperscape`).
export { HyperscapeTerrain } from "./hyperscape";
