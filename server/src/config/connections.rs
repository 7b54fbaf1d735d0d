//! [`ConnectionConfig`]: what one TCP connection may hold on to, so idle, stalled or
//! dead clients cannot keep descriptors for ever: the HTTP/1.1 header-read timeout,
//! the request-body timeout, HTTP/2 keep-alive pings and the cap on open connections
//! (applied by `transport::conn`); WebSocket pings (applied by `api::http::events`); and
//! the largest gRPC message every service decodes and encodes (applied by `api::grpc`).

use std::time::Duration;

use super::ConfigError;

/// Default time a connection has to send a whole request head.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time a connection may stay open with no request or stream in progress.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default time a request body has to arrive in full.
pub const DEFAULT_REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default most open connections.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// Largest accepted `max_connections`.
pub const MAX_MAX_CONNECTIONS: usize = 1_000_000;
/// Default period of the HTTP/2 keep-alive ping.
pub const HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(20);
/// Default time an HTTP/2 ping may go unanswered before the connection is closed. A
/// peer that stops (a frozen process, a dead link) is thus dropped, with its streams
/// and the viewers of its `TrackViewers` streams, within interval + timeout: 40 s.
pub const HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// Default period of a WebSocket subscription's ping.
pub const WEBSOCKET_PING_INTERVAL: Duration = Duration::from_secs(20);
/// Default time a WebSocket subscription may stay silent after a ping before it is
/// closed: as over HTTP/2, a stopped peer is dropped within interval + timeout, 40 s.
pub const WEBSOCKET_PING_TIMEOUT: Duration = Duration::from_secs(20);

/// Default most open streams (event subscriptions and `TrackViewers`) on one connection.
pub const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION: usize = 100;
/// Default most open streams on the whole server.
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 10_000;
/// Largest accepted `max_subscriptions` / `max_subscriptions_per_connection`.
pub const MAX_MAX_SUBSCRIPTIONS: usize = 1_000_000;
/// Smallest accepted `grpc_max_decoding_message_size` / `grpc_max_encoding_message_size`.
pub const MIN_GRPC_MESSAGE_SIZE: usize = 1024;
/// Largest accepted gRPC message size: a message's length prefix is 32 bits.
pub const MAX_GRPC_MESSAGE_SIZE: usize = u32::MAX as usize;

/// Connection limits of one server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectionConfig {
    /// A new connection must send its first request head, and an HTTP/1.1 connection
    /// each further request head, within this time, or it is closed (idle connections,
    /// slowloris, idle keep-alive).
    pub header_read_timeout: Duration,
    /// A connection with no request or stream in progress for this long is closed
    /// (HTTP/2 `GOAWAY`; an idle HTTP/1.1 connection is also bounded by
    /// `header_read_timeout`, whichever comes first).
    pub idle_timeout: Duration,
    /// A request body (not a gRPC stream or a WebSocket) must arrive in full within
    /// this time of its head, or the request is answered 408 and the connection closed.
    pub request_body_timeout: Duration,
    /// Most open connections; beyond it the server stops accepting (new clients wait
    /// in the listen backlog) until one closes.
    pub max_connections: usize,
    /// Period of the HTTP/2 keep-alive ping (sent once the connection has been
    /// silent this long).
    pub http2_keepalive_interval: Duration,
    /// An HTTP/2 connection whose ping is not answered within this time is closed,
    /// ending its streams: a stopped peer is dropped within interval + timeout.
    pub http2_keepalive_timeout: Duration,
    /// Period of a WebSocket event subscription's ping, sent once the client has been
    /// silent this long (HTTP/2 pings cover gRPC streams; a WebSocket over HTTP/1.1
    /// has only its own).
    pub websocket_ping_interval: Duration,
    /// A WebSocket subscription that sends nothing (no pong, no message) within this
    /// time of a ping is closed, giving its stream place back: a stopped peer is
    /// dropped within interval + timeout.
    pub websocket_ping_timeout: Duration,
    /// Largest gRPC request message (bytes) any service decodes; a larger one is
    /// `RESOURCE_EXHAUSTED`. `None`: what the request limits need (`api::grpc`).
    pub grpc_max_decoding_message_size: Option<usize>,
    /// Largest gRPC answer message (bytes) any service encodes. `None`: the largest
    /// answer the request limits allow (`api::grpc`).
    pub grpc_max_encoding_message_size: Option<usize>,
    /// Most open streams (gRPC `Subscribe`, WebSocket event subscriptions,
    /// `TrackViewers`) on one connection; one more is refused at once.
    pub max_subscriptions_per_connection: usize,
    /// Most open streams on the whole server; one more is refused at once.
    pub max_subscriptions: usize,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            request_body_timeout: DEFAULT_REQUEST_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            http2_keepalive_interval: HTTP2_KEEPALIVE_INTERVAL,
            http2_keepalive_timeout: HTTP2_KEEPALIVE_TIMEOUT,
            websocket_ping_interval: WEBSOCKET_PING_INTERVAL,
            websocket_ping_timeout: WEBSOCKET_PING_TIMEOUT,
            grpc_max_decoding_message_size: None,
            grpc_max_encoding_message_size: None,
            max_subscriptions_per_connection: DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
        }
    }
}

