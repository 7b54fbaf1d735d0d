//! [`RequestLimits`]: how much work the server takes on at once, so an overload is
//! refused at once instead of queued without bound: the cap on requests in flight
//! (beyond it, `RESOURCE_EXHAUSTED` / 503 with `Retry-After`) and the time one request
//! may take (beyond it, `DEADLINE_EXCEEDED` / 504). Applied by `transport::admission`;
//! streams (WebSocket and gRPC streaming calls) and the health, readiness and metrics
//! routes are outside both.

use std::time::Duration;

use super::ConfigError;

/// Default most requests in flight at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;
/// Largest accepted `max_in_flight`.
pub const MAX_MAX_IN_FLIGHT: usize = 1_000_000;
/// Default time one request may take.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `Retry-After` of an overloaded answer.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);

/// Request admission limits of one server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestLimits {
    /// Most unary requests (HTTP or gRPC) being answered at once; one more is refused
    /// at once with `RESOURCE_EXHAUSTED` (HTTP 503) and `Retry-After`.
    pub max_in_flight: usize,
    /// A request not answered within this time gets `DEADLINE_EXCEEDED` (HTTP 504)
    /// and its remaining work is dropped.
    pub request_timeout: Duration,
    /// What an overloaded answer tells the client to wait (`Retry-After`, gRPC
    /// `RetryInfo`).
    pub retry_after: Duration,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            retry_after: DEFAULT_RETRY_AFTER,
        }
    }
}

impl RequestLimits {
    /// `max_in_flight` in `1..=1000000`, both durations positive.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_in_flight == 0 || self.max_in_flight > MAX_MAX_IN_FLIGHT {
            return Err(ConfigError::invalid(
                "max_in_flight",
                format!("must be between 1 and {MAX_MAX_IN_FLIGHT}"),
            ));
        }
        for (key, value) in [
            ("request_timeout", self.request_timeout),
            ("retry_after", self.retry_after),
        ] {
            if value.is_zero() {
                return Err(ConfigError::invalid(key, "must be greater than 0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::config::tests::from_text as resolve;

    #[test]
    fn the_keys_resolve_with_their_defaults() {
        let config = resolve("").unwrap();
        assert_eq!(config.requests, RequestLimits::default());
        assert_eq!(config.requests.max_in_flight, 1024);
        assert_eq!(config.requests.request_timeout, Duration::from_secs(30));
        let config =
            resolve("max_in_flight = 3\nrequest_timeout = \"250ms\"\nretry_after = \"2s\"")
                .unwrap();
        assert_eq!(
            config.requests,
            RequestLimits {
                max_in_flight: 3,
                request_timeout: Duration::from_millis(250),
                retry_after: Duration::from_secs(2),
            }
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        for (text, key) in [
            ("max_in_flight = 0", "max_in_flight"),
            ("max_in_flight = 2000000", "max_in_flight"),
            ("request_timeout = \"0s\"", "request_timeout"),
            ("retry_after = 0", "retry_after"),
        ] {
            let err = resolve(text).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }
}
