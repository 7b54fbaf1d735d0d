//! Movement queries both surfaces share: terrain info at points, path checks along a
//! polyline, and path finding, each by the world's walkability rule
//! ([`World::walk_rule`]) on one snapshot of its terrain, answered with the revision
//! of that snapshot; terrain info and path checks also as of an earlier revision
//! (`revision`, [`QueryEngine::ground`]), answered with that revision.
//!
//! Every query's size is bounded before any work: at most `max_batch_points` points of
//! terrain info, a polyline of at most [`MAX_PATH_POINTS`] points and
//! [`MAX_PATH_LENGTH`] metres, a search of at most [`MAX_NODES`] nodes over at most
//! [`MAX_DISTANCE`] metres. Work beyond a few hundred points runs on the compute pool,
//! admitted by its cost ([`crate::cost`]), so a path query never blocks the async
//! workers.

pub mod blocks;

use std::sync::Arc;

use terrain_core::{
    quote::Num,
    walk::{
        Build, PathCheck, PointDetails, TerrainInfo, Town, WalkGrids, Walker,
        find::{Found, NotFound, find_path},
        limits::{check_polyline, check_search},
    },
};

use super::{BatchNaming, QueryEngine, QueryError, check_batch};
use crate::{
    compute::Metered,
    cost::{Scope, search_units},
    validate::check_coordinate,
    world::{AsTerrain, World},
};

pub use terrain_core::walk::{
    find::MOVEMENT_TILE,
    limits::{
        MAX_DISTANCE, MAX_NODES, MAX_PATH_LENGTH, MAX_PATH_POINTS, MAX_WALK_GRID_SIDE,
        SearchFields as FindFields,
    },
};

/// Terrain info up to this many points is computed in place.
const INFO_IN_PLACE: usize = 256;
/// Heights one point of a path check reads: the point and its eight neighbours.
const HEIGHTS_PER_INFO: u64 = 9;
/// Heights one point of terrain info reads: the nine of its slope and the four of its
/// normal.
const HEIGHTS_PER_TERRAIN_INFO: u64 = 13;

/// How a path check samples a polyline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathMode {
    /// The original's `findWalkablePath`: 21 samples per segment.
    Hyperscape,
    /// Every movement tile each segment crosses, judged at its centre.
    Exact,
}

impl PathMode {
    /// The mode named `name` on the wire (`hyperscape`, `exact`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "hyperscape" => Some(PathMode::Hyperscape),
            "exact" => Some(PathMode::Exact),
            _ => None,
        }
    }
}

/// Terrain info at one point: the rule's judgement, and the point's normal and
/// (`hyperscape` rule) difficulty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointInfo {
    pub info: TerrainInfo,
    pub details: PointDetails,
}

/// A walk grid ([`QueryEngine::walk_grid`]): one byte of
/// [`terrain_core::walk::flags`] a 1 m tile, row-major, z rising.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkGridAnswer {
    pub flags: Vec<u8>,
    pub revision: u64,
}

/// The request of a walk grid: the first tile and the size in tiles, as given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkGridRequest {
    pub min_tile_x: f64,
    pub min_tile_z: f64,
    pub width: f64,
    pub depth: f64,
}

/// Terrain info at each requested point, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct InfoAnswer {
    pub points: Vec<PointInfo>,
    pub revision: u64,
}

/// Terrain info at `points` by `walker`, difficulty with `towns`: the batch path of
/// [`Walker::infos`] and each point's [`Walker::details`].
fn point_infos(walker: &Walker, towns: &[Town], points: &[(f64, f64)]) -> Vec<PointInfo> {
    walker
        .infos(points)
        .into_iter()
        .zip(points)
        .map(|(info, &(x, z))| PointInfo {
            info,
            details: walker.details(x, z, towns),
        })
        .collect()
}

/// A path check's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckAnswer {
    pub check: PathCheck,
    pub revision: u64,
}

/// A path search's answer: the path, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct FindAnswer {
    pub found: Result<Found, NotFound>,
    pub revision: u64,
}

/// A path search's request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindRequest {
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub max_nodes: Option<u64>,
    pub max_distance: Option<f64>,
}

