//! The typed client against a real server on `127.0.0.1:0`: every call of
//! `TerrainService` and `TerrainEvents`, every typed error, and the retry rule
//! (idempotent calls retried, mutations never).

use terrain_tests as common;

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use common::{TestServer, layout_world, plain_config, rect};
use terrain_client::{
    Area, CauseKind, ClientBuilder, ClientError, HeightMode, RetryPolicy, Shape, StreamMessage,
    ZoneChange, ZoneHeight, ZoneSpec,
};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};
use terrain_server::AdminToken;

#[tokio::test]
async fn typed_calls_return_the_cores_heights() {
    let server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;

    let worlds = client.list_worlds().await.expect("list");
    assert_eq!(
        worlds
            .iter()
            .map(|w| (w.id.as_str(), w.generator.as_str(), w.overlap.as_str()))
            .collect::<Vec<_>>(),
        [
            ("main", "hyperscape", "layered"),
            ("old", "osrs", "layered")
        ]
    );
    assert_eq!(
        (
            worlds[0].tile_size,
            worlds[0].tile_resolution,
            worlds[0].zones
        ),
        (100.0, 64, 0)
    );

    let hyperscape = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
    let h = client.height("main", 12.5, -80.25).await.expect("height");
    assert_eq!(
        h.height.to_bits(),
        hyperscape.height(12.5, -80.25).to_bits()
    );
    assert_eq!((h.zone, h.revision), (None, 0));

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
    assert_eq!(got.zones, vec![None; 50]);

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

    // The surface height lies on the mesh: within 4 cm of the exact one over (0, 0).
    let surface = client
        .height_with_mode("main", 10.3, 20.7, HeightMode::Surface)
        .await
        .expect("surface");
    let exact = hyperscape.height(10.3, 20.7);
    assert!((surface.height - exact).abs() < 0.04 && surface.height != exact);

    assert!(client.is_serving("").await.expect("health"));
    assert!(
        client
            .is_serving("terrain.v1.TerrainService")
            .await
            .expect("health")
    );
}

#[tokio::test]
async fn zone_calls_round_trip_and_change_the_heights() {
    let server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();

    let spec = rect(-40.0, 10.0, 12.0, 8.0, 0.5);
    let registered = client
        .register_flat_zone("main", "pad", &spec)
        .await
        .expect("register");
    let pad = spec.resolve("pad", generator.procedural(-40.0, 10.0));
    assert_eq!(registered.zone.zone, pad);
    assert_eq!((registered.revision, registered.zone.revision), (1, 1));
    assert_eq!(registered.change, ZoneChange::Registered);
    assert_eq!(registered.tiles, [(-1, 0), (0, 0)]);

    let again = client
        .register_flat_zone("main", "pad", &spec)
        .await
        .expect("same");
    assert_eq!(
        (again.change, again.revision, again.tiles.len()),
        (ZoneChange::Unchanged, 1, 0)
    );

    let disc = ZoneSpec {
        shape: Shape::Circle { radius: 5.0 },
        height: ZoneHeight::Absolute(30.0),
        priority: 2,
        ..rect(100.0, -60.0, 1.0, 1.0, 0.0)
    };
    client
        .register_flat_zone("main", "disc", &disc)
        .await
        .expect("disc");

    let list = client.list_flat_zones("main").await.expect("list");
    assert_eq!(list.revision, 2);
    assert_eq!(
        list.zones
            .iter()
            .map(|e| (e.zone.id.as_str(), e.revision))
            .collect::<Vec<_>>(),
        [("pad", 1), ("disc", 2)]
    );
    let one = client.flat_zone("main", "disc").await.expect("get");
    assert_eq!(one.zone.expect("present").zone, disc.resolve("disc", 0.0));
    let at = client.flat_zone_at("main", -40.0, 10.0).await.expect("at");
    assert_eq!(at.zone.map(|e| e.zone.id), Some("pad".into()));
    assert_eq!(
        client
            .flat_zone_at("main", 400.0, 400.0)
            .await
            .unwrap()
            .zone,
        None
    );

    // Heights now include the zones, exactly as a core Terrain with them.
    let mut set = ZoneSet::new(Overlap::Layered, 100.0);
    set.insert(pad.clone(), 1);
    set.insert(disc.resolve("disc", 0.0), 2);
    let terrain = Terrain::new(generator.clone(), set);
    let h = client.height("main", -40.0, 10.0).await.expect("height");
    assert_eq!(h.height.to_bits(), pad.height.to_bits());
    assert_eq!((h.zone.as_deref(), h.revision), (Some("pad"), 2));
    let hs = client
        .heights("main", &[(-40.0, 10.0), (-46.5, 10.0), (0.0, 0.0)])
        .await
        .expect("heights");
    for (got, (x, z)) in hs
        .heights
        .iter()
        .zip([(-40.0, 10.0), (-46.5, 10.0), (0.0, 0.0)])
    {
        assert_eq!(got.to_bits(), terrain.height(x, z).to_bits(), "({x}, {z})");
    }
    assert_eq!(hs.zones, [Some("pad".into()), Some("pad".into()), None]);

    let removed = client
        .unregister_flat_zone("main", "pad")
        .await
        .expect("remove");
    assert_eq!(
        (removed.revision, removed.tiles),
        (3, vec![(-1, 0), (0, 0)])
    );
    assert!(matches!(
        client.flat_zone("main", "pad").await,
        Err(ClientError::NotFound(_))
    ));
}

