//! Tile meshes in the original game's convention (docs/src/reference/height.md, "Tiles"): vertex positions,
//! heights with flat zones, seamless normals from a bordered grid, the split diagonal,
//! carving under zone floors, and the height of the served surface.
//!
//! - [`tile`]: building one [`TileMesh`].
//! - [`glb`]: a tile mesh as binary glTF 2.0.
//! - [`simplify`]: a mesh simplified to a maximum vertical error (levels of detail).
//! - [`surface`]: the height on the triangle mesh under a point (what a player sees).

pub mod glb;
pub mod simplify;
pub mod surface;
pub mod tile;

pub use glb::{GlbError, to_glb};
pub use simplify::{HeightGrid, Simplified, simplify_grid, simplify_tile, skirt_depth};
pub use surface::{SurfaceTile, SurfaceTiles, surface_height};
pub use tile::{Indices, TileMesh, build_tile};
