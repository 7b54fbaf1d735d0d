//! Terrain maths, pure and synchronous: no I/O, no async runtime.
//!
//! This crate is the single source of truth for heights. The server answers queries
//! with it and the client SDK links it to answer the same queries locally, bit for bit.
//!
//! - [`coordinate`]: the range point answers are defined over ([`COORDINATE_LIMIT`])
//!   and the check every surface applies to a coordinate before asking.
//! - [`generator`]: the [`Generator`] abstraction and the concrete generators
//!   ([`generator::hyperscape`], [`generator::osrs`], [`voxel`]), plus [`WorldGenerator`], the
//!   closed set a world can be configured with.
//! - [`layout`]: the optional hub / spoke layout layer: hubs per chunk, corridors
//!   between them and the hub / spoke / wilds classification.
//! - [`mesh`]: tile meshes and the height of the served surface.
//! - [`voxel`]: the voxel block world ([`voxel::Voxel`]): chunks of blocks, their
//!   binary form, culled instances and greedy meshes.
//! - [`zones`]: flat zones, their spatial index and the overlap rules.
//! - [`terrain`]: [`Terrain`], a generator with its zones on top: the height every
//!   party must agree on.
//! - [`walk`]: movement authority: terrain info (slope, biome, water, walkable and
//!   why not) by a world's walkability rule, path checks and bounded path finding.
//! - [`world`]: [`build_terrain`], the one function that turns a world's description
//!   ([`WorldSpec`]: generator, seed, overlap rule, layout) and its zones into its
//!   [`Terrain`], used by the server and the SDK's local replica alike.

pub mod coordinate;
pub mod generator;
pub mod jsmath;
pub mod layout;
pub mod mesh;
pub mod names;
pub mod quote;
pub mod terrain;
pub mod tile;
pub mod tiles3d;
pub mod voxel;
pub mod walk;
pub mod world;
pub mod zones;

pub use coordinate::{COORDINATE_LIMIT, check_coordinate};
pub use generator::{Generator, GeneratorError, GeneratorKind, Grid, GridError, WorldGenerator};
pub use terrain::{Sample, Terrain};
pub use tile::{Tile, TileGrid, TileRect};
pub use world::{BuildError, WorldSpec, build_terrain};
pub use zones::{FlatZone, Overlap, ZoneSet};
