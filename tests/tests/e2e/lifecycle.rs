//! The chunk lifecycle end to end: viewer rings over HTTP and gRPC, generation before
//! announcement (a newly active tile's mesh is a cache hit), ordered transitions,
//! culling after the grace period, shared tiles kept alive by a second viewer, and
//! the viewer limits.

use terrain_tests as common;

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, Instant},
};

use common::{TestServer, assert_http_error};
use serde_json::{Value, json};
use terrain_client::Tile;
use terrain_proto::v1::{
    self as pb, lifecycle_event::Kind, terrain_lifecycle_client::TerrainLifecycleClient,
    viewer_update::Update,
};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

pub(crate) const VIEWERS: &str = "/v1/worlds/main/viewers";

fn tiles(v: &Value) -> Vec<Tile> {
    v.as_array()
        .expect("tile array")
        .iter()
        .map(|t| (t[0].as_i64().expect("tx"), t[1].as_i64().expect("tz")))
        .collect()
}

/// Row-major tiles of an inclusive rectangle.
fn rect(x0: i64, z0: i64, x1: i64, z1: i64) -> Vec<Tile> {
    (z0..=z1)
        .flat_map(|z| (x0..=x1).map(move |x| (x, z)))
        .collect()
}

pub(crate) fn viewer(x: f64, z: f64, w: f64, d: f64) -> Value {
    json!({"x": x, "z": z, "viewWidth": w, "viewDepth": d})
}

