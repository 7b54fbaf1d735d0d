//! The client when the connection fails under a call, against a bare HTTP/2 server
//! (h2, no gRPC) that refuses, resets or drops each stream the way a stopping server
//! can: the server sent no status, so the failure is transient and reads are retried
//! (a subscription or replica reconnects on the same test). A status the server did
//! send stays what it is, and is not retried.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use terrain_client::{ClientBuilder, ClientError, RetryPolicy, TerrainClient};
use tokio::net::TcpListener;
use tonic::codegen::http::Response;

/// What the server does with each request.
#[derive(Clone, Copy, Debug)]
enum Treat {
    /// Resets the stream with this reason.
    Reset(h2::Reason),
    /// Closes the whole connection.
    Drop,
    /// Sends the response headers, then closes the connection.
    HeadersThenDrop,
    /// Answers the gRPC status with this code.
    Status(u32),
}

/// A server treating every request with `treat`; counts the requests.
async fn misbehaving(treat: Treat) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let seen = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                let Ok(mut connection) = h2::server::handshake(socket).await else {
                    return;
                };
                while let Some(Ok((_request, mut respond))) = connection.accept().await {
                    count.fetch_add(1, Ordering::SeqCst);
                    let grpc = || {
                        Response::builder()
                            .status(200)
                            .header("content-type", "application/grpc")
                    };
                    match treat {
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
        let (url, seen) = misbehaving(treat).await;
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
