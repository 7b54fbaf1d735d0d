//! The socket's sending side, shared by the stream's own loop and the hub's writer
//! task ([`crate::events::outlet`]): whoever writes holds its lock for one poll at a
//! time, so frames never interleave. The writer only writes while the outlet is
//! direct, when the loop does not.

use std::{
    future::poll_fn,
    sync::{Arc, Mutex, MutexGuard, OnceLock},
    task::{Context, Poll, Waker},
};

use axum::{
    Error,
    extract::ws::{Message as WsMessage, WebSocket},
};
use futures::{Sink, stream::SplitSink};

use super::frames;
use crate::events::{DirectSink, Offer, Published};

type Inner = SplitSink<WebSocket, WsMessage>;

/// The sending half of the socket, once it is upgraded (`None` before and after).
#[derive(Debug, Default)]
pub struct SharedSink {
    sink: Mutex<Option<Inner>>,
    /// The epoch every event frame of this stream names (its world's).
    epoch: OnceLock<Arc<str>>,
}

fn gone() -> Error {
    Error::new(std::io::Error::from(std::io::ErrorKind::NotConnected))
}

impl SharedSink {
    fn lock(&self) -> MutexGuard<'_, Option<Inner>> {
        // Only polls run under it: usable after a panic.
        self.sink.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Installs the socket's sending half, and the epoch its event frames name.
    pub fn install(&self, sink: Inner, epoch: Arc<str>) {
        *self.lock() = Some(sink);
        // Set once: a stream has one epoch.
        let _ = self.epoch.set(epoch);
    }

    /// Takes the sending half back (to close the socket).
    pub fn uninstall(&self) -> Option<Inner> {
        self.lock().take()
    }

    fn poll_with<T>(
        &self,
        cx: &mut Context<'_>,
        f: impl FnOnce(&mut Inner, &mut Context<'_>) -> Poll<Result<T, Error>>,
    ) -> Poll<Result<T, Error>> {
        match self.lock().as_mut() {
            Some(sink) => f(sink, cx),
            None => Poll::Ready(Err(gone())),
        }
    }

    /// Queues `message` in the socket's buffer (writing out what is ahead of it if
    /// the buffer is full).
    pub async fn feed(&self, message: WsMessage) -> Result<(), Error> {
        let mut message = Some(message);
        poll_fn(|cx| {
            self.poll_with(cx, |sink, cx| {
                let mut sink = std::pin::Pin::new(sink);
                futures::ready!(sink.as_mut().poll_ready(cx))?;
                match message.take() {
                    Some(m) => Poll::Ready(sink.start_send(m)),
                    None => Poll::Ready(Ok(())),
                }
            })
        })
        .await
    }

    /// Writes out everything buffered.
    pub async fn flush(&self) -> Result<(), Error> {
        poll_fn(|cx| self.poll_with(cx, |sink, cx| std::pin::Pin::new(sink).poll_flush(cx))).await
    }

    /// Queues `message` and writes everything out.
    pub async fn send(&self, message: WsMessage) -> Result<(), Error> {
        self.feed(message).await?;
        self.flush().await
    }
}

impl DirectSink for SharedSink {
    /// One frame, written at once or refused: never waits (a write that would block
    /// leaves the rest in the buffer for the stream's loop to flush).
    fn offer(&self, event: &Arc<Published>) -> Offer {
        let Some(epoch) = self.epoch.get() else {
            return Offer::Refused;
        };
        let Ok(text) = frames::event_frame(event, epoch) else {
            // The stream's loop meets the same error and ends the stream.
            return Offer::Refused;
        };
        let mut cx = Context::from_waker(Waker::noop());
        let mut guard = self.lock();
        let Some(sink) = guard.as_mut() else {
            return Offer::Refused;
        };
        let mut sink = std::pin::Pin::new(sink);
        match sink.as_mut().poll_ready(&mut cx) {
            Poll::Ready(Ok(())) => {}
            _ => return Offer::Refused,
        }
        if sink.as_mut().start_send(WsMessage::Text(text)).is_err() {
            // The stream's next write meets the error too, and ends.
            return Offer::Refused;
        }
        match sink.as_mut().poll_flush(&mut cx) {
            Poll::Ready(Ok(())) => Offer::Sent,
            _ => Offer::Unflushed,
        }
    }
}
