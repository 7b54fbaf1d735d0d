//! What every gRPC service (`TerrainService`, `TerrainEvents`, `TerrainLifecycle`)
//! answers to a request it cannot take: bytes that are not the method's message get
//! `INVALID_ARGUMENT` naming the message type; a message over
//! `grpc_max_decoding_message_size` (one size for every service) gets
//! `RESOURCE_EXHAUSTED` naming the limit, and so does a later `TrackViewers` update,
//! which ends that stream and removes its viewers.
//!
//! The requests are raw bytes framed by tonic over a real channel (a bytes codec), so
//! the server alone decides what they mean.

use terrain_tests as common;

use std::time::Duration;

use common::TestServer;
use futures::{StreamExt as _, stream};
use prost::{
    Message as _,
    bytes::{Buf, BufMut, Bytes},
};
use terrain_proto::v1::{
    self as pb, terrain_lifecycle_client::TerrainLifecycleClient, viewer_update::Update,
};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{
    Code, Request, Status,
    client::Grpc,
    codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
    transport::Channel,
};

/// Sends and receives messages as they are on the wire.
#[derive(Debug, Clone, Copy, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put_slice(&item);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        let len = buf.remaining();
        Ok(Some(buf.copy_to_bytes(len)))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// A client for raw messages that accepts and sends messages of any size.
async fn raw(server: &TestServer) -> Grpc<Channel> {
    Grpc::new(server.channel().await)
        .max_decoding_message_size(usize::MAX)
        .max_encoding_message_size(usize::MAX)
}

/// The status of a unary call of `method` with `body`.
async fn unary(server: &TestServer, method: &'static str, body: Bytes) -> Status {
    let mut grpc = raw(server).await;
    grpc.ready().await.expect("channel ready");
    let path = method.parse().expect("method path");
    match grpc.unary(Request::new(body), path, RawCodec).await {
        Ok(answer) => panic!("{method}: answered {:?}", answer.into_inner()),
        Err(status) => status,
    }
}

/// The status of a server-streaming call of `method` with `body`.
async fn server_streaming(server: &TestServer, method: &'static str, body: Bytes) -> Status {
    let mut grpc = raw(server).await;
    grpc.ready().await.expect("channel ready");
    let path = method.parse().expect("method path");
    match grpc
        .server_streaming(Request::new(body), path, RawCodec)
        .await
    {
        Ok(_) => panic!("{method}: the stream opened"),
        Err(status) => status,
    }
}

/// The status of a bidirectional call of `method` whose first message is `body`.
async fn bidi(server: &TestServer, method: &'static str, body: Bytes) -> Status {
    let mut grpc = raw(server).await;
    grpc.ready().await.expect("channel ready");
    let path = method.parse().expect("method path");
    let outbound = stream::iter([body]).chain(stream::pending());
    match grpc.streaming(Request::new(outbound), path, RawCodec).await {
        Ok(_) => panic!("{method}: the stream opened"),
        Err(status) => status,
    }
}

/// Bytes that are no protobuf message: a varint longer than ten bytes.
fn garbage() -> Bytes {
    Bytes::from_static(&[0xff; 16])
}

fn assert_invalid(status: &Status, message_type: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let expected = format!("request: not a valid {message_type} message");
    assert!(status.message().starts_with(&expected), "{status:?}");
}

#[tokio::test]
async fn garbage_is_invalid_argument_naming_the_message_on_every_service() {
    let server = TestServer::start().await;
    let status = unary(&server, "/terrain.v1.TerrainService/GetHeight", garbage()).await;
    assert_invalid(&status, "terrain.v1.GetHeightRequest");
    let status = unary(
        &server,
        "/terrain.v1.TerrainService/RegisterFlatZone",
        garbage(),
    )
    .await;
    assert_invalid(&status, "terrain.v1.RegisterFlatZoneRequest");
    let status = server_streaming(
        &server,
        "/terrain.v1.TerrainService/GetTileMeshes",
        garbage(),
    )
    .await;
    assert_invalid(&status, "terrain.v1.GetTileMeshesRequest");
    let status = server_streaming(&server, "/terrain.v1.TerrainEvents/Subscribe", garbage()).await;
    assert_invalid(&status, "terrain.v1.SubscribeRequest");
    let status = unary(
        &server,
        "/terrain.v1.TerrainEvents/UpdateSubscription",
        garbage(),
    )
    .await;
    assert_invalid(&status, "terrain.v1.UpdateSubscriptionRequest");
    let status = unary(
        &server,
        "/terrain.v1.TerrainLifecycle/GetLiveTiles",
        garbage(),
    )
    .await;
    assert_invalid(&status, "terrain.v1.GetLiveTilesRequest");
    let status = bidi(
        &server,
        "/terrain.v1.TerrainLifecycle/TrackViewers",
        garbage(),
    )
    .await;
    assert_invalid(&status, "terrain.v1.ViewerUpdate");
    server.stop().await;
}

