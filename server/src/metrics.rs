//! The server's Prometheus metrics.
//!
//! Each [`Metrics`] owns its own `PrometheusRecorder`, and every update runs inside
//! [`metrics::with_local_recorder`] on that recorder. Nothing is installed globally, so
//! several servers in one process (as in the end-to-end tests) each count only their
//! own traffic, and starting a server never fails because a global recorder exists.
//!
//! | metric | labels |
//! | --- | --- |
//! | `terrain_http_requests_total` | `route` (matched path), `method`, `status` |
//! | `terrain_http_request_duration_seconds` (histogram) | `route`, `method` |
//! | `terrain_grpc_requests_total` | `method` (`/package.Service/Method`), `code` |
//! | `terrain_grpc_request_duration_seconds` (histogram) | `method` |
//! | `terrain_connections_open` (gauge) | (accepted connections not yet closed, under `max_connections`) |
//! | `terrain_requests_in_flight` (gauge) | (unary requests holding a `max_in_flight` slot) |
//! | `terrain_requests_shed_total` | (refused at once: every slot busy) |
//! | `terrain_requests_timed_out_total` | (cut off by `request_timeout`) |
//! | `terrain_compute_queued_seconds` (gauge) | (estimated pool time of the admitted, unfinished work: `crate::cost`) |
//! | `terrain_work_estimate_seconds` (gauge) | `world`, `work` (`batch_point`, `heightmap_sample`, `map_tile`, `walk_map_height`, `mesh`, `chunk`, `terrain_info_height`, `path_check_height`, `path_node`, `rebuild_zone`: estimated pool time of one unit) |
//! | `terrain_heights_computed_total` | `world` |
//! | `terrain_surface_tiles_read_total` | `world` (cached tile meshes a surface-mode batch read its heights from) |
//! | `terrain_zones` (gauge) | `world` |
//! | `terrain_zone_index_tiles` (gauge) | `world` (index cells over all levels, at most 256 per zone) |
//! | `terrain_zone_lookups_total` | `world`, `hit` (`true`: a flat zone decided the height) |
//! | `terrain_world_revision` (gauge) | `world` |
//! | `terrain_mesh_cache_hits_total`, `terrain_mesh_cache_misses_total` | `world` |
//! | `terrain_mesh_cache_bytes` (gauge) | |
//! | `terrain_mesh_build_seconds` (histogram) | |
//! | `terrain_tiles_regenerated_total` | `world` |
//! | `terrain_tiles3d_grids_built_total` | (3D Tiles grids made from the terrain; one a concurrent request waited for counts once) |
//! | `terrain_walk_grids_total` | `world`, `outcome` (`hit`: a path query read a kept block of movement tiles; `built`: it built one and kept it) |
//! | `terrain_event_subscribers` (gauge) | `world` |
//! | `terrain_open_streams` (gauge) | `kind` (`grpc_events`, `websocket_events`, `track_viewers`; under `max_subscriptions`) |
//! | `terrain_events_published_total` | `world` |
//! | `terrain_events_sent_total` | `world` (events delivered to subscribers' streams) |
//! | `terrain_events_direct_total` | `world` (of those, written by the hub's writer straight to a WebSocket's TCP socket: direct delivery) |
//! | `terrain_event_subscribers_dropped_total` | `world` (slow subscribers cut off) |
//! | `terrain_event_encodings_total` | `format` (`json`, `protobuf`: events encoded, once per event and format) |
//! | `terrain_mesh_encodings_total` | `format` (`json`, `glb`, `bin`, `protobuf`: tile meshes encoded for a response) |
//! | `terrain_viewers` (gauge) | `world` |
//! | `terrain_live_tiles` (gauge) | `world`, `ring` (`sim`, `spawn`, `active`) |
//! | `terrain_lifecycle_queue` (gauge) | `world` (tiles waiting for generation) |
//! | `terrain_lifecycle_generated_total` | `world` (tile meshes built ahead of viewers) |
//! | `terrain_lifecycle_dropped_total` | `world` (queued generation dropped, no longer needed) |
//! | `terrain_lifecycle_culled_total` | `world` |
//! | `terrain_layout_chunks` (gauge) | `world` (layout chunks held) |
//! | `terrain_layout_chunks_dropped_total` | `world` (layout chunks garbage-collected) |
//! | `terrain_bake_seconds` (gauge) | `world` (how long the start-up bake took) |
//! | `terrain_replication_poison_total` | `world` (zone log entries skipped: they do not decode) |
//!
//! The flat-zone metrics are brought up to date at each scrape.
//!
//! Durations run until the response head is ready (for streaming gRPC methods, until
//! the stream opens).

