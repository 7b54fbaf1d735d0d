//! The cap on open streams: event subscriptions (gRPC `Subscribe`, WebSocket
//! `/v1/worlds/{world}/events`) and `TrackViewers` streams share one budget, at most
//! `max_subscriptions_per_connection` on one connection and `max_subscriptions` on the
//! whole server. A stream beyond either is refused at once (gRPC
//! `RESOURCE_EXHAUSTED`, WebSocket 503 with `Retry-After` before the upgrade); its
//! place is given back when it ends ([`StreamPermit`] is dropped). The count is the
//! `terrain_open_streams` gauge, by kind.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use super::EventError;
use crate::metrics::Metrics;

/// What kind of stream a permit is for (the `kind` label of `terrain_open_streams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// gRPC `TerrainEvents.Subscribe`.
    GrpcEvents,
    /// The WebSocket event route.
    WebSocketEvents,
    /// gRPC `TerrainLifecycle.TrackViewers`.
    TrackViewers,
}

impl StreamKind {
    /// The metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamKind::GrpcEvents => "grpc_events",
            StreamKind::WebSocketEvents => "websocket_events",
            StreamKind::TrackViewers => "track_viewers",
        }
    }
}

/// The open streams of one connection; the connection puts a clone into each of its
/// requests' extensions.
#[derive(Debug, Clone, Default)]
pub struct ConnectionStreams(Arc<AtomicUsize>);

impl ConnectionStreams {
    /// Streams open on this connection.
    pub fn open(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// The server's stream budget.
#[derive(Debug)]
pub struct Streams {
    per_connection: usize,
    total: usize,
    open: Arc<AtomicUsize>,
    metrics: Arc<Metrics>,
}

/// One open stream's place in the budget, given back when dropped.
#[derive(Debug)]
pub struct StreamPermit {
    open: Arc<AtomicUsize>,
    connection: Option<ConnectionStreams>,
    kind: StreamKind,
    metrics: Arc<Metrics>,
}

/// Takes one place of `counter` if fewer than `cap` are taken.
fn take(counter: &AtomicUsize, cap: usize) -> bool {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < cap).then_some(n + 1)
        })
        .is_ok()
}

impl Streams {
    /// A budget of `per_connection` streams per connection and `total` in all.
    pub fn new(per_connection: usize, total: usize, metrics: Arc<Metrics>) -> Self {
        Streams {
            per_connection,
            total,
            open: Arc::new(AtomicUsize::new(0)),
            metrics,
        }
    }

    /// Streams open on the server.
    pub fn open_count(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// A place for one more stream of `kind` on `connection` (`None`: a request that
    /// came without one, which only the total bounds), or `RESOURCE_EXHAUSTED` naming
    /// the cap that is reached.
    pub fn admit(
        &self,
        connection: Option<&ConnectionStreams>,
        kind: StreamKind,
    ) -> Result<StreamPermit, EventError> {
        if !take(&self.open, self.total) {
            return Err(EventError::TooManyStreams {
                key: "max_subscriptions",
                scope: "this server",
                limit: self.total,
            });
        }
        if let Some(connection) = connection
            && !take(&connection.0, self.per_connection)
        {
            self.open.fetch_sub(1, Ordering::AcqRel);
            return Err(EventError::TooManyStreams {
                key: "max_subscriptions_per_connection",
                scope: "this connection",
                limit: self.per_connection,
            });
        }
        self.metrics.open_streams(kind.as_str(), 1.0);
        Ok(StreamPermit {
            open: Arc::clone(&self.open),
            connection: connection.cloned(),
            kind,
            metrics: Arc::clone(&self.metrics),
        })
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(connection) = &self.connection {
            connection.0.fetch_sub(1, Ordering::AcqRel);
        }
        self.metrics.open_streams(self.kind.as_str(), -1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorCode, ServiceError};

    fn streams(per_connection: usize, total: usize) -> Streams {
        Streams::new(per_connection, total, Arc::new(Metrics::new().unwrap()))
    }

    #[test]
    fn the_connection_cap_refuses_the_next_stream_until_one_ends() {
        let streams = streams(2, 10);
        let conn = ConnectionStreams::default();
        let a = streams.admit(Some(&conn), StreamKind::GrpcEvents).unwrap();
        let _b = streams
            .admit(Some(&conn), StreamKind::TrackViewers)
            .unwrap();
        let err = streams
            .admit(Some(&conn), StreamKind::GrpcEvents)
            .unwrap_err();
        assert_eq!(err.error_code(), ErrorCode::Overloaded);
        assert!(
            err.to_string().contains("max_subscriptions_per_connection"),
            "{err}"
        );
        // Refused: it took no place.
        assert_eq!((conn.open(), streams.open_count()), (2, 2));
        // Another connection still has room.
        let other = ConnectionStreams::default();
        let _c = streams.admit(Some(&other), StreamKind::GrpcEvents).unwrap();
        drop(a);
        assert_eq!((conn.open(), streams.open_count()), (1, 2));
        let _d = streams.admit(Some(&conn), StreamKind::GrpcEvents).unwrap();
    }

    #[test]
    fn the_total_cap_spans_connections() {
        let streams = streams(5, 2);
        let (c1, c2) = (ConnectionStreams::default(), ConnectionStreams::default());
        let a = streams.admit(Some(&c1), StreamKind::GrpcEvents).unwrap();
        let _b = streams.admit(None, StreamKind::WebSocketEvents).unwrap();
        let err = streams
            .admit(Some(&c2), StreamKind::TrackViewers)
            .unwrap_err();
        assert!(err.to_string().contains("(max_subscriptions)"), "{err}");
        assert_eq!(c2.open(), 0);
        drop(a);
        assert_eq!(c1.open(), 0);
        let _c = streams.admit(Some(&c2), StreamKind::TrackViewers).unwrap();
        assert_eq!(streams.open_count(), 2);
    }
}