impl QueryEngine {
    /// Terrain info at interleaved `coords` (`x0, z0, x1, z1, ...`: at least one point,
    /// checked in size and range, errors named by `naming`) as of `revision` (`None`:
    /// now), each point with its normal and, under the `hyperscape` rule, its
    /// difficulty with the world's towns.
    pub async fn terrain_info(
        &self,
        world: &Arc<World>,
        coords: Vec<f64>,
        naming: BatchNaming,
        revision: Option<u64>,
    ) -> Result<InfoAnswer, QueryError> {
        if !coords.len().is_multiple_of(2) {
            let reason = format!("an odd number of coordinates ({})", coords.len());
            return Err(QueryError::invalid(naming.list, reason));
        }
        if coords.is_empty() {
            return Err(QueryError::invalid(naming.list, "at least one point"));
        }
        let points = coords.len() / 2;
        self.check_batch_size(points, naming.list)?;
        check_batch(&coords, world.max_coordinate(), naming)?;
        let state = self.ground(world, revision).await?;
        let revision = state.revision();
        if points <= INFO_IN_PLACE {
            let walker = Walker::new(state.terrain(), world.walk_rule());
            let points = point_infos(&walker, world.towns(), &pairs(&coords));
            return Ok(InfoAnswer { points, revision });
        }
        let metered = Metered {
            meter: &world.meters().terrain_info,
            units: points as u64 * HEIGHTS_PER_TERRAIN_INFO,
            scope: naming.scope(),
        };
        let _admitted = self
            .compute()
            .admit(metered.meter, metered.units, metered.scope)?;
        let (rule, coords) = (world.walk_rule().clone(), Arc::new(coords));
        let towns: Arc<[Town]> = world.towns().into();
        let slices = points.div_ceil(INFO_IN_PLACE);
        let parts = self
            .compute()
            .run_metered(metered, slices, move |i| {
                let walker = Walker::new(state.terrain(), &rule);
                let end = (2 * INFO_IN_PLACE * (i + 1)).min(coords.len());
                point_infos(&walker, &towns, &pairs(&coords[2 * INFO_IN_PLACE * i..end]))
            })
            .await?;
        Ok(InfoAnswer {
            points: parts.concat(),
            revision,
        })
    }

