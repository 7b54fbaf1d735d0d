//! [`WorldGenerator`]: the closed set of generators a world can be configured with,
//! dispatched statically.

use std::ops::Range;

use super::{Generator, Grid, hyperscape::Hyperscape, osrs::Osrs};

/// The generator families a world can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeneratorKind {
    /// The Hyperscape island terrain (seeds 000/001).
    Hyperscape,
    /// The old RuneScape client's procedural tile heights (seed 002).
    Osrs,
}

crate::names::named_enum!(GeneratorKind, "generator", {
    Hyperscape => "hyperscape",
    Osrs => "osrs",
});

/// A configured generator of one world.
#[derive(Debug, Clone)]
pub enum WorldGenerator {
    /// Boxed: the permutation table makes it large, and worlds hold it behind one
    /// pointer anyway.
    Hyperscape(Box<Hyperscape>),
    Osrs(Osrs),
}

/// Why a generator could not be built from its configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeneratorError {
    #[error("seed: the osrs generator has no seed; it must be 0 (got {0})")]
    OsrsSeed(u32),
}

impl WorldGenerator {
    /// Builds the generator of `kind` with `seed`.
    pub fn new(kind: GeneratorKind, seed: u32) -> Result<Self, GeneratorError> {
        match kind {
            GeneratorKind::Hyperscape => Ok(Self::Hyperscape(Box::new(Hyperscape::new(seed)))),
            GeneratorKind::Osrs if seed == 0 => Ok(Self::Osrs(Osrs::new())),
            GeneratorKind::Osrs => Err(GeneratorError::OsrsSeed(seed)),
        }
    }

    pub fn kind(&self) -> GeneratorKind {
        match self {
            Self::Hyperscape(_) => GeneratorKind::Hyperscape,
            Self::Osrs(_) => GeneratorKind::Osrs,
        }
    }

    /// The mesh tile grid: 100 m hyperscape tiles centred on multiples of 100 with 64
    /// vertices a side; 64-tile osrs map squares from multiples of 64, 65 vertices.
    pub fn tile_grid(&self) -> crate::tile::TileGrid {
        crate::tile::TileGrid {
            size: self.tile_size(),
            resolution: self.tile_resolution(),
            centred: matches!(self, Self::Hyperscape(_)),
        }
    }

    /// Edge length of one mesh tile in world units: 100 m for hyperscape; 64 tiles (one
    /// map square) for osrs.
    pub fn tile_size(&self) -> f64 {
        match self {
            Self::Hyperscape(_) => super::hyperscape::TILE_SIZE,
            Self::Osrs(_) => super::osrs::TILE_SIZE,
        }
    }

    /// Vertices along one edge of a tile mesh: 64 for hyperscape; 65 for osrs (one per
    /// tile corner of a map square).
    pub fn tile_resolution(&self) -> u32 {
        match self {
            Self::Hyperscape(_) => super::hyperscape::TILE_RESOLUTION,
            Self::Osrs(_) => super::osrs::TILE_RESOLUTION,
        }
    }
}

impl Generator for WorldGenerator {
    fn height(&self, x: f64, z: f64) -> f64 {
        match self {
            Self::Hyperscape(g) => g.height(x, z),
            Self::Osrs(g) => g.height(x, z),
        }
    }

    fn procedural(&self, x: f64, z: f64) -> f64 {
        match self {
            Self::Hyperscape(g) => g.procedural(x, z),
            Self::Osrs(g) => g.procedural(x, z),
        }
    }

    fn height_near_zones(&self, x: f64, z: f64, zone_at: &dyn Fn(f64, f64) -> Option<f64>) -> f64 {
        match self {
            Self::Hyperscape(g) => g.height_near_zones(x, z, zone_at),
            Self::Osrs(g) => g.height_near_zones(x, z, zone_at),
        }
    }

    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        match self {
            Self::Hyperscape(g) => g.fill_axes(xs, zs, out),
            Self::Osrs(g) => g.fill_axes(xs, zs, out),
        }
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        match self {
            Self::Hyperscape(g) => g.fill_rows(grid, rows, out),
            Self::Osrs(g) => g.fill_rows(grid, rows, out),
        }
    }
}
