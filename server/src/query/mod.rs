//! The height queries both surfaces share: world lookup, input validation against the
//! configured [`Limits`], dispatch to the compute pool, and accounting.
//!
//! gRPC and HTTP only translate their wire formats to these calls and the answers (or
//! [`QueryError`]s) back, so the two surfaces validate identically and answer with the
//! same bits. Heights come from the world's [`terrain_core::Terrain`] (generator plus
//! flat zones), read from one snapshot of the world together with the revision they
//! reflect; or, for a query as of an earlier revision (`revision`), from the ground
//! the world had then ([`World::past`], [`crate::world::asof`]), answered with that
//! revision. [`zones`] holds the flat-zone calls, [`mesh`] the tile mesh calls,
//! [`blocks`] the voxel chunk calls (blocks and instances).

pub mod blocks;
pub mod error;
pub mod kernels;
pub mod layout;
pub mod mesh;
pub mod walk;
pub mod zones;

use std::sync::Arc;

use terrain_core::{
    Grid,
    mesh::{SurfaceTiles, surface_height},
    quote::Num,
};

pub use self::error::QueryError;
/// The shared coordinate check (it lives in [`crate::validate`]).
pub use crate::validate::check_coordinate;

use crate::{
    compute::{Compute, Metered, OFFLOAD_THRESHOLD},
    config::Limits,
    cost::{Scope, Slots, Ticket, rebuild_units},
    mesh::MeshCache,
    metrics::Metrics,
    world::{
        AsTerrain, World, Worlds,
        asof::{Ground, Past},
    },
};

/// How a surface names a batch and its elements in error messages: the edge's
/// business, so each surface passes its own (`api::http::heights::POINTS`,
/// `api::grpc::heights::COORDINATES`).
#[derive(Debug, Clone, Copy)]
pub struct BatchNaming {
    /// The name of the whole batch.
    pub list: &'static str,
    /// The field and reason for flat coordinate `k` (x at even `k`, z at odd)
    /// failing with `reason`.
    pub element: fn(k: usize, reason: String) -> (String, String),
}

/// Vertex heights a surface height reads where its tile's mesh is not cached.
const SURFACE_HEIGHTS: u64 = 4;

/// A heightmap's computation, for its refusal when it could not finish in time alone.
const HEIGHTMAP_SCOPE: Scope = Scope {
    field: "nx*nz",
    narrow: "ask for fewer samples (several smaller heightmaps)",
    spread: true,
    kept: false,
};

/// A rebuild of a past revision's ground, for its refusal when it could not finish in
/// time alone.
const REBUILD_SCOPE: Scope = Scope {
    field: "revision",
    narrow: "ask as of a recent revision (the current one needs no rebuild)",
    spread: false,
    kept: false,
};

impl BatchNaming {
    /// A batch's computation, for its refusal when it could not finish in time alone.
    pub(crate) fn scope(self) -> Scope {
        Scope {
            field: self.list,
            narrow: "ask for fewer points (several smaller batches)",
            spread: true,
            kept: false,
        }
    }

    /// The error for flat coordinate `k` failing with `reason`.
    fn element_error(self, k: usize, reason: String) -> QueryError {
        let (field, reason) = (self.element)(k, reason);
        QueryError::invalid(field, reason)
    }
}

/// Which height a single-point query answers: the shared model's.
pub use terrain_model::HeightMode;

/// The answer to a single-point query.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightAnswer {
    pub x: f64,
    pub z: f64,
    pub height: f64,
    /// The id of the zone that decided the height, if one did.
    pub zone: Option<String>,
    pub revision: u64,
}

/// The answer to a batch: one height per point, in request order.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchAnswer {
    pub heights: Vec<f64>,
    /// One zone id per point (empty where the terrain decided), when asked for;
    /// otherwise empty.
    pub zones: Vec<String>,
    pub revision: u64,
}

/// Whether a batch answer names the deciding zone of each point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneIds {
    Include,
    Omit,
}

