//! `terrain.v1.TerrainEvents`: tile event subscriptions over gRPC.
//!
//! `Subscribe` streams `Event`s: first `subscribed` (the subscription id and the
//! world's revision), then the replayed history or a `resync`, then live `tiles`
//! events; a final `resync` precedes the end of a stream cut off for falling behind.
//! A stream beyond `max_subscriptions_per_connection` or `max_subscriptions` is
//! refused at once with `RESOURCE_EXHAUSTED` ([`crate::events::streams`]).
//! `UpdateSubscription` changes the area of an open stream by its id. The stream
//! ends (OK) at server shutdown.

use std::{pin::Pin, sync::Arc};

use axum::{Router, middleware};
use futures::{Stream, StreamExt, stream};
use terrain_proto::v1::{
    self as pb,
    terrain_events_server::{TerrainEvents, TerrainEventsServer},
};
use tonic::{Request, Response, Status, server::NamedService};

use crate::{
    api::ApiError,
    api::ApiState,
    api::grpc::{MessageLimits, remap_oversize},
    events::{Area, ConnectionStreams, Message, StreamKind, Subscription},
};

/// The area of a request (unset: everything); a refused one names its field.
fn area_of(area: Option<&pb::SubscriptionArea>) -> Result<Area, ApiError> {
    Ok(Area::from_proto(area)?)
}

/// The `TerrainEvents` route, as an axum router to merge with the others.
pub fn routes(state: &Arc<ApiState>) -> Router {
    let sizes = MessageLimits::of(state);
    let service = TerrainEventsServer::new(EventsApi {
        state: Arc::clone(state),
    })
    .max_decoding_message_size(sizes.decoding)
    .max_encoding_message_size(sizes.encoding);
    let path = format!("/{}/{{*rest}}", TerrainEventsServer::<EventsApi>::NAME);
    Router::new()
        .route_service(&path, service)
        .layer(middleware::map_response(remap_oversize))
}

/// `terrain.v1.TerrainEvents`.
#[derive(Debug, Clone)]
pub struct EventsApi {
    state: Arc<ApiState>,
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send>>;

#[tonic::async_trait]
impl TerrainEvents for EventsApi {
    type SubscribeStream = EventStream;

    async fn subscribe(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let connection = request.extensions().get::<ConnectionStreams>().cloned();
        let request = request.into_inner();
        let world = self.state.engine.world(&request.world)?;
        let area = area_of(request.area.as_ref())?;
        let permit = self
            .state
            .events
            .streams()
            .admit(connection.as_ref(), StreamKind::GrpcEvents)
            .map_err(ApiError::from)?;
        let sub = Subscription::open(&self.state.events, world, area, request.from_revision)
            .await
            .map_err(ApiError::from)?;
        let first = pb::Event {
            kind: Some(pb::event::Kind::Subscribed(pb::Subscribed {
                subscription_id: sub.id().to_string(),
                revision: sub.revision(),
            })),
        };
        // The permit lives as long as the stream.
        let rest = stream::unfold((sub, permit), |(mut sub, permit)| async move {
            let message = sub.next().await?;
            Some((Ok(to_proto(&message)), (sub, permit)))
        });
        let stream = stream::once(async move { Ok(first) }).chain(rest);
        Ok(Response::new(Box::pin(stream)))
    }

    async fn update_subscription(
        &self,
        request: Request<pb::UpdateSubscriptionRequest>,
    ) -> Result<Response<pb::UpdateSubscriptionResponse>, Status> {
        let request = request.into_inner();
        let area = area_of(request.area.as_ref())?;
        self.state
            .events
            .update_area(&request.subscription_id, area)
            .map_err(ApiError::from)?;
        Ok(Response::new(pb::UpdateSubscriptionResponse {}))
    }
}

/// The protobuf form of a stream message.
pub fn to_proto(message: &Message) -> pb::Event {
    let kind = match message {
        Message::Event(e) => pb::event::Kind::Tiles(pb::TileEvent::from(&**e)),
        Message::Resync { revision } => pb::event::Kind::Resync(pb::Resync {
            revision: *revision,
        }),
    };
    pb::Event { kind: Some(kind) }
}
