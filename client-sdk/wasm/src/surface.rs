//! Free functions: core's surface rule over given vertex heights (the package's test
//! of `src/surface.ts` holds its JavaScript rule to it bit for bit) and core's limits,
//! so the package defines none of them twice.

use terrain_core::TileGrid;
use wasm_bindgen::prelude::*;

use crate::js_error;

/// `[size, shift, step, n]` of the grid of `size` m tiles with `resolution` vertices
/// per edge (`centred`: tile `t` centred on `t * size`).
#[wasm_bindgen(js_name = surfaceGrid)]
pub fn surface_grid(size: f64, resolution: u32, centred: bool) -> Vec<f64> {
    terrain_client::view::grid_numbers(&TileGrid {
        size,
        resolution,
        centred,
    })
    .to_vec()
}

/// Core's surface rule: the height at `(x, z)` on tile `(tx, tz)` of
/// [`surface_grid`]'s grid, `heights` its float32 vertex heights (row-major, `n *
/// n`); `undefined` when the point lies in another tile.
#[wasm_bindgen(js_name = surfaceRuleHeight)]
#[allow(clippy::too_many_arguments)]
pub fn surface_rule_height(
    size: f64,
    resolution: u32,
    centred: bool,
    tx: f64,
    tz: f64,
    heights: &[f32],
    x: f64,
    z: f64,
) -> Result<Option<f64>, JsError> {
    let layout = TileGrid {
        size,
        resolution,
        centred,
    };
    terrain_client::view::surface_rule_height(layout, (tx, tz), heights, (x, z)).map_err(js_error)
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
