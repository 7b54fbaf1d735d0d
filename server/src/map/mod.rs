//! The 2-D map: map tiles rendered from a world's heights, hill-shaded and coloured
//! as the game colours them, encoded as PNG and kept in a byte-budget cache.
//!
//! - [`render`](mod@render): the projection (zoom levels, metres per pixel, which
//!   pixel shows which point) and the rendering of one map tile.
//! - [`shade`]: hill shading from the terrain's normals, light from the north-west.
//! - [`palette`]: the colours, per generator kind ([`palette::Palette::of`] is the one
//!   dispatch on the kind).
//! - [`walk`]: the walkability layer ([`Layer::Walk`]), a transparent overlay shading
//!   the ground the world's walkability rule refuses, by reason.
//!
//! A map tile's version is the largest version of the mesh tiles it reads
//! ([`render::MapTile::covered`]; for the walk layer every mesh tile within
//! [`walk::MARGIN`] of its pixel centres): a change to any of them gives it a new revision,
//! larger than every earlier version, so the version changes whenever a pixel may
//! have, and the tile is then rendered again. Its HTTP tag is made of the [`digest`]
//! of the PNG it renders to (and [`RENDERING`]), so the tag follows the pixels: a zone that changes a mesh tile
//! the map tile reads only at its border leaves the tag (and a client's copy) as it
//! was. The cache holds encoded PNGs, at most [`MAP_CACHE_BYTES`], keyed by world
//! and map tile; an entry older than the current version is never served. Rendering
//! runs on the compute pool in bands of [`render::BAND_ROWS`] rows, taking turns
//! with other requests; requests for the same uncached map tile render it once, admitted by its cost
//! ([`crate::cost`]), and a render outlives a request that timed out, filling the cache.

pub mod palette;
pub mod render;
pub mod shade;
pub mod walk;

use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use futures::future::{BoxFuture, FutureExt, Shared};

use terrain_core::quote::Num;

use moka::{future::Cache, ops::compute::Op};

use crate::{
    compute::Compute,
    cost::{Refused, Scope},
    error::{ErrorCode, ServiceError},
    sync::locked,
    validate::check_coordinate,
    world::{World, WorldState},
};

pub use render::{MAX_ZOOM, MIN_ZOOM, MapTile, TILE_PIXELS};

/// The bytes of encoded PNGs the cache holds.
pub const MAP_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// A prefix of every map tile's version tag, changed when the rendering changes so
/// clients drop what an older server drew.
pub const RENDERING: &str = "map1";

/// What a map tile shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// The terrain, hill-shaded and coloured as the game colours it (an opaque RGB PNG).
    Terrain,
    /// Where the world's walkability rule refuses the ground, shaded by reason (an RGBA
    /// PNG, transparent where walkable): [`walk`].
    Walk,
}

impl Layer {
    /// Every layer, as named on the wire.
    pub const ALL: [Layer; 2] = [Layer::Terrain, Layer::Walk];

    /// The layer's name on the wire (`layer=` of the map tile route).
    pub fn name(self) -> &'static str {
        match self {
            Layer::Terrain => "terrain",
            Layer::Walk => "walk",
        }
    }

    /// The layer named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The prefix of the layer's version tags ([`RENDERING`], [`walk::RENDERING`]).
    pub fn rendering(self) -> &'static str {
        match self {
            Layer::Terrain => RENDERING,
            Layer::Walk => walk::RENDERING,
        }
    }
}

