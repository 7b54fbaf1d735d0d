//! Zone classification: is a point in a hub clearing, in a spoke corridor, or in the
//! wilds? Both forms, one point and a grid of cells, read the same pure layout.

use std::collections::BTreeMap;

use super::config::{Area, LayoutConfig, LayoutError, MAX_GRID_CELLS, Pattern};
use super::patterns::{CHAOTIC_RADIUS, GRID_RADIUS, Hub, RINGS, ZIGZAG_RADIUS};
use super::spokes::{Layout, Spoke, layout_over};

/// What a point is part of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoneClass {
    /// Inside the clearing of the hub with this id.
    Hub(String),
    /// Inside a corridor and no clearing.
    Spoke,
    /// Neither.
    Wilds,
}

/// A classification grid over world-aligned cells: cell `(i, j)` spans
/// `[i * cell_size, (i + 1) * cell_size)` in x (likewise z) and is classified at its
/// centre, so overlapping queries agree cell by cell.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneGrid {
    /// Index of the first column (`i` of the westmost cells).
    pub col0: i64,
    /// Index of the first row (`j` of the northmost cells).
    pub row0: i64,
    /// Number of columns.
    pub cols: usize,
    /// Number of rows.
    pub rows: usize,
    /// Side of a cell, metres.
    pub cell_size: f64,
    /// Row-major (z outer, x inner) classes, `cols * rows` of them.
    pub cells: Vec<ZoneClass>,
}

/// Smallest hub radius the pattern can produce, as a fraction of the chunk size.
pub fn min_hub_radius(pattern: Pattern) -> f64 {
    match pattern {
        Pattern::Grid => GRID_RADIUS.0,
        Pattern::Zigzag => ZIGZAG_RADIUS.0,
        Pattern::Rings => RINGS[RINGS.len() - 1].1,
        Pattern::Chaotic => CHAOTIC_RADIUS.0,
    }
}

/// Half-width of a spoke corridor, metres: half the smallest hub radius of the
/// pattern, so a corridor is never wider than the clearings it joins.
pub fn corridor_half_width(cfg: &LayoutConfig) -> f64 {
    0.5 * min_hub_radius(cfg.pattern) * cfg.chunk_size
}

/// The class of point `(x, z)`: a pure function of `cfg` and the point.
pub fn classify(cfg: &LayoutConfig, x: f64, z: f64) -> Result<ZoneClass, LayoutError> {
    let area = Area::new(x, z, x, z)?;
    let index = Index::build(cfg, &area)?;
    Ok(index.classify(x, z))
}

/// The classes of the cells whose centres' cells meet `area` (see [`ZoneGrid`]).
pub fn classify_grid(cfg: &LayoutConfig, area: &Area) -> Result<ZoneGrid, LayoutError> {
    cfg.validate()?;
    area.chunks(cfg)?;
    let cell = cfg.cell_size;
    let first = (
        libm::floor(area.min_x / cell),
        libm::floor(area.min_z / cell),
    );
    let span_x = libm::floor(area.max_x / cell) - first.0 + 1.0;
    let span_z = libm::floor(area.max_z / cell) - first.1 + 1.0;
    // Checked in f64 first: a tiny cell size must not overflow the integer maths.
    let count = span_x * span_z;
    if count.is_nan() || count > MAX_GRID_CELLS as f64 {
        return Err(LayoutError::TooLarge {
            what: "cells",
            count: count.min(u64::MAX as f64) as u64,
            max: MAX_GRID_CELLS,
        });
    }
    let (col0, row0) = (first.0 as i64, first.1 as i64);
    let (cols, rows) = (span_x as u64, span_z as u64);
    let centre = |k: i64| (k as f64 + 0.5) * cell;
    // Cover the cell centres (which may lie just outside `area`).
    let covered = Area::new(
        centre(col0),
        centre(row0),
        centre(col0 + cols as i64 - 1),
        centre(row0 + rows as i64 - 1),
    )?;
    let index = Index::build(cfg, &covered)?;
    let mut cells = Vec::with_capacity((cols * rows) as usize);
    for j in 0..rows as i64 {
        for i in 0..cols as i64 {
            cells.push(index.classify(centre(col0 + i), centre(row0 + j)));
        }
    }
    Ok(ZoneGrid {
        col0,
        row0,
        cols: cols as usize,
        rows: rows as usize,
        cell_size: cell,
        cells,
    })
}

