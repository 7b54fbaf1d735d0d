//! The voxel generator (`generator = "voxel"`): an integer grid of 1 m blocks, infinite
//! in x and z, `max_height` blocks high, built from the seed as the seed scene's
//! terrain is: a heightmap of FBM over three octaves of 2-D simplex noise sampled at
//! domain-warped coordinates, rivers carved by a river mask, talus erosion, hybrid
//! biomes, water below sea level (ice in icy biomes), the coast rule and decorations
//! per biome from a hash of the seed and the column.
//!
//! - [`config`]: [`VoxelConfig`], its defaults and validation.
//! - [`block`]: the palette ([`BlockKind`], [`BlockInfo`]), [`Biome`], [`Decoration`].
//! - `field`: the per-column noise and hashes; `columns`: erosion, zones, surfaces and
//!   decorations of a rectangle; `volume`: its blocks, and [`Chunk`].
//!
//! A world's tile is its chunk of [`CHUNK`] x [`CHUNK`] columns: tile `(cx, cz)` covers
//! `x` in `[32 cx, 32 cx + 32)`, `z` likewise. As a height field ([`Generator`]), the
//! height at `(x, z)` is the top of the highest solid block of column
//! `(floor x, floor z)`, a whole number of metres.

pub mod block;
pub mod config;

mod bounds;
mod codec;
mod columns;
mod cull;
mod field;
mod greedy;
mod heights;
mod simplex;
mod stats;
mod volume;

pub use block::{Biome, BlockInfo, BlockKind, Decoration};
pub use codec::ChunkDecodeError;
pub use config::{VoxelConfig, VoxelConfigError};
pub use cull::{Instances, KindInstances, base_colour, instance_colour, srgb_to_linear};
pub use field::{RIVER_MAX_RISE, hash3};
pub(crate) use greedy::mesh as greedy_mesh;
pub use greedy::{MeshPart, VoxelMesh, face_visible};
pub use heights::{CACHE_CHUNKS, MISSES_BEFORE_CHUNK};
pub use stats::AreaStats;
pub use volume::{Chunk, Column, DECORATION_REACH, Volume};

use std::ops::Range;

use super::{Generator, Grid};
use field::Fields;

/// Columns per chunk edge.
pub const CHUNK: i64 = 32;

/// The coordinate range of a voxel world, in blocks (metres): every point a route takes
/// (heights, heightmaps, zones, viewers, map tiles) has `|x|, |z| <= 2^24`
/// (16,777,216), where a block's coordinates are exact in `f32` and its noise inputs
/// keep their precision. A server's `max_coordinate` may lower it, never raise it.
pub const MAX_COORDINATE: f64 = 16_777_216.0;

/// The largest chunk coordinate, in magnitude, that the chunk, instance and mesh paths
/// serve: 2^20, twice [`MAX_COORDINATE`] in chunks, so every chunk a viewer inside the
/// range can be shown (its rings and look-ahead reach well under 2^24 blocks) is
/// served. Block coordinates stay within `i32`.
pub const MAX_CHUNK: i64 = 1 << 20;

/// Column coordinates the height field clamps to (far beyond any chunk served).
const MAX_COLUMN: f64 = (1u64 << 40) as f64;

/// The voxel generator of one world.
#[derive(Debug, Clone)]
pub struct Voxel {
    seed: u32,
    config: VoxelConfig,
    fields: Fields,
    /// How steep the raw ground can be, when that proves erosion away (`bounds`).
    slopes: Option<bounds::Slopes>,
    /// Chunks of column heights, shared by every clone (points, maps, heightmaps).
    heights: std::sync::Arc<heights::HeightCache>,
}

/// Whole-block rounding of a height (a flat zone's): `floor(h + 0.5)` (halves round
/// up), clamped to `1..=max_height`.
pub fn block_top(h: f64, max_height: u32) -> i32 {
    let t = libm::floor(h + 0.5);
    if t.is_nan() {
        return 1;
    }
    t.clamp(1.0, f64::from(max_height)) as i32
}

