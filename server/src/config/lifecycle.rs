//! The chunk lifecycle's settings: the per-world layout layer and spawn points, and
//! the server-wide rings, grace period and viewer limits.
//!
//! ```toml
//! sim_range = 0.5              # tiles beyond the view, per ring
//! spawn_range = 1.0
//! active_range = 2.0
//! cull_grace = "10s"           # how long a tile outside every active ring stays cached
//! viewer_ttl = "60s"           # viewers (HTTP, or a stream's) not updated for this long are dropped
//! max_viewers_per_world = 10000
//! warm_radius = 2              # tiles around each spawn point meshed before ready ("off": none)
//! lookahead = "2s"             # moving viewers: tiles they reach within this are prepared ("0s": off)
//!
//! [[worlds]]
//! id = "frontier"
//! generator = "hyperscape"
//! seed = 7
//! [worlds.layout]
//! pattern = "rings"            # grid | zigzag | rings | chaotic
//! spokes = "planar"            # grid | planar (default: grid for grid, else planar)
//! chunk_size = 400.0           # metres
//! cell_size = 8.0              # zone-classification cell, metres
//! grid_radius = 3              # chunks baked around each spawn point
//! spawn = [[0.0, 0.0]]
//! expand_radius = 1100.0       # metres: layout prepared this far around viewers
//! gc_radius = 1500.0           # metres: layout dropped beyond this from every viewer
//! ```

use std::time::Duration;

use serde::Deserialize;
use terrain_core::layout::{LayoutConfig, LayoutError, Pattern, SpokeRule};

/// Largest ring, in tiles beyond the view.
pub const MAX_RING: f64 = 64.0;
/// Largest `grid_radius`, in chunks.
pub const MAX_GRID_RADIUS: u32 = 64;
/// Most spawn points per world.
pub const MAX_SPAWNS: usize = 64;
/// Largest `warm_radius`, in tiles.
pub const MAX_WARM_RADIUS: u32 = 32;
/// The seed's dynamic expansion radius (2200 px) in super-chunks (800 px).
pub const EXPAND_CHUNKS: f64 = 2200.0 / 800.0;
/// The seed's garbage-collection radius (3000 px) in super-chunks (800 px).
pub const GC_CHUNKS: f64 = 3000.0 / 800.0;

/// The default ring widths, in tiles beyond the view.
pub const DEFAULT_RINGS: Rings = Rings {
    sim: 0.5,
    spawn: 1.0,
    active: 2.0,
};
/// The default grace period before a tile outside every active ring is released.
pub const DEFAULT_CULL_GRACE: Duration = Duration::from_secs(10);
/// The default time an HTTP viewer lives without an update.
pub const DEFAULT_VIEWER_TTL: Duration = Duration::from_secs(60);
/// The default most viewers per world.
pub const DEFAULT_MAX_VIEWERS: usize = 10_000;
/// The default tiles meshed around each spawn point before the server is ready.
pub const DEFAULT_WARM_RADIUS: u32 = 2;
/// How far ahead in time a moving viewer's path is prepared by default.
pub const DEFAULT_LOOKAHEAD: Duration = Duration::from_secs(2);
/// The longest look-ahead.
pub const MAX_LOOKAHEAD: Duration = Duration::from_secs(60);

/// How far each ring reaches beyond a viewer's view, in tiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rings {
    /// Where the game simulates (the tightest ring).
    pub sim: f64,
    /// Where terrain and events are spawned.
    pub spawn: f64,
    /// Where the ground is live (the widest ring); outside every one, tiles are culled.
    pub active: f64,
}

impl Rings {
    /// Each ring finite, in `0..=MAX_RING` and no wider than the next.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (key, v) in [
            ("sim_range", self.sim),
            ("spawn_range", self.spawn),
            ("active_range", self.active),
        ] {
            if !(v.is_finite() && (0.0..=MAX_RING).contains(&v)) {
                return Err((
                    key,
                    format!("must be a number of tiles in 0..={MAX_RING}, got {v}"),
                ));
            }
        }
        if self.sim > self.spawn {
            return Err((
                "sim_range",
                format!("must not exceed spawn_range {}", self.spawn),
            ));
        }
        if self.spawn > self.active {
            return Err((
                "spawn_range",
                format!("must not exceed active_range {}", self.active),
            ));
        }
        Ok(())
    }

    /// The widths as an array, narrowest first.
    pub fn widths(&self) -> [f64; 3] {
        [self.sim, self.spawn, self.active]
    }
}

/// The server-wide lifecycle settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LifecycleConfig {
    pub rings: Rings,
    /// How long a tile outside every active ring stays before it is culled.
    pub cull_grace: Duration,
    /// How long a viewer reported over HTTP lives without an update, and a
    /// `TrackViewers` stream without a message (its viewers live as long as it does).
    pub viewer_ttl: Duration,
    /// Most viewers in one world; more are refused with `RESOURCE_EXHAUSTED`.
    pub max_viewers_per_world: usize,
    /// Tiles meshed around each spawn point before the server reports ready: a square
    /// of `2 * warm_radius + 1` tiles on a side; `None` (`"off"`): none.
    pub warm_radius: Option<u32>,
    /// A viewer reporting a velocity has the tiles its active ring will reach within
    /// this time prepared ahead of it, nearest first; zero: no prediction.
    pub lookahead: Duration,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        LifecycleConfig {
            rings: DEFAULT_RINGS,
            cull_grace: DEFAULT_CULL_GRACE,
            viewer_ttl: DEFAULT_VIEWER_TTL,
            max_viewers_per_world: DEFAULT_MAX_VIEWERS,
            warm_radius: Some(DEFAULT_WARM_RADIUS),
            lookahead: DEFAULT_LOOKAHEAD,
        }
    }
}