#[tokio::test]
async fn tile_meshes_and_a_raw_event_stream() {
    let server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;
    let mesh = client.tile_mesh("main", 0, 0).await.expect("mesh");
    assert_eq!(
        (mesh.tile_x, mesh.tile_z, mesh.resolution, mesh.version),
        (0, 0, 64, 0)
    );
    assert_eq!(mesh.positions.len(), 64 * 64 * 3);
    assert_eq!(mesh.normals.len(), 64 * 64 * 3);
    assert_eq!(mesh.indices.len(), 63 * 63 * 6);
    assert!(mesh.indices.iter().all(|&i| i < 64 * 64));
    let meshes = client
        .tile_meshes("main", &[(1, 0), (0, 0)])
        .await
        .expect("meshes");
    assert_eq!(
        meshes
            .iter()
            .map(|m| (m.tile_x, m.tile_z))
            .collect::<Vec<_>>(),
        [(1, 0), (0, 0)]
    );
    assert_eq!(meshes[1], mesh);

    let mut stream = client
        .subscribe(
            "main",
            Area::Tiles {
                min_tx: 5,
                min_tz: 5,
                max_tx: 6,
                max_tz: 6,
            },
            None,
        )
        .await
        .expect("subscribe");
    let Some(StreamMessage::Subscribed {
        subscription_id,
        revision: 0,
        ..
    }) = stream.next().await.expect("first")
    else {
        panic!("subscribed first");
    };
    // Outside the area: not delivered; then widen the area: it is replayed, and the
    // next one follows.
    client
        .register_flat_zone("main", "far", &rect(-300.0, -300.0, 4.0, 4.0, 1.0))
        .await
        .unwrap();
    client
        .update_subscription(&subscription_id, Area::All)
        .await
        .expect("update");
    client
        .register_flat_zone("main", "near", &rect(20.0, 20.0, 4.0, 4.0, 1.0))
        .await
        .unwrap();
    let Some(StreamMessage::Tiles(replayed)) = stream.next().await.expect("event") else {
        panic!("a tile event");
    };
    assert_eq!((replayed.revision, replayed.zone.as_str()), (1, "far"));
    let Some(StreamMessage::Tiles(event)) = stream.next().await.expect("event") else {
        panic!("a tile event");
    };
    assert_eq!(
        (event.revision, event.zone.as_str(), event.kind),
        (2, "near", CauseKind::Registered)
    );
    assert_eq!(event.tiles, [(0, 0)]);
    assert!(event.max_height_delta.expect("delta") > 0.9);
    match client.update_subscription("no-such-id", Area::All).await {
        Err(ClientError::InvalidArgument { field, .. }) => assert_eq!(field, "subscription_id"),
        other => panic!("expected invalid argument, got {other:?}"),
    }
}