use std::time::Duration;

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{
    BuildError, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

use crate::cost::Meters;

/// Latency buckets, in seconds: 100 us to 10 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// One world's flat-zone statistics at one moment ([`crate::world::stats`] reads
/// them from the world).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldStats {
    pub world: String,
    pub revision: u64,
    pub zones: usize,
    /// Index tiles listing at least one zone.
    pub index_tiles: usize,
    /// Lookups since start-up.
    pub lookups: u64,
    /// Lookups since start-up that a zone decided.
    pub hits: u64,
}

/// One server's metrics registry.
#[derive(Debug)]
pub struct Metrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
}

impl Metrics {
    /// A fresh registry with the metrics described.
    pub fn new() -> Result<Self, BuildError> {
        let recorder = PrometheusBuilder::new()
            .set_buckets(LATENCY_BUCKETS)?
            .build_recorder();
        let handle = recorder.handle();
        let metrics = Metrics { recorder, handle };
        metrics.with(|| {
            describe_counter!(
                "terrain_http_requests_total",
                "HTTP requests, by route and status"
            );
            describe_histogram!(
                "terrain_http_request_duration_seconds",
                metrics::Unit::Seconds,
                "HTTP request latency, by route"
            );
            describe_counter!(
                "terrain_grpc_requests_total",
                "gRPC calls, by method and code"
            );
            describe_histogram!(
                "terrain_grpc_request_duration_seconds",
                metrics::Unit::Seconds,
                "gRPC call latency, by method"
            );
            describe_counter!(
                "terrain_heights_computed_total",
                "Heights computed, by world"
            );
            describe_counter!(
                "terrain_surface_tiles_read_total",
                "Cached tile meshes surface-mode batches read their heights from, by world"
            );
            describe_gauge!("terrain_zones", "Registered flat zones, by world");
            describe_gauge!(
                "terrain_zone_index_tiles",
                "Zone index cells (all levels) listing at least one flat zone, by world: at most 256 per zone"
            );
            describe_counter!(
                "terrain_zone_lookups_total",
                "Height lookups (single and batch points), by world and whether a flat zone decided them"
            );
            describe_gauge!("terrain_world_revision", "Current revision, by world");
            describe_counter!(
                "terrain_mesh_cache_hits_total",
                "Tile mesh requests answered from the cache, by world"
            );
            describe_counter!(
                "terrain_mesh_cache_misses_total",
                "Tile meshes built for a request (concurrent requests share one), by world"
            );
            describe_gauge!(
                "terrain_mesh_cache_bytes",
                metrics::Unit::Bytes,
                "Approximate bytes of tile meshes held in the cache"
            );
            describe_histogram!(
                "terrain_mesh_build_seconds",
                metrics::Unit::Seconds,
                "Time to build one tile mesh"
            );
            describe_counter!(
                "terrain_tiles_regenerated_total",
                "Cached tile meshes rebuilt because a change touched them, by world"
            );
            describe_counter!(
                "terrain_tiles3d_grids_built_total",
                "3D Tiles content grids made from the terrain (16 tiles each at most); a grid \
                 concurrent requests need is built once"
            );
            describe_counter!(
                "terrain_walk_grids_total",
                "Blocks of 64 x 64 movement tiles path checks and searches read from the walk \
                 cache (outcome hit) or built and kept (outcome built), by world"
            );
            describe_gauge!(
                "terrain_open_streams",
                "Open event subscriptions and TrackViewers streams, by kind"
            );
            describe_gauge!(
                "terrain_event_subscribers",
                "Open event subscriptions, by world"
            );
            describe_counter!(
                "terrain_events_published_total",
                "Tile events published (one per committed mutation), by world"
            );
            describe_counter!(
                "terrain_events_sent_total",
                "Tile events handed to subscribers' streams (live and replayed), by world"
            );
            describe_counter!(
                "terrain_events_direct_total",
                "Tile events the hub's writer wrote straight to WebSocket subscribers' sockets (direct delivery; counted in terrain_events_sent_total too), by world"
            );
            describe_counter!(
                "terrain_event_encodings_total",
                "Tile events encoded for the wire, by format (once per event, shared by every subscriber)"
            );
            describe_counter!(
                "terrain_mesh_encodings_total",
                "Tile meshes encoded for a response, by format (a cached encoding is not counted)"
            );
            describe_counter!(
                "terrain_event_subscribers_dropped_total",
                "Slow event subscribers cut off with a resync, by world"
            );
            describe_gauge!("terrain_viewers", "Reported viewers, by world");
            describe_gauge!(
                "terrain_live_tiles",
                "Tiles in some viewer's ring, by world and ring"
            );
            describe_gauge!(
                "terrain_lifecycle_queue",
                "Tiles waiting for generation, by world"
            );
            describe_counter!(
                "terrain_lifecycle_generated_total",
                "Tile meshes built ahead of viewers, by world"
            );
            describe_counter!(
                "terrain_lifecycle_dropped_total",
                "Queued tile generation dropped because no viewer needed the tile any more, by world"
            );
            describe_counter!(
                "terrain_lifecycle_culled_total",
                "Tiles released after the grace period outside every active ring, by world"
            );
            describe_gauge!("terrain_layout_chunks", "Layout chunks held, by world");
            describe_counter!(
                "terrain_layout_chunks_dropped_total",
                "Layout chunks dropped beyond the GC radius, by world"
            );
            describe_gauge!(
                "terrain_bake_seconds",
                metrics::Unit::Seconds,
                "Duration of the world's start-up bake"
            );
            describe_counter!(
                "terrain_requests_shed_total",
                "Requests refused at once because every max_in_flight slot was busy"
            );
            describe_gauge!(
                "terrain_compute_queued_seconds",
                metrics::Unit::Seconds,
                "Estimated compute pool time of the admitted work not yet finished"
            );
            describe_gauge!(
                "terrain_work_estimate_seconds",
                metrics::Unit::Seconds,
                "Estimated compute pool time of one unit of work, by world and kind of work"
            );
            describe_gauge!(
                "terrain_connections_open",
                "Accepted connections not yet closed"
            );
            describe_gauge!(
                "terrain_requests_in_flight",
                "Requests holding a max_in_flight slot now"
            );
            describe_counter!(
                "terrain_requests_timed_out_total",
                "Requests answered DEADLINE_EXCEEDED after request_timeout"
            );
            describe_counter!(
                "terrain_replication_poison_total",
                "Zone log entries that did not decode and were skipped, by world"
            );
        });
        Ok(metrics)
    }