/// A heightmap request as it arrives; counts are wide so no surface has to clamp.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeightmapRequest {
    pub x0: f64,
    pub z0: f64,
    pub step: f64,
    pub nx: u64,
    pub nz: u64,
}

/// A heightmap: `grid.len()` heights, index `iz * nx + ix`.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightmapAnswer {
    pub grid: Grid,
    pub heights: Vec<f64>,
    pub revision: u64,
}

/// The smallest heightmap step, in metres: a millimetre, far below any grid's vertex
/// spacing (1 m osrs, 1.59 m hyperscape).
pub const MIN_HEIGHTMAP_STEP: f64 = 1e-3;

/// The query engine of one server.
#[derive(Debug)]
pub struct QueryEngine {
    worlds: Arc<Worlds>,
    limits: Limits,
    compute: Compute,
    metrics: Arc<Metrics>,
    /// Built tile meshes, shared with the registry as its first commit listener.
    meshes: Arc<MeshCache>,
    /// The blocks of movement tiles path checks and searches keep
    /// ([`walk::blocks`]), within an eighth of `mesh_cache_bytes`.
    walk_blocks: walk::blocks::WalkBlocks,
    /// Grounds of past revisions being rebuilt, over all worlds: one per compute
    /// thread (the pool cannot run more at once, and each holds a copy of its world's
    /// zones while it waits), so their memory is bounded by that many grounds plus the
    /// few each world keeps built.
    rebuilds: Slots,
}

impl QueryEngine {
    /// An engine over `worlds`, refusing requests beyond `limits`, offloading to
    /// `compute`, counting heights in `metrics` and serving meshes from `meshes`.
    pub fn new(
        worlds: Arc<Worlds>,
        limits: Limits,
        compute: Compute,
        metrics: Arc<Metrics>,
        meshes: Arc<MeshCache>,
    ) -> Self {
        QueryEngine {
            worlds,
            walk_blocks: walk::blocks::WalkBlocks::new(
                limits.mesh_cache_bytes / 8,
                Arc::clone(&metrics),
            ),
            limits,
            rebuilds: Slots::new(compute.threads(), "rebuilds of past revisions' grounds"),
            compute,
            metrics,
            meshes,
        }
    }

    /// The tile mesh cache.
    pub fn meshes(&self) -> &Arc<MeshCache> {
        &self.meshes
    }

    /// The hosted worlds, in configuration order.
    pub fn worlds(&self) -> &Arc<Worlds> {
        &self.worlds
    }

    /// The request limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The pool, for surfaces that offload their own encoding work.
    pub fn compute(&self) -> &Compute {
        &self.compute
    }

    /// The world called `id`, or `NOT_FOUND` (field `world`).
    pub fn world(&self, id: &str) -> Result<&Arc<World>, QueryError> {
        Ok(self.worlds.get(id)?)
    }

    /// The ground of `world` to answer from as of `revision` ([`World::past`]): the
    /// current state at once when `None` (or the current revision); the ground of an
    /// earlier revision from the cache or built on the pool. A revision newer than the
    /// world's, or older than its history reaches, is `FAILED_PRECONDITION` (field
    /// `revision`). A rebuild is admitted by its estimated cost (the world's
    /// `rebuild_zone` meter times its zones) and only while fewer than one per compute
    /// thread are in progress; otherwise it is refused at once (`RESOURCE_EXHAUSTED`
    /// with `Retry-After`).
    pub async fn ground(
        &self,
        world: &Arc<World>,
        revision: Option<u64>,
    ) -> Result<Ground, QueryError> {
        let plan = match world.past(revision)? {
            Past::Ready(ground) => return Ok(ground),
            Past::ToBuild(plan) => plan,
        };
        // A rebuild is admitted by its cost like any pool work, and at most one per
        // compute thread runs at once: the rest are refused at once.
        let meters = Arc::clone(world.meters());
        let units = rebuild_units(plan.zones());
        let estimate = meters.rebuild.estimate(units);
        let _slot = self.rebuilds.take(estimate)?;
        let _admitted = self.compute.admit(&meters.rebuild, units, REBUILD_SCOPE)?;
        let world = Arc::clone(world);
        let (ground, took) = self
            .compute
            .run_timed(move || world.build_past(plan))
            .await
            .map_err(|e| QueryError::Internal(e.to_string()))?;
        meters.rebuild.observe(units, took);
        Ok(ground)
    }

