//! The client when the connection fails under a call, against a bare HTTP/2 server
//! (h2, no gRPC) that refuses, resets or drops each stream the way a stopping server
//! can: the server sent no status, so the failure is transient and reads are retried
//! (a subscription or replica reconnects on the same test). A status the server did
//! send stays what it is, and is not retried. A subscription gives up on a stream
//! that says nothing within its open timeout (transient: a reconnection tries again
//! and resumes), and delivers an event that comes before `Subscribed`. Through a TCP
//! proxy that stops forwarding (a peer that vanished), keepalive notices the dead
//! connection and the subscription resumes on a new one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use terrain_client::{
    ClientBuilder, ClientError, RetryPolicy, Subscription, SubscriptionEvent, TerrainClient,
};
use terrain_proto::v1;
use tokio::net::TcpListener;
use tonic::codegen::http::{HeaderMap, HeaderValue, Response};

/// What the server does with a request.
#[derive(Clone, Debug)]
enum Treat {
    /// Resets the stream with this reason.
    Reset(h2::Reason),
    /// Closes the whole connection.
    Drop,
    /// Sends the response headers, then closes the connection.
    HeadersThenDrop,
    /// Answers the gRPC status with this code.
    Status(u32),
    /// Never answers (the stream stays open).
    Silence,
    /// Sends the response headers, then nothing (the stream stays open).
    HeadersThenSilence,
    /// Sends these messages, then ends the stream with status OK (`end`) or leaves
    /// it open.
    Answer { messages: Vec<v1::Event>, end: bool },
}

/// A server treating every request with `treat`; counts the requests.
async fn misbehaving(treat: Treat) -> (String, Arc<AtomicUsize>) {
    scripted(move |_| treat.clone()).await
}

/// A server treating its `n`th request (from 1) with `script(n)`; counts the requests.
async fn scripted(
    script: impl Fn(usize) -> Treat + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    let script = Arc::new(script);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let seen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (count, script) = (Arc::clone(&count), Arc::clone(&script));
            tokio::spawn(async move {
                let Ok(mut connection) = h2::server::handshake(socket).await else {
                    return;
                };
                // The streams left open, kept so that they are not reset.
                let mut open = Vec::new();
                while let Some(Ok((_request, mut respond))) = connection.accept().await {
                    let n = count.fetch_add(1, Ordering::SeqCst) + 1;
                    let grpc = || {
                        Response::builder()
                            .status(200)
                            .header("content-type", "application/grpc")
                    };
                    match script(n) {
                        Treat::Reset(reason) => respond.send_reset(reason),
                        Treat::Drop => return,
                        Treat::HeadersThenDrop => {
                            let _ =
                                respond.send_response(grpc().body(()).expect("response"), false);
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            return;
                        }
                        Treat::Status(code) => {
                            let response = grpc()
                                .header("grpc-status", code.to_string())
                                .header("grpc-message", "sent by the server")
                                .body(())
                                .expect("response");
                            let _ = respond.send_response(response, true);
                        }
                        Treat::Silence => open.push((respond, None)),
                        Treat::Answer { messages, end } => {
                            let Ok(mut body) =
                                respond.send_response(grpc().body(()).expect("response"), false)
                            else {
                                continue;
                            };
                            for message in &messages {
                                let bytes = message.encode_to_vec();
                                let mut framed = Vec::with_capacity(5 + bytes.len());
                                framed.push(0);
                                let len = u32::try_from(bytes.len()).expect("a small message");
                                framed.extend_from_slice(&len.to_be_bytes());
                                framed.extend_from_slice(&bytes);
                                let _ = body.send_data(Bytes::from(framed), false);
                            }
                            if end {
                                let mut trailers = HeaderMap::new();
                                trailers.insert("grpc-status", HeaderValue::from_static("0"));
                                let _ = body.send_trailers(trailers);
                            } else {
                                open.push((respond, Some(body)));
                            }
                        }
                        Treat::HeadersThenSilence => {
                            let body =
                                respond.send_response(grpc().body(()).expect("response"), false);
                            open.push((respond, body.ok()));
                        }
                    }
                }
            });
        }
    });
    (url, seen)
}

