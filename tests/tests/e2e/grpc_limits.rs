//! What every gRPC service (`TerrainService`, `TerrainEvents`, `TerrainLifecycle`)
//! answers to a request it cannot take: bytes that are not the method's message get
//! `INVALID_ARGUMENT` naming the message type.
//!
//! The requests are raw bytes framed by tonic over a real channel (a bytes codec), so
//! the server alone decides what they mean.

use terrain_tests as common;

use common::TestServer;
use futures::{StreamExt as _, stream};
use prost::bytes::{Buf, BufMut, Bytes};
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
