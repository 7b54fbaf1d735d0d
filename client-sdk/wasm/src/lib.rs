//! `terrain-wasm`: terrain-client's replica logic as one WebAssembly module
//! (wasm-bindgen), for every browser and for Node on every OS. The answers are
//! computed by terrain-core's own maths (libm, never the host's `Math`), so they are
//! the server's bits; the module holds no I/O and no unsafe code of its own.
//!
//! One export, [`Replica`]: a world's terrain built from its listing JSON (`GET
//! /v1/worlds`, `ListWorlds`) and its zones JSON (`GET /v1/worlds/{w}/flat-zones`), as
//! Node's `LocalTerrain.offline` builds it (terrain-client's `offline` module). Its
//! state changes only through the *sink* a follower drives, each step answering the
//! changed-bounds handoff `[epoch, n, minX, minZ, maxX, maxZ, ...]` (terrain-client's
//! `View::rebuild`):
//!
//! - `reset(revision, zones)`: the server's whole zone list at `revision` (a snapshot,
//!   or a resync);
//! - `put(revision, zone)`: one zone registered or replaced at `revision`;
//! - `remove(revision, id)`: zone `id` removed at `revision`.
//!
//! The reads mirror the Node addon's handle functions (crate terrain-node, modules
//! `fast` and `hyperscape`; client-sdk/node/src/native.ts's `Fast`), through the same
//! terrain-client functions: heights (exact, procedural, surface), normals,
//! walkability, terrain info, the walk grid, paths, biome and difficulty, zones, the
//! Hyperscape adapter's local registrations, tile surfaces, tile meshes and voxel
//! chunks. Point answers are numbers or typed arrays the caller passes and reuses;
//! objects travel as JSON.
//!
//! The files: `replica.rs` (the class and its sink), `reads.rs` (its reads),
//! `surface.rs` (`SurfaceStore`: tile surfaces held for the native addon's replica;
//! the limits as free functions).

pub mod maths;
mod reads;
mod replica;
mod surface;

pub use replica::Replica;
pub use surface::{
    SurfaceStore, max_towns, max_walk_grid_side, max_walk_grid_tiles, surface_tile_reads,
};

/// An error thrown to JavaScript: an `Error` whose message names the field, as the
/// Node addon's (`x: must be finite`).
pub(crate) fn js_error(message: impl std::fmt::Display) -> wasm_bindgen::JsError {
    wasm_bindgen::JsError::new(&message.to_string())
}
