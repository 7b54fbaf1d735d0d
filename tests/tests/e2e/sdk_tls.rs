//! The SDK over TLS: with the server's CA (`ClientBuilder::ca_file`), an `https://`
//! client makes typed calls and follows events; with another CA, or none, or a bad
//! CA file, it fails at once with a typed error (`Tls`, `CaFile`) instead of hanging
//! or retrying.

use terrain_tests as common;

use std::time::Duration;

use common::{Identity, TIMEOUT, TestServer, rect};
use terrain_client::{ClientBuilder, ClientError, SubscriptionEvent, TerrainClient};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_calls_and_events_over_https_with_the_ca() {
    let identity = Identity::new();
    let server = TestServer::start_tls(&identity, |_| {}).await;
    let url = server.base_url();
    let mut client: TerrainClient = ClientBuilder::new(&url)
        .ca_file(identity.cert())
        .connect()
        .await
        .expect("connects");
    let h = client.height("main", 1.0, 2.0).await.expect("height");
    let want = terrain_core::Generator::height(&common::main_generator(), 1.0, 2.0);
    assert_eq!(h.height.to_bits(), want.to_bits());
    // The certificate's DNS name works too, with the address given by IP.
    let mut by_name = ClientBuilder::new(&url)
        .ca_file(identity.cert())
        .tls_domain_name("localhost")
        .connect()
        .await
        .expect("connects verifying localhost");
    assert_eq!(by_name.list_worlds().await.unwrap()[0].id, "main");

    let mut sub = client
        .subscription("main")
        .open()
        .await
        .expect("subscribes");
    let r = client
        .register_flat_zone("main", "pad", &rect(0.0, 0.0, 6.0, 6.0, 1.0))
        .await
        .expect("registers")
        .revision;
    let event = tokio::time::timeout(TIMEOUT, async {
        loop {
            match sub.next().await.expect("stream alive") {
                SubscriptionEvent::Tiles(e) => break e,
                _ => continue,
            }
        }
    })
    .await
    .expect("an event in time");
    assert_eq!((event.revision, event.zone.as_str()), (r, "pad"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_ca_it_fails_at_once_with_a_typed_error() {
    let identity = Identity::new();
    let other = Identity::new();
    let server = TestServer::start_tls(&identity, |_| {}).await;
    let url = server.base_url();
    let connect = |b: ClientBuilder| async move {
        tokio::time::timeout(Duration::from_secs(10), b.connect())
            .await
            .expect("an answer, not a hang")
    };
    // Another CA: the handshake refuses the server's certificate.
    let e = connect(ClientBuilder::new(&url).ca_file(other.cert()))
        .await
        .expect_err("refused");
    assert!(
        matches!(&e, ClientError::Tls(m) if m.contains("certificate")),
        "{e}"
    );
    assert!(!e.is_transient(), "{e}");
    // The same refusal met by a lazy client's first call: typed alike, not retried.
    let mut lazy = connect(ClientBuilder::new(&url).ca_file(other.cert()).lazy(true))
        .await
        .expect("a lazy client connects on first use");
    let e = tokio::time::timeout(Duration::from_secs(10), lazy.height("main", 0.0, 0.0))
        .await
        .expect("an answer, not a hang")
        .expect_err("refused");
    assert!(
        matches!(&e, ClientError::Tls(m) if m.contains("certificate")),
        "{e}"
    );
    assert!(!e.is_transient(), "{e}");
    // The right CA but a name the certificate is not for.
    let e = connect(
        ClientBuilder::new(&url)
            .ca_file(identity.cert())
            .tls_domain_name("elsewhere.example"),
    )
    .await
    .expect_err("refused");
    assert!(matches!(e, ClientError::Tls(_)), "{e}");
    // No CA at all.
    let e = connect(ClientBuilder::new(&url))
        .await
        .expect_err("refused");
    assert!(
        matches!(&e, ClientError::Tls(m) if m.contains("ca_file")),
        "{e}"
    );
    // A missing or garbage CA file names the option and the path.
    let garbage = identity.path("garbage.pem");
    std::fs::write(&garbage, "not a certificate").unwrap();
    for path in [identity.path("missing.pem"), garbage] {
        let e = connect(ClientBuilder::new(&url).ca_file(&path))
            .await
            .expect_err("refused");
        assert!(matches!(&e, ClientError::CaFile { .. }), "{e}");
        assert!(
            e.to_string().starts_with("ca_file ")
                && e.to_string().contains(&*path.to_string_lossy()),
            "{e}"
        );
    }
    // A CA file with a plain http:// URL is a mistake, not silently ignored.
    let plain = format!("http://{}", server.addr);
    let e = connect(ClientBuilder::new(&plain).ca_file(identity.cert()))
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::InvalidUrl { .. }), "{e}");
    server.stop().await;
}
