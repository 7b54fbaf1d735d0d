//! Flat-zone statistics, in the spirit of the original game's terrain log: per world,
//! the zones, the index tiles that list them, and how many height lookups a zone
//! decided. Logged every `stats_interval` and exported as Prometheus metrics
//! (`terrain_zones`, `terrain_zone_index_tiles`, `terrain_zone_lookups_total`).

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio_util::sync::CancellationToken;
use tracing::info;

use super::{World, Worlds};

/// Height lookups of one world (single heights and batch points; heightmaps are not
/// counted) and how many of them a zone decided. Relaxed counters: exact totals, no
/// ordering with anything else.
#[derive(Debug, Default)]
pub struct Lookups {
    total: AtomicU64,
    hits: AtomicU64,
}

impl Lookups {
    /// Counts `total` lookups of which `hits` landed in a zone.
    pub fn record(&self, total: u64, hits: u64) {
        self.total.fetch_add(total, Ordering::Relaxed);
        if hits > 0 {
            self.hits.fetch_add(hits, Ordering::Relaxed);
        }
    }

    /// `(total, hits)` so far.
    pub fn get(&self) -> (u64, u64) {
        (
            self.total.load(Ordering::Relaxed),
            self.hits.load(Ordering::Relaxed),
        )
    }
}

/// One world's statistics at one moment (declared with the metrics that export it,
/// which name no world).
pub use crate::metrics::WorldStats;

impl WorldStats {
    /// The statistics of `world` now.
    pub async fn of(world: &World) -> Self {
        let (revision, zones, index_tiles) = {
            let state = world.snapshot();
            let zones = state.zones();
            (state.revision(), zones.len(), zones.index_tiles())
        };
        let (lookups, hits) = world.lookups().get();
        WorldStats {
            world: world.id().to_string(),
            revision,
            zones,
            index_tiles,
            lookups,
            hits,
        }
    }
}

/// The statistics of every world, in configuration order.
pub async fn collect(worlds: &Worlds) -> Vec<WorldStats> {
    let mut all = Vec::new();
    for world in worlds.iter() {
        all.push(WorldStats::of(world).await);
    }
    all
}

/// Logs every world's statistics every `every` (lookups counted over the period),
/// until `shutdown`.
pub async fn report_periodically(
    worlds: Arc<Worlds>,
    every: Duration,
    shutdown: CancellationToken,
) {
    let mut interval = tokio::time::interval(every);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is immediate: it logs the state the server starts with.
    let mut previous: Vec<(u64, u64)> = vec![(0, 0); worlds.iter().count()];
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = interval.tick() => {}
        }
        for (stats, last) in collect(&worlds).await.into_iter().zip(&mut previous) {
            info!(
                world = stats.world,
                revision = stats.revision,
                zones = stats.zones,
                index_tiles = stats.index_tiles,
                lookups = stats.lookups - last.0,
                zone_hits = stats.hits - last.1,
                "flat zones: {} zones in {} index tiles; {} of {} lookups hit a zone",
                stats.zones,
                stats.index_tiles,
                stats.hits - last.1,
                stats.lookups - last.0,
            );
            *last = (stats.lookups, stats.hits);
        }
    }
}
