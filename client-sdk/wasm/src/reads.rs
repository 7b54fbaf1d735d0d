//! The reads of a [`Replica`], at its view: the Node addon's handle functions (crate
//! terrain-node, `fast.rs` and `hyperscape.rs`) and `LocalTerrain`'s methods, through
//! the same terrain-client and terrain-core functions. A point a server would refuse
//! is refused, naming the axis (`x: must be finite`); answers written into an `out`
//! array the caller passes (and reuses) are copied back into it by wasm-bindgen.

use serde_json::{Value, json};
use terrain_client::{
    ClientError, LocalWalk, PathMode, check_point,
    view::{self, first_blocked, info_answer},
};
use terrain_core::{Generator, TileGrid, walk::Walker, zones::ZoneDoc};
use wasm_bindgen::prelude::*;

use crate::{Replica, js_error};

/// An SDK error as the addon throws it: an invalid argument names its field.
fn sdk_error(e: ClientError) -> JsError {
    match e {
        ClientError::InvalidArgument { field, message } => {
            let field = match field.as_str() {
                "max_nodes" => "maxNodes".to_string(),
                "max_distance" => "maxDistance".to_string(),
                _ => match field.strip_prefix("coordinates") {
                    Some(rest) => format!("points{rest}"),
                    None => field,
                },
            };
            js_error(format!("{field}: {message}"))
        }
        other => js_error(other),
    }
}

fn point(x: f64, z: f64) -> Result<(), JsError> {
    check_point(x, z).map_err(sdk_error)
}

/// The points of a flat `[x0, z0, x1, z1, ...]` array, each checked; errors name the
/// number's index (`points[3]: must be finite`).
fn points(flat: &[f64]) -> Result<Vec<(f64, f64)>, JsError> {
    if !flat.len().is_multiple_of(2) {
        return Err(js_error(format!(
            "points: expected x, z pairs (an even length), got {} numbers",
            flat.len()
        )));
    }
    flat.chunks_exact(2)
        .enumerate()
        .map(|(i, p)| match check_point(p[0], p[1]) {
            Ok(()) => Ok((p[0], p[1])),
            Err(ClientError::InvalidArgument { field, message }) => {
                let at = 2 * i + usize::from(field == "z");
                Err(js_error(format!("points[{at}]: {message}")))
            }
            Err(other) => Err(sdk_error(other)),
        })
        .collect()
}

fn out_len(out: &[f64], n: usize) -> Result<(), JsError> {
    if out.len() < n {
        return Err(js_error(format!(
            "out: expected at least {n} numbers, got {}",
            out.len()
        )));
    }
    Ok(())
}

/// `[x0, z0, ...]` of points.
fn flatten(points: &[(f64, f64)]) -> Vec<f64> {
    points.iter().flat_map(|&(x, z)| [x, z]).collect()
}

/// One tile's mesh as the server builds it (`GET .../tiles/{tx}/{tz}/mesh`):
/// terrain-core's `build_tile`, its arrays handed out as typed arrays (copies).
#[wasm_bindgen]
#[derive(Debug)]
pub struct TileMesh {
    mesh: terrain_core::mesh::TileMesh,
}

#[wasm_bindgen]
impl TileMesh {
    /// Vertex positions, `[x, y, z, ...]` relative to `placement`.
    #[wasm_bindgen(getter)]
    pub fn positions(&self) -> Vec<f32> {
        self.mesh.positions.clone()
    }

    /// Unit vertex normals, `[x, y, z, ...]`.
    #[wasm_bindgen(getter)]
    pub fn normals(&self) -> Vec<f32> {
        self.mesh.normals.clone()
    }

    /// Vertex colours, `[r, g, b, ...]` (empty for generators without them).
    #[wasm_bindgen(getter)]
    pub fn colors(&self) -> Vec<f32> {
        self.mesh.colours.clone()
    }

