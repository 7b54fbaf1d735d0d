//! The options objects the class takes (`open`, `findPath`) and the checks of the
//! numbers they and `waitForRevision` carry.

use napi::Result;
use napi_derive::napi;

use crate::errors::invalid;

/// Options of `LocalTerrain.open`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct OpenOptions {
    /// PEM file of the CA that signed the server's certificate (`https://` URLs).
    pub ca_file: Option<String>,
    /// Connect timeout in milliseconds (default: the Rust SDK's, 5 s): a whole number
    /// from 1 to [`MAX_TIMEOUT_MS`].
    pub connect_timeout_ms: Option<f64>,
}

/// The longest timeout an option may give: one hour, in milliseconds.
pub const MAX_TIMEOUT_MS: f64 = 3_600_000.0;

/// How long `waitForRevision` waits when not told: 30 s, the SDK's request timeout.
pub(crate) const DEFAULT_WAIT_MS: f64 = 30_000.0;

/// A timeout option in milliseconds, checked: a whole number from 1 to
/// [`MAX_TIMEOUT_MS`], else an error naming `field`.
pub(crate) fn timeout_ms(field: &str, ms: f64) -> Result<std::time::Duration> {
    if ms.fract() == 0.0 && (1.0..=MAX_TIMEOUT_MS).contains(&ms) {
        Ok(std::time::Duration::from_millis(ms as u64))
    } else {
        Err(invalid(format!(
            "{field}: must be a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS}, got {ms}"
        )))
    }
}

/// Options of `findPath`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct FindOptions {
    /// Most tiles to expand (default 100,000; 1 to 1,000,000).
    pub max_nodes: Option<f64>,
    /// Longest straight distance between the ends, metres (default 1,000; at most 5,000).
    pub max_distance: Option<f64>,
}

/// The largest whole number a JavaScript number holds exactly.
pub(crate) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
