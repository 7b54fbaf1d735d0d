//! The per-call reads as plain functions of the replica's `External` handle. A
//! `#[napi]` class method pays napi-rs's borrow tracking of `this` on every call (a
//! registry lookup and an allocation, most of a call's cost when the height itself
//! takes 100 ns); an `External` argument costs less. The hottest read, `heightAt`, is
//! a function bound to the replica (`point_fn`), which skips napi-rs's per-call
//! argument machinery altogether. `src/native.ts` puts them behind the class's
//! methods, so callers see no difference.
//!
//! `surfaceHeightAt` is answered from tile surfaces these functions hand over, kept in
//! the WebAssembly module's `SurfaceStore` (`src/surface.ts`): [`replica_surface_layout`]
//! gives the tile grid and the view's epoch, [`replica_surface_tile`] one tile's float32
//! vertex heights at the view, and [`replica_surface_evaluated`] answers a point on the
//! spot (tiles not kept).

use std::{panic::AssertUnwindSafe, sync::Arc};

use napi::{
    Env, Result,
    bindgen_prelude::{External, Float32Array, Float64Array, Function, Uint8Array, Uint32Array},
};
use napi_derive::napi;
use terrain_client::view;

use crate::errors::{invalid, sdk_error};
use crate::replica::Replica;

/// A JavaScript function `(x, z) => number` answering `read` of the replica: made
/// from a closure that holds the replica, so a call converts two numbers and
/// nothing else. napi-rs wraps every `#[napi]` function that takes arguments in an
/// argument borrow scope (allocated and torn down per call) and unwraps an
/// `External` through a locked registry; a function made from a closure has
/// neither: a bare call costs about 40 ns against 110 ns (`hsCrossingFn` against
/// `hsCrossing`, measured from Node on this 2-core VM), 130 ns with a handle.
/// Errors (and a panic, caught) are thrown as the `#[napi]` functions throw them.
pub(crate) fn point_fn<'env>(
    env: &'env Env,
    name: &str,
    replica: &Arc<Replica>,
    read: fn(&Replica, f64, f64) -> Result<f64>,
) -> Result<Function<'env, (f64, f64), f64>> {
    let replica = Arc::clone(replica);
    let what = format!("{name}: internal error (caught, the process keeps running)");
    env.create_function_from_closure(name, move |ctx| {
        let (x, z) = (ctx.get(0)?, ctx.get(1)?);
        // What `#[napi(catch_unwind)]` gives the other exports: a panic becomes a
        // thrown error instead of unwinding into the engine (an abort).
        std::panic::catch_unwind(AssertUnwindSafe(|| read(&replica, x, z)))
            .unwrap_or_else(|_| Err(napi::Error::from_reason(what.clone())))
    })
}

/// `LocalTerrain.heightAt` bound to the replica (`point_fn`): `src/native.ts`
/// makes it once per replica.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown",
    ts_return_type = "(x: number, z: number) => number"
)]
pub fn replica_height_fn<'env>(
    env: &'env Env,
    handle: &External<Arc<Replica>>,
) -> Result<Function<'env, (f64, f64), f64>> {
    point_fn(env, "heightAt", handle, Replica::height_at)
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
    let [size, shift, step, n] = view::grid_numbers(&snapshot.terrain().generator().tile_grid());
    Ok(Float64Array::new(vec![epoch as f64, size, shift, step, n]))
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
    let snapshot = handle.snapshot()?;
    let heights = view::surface_tile(snapshot.terrain(), tx, tz).map_err(invalid)?;
    Ok(Float32Array::new(heights))
}

/// A tile's mesh as typed arrays, in the original game's layout: what
/// `LocalTerrain.tileMesh` answers.
#[napi(object)]
pub struct TileMeshArrays {
    /// `x, y, z` per vertex (float32), relative to `placement`; `y` is the height.
    pub positions: Float32Array,
    /// Unit normals, `x, y, z` per vertex.
    pub normals: Float32Array,
    /// Linear `r, g, b` per vertex (hyperscape tiles; empty for other generators).
    pub colors: Float32Array,
    /// Each vertex's biome id (hyperscape tiles; empty for other generators).
    pub biome_ids: Uint8Array,
    /// Three vertex indices per triangle; carved cells absent.
    pub index: Uint32Array,
    /// The world position of the tile's local origin, `[x, y, z]`.
    pub placement: Float64Array,
    /// Vertices per edge.
    pub resolution: u32,
}

impl std::fmt::Debug for TileMeshArrays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileMeshArrays")
            .field("placement", &&self.placement[..])
            .field("resolution", &self.resolution)
            .field("vertices", &(self.positions.len() / 3))
            .field("triangles", &(self.index.len() / 3))
            .finish_non_exhaustive()
    }
}

/// Tile `(tx, tz)`'s mesh at the view, as the server's mesh routes serve it
/// (terrain-client's [`view::tile_mesh`]: core's `build_tile`, the function the server
/// calls), or the refusal naming `tx`, `tz` or `world` (a voxel world).
#[napi(catch_unwind, ts_args_type = "handle: unknown, tx: number, tz: number")]
pub fn replica_tile_mesh(
    handle: &External<Arc<Replica>>,
    tx: f64,
    tz: f64,
) -> Result<TileMeshArrays> {
    let mesh = handle
        .read(|o| view::tile_mesh(o.view.terrain(), tx, tz, o.base.revision()))?
        .map_err(invalid)?;
    let index: Vec<u32> = (0..mesh.indices.len())
        .filter_map(|k| mesh.indices.get(k))
        .collect();
    Ok(TileMeshArrays {
        positions: Float32Array::new(mesh.positions),
        normals: Float32Array::new(mesh.normals),
        colors: Float32Array::new(mesh.colours),
        biome_ids: Uint8Array::new(mesh.biomes),
        index: Uint32Array::new(index),
        placement: Float64Array::new(mesh.placement.to_vec()),
        resolution: mesh.resolution,
    })
}

/// A voxel world's chunk `(cx, cz)` at the view in the binary form of the server's
/// blocks route (terrain-client's [`view::chunk_blocks`]); `null` on other worlds.
#[napi(catch_unwind, ts_args_type = "handle: unknown, cx: number, cz: number")]
pub fn replica_chunk_blocks(
    handle: &External<Arc<Replica>>,
    cx: f64,
    cz: f64,
) -> Result<Option<Uint8Array>> {
    let blocks = handle
        .read(|o| view::chunk_blocks(o.view.terrain(), cx, cz))?
        .map_err(invalid)?;
    Ok(blocks.map(Uint8Array::new))
}

/// Most tiles a side of one walk grid: terrain-core's limit, the server's
/// (`walk::limits::MAX_WALK_GRID_SIDE`), so the package checks `walkGrid` by it.
#[napi]
pub const MAX_WALK_GRID_SIDE: u32 = terrain_core::walk::limits::MAX_WALK_GRID_SIDE;

/// Most tiles of one walk grid (`width * depth`): terrain-core's
/// `walk::limits::MAX_WALK_GRID_TILES`, the server's default batch limit, so the
/// package refuses what a server with default limits refuses.
#[napi]
pub const MAX_WALK_GRID_TILES: u32 = terrain_core::walk::limits::MAX_WALK_GRID_TILES as u32;

/// Most towns of the difficulty rule (`setTowns`): terrain-core's
/// `walk::difficulty::MAX_TOWNS`, as many as a world may list.
#[napi]
pub const MAX_TOWNS: u32 = terrain_core::walk::MAX_TOWNS as u32;
