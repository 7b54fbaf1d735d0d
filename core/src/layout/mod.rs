//! The layout layer of a world: hubs (clearings), spokes (corridors between hubs) and
//! the hub / spoke / wilds classification of points and cells (docs/src/reference/lifecycle.md).
//!
//! Optional and off unless a world configures it. Everything here is a pure function
//! of a [`LayoutConfig`] and the queried point or area: chunks, regions and border
//! edges are rebuilt on demand, so no answer depends on which chunks were generated
//! before, in which order, or on which thread.
//!
//! - [`rng`]: the per-chunk mulberry32 PRNG, bit-compatible with the JavaScript seed.
//! - [`config`]: [`LayoutConfig`], its validation and the query [`Area`].
//! - [`patterns`]: the four hub patterns ([`hubs_in_chunk`]).
//! - [`region`]: fixed regions of chunks and their planar spoke graphs.
//! - [`spokes`]: the grid and planar spoke rules over an area ([`layout_in`]).
//! - [`cache`]: [`LayoutCache`], region graphs kept between queries, same answers.
//! - [`classify`](mod@classify): [`ZoneClass`] of a point and a [`ZoneGrid`] of cells.
//! - [`features`]: clearings and corridors as height features, indexed per chunk.
//! - [`cells`]: the classification cells of a chunk ([`CellClass`]).
//! - [`ground`]: [`LayoutGround`], the layout applied to a world's ground, with
//!   bounded concurrent caches and the same answers.

pub mod cache;
pub mod cells;
pub mod classify;
mod clock;
pub mod config;
pub mod features;
pub mod ground;
pub mod patterns;
pub mod region;
pub mod rng;
pub mod spokes;

pub use cache::LayoutCache;
pub use cells::{CellClass, MAX_CHUNK_CELLS};
pub use classify::{ZoneClass, ZoneGrid, classify, classify_grid, corridor_half_width};
pub use config::{Area, LayoutConfig, LayoutError, MAX_CHUNK_COORD, Pattern, SpokeRule};
pub use features::{
    ChunkFeatures, HUB_BLEND, HubFeature, SPOKE_BLEND, SpokeFeature, hub_band, hub_band_cap,
    spoke_band,
};
pub use ground::{DEFAULT_CACHE_BYTES, LayoutGround, MAX_FEATURE_CHUNK};
pub use patterns::{Hub, hubs_in_chunk};
pub use region::{PLANAR_MAX_LEN, REGION_CHUNKS, RegionGraph, planar_region, region_of};
pub use rng::{Mulberry32, chunk_rng, chunk_seed};
pub use spokes::{Layout, Spoke, layout_in, layout_over};
