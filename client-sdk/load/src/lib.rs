//! `terrain-load`, a load generator that speaks ghz's language (flags, config keys,
//! data templates, text and JSON reports), for any method of the terrain server's
//! services and `grpc.health.v1.Health`: methods are found in the descriptor set
//! `terrain-proto` builds, and request JSON maps to protobuf through `prost-reflect`,
//! so a new RPC needs no code here. A crate of its own, so that a game server
//! depending on `terrain-client` does not build clap, hdrhistogram, toml or anyhow.
//!
//! - [`options`]: flags and config file (JSON or TOML) resolved into [`Options`].
//! - [`methods`]: the descriptor pool and the [`Method`] a `--call` names.
//! - [`template`]: `{{.RequestNumber}}`-style templates and random functions that
//!   spread coordinates over an area.
//! - [`data`]: `-d` request data, JSON to a `DynamicMessage` to bytes.
//! - [`call`]: how one request is sent (unary and streaming), over a dynamic codec.
//! - [`mod@run`]: workers, connections, rate limit, durations; HDR histograms.
//! - [`report`]: ghz's report (JSON fields and the text summary).
//! - [`fanout`]: `terrain-fanout`, event fan-out latency and the server's CPU per
//!   delivered event, with the subscribers in a process of their own.
//! - [`soak`]: `terrain-soak`, a long mixed load (queries, meshes, zone churn,
//!   subscribers, moving viewers) checked for errors, memory and lost zone changes.

pub mod call;
pub mod data;
pub mod fanout;
pub mod methods;
pub mod options;
pub mod report;
pub mod run;
pub mod soak;
pub mod template;

pub use methods::{Method, MethodKind};

/// The exit of `terrain-load`, `terrain-soak` and `terrain-fanout`: an expected failure (a bad flag, an
/// unreachable server, a failed soak check) prints its message and causes on one line
/// and exits 1. A stack backtrace is for bugs (panics), so none is printed here even
/// when `RUST_BACKTRACE` is set, as `main` returning the error would.
pub fn exit_code(result: anyhow::Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
pub use options::{Cli, Format, Options, OptionsError, Settings, Tls};
pub use report::Report;
pub use run::{LoadError, run};
