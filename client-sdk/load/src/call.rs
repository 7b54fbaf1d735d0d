//! How one call is sent, for any method: a raw `tonic::client::Grpc` over the
//! connection, with a codec that sends the request bytes [`crate::data`] encoded and
//! decodes each answer into a `DynamicMessage` of the method's output type (a
//! malformed answer is an error, as with ghz). Unary and client-streaming calls carry
//! the timeout as their deadline; a call whose answers stream is held for a duration
//! or a message count ([`StreamLimits`]).

use std::time::Duration;

use bytes::{BufMut as _, Bytes};
use futures::{StreamExt as _, stream};
use prost_reflect::{DynamicMessage, MessageDescriptor};
use tonic::{
    Code, Request, Status, Streaming,
    client::Grpc,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
    codegen::http::uri::PathAndQuery,
    metadata::MetadataMap,
    transport::Channel,
};

use crate::methods::{Method, MethodKind};

/// How long a streaming call lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamLimits {
    /// Close the stream after this long.
    pub duration: Option<Duration>,
    /// Close the stream after receiving this many messages (for `Subscribe`, the
    /// first is `subscribed`).
    pub count: Option<u64>,
}

/// Sends encoded requests as they are; decodes answers of one message type.
#[derive(Debug, Clone)]
pub struct DynamicCodec {
    output: MessageDescriptor,
}

impl DynamicCodec {
    /// A codec whose answers are `output` messages.
    pub fn new(output: MessageDescriptor) -> Self {
        DynamicCodec { output }
    }
}

impl Codec for DynamicCodec {
    type Encode = Bytes;
    type Decode = DynamicMessage;
    type Encoder = BytesEncoder;
    type Decoder = DynamicDecoder;

    fn encoder(&mut self) -> BytesEncoder {
        BytesEncoder
    }

    fn decoder(&mut self) -> DynamicDecoder {
        DynamicDecoder(self.output.clone())
    }
}

/// Writes an encoded message.
#[derive(Debug)]
pub struct BytesEncoder;

impl Encoder for BytesEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

/// Reads a message of the type it holds.
#[derive(Debug)]
pub struct DynamicDecoder(MessageDescriptor);

impl Decoder for DynamicDecoder {
    type Item = DynamicMessage;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<DynamicMessage>, Status> {
        DynamicMessage::decode(self.0.clone(), src)
            .map(Some)
            .map_err(|e| Status::internal(format!("failed to decode the answer: {e}")))
    }
}

/// One connection's caller of one method.
#[derive(Debug, Clone)]
pub struct Caller {
    grpc: Grpc<Channel>,
    kind: MethodKind,
    path: PathAndQuery,
    codec: DynamicCodec,
}

impl Caller {
    /// Calls `method` over `channel`, with no message size limit either way.
    pub fn new(channel: Channel, method: &Method) -> Result<Self, String> {
        let path = PathAndQuery::from_maybe_shared(method.path())
            .map_err(|e| format!("{method}: not a valid path: {e}"))?;
        Ok(Caller {
            grpc: Grpc::new(channel)
                .max_decoding_message_size(usize::MAX)
                .max_encoding_message_size(usize::MAX),
            kind: method.kind(),
            path,
            codec: DynamicCodec::new(method.output()),
        })
    }

    /// Sends `message` with `metadata`; unary and client-streaming calls carry
    /// `timeout` as their deadline, streamed answers are read within `stream`.
    pub async fn call(
        &mut self,
        message: Bytes,
        metadata: &MetadataMap,
        timeout: Duration,
        stream: StreamLimits,
    ) -> Result<(), Status> {
        let streamed = matches!(
            self.kind,
            MethodKind::ServerStreaming | MethodKind::Bidirectional
        );
        let mut request = Request::new(message);
        *request.metadata_mut() = metadata.clone();
        if !streamed {
            request.set_timeout(timeout);
        }
        let (path, codec) = (self.path.clone(), self.codec.clone());
        let kind = self.kind;
        let grpc = &mut self.grpc;
        let call = async move {
            grpc.ready()
                .await
                .map_err(|e| Status::unknown(format!("Service was not ready: {e}")))?;
            match kind {
                MethodKind::Unary => grpc.unary(request, path, codec).await.map(drop),
                MethodKind::ServerStreaming => {
                    let answers = grpc.server_streaming(request, path, codec).await?;
                    hold(answers.into_inner(), stream).await
                }
                MethodKind::ClientStreaming => {
                    let request = request.map(|m| stream::iter([m]));
                    grpc.client_streaming(request, path, codec).await.map(drop)
                }
                MethodKind::Bidirectional => {
                    // One request, then the request side stays open while answers are read.
                    let request = request.map(|m| stream::iter([m]).chain(stream::pending()));
                    let answers = grpc.streaming(request, path, codec).await?;
                    hold(answers.into_inner(), stream).await
                }
            }
        };
        // A guard in case the server ignores the deadline; streams get theirs on top.
        let limit = timeout + stream.duration.unwrap_or_default();
        match tokio::time::timeout(limit, call).await {
            Ok(result) => result,
            Err(_) => Err(Status::deadline_exceeded("timed out")),
        }
    }
}

/// Reads `answers` until `limits` say stop or the stream ends.
async fn hold(mut answers: Streaming<DynamicMessage>, limits: StreamLimits) -> Result<(), Status> {
    let read = async {
        let mut received = 0u64;
        while limits.count.is_none_or(|n| received < n) {
            match answers.message().await? {
                Some(_) => received += 1,
                None => break,
            }
        }
        Ok::<_, Status>(())
    };
    match limits.duration {
        Some(d) => match tokio::time::timeout(d, read).await {
            Ok(r) => r,
            Err(_) => Ok(()),
        },
        None => read.await,
    }
}

/// ghz's name of a status code (Go's `codes.Code.String()`).
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::Unauthenticated => "Unauthenticated",
    }
}

/// ghz's error text: `rpc error: code = NotFound desc = ...`.
pub fn error_text(status: &Status) -> String {
    format!(
        "rpc error: code = {} desc = {}",
        code_name(status.code()),
        status.message()
    )
}
