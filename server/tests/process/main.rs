//! Tests of the `terrain-server` *process*, as one test binary: they spawn the
//! executable (`CARGO_BIN_EXE_terrain-server`, which cargo builds before this binary
//! because both belong to this package) and talk to it over loopback, send it signals,
//! `kill -9` it, and run replicas of it over real `nats-server` processes.
//!
//! They stay in terrain-server rather than in the one end-to-end binary of
//! `terrain-tests` (`tests/tests/e2e`) because cargo builds a package's executable only
//! for that package's own integration tests: from another package the binary may be
//! missing or stale. Everything that can run in-process is in `tests/tests/e2e`.
//!
//! - `common`: spawning the binary with a clean environment, its log lines, raw
//!   HTTP/1.1; `scale`: `nats-server` processes and replicas over them;
//! - `backup`: `backup` under load and `restore`;
//! - `binary`: configuration errors, flags and variables, SIGTERM, `protoset`;
//! - `durability`: the zone registry across restarts and `kill -9`;
//! - `scale_replicas`, `scale_faults`, `scale_topology`: replicas over NATS JetStream
//!   (ignored, and reported so, when the build found no `nats-server`: see
//!   `server/build.rs`); `scale_bench`: an `#[ignore]`d benchmark.
//!
//! A new topic is a module here (`mod <topic>;`, then `use crate::common;` in it).
//!
//! ```sh
//! cargo test -p terrain-server --test process -- scale_faults::
//! ```

mod common;
mod scale;

mod backup;
mod binary;
mod durability;
mod scale_bench;
mod scale_faults;
mod scale_replicas;
mod scale_topology;
