//! Tile surfaces held for another replica (`SurfaceStore`) and core's limits, so the
//! package defines none of them twice.

use terrain_client::HeldSurfaces;
use wasm_bindgen::prelude::*;

use crate::js_error;

/// Tile surfaces handed over as float32 vertex heights (terrain-client's
/// `HeldSurfaces`): the Node package over the native addon keeps the addon's tiles
/// here, so a surface read of a kept tile is one call into this module, core's rule
/// and core's keeping rule, with no call into the addon and no rule in JavaScript.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SurfaceStore {
    held: HeldSurfaces,
}

#[wasm_bindgen]
impl SurfaceStore {
    /// None held yet, of the grid of `size` m tiles with `resolution` vertices per
    /// edge (`centred`: tile `t` centred on `t * size`).
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64, resolution: u32, centred: bool) -> Result<SurfaceStore, JsError> {
        Ok(SurfaceStore {
            held: HeldSurfaces::new(size, resolution, centred).map_err(js_error)?,
        })
    }

    /// The surface height at `(x, z)` from a held tile; NaN when no held tile holds
    /// the point (or the server refuses it): then ask [`Self::miss`]. A plain number,
    /// so the call allocates nothing.
    pub fn height(&mut self, x: f64, z: f64) -> f64 {
        self.held.height_at(x, z).unwrap_or(f64::NAN)
    }

    /// After [`Self::height`] answered NaN: `[tx, tz]`, the tile to hand over now
    /// ([`Self::insert`]), or `[]`: evaluate the point elsewhere (or refuse it).
    pub fn miss(&mut self, x: f64, z: f64) -> Vec<f64> {
        match self.held.miss(x, z) {
            Some((tx, tz)) => vec![tx as f64, tz as f64],
            None => Vec::new(),
        }
    }

    /// Keeps tile `(tx, tz)`'s float32 vertex heights (row-major, `n * n`).
    pub fn insert(&mut self, tx: f64, tz: f64, heights: &[f32]) -> Result<(), JsError> {
        self.held.insert(tx, tz, heights).map_err(js_error)
    }

    /// Drops every held tile (the view moved on).
    pub fn clear(&mut self) {
        self.held.clear();
    }

    /// How many tiles are held.
    #[wasm_bindgen(getter)]
    pub fn kept(&self) -> usize {
        self.held.len()
    }
}

/// Reads of one tile at one view after which its surface is kept (terrain-client's
/// keeping rule, which the tests count by).
#[wasm_bindgen(js_name = surfaceTileReads)]
pub fn surface_tile_reads() -> u32 {
    terrain_client::SURFACE_TILE_READS
}

/// Most tiles a side of one walk grid (terrain-core's, the server's limit).
#[wasm_bindgen(js_name = maxWalkGridSide)]
pub fn max_walk_grid_side() -> u32 {
    terrain_core::walk::limits::MAX_WALK_GRID_SIDE
}

/// Most tiles of one walk grid (`width * depth`).
#[wasm_bindgen(js_name = maxWalkGridTiles)]
pub fn max_walk_grid_tiles() -> u32 {
    terrain_core::walk::limits::MAX_WALK_GRID_TILES as u32
}

/// Most towns of the difficulty rule.
#[wasm_bindgen(js_name = maxTowns)]
pub fn max_towns() -> u32 {
    terrain_core::walk::MAX_TOWNS as u32
}