    /// What a procedural answer as of `revision` (`None`: now) reads and carries: a
    /// ground of the world (any revision's: procedural heights read no zones, and the
    /// generator and layout never change) and the revision, checked as
    /// [`QueryEngine::ground`] checks it (outside the world's history it is
    /// `FAILED_PRECONDITION`, field `revision`) but without building any past ground.
    fn zone_free(&self, world: &World, revision: Option<u64>) -> Result<(Ground, u64), QueryError> {
        Ok(match world.past(revision)? {
            Past::Ready(ground) => {
                let revision = ground.revision();
                (ground, revision)
            }
            Past::ToBuild(plan) => (Ground::Current(Arc::clone(plan.state())), plan.revision()),
        })
    }

    /// The height at `(x, z)` in `mode` as of `revision` (`None`: now), and the zone
    /// that decided the exact height there (none for a procedural height, which no
    /// zone decides). A surface height samples four vertices: cheap, computed in place.
    pub async fn height_in(
        &self,
        world: &Arc<World>,
        x: f64,
        z: f64,
        mode: HeightMode,
        revision: Option<u64>,
    ) -> Result<HeightAnswer, QueryError> {
        let max = world.max_coordinate();
        check_coordinate(x, max).map_err(|reason| QueryError::invalid("x", reason))?;
        check_coordinate(z, max).map_err(|reason| QueryError::invalid("z", reason))?;
        let (height, zone, revision) = if mode == HeightMode::Procedural {
            let (ground, revision) = self.zone_free(world, revision)?;
            (ground.terrain().procedural(x, z), None, revision)
        } else {
            let ground = self.ground(world, revision).await?;
            let terrain = ground.terrain();
            let sample = terrain.sample(x, z);
            let zone = sample.zone.map(|(zone, _)| zone.id.clone());
            let height = match mode {
                HeightMode::Surface => surface_height(terrain, x, z),
                // Procedural heights are answered above, without a sample.
                HeightMode::Exact | HeightMode::Procedural => sample.height,
            };
            (height, zone, ground.revision())
        };
        world.lookups().record(1, u64::from(zone.is_some()));
        self.metrics.heights_computed(world.id(), 1);
        Ok(HeightAnswer {
            x,
            z,
            height,
            zone,
            revision,
        })
    }

    /// Heights at interleaved `coords` (x0, z0, x1, z1, ...), in order, in `mode`, as
    /// of `revision` (`None`: now). Exact heights come with the deciding zone of each
    /// point if `ids` asks for them; surface and procedural heights never do. Large
    /// batches are validated and computed on the pool.
    pub async fn heights(
        &self,
        world: &Arc<World>,
        coords: Vec<f64>,
        naming: BatchNaming,
        ids: ZoneIds,
        mode: HeightMode,
        revision: Option<u64>,
    ) -> Result<BatchAnswer, QueryError> {
        if !coords.len().is_multiple_of(2) {
            let reason = format!(
                "odd number of coordinates ({}), expected x, z pairs",
                coords.len()
            );
            return Err(QueryError::invalid(naming.list, reason));
        }
        let points = coords.len() / 2;
        self.check_batch_size(points, naming.list)?;
        let max = world.max_coordinate();
        match mode {
            HeightMode::Surface => {
                return self.surface_heights(world, coords, naming, revision).await;
            }
            HeightMode::Procedural => {
                return self
                    .procedural_heights(world, coords, naming, revision)
                    .await;
            }
            HeightMode::Exact => {}
        }
        let with_zones = ids == ZoneIds::Include;
        let (samples, revision) = if points <= OFFLOAD_THRESHOLD {
            check_batch(&coords, max, naming)?;
            let ground = self.ground(world, revision).await?;
            let samples = kernels::samples_serial(ground.terrain(), &coords, with_zones);
            (samples, ground.revision())
        } else {
            let (_admitted, metered) = self.batch_metered(world, points as u64, naming.scope())?;
            let coords = Arc::new(coords);
            let checked = Arc::clone(&coords);
            self.offload(move || check_batch(&checked, max, naming))
                .await?;
            let ground = self.ground(world, revision).await?;
            let revision = ground.revision();
            let samples =
                kernels::samples_sliced(&self.compute, metered, ground, coords, with_zones).await?;
            (samples, revision)
        };
        world.lookups().record(points as u64, samples.hits);
        self.metrics.heights_computed(world.id(), points);
        Ok(BatchAnswer {
            heights: samples.heights,
            zones: samples.zones,
            revision,
        })
    }

