//! TLS on the one port: with `tls_cert` and `tls_key` (a certificate generated here
//! with rcgen), HTTP/1.1 and gRPC both speak TLS (ALPN `h2` and `http/1.1`), a plain
//! TCP client is not served, and a bad certificate or key stops start-up naming the key.
//! `terrain-server backup --from https://...` reads the snapshot over TLS with the CA
//! file and the admin token.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
use terrain_proto::v1::{GetHeightRequest, terrain_service_client::TerrainServiceClient};
use terrain_server::{
    Server, StartError,
    config::{Config, TlsFiles},
};
use terrain_tests::{Identity, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::{
    TlsConnector,
    rustls::{ClientConfig, RootCertStore, crypto::ring},
};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

fn config(data: &tempfile::TempDir, tls: TlsFiles) -> Config {
    let mut c = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        data_dir: data.path().join("data"),
        tls: Some(tls),
        ..Config::default()
    };
    c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
    c.lifecycle.warm_radius = None;
    c
}

fn connector(cert_pem: &str) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(cert_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    TlsConnector::from(Arc::new(config))
}

/// One HTTP/1.1 GET over TLS: the status and the body.
async fn get(addr: SocketAddr, cert_pem: &str, path: &str) -> (u16, String) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = connector(cert_pem)
        .connect(name, tcp)
        .await
        .expect("TLS handshake");
    let request = format!("GET {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    // A close_notify-less close is fine here: the body is complete.
    let _ = tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
    (head[9..12].parse().unwrap(), body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_surfaces_speak_tls_on_the_one_port() {
    let identity = Identity::new();
    let server = TestServer::start_tls(&identity, |_| {}).await;
    let addr = server.addr;
    // HTTP/1.1 over TLS.
    let (status, body) = get(addr, identity.cert_pem(), "/v1/worlds/main/height?x=1&z=2").await;
    assert_eq!(status, 200, "{body}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    let want = terrain_core::Generator::height(
        &terrain_core::WorldGenerator::new(terrain_core::GeneratorKind::Hyperscape, 0).unwrap(),
        1.0,
        2.0,
    );
    assert_eq!(body["height"].as_f64().unwrap().to_bits(), want.to_bits());
    // gRPC over TLS (HTTP/2 by ALPN), with the CA file.
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(identity.cert_pem()))
        .domain_name("localhost");
    let channel = Endpoint::from_shared(format!("https://127.0.0.1:{}", addr.port()))
        .unwrap()
        .tls_config(tls)
        .unwrap()
        .connect()
        .await
        .expect("gRPC over TLS connects");
    let answer = TerrainServiceClient::new(channel)
        .get_height(GetHeightRequest {
            world: "main".into(),
            x: 1.0,
            z: 2.0,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.height.to_bits(), want.to_bits());
    // A plain-text client gets no answer.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    // The server ends the failed handshake by closing the connection.
    let mut seen = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut seen))
        .await
        .expect("the server closes a plain-text connection")
        .ok();
    assert!(
        !String::from_utf8_lossy(&seen).contains("200 OK"),
        "plain text was served"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_bad_certificate_or_key_stops_start_up_naming_the_key() {
    let identity = Identity::new();
    let other = Identity::new();
    let data = tempfile::tempdir().unwrap();
    let garbage = identity.path("garbage.pem");
    std::fs::write(&garbage, "not a pem file").unwrap();
    let missing = identity.path("missing.pem");
    for (files, key) in [
        (
            TlsFiles {
                cert: garbage.clone(),
                ..identity.files()
            },
            "tls_cert",
        ),
        (
            TlsFiles {
                cert: missing.clone(),
                ..identity.files()
            },
            "tls_cert",
        ),
        (
            TlsFiles {
                key: garbage.clone(),
                ..identity.files()
            },
            "tls_key",
        ),
        // The other certificate's key does not match.
        (
            TlsFiles {
                key: other.files().key,
                ..identity.files()
            },
            "tls_key",
        ),
    ] {
        let err = Server::bind(config(&data, files))
            .await
            .expect_err("refused");
        assert!(matches!(err, StartError::Tls(_)), "{err}");
        assert!(err.to_string().starts_with(key), "{err}");
    }
}

/// One HTTP/1.1 PUT of a JSON `body` over TLS with the admin token: the status and
/// the whole answer.
async fn put(
    addr: SocketAddr,
    cert_pem: &str,
    path: &str,
    token: &str,
    body: &str,
) -> (u16, String) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = connector(cert_pem).connect(name, tcp).await.unwrap();
    let request = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {token}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    (text[9..12].parse().unwrap(), text.into_owned())
}

/// `terrain-server [args]`, in-process on a blocking thread: its result as text.
async fn command(args: Vec<String>) -> Result<(), String> {
    use clap::Parser;
    tokio::task::spawn_blocking(move || {
        let cli = terrain_server::Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        let command = cli.command.as_ref().expect("a subcommand");
        terrain_server::commands::run(&cli, command).map_err(|e| e.to_string())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backup_from_an_https_server_with_the_ca_file_and_the_token() {
    const TOKEN: &str = "tls-backup-token";
    let identity = Identity::new();
    let other = Identity::new();
    let data = tempfile::tempdir().unwrap();
    let server = TestServer::start_tls(&identity, |c| {
        c.admin_token = Some(terrain_server::auth::AdminToken::new(TOKEN).unwrap());
    })
    .await;
    let addr = server.addr;
    let zone =
        r#"{"centerX": 12.5, "centerZ": -3.25, "radius": 4.0, "height": 7.75, "blendRadius": 1.0}"#;
    let path = "/v1/worlds/main/flat-zones/tls-zone";
    let (status, answer) = put(addr, identity.cert_pem(), path, TOKEN, zone).await;
    assert_eq!(status, 200, "{answer}");

    let out = identity.path("backup.json");
    let args = |token: &str, ca: Option<&std::path::Path>| {
        let mut args: Vec<String> = ["terrain-server", "--admin-token", token, "--data-dir"]
            .map(String::from)
            .to_vec();
        args.push(data.path().join("unused").display().to_string());
        args.extend(["backup", "--from"].map(String::from));
        args.push(format!("https://127.0.0.1:{}", addr.port()));
        if let Some(ca) = ca {
            args.push("--ca-file".into());
            args.push(ca.display().to_string());
        }
        args.push("--output".into());
        args.push(out.display().to_string());
        args
    };
    let ca = identity.cert();
    command(args(TOKEN, Some(&ca)))
        .await
        .expect("backup over TLS");
    let backup: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let world = &backup["worlds"][0];
    assert_eq!(world["id"], "main");
    assert_eq!(world["revision"], 1);
    assert_eq!(world["zones"][0]["zone"]["id"], "tls-zone");
    assert_eq!(world["zones"][0]["zone"]["centerX"], 12.5);
    std::fs::remove_file(&out).unwrap();

    // Without the CA file, with another CA, with a wrong token: refused, nothing written.
    let err = command(args(TOKEN, None)).await.unwrap_err();
    assert!(err.contains("--ca-file"), "{err}");
    let err = command(args(TOKEN, Some(&other.cert()))).await.unwrap_err();
    assert!(err.contains("127.0.0.1"), "{err}");
    let err = command(args("wrong-token-value", Some(&ca)))
        .await
        .unwrap_err();
    assert!(err.contains("401"), "{err}");
    assert!(!out.exists());
    server.stop().await;
}

/// A WebSocket over TLS (served over hyper's upgraded connection, not its own
/// socket: no direct delivery) streams events as over plain TCP: a zone put over
/// TLS reaches the subscriber as its event, whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tile_events_stream_over_a_websocket_on_tls() {
    use futures::StreamExt as _;
    use tokio_tungstenite::tungstenite::Message;
    const TOKEN: &str = "tls-events-token";
    let identity = Identity::new();
    let server = TestServer::start_tls(&identity, |c| {
        c.admin_token = Some(terrain_server::auth::AdminToken::new(TOKEN).unwrap());
    })
    .await;
    let addr = server.addr;
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector(identity.cert_pem())
        .connect(name, tcp)
        .await
        .expect("TLS handshake");
    let (mut socket, answer) =
        tokio_tungstenite::client_async("wss://localhost/v1/worlds/main/events", tls)
            .await
            .expect("the WebSocket opens over TLS");
    assert_eq!(answer.status(), 101);
    let zone =
        r#"{"centerX": 12.5, "centerZ": -3.25, "radius": 4.0, "height": 7.75, "blendRadius": 1.0}"#;
    let path = "/v1/worlds/main/flat-zones/wss-zone";
    let (status, answer) = put(addr, identity.cert_pem(), path, TOKEN, zone).await;
    assert_eq!(status, 200, "{answer}");
    let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
        .await
        .expect("the event arrives");
    let Some(Ok(Message::Text(text))) = frame else {
        panic!("not a text frame: {frame:?}");
    };
    let event: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
    assert_eq!(event["type"], "event");
    assert_eq!(event["revision"], 1);
    assert_eq!(event["cause"]["zone"], "wss-zone");
    let (status, metrics) = get(addr, identity.cert_pem(), "/metrics").await;
    assert_eq!(status, 200, "{metrics}");
    let sample = |series| terrain_tests::metric_sample(&metrics, series).unwrap_or(0.0);
    assert_eq!(sample(r#"terrain_events_sent_total{world="main"}"#), 1.0);
    assert_eq!(sample(r#"terrain_events_direct_total{world="main"}"#), 0.0);
    server.stop().await;
}