    /// The biome id of each vertex (empty for generators without biomes).
    #[wasm_bindgen(getter, js_name = biomeIds)]
    pub fn biome_ids(&self) -> Vec<u8> {
        self.mesh.biomes.clone()
    }

    /// Triangle indices (widened to 32 bits).
    #[wasm_bindgen(getter)]
    pub fn index(&self) -> Vec<u32> {
        (0..self.mesh.indices.len())
            .filter_map(|k| self.mesh.indices.get(k))
            .collect()
    }

    /// Where the tile's origin lies, `[x, y, z]`.
    #[wasm_bindgen(getter)]
    pub fn placement(&self) -> Vec<f64> {
        self.mesh.placement.to_vec()
    }

    /// Vertices per edge.
    #[wasm_bindgen(getter)]
    pub fn resolution(&self) -> u32 {
        self.mesh.resolution
    }
}

#[wasm_bindgen]
impl Replica {
    /// The exact height at `(x, z)` (zones included): `getHeightAt`. NaN for a point
    /// the server refuses ([`Self::refusal`] throws why): a plain number, so the call
    /// allocates nothing (a `Result` is an array per call in wasm-bindgen's glue).
    #[wasm_bindgen(js_name = heightAt)]
    pub fn height_at(&self, x: f64, z: f64) -> f64 {
        self.view().height_at(x, z).unwrap_or(f64::NAN)
    }

    /// Throws why `(x, z)` is refused (`x: must be finite`), for a read that answered
    /// NaN; answers NaN for a point that is not.
    pub fn refusal(&self, x: f64, z: f64) -> Result<f64, JsError> {
        point(x, z)?;
        Ok(f64::NAN)
    }

    /// Exact heights of `points` (`[x0, z0, ...]`), all at the view.
    pub fn heights(&self, flat: &[f64]) -> Result<Vec<f64>, JsError> {
        let s = self.view();
        Ok(points(flat)?
            .into_iter()
            .map(|(x, z)| s.terrain().height(x, z))
            .collect())
    }

    /// Surface-mode heights of `points` (`[x0, z0, ...]`), as [`Self::surface_height_at`]
    /// reads each.
    #[wasm_bindgen(js_name = surfaceHeights)]
    pub fn surface_heights(&mut self, flat: &[f64]) -> Result<Vec<f64>, JsError> {
        let points = points(flat)?;
        self.with_surface(|cache| {
            points
                .into_iter()
                .map(|(x, z)| cache.height_at(x, z).map_err(sdk_error))
                .collect()
        })
    }

    /// The surface-mode height at `(x, z)` at the view: the server's `mode = surface`
    /// answer. A tile read often is kept and read by a cell lookup
    /// ([`SurfaceCache`](terrain_client::SurfaceCache)); others are evaluated on the spot.
    /// NaN for a point the server refuses ([`Self::refusal`] throws why), as
    /// [`Self::height_at`].
    #[wasm_bindgen(js_name = surfaceHeightAt)]
    pub fn surface_height_at(&mut self, x: f64, z: f64) -> f64 {
        self.with_surface(|cache| cache.height_at(x, z))
            .unwrap_or(f64::NAN)
    }

    /// How many tiles [`Self::surface_height_at`] keeps at the view.
    #[wasm_bindgen(getter = surfaceTilesKept)]
    pub fn surface_tiles_kept(&self) -> usize {
        self.surface
            .as_ref()
            .filter(|c| c.is_of(&self.state.view))
            .map_or(0, |c| c.kept())
    }

    /// The procedural height (no zones, no shoreline): `getProceduralHeightAt`. NaN
    /// for a point the server refuses, as [`Self::height_at`].
    #[wasm_bindgen(js_name = proceduralHeightAt)]
    pub fn procedural_height_at(&self, x: f64, z: f64) -> f64 {
        match check_point(x, z) {
            Ok(()) => self.view().terrain().procedural(x, z),
            Err(_) => f64::NAN,
        }
    }

