//! Structured logging with `tracing`, to standard error (standard output stays free for
//! `terrain-server protoset -`).
//!
//! The filter comes from `RUST_LOG` (default `info`); the format from `log_format`:
//! human-readable text, or one JSON object per line for log shippers. Request spans
//! (method, path, status, latency) are logged at `debug`.

use std::io::IsTerminal;

use tracing_subscriber::{EnvFilter, fmt};

use crate::config::LogFormat;

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("installing the log subscriber: {0}")]
    Install(#[from] Box<dyn std::error::Error + Send + Sync + 'static>),
}

/// Installs the global log subscriber. Call once, from `main`.
pub fn init(format: LogFormat) -> Result<(), TelemetryError> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // A log line that cannot be written (standard error closed) is dropped: reporting
    // it would itself write to standard error, which panics, killing the task that
    // logged (the signal handler, say) or the whole process.
    let builder = fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .log_internal_errors(false);
    match format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init()?,
        LogFormat::Json => builder.json().with_current_span(false).try_init()?,
    }
    Ok(())
}
