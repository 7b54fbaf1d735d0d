//! The per-call reads as plain functions of the replica's `External` handle. A
//! `#[napi]` class method pays napi-rs's borrow tracking of `this` on every call (a
//! registry lookup and an allocation, most of a call's cost when the height itself
//! takes 100 ns); an `External` argument is one `napi_get_value_external`.
//! `src/native.ts` puts them behind the class's methods, so callers see no difference.
//!
//! `surfaceHeightAt` is answered in JavaScript (`src/surface.ts`) from tile surfaces
//! these functions hand over: [`replica_surface_layout`] gives the tile grid and the
//! view's epoch, [`replica_surface_tile`] one tile's float32 vertex heights at the view, and
//! [`replica_surface_evaluated`] answers a point on the spot (tiles not kept).

use std::sync::Arc;

use napi::{
    Result,
    bindgen_prelude::{External, Float32Array, Float64Array},
};
use napi_derive::napi;
use terrain_core::{TileGrid, mesh::SurfaceTile};

use crate::errors::{invalid, sdk_error};
use crate::replica::Replica;

/// `LocalTerrain.heightAt` through the handle.
#[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
pub fn replica_height_at(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<f64> {
    handle.height_at(x, z)
}

/// The surface-mode height at `(x, z)` at the view, evaluated on the spot (no tile
/// is computed or kept).
#[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
pub fn replica_surface_evaluated(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<f64> {
    handle
        .snapshot()?
        .surface_height_at(x, z)
        .map_err(sdk_error)
}

/// `[epoch, size, shift, step, n]`: the view's epoch and the tile grid surface
/// reads use (tile `t` owns `floor(c / size + shift) = t`, its vertices are
/// `step` apart, `n` per edge).
#[napi(catch_unwind, ts_args_type = "handle: unknown")]
pub fn replica_surface_layout(handle: &External<Arc<Replica>>) -> Result<Float64Array> {
    let (snapshot, epoch) = handle.view()?;
    let [size, shift, step, n] = grid_numbers(&snapshot.terrain().generator().tile_grid());
    Ok(Float64Array::new(vec![epoch as f64, size, shift, step, n]))
}

/// `[size, shift, step, n]` of `layout`: the numbers `src/surface.ts` evaluates with.
fn grid_numbers(layout: &TileGrid) -> [f64; 4] {
    let shift = if layout.centred { 0.5 } else { 0.0 };
    [
        layout.size,
        shift,
        layout.step(),
        f64::from(layout.resolution.max(2)),
    ]
}

/// A tile index from a JavaScript number, or an error naming `name`.
fn tile_index(t: f64, name: &str) -> Result<i64> {
    if t.fract() == 0.0 && t.abs() <= f64::from(1u32 << 30) {
        Ok(t as i64)
    } else {
        Err(invalid(format!("{name}: expected a tile index, got {t}")))
    }
}

/// Tile `(tx, tz)`'s float32 vertex heights at the view, row-major (`iz * n +
/// ix`): the surface the server serves for that tile. Each is a float32 value
/// already (core rounds the vertex heights to f32 and widens them back), so the
/// `Float32Array` holds it exactly, in half the memory, and JavaScript reads back
/// the very double core interpolates.
#[napi(catch_unwind, ts_args_type = "handle: unknown, tx: number, tz: number")]
pub fn replica_surface_tile(
    handle: &External<Arc<Replica>>,
    tx: f64,
    tz: f64,
) -> Result<Float32Array> {
    let key = (tile_index(tx, "tx")?, tile_index(tz, "tz")?);
    let snapshot = handle.snapshot()?;
    let tile = SurfaceTile::new(snapshot.terrain(), key);
    let heights: Vec<f32> = tile.heights().iter().map(|&h| h as f32).collect();
    Ok(Float32Array::new(heights))
}

/// `[size, shift, step, n]` of the grid of `size` m tiles with `resolution` vertices
/// per edge (`centred`: tile `t` centred on `t * size`), as
/// [`replica_surface_layout`] gives a view's: for the package's test of the triangle
/// rule ([`surface_rule_height`]).
#[napi(catch_unwind)]
pub fn surface_grid(size: f64, resolution: u32, centred: bool) -> Float64Array {
    Float64Array::new(
        grid_numbers(&TileGrid {
            size,
            resolution,
            centred,
        })
        .to_vec(),
    )
}

/// Core's surface rule over given vertex heights: the height at `(x, z)` on tile
/// `(tx, tz)` of the grid of [`surface_grid`]'s arguments, `heights` its float32 vertex
/// heights (row-major, `n * n`); `null` when the point lies in another tile. The
/// package's test holds `src/surface.ts`'s `heightOnTile` to it bit for bit, so the
/// rule has one source, core's ([`SurfaceTile::from_heights`]).
#[napi(catch_unwind)]
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
) -> Result<Option<f64>> {
    let layout = TileGrid {
        size,
        resolution,
        centred,
    };
    let key = (tile_index(tx, "tx")?, tile_index(tz, "tz")?);
    let n = layout.resolution.max(2) as usize;
    let tile = SurfaceTile::from_heights(layout, key, heights).ok_or_else(|| {
        invalid(format!(
            "heights: expected {} ({n} x {n}), got {}",
            n * n,
            heights.len()
        ))
    })?;
    Ok(tile.height(x, z))
}
