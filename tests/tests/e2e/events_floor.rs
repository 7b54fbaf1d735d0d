//! "Nobody sinks": after the event for an arena floor, every affected mesh and every
//! height in the floor's core is at the floor height, at a version no older than the
//! event's revision.

use terrain_tests as common;

use common::{
    TestServer,
    events::{put_zone, revision, ws_connect, ws_event},
    num, nums,
};
use serde_json::json;

#[tokio::test]
async fn after_the_event_meshes_and_heights_agree_with_the_floor() {
    let server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "x=70&z=92&radius=40").await;
    let floor = json!({"centerX": 70.0, "centerZ": 92.0, "width": 20.0, "depth": 24.0,
                       "heightOffset": 0.4, "blendRadius": 1.0, "carveInset": 1.0});
    let answer = put_zone(&server, "duel_arena_floor_1", &floor).await;
    let height = num(&answer["zone"]["height"]);
    let event = ws_event(&mut ws).await;
    let r = revision(&event);
    assert_eq!(event["cause"]["zone"], "duel_arena_floor_1");
    let in_core = |x: f64, z: f64| (x - 70.0).abs() <= 10.0 && (z - 92.0).abs() <= 12.0;

    let mut checked = 0;
    for tile in event["tiles"].as_array().expect("tiles") {
        let (tx, tz) = (tile[0].as_i64().expect("tx"), tile[1].as_i64().expect("tz"));
        let (status, mesh) = server
            .get(&format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh"))
            .await;
        assert_eq!(status, 200, "{mesh}");
        assert!(
            mesh["version"].as_u64().expect("version") >= r,
            "tile {tx},{tz}"
        );
        let placement = nums(&mesh["placement"]);
        for p in nums(&mesh["positions"]).chunks_exact(3) {
            let (x, z) = (placement[0] + p[0], placement[2] + p[2]);
            if in_core(x, z) {
                // Positions are float32: the vertex is the floor height rounded to f32.
                let y = placement[1] + p[1];
                assert_eq!(
                    y as f32, height as f32,
                    "vertex ({x}, {z}) at {y}, floor {height}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} vertices in the core");

    let points: Vec<_> = (0..=20)
        .flat_map(|i| (0..=24).map(move |j| json!([60.0 + i as f64, 80.0 + j as f64])))
        .collect();
    let (status, heights) = server
        .post_json("/v1/worlds/main/heights", &json!({"points": points}))
        .await;
    assert_eq!(status, 200, "{heights}");
    assert!(heights["revision"].as_u64().expect("revision") >= r);
    for (i, h) in nums(&heights["heights"]).into_iter().enumerate() {
        assert_eq!(
            h.to_bits(),
            height.to_bits(),
            "point {i}: {h} vs floor {height}"
        );
    }
    server.stop().await;
}