    /// The surface-mode height at `(x, z)`, evaluated on the spot.
    #[wasm_bindgen(js_name = surfaceEvaluated)]
    pub fn surface_evaluated(&self, x: f64, z: f64) -> Result<f64, JsError> {
        self.view().surface_height_at(x, z).map_err(sdk_error)
    }

    /// `[epoch, size, shift, step, n]`: the view's epoch and its tile grid.
    #[wasm_bindgen(js_name = surfaceLayout)]
    pub fn surface_layout(&self) -> Vec<f64> {
        let grid: TileGrid = self.view().terrain().generator().tile_grid();
        let [size, shift, step, n] = view::grid_numbers(&grid);
        vec![self.state.epoch as f64, size, shift, step, n]
    }

    /// Tile `(tx, tz)`'s float32 vertex heights at the view, row-major.
    #[wasm_bindgen(js_name = surfaceTile)]
    pub fn surface_tile(&self, tx: f64, tz: f64) -> Result<Vec<f32>, JsError> {
        view::surface_tile(self.view().terrain(), tx, tz).map_err(js_error)
    }

    /// `getNormalAt` into `out[0..3]`.
    pub fn normal(&self, x: f64, z: f64, out: &mut [f64]) -> Result<(), JsError> {
        point(x, z)?;
        out_len(out, 3)?;
        out[..3].copy_from_slice(&self.view().terrain().normal(x, z));
        Ok(())
    }

    /// `isPositionWalkable`'s reason code: 0 walkable, 1 water, 2 slope, 3 zone, 4 step.
    pub fn blocked(&self, x: f64, z: f64) -> Result<u32, JsError> {
        point(x, z)?;
        let walker = Walker::new(self.view().terrain(), self.rule()?);
        Ok(view::reason_code(walker.blocked(x, z)))
    }

    /// `getTerrainInfoAt` into `out[0..5]`: height, slope, underwater, reason code,
    /// biome index.
    pub fn info(&self, x: f64, z: f64, out: &mut [f64]) -> Result<(), JsError> {
        point(x, z)?;
        out_len(out, 5)?;
        out[..5].copy_from_slice(&info_answer(self.view().terrain(), self.rule()?, x, z));
        Ok(())
    }

    /// `getDifficultyAtWorldPosition` into `out[0..5]`: level, scalar, tier, isSafe,
    /// biome index; `hasTier` takes `tier` as the tier.
    pub fn difficulty(
        &self,
        x: f64,
        z: f64,
        has_tier: bool,
        tier: f64,
        out: &mut [f64],
    ) -> Result<(), JsError> {
        point(x, z)?;
        out_len(out, 5)?;
        let towns = self.state.overlay.towns().unwrap_or(&self.towns);
        let rule = self.world.walkability.as_ref();
        let tier = has_tier.then_some(tier);
        let d = view::difficulty_answer(self.view().terrain(), rule, towns, tier, x, z)
            .map_err(js_error)?;
        out[..5].copy_from_slice(&d);
        Ok(())
    }

    /// Whether a zone decides the height at `(x, z)` (core or blend).
    #[wasm_bindgen(js_name = inZone)]
    pub fn in_zone(&self, x: f64, z: f64) -> Result<bool, JsError> {
        point(x, z)?;
        Ok(self.view().terrain().zones().zone_at(x, z).is_some())
    }

    /// The id of the zone deciding the height at `(x, z)` (core or blend), or `null`.
    #[wasm_bindgen(js_name = zoneAt)]
    pub fn zone_at(&self, x: f64, z: f64) -> Result<Option<String>, JsError> {
        point(x, z)?;
        let zones = self.view().terrain().zones();
        Ok(zones.zone_at(x, z).map(|(zone, _)| zone.id.clone()))
    }

