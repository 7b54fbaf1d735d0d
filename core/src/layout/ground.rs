//! [`LayoutGround`]: what a world's layout does to its ground, shared by every thread.
//!
//! The layout flattens the generated ground into clearings and corridors, beneath the
//! world's registered flat zones (see [`crate::Terrain::with_layout`]). Given the ground
//! height `base` at a point (the generator's, computed by the caller):
//!
//! - **Clearings.** A hub of radius `r` is exactly level at its height `H`, the
//!   generator's full height at the hub centre (registered zones excluded, so `H` is
//!   a pure function of the world's configuration). Beyond `r`, over a band of
//!   [`hub_band`](super::hub_band) (half the radius, capped by the pattern so that no
//!   band reaches another clearing), it blends back to what lies beneath like a flat
//!   zone: `H + (below - H) * smoothstep((d - r) / band)`.
//! - **Corridors.** A spoke is the set of points within [`corridor_half_width`] of
//!   the segment between its hubs' centres. Its level depends only on the position
//!   along the axis (so it is level across the width): hub `a`'s height up to the
//!   edge of `a`'s clearing, hub `b`'s height from the edge of `b`'s clearing, and a
//!   smoothstep ramp between the two edges, monotonic and meeting each clearing at
//!   that clearing's height. Beyond the half-width it blends over
//!   [`spoke_band`](super::spoke_band) (one more half-width) into what lies beneath.
//! - **Order.** Corridors apply first, in the order of their hubs' keys, each over the
//!   height beneath it; clearings apply last, by hub key, so every clearing is exactly
//!   level. Each step is continuous and leaves points beyond its reach untouched bit
//!   for bit, so the whole is continuous and equals `base` far from any feature.
//!
//! Everything is a pure function of (configuration, generator, point). What is cached
//! (per-chunk feature indexes with their hub heights, classification cells, region
//! graphs) lives in bounded concurrent caches (sharded maps with CLOCK eviction); a
//! point's answer reads only features whose reach contains it, found in any complete
//! list, so caching, eviction, query order and threads change no bit.

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use super::cells::{CellClass, ChunkCells, cell_of, centre, class_of};
use super::classify::corridor_half_width;
use super::clock::ClockCache;
use super::config::{Area, ChunkRect, LayoutConfig, LayoutError, MAX_CHUNK_COORD, SpokeRule};
use super::features::ChunkFeatures;
use super::patterns::Hub;
use super::region::{REGION_CHUNKS, RegionGraph, planar_region, region_of};
use super::spokes::{Layout, Reach, RegionMap, build_with};
use crate::generator::{Generator, WorldGenerator};

/// Default memory budget of a surface's caches: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// Largest |chunk coordinate| with features: one inside [`MAX_CHUNK_COORD`], so a
/// chunk's neighbours are queryable too. Beyond it the ground is left alone.
pub const MAX_FEATURE_CHUNK: i64 = MAX_CHUNK_COORD - 1;

/// A chunk key.
type Key = (i64, i64);

/// The layout of one world applied to its ground: a pure function with caches.
pub struct LayoutGround {
    cfg: LayoutConfig,
    /// The world's generator: hub heights are its heights at the hub centres.
    generator: WorldGenerator,
    features: ClockCache<Key, Arc<ChunkFeatures>>,
    cells: ClockCache<Key, Arc<ChunkCells>>,
    regions: ClockCache<Key, Arc<RegionGraph>>,
}

impl fmt::Debug for LayoutGround {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayoutGround")
            .field("cfg", &self.cfg)
            .field("generator", &self.generator.kind())
            .field("cached_features", &self.features.len())
            .field("cached_cells", &self.cells.len())
            .field("cached_regions", &self.regions.len())
            .finish()
    }
}

impl LayoutGround {
    /// The layout `cfg` over the ground of `generator`, with caches of
    /// [`DEFAULT_CACHE_BYTES`].
    pub fn new(cfg: LayoutConfig, generator: WorldGenerator) -> Result<Self, LayoutError> {
        Self::with_cache_bytes(cfg, generator, DEFAULT_CACHE_BYTES)
    }

    /// Like [`LayoutGround::new`], caches holding about `bytes` in all (3/8 feature
    /// indexes, 3/8 classification cells, 1/4 region graphs).
    pub fn with_cache_bytes(
        cfg: LayoutConfig,
        generator: WorldGenerator,
        bytes: u64,
    ) -> Result<Self, LayoutError> {
        cfg.validate()?;
        let eighth = bytes / 8;
        Ok(Self {
            cfg,
            generator,
            features: ClockCache::new(3 * eighth),
            cells: ClockCache::new(3 * eighth),
            regions: ClockCache::new(2 * eighth),
        })
    }

