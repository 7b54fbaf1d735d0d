//! [`WorldGenerator`]: the closed set of generators a world can be configured with,
//! dispatched statically, and [`GeneratorKind`], its names. Apart from the trait
//! ([`super::Generator`]) and from the generators themselves: the one module of
//! `generator` that names all three.

use std::ops::Range;

use super::voxel::{self, Voxel, VoxelConfig};
use super::{Generator, Grid, hyperscape::Hyperscape, osrs::Osrs};

/// The generator families a world can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeneratorKind {
    /// The Hyperscape island terrain (seeds 000/001).
    Hyperscape,
    /// The old RuneScape client's procedural tile heights (docs/src/reference/osrs.md).
    Osrs,
    /// The voxel block world (docs/src/reference/voxel.md).
    Voxel,
}

crate::names::named_enum!(GeneratorKind, "generator", {
    Hyperscape => "hyperscape",
    Osrs => "osrs",
    Voxel => "voxel",
});

/// A configured generator of one world.
#[derive(Debug, Clone)]
pub enum WorldGenerator {
    /// Boxed: the permutation table makes it large, and worlds hold it behind one
    /// pointer anyway.
    Hyperscape(Box<Hyperscape>),
    Osrs(Osrs),
    /// Boxed: noise tables.
    Voxel(Box<Voxel>),
}

/// Why a generator could not be built from its configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeneratorError {
    #[error("seed: the osrs generator has no seed; it must be 0 (got {0})")]
    OsrsSeed(u32),
    #[error(transparent)]
    Voxel(#[from] voxel::VoxelConfigError),
    #[error("voxel: only a voxel world takes voxel parameters (this one is {0})")]
    VoxelParameters(GeneratorKind),
    #[error("layout: a voxel world has no layout layer (its heights are whole blocks)")]
    VoxelLayout,
}

impl GeneratorError {
    /// The setting the error is about: `seed`, `voxel`, a `voxel.*` key or `layout`.
    pub fn field(&self) -> &'static str {
        match self {
            GeneratorError::OsrsSeed(_) => "seed",
            GeneratorError::Voxel(e) => e.field(),
            GeneratorError::VoxelParameters(_) => "voxel",
            GeneratorError::VoxelLayout => "layout",
        }
    }
}

impl WorldGenerator {
    /// Builds the generator of `kind` with `seed` (a voxel world with the default
    /// [`VoxelConfig`]; [`WorldGenerator::voxel`] takes one).
    pub fn new(kind: GeneratorKind, seed: u32) -> Result<Self, GeneratorError> {
        match kind {
            GeneratorKind::Hyperscape => Ok(Self::Hyperscape(Box::new(Hyperscape::new(seed)))),
            GeneratorKind::Osrs if seed == 0 => Ok(Self::Osrs(Osrs::new())),
            GeneratorKind::Osrs => Err(GeneratorError::OsrsSeed(seed)),
            GeneratorKind::Voxel => Self::voxel(seed, VoxelConfig::default()),
        }
    }

    /// The voxel generator of `seed` with `config`.
    pub fn voxel(seed: u32, config: VoxelConfig) -> Result<Self, GeneratorError> {
        Ok(Self::Voxel(Box::new(Voxel::new(seed, config)?)))
    }

    /// The voxel generator, when this is one.
    pub fn as_voxel(&self) -> Option<&Voxel> {
        match self {
            Self::Voxel(v) => Some(v),
            _ => None,
        }
    }

    pub fn kind(&self) -> GeneratorKind {
        match self {
            Self::Hyperscape(_) => GeneratorKind::Hyperscape,
            Self::Osrs(_) => GeneratorKind::Osrs,
            Self::Voxel(_) => GeneratorKind::Voxel,
        }
    }