    fn with<T>(&self, f: impl FnOnce() -> T) -> T {
        metrics::with_local_recorder(&self.recorder, f)
    }

    /// Counts one HTTP request to `route` (an axum matched path, or `unmatched`).
    pub fn http_request(
        &self,
        route: String,
        method: &'static str,
        status: u16,
        elapsed: Duration,
    ) {
        self.with(|| {
            let status = status.to_string();
            counter!("terrain_http_requests_total", "route" => route.clone(), "method" => method, "status" => status)
                .increment(1);
            histogram!("terrain_http_request_duration_seconds", "route" => route, "method" => method)
                .record(elapsed.as_secs_f64());
        });
    }

    /// Counts one gRPC call to `method` ending with `code` (a canonical code name).
    pub fn grpc_request(&self, method: &'static str, code: &'static str, elapsed: Duration) {
        self.with(|| {
            counter!("terrain_grpc_requests_total", "method" => method, "code" => code)
                .increment(1);
            histogram!("terrain_grpc_request_duration_seconds", "method" => method)
                .record(elapsed.as_secs_f64());
        });
    }

    /// Counts one request refused for want of a slot (`max_in_flight`).
    pub fn request_shed(&self) {
        self.with(|| counter!("terrain_requests_shed_total").increment(1));
    }

    /// Moves the count of open connections by `delta` (+1 accepted, -1 closed).
    pub fn connections_open(&self, delta: f64) {
        self.with(|| gauge!("terrain_connections_open").increment(delta));
    }

    /// Moves the count of requests holding a slot by `delta` (+1 admitted, -1 done).
    pub fn requests_in_flight(&self, delta: f64) {
        self.with(|| gauge!("terrain_requests_in_flight").increment(delta));
    }

