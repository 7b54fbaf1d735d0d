//! Every end-to-end test of the workspace against a real server in this process on
//! `127.0.0.1:0`, as ONE test binary: the server, its dependencies and the harness are
//! linked once instead of once per file. One module per topic; the shared harness is
//! the `terrain-tests` library (`tests/src`), imported as `common`.
//!
//! Run one topic or one test with a filter (`--test e2e` names this binary):
//!
//! ```sh
//! cargo test -p terrain-tests --test e2e -- zones_http::
//! cargo test -p terrain-tests --test e2e -- sdk_replica::an_unknown_world_is_not_found --exact
//! ```
//!
//! The benchmarks (`bake_bench`, `events_latency`) are `#[ignore]`d tests here:
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture events_latency::`.
//!
//! Tests of the `terrain-server` process itself (flags, signals, `kill -9`, NATS
//! replicas) are not here: they spawn the executable, which cargo builds only for the
//! tests of its own package, so they are terrain-server's `tests/process` binary.
//!
//! # Adding a topic
//!
//! 1. Put the tests in `tests/tests/e2e/<topic>.rs`, starting with a `//!` saying what
//!    they show, and add `mod <topic>;` below (alphabetical).
//! 2. Import the harness with `use terrain_tests as common;` and then
//!    `use common::{TestServer, ...};` (`common::events::*` for subscribers).
//! 3. Shared helpers go into `tests/src` (documented, `pub use`d from its `lib.rs`),
//!    not into a topic module.
//!
//! A test binds only `127.0.0.1:0`, bounds every wait, and runs alongside the others
//! (the binary runs its tests in parallel threads): no fixed ports, no process-wide
//! state such as environment variables.

mod admission;
mod admission_alone;
mod admission_cost;
mod admission_kinds;
mod admission_probe;
mod asof;
mod bake_bench;
mod carve;
mod connections;
mod cors;
mod error_echoes;
mod events_area_replay;
mod events_fanout;
mod events_floor;
mod events_grpc;
mod events_latency;
mod events_resume;
mod events_shutdown;
mod events_slow;
mod events_ws;
mod events_ws_area;
mod events_ws_close;
mod grpc;
mod grpc_fields;
mod grpc_limits;
mod heights_surface;
mod http;
mod http_errors;
mod http_strict;
mod layout_world;
mod lifecycle;
mod live_budget;
mod map;
mod map_walk;
mod meshes_colours;
mod meshes_encoded;
mod meshes_grpc;
mod meshes_http;
mod meshes_lod;
mod openapi;
mod ops;
mod original_answers;
mod prefetch;
mod rebuild_bench;
mod sdk_client;
mod sdk_replica;
mod sdk_subscription;
mod sdk_tls;
mod seeds_reference;
mod snapshot;
mod stream_limits;
mod tiles3d;
mod tiles3d_declared;
mod tiles3d_extent;
mod tiles3d_voxel;
mod tls;
mod viewer_limits;
mod voxel_bench;
mod voxel_grpc;
mod voxel_http;
mod voxel_range;
mod walk;
mod walk_grid;
mod walk_local;
mod walk_zones;
mod worlds;
mod zones_auth;
mod zones_errors;
mod zones_grpc;
mod zones_http;
mod zones_large;
mod zones_mask;
mod zones_pages;
mod zones_persistence;
mod zones_startup;
