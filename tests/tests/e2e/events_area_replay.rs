//! An area change replays what it uncovers: a client that reads a new area's tiles and
//! then moves its subscription there gets, after the change, every event touching the
//! new area since the last one it was sent, so refetching the tiles those events name
//! leaves it holding exactly the server's tiles. Zones change inside the area at full
//! speed while the client reads its tiles and changes the area; each step then pauses
//! the writer, places a marker zone and waits for its event, and compares every tile
//! the client holds with the server's. Over WebSocket and over gRPC.

use terrain_tests as common;

use std::{
    collections::BTreeMap,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use common::{
    TestServer,
    events::{
        Ws, events_client, grpc_next, grpc_subscribe, put_zone, raised, revision, ws_event, ws_send,
    },
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use terrain_proto::v1::{self as pb, subscription_area::Area};

/// The areas the client moves through: 3 x 3 tiles each, 7 tiles apart (no zone of
/// one touches another).
const AREAS: [i64; 4] = [-15, -5, 5, 15];
/// Steps: area changes, each checked.
const STEPS: usize = 8;
/// The writer is paused.
const PAUSED: u64 = u64::MAX;

fn area_tiles(area: usize) -> [i64; 4] {
    let x0 = AREAS[area];
    [x0, 0, x0 + 2, 2]
}

fn tiles_of(area: usize) -> Vec<(i64, i64)> {
    let [x0, z0, x1, z1] = area_tiles(area);
    (z0..=z1)
        .flat_map(|z| (x0..=x1).map(move |x| (x, z)))
        .collect()
}

/// A tile's full-detail glb as the server serves it now.
async fn tile(server: &TestServer, (x, z): (i64, i64)) -> Vec<u8> {
    let (status, _, body) = server
        .get_tagged(&format!("/v1/worlds/main/tiles/{x}/{z}/mesh.glb"), None)
        .await;
    assert_eq!(status, 200, "tile ({x}, {z})");
    body
}

/// What the client holds: the tiles of its area, refetched when an event names them.
#[derive(Default)]
struct Held(BTreeMap<(i64, i64), Vec<u8>>);

impl Held {
    /// Reads every tile of `area` (before the subscription moves there).
    async fn read(server: &TestServer, area: usize) -> Held {
        let mut held = BTreeMap::new();
        for t in tiles_of(area) {
            held.insert(t, tile(server, t).await);
        }
        Held(held)
    }

    /// Refetches the held tiles an event's rectangles touch.
    async fn apply(&mut self, server: &TestServer, rects: &[[i64; 4]]) {
        let touched: Vec<(i64, i64)> = self
            .0
            .keys()
            .copied()
            .filter(|&(x, z)| {
                rects
                    .iter()
                    .any(|r| (r[0]..=r[2]).contains(&x) && (r[1]..=r[3]).contains(&z))
            })
            .collect();
        for t in touched {
            self.0.insert(t, tile(server, t).await);
        }
    }

    /// Panics naming every held tile that differs from the server's.
    async fn check(&self, server: &TestServer, step: usize) {
        let mut stale = Vec::new();
        for (&t, bytes) in &self.0 {
            if tile(server, t).await != *bytes {
                stale.push(t);
            }
        }
        assert!(stale.is_empty(), "step {step}: stale tiles {stale:?}");
    }
}

/// Zones changing at full speed inside the area `target` names (or none while
/// paused), one `PUT` after another; each area has its own zone ids, so no change
/// touches two areas.
struct Writer {
    target: Arc<AtomicU64>,
    /// The area of the last `PUT` completed, `PAUSED` once it saw the pause.
    at: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<u64>,
}

impl Writer {
    fn start(server: &TestServer) -> Writer {
        let (target, at) = (
            Arc::new(AtomicU64::new(PAUSED)),
            Arc::new(AtomicU64::new(PAUSED)),
        );
        let stop = Arc::new(AtomicBool::new(false));
        let (http, base) = (
            server.http.clone(),
            server.url("/v1/worlds/main/flat-zones"),
        );
        let (t, a, s) = (Arc::clone(&target), Arc::clone(&at), Arc::clone(&stop));
        let task = tokio::spawn(async move {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
            let mut puts = 0;
            while !s.load(Ordering::SeqCst) {
                let area = t.load(Ordering::SeqCst);
                if area == PAUSED {
                    a.store(PAUSED, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    continue;
                }
                let [x0, z0, x1, z1] = area_tiles(area as usize);
                // Centres 40 m inside the area's outer tile edges: a 20 m zone with
                // its blend stays in the area's tiles.
                // `r` in thousandths of the span.
                let span = |lo: i64, hi: i64, r: u32| {
                    let (lo, hi) = (lo as f64 * 100.0 - 35.0, hi as f64 * 100.0 + 35.0);
                    lo + f64::from(r) / 1000.0 * (hi - lo)
                };
                let (x, z) = (
                    span(x0, x1, rng.random_range(0..1000)),
                    span(z0, z1, rng.random_range(0..1000)),
                );
                let id = format!("w{area}-{}", rng.random_range(0..4));
                let answer = http
                    .put(format!("{base}/{id}"))
                    .json(&raised(x, z))
                    .send()
                    .await
                    .expect("PUT");
                assert!(
                    answer.status().is_success(),
                    "PUT {id}: {}",
                    answer.status()
                );
                puts += 1;
                a.store(area, Ordering::SeqCst);
            }
            puts
        });
        Writer {
            target,
            at,
            stop,
            task,
        }
    }

    /// Aims the writer at `area` (or pauses it); returns once a `PUT` there has
    /// completed (once it is idle).
    async fn aim(&self, area: u64) {
        self.target.store(area, Ordering::SeqCst);
        while self.at.load(Ordering::SeqCst) != area {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    async fn stop(self) -> u64 {
        self.stop.store(true, Ordering::SeqCst);
        self.task.await.expect("the writer")
    }
}

/// A marker zone in the middle tile of `area`: answers its revision.
async fn marker(server: &TestServer, step: usize, area: usize) -> u64 {
    let [x0, z0, ..] = area_tiles(area);
    let body = raised((x0 + 1) as f64 * 100.0, (z0 + 1) as f64 * 100.0);
    let answer = put_zone(server, &format!("marker-{step}"), &body).await;
    answer["revision"].as_u64().expect("a revision")
}

fn ws_rects(event: &Value) -> Vec<[i64; 4]> {
    serde_json::from_value(event["tileRects"].clone()).expect("tileRects")
}

/// Applies a WebSocket event frame; answers its revision.
async fn ws_apply(server: &TestServer, held: &mut Held, last: &mut u64, frame: &Value) -> u64 {
    assert_eq!(frame["type"], "event", "{frame}");
    let r = revision(frame);
    assert!(r > *last, "revision {r} after {last}: in order, once");
    *last = r;
    held.apply(server, &ws_rects(frame)).await;
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_area_changes_replay_what_they_uncover() {
    let server = TestServer::start().await;
    let mut ws: Ws = common::events::ws_connect(&server, "main", "tiles=100,100,100,100").await;
    let writer = Writer::start(&server);
    let mut last = 0;
    for step in 0..STEPS {
        let area = step % AREAS.len();
        writer.aim(area as u64).await;
        let mut held = Held::read(&server, area).await;
        let [a, b, c, d] = area_tiles(area);
        ws_send(&mut ws, &json!({"tiles": [a, b, c, d]})).await;
        loop {
            let frame = ws_event(&mut ws).await;
            if frame["type"] == "area" {
                break;
            }
            ws_apply(&server, &mut held, &mut last, &frame).await;
        }
        writer.aim(PAUSED).await;
        let marked = marker(&server, step, area).await;
        while ws_apply(&server, &mut held, &mut last, &ws_event(&mut ws).await).await < marked {}
        held.check(&server, step).await;
    }
    let puts = writer.stop().await;
    println!("{puts} zone changes over {STEPS} area changes");
    assert!(puts >= STEPS as u64 * 2, "{puts}");
    server.stop().await;
}

fn grpc_rects(event: &pb::TileEvent) -> Vec<[i64; 4]> {
    event
        .tile_rects
        .iter()
        .map(|r| [r.min_tx, r.min_tz, r.max_tx, r.max_tz])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_area_changes_replay_what_they_uncover() {
    let server = TestServer::start().await;
    let mut client = events_client(&server).await;
    let tiles = |[min_tx, min_tz, max_tx, max_tz]: [i64; 4]| {
        Some(pb::SubscriptionArea {
            area: Some(Area::Tiles(pb::AreaTiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            })),
        })
    };
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: tiles([100, 100, 100, 100]),
        from_revision: None,
        from_epoch: None,
    };
    let (mut stream, id) = grpc_subscribe(&mut client, request).await;
    let writer = Writer::start(&server);
    let mut last = 0;
    for step in 0..STEPS {
        let area = step % AREAS.len();
        writer.aim(area as u64).await;
        let mut held = Held::read(&server, area).await;
        client
            .update_subscription(pb::UpdateSubscriptionRequest {
                subscription_id: id.clone(),
                area: tiles(area_tiles(area)),
            })
            .await
            .expect("update");
        writer.aim(PAUSED).await;
        let marked = marker(&server, step, area).await;
        loop {
            let event = match grpc_next(&mut stream).await.and_then(|e| e.kind) {
                Some(pb::event::Kind::Tiles(t)) => t,
                other => panic!("expected a tile event, got {other:?}"),
            };
            assert!(
                event.revision > last,
                "revision {} after {last}",
                event.revision
            );
            last = event.revision;
            held.apply(&server, &grpc_rects(&event)).await;
            if event.revision >= marked {
                break;
            }
        }
        held.check(&server, step).await;
    }
    let puts = writer.stop().await;
    println!("{puts} zone changes over {STEPS} area changes");
    assert!(puts >= STEPS as u64 * 2, "{puts}");
    server.stop().await;
}

/// When the history an area change would replay is pruned, the stream says `resync`
/// at the change's revision instead (the client re-reads the new area), then goes on
/// live.
#[tokio::test]
async fn an_area_change_past_the_kept_history_resyncs() {
    let server = TestServer::start_with(|c| c.limits.event_history = 3).await;
    let mut ws: Ws = common::events::ws_connect(&server, "main", "tiles=100,100,100,100").await;
    for i in 0..6 {
        put_zone(&server, &format!("z{i}"), &raised(i as f64 * 30.0, 0.0)).await;
    }
    ws_send(&mut ws, &json!({"tiles": [0, 0, 1, 0]})).await;
    assert_eq!(
        ws_event(&mut ws).await,
        json!({"type": "area", "area": {"tiles": [0, 0, 1, 0]}, "revision": 6})
    );
    let resync = ws_event(&mut ws).await;
    assert_eq!(
        (&resync["type"], &resync["revision"]),
        (&json!("resync"), &json!(6)),
        "{resync}"
    );
    put_zone(&server, "live", &raised(50.0, 0.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), 7);
    server.stop().await;
}
