//! The soak's load, one task per stream of work, each paced by its own interval
//! until the shared stop flag is set: height queries, batches, tile meshes, zone
//! churn (register, replace, remove; every acknowledged change kept in a
//! [`ZoneRecord`]), event subscribers and moving viewers (`TrackViewers`).

use std::{
    collections::BTreeMap,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use terrain_client::{
    FlatZone, LifecycleMessage, Shape, Subscription, SubscriptionEvent, TerrainClient, Viewer,
    ZoneChange, ZoneHeight, ZoneSpec,
};
use tokio::time::MissedTickBehavior;

use super::stats::Stats;
use crate::template::Rng;

/// The world every task works on.
pub const WORLD: &str = "main";

/// What every task shares.
#[derive(Debug)]
pub struct Shared {
    pub stats: Stats,
    pub stop: AtomicBool,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// A paced loop: `period` between the starts of two rounds.
fn pace(period: Duration) -> tokio::time::Interval {
    let mut i = tokio::time::interval(period);
    i.set_missed_tick_behavior(MissedTickBehavior::Delay);
    i
}

/// `GetHeight` at random points of `[-450, 450]^2`, one every `period`.
pub async fn heights(mut c: TerrainClient, shared: Arc<Shared>, period: Duration, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut tick = pace(period);
    while !shared.stopped() {
        tick.tick().await;
        let (x, z) = (rng.float(-450.0, 450.0), rng.float(-450.0, 450.0));
        let began = Instant::now();
        match c.height(WORLD, x, z).await {
            Ok(_) => shared.stats.ok("height", began.elapsed()),
            Err(e) => shared.stats.error(format!("GetHeight: {e}")),
        }
    }
}

/// `GetHeights` of `points` random points, one batch every `period`.
pub async fn batches(
    mut c: TerrainClient,
    shared: Arc<Shared>,
    period: Duration,
    points: usize,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let mut tick = pace(period);
    while !shared.stopped() {
        tick.tick().await;
        let pts: Vec<(f64, f64)> = (0..points)
            .map(|_| (rng.float(-450.0, 450.0), rng.float(-450.0, 450.0)))
            .collect();
        let began = Instant::now();
        match c.heights(WORLD, &pts).await {
            Ok(h) if h.heights.len() == points => shared.stats.ok("batch", began.elapsed()),
            Ok(h) => shared.stats.error(format!(
                "GetHeights: {} heights for {points}",
                h.heights.len()
            )),
            Err(e) => shared.stats.error(format!("GetHeights: {e}")),
        }
    }
}

/// `GetTileMesh` of a random tile in `[-radius, radius]^2`, one every `period`; zone
/// churn keeps invalidating some of them.
pub async fn meshes(
    mut c: TerrainClient,
    shared: Arc<Shared>,
    period: Duration,
    radius: i64,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let mut tick = pace(period);
    let span = (2 * radius + 1) as u64;
    while !shared.stopped() {
        tick.tick().await;
        let tx = (rng.next_u64() % span) as i64 - radius;
        let tz = (rng.next_u64() % span) as i64 - radius;
        let began = Instant::now();
        match c.tile_mesh(WORLD, tx, tz).await {
            Ok(_) => shared.stats.ok("mesh", began.elapsed()),
            Err(e) => shared.stats.error(format!("GetTileMesh {tx},{tz}: {e}")),
        }
    }
}

/// The driver's own record of the soak's zones: what every acknowledged change
/// left, and how many revisions the changes took.
#[derive(Debug, Default)]
pub struct ZoneRecord {
    pub zones: BTreeMap<String, FlatZone>,
    pub mutations: u64,
    pub registered: u64,
    pub replaced: u64,
    pub removed: u64,
}

/// The zone of slot `i` (of a grid of 8 columns, 100 m by 160 m apart).
fn zone_spec(i: usize, offset: f64) -> ZoneSpec {
    ZoneSpec {
        center_x: -400.0 + (i % 8) as f64 * 100.0,
        center_z: -400.0 + (i / 8) as f64 * 160.0,
        shape: Shape::Rect {
            width: 12.0,
            depth: 12.0,
        },
        height: ZoneHeight::Offset(offset),
        blend_radius: 2.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// Registers, replaces and removes zones `soak-0 .. soak-{slots-1}`, one change every
/// `period`, sent once each (mutations are not retried). A change counts in
/// `record` only when acknowledged; a failed one is an error of the run.
pub async fn churn(
    mut c: TerrainClient,
    shared: Arc<Shared>,
    period: Duration,
    slots: usize,
    seed: u64,
) -> ZoneRecord {
    let mut rng = Rng::new(seed);
    let mut record = ZoneRecord::default();
    let mut tick = pace(period);
    let mut step: u64 = 0;
    while !shared.stopped() {
        tick.tick().await;
        let i = (rng.next_u64() % slots as u64) as usize;
        let id = format!("soak-{i}");
        step += 1;
        // Two changes in three are puts (a registration or a replacement), one a
        // removal of a present zone; a fresh offset keeps every put a real change.
        let remove = record.zones.contains_key(&id) && rng.next_u64().is_multiple_of(3);
        let began = Instant::now();
        if remove {
            match c.unregister_flat_zone(WORLD, &id).await {
                Ok(_) => {
                    shared.stats.ok("zone_del", began.elapsed());
                    record.zones.remove(&id);
                    record.mutations += 1;
                    record.removed += 1;
                }
                Err(e) => shared.stats.error(format!("UnregisterFlatZone {id}: {e}")),
            }
        } else {
            let offset = 0.5 + (step % 997) as f64 * 0.01;
            match c
                .register_flat_zone(WORLD, &id, &zone_spec(i, offset))
                .await
            {
                Ok(r) => {
                    shared.stats.ok("zone_put", began.elapsed());
                    match r.change {
                        ZoneChange::Registered => record.registered += 1,
                        ZoneChange::Replaced => record.replaced += 1,
                        ZoneChange::Unchanged => {}
                    }
                    if r.change != ZoneChange::Unchanged {
                        record.mutations += 1;
                    }
                    record.zones.insert(id, r.zone.zone);
                }
                Err(e) => shared.stats.error(format!("RegisterFlatZone {id}: {e}")),
            }
        }
    }
    record
}

/// What one subscriber saw.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen {
    pub events: u64,
    pub last_revision: u64,
}

/// Follows `sub` until it has delivered revision `until` (sent once the load
/// stops); every tile event must come in ascending revision order, and a resync
/// (events lost to a full queue) is an error.
pub async fn subscriber(
    mut sub: Subscription,
    shared: Arc<Shared>,
    mut until: tokio::sync::watch::Receiver<Option<u64>>,
    from: u64,
) -> Seen {
    let mut seen = Seen {
        events: 0,
        last_revision: from,
    };
    loop {
        if let Some(t) = *until.borrow_and_update()
            && seen.last_revision >= t
        {
            return seen;
        }
        tokio::select! {
            ev = sub.next() => match ev {
                Ok(SubscriptionEvent::Tiles(e)) => {
                    if e.revision <= seen.last_revision {
                        shared.stats.error(format!(
                            "subscriber: revision {} after {}", e.revision, seen.last_revision
                        ));
                    }
                    seen.last_revision = e.revision;
                    seen.events += 1;
                    shared.stats.events(1);
                }
                Ok(SubscriptionEvent::Resync { revision }) => {
                    shared.stats.error(format!("subscriber: resync at {revision}"));
                    seen.last_revision = revision;
                }
                Ok(SubscriptionEvent::Resynced(list)) => {
                    shared.stats.error(format!("subscriber: resynced at {}", list.revision));
                    seen.last_revision = list.revision;
                }
                Err(e) => {
                    shared.stats.error(format!("subscriber: {e}"));
                    return seen;
                }
            },
            changed = until.changed() => if changed.is_err() { return seen },
        }
    }
}

/// `count` viewers on one `TrackViewers` stream, each walking a circle of 150 m
/// around its own centre and reporting its position every `period`. A refused
/// update or a lost stream is an error.
pub async fn viewers(
    mut c: TerrainClient,
    shared: Arc<Shared>,
    group: usize,
    count: usize,
    period: Duration,
) {
    let mut tracker = match c.track_viewers(WORLD).await {
        Ok(t) => t,
        Err(e) => {
            shared.stats.error(format!("TrackViewers: {e}"));
            return;
        }
    };
    let mut tick = pace(period);
    let mut step = 0u64;
    while !shared.stopped() {
        tokio::select! {
            _ = tick.tick() => {
                step += 1;
                for v in 0..count {
                    let k = (group * count + v) as f64;
                    let angle = k * 0.37 + step as f64 * 0.05;
                    // Circling: the velocity (m/s) is the derivative of the position.
                    let turn = 0.05 / period.as_secs_f64().max(1e-3);
                    let viewer = Viewer {
                        id: format!("soak-viewer-{group}-{v}"),
                        x: -300.0 + (k % 16.0) * 40.0 + 150.0 * libm::cos(angle),
                        z: -300.0 + (k / 16.0).floor() * 40.0 + 150.0 * libm::sin(angle),
                        view_width: 100.0,
                        view_depth: 100.0,
                        velocity_x: -150.0 * turn * libm::sin(angle),
                        velocity_z: 150.0 * turn * libm::cos(angle),
                    };
                    if let Err(e) = tracker.upsert(viewer).await {
                        shared.stats.error(format!("TrackViewers upsert: {e}"));
                        return;
                    }
                }
                shared.stats.viewer_updates(count as u64);
            }
            msg = tracker.next() => match msg {
                Some(Ok(LifecycleMessage::Rejected { viewer_id, field, message })) => shared
                    .stats
                    .error(format!("TrackViewers rejected {viewer_id} {field}: {message}")),
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    shared.stats.error(format!("TrackViewers: {e}"));
                    return;
                }
                None => {
                    shared.stats.error("TrackViewers: the server ended the stream");
                    return;
                }
            },
        }
    }
}