async fn client(url: &str) -> TerrainClient {
    ClientBuilder::new(url)
        .lazy(true)
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
        })
        .connect()
        .await
        .expect("a lazy client")
}

#[tokio::test]
async fn a_connection_that_fails_under_a_call_is_transient_and_retried() {
    for treat in [
        Treat::Reset(h2::Reason::REFUSED_STREAM),
        Treat::Reset(h2::Reason::INTERNAL_ERROR),
        Treat::Reset(h2::Reason::NO_ERROR),
        Treat::Drop,
        Treat::HeadersThenDrop,
    ] {
        let (url, seen) = misbehaving(treat.clone()).await;
        let mut client = client(&url).await;
        let e = client
            .height("main", 1.0, 2.0)
            .await
            .expect_err("nothing answers");
        assert!(e.is_transient(), "{treat:?}: {e:?}");
        assert_eq!(seen.load(Ordering::SeqCst), 3, "{treat:?}: every attempt");
    }
}

#[tokio::test]
async fn a_status_the_server_sent_is_kept_and_not_retried() {
    for (code, expected) in [(13, tonic::Code::Internal), (2, tonic::Code::Unknown)] {
        let (url, seen) = misbehaving(Treat::Status(code)).await;
        let mut client = client(&url).await;
        let e = client.height("main", 1.0, 2.0).await.expect_err("a status");
        assert_eq!(
            e,
            ClientError::Other {
                code: expected,
                message: "sent by the server".into()
            }
        );
        assert!(!e.is_transient());
        assert_eq!(seen.load(Ordering::SeqCst), 1, "not retried");
    }
}

#[tokio::test]
async fn a_subscription_gives_up_on_a_stream_that_says_nothing_within_its_open_timeout() {
    for treat in [Treat::Silence, Treat::HeadersThenSilence] {
        let (url, seen) = misbehaving(treat.clone()).await;
        let client = client(&url).await;
        let started = std::time::Instant::now();
        let opening = client
            .subscription("main")
            .open_timeout(Some(Duration::from_millis(200)))
            .open();
        let e = tokio::time::timeout(Duration::from_secs(5), opening)
            .await
            .unwrap_or_else(|_| panic!("{treat:?}: open hung"))
            .expect_err("nothing answers");
        let waited = started.elapsed();
        assert!(
            matches!(&e, ClientError::DeadlineExceeded(m) if m.contains("open timeout")),
            "{treat:?}: {e:?}"
        );
        assert!(e.is_transient(), "a reconnection tries again");
        assert!(
            waited >= Duration::from_millis(190) && waited < Duration::from_secs(3),
            "{treat:?}: waited {waited:?}"
        );
        assert_eq!(seen.load(Ordering::SeqCst), 1, "{treat:?}: one attempt");
    }
}

fn subscribed(revision: u64) -> v1::Event {
    v1::Event {
        kind: Some(v1::event::Kind::Subscribed(v1::Subscribed {
            subscription_id: "s".into(),
            revision,
            epoch: "e1".into(),
        })),
    }
}

fn tiles(revision: u64) -> v1::Event {
    v1::Event {
        kind: Some(v1::event::Kind::Tiles(v1::TileEvent {
            world: "main".into(),
            revision,
            cause: Some(v1::EventCause {
                zone: "z".into(),
                kind: "registered".into(),
                walkable: None,
            }),
            bounds: Some(v1::EventBounds::default()),
            max_height_delta: Some(1.0),
            ..Default::default()
        })),
    }
}

/// The revision of `sub`'s next event, a tiles event within 10 s, or a panic naming
/// what came instead.
async fn next_tiles(sub: &mut Subscription) -> u64 {
    let event = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("an event in time")
        .expect("an event");
    match event {
        SubscriptionEvent::Tiles(t) => t.revision,
        other => panic!("expected tiles, got {other:?}"),
    }
}

