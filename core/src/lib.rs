//! Terrain maths, pure and synchronous: no I/O, no async runtime.
//!
//! This crate is the single source of truth for heights. The server answers queries
//! with it and the client SDK links it to answer the same queries locally, bit for bit.
//!
//! # Layers
//!
//! Every top-level module belongs to one layer and names (through `crate::`, `super::`
//! or a re-export) only modules of its own layer or below, with no loop among them;
//! `src/layers.rs` reads the sources and fails on an upward name or a loop. Lowest
//! first:
//!
//! 1. **support**: [`names`], [`quote`], [`coordinate`], [`maths`]: names of closed
//!    choices, echoing input in messages, the coordinate range, generic maths.
//! 2. **zones**: [`zones`]: flat zones and their overlap rules, generator-agnostic (a
//!    zone blends toward whatever height it is given).
//! 3. **tiles**: [`tile`]: how the ground is cut into mesh tiles and where their
//!    vertices lie.
//! 4. **generators**: [`generator`]: the [`Generator`] trait, the three generators side
//!    by side (hyperscape, osrs, voxel) and [`WorldGenerator`], the enum that picks one.
//! 5. **layout**: [`layout`]: hubs and spokes flattened into a generator's ground.
//! 6. **terrain**: [`terrain`]: a generator, its layout and its zones, composed.
//! 7. **world**: [`world`]: a world's description built into its terrain.
//! 8. **meshes**: [`mesh`]: tile meshes, their simplification, glTF and the served
//!    surface.
//! 9. **tilesets**: [`tiles3d`]: 3D Tiles grids and contents, built from meshes.
//! 10. **movement**: [`walk`]: walkability, path checks and path finding.
//!
//! # Modules
//!
//! - [`names`]: the names of the core's closed choices (generator kind, overlap rule,
//!   layout pattern, spoke rule, voxel kinds), defined once with their enum, and
//!   [`names::UnknownName`], the refusal that lists them.
//! - [`quote`]: echoing input in messages, cut short ([`quote::Quoted`], [`quote::Num`]).
//! - [`coordinate`]: the range point answers are defined over ([`COORDINATE_LIMIT`])
//!   and the check every surface applies to a coordinate before asking.
//! - [`maths`]: generic maths, owned by no generator: the smoothstep and the normals
//!   of a height grid.
//!   - [`jsmath`] (`maths::jsmath`, also at its old path `terrain_core::jsmath`):
//!     JavaScript's `pow`, `sin` and `cos` as the original's engine computes them.
//! - [`zones`]: flat zones, their JSON forms and zone files, tile masks, their spatial
//!   index and the overlap rules.
//! - [`tile`]: the tile layout ([`TileGrid`]), vertex and sample coordinates, and which
//!   tiles a change to an area touches.
//! - [`generator`]: the [`Generator`] abstraction and [`Grid`]; the concrete generators
//!   [`generator::hyperscape`], [`generator::osrs`] and [`generator::voxel`] (the voxel
//!   block world: chunks of blocks, their binary form, culled instances and greedy
//!   meshes; also at its old path, [`voxel`]); and [`WorldGenerator`], the closed set a
//!   world can be configured with.
//! - [`layout`]: the optional hub / spoke layout layer: hubs per chunk, corridors
//!   between them and the hub / spoke / wilds classification.
//! - [`terrain`]: [`Terrain`], a generator with its layout and zones on top: the height
//!   every party must agree on.
//! - [`world`]: [`build_terrain`], the one function that turns a world's description
//!   ([`WorldSpec`]: generator, seed, overlap rule, layout) and its zones into its
//!   [`Terrain`], used by the server and the SDK's local replica alike.
//! - [`mesh`]: tile meshes, their simplification to an error bound, their glTF form
//!   and the height of the served surface.
//! - [`tiles3d`]: far terrain as a 3D Tiles 1.1 tileset: the implicit quadtree, each
//!   level's error-bounded grids and their contents.
//! - [`walk`]: movement authority: terrain info (slope, biome, water, walkable and
//!   why not) by a world's walkability rule, path checks and bounded path finding.

// In layer order, lowest first (see "Layers" above).
// support
pub mod coordinate;
pub mod maths;
pub mod names;
pub mod quote;
// zones
pub mod zones;
// tiles
pub mod tile;
// generators
pub mod generator;
// layout
pub mod layout;
// terrain
pub mod terrain;
// world
pub mod world;
// meshes
pub mod mesh;
// tilesets
pub mod tiles3d;
// movement
pub mod walk;

#[cfg(test)]
mod layers;

pub use coordinate::{COORDINATE_LIMIT, check_coordinate};
pub use generator::voxel;
pub use generator::{Generator, GeneratorError, GeneratorKind, Grid, GridError, WorldGenerator};
pub use maths::jsmath;
pub use terrain::{Sample, Terrain};
pub use tile::{Tile, TileGrid, TileRect};
pub use world::{BuildError, WorldSpec, build_terrain};
pub use zones::{FlatZone, Overlap, ZoneSet};