    pub fn config(&self) -> &LayoutConfig {
        &self.cfg
    }

    pub fn generator(&self) -> &WorldGenerator {
        &self.generator
    }

    /// Half-width of every corridor, metres.
    pub fn corridor_half_width(&self) -> f64 {
        corridor_half_width(&self.cfg)
    }

    /// The height of `hub`'s clearing: the generator's height at its centre.
    pub fn hub_height(&self, hub: &Hub) -> f64 {
        self.generator.height(hub.x, hub.z)
    }

    /// The chunk holding `(x, z)`, if the layout covers it.
    fn chunk_at(&self, x: f64, z: f64) -> Result<Key, LayoutError> {
        covered((self.cfg.chunk_of(x)?, self.cfg.chunk_of(z)?))
    }

    /// The features of `chunk`: every clearing and corridor reaching it, with heights.
    pub fn features(&self, chunk: (i64, i64)) -> Result<Arc<ChunkFeatures>, LayoutError> {
        self.features_built(chunk).map(|(f, _)| f)
    }

    /// [`Self::features`] and whether this call built them.
    fn features_built(&self, chunk: Key) -> Result<(Arc<ChunkFeatures>, bool), LayoutError> {
        let chunk = covered(chunk)?;
        let build = || {
            let mut regions = self.regions_around(ChunkRect {
                cx0: chunk.0 - 1,
                cz0: chunk.1 - 1,
                cx1: chunk.0 + 1,
                cz1: chunk.1 + 1,
            });
            let ground = |x: f64, z: f64| self.generator.height(x, z);
            ChunkFeatures::build(&self.cfg, &ground, chunk, &mut regions).map(Arc::new)
        };
        self.features.get_or_build(chunk, build, |f| f.weight())
    }

    /// The cached region graphs a query over the chunks of `rect` reads (the regions
    /// of `rect` grown by one chunk), built now where missing.
    fn regions_around(&self, rect: ChunkRect) -> RegionMap {
        let mut map = RegionMap::new();
        if self.cfg.spokes != SpokeRule::Planar {
            return map;
        }
        let r0 = region_of(rect.cx0 - 1, rect.cz0 - 1);
        let r1 = region_of(rect.cx1 + 1, rect.cz1 + 1);
        for rz in r0.1..=r1.1 {
            for rx in r0.0..=r1.0 {
                let build = || Ok::<_, Infallible>(Arc::new(planar_region(&self.cfg, rx, rz)));
                let Ok((graph, _)) = self
                    .regions
                    .get_or_build((rx, rz), build, |g| region_weight(g));
                map.insert((rx, rz), graph);
            }
        }
        map
    }

    /// The height at `(x, z)` given the ground height `base` there. Outside the
    /// layout's world (chunk coordinates beyond [`MAX_FEATURE_CHUNK`], or non-finite
    /// points) the ground is returned unchanged.
    pub fn apply(&self, x: f64, z: f64, base: f64) -> f64 {
        let Ok(chunk) = self.chunk_at(x, z) else {
            return base;
        };
        if let Some(h) = self.features.with(&chunk, |f| f.apply(x, z, base)) {
            return h;
        }
        match self.features(chunk) {
            Ok(f) => f.apply(x, z, base),
            Err(_) => base,
        }
    }

    /// Applies the layout in place to rows of heights: `out` holds rows along `zs`,
    /// `nx` columns at `x(ix)`, each the ground there. Bit-identical to
    /// [`Self::apply`] point by point; reads each chunk's features once per run.
    pub(crate) fn apply_area(
        &self,
        nx: usize,
        zs: impl Iterator<Item = f64>,
        x: impl Fn(usize) -> f64,
        out: &mut [f64],
    ) {
        let mut last: Option<(Key, Option<Arc<ChunkFeatures>>)> = None;
        for (z, row) in zs.zip(out.chunks_exact_mut(nx.max(1))) {
            for (ix, h) in row.iter_mut().enumerate() {
                let x = x(ix);
                let Ok(chunk) = self.chunk_at(x, z) else {
                    continue;
                };
                let features = match &last {
                    Some((key, f)) if *key == chunk => f,
                    _ => &last.insert((chunk, self.features(chunk).ok())).1,
                };
                if let Some(f) = features {
                    *h = f.apply(x, z, *h);
                }
            }
        }
    }