    /// Sets the admission gauges: the queued work, and `worlds`' estimates per unit.
    pub fn admission<'w>(
        &self,
        queued: Duration,
        worlds: impl Iterator<Item = (&'w str, &'w Meters)>,
    ) {
        self.with(|| {
            gauge!("terrain_compute_queued_seconds").set(queued.as_secs_f64());
            for (world, meters) in worlds {
                for (work, meter) in meters.named() {
                    let seconds = meter.ns_per_unit() * 1e-9;
                    gauge!("terrain_work_estimate_seconds", "world" => world.to_string(), "work" => work)
                        .set(seconds);
                }
            }
        });
    }

    /// Counts one request cut off by `request_timeout`.
    pub fn request_timed_out(&self) {
        self.with(|| counter!("terrain_requests_timed_out_total").increment(1));
    }

    /// Counts `n` heights computed for `world`.
    pub fn heights_computed(&self, world: &str, n: usize) {
        self.with(|| {
            counter!("terrain_heights_computed_total", "world" => world.to_string())
                .increment(n as u64);
        });
    }

    /// Counts `n` cached tile meshes a surface-mode batch of `world` read from.
    pub fn surface_tiles_read(&self, world: &str, n: usize) {
        self.with(|| {
            counter!("terrain_surface_tiles_read_total", "world" => world.to_string())
                .increment(n as u64);
        });
    }

    /// Sets the flat-zone metrics of one world.
    pub fn zone_stats(&self, stats: &WorldStats) {
        self.with(|| {
            let world = stats.world.clone();
            gauge!("terrain_zones", "world" => world.clone()).set(stats.zones as f64);
            gauge!("terrain_zone_index_tiles", "world" => world.clone())
                .set(stats.index_tiles as f64);
            gauge!("terrain_world_revision", "world" => world.clone()).set(stats.revision as f64);
            counter!("terrain_zone_lookups_total", "world" => world.clone(), "hit" => "true")
                .absolute(stats.hits);
            counter!("terrain_zone_lookups_total", "world" => world, "hit" => "false")
                .absolute(stats.lookups.saturating_sub(stats.hits));
        });
    }

    /// Adds `delta` (+1 or -1) open subscriptions of `world`.
    pub fn subscribers(&self, world: &str, delta: f64) {
        self.with(|| {
            gauge!("terrain_event_subscribers", "world" => world.to_string()).increment(delta);
        });
    }

    /// Adds `delta` (+1 or -1) open streams of `kind`.
    pub fn open_streams(&self, kind: &'static str, delta: f64) {
        self.with(|| {
            gauge!("terrain_open_streams", "kind" => kind).increment(delta);
        });
    }

    /// Counts one event published for `world`.
    pub fn event_published(&self, world: &str) {
        self.with(|| {
            counter!("terrain_events_published_total", "world" => world.to_string()).increment(1);
        });
    }

    /// The counter of events handed to `world`'s subscribers' streams. A stream keeps
    /// it, so counting an event is one atomic add, not a registry lookup (label
    /// string, key hash, map) per event and subscriber.
    pub fn events_sent(&self, world: &str) -> metrics::Counter {
        self.with(|| counter!("terrain_events_sent_total", "world" => world.to_string()))
    }

    /// The counter of events the hub's writer wrote straight to `world`'s
    /// subscribers' sockets (the writer keeps it).
    pub fn events_direct(&self, world: &str) -> metrics::Counter {
        self.with(|| counter!("terrain_events_direct_total", "world" => world.to_string()))
    }

    /// Counts one event encoded in `format`.
    pub fn event_encoded(&self, format: &'static str) {
        self.with(|| counter!("terrain_event_encodings_total", "format" => format).increment(1));
    }

    /// Counts one tile mesh encoded in `format`.
    pub fn mesh_encoded(&self, format: &'static str) {
        self.with(|| counter!("terrain_mesh_encodings_total", "format" => format).increment(1));
    }

    /// Counts `n` slow subscribers cut off.
    pub fn subscribers_dropped(&self, world: &str, n: u64) {
        self.with(|| {
            counter!("terrain_event_subscribers_dropped_total", "world" => world.to_string())
                .increment(n);
        });
    }

    /// Counts one tile mesh request answered from the cache (`hit`) or built.
    pub fn mesh_lookup(&self, world: &str, hit: bool) {
        let name = if hit {
            "terrain_mesh_cache_hits_total"
        } else {
            "terrain_mesh_cache_misses_total"
        };
        self.with(|| counter!(name, "world" => world.to_string()).increment(1));
    }

    /// Records how long one tile mesh build took.
    pub fn mesh_built(&self, elapsed: Duration) {
        self.with(|| histogram!("terrain_mesh_build_seconds").record(elapsed.as_secs_f64()));
    }

    /// Counts `n` 3D Tiles grids made from the terrain (those of the kept level and
    /// finer; a grid another request was building is waited for, not counted).
    pub fn tiles3d_grids_built(&self, n: u64) {
        self.with(|| counter!("terrain_tiles3d_grids_built_total").increment(n));
    }

    /// Counts a block of movement tiles a path query of `world` read from the walk cache
    /// (`built`: false) or built and kept there (`built`: true).
    pub fn walk_grid(&self, world: &str, built: bool) {
        let outcome = if built { "built" } else { "hit" };
        self.with(|| {
            counter!("terrain_walk_grids_total", "world" => world.to_string(), "outcome" => outcome)
                .increment(1);
        });
    }

    /// Sets the bytes of mesh data the cache holds.
    pub fn mesh_cache_bytes(&self, bytes: u64) {
        self.with(|| gauge!("terrain_mesh_cache_bytes").set(bytes as f64));
    }

    /// Counts `n` cached tiles of `world` rebuilt after a change.
    pub fn tiles_regenerated(&self, world: &str, n: usize) {
        self.with(|| {
            counter!("terrain_tiles_regenerated_total", "world" => world.to_string())
                .increment(n as u64);
        });
    }

    /// Sets the lifecycle gauges of `world`.
    pub fn lifecycle_state(&self, world: &str, viewers: usize, live: [usize; 3], queued: usize) {
        self.with(|| {
            let w = world.to_string();
            gauge!("terrain_viewers", "world" => w.clone()).set(viewers as f64);
            for (ring, n) in ["sim", "spawn", "active"].into_iter().zip(live) {
                gauge!("terrain_live_tiles", "world" => w.clone(), "ring" => ring).set(n as f64);
            }
            gauge!("terrain_lifecycle_queue", "world" => w).set(queued as f64);
        });
    }

    /// Adds to the lifecycle counters of `world`.
    pub fn lifecycle_counts(&self, world: &str, generated: u64, dropped: u64, culled: u64) {
        self.with(|| {
            for (name, n) in [
                ("terrain_lifecycle_generated_total", generated),
                ("terrain_lifecycle_dropped_total", dropped),
                ("terrain_lifecycle_culled_total", culled),
            ] {
                if n > 0 {
                    counter!(name, "world" => world.to_string()).increment(n);
                }
            }
        });
    }

    /// Sets the layout chunks `world` holds and counts `dropped` ones.
    pub fn layout_chunks(&self, world: &str, held: usize, dropped: usize) {
        self.with(|| {
            gauge!("terrain_layout_chunks", "world" => world.to_string()).set(held as f64);
            if dropped > 0 {
                counter!("terrain_layout_chunks_dropped_total", "world" => world.to_string())
                    .increment(dropped as u64);
            }
        });
    }

    /// Records how long `world`'s start-up bake took.
    pub fn baked(&self, world: &str, elapsed: Duration) {
        self.with(|| {
            gauge!("terrain_bake_seconds", "world" => world.to_string()).set(elapsed.as_secs_f64());
        });
    }

    /// A zone log entry of `world` that did not decode was skipped.
    pub fn replication_poison(&self, world: &str) {
        self.with(|| {
            counter!("terrain_replication_poison_total", "world" => world.to_string()).increment(1);
        });
    }

    /// The Prometheus text exposition of everything counted so far.
    pub fn render(&self) -> String {
        self.handle.render()
    }

    /// Drains buffered histogram samples; run periodically so memory stays bounded
    /// between scrapes.
    pub fn upkeep(&self) {
        self.handle.run_upkeep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_registries_count_separately() {
        let a = Metrics::new().unwrap();
        let b = Metrics::new().unwrap();
        a.heights_computed("main", 5);
        a.heights_computed("main", 2);
        b.heights_computed("main", 1);
        assert!(
            a.render()
                .contains("terrain_heights_computed_total{world=\"main\"} 7"),
            "{}",
            a.render()
        );
        assert!(
            b.render()
                .contains("terrain_heights_computed_total{world=\"main\"} 1"),
            "{}",
            b.render()
        );
    }
}