#[tokio::test]
async fn viewer_rings_and_their_union_over_http() {
    let server = TestServer::start_with(|c| c.lifecycle.max_viewers_per_world = 2).await;
    // Hyperscape tiles: 100 m, centred on multiples of 100. View 200 x 100 at the
    // origin: x in [-100, 100], z in [-50, 50]; rings 0.5, 1 and 2 tiles beyond it
    // (tiles merely touching a ring's edge are out).
    let (status, a) = server
        .put_json(
            &format!("{VIEWERS}/a"),
            &viewer(0.0, 0.0, 200.0, 100.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{a}");
    assert_eq!(tiles(&a["sim"]), rect(-1, -1, 1, 1));
    assert_eq!(tiles(&a["spawn"]), rect(-2, -1, 2, 1));
    assert_eq!(tiles(&a["active"]), rect(-3, -2, 3, 2));
    // A point viewer at (1000, 40): tile (10, 0); sim [950, 1050] x [-10, 90].
    let (status, b) = server
        .put_json(
            &format!("{VIEWERS}/b"),
            &viewer(1000.0, 40.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(tiles(&b["sim"]), rect(10, 0, 10, 1));
    assert_eq!(tiles(&b["active"]), rect(8, -2, 12, 2));

    let (status, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(status, 200, "{live}");
    assert_eq!(live["viewers"], 2);
    let union = |x: &Value, y: &Value, ring: &str| {
        let mut all: BTreeSet<(i64, i64)> =
            tiles(&x[ring]).into_iter().map(|(x, z)| (z, x)).collect();
        all.extend(tiles(&y[ring]).into_iter().map(|(x, z)| (z, x)));
        all.into_iter().map(|(z, x)| (x, z)).collect::<Vec<_>>()
    };
    for ring in ["sim", "spawn", "active"] {
        assert_eq!(tiles(&live[ring]), union(&a, &b, ring), "{ring}");
    }

    // Refusals name the field and change nothing (`sequence` moves on as the
    // worker announces generated tiles, so compare the sets).
    let sets = |v: Value| {
        let mut v = v;
        v.as_object_mut().unwrap().remove("sequence");
        v
    };
    let before = sets(server.get("/v1/worlds/main/live-tiles").await.1);
    let path_a = format!("{VIEWERS}/a");
    for (body, field) in [
        (json!({"z": 0, "viewWidth": 1, "viewDepth": 1}), "x"),
        (
            json!({"x": "east", "z": 0, "viewWidth": 1, "viewDepth": 1}),
            "x",
        ),
        (
            json!({"x": 0, "z": 2e9, "viewWidth": 1, "viewDepth": 1}),
            "z",
        ),
        (
            json!({"x": 0, "z": 0, "viewWidth": -5, "viewDepth": 1}),
            "viewWidth",
        ),
        (json!({"x": 0, "z": 0, "viewWidth": 1}), "viewDepth"),
        (
            json!({"x": 0, "z": 0, "viewWidth": 1, "viewDepth": 1, "y": 3}),
            "y",
        ),
    ] {
        let answer = server.put_json(&path_a, &body, None).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    let answer = server
        .put_json(
            &format!("{VIEWERS}/a"),
            &viewer(0.0, 0.0, 50_000.0, 40_000.0),
            None,
        )
        .await;
    assert_http_error(&answer, 413, "RESOURCE_EXHAUSTED", Some("viewWidth"));
    let answer = server
        .put_json(
            &format!("{VIEWERS}/bad%20id"),
            &viewer(0.0, 0.0, 1.0, 1.0),
            None,
        )
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("id"));
    // A third viewer is over this server's limit of 2.
    let answer = server
        .put_json(&format!("{VIEWERS}/c"), &viewer(0.0, 0.0, 1.0, 1.0), None)
        .await;
    assert_http_error(&answer, 429, "RESOURCE_EXHAUSTED", Some("viewers"));
    let answer = server
        .put_json(
            "/v1/worlds/nope/viewers/a",
            &viewer(0.0, 0.0, 1.0, 1.0),
            None,
        )
        .await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
    assert_eq!(
        sets(server.get("/v1/worlds/main/live-tiles").await.1),
        before
    );

    // Removing `a` leaves `b`'s rings; removing it twice is a 404.
    let response = server
        .http
        .delete(server.url(&format!("{VIEWERS}/a")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let answer = server.delete(&format!("{VIEWERS}/a"), None).await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("id"));
    let (_, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(live["viewers"], 1);
    for ring in ["sim", "spawn", "active"] {
        assert_eq!(tiles(&live[ring]), tiles(&b[ring]), "{ring}");
    }
    // The limit has room again.
    let (status, _) = server
        .put_json(&format!("{VIEWERS}/c"), &viewer(0.0, 0.0, 1.0, 1.0), None)
        .await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn viewer_changes_need_the_admin_token_when_one_is_set() {
    let server = TestServer::start_with(|c| c.admin_token = Some("s3cret".parse().unwrap())).await;
    let path = format!("{VIEWERS}/a");
    let body = viewer(0.0, 0.0, 10.0, 10.0);
    let answer = server.put_json(&path, &body, None).await;
    assert_http_error(&answer, 401, "UNAUTHENTICATED", Some("authorization"));
    let (status, _) = server.put_json(&path, &body, Some("s3cret")).await;
    assert_eq!(status, 200);
    let answer = server.delete(&path, None).await;
    assert_http_error(&answer, 401, "UNAUTHENTICATED", Some("authorization"));
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(4);
    tx.send(upsert("g", 0.0, 0.0)).await.unwrap();
    let err = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect_err("no token");
    assert_eq!(err.code(), tonic::Code::Unauthenticated);
    server.stop().await;
}

#[tokio::test]
async fn a_stream_that_only_listens_needs_no_token_and_a_change_on_it_does() {
    let server = TestServer::start_with(|c| c.admin_token = Some("s3cret".parse().unwrap())).await;
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(4);
    tx.send(pb::ViewerUpdate {
        world: "main".into(),
        update: None,
    })
    .await
    .unwrap();
    let mut events = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect("a listening stream needs no token")
        .into_inner();
    let first = events.message().await.unwrap().expect("snapshot");
    let Some(Kind::Snapshot(s)) = first.kind else {
        panic!("{first:?}")
    };
    assert!(s.tiles.expect("tiles").active.is_empty());
    // A viewer reported elsewhere, with the token: the listener sees its tiles enter.
    let (status, body) = server
        .put_json(
            &format!("{VIEWERS}/v"),
            &viewer(0.0, 0.0, 100.0, 100.0),
            Some("s3cret"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let want: BTreeSet<Tile> = tiles(&body["active"]).into_iter().collect();
    let mut active = BTreeSet::new();
    while active != want {
        let event = tokio::time::timeout(Duration::from_secs(30), events.message())
            .await
            .expect("transitions within 30 s")
            .unwrap()
            .expect("stream open");
        let Some(Kind::Transitions(t)) = event.kind else {
            panic!("{event:?}")
        };
        for tr in t.transitions {
            let key = tr.tile.expect("tile");
            if tr.ring == pb::Ring::Active as i32 && tr.kind == pb::TransitionKind::Entered as i32 {
                active.insert((key.x, key.z));
            }
        }
    }
    // A change on it without the token ends the stream and adds no viewer.
    tx.send(upsert("intruder", 5000.0, 5000.0)).await.unwrap();
    let err = loop {
        match tokio::time::timeout(Duration::from_secs(30), events.message())
            .await
            .expect("an answer within 30 s")
        {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_eq!(err.code(), tonic::Code::Unauthenticated, "{err:?}");
    let (status, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(status, 200);
    assert_eq!(live["viewers"], 1, "{live}");
    assert!(!tiles(&live["active"]).contains(&(50, 50)), "{live}");
    server.stop().await;
}

pub(crate) fn upsert(id: &str, x: f64, z: f64) -> pb::ViewerUpdate {
    pb::ViewerUpdate {
        world: "main".into(),
        update: Some(Update::Upsert(pb::Viewer {
            id: id.into(),
            x,
            z,
            view_width: 100.0,
            view_depth: 100.0,
            ..Default::default()
        })),
    }
}

/// What a client following the transitions believes, checked step by step.
#[derive(Default)]
struct Follower {
    sequence: u64,
    /// Ring mask per announced tile (1 sim, 2 spawn, 4 active).
    rings: BTreeMap<Tile, u8>,
    /// Active tiles a snapshot announced (generated before the stream opened).
    snapshot_active: BTreeSet<Tile>,
    entered_active: Vec<Tile>,
    left_active: Vec<Tile>,
    culled: Vec<Tile>,
    /// When each culled tile's `culled` was read.
    culled_at: BTreeMap<Tile, Instant>,
}

impl Follower {
    fn apply(&mut self, event: pb::LifecycleEvent) {
        match event.kind.expect("kind") {
            Kind::Snapshot(s) => {
                self.sequence = s.sequence;
                self.rings.clear();
                let sets = s.tiles.expect("tiles");
                for (set, bit) in [(&sets.sim, 1), (&sets.spawn, 2), (&sets.active, 4)] {
                    for t in set {
                        *self.rings.entry((t.x, t.z)).or_default() |= bit;
                        if bit == 4 {
                            self.snapshot_active.insert((t.x, t.z));
                        }
                    }
                }
            }
            Kind::Transitions(t) => {
                assert_eq!(
                    t.sequence,
                    self.sequence + 1,
                    "steps arrive in order, none missed"
                );
                self.sequence = t.sequence;
                for tr in t.transitions {
                    let key = tr.tile.expect("tile");
                    let tile = (key.x, key.z);
                    let bit = match pb::Ring::try_from(tr.ring).expect("ring") {
                        pb::Ring::Sim => 1,
                        pb::Ring::Spawn => 2,
                        pb::Ring::Active => 4,
                        pb::Ring::Unspecified => 0,
                    };
                    let mask = self.rings.get(&tile).copied().unwrap_or(0);
                    match pb::TransitionKind::try_from(tr.kind).expect("kind") {
                        pb::TransitionKind::Entered => {
                            assert_eq!(mask & bit, 0, "{tile:?} entered a ring it was in");
                            // Rings nest: a tile enters active first, sim last.
                            assert!(bit == 4 || mask & (bit << 1) != 0, "{tile:?} order");
                            self.rings.insert(tile, mask | bit);
                            if bit == 4 {
                                self.entered_active.push(tile);
                            }
                        }
                        pb::TransitionKind::Left => {
                            assert_ne!(mask & bit, 0, "{tile:?} left a ring it was not in");
                            assert!(bit == 1 || mask & (bit >> 1) == 0, "{tile:?} order");
                            self.rings.insert(tile, mask & !bit);
                            if bit == 4 {
                                self.left_active.push(tile);
                            }
                        }
                        pb::TransitionKind::Culled => {
                            assert_eq!(mask, 0, "{tile:?} culled while in a ring");
                            self.rings.remove(&tile);
                            self.culled.push(tile);
                            self.culled_at.insert(tile, Instant::now());
                        }
                        pb::TransitionKind::Unspecified => panic!("unspecified kind"),
                    }
                }
            }
            Kind::Rejected(r) => panic!("rejected: {r:?}"),
        }
    }

    /// The announced tiles of one ring, row-major.
    fn ring(&self, bit: u8) -> Vec<Tile> {
        let mut v: Vec<Tile> = self
            .rings
            .iter()
            .filter(|(_, m)| *m & bit != 0)
            .map(|(t, _)| *t)
            .collect();
        v.sort_by_key(|&(x, z)| (z, x));
        v
    }
}

/// Applies events until `done` holds (or fails after 30 s).
async fn follow_until(
    stream: &mut tonic::Streaming<pb::LifecycleEvent>,
    f: &mut Follower,
    mut on_entered: impl AsyncFnMut(Tile),
    done: impl Fn(&Follower) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done(f) {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, stream.message())
            .await
            .expect("transitions in time")
            .expect("stream ok")
            .expect("stream open");
        let before = f.entered_active.len();
        f.apply(event);
        let new: Vec<Tile> = f.entered_active[before..].to_vec();
        for tile in new {
            on_entered(tile).await;
        }
    }
}

/// The live tiles over HTTP, per ring.
async fn live(server: &TestServer) -> [Vec<Tile>; 3] {
    let (status, body) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(status, 200, "{body}");
    [
        tiles(&body["sim"]),
        tiles(&body["spawn"]),
        tiles(&body["active"]),
    ]
}

#[tokio::test]
async fn a_moving_viewer_gets_cached_tiles_in_order_and_leaves_culled_ones_behind() {
    let grace = Duration::from_millis(1500);
    let server = TestServer::start_with(|c| c.lifecycle.cull_grace = grace).await;
    // A second viewer, parked over HTTP near the start, keeps its tiles alive.
    let (status, parked) = server
        .put_json(
            &format!("{VIEWERS}/parked"),
            &viewer(-300.0, 0.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let parked_active: BTreeSet<Tile> = tiles(&parked["active"]).into_iter().collect();

    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(16);
    tx.send(upsert("walker", 0.0, 0.0)).await.unwrap();
    let mut stream = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect("stream opens")
        .into_inner();
    let mut f = Follower::default();
    let http = server.http.clone();
    let mut misses = Vec::new();
    // A mesh request for every tile as it enters the active ring is a cache hit.
    let mut check_hit = async |tile: Tile| {
        let url = server.url(&format!("/v1/worlds/main/tiles/{}/{}/mesh", tile.0, tile.1));
        let response = http.get(url).send().await.expect("mesh");
        assert_eq!(response.status(), 200);
        let cache = response.headers()["x-terrain-cache"]
            .to_str()
            .unwrap()
            .to_string();
        if cache != "hit" {
            misses.push(tile);
        }
    };
    // Until everything live is announced.
    let settled = |f: &Follower, want: &[Vec<Tile>; 3]| {
        f.ring(1) == want[0] && f.ring(2) == want[1] && f.ring(4) == want[2]
    };
    let want = live(&server).await;
    follow_until(&mut stream, &mut f, &mut check_hit, |f| settled(f, &want)).await;
    // The walker's 5 x 5 active ring and the parked viewer's are all announced.
    assert!(f.ring(4).len() >= 25, "{:?}", f.ring(4));

    // Walk east one tile at a time.
    for step in 1..=6i32 {
        tx.send(upsert("walker", 100.0 * f64::from(step), 0.0))
            .await
            .unwrap();
        // The step is applied when the stream reads it; wait for its rings.
        let deadline = Instant::now() + Duration::from_secs(10);
        let want = loop {
            let want = live(&server).await;
            // The walker's active ring reaches 2.5 tiles beyond its position: x up to
            // 100 * step + 250, the last tile whose interior it overlaps is step + 2.
            if want[2].iter().any(|t| t.0 == i64::from(step) + 2) {
                break want;
            }
            assert!(Instant::now() < deadline, "upsert applied");
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        follow_until(&mut stream, &mut f, &mut check_hit, |f| settled(f, &want)).await;
    }

    // One more step: the tiles that leave with it leave after `sent`, so they are
    // culled no sooner than a grace period after it.
    let before_last = f.left_active.len();
    let sent = Instant::now();
    tx.send(upsert("walker", 700.0, 0.0)).await.unwrap();
    follow_until(&mut stream, &mut f, &mut check_hit, |f| {
        f.left_active.len() >= before_last + 5
    })
    .await;
    let last: Vec<Tile> = f.left_active[before_last..].to_vec();
    // Tiles the walker left behind are culled after the grace period; the parked
    // viewer's are not.
    let left: BTreeSet<Tile> = f.left_active.iter().copied().collect();
    assert!(!left.is_empty());
    assert!(left.is_disjoint(&parked_active), "shared tiles stay alive");
    follow_until(
        &mut stream,
        &mut f,
        async |_| {},
        |f| {
            let culled: BTreeSet<Tile> = f.culled.iter().copied().collect();
            culled == left
        },
    )
    .await;
    for tile in &last {
        let after = f.culled_at[tile].duration_since(sent);
        assert!(after >= grace, "{tile:?} culled early: {after:?}");
    }
    // A culled tile's mesh was released: the next request builds it again.
    let tile = f.culled[0];
    let url = server.url(&format!("/v1/worlds/main/tiles/{}/{}/mesh", tile.0, tile.1));
    let response = server.http.get(url).send().await.unwrap();
    assert_eq!(response.headers()["x-terrain-cache"], "miss");
    // Nothing was generated twice: once everything is announced, every generated
    // tile was announced once, by a transition or (generated before the stream
    // opened) by its first snapshot.
    let want = live(&server).await;
    follow_until(&mut stream, &mut f, &mut check_hit, |f| settled(f, &want)).await;
    assert!(misses.is_empty(), "announced tiles not cached: {misses:?}");
    let generated = server
        .metric(r#"terrain_lifecycle_generated_total{world="main"}"#)
        .await;
    let mut announced: BTreeSet<Tile> = f.entered_active.iter().copied().collect();
    announced.extend(&f.snapshot_active);
    assert_eq!(generated as usize, announced.len());
    assert_eq!(
        server
            .metric(r#"terrain_lifecycle_culled_total{world="main"}"#)
            .await as usize,
        left.len()
    );

    // Closing the stream removes its viewer: only the parked one is left.
    drop(tx);
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, body) = server.get("/v1/worlds/main/live-tiles").await;
        if body["viewers"] == 1 {
            assert_eq!(tiles(&body["active"]), tiles(&parked["active"]));
            break;
        }
        assert!(Instant::now() < deadline, "stream viewers removed: {body}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn refused_stream_updates_are_reported_and_change_nothing() {
    let server = TestServer::start().await;
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(16);
    tx.send(upsert("a", 0.0, 0.0)).await.unwrap();
    let mut stream = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect("stream opens")
        .into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert!(matches!(first.kind, Some(Kind::Snapshot(_))), "{first:?}");
    let mut bad = upsert("a", f64::NAN, 0.0);
    tx.send(bad.clone()).await.unwrap();
    bad.world = "other".into();
    tx.send(bad).await.unwrap();
    tx.send(pb::ViewerUpdate {
        world: String::new(),
        update: Some(Update::Remove("ghost".into())),
    })
    .await
    .unwrap();
    let mut rejected = Vec::new();
    while rejected.len() < 3 {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .expect("in time")
            .unwrap()
            .unwrap();
        if let Some(Kind::Rejected(r)) = event.kind {
            rejected.push((r.field, r.code));
        }
    }
    assert_eq!(
        rejected,
        [
            ("x".to_string(), tonic::Code::InvalidArgument as i32),
            ("world".to_string(), tonic::Code::InvalidArgument as i32),
            ("id".to_string(), tonic::Code::NotFound as i32),
        ]
    );
    // Still one viewer, at the origin.
    let live = client
        .get_live_tiles(pb::GetLiveTilesRequest {
            world: "main".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(live.viewers, 1);
    let active = live.tiles.unwrap().active;
    assert!(active.iter().any(|t| (t.x, t.z) == (0, 0)));
    // A world that does not exist ends the stream at once.
    let (tx2, rx2) = mpsc::channel(1);
    tx2.send(pb::ViewerUpdate {
        world: "nope".into(),
        ..upsert("b", 0.0, 0.0)
    })
    .await
    .unwrap();
    let err = client
        .track_viewers(ReceiverStream::new(rx2))
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
    server.stop().await;
}

#[tokio::test]
async fn readiness_waits_for_the_bake_which_warms_the_spawn_tiles() {
    // 21 x 21 tiles around the spawn point: long enough to catch the server unready.
    let server = TestServer::launch_in(tempfile::tempdir().unwrap(), |c| {
        c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
        c.lifecycle.warm_radius = Some(10);
        c.worlds[0].spawn = vec![[1000.0, -500.0]];
    })
    .await;
    let ready = async || {
        let response = server.http.get(server.url("/readyz")).send().await.unwrap();
        response.status().as_u16()
    };
    assert_eq!(ready().await, 503, "not ready while baking");
    let deadline = Instant::now() + Duration::from_secs(120);
    while ready().await != 200 {
        assert!(Instant::now() < deadline, "baked in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Every tile within 10 of the spawn tile (10, -5) is cached; one beyond is not.
    for (tile, cached) in [
        ((10, -5), "hit"),
        ((0, -15), "hit"),
        ((20, 5), "hit"),
        ((21, -5), "miss"),
    ] {
        let url = server.url(&format!("/v1/worlds/main/tiles/{}/{}/mesh", tile.0, tile.1));
        let response = server.http.get(url).send().await.unwrap();
        assert_eq!(response.headers()["x-terrain-cache"], cached, "{tile:?}");
    }
    let baked = server.metric(r#"terrain_bake_seconds{world="main"}"#).await;
    assert!(baked > 0.0);
    server.stop().await;
}
