//! The typed client against a real server on `127.0.0.1:0`.

use std::{net::SocketAddr, time::Duration};

use terrain_client::{ClientBuilder, ClientError, RetryPolicy, TerrainClient};
use terrain_core::{Generator, GeneratorKind, WorldGenerator};
use terrain_server::{Config, RunningServer, Server, WorldConfig};

async fn start() -> (RunningServer, tempfile::TempDir) {
    let data = tempfile::tempdir().expect("temporary directory");
    let config = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        data_dir: data.path().join("data"),
        worlds: vec![
            WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
            WorldConfig::new("old", GeneratorKind::Osrs, 0),
        ],
        ..Config::default()
    };
    let server = Server::bind(config).await.expect("bind").spawn();
    (server, data)
}

#[tokio::test]
async fn typed_calls_return_the_cores_heights() {
    let (server, _data) = start().await;
    let mut client = TerrainClient::connect(format!("http://{}", server.local_addr()))
        .await
        .expect("connect");

    let worlds = client.list_worlds().await.expect("list");
    assert_eq!(
        worlds
            .iter()
            .map(|w| (w.id.as_str(), w.generator.as_str()))
            .collect::<Vec<_>>(),
        [("main", "hyperscape"), ("old", "osrs")]
    );
    assert_eq!(
        (worlds[0].tile_size, worlds[0].tile_resolution),
        (100.0, 64)
    );

    let hyperscape = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
    let h = client.height("main", 12.5, -80.25).await.expect("height");
    assert_eq!(
        h.height.to_bits(),
        hyperscape.height(12.5, -80.25).to_bits()
    );

    let osrs = WorldGenerator::new(GeneratorKind::Osrs, 0).unwrap();
    let points: Vec<(f64, f64)> = (0..50)
        .map(|i| (3200.0 + i as f64 * 0.7, 3200.0 - i as f64 * 1.3))
        .collect();
    let got = client
        .heights_batched("old", &points, 7)
        .await
        .expect("heights");
    let want: Vec<u64> = points
        .iter()
        .map(|&(x, z)| osrs.height(x, z).to_bits())
        .collect();
    assert_eq!(
        got.heights.iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
        want
    );

    let map = client
        .heightmap("main", (-30.0, 40.0), 2.5, (9, 4))
        .await
        .expect("heightmap");
    assert_eq!(map.heights.len(), 36);
    assert_eq!(
        map.get(8, 3).unwrap().to_bits(),
        hyperscape
            .height(-30.0 + 8.0 * 2.5, 40.0 + 3.0 * 2.5)
            .to_bits()
    );
    assert_eq!(map.get(9, 0), None);

    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn errors_are_typed() {
    let (server, _data) = start().await;
    let mut client = TerrainClient::connect(format!("http://{}", server.local_addr()))
        .await
        .expect("connect");
    match client.height("main", f64::NAN, 0.0).await {
        Err(ClientError::InvalidArgument { field, .. }) => assert_eq!(field, "x"),
        other => panic!("expected invalid argument, got {other:?}"),
    }
    match client.heights("main", &[(0.0, 0.0), (1.0, 2e9)]).await {
        Err(ClientError::InvalidArgument { field, .. }) => assert_eq!(field, "coordinates[3]"),
        other => panic!("expected invalid argument, got {other:?}"),
    }
    assert!(matches!(
        client.height("nope", 0.0, 0.0).await,
        Err(ClientError::NotFound(_))
    ));
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn unreachable_server_is_unavailable_after_retries() {
    // Bind and drop a listener to find a loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let policy = RetryPolicy {
        max_attempts: 3,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(20),
    };
    let mut client = ClientBuilder::new(format!("http://127.0.0.1:{port}"))
        .lazy(true)
        .retry(policy)
        .connect_timeout(Duration::from_secs(1))
        .connect()
        .await
        .expect("lazy connect never fails");
    let started = std::time::Instant::now();
    assert!(matches!(
        client.height("main", 0.0, 0.0).await,
        Err(ClientError::Unavailable(_))
    ));
    // Two backoffs of 10 ms and 20 ms happened before giving up.
    assert!(started.elapsed() >= Duration::from_millis(30));
    assert!(matches!(
        ClientBuilder::new("not a url").connect().await,
        Err(ClientError::InvalidUrl { .. })
    ));
}