/// The decoding limit the size tests configure.
const LIMIT: usize = 1024;

async fn small_server() -> TestServer {
    TestServer::start_with(|c| c.connections.grpc_max_decoding_message_size = Some(LIMIT)).await
}

/// A message just over [`LIMIT`] (its content does not matter: the size is checked
/// first).
fn oversize() -> Bytes {
    Bytes::from(vec![0u8; LIMIT + 1])
}

fn assert_too_large(status: &Status) {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(message.starts_with("request: "), "{status:?}");
    assert!(
        message.contains(&format!("the limit is: {LIMIT} bytes"))
            && message.contains("grpc_max_decoding_message_size"),
        "{status:?}"
    );
}

#[tokio::test]
async fn an_oversize_request_is_resource_exhausted_naming_the_limit_on_every_service() {
    let server = small_server().await;
    let status = unary(&server, "/terrain.v1.TerrainService/GetHeight", oversize()).await;
    assert_too_large(&status);
    let status = server_streaming(&server, "/terrain.v1.TerrainEvents/Subscribe", oversize()).await;
    assert_too_large(&status);
    let status = unary(
        &server,
        "/terrain.v1.TerrainEvents/UpdateSubscription",
        oversize(),
    )
    .await;
    assert_too_large(&status);
    let status = unary(
        &server,
        "/terrain.v1.TerrainLifecycle/GetLiveTiles",
        oversize(),
    )
    .await;
    assert_too_large(&status);
    let status = bidi(
        &server,
        "/terrain.v1.TerrainLifecycle/TrackViewers",
        oversize(),
    )
    .await;
    assert_too_large(&status);
    // At the limit, the message is read (and refused for what it says: no such world).
    let at_limit = pb::GetLiveTilesRequest {
        world: "x".repeat(LIMIT - 3),
    }
    .encode_to_vec();
    assert_eq!(at_limit.len(), LIMIT);
    let status = unary(
        &server,
        "/terrain.v1.TerrainLifecycle/GetLiveTiles",
        Bytes::from(at_limit),
    )
    .await;
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    server.stop().await;
}

fn upsert(id: &str) -> pb::ViewerUpdate {
    pb::ViewerUpdate {
        world: "main".into(),
        update: Some(Update::Upsert(pb::Viewer {
            id: id.into(),
            x: 0.0,
            z: 0.0,
            view_width: 100.0,
            view_depth: 100.0,
            ..Default::default()
        })),
    }
}

/// The next message of `stream`, within 10 s.
async fn next(stream: &mut tonic::Streaming<Bytes>) -> Result<Option<Bytes>, Status> {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("in time")
}

async fn viewers(server: &TestServer) -> u32 {
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let live = client
        .get_live_tiles(pb::GetLiveTilesRequest {
            world: "main".into(),
        })
        .await
        .expect("live tiles");
    live.into_inner().viewers
}

#[tokio::test]
async fn an_oversize_update_ends_its_track_viewers_stream_and_removes_its_viewers() {
    let server = small_server().await;
    let mut grpc = raw(&server).await;
    grpc.ready().await.expect("channel ready");
    let (tx, rx) = mpsc::channel::<Bytes>(4);
    tx.send(Bytes::from(upsert("a").encode_to_vec()))
        .await
        .expect("queued");
    let path = "/terrain.v1.TerrainLifecycle/TrackViewers"
        .parse()
        .expect("method path");
    let mut stream = grpc
        .streaming(Request::new(ReceiverStream::new(rx)), path, RawCodec)
        .await
        .expect("the stream opens")
        .into_inner();
    // The snapshot, then the viewer's first step.
    next(&mut stream)
        .await
        .expect("snapshot")
        .expect("snapshot");
    next(&mut stream).await.expect("a step").expect("a step");
    assert_eq!(viewers(&server).await, 1);
    tx.send(oversize()).await.expect("queued");
    let status = loop {
        match next(&mut stream).await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_too_large(&status);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while viewers(&server).await != 0 {
        assert!(tokio::time::Instant::now() < deadline, "the viewer stays");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}