fn column_of(c: f64) -> i64 {
    let f = libm::floor(c);
    if f.is_nan() {
        return 0;
    }
    f.clamp(-MAX_COLUMN, MAX_COLUMN) as i64
}

impl Voxel {
    /// The generator of `seed` with `config` (validated).
    pub fn new(seed: u32, config: VoxelConfig) -> Result<Self, VoxelConfigError> {
        config.validate()?;
        Ok(Voxel {
            seed,
            config,
            fields: Fields::new(seed, config),
            slopes: Voxel::slopes_of(&config),
            heights: std::sync::Arc::default(),
        })
    }

    pub fn seed(&self) -> u32 {
        self.seed
    }

    pub fn config(&self) -> &VoxelConfig {
        &self.config
    }

    /// The served column of `(x, z)` (block coordinates), zones as `zone_at` gives
    /// them (heights, rounded here).
    fn column(&self, x: i64, z: i64, zone_at: Option<&dyn Fn(f64, f64) -> Option<f64>>) -> Column {
        let max = self.config.max_height;
        let sea = self.config.sea_level as i32;
        let tops = zone_at.map(|f| {
            move |cx: i64, cz: i64| f(cx as f64 + 0.5, cz as f64 + 0.5).map(|h| block_top(h, max))
        });
        let tops_dyn = tops.as_ref().map(|f| f as &dyn Fn(i64, i64) -> Option<i32>);
        let c = self.column_data(x, z, tops_dyn);
        volume::public(&c, sea)
    }

    /// Heights of the product of `xs` and `zs` from one rectangle of columns, when the
    /// columns they fall in are few and close; `false` (nothing written) otherwise.
    fn fill_area(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) -> bool {
        let span = |cs: &[f64]| -> Option<(i64, usize)> {
            let lo = cs.iter().map(|&c| column_of(c)).min()?;
            let hi = cs.iter().map(|&c| column_of(c)).max()?;
            let n = usize::try_from(hi - lo + 1).ok()?;
            Some((lo, n))
        };
        let (Some((x0, w)), Some((z0, d))) = (span(xs), span(zs)) else {
            return false;
        };
        let area = w.saturating_mul(d);
        if area > 1 << 20
            || area
                > (xs.len().saturating_mul(zs.len()))
                    .saturating_mul(16)
                    .saturating_add(4096)
        {
            return false;
        }
        let heights = self.heights_rect(x0, z0, w, d);
        for (&z, row) in zs.iter().zip(out.chunks_exact_mut(xs.len().max(1))) {
            for (&x, h) in xs.iter().zip(row.iter_mut()) {
                *h = f64::from(heights.at(column_of(x), column_of(z)));
            }
        }
        true
    }
}

impl Generator for Voxel {
    fn height(&self, x: f64, z: f64) -> f64 {
        f64::from(self.column_height(column_of(x), column_of(z)))
    }

    /// The eroded ground without water, ice or decorations: what flat zones blend
    /// toward.
    fn procedural(&self, x: f64, z: f64) -> f64 {
        f64::from(self.eroded_point(column_of(x), column_of(z)).0)
    }

    /// The column's height when a flat zone reaches one of its neighbours: the coast
    /// rule and hence the decoration read the neighbours' water.
    fn height_near_zones(&self, x: f64, z: f64, zone_at: &dyn Fn(f64, f64) -> Option<f64>) -> f64 {
        f64::from(
            self.column(column_of(x), column_of(z), Some(zone_at))
                .height,
        )
    }

    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        if !self.fill_area(xs, zs, out) {
            for (&z, row) in zs.iter().zip(out.chunks_exact_mut(xs.len().max(1))) {
                for (&x, h) in xs.iter().zip(row.iter_mut()) {
                    *h = self.height(x, z);
                }
            }
        }
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        let xs: Vec<f64> = (0..grid.nx).map(|ix| grid.x(ix)).collect();
        let zs: Vec<f64> = rows.map(|iz| grid.z(iz)).collect();
        self.fill_axes(&xs, &zs, out);
    }
}
