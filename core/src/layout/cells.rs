//! The classification cells of one chunk, kept as a compact grid.
//!
//! Cells are world-aligned squares of `cell_size` (cell `(i, j)` spans
//! `[i * cell_size, (i + 1) * cell_size)` in x, likewise z) classified at their
//! centre, as in [`super::classify_grid`]. A chunk owns the cells whose centre lies in
//! it, so every cell belongs to exactly one chunk whatever the two sizes are.

use std::sync::Arc;

use super::classify::{Found, ZoneClass};
use super::config::LayoutConfig;
use super::features::ChunkFeatures;

/// Most cells one chunk keeps as a grid (512 x 512, 512 KiB). Finer cells are
/// classified when asked, from the same features, with the same answers.
pub const MAX_CHUNK_CELLS: f64 = (1u64 << 18) as f64;

/// The class of one classification cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellClass {
    /// Hub (with the hub's id), spoke or wilds, at the cell's centre.
    pub class: ZoneClass,
    /// The cell's indices `(i, j)`.
    pub cell: (i64, i64),
}

impl CellClass {
    /// The id of the hub whose clearing holds the cell's centre, if any.
    pub fn hub_id(&self) -> Option<&str> {
        match &self.class {
            ZoneClass::Hub(id) => Some(id),
            ZoneClass::Spoke | ZoneClass::Wilds => None,
        }
    }
}

/// The cell index holding coordinate `v`.
pub(crate) fn cell_of(cfg: &LayoutConfig, v: f64) -> i64 {
    libm::floor(v / cfg.cell_size) as i64
}

/// The centre coordinate of cell index `k` (as [`super::classify_grid`] computes it).
pub(crate) fn centre(cfg: &LayoutConfig, k: i64) -> f64 {
    (k as f64 + 0.5) * cfg.cell_size
}

/// The chunk index of coordinate `v`, unchecked (as [`super::classify_grid`]).
fn chunk_index(cfg: &LayoutConfig, v: f64) -> i64 {
    libm::floor(v / cfg.chunk_size) as i64
}

/// The inclusive range of cell indices on one axis whose centres lie in chunk `c`.
fn span(cfg: &LayoutConfig, c: i64) -> (i64, i64) {
    let owner = |k: i64| chunk_index(cfg, centre(cfg, k));
    let ratio = cfg.chunk_size / cfg.cell_size;
    let mut k0 = libm::floor(c as f64 * ratio) as i64 - 1;
    while owner(k0) >= c {
        k0 -= 1;
    }
    while owner(k0) < c {
        k0 += 1;
    }
    let mut k1 = libm::floor((c + 1) as f64 * ratio) as i64 + 1;
    while owner(k1) <= c {
        k1 += 1;
    }
    while owner(k1) > c {
        k1 -= 1;
    }
    (k0, k1)
}

/// The zone class of what [`ChunkFeatures::class_of`] found.
pub(crate) fn class_of(found: Found<'_>) -> ZoneClass {
    match found {
        Found::Hub(h) => ZoneClass::Hub(h.id.clone()),
        Found::Spoke => ZoneClass::Spoke,
        Found::Wilds => ZoneClass::Wilds,
    }
}

/// Cell codes: wilds, spoke, then `HUB + k` for the `k`-th hub of the features.
const WILDS: u16 = 0;
const SPOKE: u16 = 1;
const HUB: u16 = 2;

/// The classes of every cell one chunk owns.
#[derive(Debug, Clone)]
pub(crate) struct ChunkCells {
    features: Arc<ChunkFeatures>,
    /// First cell indices and the grid's size.
    i0: i64,
    j0: i64,
    cols: usize,
    rows: usize,
    /// Row-major (z outer) codes.
    codes: Vec<u16>,
}

impl ChunkCells {
    /// Whether a chunk's cells are few enough to keep ([`MAX_CHUNK_CELLS`]); finer
    /// cells are classified when asked.
    pub(crate) fn fits(cfg: &LayoutConfig) -> bool {
        let side = cfg.chunk_size / cfg.cell_size + 2.0;
        side * side <= MAX_CHUNK_CELLS
    }

    /// Classifies the cells of the features' chunk (which must [`Self::fits`]).
    pub(crate) fn build(cfg: &LayoutConfig, features: Arc<ChunkFeatures>) -> Self {
        let (cx, cz) = features.chunk();
        let ((i0, i1), (j0, j1)) = (span(cfg, cx), span(cfg, cz));
        let (cols, rows) = ((i1 - i0 + 1).max(0) as usize, (j1 - j0 + 1).max(0) as usize);
        let mut codes = Vec::with_capacity(cols * rows);
        for j in j0..=j1 {
            let z = centre(cfg, j);
            for i in i0..=i1 {
                let code = match features.class_of(centre(cfg, i), z) {
                    Found::Wilds => WILDS,
                    Found::Spoke => SPOKE,
                    Found::Hub(h) => features
                        .hub_index(h)
                        .and_then(|k| u16::try_from(k).ok())
                        .map_or(WILDS, |k| HUB + k),
                };
                codes.push(code);
            }
        }
        Self {
            features,
            i0,
            j0,
            cols,
            rows,
            codes,
        }
    }

    /// The class of cell `(i, j)`, if this chunk owns it.
    pub(crate) fn get(&self, i: i64, j: i64) -> Option<ZoneClass> {
        let (di, dj) = (i.checked_sub(self.i0)?, j.checked_sub(self.j0)?);
        let (di, dj) = (usize::try_from(di).ok()?, usize::try_from(dj).ok()?);
        if di >= self.cols || dj >= self.rows {
            return None;
        }
        Some(match self.codes[dj * self.cols + di] {
            WILDS => ZoneClass::Wilds,
            SPOKE => ZoneClass::Spoke,
            k => ZoneClass::Hub(self.features.hubs()[usize::from(k - HUB)].hub.id.clone()),
        })
    }

    /// Approximate size, bytes (the cache's weight; the features weigh in their own).
    pub(crate) fn weight(&self) -> usize {
        std::mem::size_of::<Self>() + 2 * self.codes.len()
    }
}
