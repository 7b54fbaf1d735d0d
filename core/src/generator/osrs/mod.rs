//! The `osrs` generator: the old RuneScape client's procedural tile heights
//! ("height calc"), reproduced bit for bit.
//!
//! The integer API ([`tile_height`], [`tile_heights_area`], [`tile_heights_grid`])
//! gives the client's height `h` (10..=60) of a world tile, following
//! docs/src/reference/osrs.md exactly: wrapping i32 maths, truncating
//! division, masked fractions. The area functions hash each lattice point once and
//! agree with the per-point path everywhere, including negative and wrapping
//! coordinates.
//!
//! As a [`Generator`], one world unit is one tile (x is the tile x, z the tile y). At
//! integer tile corners the height is `h / 16`; in between it is the bilinear blend
//! of the four surrounding corners.

mod area;
mod noise;

use std::ops::Range;

use super::{Generator, Grid};

pub use area::{tile_heights_area, tile_heights_grid};
pub use noise::{
    MAX_HEIGHT, MIN_HEIGHT, OFFSET_X, OFFSET_Y, noise, noise_height, smoothed_noise, tile_height,
};

/// Edge length of one mesh tile in world units: one 64x64-tile map square.
pub const TILE_SIZE: f64 = 64.0;
/// Vertices along one edge of a tile mesh: one per tile corner of a map square.
pub const TILE_RESOLUTION: u32 = 65;

/// Heights `h` are divided by this to give metres: `height = h / 16` at corners.
const UNITS_PER_METRE: f64 = 16.0;

/// Rows of a grid filled from one shared block of corner heights, bounding the
/// scratch memory of [`Osrs::fill_rows`] to a band at a time.
const BAND_ROWS: usize = 64;

/// The osrs generator. It has no parameters: the terrain is fixed by the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Osrs;

impl Osrs {
    /// The generator (there is only one osrs terrain).
    pub fn new() -> Self {
        Osrs
    }
}

/// The tile corner at or below `v` (wrapped into i32) and the fraction past it.
#[inline]
fn corner(v: f64) -> (i32, f64) {
    let floor = libm::floor(v);
    ((floor as i64) as i32, v - floor)
}

/// Bilinear blend of corner heights `h` (as f64), in metres. Used by both paths so
/// that they agree bit for bit.
#[inline]
fn bilinear(h00: f64, h10: f64, h01: f64, h11: f64, tx: f64, tz: f64) -> f64 {
    let low = h00 + (h10 - h00) * tx;
    let high = h01 + (h11 - h01) * tx;
    (low + (high - low) * tz) / UNITS_PER_METRE
}

/// A proven range of every osrs height, in metres: corner heights are tile heights
/// of 10 to 60 ([`noise::MIN_HEIGHT`], [`noise::MAX_HEIGHT`]) units, blended with
/// weights in [0, 1] and divided by 16; widened by a micrometre for rounding.
pub fn height_bounds() -> (f64, f64) {
    (
        f64::from(noise::MIN_HEIGHT) / UNITS_PER_METRE - 1e-6,
        f64::from(noise::MAX_HEIGHT) / UNITS_PER_METRE + 1e-6,
    )
}

impl Generator for Osrs {
    fn height(&self, x: f64, z: f64) -> f64 {
        let (x0, tx) = corner(x);
        let (z0, tz) = corner(z);
        let (x1, z1) = (x0.wrapping_add(1), z0.wrapping_add(1));
        let h = |x, z| f64::from(tile_height(x, z));
        bilinear(h(x0, z0), h(x1, z0), h(x0, z1), h(x1, z1), tx, tz)
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        debug_assert_eq!(out.len(), rows.len() * grid.nx);
        if rows.is_empty() || out.len() < grid.nx {
            return; // Not one whole row to fill.
        }
        let columns: Vec<(i32, f64)> = (0..grid.nx).map(|ix| corner(grid.x(ix))).collect();
        let lines = rows.map(|iz| corner(grid.z(iz)));
        fill_product(&columns, lines, out);
    }

    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        debug_assert_eq!(out.len(), xs.len() * zs.len());
        let columns: Vec<(i32, f64)> = xs.iter().map(|&x| corner(x)).collect();
        fill_product(&columns, zs.iter().map(|&z| corner(z)), out);
    }

    /// The procedural height is the height here.
    fn fill_axes_procedural(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        procedural: &mut [f64],
    ) {
        self.fill_axes(xs, zs, out);
        procedural.copy_from_slice(out);
    }
}

/// Fills the product of `columns` and `lines` (each a sample's corner and fraction)
/// into `out`, row-major, a band of [`BAND_ROWS`] lines at a time; stops at whichever
/// of `lines` and `out` ends first.
fn fill_product(
    columns: &[(i32, f64)],
    mut lines: impl Iterator<Item = (i32, f64)>,
    out: &mut [f64],
) {
    let nx = columns.len();
    if nx == 0 {
        return;
    }
    for band in out.chunks_mut(BAND_ROWS.saturating_mul(nx)) {
        let band_lines: Vec<(i32, f64)> = lines.by_ref().take(band.len() / nx).collect();
        if band_lines.is_empty() {
            break;
        }
        fill_band(columns, &band_lines, band);
    }
}

/// Fills `lines` x `columns` into `out` from one block of corner heights computed with
/// the area path.
fn fill_band(columns: &[(i32, f64)], lines: &[(i32, f64)], out: &mut [f64]) {
    let (cx, kx) = area_windows(columns);
    let (cz, kz) = area_windows(lines);
    let heights: Vec<f64> = tile_heights_grid(&cx, &cz)
        .into_iter()
        .map(f64::from)
        .collect();
    let w = cx.len();
    for ((row, &(_, tz)), &r) in out.chunks_exact_mut(columns.len()).zip(lines).zip(&kz) {
        let (low, high) = (&heights[r * w..], &heights[(r + 1) * w..]);
        for ((h, &(_, tx)), &c) in row.iter_mut().zip(columns).zip(&kx) {
            *h = bilinear(low[c], low[c + 1], high[c], high[c + 1], tx, tz);
        }
    }
}

/// The distinct corner coordinates one axis needs (each sample's corner and the one
/// after it) and, per sample, the index of its low corner among them.
fn area_windows(samples: &[(i32, f64)]) -> (Vec<i32>, Vec<usize>) {
    area::share_windows(samples.iter().map(|&(c, _)| c), 0, 2)
}