    /// Procedural heights at interleaved `coords` (validated in size), on the pool in
    /// slices when the batch is large. As of a `revision` the world's history holds,
    /// the same heights (no zone is read) answered with that revision.
    async fn procedural_heights(
        &self,
        world: &Arc<World>,
        coords: Vec<f64>,
        naming: BatchNaming,
        revision: Option<u64>,
    ) -> Result<BatchAnswer, QueryError> {
        let max = world.max_coordinate();
        let points = coords.len() / 2;
        let (heights, revision) = if points <= OFFLOAD_THRESHOLD {
            check_batch(&coords, max, naming)?;
            let (ground, revision) = self.zone_free(world, revision)?;
            (
                kernels::procedural_serial(ground.terrain(), &coords),
                revision,
            )
        } else {
            let (_admitted, metered) = self.batch_metered(world, points as u64, naming.scope())?;
            let coords = Arc::new(coords);
            let checked = Arc::clone(&coords);
            self.offload(move || check_batch(&checked, max, naming))
                .await?;
            let (ground, revision) = self.zone_free(world, revision)?;
            let heights =
                kernels::procedural_sliced(&self.compute, metered, ground, coords).await?;
            (heights, revision)
        };
        world.lookups().record(points as u64, 0);
        self.metrics.heights_computed(world.id(), points);
        Ok(BatchAnswer {
            heights,
            zones: Vec::new(),
            revision,
        })
    }

    /// Surface-mode heights at interleaved `coords` (validated in size): for each tile
    /// the points fall in, its cached mesh's vertex heights when the cache holds the
    /// tile at the snapshot's version (no evaluation at all), else the surface
    /// evaluated point by point. Bit for bit the single-point surface height either way.
    /// As of an earlier `revision` every point is evaluated on that revision's ground:
    /// the cached meshes are of the current versions.
    async fn surface_heights(
        &self,
        world: &Arc<World>,
        coords: Vec<f64>,
        naming: BatchNaming,
        revision: Option<u64>,
    ) -> Result<BatchAnswer, QueryError> {
        let max = world.max_coordinate();
        let points = coords.len() / 2;
        let layout = world.tile_grid();
        let coords = Arc::new(coords);
        let tiles = move |coords: &[f64]| {
            check_batch(coords, max, naming)?;
            Ok::<_, QueryError>(kernels::distinct_tiles(&layout, coords))
        };
        let keys = if points <= OFFLOAD_THRESHOLD {
            tiles(&coords)?
        } else {
            let checked = Arc::clone(&coords);
            self.offload(move || tiles(&checked)).await?
        };
        let ground = self.ground(world, revision).await?;
        let revision = ground.revision();
        let mut surfaces = SurfaceTiles::new(layout);
        if let Some(state) = ground.current() {
            for key in keys {
                let version = state.tile_version(key);
                if let Some(tile) = self
                    .meshes
                    .surface_tile(world.id(), key, version, layout)
                    .await
                {
                    surfaces.insert(tile);
                }
            }
        }
        let cached = surfaces.len();
        // A point not on a cached tile reads four vertex heights: admitted as that many
        // points of a batch (the cached ones cost next to nothing).
        let units = (points as u64).saturating_mul(SURFACE_HEIGHTS);
        let metered = Metered {
            meter: &world.meters().batch,
            units,
            scope: naming.scope(),
        };
        let _admitted = match points > OFFLOAD_THRESHOLD {
            true => Some(self.compute.admit(metered.meter, units, metered.scope)?),
            false => None,
        };
        let surfaces = Arc::new(surfaces);
        let heights =
            kernels::surface_sliced(&self.compute, metered, ground, surfaces, coords).await?;
        world.lookups().record(points as u64, 0);
        self.metrics.heights_computed(world.id(), points);
        self.metrics.surface_tiles_read(world.id(), cached);
        Ok(BatchAnswer {
            heights,
            zones: Vec::new(),
            revision,
        })
    }