/// Why a map tile could not be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// A zoom or coordinate out of range.
    #[error("{field}: {reason}")]
    Invalid { field: &'static str, reason: String },
    /// The compute pool lost the rendering, or the encoder failed: a bug.
    #[error("internal error: rendering map tile: {0}")]
    Render(String),
    /// The cache gave back no entry for a tile it had just computed: a bug.
    #[error("internal error: map cache: the entry vanished")]
    Vanished,
    /// The compute pool's queued work and this tile's would not finish in time.
    #[error(transparent)]
    Refused(#[from] Refused),
}

impl ServiceError for MapError {
    fn error_code(&self) -> ErrorCode {
        match self {
            MapError::Invalid { .. } => ErrorCode::InvalidArgument,
            MapError::Render(_) | MapError::Vanished => ErrorCode::Internal,
            MapError::Refused(e) => e.error_code(),
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            MapError::Refused(e) => e.retry_after(),
            _ => None,
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            MapError::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// A map tile's render, for its refusal when it could not finish in time alone.
const RENDER_SCOPE: Scope = Scope {
    field: "z",
    narrow: "a map tile cannot be asked for in parts: raise request_timeout",
    spread: true,
    kept: true,
};

impl MapTile {
    /// The map tile `(zoom, x, y)` if the zoom is served and the tile lies within
    /// `max_coordinate` on both axes; errors name `z`, `x` or `y`.
    pub fn checked(zoom: i64, x: i64, y: i64, max_coordinate: f64) -> Result<Self, MapError> {
        let zoom = u8::try_from(zoom)
            .ok()
            .filter(|z| (MIN_ZOOM..=MAX_ZOOM).contains(z))
            .ok_or_else(|| MapError::Invalid {
                field: "z",
                reason: format!("zoom {zoom} is not served: expected {MIN_ZOOM} to {MAX_ZOOM}"),
            })?;
        let tile = MapTile { zoom, x, y };
        let span = tile.span();
        for (field, t) in [("x", x), ("y", y)] {
            // Both edges of the map tile, computed without overflow in f64.
            let (lo, hi) = (t as f64 * span, (t as f64 + 1.0) * span);
            if check_coordinate(lo, max_coordinate).is_err()
                || check_coordinate(hi, max_coordinate).is_err()
            {
                return Err(MapError::Invalid {
                    field,
                    reason: format!(
                        "map tile {t} at zoom {zoom} spans [{}, {}], outside the world's [-{}, {}]",
                        Num(lo),
                        Num(hi),
                        Num(max_coordinate),
                        Num(max_coordinate)
                    ),
                });
            }
        }
        Ok(tile)
    }
}

/// A map tile as encoded: its PNG, the version it was rendered at and the PNG's
/// digest (what its tag carries).
#[derive(Debug)]
pub struct MapPng {
    pub version: u64,
    pub png: Vec<u8>,
    pub digest: u64,
}

impl MapPng {
    /// `png` rendered at `version`, with its digest.
    pub fn new(version: u64, png: Vec<u8>) -> Self {
        let digest = digest(&png);
        MapPng {
            version,
            png,
            digest,
        }
    }
}

/// FNV-1a (64 bits) of `bytes`: the same on every replica and every build.
pub fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A map tile as served.
#[derive(Debug, Clone)]
pub struct ServedMap {
    pub png: Arc<MapPng>,
    /// The world's revision when the request read it.
    pub revision: u64,
    /// Whether the cache held it (`false`: rendered for this request).
    pub cached: bool,
}

/// `(world id, layer, zoom, x, y)`.
type MapKey = (String, Layer, u8, i64, i64);

/// The map tile cache of one server.
pub struct MapCache {
    cache: Cache<MapKey, Arc<MapPng>>,
    compute: Compute,
    /// The renders under way, by map tile, with the version each renders.
    rendering: Renders,
}

/// A render under way: its version and its outcome, shared by every request for it.
type Render = (
    u64,
    Shared<BoxFuture<'static, Result<Arc<MapPng>, MapError>>>,
);

/// The renders under way, by map tile.
type Renders = Arc<Mutex<HashMap<MapKey, Render>>>;

impl fmt::Debug for MapCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapCache")
            .field("tiles", &self.cache.entry_count())
            .field("bytes", &self.cache.weighted_size())
            .finish_non_exhaustive()
    }
}

/// The version of `tile` of `layer` in `state`: the largest version of the mesh tiles
/// it reads.
pub fn version_of(world: &World, state: &WorldState, tile: MapTile, layer: Layer) -> u64 {
    let grid = world.tile_grid();
    let (xs, zs) = match layer {
        Layer::Terrain => tile.covered(&grid),
        Layer::Walk => tile.covered_within(&grid, walk::MARGIN),
    };
    let mut version = 0;
    for tz in zs {
        for tx in xs.clone() {
            version = version.max(state.tile_version((tx, tz)));
        }
    }
    version
}

impl MapCache {
    /// A cache of at most `budget` bytes of PNGs, rendering on `compute`.
    pub fn new(budget: u64, compute: Compute) -> Self {
        let cache = Cache::builder()
            .name("map-tiles")
            .max_capacity(budget)
            .weigher(|_k: &MapKey, v: &Arc<MapPng>| u32::try_from(v.png.len()).unwrap_or(u32::MAX))
            .build();
        MapCache {
            cache,
            compute,
            rendering: Arc::default(),
        }
    }

    /// The current version of `tile` of `layer` of `world` and the world's revision,
    /// without rendering anything.
    pub async fn version(&self, world: &World, tile: MapTile, layer: Layer) -> (u64, u64) {
        let state = world.snapshot();
        (version_of(world, &state, tile, layer), state.revision())
    }

    /// `tile` of `world` at its current version: cached, or rendered on the compute
    /// pool and cached. A render is admitted by its cost ([`crate::cost`]); it runs in
    /// a task of its own, so it fills the cache even when the request that started it
    /// times out or goes away, and requests for a tile being rendered wait for that
    /// render.
    pub async fn get(
        &self,
        world: &World,
        tile: MapTile,
        layer: Layer,
    ) -> Result<ServedMap, MapError> {
        let state = world.snapshot();
        let (version, revision) = (version_of(world, &state, tile, layer), state.revision());
        let key = (world.id().to_string(), layer, tile.zoom, tile.x, tile.y);
        if let Some(png) = self.cache.get(&key).await
            && png.version >= version
        {
            return Ok(ServedMap {
                png,
                revision,
                cached: true,
            });
        }
        let meters = Arc::clone(world.meters());
        let rule = world.walk_rule().clone();
        let (meter, units) = match layer {
            Layer::Terrain => (&meters.map, 1),
            Layer::Walk => (
                &meters.walk_map,
                walk::heights_estimate(tile, TILE_PIXELS, &rule),
            ),
        };
        let estimate = meter.estimate(units);
        let (render, started) = {
            let mut rendering = locked(&self.rendering);
            match rendering.get(&key).filter(|(v, _)| *v >= version) {
                Some((_, render)) => (render.clone(), false),
                None => {
                    let admitted = self.compute.admit(meter, units, RENDER_SCOPE)?;
                    let (cache, compute) = (self.cache.clone(), self.compute.clone());
                    let meters = Arc::clone(&meters);
                    let renders = Arc::clone(&self.rendering);
                    let job_key = key.clone();
                    let task = tokio::spawn(async move {
                        let _admitted = admitted;
                        let rendered = match layer {
                            Layer::Terrain => {
                                render(&compute, state, tile).await.map(|(png, took)| {
                                    meters.map.observe(1, took);
                                    png
                                })
                            }
                            Layer::Walk => render_walk(&compute, state, rule, tile).await.map(
                                |(png, took, heights)| {
                                    meters.walk_map.observe(heights as u64, took);
                                    png
                                },
                            ),
                        };
                        let result = match rendered {
                            Ok(png) => {
                                let png = Arc::new(MapPng::new(version, png));
                                Ok(keep_newest(&cache, job_key.clone(), png).await)
                            }
                            Err(e) => Err(e),
                        };
                        let mut renders = locked(&renders);
                        if renders.get(&job_key).is_some_and(|(v, _)| *v == version) {
                            renders.remove(&job_key);
                        }
                        result
                    });
                    let render = async move {
                        task.await
                            .map_err(|e| MapError::Render(format!("render task: {e}")))?
                    }
                    .boxed()
                    .shared();
                    rendering.insert(key, (version, render.clone()));
                    (render, true)
                }
            }
        };
        // Not ready by the request's deadline: 503 with `Retry-After`, the render goes on.
        let what = || {
            format!(
                "map tile {} {}/{}/{}",
                layer.name(),
                tile.zoom,
                tile.x,
                tile.y
            )
        };
        let png = self.compute.ready_within(what, estimate, render).await??;
        Ok(ServedMap {
            png,
            revision,
            cached: !started,
        })
    }
    /// The number of cached map tiles (approximate: pending evictions may remain).
    pub fn tiles(&self) -> u64 {
        self.cache.entry_count()
    }
}

/// Renders `tile` from `state` on the compute pool, band by band, and encodes it;
/// with the pool time that took.
async fn render(
    compute: &Compute,
    state: Arc<WorldState>,
    tile: MapTile,
) -> Result<(Vec<u8>, Duration), MapError> {
    let lost = |e: crate::compute::ComputeError| MapError::Render(e.to_string());
    let bands = TILE_PIXELS / render::BAND_ROWS;
    let (rows, banded) = compute
        .run_sliced_timed(bands, move |b| {
            let rows = b * render::BAND_ROWS..(b + 1) * render::BAND_ROWS;
            render::render_rows(state.terrain(), tile, rows)
        })
        .await
        .map_err(lost)?;
    let rgb = rows.concat();
    let (png, encoded) = compute
        .run_timed(move || render::encode_png(&rgb))
        .await
        .map_err(lost)?;
    let png = png.map_err(|e| MapError::Render(e.to_string()))?;
    Ok((png, banded + encoded))
}

/// Renders the walk layer of `tile` from `state` by `rule` on the compute pool, band by
/// band, and encodes it; with the pool time that took and the heights read.
async fn render_walk(
    compute: &Compute,
    state: Arc<WorldState>,
    rule: terrain_core::walk::WalkRule,
    tile: MapTile,
) -> Result<(Vec<u8>, Duration, usize), MapError> {
    let lost = |e: crate::compute::ComputeError| MapError::Render(e.to_string());
    let bands = TILE_PIXELS / render::BAND_ROWS;
    let (parts, banded) = compute
        .run_sliced_timed(bands, move |b| {
            let rows = b * render::BAND_ROWS..(b + 1) * render::BAND_ROWS;
            walk::render_rows(state.terrain(), &rule, tile, rows)
        })
        .await
        .map_err(lost)?;
    let heights = parts.iter().map(|(_, h)| h).sum();
    let rgba: Vec<u8> = parts.into_iter().flat_map(|(rows, _)| rows).collect();
    let (png, encoded) = compute
        .run_timed(move || render::encode_png_as(&rgba, png::ColorType::Rgba))
        .await
        .map_err(lost)?;
    let png = png.map_err(|e| MapError::Render(e.to_string()))?;
    Ok((png, banded + encoded, heights))
}

/// Puts `png` in `cache` under `key` unless a newer rendering is there already, and
/// answers the one the cache holds.
async fn keep_newest(
    cache: &Cache<MapKey, Arc<MapPng>>,
    key: MapKey,
    png: Arc<MapPng>,
) -> Arc<MapPng> {
    let version = png.version;
    let kept = Arc::clone(&png);
    let result = cache
        .entry(key)
        .and_compute_with(|entry| async move {
            match entry {
                Some(e) if e.value().version >= version => Op::Nop,
                _ => Op::Put(kept),
            }
        })
        .await;
    result.into_entry().map_or(png, |entry| entry.into_value())
}
