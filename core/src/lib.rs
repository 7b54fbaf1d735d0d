//! Terrain maths, pure and synchronous: no I/O, no async runtime.
//!
//! This crate is the single source of truth for heights. The server answers queries
//! with it and the client SDK links it to answer the same queries locally, bit for bit.
//!
//! - [`generator`]: the [`Generator`] abstraction and the concrete generators
//!   ([`generator::hyperscape`], [`generator::osrs`]), plus [`WorldGenerator`], the
//!   closed set a world can be configured with.
//! - [`layout`]: the optional hub / spoke layout layer: hubs per chunk, corridors
//!   between them and the hub / spoke / wilds classification.
//! - [`mesh`]: tile meshes and the height of the served surface.
//! - [`zones`]: flat zones, their spatial index and the overlap rules.
//! - [`terrain`]: [`Terrain`], a generator with its zones on top: the height every
//!   party must agree on.

pub mod generator;
pub mod layout;
pub mod mesh;
pub mod names;
pub mod terrain;
pub mod tile;
pub mod zones;

pub use generator::{Generator, GeneratorError, GeneratorKind, Grid, GridError, WorldGenerator};
pub use terrain::{Sample, Terrain};
pub use tile::TileLayout;
pub use zones::{FlatZone, Overlap, ZoneSet};