    /// A proven range of this generator's heights and procedural heights at every
    /// point of the rectangle `[x0, x1] x [z0, z1]`: the island's from its formula
    /// ([`Hyperscape::height_bounds`]), an osrs world's from its tile heights (10 to 60
    /// sixteenths of a metre, blended bilinearly), a voxel world's its block range (0 to
    /// `max_height`: a column's top, zones rounded to whole blocks within it).
    pub fn height_bounds(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> (f64, f64) {
        match self {
            Self::Hyperscape(h) => h.height_bounds(x0, z0, x1, z1),
            Self::Osrs(_) => super::osrs::height_bounds(),
            Self::Voxel(v) => (0.0, f64::from(v.config().max_height)),
        }
    }

    /// The mesh tile grid: 100 m hyperscape tiles centred on multiples of 100 with 64
    /// vertices a side; 64-tile osrs map squares from multiples of 64, 65 vertices;
    /// voxel chunks of 32 blocks from multiples of 32, 33 vertices (block corners).
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
            Self::Voxel(_) => voxel::CHUNK as f64,
        }
    }

    /// Vertices along one edge of a tile mesh: 64 for hyperscape; 65 for osrs (one per
    /// tile corner of a map square).
    pub fn tile_resolution(&self) -> u32 {
        match self {
            Self::Hyperscape(_) => super::hyperscape::TILE_RESOLUTION,
            Self::Osrs(_) => super::osrs::TILE_RESOLUTION,
            Self::Voxel(_) => voxel::CHUNK as u32 + 1,
        }
    }
}

impl Generator for WorldGenerator {
    fn height(&self, x: f64, z: f64) -> f64 {
        match self {
            Self::Hyperscape(g) => g.height(x, z),
            Self::Osrs(g) => g.height(x, z),
            Self::Voxel(g) => g.height(x, z),
        }
    }

    fn procedural(&self, x: f64, z: f64) -> f64 {
        match self {
            Self::Hyperscape(g) => g.procedural(x, z),
            Self::Osrs(g) => g.procedural(x, z),
            Self::Voxel(g) => g.procedural(x, z),
        }
    }

    fn height_near_zones(&self, x: f64, z: f64, zone_at: &dyn Fn(f64, f64) -> Option<f64>) -> f64 {
        match self {
            Self::Hyperscape(g) => g.height_near_zones(x, z, zone_at),
            Self::Osrs(g) => g.height_near_zones(x, z, zone_at),
            Self::Voxel(g) => g.height_near_zones(x, z, zone_at),
        }
    }

    fn height_near_zones_from(
        &self,
        procedural: f64,
        x: f64,
        z: f64,
        zone_at: &dyn Fn(f64, f64) -> Option<f64>,
    ) -> f64 {
        match self {
            Self::Hyperscape(g) => g.height_near_zones_from(procedural, x, z, zone_at),
            Self::Osrs(g) => g.height_near_zones_from(procedural, x, z, zone_at),
            Self::Voxel(g) => g.height_near_zones_from(procedural, x, z, zone_at),
        }
    }

    fn fill_axes_procedural(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        procedural: &mut [f64],
    ) {
        match self {
            Self::Hyperscape(g) => g.fill_axes_procedural(xs, zs, out, procedural),
            Self::Osrs(g) => g.fill_axes_procedural(xs, zs, out, procedural),
            Self::Voxel(g) => g.fill_axes_procedural(xs, zs, out, procedural),
        }
    }

    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        match self {
            Self::Hyperscape(g) => g.fill_axes(xs, zs, out),
            Self::Osrs(g) => g.fill_axes(xs, zs, out),
            Self::Voxel(g) => g.fill_axes(xs, zs, out),
        }
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        match self {
            Self::Hyperscape(g) => g.fill_rows(grid, rows, out),
            Self::Osrs(g) => g.fill_rows(grid, rows, out),
            Self::Voxel(g) => g.fill_rows(grid, rows, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::GeneratorKind;

    #[test]
    fn names_round_trip_and_refusals_list_them() {
        for &k in GeneratorKind::ALL {
            assert_eq!(k.as_str().parse::<GeneratorKind>(), Ok(k));
        }
        assert_eq!(
            "minecraft"
                .parse::<GeneratorKind>()
                .unwrap_err()
                .to_string(),
            "unknown generator \"minecraft\", expected one of: hyperscape, osrs, voxel"
        );
    }
}
