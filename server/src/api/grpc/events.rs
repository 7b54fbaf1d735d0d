//! `terrain.v1.TerrainEvents`: tile event subscriptions over gRPC.
//!
//! `Subscribe` streams `Event`s: first `subscribed` (the subscription id and the
//! world's revision), then the replayed history or a `resync`, then live `tiles`
//! events; a final `resync` precedes the end of a stream cut off for falling behind.
//! A stream beyond `max_subscriptions_per_connection` or `max_subscriptions` is
//! refused at once with `RESOURCE_EXHAUSTED` ([`crate::events::streams`]).
//! `UpdateSubscription` changes the area of an open stream by its id; the stream
//! then replays the events up to the change touching the new area and never sent
//! ([`crate::events::subscription`]). The stream ends (OK) at server shutdown.

use std::{pin::Pin, sync::Arc};

use axum::{Router, extract::State, middleware, response::Response as HttpResponse, routing::any};
use bytes::{Buf, BufMut, Bytes};
use futures::{Stream, StreamExt, future::BoxFuture, stream};
use prost::Message as _;
use terrain_proto::{
    codec::TerrainCodec,
    v1::{
        self as pb,
        terrain_events_server::{TerrainEvents, TerrainEventsServer},
    },
};
use tonic::{Request, Response, Status, server::NamedService};

use super::{MessageLimits, remap_oversize};
use crate::{
    api::{ApiError, ApiState},
    events::{
        Area, ConnectionStreams, Event, Message, Resume, StreamKind, StreamPermit, Subscription,
    },
};

/// The area of a request (unset: everything), its centre within `max_coordinate`;
/// a refused one names its field.
fn area_of(area: Option<&pb::SubscriptionArea>, max_coordinate: f64) -> Result<Area, ApiError> {
    Ok(Area::from_proto(area)?.within(max_coordinate)?)
}

/// The `TerrainEvents` route, as an axum router to merge with the others.
/// `Subscribe` is served by `subscribe_shared` (events sent as the bytes every
/// subscriber shares); the rest by the generated service.
pub fn routes(state: &Arc<ApiState>) -> Router {
    let sizes = MessageLimits::of(state);
    let api = EventsApi {
        state: Arc::clone(state),
    };
    let service = TerrainEventsServer::new(api.clone())
        .max_decoding_message_size(sizes.decoding)
        .max_encoding_message_size(sizes.encoding);
    let name = TerrainEventsServer::<EventsApi>::NAME;
    let shared = SharedSubscribe { api, sizes };
    Router::new()
        .route(
            &format!("/{name}/Subscribe"),
            any(subscribe_shared).with_state(shared),
        )
        .route_service(&format!("/{name}/{{*rest}}"), service)
        .layer(middleware::map_response(remap_oversize))
}

/// `terrain.v1.TerrainEvents`.
#[derive(Debug, Clone)]
pub struct EventsApi {
    state: Arc<ApiState>,
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

impl EventsApi {
    /// Opens the subscription a `Subscribe` request asks for; answers it with its
    /// place under the stream caps and the opening `subscribed` message.
    async fn open(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<(Subscription, StreamPermit, pb::Event), Status> {
        let connection = request.extensions().get::<ConnectionStreams>().cloned();
        let request = request.into_inner();
        let world = self.state.engine.world(&request.world)?;
        let area = area_of(
            request.area.as_ref(),
            self.state.engine.limits().max_coordinate,
        )?;
        let permit = self
            .state
            .events
            .streams()
            .admit(connection.as_ref(), StreamKind::GrpcEvents)
            .map_err(ApiError::from)?;
        let from = match (request.from_revision, request.from_epoch) {
            (Some(revision), epoch) => Some(Resume::new(revision, epoch).map_err(ApiError::from)?),
            (None, Some(_)) => {
                return Err(ApiError::invalid(
                    "fromEpoch",
                    "given without fromRevision (the revision it names)",
                )
                .into());
            }
            (None, None) => None,
        };
        let sub = Subscription::open(&self.state.events, world, area, from)
            .await
            .map_err(ApiError::from)?;
        let first = pb::Event {
            kind: Some(pb::event::Kind::Subscribed(pb::Subscribed {
                subscription_id: sub.id().to_string(),
                revision: sub.revision(),
                epoch: sub.epoch().to_string(),
            })),
        };
        Ok((sub, permit, first))
    }
}

/// A subscription's messages after `subscribed`, each made by `wire`; the permit
/// lives as long as the stream.
fn messages<T: Send + 'static>(
    sub: Subscription,
    permit: StreamPermit,
    wire: fn(&Message) -> T,
) -> impl Stream<Item = Result<T, Status>> + Send + 'static {
    stream::unfold((sub, permit), move |(mut sub, permit)| async move {
        let message = sub.next().await?;
        Some((Ok(wire(&message)), (sub, permit)))
    })
}

