//! The library behind `terrain-load`, a load generator that speaks ghz's language
//! (flags, config keys, data templates, text and JSON reports), for the terrain
//! server's unary RPCs, `grpc.health.v1.Health/Check` and `Subscribe` streams.
//!
//! - [`options`]: flags and config file (JSON or TOML) resolved into [`Options`].
//! - [`data`]: `-d` request data with `{{.RequestNumber}}`-style templates and
//!   random functions that spread coordinates over an area.
//! - [`call`]: the supported methods and how one request is sent.
//! - [`run`]: workers, connections, rate limit, durations; HDR histograms.
//! - [`report`]: ghz's report (JSON fields and the text summary).

pub mod call;
pub mod data;
pub mod options;
pub mod report;
pub mod run;

pub use call::Method;
pub use options::{Cli, Format, Options, OptionsError};
pub use report::Report;
pub use run::{LoadError, run};
