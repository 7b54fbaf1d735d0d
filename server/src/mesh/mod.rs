//! Tile meshes: a bounded cache of built meshes shared by every world, and the commit
//! listener that keeps cached tiles current.
//!
//! - A tile's mesh is a [`CachedMesh`]: the heightfield [`TileMesh`](terrain_core::mesh::TileMesh) of hyperscape and
//!   osrs worlds, or the greedy [`ChunkMesh`] of a voxel world's chunk (its tile),
//!   whichever the world's terrain builds; both are cached, versioned and rebuilt on
//!   commit alike.
//! - A request reads the world's state (terrain and tile versions of one revision)
//!   and asks the cache for the tile at that version. A cached mesh at that version
//!   or newer is a hit; otherwise the mesh is built on the compute pool from the
//!   state the request read. Calls for the same tile are serialised by the cache's
//!   per-key lock, so concurrent requests for one uncached tile build it once: the
//!   first builds, the others find its mesh.
//! - The cache holds at most `limits.mesh_cache_bytes` of mesh data (positions,
//!   normals, indices and f64 heights), evicting the least useful tiles first (moka's
//!   TinyLFU).
//! - Live tiles are pinned: a tile the lifecycle built because it turned active
//!   ([`MeshCache::prefetch_live`]) stays servable from memory until it is culled
//!   ([`MeshCache::release`]), even if the cache evicted it meanwhile, so a mesh asked
//!   for right after its tile turned active is always a hit. What is pinned is bounded
//!   by the lifecycle: the live tiles of every world together may take at most
//!   `mesh_cache_bytes` (a viewer whose rings would need more is refused), so meshes
//!   take at most twice `mesh_cache_bytes` (the cache, plus pinned tiles it evicted).
//! - Each cached tile also keeps the response bodies encoded from it, per format
//!   (`encoded`): a warm request copies bytes and encodes nothing. They count in
//!   the cache's budget.
//! - Simplified meshes (a `maxError` above 0, [`MeshCache::simplified`]) are kept in a
//!   cache of their own, by tile and error, holding at most a quarter of
//!   `limits.mesh_cache_bytes`; an entry is served only for the tile version it was
//!   simplified from, and is made from the full-detail mesh this cache serves.
//! - [`MeshCache`] is also a [`CommitListener`](crate::world::CommitListener): after a change commits (the world's
//!   state already shows the new heights and versions), it starts rebuilding the
//!   affected tiles that are cached, in parallel on the compute pool (one request of
//!   one slice per tile, taking turns with the others), and returns without waiting
//!   for them, so a change over many hot tiles is acknowledged as fast as one over a
//!   single tile. Before it returns (before the change is acknowledged or announced)
//!   each rebuild is registered under its tile and version: a request that needs the
//!   new version meanwhile waits for that rebuild instead of building the tile again,
//!   and is served the rebuilt mesh. A stale mesh is never served (its version is too
//!   old), whether or not a rebuild is under way. A rebuild a later change replaced
//!   before the pool reached it is skipped, so changes streaming into one tile cost
//!   the pool the builds requests are served, not one per change (before, tile
//!   requests under such a stream queued behind every superseded rebuild and timed
//!   out).

mod cache;
mod encoded;
mod error;
mod listener;
mod served;
pub mod tiles3d;

pub use cache::MeshCache;
pub use encoded::{Encodings, MeshFormat};
pub use error::MeshError;
pub use served::{CachedMesh, ChunkMesh, ServedMesh, encode_glb, mesh_bytes, tile_mesh_bytes};

use crate::sync::locked;

#[cfg(test)]
mod tests;
