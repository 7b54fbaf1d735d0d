//! Terrain maths, pure and synchronous: no I/O, no async runtime.
//!
//! This crate is the single source of truth for heights. The server answers queries
//! with it and the client SDK links it to answer the same queries locally, bit for bit.
//!
//! - [`generator`]: the [`Generator`] abstraction and the concrete generators
//!   ([`generator::hyperscape`], [`generator::osrs`]), plus [`WorldGenerator`], the
//!   closed set a world can be configured with.

pub mod generator;

pub use generator::{Generator, GeneratorError, GeneratorKind, Grid, GridError, WorldGenerator};
