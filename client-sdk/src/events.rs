//! Tile events: the typed messages of `terrain.v1.TerrainEvents`, one raw stream
//! ([`TerrainClient::subscribe`], ends when the connection does) and
//! [`TerrainClient::update_subscription`]. For a stream that survives restarts see
//! [`crate::Subscription`].

use terrain_core::zones::Bounds;
use terrain_proto::v1;
use tonic::Streaming;

use crate::{ClientError, TerrainClient, types::tiles_from_proto};

/// An area of interest.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Area {
    /// Every event of the world.
    #[default]
    All,
    /// A tile rectangle, inclusive: an event matches when one of its tiles is inside.
    Tiles {
        min_tx: i64,
        min_tz: i64,
        max_tx: i64,
        max_tz: i64,
    },
    /// A circle in metres: an event matches when its bounds intersect it.
    Circle { x: f64, z: f64, radius: f64 },
}

impl Area {
    pub(crate) fn to_proto(self) -> Option<v1::SubscriptionArea> {
        use v1::subscription_area::Area as A;
        let area = match self {
            Area::All => return None,
            Area::Tiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            } => A::Tiles(v1::AreaTiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            }),
            Area::Circle { x, z, radius } => A::Circle(v1::AreaCircle { x, z, radius }),
        };
        Some(v1::SubscriptionArea { area: Some(area) })
    }
}

/// What a committed mutation did to its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CauseKind {
    Registered,
    Replaced,
    Removed,
}

/// One committed mutation of a world: the tiles it regenerated.
#[derive(Debug, Clone, PartialEq)]
pub struct TileEvent {
    pub world: String,
    pub revision: u64,
    /// The zone the mutation changed.
    pub zone: String,
    pub kind: CauseKind,
    /// Row-major (z outer, x inner).
    pub tiles: Vec<(i64, i64)>,
    /// The rectangle whose heights may have changed.
    pub bounds: Bounds,
    /// The largest absolute height change inside `bounds`, metres (absent only for
    /// replayed events logged before it was recorded).
    pub max_height_delta: Option<f64>,
}

/// A message of one event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamMessage {
    /// The first message: the id for `update_subscription` and the world's revision
    /// when the stream opened.
    Subscribed {
        subscription_id: String,
        revision: u64,
    },
    Tiles(TileEvent),
    /// Events from here on cannot be delivered: re-read the state at `revision`.
    Resync {
        revision: u64,
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
            }),
            Kind::Resync(r) => Ok(StreamMessage::Resync {
                revision: r.revision,
            }),
            Kind::Tiles(t) => {
                let cause = t.cause.ok_or_else(|| bad("no cause"))?;
                let kind = match cause.kind.as_str() {
                    "registered" => CauseKind::Registered,
                    "replaced" => CauseKind::Replaced,
                    "removed" => CauseKind::Removed,
                    other => return Err(bad(&format!("unknown cause kind {other:?}"))),
                };
                let b = t.bounds.ok_or_else(|| bad("no bounds"))?;
                Ok(StreamMessage::Tiles(TileEvent {
                    world: t.world,
                    revision: t.revision,
                    zone: cause.zone,
                    kind,
                    tiles: tiles_from_proto(t.tiles),
                    bounds: Bounds {
                        min_x: b.min_x,
                        min_z: b.min_z,
                        max_x: b.max_x,
                        max_z: b.max_z,
                    },
                    max_height_delta: t.max_height_delta,
                }))
            }
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
        let events = self.events.clone();
        self.retry
            .run("Subscribe", || {
                let mut c = events.clone();
                let req = v1::SubscribeRequest {
                    world: world.to_string(),
                    area: area.to_proto(),
                    from_revision,
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
