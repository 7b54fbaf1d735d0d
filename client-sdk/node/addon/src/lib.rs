//! `terrain-node`: terrain-client's [`terrain_client::LocalTerrain`] for Node.js
//! (napi-rs). The heights are computed by the same Rust code the Rust SDK and the
//! server run, so they are the same bits; this crate only converts arguments.
//!
//! `LocalTerrain.open(url, world)` loads a world from a server and follows its events
//! on the addon's tokio runtime (napi's `tokio_rt`); `LocalTerrain.offline(world,
//! zones)` builds a fixed replica from JSON descriptions with no server. Reads
//! (`heightAt`, `surfaceHeightAt`, `heights`, `surfaceHeights`) are synchronous, from
//! the current snapshot, and so is movement (`terrainInfo`, `terrainInfos`, `checkPath`,
//! `findPath`): the Rust SDK's [`terrain_client::LocalWalk`] by the world's listed
//! walkability rule, the server's answers bit for bit.
//!
//! The snapshot the reads see (the *view*) moves on only on the JavaScript thread:
//! each snapshot the follower publishes is handed over through a threadsafe function,
//! whose callback takes it as the view and then calls the package's `onPublish` with
//! the view's epoch and the rectangles where its zones changed, in one step no
//! JavaScript code runs between. So JavaScript can keep what it read at one epoch
//! (`src/surface.ts` keeps tile surfaces, in the WebAssembly module's `SurfaceStore`;
//! `src/tiles.ts` heights and walkability at tile centres) and know, from what it is
//! handed, the moment and the place that stops being the replica's state.
//!
//! [`hyperscape`] is the native half of the `HyperscapeTerrain` adapter: the original
//! game's point answers, walk grids, and zone changes made in this process that the
//! view shows at once, before the server has them.
//!
//! The files, by concept:
//! - `local_terrain.rs`: the `LocalTerrain` class, what JavaScript holds;
//! - `replica.rs`: the state it shares with the per-call functions (source, view,
//!   epoch, the adapter's overlay) behind one lock;
//! - `fast.rs`: the per-call reads as plain functions of the replica's handle;
//! - `handoff.rs`: the follower's snapshots handed to the JavaScript thread;
//! - `events.rs`: `nextEvent`'s objects;
//! - `options.rs` and `answers.rs`: the objects the class takes and answers;
//! - `errors.rs`: the JavaScript errors and argument checks;
//! - `hyperscape.rs`: the native half of the `HyperscapeTerrain` adapter.
//!
//! The logic without I/O lives in terrain-client, shared with the WebAssembly build
//! (client-sdk/wasm): the JSON of offline replicas (`terrain_client::offline`) and
//! the view with this process's zone changes and the adapter's answers
//! (`terrain_client::view`).

pub mod answers;
mod errors;
mod events;
pub mod fast;
mod handoff;
pub mod hyperscape;
pub mod local_terrain;
pub mod options;
pub mod replica;