    /// The class of the classification cell holding `(x, z)` (world-aligned cells of
    /// `cell_size`, classified at their centre): the same as [`super::classify_grid`]
    /// gives for that cell.
    pub fn classify(&self, x: f64, z: f64) -> Result<CellClass, LayoutError> {
        for (field, v) in [("x", x), ("z", z)] {
            if !v.is_finite() {
                return Err(LayoutError::NotFinite { field });
            }
        }
        let cell = (cell_of(&self.cfg, x), cell_of(&self.cfg, z));
        let at = (centre(&self.cfg, cell.0), centre(&self.cfg, cell.1));
        let chunk = self.chunk_at(at.0, at.1)?;
        let (cells, _) = self.cells_built(chunk)?;
        let class = match cells.and_then(|c| c.get(cell.0, cell.1)) {
            Some(class) => class,
            None => class_of(self.features(chunk)?.class_of(at.0, at.1)),
        };
        Ok(CellClass { class, cell })
    }

    /// The cells of `chunk` (`None` when too fine to keep) and whether this call
    /// built the chunk's features or cells.
    fn cells_built(&self, chunk: Key) -> Result<(Option<Arc<ChunkCells>>, bool), LayoutError> {
        if let Some(c) = self.cells.get(&chunk) {
            return Ok((Some(c), false));
        }
        let (features, built) = self.features_built(chunk)?;
        if !ChunkCells::fits(&self.cfg) {
            return Ok((None, built));
        }
        let build = || Ok(Arc::new(ChunkCells::build(&self.cfg, features)));
        let (cells, b) = self.cells.get_or_build(chunk, build, |c| c.weight())?;
        Ok((Some(cells), built || b))
    }

    /// [`super::layout_in`] through the surface's region cache: the same answer.
    pub fn layout_in(&self, area: &Area) -> Result<Layout, LayoutError> {
        self.layout(area, Reach::Ends)
    }

    /// [`super::layout_over`] through the surface's region cache: the same answer.
    pub fn layout_over(&self, area: &Area) -> Result<Layout, LayoutError> {
        self.layout(area, Reach::Over)
    }

    fn layout(&self, area: &Area, reach: Reach) -> Result<Layout, LayoutError> {
        let rect = area.chunks(&self.cfg)?;
        let mut regions = self.regions_around(rect);
        build_with(&self.cfg, area, reach, &mut regions)
    }

    /// Builds and caches everything the chunks of `area` need (feature indexes with
    /// hub heights, classification cells, region graphs); returns how many chunks had
    /// something built (0 when all were cached).
    pub fn prepare(&self, area: &Area) -> Result<usize, LayoutError> {
        let rect = area.chunks(&self.cfg)?;
        let mut built = 0;
        for chunk in rect.iter() {
            let (_, b) = self.cells_built(chunk)?;
            built += usize::from(b);
        }
        Ok(built)
    }

    /// Drops the cached chunks for which `keep` is false, and the region graphs none
    /// of whose chunks is kept; returns how many chunks were dropped. Dropped chunks
    /// are rebuilt, identically, when next needed.
    pub fn retain_chunks(&self, keep: impl Fn((i64, i64)) -> bool) -> usize {
        let mut dropped: BTreeSet<Key> = self.features.retain(|k| keep(*k)).into_iter().collect();
        dropped.extend(self.cells.retain(|k| keep(*k)));
        self.regions.retain(|r| {
            let (x0, z0) = (r.0 * REGION_CHUNKS, r.1 * REGION_CHUNKS);
            (0..REGION_CHUNKS).any(|dz| (0..REGION_CHUNKS).any(|dx| keep((x0 + dx, z0 + dz))))
        });
        dropped.len()
    }

    /// The number of chunks with cached features or cells.
    pub fn cached_chunks(&self) -> usize {
        let mut keys: BTreeSet<Key> = self.features.keys().into_iter().collect();
        keys.extend(self.cells.keys());
        keys.len()
    }

    /// The number of cached region graphs.
    pub fn cached_regions(&self) -> usize {
        self.regions.len()
    }

    /// The bytes the caches hold (approximately, by the entries' weights).
    pub fn cached_bytes(&self) -> usize {
        self.features.weight() + self.cells.weight() + self.regions.weight()
    }
}

/// `chunk` if the layout covers it (within [`MAX_FEATURE_CHUNK`] on both axes).
fn covered(chunk: Key) -> Result<Key, LayoutError> {
    if chunk.0.abs() > MAX_FEATURE_CHUNK || chunk.1.abs() > MAX_FEATURE_CHUNK {
        return Err(LayoutError::OutOfWorld);
    }
    Ok(chunk)
}

/// Approximate size of a region graph, bytes.
fn region_weight(g: &RegionGraph) -> usize {
    let hubs: usize = g
        .hubs
        .iter()
        .map(|h| std::mem::size_of::<Hub>() + h.id.len())
        .sum();
    std::mem::size_of::<RegionGraph>()
        + hubs
        + g.edges.len() * std::mem::size_of::<(usize, usize)>()
}