    /// Refuses a batch of `points` over the limit, blaming `field`.
    pub fn check_batch_size(&self, points: usize, field: &'static str) -> Result<(), QueryError> {
        let limit = self.limits.max_batch_points;
        if points > limit {
            let reason = format!("{points} points exceed the limit of {limit} per request");
            return Err(QueryError::too_large(field, reason));
        }
        Ok(())
    }

    /// The heightmap `req` describes, in `mode`. Large ones are computed on the pool.
    pub async fn heightmap(
        &self,
        world: &Arc<World>,
        req: HeightmapRequest,
        mode: HeightMode,
    ) -> Result<HeightmapAnswer, QueryError> {
        let grid = self.check_heightmap(world, &req)?;
        if mode != HeightMode::Exact {
            return self.heightmap_pointwise(world, grid, mode).await;
        }
        let (heights, revision) = if grid.len() <= OFFLOAD_THRESHOLD {
            let state = world.snapshot();
            let heights = kernels::heightmap_serial(state.terrain(), &grid);
            (heights, state.revision())
        } else {
            let meters = world.meters();
            let metered = Metered {
                meter: &meters.heightmap,
                units: grid.len() as u64,
                scope: HEIGHTMAP_SCOPE,
            };
            let _admitted = self
                .compute
                .admit(metered.meter, metered.units, metered.scope)?;
            let state = world.snapshot();
            let revision = state.revision();
            let heights = kernels::heightmap_sliced(&self.compute, metered, state, grid).await?;
            (heights, revision)
        };
        self.metrics.heights_computed(world.id(), heights.len());
        Ok(HeightmapAnswer {
            grid,
            heights,
            revision,
        })
    }

    /// A surface or procedural heightmap (validated): each sample evaluated on its
    /// own, as the single-point query in that mode answers it, on the pool in slices
    /// when the grid is large. Surface samples are evaluated, never read from cached
    /// meshes.
    async fn heightmap_pointwise(
        &self,
        world: &Arc<World>,
        grid: Grid,
        mode: HeightMode,
    ) -> Result<HeightmapAnswer, QueryError> {
        let state = world.snapshot();
        let revision = state.revision();
        let heights = if grid.len() <= OFFLOAD_THRESHOLD {
            kernels::pointwise_serial(state.terrain(), &grid, mode, 0..grid.len())
        } else {
            // A surface sample reads four vertex heights, a procedural one about one
            // height: admitted as that many points of a batch (evaluated one by one
            // too, unlike an exact heightmap's area path).
            let per_sample = if mode == HeightMode::Surface {
                SURFACE_HEIGHTS
            } else {
                1
            };
            let units = grid.len() as u64 * per_sample;
            let (_admitted, metered) = self.batch_metered(world, units, HEIGHTMAP_SCOPE)?;
            kernels::pointwise_sliced(&self.compute, metered, state, grid, mode).await?
        };
        self.metrics.heights_computed(world.id(), heights.len());
        Ok(HeightmapAnswer {
            grid,
            heights,
            revision,
        })
    }

    /// Validates a heightmap request against this engine's limits and `world`'s
    /// coordinate range ([`heightmap_grid`]).
    fn check_heightmap(&self, world: &World, req: &HeightmapRequest) -> Result<Grid, QueryError> {
        let limits = Limits {
            max_coordinate: world.max_coordinate(),
            ..self.limits
        };
        heightmap_grid(req, &limits)
    }

