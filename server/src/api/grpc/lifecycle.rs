//! Viewers and live tiles over gRPC: `TrackViewers` and `GetLiveTiles` of
//! `terrain.v1.TerrainLifecycle`.
//!
//! `TrackViewers` is bidirectional: the first update names the world; the server
//! answers with a `snapshot` of the announced tiles, then every transition step of the
//! world in order, and a `rejected` message for each update it refuses (which changes
//! nothing; the stream goes on). An update that cannot be read (it does not decode:
//! `INVALID_ARGUMENT`; over `grpc_max_decoding_message_size`: `RESOURCE_EXHAUSTED`)
//! ends the stream with that status. Viewers reported on a stream belong to it and are
//! removed when it ends: its reader task (one of the server's tasks) ends with the
//! answer stream and removes them as its last act. A listener that falls more than the step buffer behind gets a
//! fresh `snapshot` instead of the steps it missed. Streams end (OK) at shutdown.
//! Updates need `authorization: Bearer <token>` when an admin token is configured; a
//! stream that only listens (its first message names the world and changes nothing)
//! needs none, as `GetLiveTiles` needs none: without the token its first update that
//! changes a viewer ends it with `UNAUTHENTICATED` (`PERMISSION_DENIED` for a wrong
//! token), and a first message that changes one is refused at once.
//! A stream beyond `max_subscriptions_per_connection` or `max_subscriptions` (shared
//! with event subscriptions) is refused at once with `RESOURCE_EXHAUSTED`.

use std::{pin::Pin, sync::Arc};

use futures::{Stream, stream};
use terrain_proto::v1 as pb;
use tokio::sync::{broadcast::error::RecvError, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::{Request, Response, Status, Streaming};

use super::{authorize, oversize};
use crate::{
    api::{ApiError, ApiState, error::grpc_code},
    events::{ConnectionStreams, StreamKind, StreamPermit},
    lifecycle::{
        StepFeed, WorldLifecycle,
        rings::Viewer,
        tracker::{Owner, Step},
    },
};

/// Rejections queued for a stream before its updates are read more slowly.
const REJECTION_QUEUE: usize = 64;

/// The stream `TrackViewers` answers with.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::LifecycleEvent, Status>> + Send>>;

fn step_proto(world: &str, step: &Step) -> pb::LifecycleEvent {
    pb::LifecycleEvent {
        kind: Some(pb::lifecycle_event::Kind::Transitions(step.to_proto(world))),
    }
}

fn snapshot_proto(world: &str, feed: &StepFeed) -> pb::LifecycleEvent {
    pb::LifecycleEvent {
        kind: Some(pb::lifecycle_event::Kind::Snapshot(pb::LiveTiles {
            world: world.to_string(),
            sequence: feed.sequence,
            viewers: u32::try_from(feed.viewers).unwrap_or(u32::MAX),
            tiles: Some(pb::TileSets::from(&feed.announced)),
        })),
    }
}

fn rejected(viewer_id: &str, err: &ApiError) -> pb::LifecycleEvent {
    pb::LifecycleEvent {
        kind: Some(pb::lifecycle_event::Kind::Rejected(pb::ViewerRejected {
            viewer_id: viewer_id.to_string(),
            field: err.grpc_field().unwrap_or_default().into_owned(),
            message: err.grpc_message(),
            code: grpc_code(err.code()) as i32,
        })),
    }
}

/// Applies one update of a stream bound to `lc`.
fn apply(
    lc: &WorldLifecycle,
    owner: Owner,
    update: pb::ViewerUpdate,
) -> Result<(), (String, ApiError)> {
    if !update.world.is_empty() && update.world != lc.world().id() {
        let err = ApiError::invalid(
            "world",
            format!(
                "this stream tracks world {:?}; open another stream for {:?}",
                lc.world().id(),
                update.world
            ),
        );
        return Err((String::new(), err));
    }
    match update.update {
        Some(pb::viewer_update::Update::Upsert(v)) => {
            let id = v.id.clone();
            lc.upsert(Viewer::from(v), owner)
                .map(drop)
                .map_err(|e| (id, e.into()))
        }
        Some(pb::viewer_update::Update::Remove(id)) => {
            lc.remove(&id, owner).map_err(|e| (id, e.into()))
        }
        None => Err((
            String::new(),
            ApiError::invalid("update", "missing (required): upsert or remove"),
        )),
    }
}

/// Reads a stream's updates and applies them, until the stream's answer is dropped
/// (`ended` fires: the client went away or the server shuts down); then removes the
/// stream's viewers. The removal is the reader's last act, after its last update, so
/// no update read late can re-add a viewer nobody would remove. An inbound side that
/// ends first (half-close) leaves the viewers until the answer ends.
async fn read_updates(
    lc: Arc<WorldLifecycle>,
    owner: Owner,
    first: pb::ViewerUpdate,
    mut inbound: Streaming<pb::ViewerUpdate>,
    authorized: Result<(), Status>,
    rejections: mpsc::Sender<Result<pb::LifecycleEvent, Status>>,
    ended: CancellationToken,
) {
    // A first message without a change only names the world.
    let mut next = Some(first).filter(|f| f.update.is_some());
    let ttl = lc.viewer_ttl();
    loop {
        let update = match next.take() {
            Some(u) => u,
            None => tokio::select! {
                biased;
                () = ended.cancelled() => break,
                message = tokio::time::timeout(ttl, inbound.message()) => {
                    match message.unwrap_or_else(|_silent| Err(silent(ttl))) {
                        Ok(Some(u)) => u,
                        // Half-closed: the answer stream decides the rest.
                        Ok(None) => {
                            drop(inbound);
                            ended.cancelled().await;
                            break;
                        }
                        // An update that does not decode or is too large, the peer
                        // reset the stream, or it said nothing for `viewer_ttl`: the
                        // answer ends with that status.
                        Err(status) => {
                            let status = oversize(&status).unwrap_or(status);
                            end_with(inbound, status, &rejections, &ended).await;
                            break;
                        }
                    }
                }
            },
        };
        if ended.is_cancelled() {
            break;
        }
        // A listening stream without the token: a change ends it, changing nothing.
        if let (Err(status), Some(_)) = (&authorized, &update.update) {
            end_with(inbound, status.clone(), &rejections, &ended).await;
            break;
        }
        if let Err((id, err)) = apply(&lc, owner, update) {
            tokio::select! {
                biased;
                () = ended.cancelled() => break,
                sent = rejections.send(Ok(rejected(&id, &err))) => if sent.is_err() { break },
            }
        }
    }
    lc.remove_owner(owner);
}

/// Ends a stream with `status`: its update side is dropped, the status is the
/// answer's last message (unless the answer ended first), and the reader waits for the
/// answer to end.
async fn end_with(
    inbound: Streaming<pb::ViewerUpdate>,
    status: Status,
    rejections: &mpsc::Sender<Result<pb::LifecycleEvent, Status>>,
    ended: &CancellationToken,
) {
    drop(inbound);
    tokio::select! {
        biased;
        () = ended.cancelled() => {}
        _ = rejections.send(Err(status)) => ended.cancelled().await,
    }
}

/// The status that ends a stream silent for `ttl`.
fn silent(ttl: std::time::Duration) -> Status {
    Status::deadline_exceeded(format!(
        "no viewer update for {ttl:?} (viewer_ttl): the stream ends and its viewers are \
         removed; send an update (the same position will do) at least that often"
    ))
}

/// What the answer stream owns.
struct Outbound {
    lc: Arc<WorldLifecycle>,
    feed: StepFeed,
    /// Rejections of updates, and the status that ends the stream when an update
    /// cannot be read.
    rejections: mpsc::Receiver<Result<pb::LifecycleEvent, Status>>,
    /// Fires at shutdown (the answer ends) or when this is dropped (the reader ends
    /// and removes the stream's viewers).
    ended: CancellationToken,
    _reader: DropGuard,
    /// The first message (the snapshot), until sent.
    first: Option<pb::LifecycleEvent>,
    /// Set once the stream ended with an error status.
    failed: bool,
    /// The stream's place under the stream caps.
    _permit: StreamPermit,
}

impl Outbound {
    async fn next(&mut self) -> Option<Result<pb::LifecycleEvent, Status>> {
        if self.failed {
            return None;
        }
        if let Some(first) = self.first.take() {
            return Some(Ok(first));
        }
        let lc = &self.lc;
        let world = lc.world().id();
        tokio::select! {
            biased;
            () = self.ended.cancelled() => None,
            Some(rejection) = self.rejections.recv() => {
                self.failed = rejection.is_err();
                Some(rejection)
            }
            step = self.feed.steps.recv() => match step {
                Ok(step) => Some(Ok(step_proto(world, &step))),
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(world, missed, "lifecycle listener fell behind; sending a snapshot");
                    self.feed = lc.subscribe();
                    Some(Ok(snapshot_proto(world, &self.feed)))
                }
                Err(RecvError::Closed) => None,
            },
        }
    }
}