impl ConnectionConfig {
    /// Every timeout positive, `max_connections` and the stream caps in `1..=1000000`,
    /// gRPC message sizes in `1024..=4294967295`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, value) in [
            ("header_read_timeout", self.header_read_timeout),
            ("idle_timeout", self.idle_timeout),
            ("request_body_timeout", self.request_body_timeout),
            ("http2_keepalive_interval", self.http2_keepalive_interval),
            ("http2_keepalive_timeout", self.http2_keepalive_timeout),
            ("websocket_ping_interval", self.websocket_ping_interval),
            ("websocket_ping_timeout", self.websocket_ping_timeout),
        ] {
            if value.is_zero() {
                return Err(ConfigError::invalid(key, "must be greater than 0"));
            }
        }
        if self.max_connections == 0 || self.max_connections > MAX_MAX_CONNECTIONS {
            return Err(ConfigError::invalid(
                "max_connections",
                format!("must be between 1 and {MAX_MAX_CONNECTIONS}"),
            ));
        }
        for (key, value) in [
            (
                "max_subscriptions_per_connection",
                self.max_subscriptions_per_connection,
            ),
            ("max_subscriptions", self.max_subscriptions),
        ] {
            if value == 0 || value > MAX_MAX_SUBSCRIPTIONS {
                return Err(ConfigError::invalid(
                    key,
                    format!("must be between 1 and {MAX_MAX_SUBSCRIPTIONS}"),
                ));
            }
        }
        for (key, value) in [
            (
                "grpc_max_decoding_message_size",
                self.grpc_max_decoding_message_size,
            ),
            (
                "grpc_max_encoding_message_size",
                self.grpc_max_encoding_message_size,
            ),
        ] {
            if let Some(v) = value
                && !(MIN_GRPC_MESSAGE_SIZE..=MAX_GRPC_MESSAGE_SIZE).contains(&v)
            {
                return Err(ConfigError::invalid(
                    key,
                    format!(
                        "must be between {MIN_GRPC_MESSAGE_SIZE} and {MAX_GRPC_MESSAGE_SIZE} bytes, got {v}"
                    ),
                ));
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
        assert_eq!(config.connections, ConnectionConfig::default());
        assert_eq!(
            config.connections.header_read_timeout,
            Duration::from_secs(10)
        );
        assert_eq!(
            config.connections.request_body_timeout,
            Duration::from_secs(30)
        );
        assert_eq!(config.connections.max_connections, 10_000);
        assert_eq!(config.connections.idle_timeout, Duration::from_secs(60));
        let config = resolve(
            "header_read_timeout = \"2s\"\nrequest_body_timeout = \"500ms\"\nmax_connections = 7\nidle_timeout = \"90s\"",
        )
        .unwrap();
        assert_eq!(config.connections.idle_timeout, Duration::from_secs(90));
        assert_eq!(
            config.connections.header_read_timeout,
            Duration::from_secs(2)
        );
        assert_eq!(
            config.connections.request_body_timeout,
            Duration::from_millis(500)
        );
        assert_eq!(config.connections.max_connections, 7);
    }

    #[test]
    fn the_keepalive_keys_resolve_with_their_defaults() {
        let config = resolve("").unwrap();
        assert_eq!(
            config.connections.http2_keepalive_interval,
            Duration::from_secs(20)
        );
        assert_eq!(
            config.connections.http2_keepalive_timeout,
            Duration::from_secs(20)
        );
        let config =
            resolve("http2_keepalive_interval = \"5s\"\nhttp2_keepalive_timeout = \"250ms\"")
                .unwrap();
        assert_eq!(
            config.connections.http2_keepalive_interval,
            Duration::from_secs(5)
        );
        assert_eq!(
            config.connections.http2_keepalive_timeout,
            Duration::from_millis(250)
        );
        let err = resolve("http2_keepalive_timeout = \"0s\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("http2_keepalive_timeout"), "{err}");
    }

    #[test]
    fn the_websocket_ping_keys_resolve_with_their_defaults() {
        let config = resolve("").unwrap();
        assert_eq!(
            config.connections.websocket_ping_interval,
            Duration::from_secs(20)
        );
        assert_eq!(
            config.connections.websocket_ping_timeout,
            Duration::from_secs(20)
        );
        let config =
            resolve("websocket_ping_interval = \"5s\"\nwebsocket_ping_timeout = \"250ms\"")
                .unwrap();
        assert_eq!(
            config.connections.websocket_ping_interval,
            Duration::from_secs(5)
        );
        assert_eq!(
            config.connections.websocket_ping_timeout,
            Duration::from_millis(250)
        );
        for key in ["websocket_ping_interval", "websocket_ping_timeout"] {
            let err = resolve(&format!("{key} = \"0s\"")).unwrap_err().to_string();
            assert!(err.contains(key), "{err}");
        }
    }

    #[test]
    fn the_stream_caps_resolve_with_their_defaults() {
        let config = resolve("").unwrap();
        assert_eq!(config.connections.max_subscriptions_per_connection, 100);
        assert_eq!(config.connections.max_subscriptions, 10_000);
        let config =
            resolve("max_subscriptions_per_connection = 3\nmax_subscriptions = 5").unwrap();
        assert_eq!(config.connections.max_subscriptions_per_connection, 3);
        assert_eq!(config.connections.max_subscriptions, 5);
    }

    #[test]
    fn the_grpc_message_sizes_resolve() {
        let config = resolve("").unwrap();
        assert_eq!(config.connections.grpc_max_decoding_message_size, None);
        assert_eq!(config.connections.grpc_max_encoding_message_size, None);
        let config = resolve(
            "grpc_max_decoding_message_size = 65536\ngrpc_max_encoding_message_size = 1048576",
        )
        .unwrap();
        assert_eq!(
            config.connections.grpc_max_decoding_message_size,
            Some(65_536)
        );
        assert_eq!(
            config.connections.grpc_max_encoding_message_size,
            Some(1_048_576)
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        for (text, key) in [
            ("header_read_timeout = \"0s\"", "header_read_timeout"),
            ("idle_timeout = \"0s\"", "idle_timeout"),
            ("request_body_timeout = 0", "request_body_timeout"),
            ("max_connections = 2000000", "max_connections"),
            (
                "grpc_max_decoding_message_size = 100",
                "grpc_max_decoding_message_size",
            ),
            (
                "grpc_max_encoding_message_size = 5000000000",
                "grpc_max_encoding_message_size",
            ),
            ("max_subscriptions = 0", "max_subscriptions"),
            (
                "max_subscriptions_per_connection = 2000000",
                "max_subscriptions_per_connection",
            ),
        ] {
            let err = resolve(text).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }
}