#[tokio::test]
async fn a_reconnection_that_meets_a_silent_server_tries_again_and_resumes() {
    let (url, seen) = scripted(|n| match n {
        1 => Treat::Answer {
            messages: vec![subscribed(3), tiles(4)],
            end: true,
        },
        2 | 3 => Treat::Silence,
        _ => Treat::Answer {
            messages: vec![subscribed(4), tiles(4), tiles(5)],
            end: true,
        },
    })
    .await;
    let client = client(&url).await;
    let mut sub = client
        .subscription("main")
        .open_timeout(Some(Duration::from_millis(150)))
        .backoff(Duration::from_millis(1), Duration::from_millis(1))
        .open()
        .await
        .expect("the first stream opens");
    assert_eq!(next_tiles(&mut sub).await, 4);
    assert_eq!(next_tiles(&mut sub).await, 5, "4 is not delivered twice");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        4,
        "two silent attempts, then the answer"
    );
    assert_eq!(sub.reconnects(), 1);
}

#[tokio::test]
async fn a_stream_whose_first_message_is_an_event_delivers_it() {
    let (url, _) = scripted(|n| match n {
        1 => Treat::Answer {
            messages: vec![tiles(5), tiles(6)],
            end: true,
        },
        _ => Treat::Silence,
    })
    .await;
    let client = client(&url).await;
    let mut sub = client
        .subscription("main")
        .from_revision(2)
        .open_timeout(Some(Duration::from_millis(150)))
        .open()
        .await
        .expect("opens");
    assert_eq!(next_tiles(&mut sub).await, 5);
    assert_eq!(next_tiles(&mut sub).await, 6);
}

/// A TCP proxy to `target`; `freeze` stops forwarding on the connections open so far,
/// in both directions, and leaves them open (a peer that vanished); later connections
/// are forwarded. Answers its URL, `freeze`'s flag and the connections made.
async fn freezing_proxy(target: String) -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    // Connections numbered below this are frozen.
    let frozen_below = Arc::new(AtomicUsize::new(0));
    let made = Arc::new(AtomicUsize::new(0));
    let (frozen, count) = (Arc::clone(&frozen_below), Arc::clone(&made));
    tokio::spawn(async move {
        while let Ok((downstream, _)) = listener.accept().await {
            let number = count.fetch_add(1, Ordering::SeqCst);
            let Ok(upstream) = tokio::net::TcpStream::connect(&target).await else {
                continue;
            };
            let (down_read, down_write) = downstream.into_split();
            let (up_read, up_write) = upstream.into_split();
            for (mut from, mut to) in [(down_read, up_write), (up_read, down_write)] {
                let frozen = Arc::clone(&frozen);
                tokio::spawn(async move {
                    let mut buffer = vec![0; 16 * 1024];
                    while let Ok(n @ 1..) = from.read(&mut buffer).await {
                        let live = number >= frozen.load(Ordering::SeqCst);
                        if live && to.write_all(&buffer[..n]).await.is_err() {
                            return;
                        }
                    }
                    // The peer closed: keep the other half open, as a frozen link would.
                    std::future::pending::<()>().await;
                });
            }
        }
    });
    (url, frozen_below, made)
}

#[tokio::test]
async fn keepalive_notices_a_connection_that_died_silently_and_the_subscription_resumes() {
    let (server, streams) = scripted(|n| match n {
        1 => Treat::Answer {
            messages: vec![subscribed(3)],
            end: false,
        },
        _ => Treat::Answer {
            messages: vec![subscribed(3), tiles(4)],
            end: false,
        },
    })
    .await;
    let target = server.trim_start_matches("http://").to_string();
    let (url, frozen_below, connections) = freezing_proxy(target).await;
    let client = ClientBuilder::new(&url)
        .lazy(true)
        .keepalive(Some(Duration::from_millis(200)))
        .connect()
        .await
        .expect("a lazy client");
    let mut sub = client
        .subscription("main")
        .backoff(Duration::from_millis(1), Duration::from_millis(1))
        .open()
        .await
        .expect("opens");
    frozen_below.store(connections.load(Ordering::SeqCst), Ordering::SeqCst);
    let frozen_at = std::time::Instant::now();
    assert_eq!(next_tiles(&mut sub).await, 4);
    assert!(
        frozen_at.elapsed() >= Duration::from_millis(190),
        "noticed by the unanswered ping"
    );
    assert_eq!(streams.load(Ordering::SeqCst), 2);
    assert_eq!(connections.load(Ordering::SeqCst), 2, "a new connection");
    assert_eq!(sub.reconnects(), 1);
}
