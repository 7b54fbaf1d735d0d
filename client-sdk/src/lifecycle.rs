//! Lifecycle and layout calls of [`TerrainClient`] (`terrain.v1.TerrainLifecycle`):
//! the world's live tiles, a world's hubs and spokes and zone classes (reads, retried),
//! and [`ViewerTracker`], a `TrackViewers` stream that reports viewers and follows the
//! world's tile transitions.

use terrain_proto::v1::{self, lifecycle_event::Kind, viewer_update::Update};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

use crate::{ClientError, TerrainClient};

/// Updates buffered before [`ViewerTracker::upsert`] waits for the stream.
const UPDATE_BUFFER: usize = 256;

/// A tile `(tx, tz)`, a viewer (a camera at `(x, z)` seeing `view_width` x
/// `view_depth` metres), tile sets per ring (each row-major; each ring includes the
/// ones inside it), the rings, and the transitions of tiles (a [`Step`] of
/// [`TileTransition`]s, each a [`TileChange`]): the shared model's types
/// ([`terrain_model`]).
pub use terrain_model::{Ring, Step, Tile, TileChange, TileSets, TileTransition, Viewer};

/// The world's live tiles as of a transition `sequence`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveTiles {
    pub world: String,
    pub sequence: u64,
    pub viewers: u32,
    pub tiles: TileSets,
}

/// A message of a [`ViewerTracker`].
#[derive(Debug, Clone, PartialEq)]
pub enum LifecycleMessage {
    /// The announced tiles: first on every stream, and again after falling behind.
    Snapshot(LiveTiles),
    /// One step of the world's transitions, in order.
    Transitions(Step),
    /// An update the server refused (it changed nothing).
    Rejected {
        viewer_id: String,
        field: String,
        message: String,
    },
}

/// A clearing of a layout world.
#[derive(Debug, Clone, PartialEq)]
pub struct Hub {
    /// `"{cx},{cz}:{i}"`.
    pub id: String,
    pub x: f64,
    pub z: f64,
    pub r: f64,
    pub chunk: (i64, i64),
}

/// A corridor between two hubs, by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spoke {
    pub a: String,
    pub b: String,
}

/// The hubs and spokes of a rectangle.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    pub hubs: Vec<Hub>,
    pub spokes: Vec<Spoke>,
}

/// What a point of a layout world is part of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoneClass {
    /// The clearing of the hub with this id.
    Hub(String),
    Spoke,
    Wilds,
}

/// The zone class of the classification cell holding a point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellClass {
    pub class: ZoneClass,
    /// The cell `(i, j)`.
    pub cell: (i64, i64),
}

fn live(l: v1::LiveTiles) -> LiveTiles {
    LiveTiles {
        world: l.world,
        sequence: l.sequence,
        viewers: l.viewers,
        tiles: TileSets::from(l.tiles.unwrap_or_default()),
    }
}

/// The protocol error of a transition the model refuses.
fn bad_transition(e: terrain_model::FieldError) -> ClientError {
    if e.field == "tile" {
        return ClientError::Protocol("transition without tile".into());
    }
    ClientError::Protocol(format!("transition: {}", e.reason))
}

fn message(event: v1::LifecycleEvent) -> Result<LifecycleMessage, ClientError> {
    match event.kind {
        Some(Kind::Snapshot(s)) => Ok(LifecycleMessage::Snapshot(live(s))),
        Some(Kind::Transitions(t)) => Ok(LifecycleMessage::Transitions(
            Step::try_from(t).map_err(bad_transition)?,
        )),
        Some(Kind::Rejected(r)) => Ok(LifecycleMessage::Rejected {
            viewer_id: r.viewer_id,
            field: r.field,
            message: r.message,
        }),
        None => Err(ClientError::Protocol("lifecycle event without kind".into())),
    }
}

/// A `TrackViewers` stream: report viewers with [`ViewerTracker::upsert`] and
/// [`ViewerTracker::remove`], read the world's transitions with
/// [`ViewerTracker::next`]. Its viewers are removed when it is dropped (the stream
/// ends). It does not reconnect: after an error, open a new one and report the
/// viewers again (the first message is a fresh snapshot). The server ends a stream
/// that sends nothing for its `viewer_ttl` (60 s by default, `DEADLINE_EXCEEDED`):
/// a viewer standing still re-sends its position at least that often.
#[derive(Debug)]
pub struct ViewerTracker {
    world: String,
    updates: mpsc::Sender<v1::ViewerUpdate>,
    events: Streaming<v1::LifecycleEvent>,
}