#[tonic::async_trait]
impl TerrainEvents for EventsApi {
    type SubscribeStream = EventStream;

    /// The typed stream, for the generated service; the server's route is
    /// `subscribe_shared`, which sends the same messages pre-encoded.
    async fn subscribe(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let (sub, permit, first) = self.open(request).await?;
        let rest = messages(sub, permit, to_proto);
        let stream = stream::once(async move { Ok(first) }).chain(rest);
        Ok(Response::new(Box::pin(stream)))
    }

    async fn update_subscription(
        &self,
        request: Request<pb::UpdateSubscriptionRequest>,
    ) -> Result<Response<pb::UpdateSubscriptionResponse>, Status> {
        let request = request.into_inner();
        let area = area_of(
            request.area.as_ref(),
            self.state.engine.limits().max_coordinate,
        )?;
        self.state
            .events
            .update_area(&request.subscription_id, area)
            .map_err(ApiError::from)?;
        Ok(Response::new(pb::UpdateSubscriptionResponse {}))
    }
}

/// One `Event` message of a `Subscribe` stream, already encoded: an event's bytes,
/// shared with every other subscriber it reached
/// ([`crate::events::Published::protobuf`]), or this stream's own `subscribed` or
/// `resync`. Writing it copies the bytes into the response; nothing is re-encoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncodedEvent(Bytes);

impl EncodedEvent {
    /// The encoded form of `message`.
    pub fn of(message: &Message) -> Self {
        match message {
            Message::Event(e) => EncodedEvent(e.protobuf(|e| event_message(e).encode_to_vec())),
            Message::Resync { .. } => EncodedEvent(to_proto(message).encode_to_vec().into()),
        }
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.0
    }
}

impl prost::Message for EncodedEvent {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        // Only ever sent; a decoder skips what it reads.
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0 = Bytes::new();
    }
}

/// What the shared `Subscribe` route needs.
#[derive(Debug, Clone)]
struct SharedSubscribe {
    api: EventsApi,
    sizes: MessageLimits,
}

/// `Subscribe` as a server-streaming service of pre-encoded messages.
struct SubscribeService(EventsApi);

type EncodedStream = Pin<Box<dyn Stream<Item = Result<EncodedEvent, Status>> + Send>>;

impl tonic::server::ServerStreamingService<pb::SubscribeRequest> for SubscribeService {
    type Response = EncodedEvent;
    type ResponseStream = EncodedStream;
    type Future = BoxFuture<'static, Result<Response<EncodedStream>, Status>>;

    fn call(&mut self, request: Request<pb::SubscribeRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move {
            let (sub, permit, first) = api.open(request).await?;
            let first = EncodedEvent(first.encode_to_vec().into());
            let rest = messages(sub, permit, EncodedEvent::of);
            let stream: EncodedStream =
                Box::pin(stream::once(async move { Ok(first) }).chain(rest));
            Ok(Response::new(stream))
        })
    }
}

/// `POST /terrain.v1.TerrainEvents/Subscribe`: the generated service's framing,
/// message limits and errors, with events written from their shared encoding.
async fn subscribe_shared(
    State(shared): State<SharedSubscribe>,
    request: axum::extract::Request,
) -> HttpResponse {
    let codec = TerrainCodec::<EncodedEvent, pb::SubscribeRequest>::default();
    let mut grpc = tonic::server::Grpc::new(codec)
        .apply_max_message_size_config(Some(shared.sizes.decoding), Some(shared.sizes.encoding));
    grpc.server_streaming(SubscribeService(shared.api), request)
        .await
        .map(axum::body::Body::new)
}

/// The protobuf `Event` carrying one tile event.
fn event_message(e: &Event) -> pb::Event {
    pb::Event {
        kind: Some(pb::event::Kind::Tiles(pb::TileEvent::from(e))),
    }
}

/// The protobuf form of a stream message.
pub fn to_proto(message: &Message) -> pb::Event {
    let kind = match message {
        Message::Event(e) => pb::event::Kind::Tiles(pb::TileEvent::from(e.event())),
        Message::Resync { revision, epoch } => pb::event::Kind::Resync(pb::Resync {
            revision: *revision,
            epoch: epoch.to_string(),
        }),
    };
    pb::Event { kind: Some(kind) }
}