/// `TrackViewers`: binds the stream to the world its first update names, then
/// applies updates as they come and answers with the world's transitions.
pub async fn track_viewers(
    state: &Arc<ApiState>,
    request: Request<Streaming<pb::ViewerUpdate>>,
) -> Result<Response<EventStream>, Status> {
    let authorized = authorize(state, request.metadata()).map_err(Status::from);
    let connection = request.extensions().get::<ConnectionStreams>().cloned();
    let permit = state
        .events
        .streams()
        .admit(connection.as_ref(), StreamKind::TrackViewers)
        .map_err(ApiError::from)?;
    let mut inbound = request.into_inner();
    let first = inbound
        .message()
        .await?
        .ok_or_else(|| ApiError::invalid("world", "the stream ended before its first update"))?;
    if first.update.is_some() {
        authorized.clone()?;
    }
    let lc = Arc::clone(state.lifecycle(&first.world)?);
    let owner = lc.stream_owner();
    let feed = lc.subscribe();
    let snapshot = snapshot_proto(lc.world().id(), &feed);
    let (tx, rejections) = mpsc::channel(REJECTION_QUEUE);
    let tasks = state.lifecycles.tasks();
    let ended = tasks.token().child_token();
    tasks.spawn(read_updates(
        Arc::clone(&lc),
        owner,
        first,
        inbound,
        authorized,
        tx,
        ended.clone(),
    ));
    let outbound = Outbound {
        lc,
        feed,
        rejections,
        ended: ended.clone(),
        _reader: ended.drop_guard(),
        first: Some(snapshot),
        failed: false,
        _permit: permit,
    };
    let stream = stream::unfold(outbound, |mut out| async move {
        let event = out.next().await?;
        Some((event, out))
    });
    Ok(Response::new(Box::pin(stream)))
}

/// `GetLiveTiles`: the union of every viewer's rings.
pub async fn live_tiles(
    state: &ApiState,
    request: Request<pb::GetLiveTilesRequest>,
) -> Result<Response<pb::LiveTiles>, Status> {
    let request = request.into_inner();
    let lc = state.lifecycle(&request.world)?;
    let live = lc.live();
    Ok(Response::new(pb::LiveTiles {
        world: lc.world().id().to_string(),
        sequence: live.sequence,
        viewers: u32::try_from(live.viewers).unwrap_or(u32::MAX),
        tiles: Some(pb::TileSets::from(&live.tiles)),
    }))
}
