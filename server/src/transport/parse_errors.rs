//! JSON bodies for the answers hyper writes itself.
//!
//! A request hyper cannot parse (bytes not allowed in the request line or a header,
//! such as a raw NUL or non-UTF-8 byte in the path; more than [`MAX_HEADERS`] headers
//! or a head over [`MAX_HEAD_BYTES`]; an over-long URI) never reaches a handler:
//! hyper answers it on its own, `400`, `431` or `414` with an empty body, and closes
//! the connection. [`ErrorBodies`] wraps a connection's socket and replaces exactly
//! those heads (an HTTP/1.1 status line of one of those codes followed by only
//! `connection: close`, `content-length: 0` and `date`, which no handler of ours
//! writes: every error of ours has a JSON body) with the same status and the
//! service's error body, `{"error": {"code", "message", "field"}}`. Everything else
//! passes through untouched.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most headers a request may have (hyper's default, stated here).
pub const MAX_HEADERS: usize = 100;
/// The largest request head, in bytes (hyper's default read buffer, stated here).
pub const MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;

/// A socket whose hyper-made error answers get JSON bodies.
#[derive(Debug)]
pub struct ErrorBodies<T> {
    inner: T,
    /// A replacement being written, with how much of it is out, and the length of
    /// the head it stands for (what the writer is told was written).
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<T> ErrorBodies<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        ErrorBodies {
            inner,
            pending: None,
        }
    }

    /// The socket, once hyper hands it over (an upgrade: it follows a `101`, never
    /// one of the error answers replaced here).
    pub fn into_inner(self) -> T {
        self.inner
    }
}

/// The replacement of `head` if it is one of hyper's own error answers.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ")?;
    let (status, code, field, message) = if rest.starts_with("400 ") {
        (
            "400 Bad Request",
            "INVALID_ARGUMENT",
            "request",
            "request: the request line or a header is malformed (a byte not allowed in a \
             path or header, such as a raw NUL or non-UTF-8 byte: percent-encode it)"
                .to_string(),
        )
    } else if rest.starts_with("431 ") {
        (
            "431 Request Header Fields Too Large",
            "RESOURCE_EXHAUSTED",
            "headers",
            format!(
                "headers: the request head is over the limit of {MAX_HEADERS} headers \
                 or {MAX_HEAD_BYTES} bytes"
            ),
        )
    } else if rest.starts_with("414 ") {
        (
            "414 URI Too Long",
            "RESOURCE_EXHAUSTED",
            "uri",
            "uri: the request target is too long".to_string(),
        )
    } else {
        return None;
    };
    let headers = text.strip_suffix("\r\n\r\n")?.split_once("\r\n")?.1;
    let mut date = None;
    let mut close = false;
    let mut empty = false;
    for line in headers.split("\r\n") {
        match line.split_once(": ")? {
            ("connection", "close") => close = true,
            ("content-length", "0") => empty = true,
            ("date", value) => date = Some(value),
            _ => return None,
        }
    }
    if !(close && empty) {
        return None;
    }
    let body = serde_json::json!({
        "error": {"code": code, "message": message, "field": field}
    })
    .to_string();
    let mut out = format!(
        "HTTP/1.1 {status}\r\nconnection: close\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n",
        body.len()
    );
    if let Some(date) = date {
        out.push_str(&format!("date: {date}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

impl<T: AsyncWrite + Unpin> ErrorBodies<T> {
    /// Writes out the pending replacement; answers the replaced head's length once
    /// all of it is out.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        while let Some((bytes, sent, stands_for)) = &mut self.pending {
            if *sent == bytes.len() {
                let n = *stands_for;
                self.pending = None;
                return Poll::Ready(Ok(n));
            }
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *sent += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(0))
    }

    /// Starts replacing `head` if it is one of hyper's error answers.
    fn intercept(&mut self, head: &[u8]) -> bool {
        // Cheap test first: every write passes here.
        if !head.starts_with(b"HTTP/1.1 4") || !head.ends_with(b"\r\n\r\n") || head.len() > 256 {
            return false;
        }
        match replacement(head) {
            Some(bytes) => {
                self.pending = Some((bytes, 0, head.len()));
                true
            }
            None => false,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ErrorBodies<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ErrorBodies<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_some() || this.intercept(buf) {
            return this.drive(cx);
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let first = bufs.iter().find(|b| !b.is_empty());
        if this.pending.is_some() || first.is_some_and(|head| this.intercept(head)) {
            return this.drive(cx);
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.pending.is_some() {
            match this.drive(cx) {
                Poll::Ready(Ok(_)) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYPER_431: &[u8] = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 12:33:30 GMT\r\n\r\n";

    #[test]
    fn hyper_error_heads_get_the_error_body() {
        let out = String::from_utf8(replacement(HYPER_431).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("\r\ncontent-type: application/json\r\n"));
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        assert!(head.contains("\r\ndate: Tue, 01 Dec 2026 12:33:30 GMT"));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"]["field"], "headers");
        let bad = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(replacement(bad).unwrap()).unwrap();
        assert!(out.contains("\"field\":\"request\""), "{out}");
    }

    #[test]
    fn our_own_answers_pass_untouched() {
        for head in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 90\r\ndate: x\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: x\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
        ] {
            assert!(replacement(head).is_none(), "{}", String::from_utf8_lossy(head));
        }
    }
}
