//! A world with a layout layer, configured by the example file `worlds/frontier.toml`:
//! baked before ready, its hubs and spokes and zone classes over HTTP and gRPC (the
//! same answers), clearings level in the heights, and layout chunks dropped beyond the
//! GC radius regenerating the same bits.

use terrain_tests as common;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use clap::Parser;
use common::{TestServer, assert_http_error};
use serde_json::{Value, json};
use terrain_proto::v1::{self as pb, terrain_lifecycle_client::TerrainLifecycleClient};
use terrain_server::{Cli, Config};
use tonic_types::StatusExt;

/// The example configuration, as shipped.
fn frontier_config() -> Config {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../worlds/frontier.toml");
    let cli = Cli::parse_from(["terrain-server", "--config", path.to_str().unwrap()]);
    Config::load(&cli).expect("the example configuration loads")
}

async fn start() -> TestServer {
    let example = frontier_config();
    TestServer::start_in(tempfile::tempdir().unwrap(), |c| {
        c.worlds = example.worlds;
        c.lifecycle = example.lifecycle;
        // Only the layout world: the test waits for its bake.
        c.worlds.retain(|w| w.id == "frontier");
    })
    .await
}

async fn wait_ready(server: &TestServer) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = server
            .http
            .get(server.url("/readyz"))
            .send()
            .await
            .unwrap()
            .status();
        if status == 200 {
            return;
        }
        assert_eq!(status, 503);
        assert!(Instant::now() < deadline, "baked in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn height(server: &TestServer, x: f64, z: f64) -> f64 {
    let (status, body) = server
        .get(&format!("/v1/worlds/frontier/height?x={x}&z={z}"))
        .await;
    assert_eq!(status, 200, "{body}");
    body["height"].as_f64().unwrap()
}

