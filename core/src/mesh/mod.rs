//! Tile meshes in the original game's convention (ALGORITHM.md §6): vertex positions,
//! heights with flat zones, seamless normals from a bordered grid, the split diagonal,
//! carving under zone floors, and the height of the served surface.
//!
//! - [`tile`]: building one [`TileMesh`].
//! - [`glb`]: a tile mesh as binary glTF 2.0.
//! - [`surface`]: the height on the triangle mesh under a point (what a player sees).

pub mod glb;
pub mod surface;
pub mod tile;

pub use glb::{GlbError, to_glb};
pub use surface::{SurfaceTile, SurfaceTiles, surface_height};
pub use tile::{Indices, TileMesh, build_tile};