#[tokio::test]
async fn errors_are_typed() {
    let server = TestServer::start_default_with(|c| {
        plain_config(c);
        c.admin_token = Some(AdminToken::new("s3cret").unwrap());
        c.limits.max_batch_points = 10;
    })
    .await;
    let mut client = server.client().await;
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
    assert!(matches!(
        client.heights("main", &[(0.0, 0.0); 11]).await,
        Err(ClientError::ResourceExhausted(_))
    ));
    let spec = rect(0.0, 0.0, 4.0, 4.0, 1.0);
    assert!(matches!(
        client.register_flat_zone("main", "z", &spec).await,
        Err(ClientError::Unauthenticated(_))
    ));
    match client
        .register_flat_zone(
            "main",
            "z",
            &ZoneSpec {
                blend_radius: -1.0,
                ..spec.clone()
            },
        )
        .await
    {
        // Authentication comes first.
        Err(ClientError::Unauthenticated(_)) => {}
        other => panic!("expected unauthenticated, got {other:?}"),
    }
    let mut admin = ClientBuilder::new(server.base_url())
        .bearer_token("s3cret")
        .connect()
        .await
        .expect("connect");
    match admin
        .register_flat_zone(
            "main",
            "z",
            &ZoneSpec {
                blend_radius: -1.0,
                ..spec.clone()
            },
        )
        .await
    {
        Err(ClientError::InvalidArgument { field, .. }) => assert_eq!(field, "blend_radius"),
        other => panic!("expected invalid argument, got {other:?}"),
    }
    assert_eq!(
        admin
            .register_flat_zone("main", "z", &spec)
            .await
            .expect("ok")
            .revision,
        1
    );
    assert!(matches!(
        admin.unregister_flat_zone("main", "absent").await,
        Err(ClientError::NotFound(_))
    ));
    assert!(matches!(
        client.subscribe("nope", Area::All, None).await,
        Err(ClientError::NotFound(_))
    ));
    match client
        .subscribe(
            "main",
            Area::Circle {
                x: 0.0,
                z: 0.0,
                radius: -1.0,
            },
            None,
        )
        .await
    {
        Err(ClientError::InvalidArgument { .. }) => {}
        other => panic!("expected invalid argument, got {other:?}"),
    }
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

/// A gRPC endpoint that answers every call `UNAVAILABLE` and counts the calls by path.
async fn always_unavailable() -> (String, Arc<Mutex<BTreeMap<String, u32>>>) {
    let calls = Arc::new(Mutex::new(BTreeMap::<String, u32>::new()));
    let seen = Arc::clone(&calls);
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let seen = Arc::clone(&seen);
        async move {
            *seen
                .lock()
                .unwrap()
                .entry(uri.path().to_string())
                .or_default() += 1;
            axum::http::Response::builder()
                .header("content-type", "application/grpc")
                .header("grpc-status", "14")
                .header("grpc-message", "try later")
                .body(axum::body::Body::empty())
                .unwrap()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, calls)
}

#[tokio::test]
async fn reads_are_retried_and_mutations_are_not() {
    let (url, calls) = always_unavailable().await;
    let policy = RetryPolicy {
        max_attempts: 3,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(2),
    };
    let mut client = ClientBuilder::new(url)
        .retry(policy)
        .connect()
        .await
        .expect("connect");
    let spec = rect(0.0, 0.0, 4.0, 4.0, 1.0);
    assert!(matches!(
        client.height("main", 0.0, 0.0).await,
        Err(ClientError::Unavailable(_))
    ));
    assert!(matches!(
        client.list_flat_zones("main").await,
        Err(ClientError::Unavailable(_))
    ));
    assert!(matches!(
        client.register_flat_zone("main", "z", &spec).await,
        Err(ClientError::Unavailable(_))
    ));
    assert!(matches!(
        client.unregister_flat_zone("main", "z").await,
        Err(ClientError::Unavailable(_))
    ));
    let calls = calls.lock().unwrap().clone();
    let count = |m: &str| {
        calls
            .get(&format!("/terrain.v1.TerrainService/{m}"))
            .copied()
    };
    assert_eq!(count("GetHeight"), Some(3));
    assert_eq!(count("ListFlatZones"), Some(3));
    assert_eq!(count("RegisterFlatZone"), Some(1));
    assert_eq!(count("UnregisterFlatZone"), Some(1));
}

#[tokio::test]
async fn lifecycle_calls_report_viewers_and_follow_transitions() {
    let server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;
    let mut tracker = client.track_viewers("main").await.expect("stream opens");
    let Some(Ok(terrain_client::LifecycleMessage::Snapshot(first))) = tracker.next().await else {
        panic!("a snapshot first");
    };
    assert_eq!((first.viewers, first.tiles.active.len()), (0, 0));
    tracker
        .upsert(terrain_client::Viewer {
            id: "cam".into(),
            x: 0.0,
            z: 0.0,
            view_width: 0.0,
            view_depth: 0.0,
            ..Default::default()
        })
        .await
        .unwrap();
    // A 0 x 0 view at the origin: the active ring is the 5 x 5 tiles around (0, 0),
    // each announced (entered active) once generated.
    let mut entered = std::collections::BTreeSet::new();
    while entered.len() < 25 {
        match tracker.next().await.expect("open").expect("message") {
            terrain_client::LifecycleMessage::Transitions(terrain_client::Step {
                transitions,
                ..
            }) => {
                for t in transitions {
                    if t.change == terrain_client::TileChange::Entered(terrain_client::Ring::Active)
                    {
                        entered.insert(t.tile);
                    }
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        entered.into_iter().collect::<Vec<_>>(),
        (-2..=2)
            .flat_map(|x| (-2..=2).map(move |z| (x, z)))
            .collect::<Vec<_>>()
    );
    let live = client.live_tiles("main").await.unwrap();
    // Sim reaches 0.5 tiles, [-50, 50]: exactly tile (0, 0), which spans [-50, 50).
    assert_eq!(
        (live.viewers, live.tiles.active.len(), live.tiles.sim),
        (1, 25, vec![(0, 0)])
    );
    // A refused update comes back on the stream, with its field.
    tracker
        .upsert(terrain_client::Viewer {
            id: "cam".into(),
            x: f64::INFINITY,
            z: 0.0,
            view_width: 0.0,
            view_depth: 0.0,
            ..Default::default()
        })
        .await
        .unwrap();
    match tracker.next().await.expect("open").expect("message") {
        terrain_client::LifecycleMessage::Rejected { field, .. } => assert_eq!(field, "x"),
        other => panic!("unexpected {other:?}"),
    }
    // No layout layer in this world: NotFound naming the world.
    match client.zone_class("main", 0.0, 0.0).await {
        Err(ClientError::NotFound(message)) => assert!(message.starts_with("world"), "{message}"),
        other => panic!("unexpected {other:?}"),
    }
    // Dropping the tracker removes its viewer.
    drop(tracker);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while client.live_tiles("main").await.unwrap().viewers != 0 {
        assert!(std::time::Instant::now() < deadline, "viewer removed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn layout_calls_answer_for_a_layout_world() {
    let server = TestServer::start_default_with(layout_world(
        "frontier",
        terrain_core::layout::Pattern::Grid,
    ))
    .await;
    let mut client = server.client().await;
    let worlds = client.list_worlds().await.unwrap();
    let layout = worlds[0].layout.clone().expect("listed with its layout");
    assert_eq!(
        (layout.pattern.as_str(), layout.spokes.as_str()),
        ("grid", "grid")
    );
    let got = client
        .layout("frontier", (0.0, 0.0), (799.0, 399.0))
        .await
        .unwrap();
    // Grid pattern: one hub per chunk; chunks (0, 0) and (1, 0) are orthogonal
    // neighbours, so a spoke joins their hubs.
    let ids: Vec<_> = got.hubs.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["0,0:0", "1,0:0"]);
    assert!(
        got.spokes
            .iter()
            .any(|s| (s.a.as_str(), s.b.as_str()) == ("0,0:0", "1,0:0"))
    );
    let hub = &got.hubs[0];
    let class = client.zone_class("frontier", hub.x, hub.z).await.unwrap();
    assert_eq!(class.class, terrain_client::ZoneClass::Hub("0,0:0".into()));
    assert_eq!(
        class.cell,
        ((hub.x / 8.0).floor() as i64, (hub.z / 8.0).floor() as i64)
    );
    match client.layout("frontier", (10.0, 0.0), (0.0, 1.0)).await {
        Err(ClientError::InvalidArgument { field, .. }) => assert_eq!(field, "max_x"),
        other => panic!("unexpected {other:?}"),
    }
}