#[tokio::test]
async fn layout_world_bakes_and_answers_layout_queries() {
    let server = start().await;
    wait_ready(&server).await;
    // Baked: 7 x 7 layout chunks around the spawn point, 5 x 5 tiles warmed.
    let text = server.metrics().await;
    assert!(
        common::metric_sample(&text, r#"terrain_bake_seconds{world="frontier"}"#).is_some(),
        "{text}"
    );
    let (_, worlds) = server.get("/v1/worlds").await;
    assert_eq!(
        worlds["worlds"][0]["layout"],
        json!({"pattern": "rings", "spokes": "planar", "chunkSize": 400.0, "cellSize": 8.0})
    );

    let (status, layout) = server
        .get("/v1/worlds/frontier/layout?minX=-400&minZ=-400&maxX=399&maxZ=399")
        .await;
    assert_eq!(status, 200, "{layout}");
    let hubs = layout["hubs"].as_array().unwrap();
    assert!(hubs.len() >= 4, "{layout}");
    let mut ids = Vec::new();
    for hub in hubs {
        let id = hub["id"].as_str().unwrap().to_string();
        let chunk = [
            hub["chunk"][0].as_i64().unwrap(),
            hub["chunk"][1].as_i64().unwrap(),
        ];
        assert!(
            (-1..=0).contains(&chunk[0]) && (-1..=0).contains(&chunk[1]),
            "{hub}"
        );
        assert!(
            id.starts_with(&format!("{},{}:", chunk[0], chunk[1])),
            "{hub}"
        );
        // The clearing lies inside its 400 m chunk.
        let (x, z, r) = (
            hub["x"].as_f64().unwrap(),
            hub["z"].as_f64().unwrap(),
            hub["r"].as_f64().unwrap(),
        );
        assert!(
            x - r >= chunk[0] as f64 * 400.0 && x + r <= (chunk[0] + 1) as f64 * 400.0,
            "{hub}"
        );
        assert!(
            z - r >= chunk[1] as f64 * 400.0 && z + r <= (chunk[1] + 1) as f64 * 400.0,
            "{hub}"
        );
        ids.push(id);
    }
    let spokes = layout["spokes"].as_array().unwrap();
    assert!(!spokes.is_empty());
    for spoke in spokes {
        let (a, b) = (spoke["a"].as_str().unwrap(), spoke["b"].as_str().unwrap());
        assert!(
            ids.iter().any(|i| i == a) || ids.iter().any(|i| i == b),
            "{spoke}"
        );
    }

    // gRPC gives the same hubs and spokes.
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let grpc = client
        .get_layout(pb::GetLayoutRequest {
            world: "frontier".into(),
            min_x: -400.0,
            min_z: -400.0,
            max_x: 399.0,
            max_z: 399.0,
        })
        .await
        .unwrap()
        .into_inner();
    let grpc_ids: Vec<_> = grpc.hubs.iter().map(|h| h.id.clone()).collect();
    assert_eq!(grpc_ids, ids);
    assert_eq!(grpc.spokes.len(), spokes.len());

    // Each hub centre is in its clearing; the clearing is level.
    for hub in hubs {
        let (x, z, r) = (
            hub["x"].as_f64().unwrap(),
            hub["z"].as_f64().unwrap(),
            hub["r"].as_f64().unwrap(),
        );
        let (status, class) = server
            .get(&format!("/v1/worlds/frontier/zone-class?x={x}&z={z}"))
            .await;
        assert_eq!(status, 200, "{class}");
        // The cell's centre is within 8 m of the hub centre, inside any clearing here.
        assert_eq!(class["class"], "hub", "{class} for {hub}");
        assert_eq!(class["hub"], hub["id"]);
        assert_eq!(
            class["cell"],
            json!([(x / 8.0).floor() as i64, (z / 8.0).floor() as i64])
        );
        let g = client
            .get_zone_class(pb::GetZoneClassRequest {
                world: "frontier".into(),
                x,
                z,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(g.class, pb::ZoneClass::Hub as i32);
        assert_eq!(g.hub.as_deref(), hub["id"].as_str());
        let centre = height(&server, x, z).await;
        for (dx, dz) in [(0.5, 0.0), (0.0, -0.5), (0.35, 0.35)] {
            let h = height(&server, x + dx * r, z + dz * r).await;
            assert_eq!(h.to_bits(), centre.to_bits(), "level clearing {hub}");
        }
    }
    // Far from every feature: the wilds.
    let (_, class) = server
        .get("/v1/worlds/frontier/zone-class?x=-390&z=-390")
        .await;
    assert!(
        class["class"] == "wilds" || class["class"] == "spoke",
        "{class}"
    );
    assert_eq!(class["hub"], Value::Null);

    // Refusals name the field.
    let bad = [
        (
            "/v1/worlds/frontier/layout?minX=0&minZ=0&maxX=-1&maxZ=1",
            400,
            "INVALID_ARGUMENT",
            "maxX",
        ),
        (
            "/v1/worlds/frontier/layout?minZ=0&maxX=1&maxZ=1",
            400,
            "INVALID_ARGUMENT",
            "minX",
        ),
        (
            "/v1/worlds/frontier/layout?minX=-1e8&minZ=-1e8&maxX=1e8&maxZ=1e8",
            413,
            "RESOURCE_EXHAUSTED",
            "bounds",
        ),
        (
            "/v1/worlds/frontier/zone-class?x=NaN&z=0",
            400,
            "INVALID_ARGUMENT",
            "x",
        ),
        (
            "/v1/worlds/frontier/zone-class?x=0",
            400,
            "INVALID_ARGUMENT",
            "z",
        ),
        (
            "/v1/worlds/nope/zone-class?x=0&z=0",
            404,
            "NOT_FOUND",
            "world",
        ),
    ];
    for (path, status, code, field) in bad {
        let answer = server.get(path).await;
        assert_http_error(&answer, status, code, Some(field));
    }

    // gRPC names the request's own fields (`lifecycle.proto`: `min_x`, `max_x`, ...).
    let rect = |min_x: f64, min_z: f64, max_x: f64| pb::GetLayoutRequest {
        world: "frontier".into(),
        min_x,
        min_z,
        max_x,
        max_z: 1.0,
    };
    for (request, field) in [
        (rect(0.0, 0.0, -1.0), "max_x"),
        (rect(0.0, f64::NAN, 1.0), "min_z"),
        (rect(f64::INFINITY, 0.0, 1.0), "min_x"),
    ] {
        let status = client.get_layout(request).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        let details = status
            .get_details_bad_request()
            .expect("a BadRequest detail");
        assert_eq!(details.field_violations[0].field, field, "{status:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn worlds_without_a_layout_refuse_layout_queries() {
    let server = TestServer::start().await;
    let answer = server.get("/v1/worlds/main/zone-class?x=0&z=0").await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
    let answer = server
        .get("/v1/worlds/main/layout?minX=0&minZ=0&maxX=1&maxZ=1")
        .await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
    let (_, worlds) = server.get("/v1/worlds").await;
    assert!(worlds["worlds"][0].get("layout").is_none(), "{worlds}");
    server.stop().await;
}

#[tokio::test]
async fn layout_dropped_beyond_the_gc_radius_regenerates_the_same_heights() {
    let server = start().await;
    wait_ready(&server).await;
    // Ground 8 chunks east: outside the spawn grid (3 chunks).
    let points: Vec<(f64, f64)> = (0..40)
        .map(|i| (3200.0 + 9.7 * f64::from(i), 150.0 + 7.3 * f64::from(i % 13)))
        .collect();
    let body = json!({"points": points.iter().map(|&(x, z)| [x, z]).collect::<Vec<_>>()});
    let (status, before) = server.post_json("/v1/worlds/frontier/heights", &body).await;
    assert_eq!(status, 200, "{before}");
    // A viewer far away: the timer drops every chunk not near it or the spawn grid.
    let (status, _) = server
        .put_json(
            "/v1/worlds/frontier/viewers/far",
            &json!({"x": -20000.0, "z": 0.0, "viewWidth": 100.0, "viewDepth": 100.0}),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let dropped = r#"terrain_layout_chunks_dropped_total{world="frontier"}"#;
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.metric(dropped).await < 1.0 {
        assert!(Instant::now() < deadline, "layout collected");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, after) = server.post_json("/v1/worlds/frontier/heights", &body).await;
    assert_eq!(status, 200);
    let bits = |v: &Value| -> Vec<u64> {
        v["heights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_f64().unwrap().to_bits())
            .collect()
    };
    assert_eq!(bits(&after), bits(&before));
    server.stop().await;
}