/// A world's layout layer and how the server keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutSettings {
    /// Pattern, spoke rule, sizes; its seed is the world's.
    pub layout: LayoutConfig,
    /// Chunks around each spawn point built before the server is ready.
    pub grid_radius: u32,
    /// Layout within this many metres of a viewer is prepared as it moves.
    pub expand_radius: f64,
    /// Cached layout farther than this from every viewer (and outside the spawn
    /// grids) is dropped; it regenerates identically when needed again.
    pub gc_radius: f64,
}

/// A `[worlds.layout]` table as read, before the world's seed is known. `pattern`,
/// `chunk_size` and `cell_size` are required (checked by [`LayoutSpec::resolve`], so
/// the refusal names the key).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LayoutSpec {
    pub pattern: Option<Pattern>,
    pub spokes: Option<SpokeRule>,
    pub chunk_size: Option<f64>,
    pub cell_size: Option<f64>,
    pub grid_radius: Option<u32>,
    pub expand_radius: Option<f64>,
    pub gc_radius: Option<f64>,
    /// Spawn points given in the layout table instead of on the world.
    pub spawn: Option<Vec<[f64; 2]>>,
}

impl LayoutSpec {
    /// The validated settings for a world with `seed`; errors name the key under
    /// `path` (e.g. `worlds[1].layout`).
    pub fn resolve(&self, seed: u32, path: &str) -> Result<LayoutSettings, (String, String)> {
        let key = |k: &str| format!("{path}.{k}");
        let missing = |k: &str| (key(k), "missing (required)".to_string());
        let pattern = self.pattern.ok_or_else(|| missing("pattern"))?;
        let chunk_size = self.chunk_size.ok_or_else(|| missing("chunk_size"))?;
        let cell_size = self.cell_size.ok_or_else(|| missing("cell_size"))?;
        let layout = LayoutConfig {
            pattern,
            spokes: self
                .spokes
                .unwrap_or_else(|| SpokeRule::default_for(pattern)),
            chunk_size,
            cell_size,
            seed,
        };
        if let Err(e) = layout.validate() {
            return Err(match e {
                LayoutError::NotFinite { field } => (key(field), "must be a finite number".into()),
                LayoutError::NotPositive { field, value } => {
                    (key(field), format!("must be greater than 0 (got {value})"))
                }
                LayoutError::CellTooLarge {
                    cell_size,
                    chunk_size,
                } => (
                    key("cell_size"),
                    format!("must be at most chunk_size {chunk_size} (got {cell_size})"),
                ),
                // Query refusals: `validate` checks only the sizes.
                other => (path.to_string(), other.to_string()),
            });
        }
        let grid_radius = self.grid_radius.unwrap_or(3);
        if grid_radius > MAX_GRID_RADIUS {
            return Err((
                key("grid_radius"),
                format!("must be at most {MAX_GRID_RADIUS} chunks, got {grid_radius}"),
            ));
        }
        let expand_radius = self.expand_radius.unwrap_or(EXPAND_CHUNKS * chunk_size);
        let gc_radius = self.gc_radius.unwrap_or(GC_CHUNKS * chunk_size);
        if !(expand_radius.is_finite() && expand_radius >= 0.0) {
            return Err((
                key("expand_radius"),
                format!("must be a finite number of metres >= 0, got {expand_radius}"),
            ));
        }
        if !(gc_radius.is_finite() && gc_radius >= expand_radius) {
            return Err((
                key("gc_radius"),
                format!(
                    "must be finite and at least expand_radius {expand_radius}, got {gc_radius}"
                ),
            ));
        }
        Ok(LayoutSettings {
            layout,
            grid_radius,
            expand_radius,
            gc_radius,
        })
    }
}

/// Spawn points: at most [`MAX_SPAWNS`], each finite and within `max_coordinate`.
pub fn check_spawns(spawns: &[[f64; 2]], max_coordinate: f64) -> Result<(), (usize, String)> {
    if spawns.len() > MAX_SPAWNS {
        return Err((MAX_SPAWNS, format!("at most {MAX_SPAWNS} spawn points")));
    }
    for (i, p) in spawns.iter().enumerate() {
        if !p.iter().all(|v| v.is_finite() && v.abs() <= max_coordinate) {
            return Err((
                i,
                format!("must be [x, z] with finite |x|, |z| <= {max_coordinate}, got {p:?}"),
            ));
        }
    }
    Ok(())
}

/// A number of tiles for a ring flag.
pub fn parse_ring(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .map_err(|_| format!("expected a number of tiles, got {s:?}"))
}

/// A `warm_radius` value: tiles, or `None` for `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmRadius(pub Option<u32>);

/// `warm_radius` as text: a whole number of tiles, or `off`.
pub fn parse_warm_flag(s: &str) -> Result<WarmRadius, String> {
    parse_warm_radius(s).map(WarmRadius)
}

/// A whole number of tiles, or `off`.
fn parse_warm_radius(s: &str) -> Result<Option<u32>, String> {
    match s.trim() {
        "off" => Ok(None),
        t => t
            .parse::<u32>()
            .map(Some)
            .map_err(|_| format!("expected a whole number of tiles or \"off\", got {s:?}")),
    }
}