    /// The id of the zone whose height the exact height at `(x, z)` is, or `null`
    /// (`LocalTerrain.zoneAt`).
    #[wasm_bindgen(js_name = sampleZone)]
    pub fn sample_zone(&self, x: f64, z: f64) -> Result<Option<String>, JsError> {
        point(x, z)?;
        let sample = self.view().terrain().sample(x, z);
        Ok(sample.zone.map(|(zone, _)| zone.id.clone()))
    }

    /// Zone `id` of the view as the API writes it (JSON), or `null`.
    pub fn zone(&self, id: &str) -> Result<Option<String>, JsError> {
        let zones = self.view().terrain().zones();
        zones
            .get(id)
            .map(|z| serde_json::to_string(&ZoneDoc::from_zone(z)).map_err(js_error))
            .transpose()
    }

    /// The outer bounds of every zone of the view, `[minX, minZ, maxX, maxZ, ...]`.
    #[wasm_bindgen(js_name = zoneBounds)]
    pub fn zone_bounds(&self) -> Vec<f64> {
        view::zone_bounds(self.view().terrain())
    }

    /// The index of the first of `points` where an entity may not stand, or -1.
    #[wasm_bindgen(js_name = firstBlocked)]
    pub fn first_blocked(&self, flat: &[f64]) -> Result<i32, JsError> {
        let pts = points(flat)?;
        Ok(first_blocked(self.view().terrain(), self.rule()?, &pts))
    }

    /// The walk grid of `w x d` tiles from tile `(x0, z0)` into `flags`; with a
    /// non-empty `heights`, the heights at the tile centres too.
    #[allow(clippy::too_many_arguments)]
    pub fn grid(
        &self,
        x0: f64,
        z0: f64,
        w: u32,
        d: u32,
        flags: &mut [u8],
        heights: &mut [f64],
    ) -> Result<(), JsError> {
        view::check_walk_grid(x0, z0, w, d, flags.len(), heights.len()).map_err(js_error)?;
        let rule = self.rule()?;
        view::walk_grid(self.view().terrain(), rule, x0, z0, w, d, flags, heights).map_err(js_error)
    }

    /// The world facts the Hyperscape adapter needs once, as JSON (the addon's
    /// `hsWorld`).
    #[wasm_bindgen(js_name = worldFacts)]
    pub fn world_facts(&self) -> String {
        let rule = self.world.walkability.as_ref();
        view::world_facts(self.view().terrain(), rule, &self.towns)
    }

    /// Terrain info at `(x, z)` by the world's rule, as JSON (one object of
    /// [`Replica::terrain_infos`]).
    #[wasm_bindgen(js_name = terrainInfo)]
    pub fn terrain_info(&self, x: f64, z: f64) -> Result<String, JsError> {
        point(x, z)?;
        let list = self.terrain_infos(&[x, z])?;
        Ok(list[1..list.len() - 1].to_string())
    }

    /// Terrain info at `points` by the world's rule, as JSON: `[{height, biome, slope,
    /// underwater, walkable, reason}, ...]` (the server's `terrain-info`).
    #[wasm_bindgen(js_name = terrainInfos)]
    pub fn terrain_infos(&self, flat: &[f64]) -> Result<String, JsError> {
        if !flat.len().is_multiple_of(2) {
            points(flat)?;
        }
        let pts: Vec<(f64, f64)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        let infos = LocalWalk::new(self.view(), self.rule()?)
            .terrain_info(&pts)
            .map_err(sdk_error)?;
        let list: Vec<Value> = infos
            .points
            .into_iter()
            .map(|p| {
                json!({
                    "height": p.height,
                    "walkable": p.walkable(),
                    "biome": p.biome,
                    "slope": p.slope,
                    "underwater": p.underwater,
                    "reason": p.reason.map(|r| r.code()),
                })
            })
            .collect();
        Ok(Value::Array(list).to_string())
    }

