//! Tile events: the typed messages of `terrain.v1.TerrainEvents`, one raw stream
//! ([`TerrainClient::subscribe`], ends when the connection does) and
//! [`TerrainClient::update_subscription`]. For a stream that survives restarts see
//! [`crate::Subscription`].

use terrain_proto::v1;
use tonic::Streaming;

use crate::{ClientError, TerrainClient};

/// An area of interest, what a mutation did to its zone, and one committed mutation:
/// the shared model's types ([`terrain_model`]), under the names of this crate's API.
pub use terrain_model::{Area, MutationKind as CauseKind, TileEvent};

/// A message of one event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamMessage {
    /// The first message: the id for `update_subscription` and the world's revision
    /// when the stream opened.
    Subscribed {
        subscription_id: String,
        revision: u64,
        /// The epoch of the world's history the stream's revisions belong to.
        epoch: String,
    },
    Tiles(TileEvent),
    /// Events from here on cannot be delivered: re-read the state at `revision`, of
    /// the history `epoch` (another than the resume point's after a restore).
    Resync {
        revision: u64,
        epoch: String,
    },
}

impl TryFrom<v1::Event> for StreamMessage {
    type Error = ClientError;

    fn try_from(e: v1::Event) -> Result<Self, ClientError> {
        use v1::event::Kind;
        let bad = |what: &str| ClientError::Protocol(format!("event: {what}"));
        match e.kind.ok_or_else(|| bad("no kind"))? {
            Kind::Subscribed(s) => Ok(StreamMessage::Subscribed {
                subscription_id: s.subscription_id,
                revision: s.revision,
                epoch: s.epoch,
            }),
            Kind::Resync(r) => Ok(StreamMessage::Resync {
                revision: r.revision,
                epoch: r.epoch,
            }),
            Kind::Tiles(t) => TileEvent::try_from(t)
                .map(StreamMessage::Tiles)
                .map_err(|e| bad(&e.to_string())),
        }
    }
}

/// One open `Subscribe` stream. It ends (`Ok(None)`) when the server shuts down and
/// fails when the connection does; it does not reconnect.
#[derive(Debug)]
pub struct EventStream {
    inner: Streaming<v1::Event>,
}

impl EventStream {
    /// The next message; `Ok(None)` once the server has ended the stream.
    pub async fn next(&mut self) -> Result<Option<StreamMessage>, ClientError> {
        match self.inner.message().await? {
            Some(e) => StreamMessage::try_from(e).map(Some),
            None => Ok(None),
        }
    }
}

impl TerrainClient {
    /// Opens one event stream of `world` for `area`; with `from_revision`, the
    /// events after it are replayed first (or a resync sent when that history is
    /// gone). Opening is retried like an idempotent call; the stream itself is not.
    pub async fn subscribe(
        &mut self,
        world: &str,
        area: Area,
        from_revision: Option<u64>,
    ) -> Result<EventStream, ClientError> {
        self.subscribe_resuming(world, area, from_revision, None)
            .await
    }

    /// [`TerrainClient::subscribe`] resuming from `from_revision` of the history
    /// `from_epoch` (what `Subscribed`, `Resync` or the zone list said): a server
    /// whose history is another (restored from a backup, restarted empty) answers
    /// with `resync` at its revision instead of replaying.
    pub async fn subscribe_resuming(
        &mut self,
        world: &str,
        area: Area,
        from_revision: Option<u64>,
        from_epoch: Option<&str>,
    ) -> Result<EventStream, ClientError> {
        let events = self.events.clone();
        self.retry
            .run("Subscribe", || {
                let mut c = events.clone();
                let req = v1::SubscribeRequest {
                    world: world.to_string(),
                    area: area.to_proto(),
                    from_revision,
                    from_epoch: from_epoch.map(str::to_string),
                };
                async move {
                    let inner = c.subscribe(req).await?.into_inner();
                    Ok(EventStream { inner })
                }
            })
            .await
    }

    /// Replaces the area of the open stream `subscription_id`.
    pub async fn update_subscription(
        &mut self,
        subscription_id: &str,
        area: Area,
    ) -> Result<(), ClientError> {
        let events = self.events.clone();
        self.retry
            .run("UpdateSubscription", || {
                let mut c = events.clone();
                let req = v1::UpdateSubscriptionRequest {
                    subscription_id: subscription_id.to_string(),
                    area: area.to_proto(),
                };
                async move {
                    c.update_subscription(req).await?;
                    Ok(())
                }
            })
            .await
    }
}