/// A layout bucketed by chunk: hubs by their chunk, spokes by every chunk their
/// corridor's bounding box touches.
struct Index {
    chunk_size: f64,
    half_width: f64,
    hubs: BTreeMap<(i64, i64), Vec<Hub>>,
    spokes: BTreeMap<(i64, i64), Vec<Spoke>>,
}

impl Index {
    /// Indexes every hub and spoke that can reach `area`: the layout over the area
    /// grown by the corridor half-width.
    fn build(cfg: &LayoutConfig, area: &Area) -> Result<Self, LayoutError> {
        cfg.validate()?;
        let half_width = corridor_half_width(cfg);
        let reach = half_width;
        let grown = Area::new(
            area.min_x - reach,
            area.min_z - reach,
            area.max_x + reach,
            area.max_z + reach,
        )?;
        let Layout { hubs, spokes } = layout_over(cfg, &grown)?;
        let mut index = Self {
            chunk_size: cfg.chunk_size,
            half_width,
            hubs: BTreeMap::new(),
            spokes: BTreeMap::new(),
        };
        for hub in hubs {
            index.hubs.entry(hub.chunk).or_default().push(hub);
        }
        for spoke in spokes {
            index.add_spoke(spoke);
        }
        Ok(index)
    }

    fn chunk_of(&self, v: f64) -> i64 {
        libm::floor(v / self.chunk_size) as i64
    }

    fn add_spoke(&mut self, spoke: Spoke) {
        let w = self.half_width;
        let (lo_x, hi_x) = (
            spoke.a_at.0.min(spoke.b_at.0),
            spoke.a_at.0.max(spoke.b_at.0),
        );
        let (lo_z, hi_z) = (
            spoke.a_at.1.min(spoke.b_at.1),
            spoke.a_at.1.max(spoke.b_at.1),
        );
        for cz in self.chunk_of(lo_z - w)..=self.chunk_of(hi_z + w) {
            for cx in self.chunk_of(lo_x - w)..=self.chunk_of(hi_x + w) {
                self.spokes.entry((cx, cz)).or_default().push(spoke.clone());
            }
        }
    }

    fn classify(&self, x: f64, z: f64) -> ZoneClass {
        let chunk = (self.chunk_of(x), self.chunk_of(z));
        let hubs = self.hubs.get(&chunk).into_iter().flatten();
        let spokes = self.spokes.get(&chunk).into_iter().flatten();
        let axes = spokes.map(|s| (s.a_at, s.b_at));
        match class_at(chunk, hubs, axes, self.half_width, x, z) {
            Found::Hub(h) => ZoneClass::Hub(h.id.clone()),
            Found::Spoke => ZoneClass::Spoke,
            Found::Wilds => ZoneClass::Wilds,
        }
    }
}

/// What [`class_at`] found at a point, borrowing the hub.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Found<'a> {
    Hub(&'a Hub),
    Spoke,
    Wilds,
}

/// The class of `(x, z)`, a point of `chunk`, given every hub of that chunk in key
/// order (others are skipped: hub discs lie inside their chunk) and the axes of at
/// least every spoke whose corridor of `half_width` reaches the point. The single rule
/// behind [`classify`], [`classify_grid`] and the cells of a layout surface.
pub(crate) fn class_at<'a>(
    chunk: (i64, i64),
    hubs: impl IntoIterator<Item = &'a Hub>,
    axes: impl IntoIterator<Item = ((f64, f64), (f64, f64))>,
    half_width: f64,
    x: f64,
    z: f64,
) -> Found<'a> {
    let hub = hubs.into_iter().find(|h| {
        let (dx, dz) = (x - h.x, z - h.z);
        h.chunk == chunk && dx * dx + dz * dz <= h.r * h.r
    });
    if let Some(h) = hub {
        return Found::Hub(h);
    }
    let w2 = half_width * half_width;
    if axes
        .into_iter()
        .any(|(a, b)| segment_dist2((x, z), a, b) <= w2)
    {
        Found::Spoke
    } else {
        Found::Wilds
    }
}

/// Squared distance from `p` to segment `a-b`.
pub fn segment_dist2(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dz) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dz * dz;
    let t = if len2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dz) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (ex, ez) = (a.0 + t * dx - p.0, a.1 + t * dz - p.1);
    ex * ex + ez * ez
}