    /// The path check of the polyline `points` in `mode` (`"hyperscape"`, or
    /// `"exact"` the default), as JSON: `{blocked, at, reason, path}`.
    #[wasm_bindgen(js_name = checkPath)]
    pub fn check_path(&self, flat: &[f64], mode: Option<String>) -> Result<String, JsError> {
        let mode = match mode.as_deref() {
            None | Some("exact") => PathMode::Exact,
            Some("hyperscape") => PathMode::Hyperscape,
            Some(other) => {
                return Err(js_error(format!(
                    "mode: unknown mode {other:?}; expected \"hyperscape\" or \"exact\""
                )));
            }
        };
        if !flat.len().is_multiple_of(2) {
            points(flat)?;
        }
        let pts: Vec<(f64, f64)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        let check = LocalWalk::new(self.view(), self.rule()?)
            .check_path(&pts, mode)
            .map_err(sdk_error)?;
        Ok(json!({
            "blocked": check.blocked.is_some(),
            "at": check.blocked.map(|((x, z), _)| [x, z]),
            "reason": check.blocked.map(|(_, r)| r.code()),
            "path": flatten(&check.path),
        })
        .to_string())
    }

    /// A shortest path over the 1 m movement tiles, as JSON: `{found, waypoints,
    /// length, expanded, reason}`. `maxNodes` a whole number, `maxDistance` metres.
    #[wasm_bindgen(js_name = findPath)]
    pub fn find_path(
        &self,
        from_x: f64,
        from_z: f64,
        to_x: f64,
        to_z: f64,
        max_nodes: Option<f64>,
        max_distance: Option<f64>,
    ) -> Result<String, JsError> {
        let max_nodes = match max_nodes {
            None => None,
            Some(n) if n.fract() == 0.0 && n >= 0.0 && n <= u64::MAX as f64 => Some(n as u64),
            Some(n) => {
                return Err(js_error(format!(
                    "maxNodes: must be a whole number, got {n}"
                )));
            }
        };
        let found = LocalWalk::new(self.view(), self.rule()?)
            .find_path((from_x, from_z), (to_x, to_z), max_nodes, max_distance)
            .map_err(sdk_error)?;
        let (ok, waypoints, reason) = match found.found {
            Ok(w) => (true, flatten(&w), None),
            Err(why) => (false, Vec::new(), Some(unreachable_code(why))),
        };
        Ok(json!({
            "found": ok,
            "waypoints": waypoints,
            "length": found.length,
            "expanded": found.expanded,
            "reason": reason,
        })
        .to_string())
    }

    /// Tile `(tx, tz)`'s mesh at the view, as the server's mesh routes serve it
    /// (terrain-client's `view::tile_mesh`, as the Node addon's), or the refusal naming
    /// `tx`, `tz` or `world` (a voxel world).
    #[wasm_bindgen(js_name = tileMesh)]
    pub fn tile_mesh(&self, tx: f64, tz: f64) -> Result<TileMesh, JsError> {
        let version = self.state.base.revision();
        let mesh = view::tile_mesh(self.view().terrain(), tx, tz, version).map_err(js_error)?;
        Ok(TileMesh { mesh })
    }

    /// A voxel world's chunk `(cx, cz)` at the view, in the encoding of the server's
    /// `GetChunkBlocks` (`blocks`; terrain-client's `view::chunk_blocks`, as the Node
    /// addon's); `undefined` for other worlds.
    #[wasm_bindgen(js_name = chunkBlocks)]
    pub fn chunk_blocks(&self, cx: f64, cz: f64) -> Result<Option<Vec<u8>>, JsError> {
        view::chunk_blocks(self.view().terrain(), cx, cz).map_err(js_error)
    }
}

/// A path search's `reason`, as the server spells it.
fn unreachable_code(u: terrain_client::Unreachable) -> &'static str {
    match u {
        terrain_client::Unreachable::StartBlocked => "start_blocked",
        terrain_client::Unreachable::GoalBlocked => "goal_blocked",
        terrain_client::Unreachable::NoPath => "no_path",
        terrain_client::Unreachable::NodeBudget => "node_budget",
    }
}
