//! The one harness of the end-to-end tests: real servers on `127.0.0.1:0`, the clients
//! to talk to them, and what their answers are checked against.
//!
//! - [`TestServer`] (`server`): a server in this process with a temporary data
//!   directory; HTTP, gRPC and SDK clients for it; stop, restart and "elsewhere";
//! - `fixtures`: core generators and [`terrain_core::Terrain`]s to compare with, world
//!   configurations ([`plain_config`], [`layout_world`]), zones ([`rect`], [`doc`],
//!   [`resolve`]) and point sets ([`POINTS`], [`spiral`], [`random_points`]);
//! - `assert`: bit-equal heights, JSON numbers, the HTTP error shape, metrics;
//! - [`events`]: WebSocket and gRPC event subscribers;
//! - [`Proxy`] (`proxy`): a TCP proxy whose connections can be cut;
//! - [`Identity`] (`tls`): a self-signed certificate for [`TestServer::start_tls`];
//! - [`voxel`]: a voxel world's configuration and core terrain, and the glTF validator;
//! - [`tiles3d`]: 3D Tiles tilesets and subtrees checked against the 3D Tiles 1.1
//!   schemas.
//!
//! The tests themselves are one binary, `tests/e2e` (see its `main.rs`). The tests of
//! the `terrain-server` *process* (signals, flags, `kill -9`, NATS replicas) are
//! terrain-server's own `tests/process` binary, which has the executable at hand.

mod assert;
pub mod events;
mod fixtures;
mod proxy;
mod server;
pub mod tiles3d;
mod tls;
pub mod voxel;

pub use assert::{assert_http_error, assert_same, metric_sample, num, nums};
pub use fixtures::{
    POINTS, doc, game_zone_bodies, generator, layout_world, main_generator, plain_config,
    probe_points, random_points, rect, resolve, spiral, terrain, tiles_json,
};
pub use proxy::Proxy;
pub use server::{TIMEOUT, TestServer};
pub use tls::Identity;
