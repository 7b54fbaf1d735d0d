//! The WebSocket upgrade of the events route, done here rather than by axum's
//! `WebSocketUpgrade` so that the stream can keep its TCP socket ([`super::wire`]):
//! axum's extractor still checks the request (its refusals are the route's), this
//! module answers it and opens the stream over what hyper hands over.

use std::{convert::Infallible, net::SocketAddr};

use axum::{
    body::Body,
    extract::FromRequestParts,
    http::{HeaderValue, StatusCode, Version, header, request::Parts},
    response::Response,
};
use hyper::upgrade::OnUpgrade;
use tokio_tungstenite::{
    WebSocketStream,
    tungstenite::{
        handshake::derive_accept_key,
        protocol::{Role, WebSocketConfig},
    },
};

use super::wire::{PlainSocket, Transport, transport};

/// The socket's read buffer. tungstenite zero-fills up to this much of its buffer
/// before every read attempt: at the default 128 KiB, with a read attempt after every
/// event sent, that memset was a quarter of the server's CPU per delivered event
/// (perf, 1,000 subscribers). Client messages are small; a longer one is read in
/// several pieces.
pub const READ_BUFFER_BYTES: usize = 4096;

/// The largest message (and frame) a client may send: an area message is at most a
/// few hundred bytes. A frame whose header announces more, or a fragmented message
/// growing past it, closes the socket with 1009 (Message Too Big) as soon as that is
/// known, before its bytes are held (`read_client`).
///
/// So a stream holds under 32 KiB of what its client sent: the read buffer with the
/// frame being read (8 KiB), the message that frame belongs to (4 KiB), and two whole
/// messages on their way to the stream (one waiting to be handed over, one handed
/// over), each at most twice that while its buffer grows. Every WebSocket stream
/// holds a place under `max_subscriptions`, so all of them together hold under
/// `max_subscriptions` x 32 KiB (320 MiB at the default 10,000; an idle stream holds
/// its 4 KiB read buffer).
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 4096;

/// The address of the client a connection comes from: put by the transport layer in
/// the extensions of each request that may upgrade, so that a stream's logs name it.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub SocketAddr);

/// hyper's handle on the connection once it switches protocols, the
/// `Sec-WebSocket-Key` of an HTTP/1.1 request (HTTP/2's extended CONNECT has none)
/// and how to get the plain socket back ([`PlainSocket`]). Taken before axum's
/// `WebSocketUpgrade`, which removes the handle.
#[derive(Debug)]
pub struct Upgrade(
    Option<(OnUpgrade, Option<HeaderValue>)>,
    Option<PlainSocket>,
);

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let key = (parts.version <= Version::HTTP_11)
            .then(|| parts.headers.get(header::SEC_WEBSOCKET_KEY).cloned())
            .flatten();
        Ok(Upgrade(
            parts
                .extensions
                .get::<OnUpgrade>()
                .cloned()
                .map(|on| (on, key)),
            parts.extensions.get::<PlainSocket>().copied(),
        ))
    }
}

impl Upgrade {
    /// Answers the checked upgrade request (`101` with the accept key on HTTP/1.1,
    /// `200` on HTTP/2) and runs `serve` on the stream once hyper hands the
    /// connection over, with its socket if it is a plain TCP one. `None` if hyper
    /// offered no upgrade (the request was checked, so not expected).
    pub fn on_upgrade<F, Fut>(self, serve: F) -> Option<Response>
    where
        F: FnOnce(WebSocketStream<Transport>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let Upgrade(on_upgrade, plain) = self;
        let (on_upgrade, key) = on_upgrade?;
        let response = match key {
            Some(key) => Response::builder()
                .status(StatusCode::SWITCHING_PROTOCOLS)
                .header(header::CONNECTION, "upgrade")
                .header(header::UPGRADE, "websocket")
                .header(
                    header::SEC_WEBSOCKET_ACCEPT,
                    derive_accept_key(key.as_bytes()),
                )
                .body(Body::empty()),
            None => Response::builder().body(Body::empty()),
        };
        // Every header is a constant or base64: always a valid response.
        let response = response.ok()?;
        tokio::spawn(async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(e) => {
                    tracing::debug!(error = %e, "WebSocket upgrade failed");
                    return;
                }
            };
            let config = WebSocketConfig::default()
                .read_buffer_size(READ_BUFFER_BYTES)
                .max_message_size(Some(MAX_CLIENT_MESSAGE_BYTES))
                .max_frame_size(Some(MAX_CLIENT_MESSAGE_BYTES));
            let socket = transport(upgraded, plain);
            let socket = WebSocketStream::from_raw_socket(socket, Role::Server, Some(config));
            serve(socket.await).await;
        });
        Some(response)
    }
}