    /// The walk grid of `req`'s tiles as of `revision` (`None`: now): each tile judged
    /// at its centre as terrain info judges it (the area path), with the zone-core
    /// flag. `minTileX`, `minTileZ` whole tile indices within range; `width`, `depth`
    /// whole numbers from 1 to [`MAX_WALK_GRID_SIDE`], at most `max_batch_points`
    /// tiles (field `width`).
    pub async fn walk_grid(
        &self,
        world: &Arc<World>,
        req: WalkGridRequest,
        revision: Option<u64>,
    ) -> Result<WalkGridAnswer, QueryError> {
        let max = world.max_coordinate();
        let index = |field: &'static str, v: f64| -> Result<i64, QueryError> {
            check_coordinate(v, max).map_err(|reason| QueryError::invalid(field, reason))?;
            if v.fract() != 0.0 {
                return Err(QueryError::invalid(
                    field,
                    format!("must be a whole tile index (got {})", Num(v)),
                ));
            }
            Ok(v as i64)
        };
        let side = |field: &'static str, v: f64| -> Result<usize, QueryError> {
            if !(v.is_finite()
                && v.fract() == 0.0
                && (1.0..=f64::from(MAX_WALK_GRID_SIDE)).contains(&v))
            {
                return Err(QueryError::invalid(
                    field,
                    format!(
                        "must be a whole number from 1 to {MAX_WALK_GRID_SIDE} (got {})",
                        Num(v)
                    ),
                ));
            }
            Ok(v as usize)
        };
        let (x0, z0) = (
            index("minTileX", req.min_tile_x)?,
            index("minTileZ", req.min_tile_z)?,
        );
        let (w, d) = (side("width", req.width)?, side("depth", req.depth)?);
        index("minTileX", (x0 + w as i64) as f64)?;
        index("minTileZ", (z0 + d as i64) as f64)?;
        let tiles = w * d;
        self.check_batch_size(tiles, "width")?;
        let state = self.ground(world, revision).await?;
        let revision = state.revision();
        let meters = Arc::clone(world.meters());
        let units = tiles as u64;
        let _admitted = self.compute().admit(
            &meters.terrain_info,
            units,
            Scope {
                field: "width",
                narrow: "ask for a smaller grid (several smaller ones)",
                spread: false,
                kept: false,
            },
        )?;
        let rule = world.walk_rule().clone();
        let (flags, took) = self
            .compute()
            .run_timed(move || Walker::new(state.terrain(), &rule).flags(x0, z0, w, d))
            .await
            .map_err(|e| QueryError::Internal(e.to_string()))?;
        meters.terrain_info.observe(units, took);
        Ok(WalkGridAnswer { flags, revision })
    }

    /// Checks the polyline `points` in `mode` as of `revision` (`None`: now); errors
    /// name `field` (or `field[i]`).
    pub async fn check_path(
        &self,
        world: &Arc<World>,
        points: Vec<(f64, f64)>,
        mode: PathMode,
        field: &'static str,
        revision: Option<u64>,
    ) -> Result<CheckAnswer, QueryError> {
        let length = check_polyline(&points, world.max_coordinate(), field)?;
        let state = self.ground(world, revision).await?;
        let revision = state.revision();
        // The exact mode judges about 1.5 tiles per metre; the sampled one 21 points a
        // segment; nine heights each.
        let judged = match mode {
            PathMode::Exact => 2.0 * length / MOVEMENT_TILE + points.len() as f64,
            PathMode::Hyperscape => 21.0 * points.len() as f64,
        };
        let units = (judged as u64).saturating_mul(HEIGHTS_PER_INFO);
        let meters = Arc::clone(world.meters());
        let _admitted = self.compute().admit(
            &meters.path_check,
            units,
            Scope {
                field,
                narrow: "check a shorter path (in several parts)",
                spread: false,
                kept: false,
            },
        )?;
        let rule = world.walk_rule().clone();
        let (blocks, world) = (self.walk_blocks.clone(), Arc::clone(world));
        let (check, took) = self
            .compute()
            .run_timed(move || {
                let walker = Walker::new(state.terrain(), &rule);
                match (mode, state.current()) {
                    (PathMode::Hyperscape, _) => walker.check_sampled(&points),
                    // Now: over the kept blocks, building those met again.
                    (PathMode::Exact, Some(now)) => {
                        let store = blocks.store(&world, now);
                        WalkGrids::with_store(&walker, &store, Build::WhenWanted)
                            .check_tiles(&points)
                    }
                    // As of a past revision: blocks are kept for the current one only.
                    (PathMode::Exact, None) => walker.check_tiles(&points, MOVEMENT_TILE),
                }
            })
            .await
            .map_err(|e| QueryError::Internal(e.to_string()))?;
        meters.path_check.observe(units, took);
        Ok(CheckAnswer { check, revision })
    }

    /// A shortest path over the movement tiles from `req.from` to `req.to`.
    pub async fn find_path(
        &self,
        world: &Arc<World>,
        req: FindRequest,
        fields: FindFields,
    ) -> Result<FindAnswer, QueryError> {
        let bounds = check_search(
            req.from,
            req.to,
            req.max_nodes,
            req.max_distance,
            world.max_coordinate(),
            fields,
        )?;
        let max_nodes = bounds.max_nodes;
        let state = world.snapshot();
        let revision = state.revision();
        let (blocks, world) = (self.walk_blocks.clone(), Arc::clone(world));
        // A search may expand its whole node budget (a goal walled off, a long way
        // round): it is admitted as if it will, at what its world's searches have
        // really cost a node.
        let meters = Arc::clone(world.meters());
        let budget = search_units(max_nodes as u64);
        let _admitted = self.compute().admit(
            &meters.path_node,
            budget,
            Scope {
                field: fields.max_nodes,
                narrow: "lower it (a search is admitted as if it expands every node it \
                             may) or search a shorter way, in legs",
                spread: false,
                kept: false,
            },
        )?;
        let rule = world.walk_rule().clone();
        let (found, took) = self
            .compute()
            .run_timed(move || {
                let walker = Walker::new(state.terrain(), &rule);
                let store = blocks.store(&world, &state);
                let mut grids = WalkGrids::with_store(&walker, &store, Build::Always);
                find_path(req.from, req.to, MOVEMENT_TILE, max_nodes, &mut grids)
            })
            .await
            .map_err(|e| QueryError::Internal(e.to_string()))?;
        let expanded = match &found {
            Ok(f) => f.expanded,
            Err(n) => n.expanded,
        };
        meters
            .path_node
            .observe(search_units(expanded as u64), took);
        Ok(FindAnswer { found, revision })
    }
}

/// Interleaved coordinates (`x0, z0, x1, z1, ...`) as points (an odd last one dropped:
/// callers check the count first).
fn pairs(coords: &[f64]) -> Vec<(f64, f64)> {
    coords.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}