impl ViewerTracker {
    /// Adds or moves a viewer. Refusals come back as [`LifecycleMessage::Rejected`].
    pub async fn upsert(&self, viewer: Viewer) -> Result<(), ClientError> {
        self.send(Update::Upsert(v1::Viewer::from(viewer))).await
    }

    /// Removes a viewer this stream reported.
    pub async fn remove(&self, id: &str) -> Result<(), ClientError> {
        self.send(Update::Remove(id.to_string())).await
    }

    async fn send(&self, update: Update) -> Result<(), ClientError> {
        self.updates
            .send(v1::ViewerUpdate {
                world: self.world.clone(),
                update: Some(update),
            })
            .await
            .map_err(|_| ClientError::Unavailable("viewer stream closed".into()))
    }

    /// The next message; `None` when the server ended the stream (shutdown).
    pub async fn next(&mut self) -> Option<Result<LifecycleMessage, ClientError>> {
        match self.events.message().await {
            Ok(Some(event)) => Some(message(event)),
            Ok(None) => None,
            Err(status) => Some(Err(status.into())),
        }
    }
}

impl TerrainClient {
    /// Opens a `TrackViewers` stream for `world`. Reporting viewers on it needs the admin
    /// token when the server has one (a stream that only listens needs none). Not retried.
    pub async fn track_viewers(&mut self, world: &str) -> Result<ViewerTracker, ClientError> {
        let (updates, rx) = mpsc::channel(UPDATE_BUFFER);
        // The first message names the world and changes nothing.
        updates
            .send(v1::ViewerUpdate {
                world: world.to_string(),
                update: None,
            })
            .await
            .map_err(|_| ClientError::Unavailable("viewer stream closed".into()))?;
        let events = self
            .lifecycle
            .track_viewers(ReceiverStream::new(rx))
            .await?
            .into_inner();
        Ok(ViewerTracker {
            world: world.to_string(),
            updates,
            events,
        })
    }

    /// The union of every viewer's rings in `world`.
    pub async fn live_tiles(&mut self, world: &str) -> Result<LiveTiles, ClientError> {
        let c = self.lifecycle.clone();
        self.retry
            .run("GetLiveTiles", || {
                let mut c = c.clone();
                let req = v1::GetLiveTilesRequest {
                    world: world.to_string(),
                };
                async move { Ok(live(c.get_live_tiles(req).await?.into_inner())) }
            })
            .await
    }

    /// The hubs of every chunk the rectangle touches and every spoke with an end among
    /// them (`NotFound` with field `world` for a world without a layout layer).
    pub async fn layout(
        &mut self,
        world: &str,
        (min_x, min_z): (f64, f64),
        (max_x, max_z): (f64, f64),
    ) -> Result<Layout, ClientError> {
        let c = self.lifecycle.clone();
        self.retry
            .run("GetLayout", || {
                let mut c = c.clone();
                let req = v1::GetLayoutRequest {
                    world: world.to_string(),
                    min_x,
                    min_z,
                    max_x,
                    max_z,
                };
                async move {
                    let r = c.get_layout(req).await?.into_inner();
                    Ok(Layout {
                        hubs: r
                            .hubs
                            .into_iter()
                            .map(|h| Hub {
                                id: h.id,
                                x: h.x,
                                z: h.z,
                                r: h.r,
                                chunk: (h.chunk_x, h.chunk_z),
                            })
                            .collect(),
                        spokes: r
                            .spokes
                            .into_iter()
                            .map(|s| Spoke { a: s.a, b: s.b })
                            .collect(),
                    })
                }
            })
            .await
    }

    /// The zone class of the classification cell holding `(x, z)`.
    pub async fn zone_class(
        &mut self,
        world: &str,
        x: f64,
        z: f64,
    ) -> Result<CellClass, ClientError> {
        let c = self.lifecycle.clone();
        self.retry
            .run("GetZoneClass", || {
                let mut c = c.clone();
                let req = v1::GetZoneClassRequest {
                    world: world.to_string(),
                    x,
                    z,
                };
                async move {
                    let r = c.get_zone_class(req).await?.into_inner();
                    let class = match v1::ZoneClass::try_from(r.class) {
                        Ok(v1::ZoneClass::Hub) => ZoneClass::Hub(r.hub.ok_or_else(|| {
                            ClientError::Protocol("hub class without hub id".into())
                        })?),
                        Ok(v1::ZoneClass::Spoke) => ZoneClass::Spoke,
                        Ok(v1::ZoneClass::Wilds) => ZoneClass::Wilds,
                        _ => {
                            let class = r.class;
                            return Err(ClientError::Protocol(format!(
                                "unknown zone class {class}"
                            )));
                        }
                    };
                    Ok(CellClass {
                        class,
                        cell: (r.cell_x, r.cell_z),
                    })
                }
            })
            .await
    }
}