    /// `units` of batch-point work on `world` (its batch meter), admitted as what
    /// `scope` says it is, and the admission that holds it in the queue.
    fn batch_metered<'w>(
        &self,
        world: &'w World,
        units: u64,
        scope: Scope,
    ) -> Result<(Ticket, Metered<'w>), QueryError> {
        let meter = &world.meters().batch;
        let admitted = self.compute.admit(meter, units, scope)?;
        Ok((
            admitted,
            Metered {
                meter,
                units,
                scope,
            },
        ))
    }

    /// Runs `job` on the pool; a lost job is an internal error.
    pub(crate) async fn offload<T, E>(
        &self,
        job: impl FnOnce() -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<QueryError> + Send + 'static,
    {
        self.compute
            .run(job)
            .await
            .map_err(|e| E::from(QueryError::Internal(e.to_string())))?
    }
}

/// Validates a heightmap request (both surfaces decode into a [`HeightmapRequest`] and
/// come here): finite, in-range origin; finite step > 0; counts > 0 within the sample
/// limit; far corner in range. Errors name the field (`x0`, `step`, `nx*nz`, ...).
pub fn heightmap_grid(req: &HeightmapRequest, limits: &Limits) -> Result<Grid, QueryError> {
    let max = limits.max_coordinate;
    check_coordinate(req.x0, max).map_err(|reason| QueryError::invalid("x0", reason))?;
    check_coordinate(req.z0, max).map_err(|reason| QueryError::invalid("z0", reason))?;
    if !req.step.is_finite() {
        return Err(QueryError::invalid("step", "must be finite"));
    }
    if req.step <= 0.0 {
        return Err(QueryError::invalid("step", "must be greater than 0"));
    }
    if req.step < MIN_HEIGHTMAP_STEP {
        // A subnormal step makes every sample a slow float operation (the probe's
        // 5e-324 took 32 s of CPU), and steps far below a vertex spacing answer the
        // same heights many times over.
        let reason = format!(
            "must be at least {MIN_HEIGHTMAP_STEP} (metres), got {}",
            Num(req.step)
        );
        return Err(QueryError::invalid("step", reason));
    }
    for (field, n) in [("nx", req.nx), ("nz", req.nz)] {
        if n == 0 {
            return Err(QueryError::invalid(field, "must be greater than 0"));
        }
    }
    // The true product (u128 holds any product of two u64), not a saturated one.
    let samples = u128::from(req.nx) * u128::from(req.nz);
    let limit = limits.max_heightmap_samples;
    if samples > limit as u128 {
        let reason = format!("{samples} samples exceed the limit of {limit} per heightmap");
        return Err(QueryError::too_large("nx*nz", reason));
    }
    // Both counts are now at most `limit`, a usize.
    let grid = Grid::new(req.x0, req.z0, req.step, req.nx as usize, req.nz as usize)
        .map_err(|e| QueryError::invalid("grid", e.to_string()))?;
    let corner = [
        ("nx", "x", grid.x(grid.nx - 1)),
        ("nz", "z", grid.z(grid.nz - 1)),
    ];
    for (field, axis, far) in corner {
        if check_coordinate(far, max).is_err() {
            let reason = format!(
                "the grid's far {axis} = {axis}0 + ({field} - 1) * step = {} is outside [-{}, {}]",
                Num(far),
                Num(max),
                Num(max)
            );
            return Err(QueryError::invalid(field, reason));
        }
    }
    Ok(grid)
}

/// Checks every coordinate of a batch, naming the first bad one.
fn check_batch(coords: &[f64], max: f64, naming: BatchNaming) -> Result<(), QueryError> {
    // The fast path is one branch per value; the position is found only on failure.
    if coords.iter().all(|v| v.abs() <= max) {
        return Ok(());
    }
    let (k, reason) = coords
        .iter()
        .enumerate()
        .find_map(|(k, &v)| check_coordinate(v, max).err().map(|r| (k, r)))
        .unwrap_or((0, "must be finite".to_string()));
    Err(naming.element_error(k, reason))
}
