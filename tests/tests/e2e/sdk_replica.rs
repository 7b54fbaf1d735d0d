//! `LocalTerrain` against a real server: its heights equal `GetHeight` bit for bit
//! at the same revision, on random points, while zones are registered, replaced
//! and removed, and through a server restart.

use terrain_tests as common;

use common::{TIMEOUT, TestServer, layout_world, random_points, rect};
use terrain_client::{LocalTerrain, ReplicaEvent, TerrainClient};
use terrain_core::layout::Pattern;

/// Asserts the replica answers `GetHeights` at `points` bit for bit, both at the
/// server's current revision.
async fn assert_bit_equal(
    replica: &LocalTerrain,
    client: &mut TerrainClient,
    points: &[(f64, f64)],
) {
    let server = client.heights("main", points).await.expect("heights");
    let rev = tokio::time::timeout(TIMEOUT, replica.wait_for_revision(server.revision))
        .await
        .expect("caught up in time")
        .expect("following");
    assert_eq!(rev, server.revision, "no change in flight");
    let snapshot = replica.snapshot();
    assert_eq!(snapshot.revision(), server.revision);
    let mut mismatches = Vec::new();
    for (&(x, z), want) in points.iter().zip(&server.heights) {
        let got = snapshot.height_at(x, z).expect("in range");
        if got.to_bits() != want.to_bits() {
            mismatches.push((x, z, got, *want));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} points differ at revision {}, e.g. {:?}",
        mismatches.len(),
        points.len(),
        server.revision,
        &mismatches[..mismatches.len().min(5)]
    );
}

/// Points everywhere on the island, and densely in and around the zones that change.
fn probe_points(seed: u64) -> Vec<(f64, f64)> {
    let mut points = random_points(3000, 480.0, seed);
    for (cx, cz) in [(70.0, 92.0), (-40.0, 10.0), (120.0, -60.0), (-200.0, 150.0)] {
        points.extend(
            random_points(500, 20.0, seed ^ 77)
                .into_iter()
                .map(|(x, z)| (cx + x, cz + z)),
        );
    }
    points
}

#[tokio::test]
async fn the_replica_equals_the_server_bit_for_bit_while_zones_change_and_across_a_restart() {
    // The default world: hyperscape with its 28 built-in zones (layered overlap).
    let mut server = TestServer::start_default().await;
    let mut client = server.client().await;
    let replica = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("open");
    assert_eq!(replica.snapshot().terrain().zones().len(), 28);
    assert_eq!(replica.revision(), 28);
    assert_bit_equal(&replica, &mut client, &probe_points(1)).await;

    // Registered, overlapping (layered onto the built-in arena), replaced, removed.
    client
        .register_flat_zone("main", "pad", &rect(-40.0, 10.0, 12.0, 8.0, 0.5))
        .await
        .unwrap();
    client
        .register_flat_zone("main", "over_arena", &rect(72.0, 90.0, 10.0, 10.0, 3.0))
        .await
        .unwrap();
    client
        .register_flat_zone("main", "pad", &rect(-38.0, 12.0, 14.0, 6.0, -1.0))
        .await
        .unwrap();
    client
        .register_flat_zone("main", "gone", &rect(120.0, -60.0, 9.0, 9.0, 2.0))
        .await
        .unwrap();
    client.unregister_flat_zone("main", "gone").await.unwrap();
    assert_bit_equal(&replica, &mut client, &probe_points(2)).await;
    assert!(replica.snapshot().terrain().zones().get("gone").is_none());

    // A burst of changes the follower must chase: fetches may see later states.
    for i in 0..20 {
        let id = format!("burst{}", i % 4);
        let spec = rect(-200.0 + i as f64, 150.0, 8.0, 8.0, 1.0 + i as f64 * 0.1);
        client.register_flat_zone("main", &id, &spec).await.unwrap();
        if i % 5 == 4 {
            client.unregister_flat_zone("main", &id).await.unwrap();
        }
    }
    assert_bit_equal(&replica, &mut client, &probe_points(3)).await;

    // Down, changed by another server over the same data, back up.
    server.stop_in_place().await;
    server
        .elsewhere(
            |_| {},
            |mut other| async move {
                other
                    .register_flat_zone("main", "while_down", &rect(70.0, 92.0, 30.0, 4.0, 2.0))
                    .await
                    .unwrap();
                other.unregister_flat_zone("main", "pad").await.unwrap();
            },
        )
        .await;
    server.restart(|_| {}).await;
    let mut client = server.client().await;
    assert_bit_equal(&replica, &mut client, &probe_points(4)).await;
    assert!(
        replica
            .snapshot()
            .terrain()
            .zones()
            .get("while_down")
            .is_some()
    );

    client
        .register_flat_zone("main", "after", &rect(0.0, 0.0, 5.0, 5.0, 1.0))
        .await
        .unwrap();
    assert_bit_equal(&replica, &mut client, &probe_points(5)).await;
    let (h, zone) = replica.sample_at(0.0, 0.0).expect("in range");
    let served = client.height("main", 0.0, 0.0).await.unwrap();
    assert_eq!((h.to_bits(), zone), (served.height.to_bits(), served.zone));
}

/// Each event arrives once the replica shows it: re-reading inside its bounds when it
/// arrives gives the server's heights at its revision. A registration, a replacement
/// and a removal, in order.
#[tokio::test]
async fn replica_events_arrive_after_the_heights_they_describe() {
    let server = TestServer::start_default().await;
    let mut client = server.client().await;
    let replica = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("open");
    let mut events = replica.events();
    let mut revisions = Vec::new();
    for step in 0..3 {
        let revision = match step {
            0 | 1 => {
                let spec = if step == 0 {
                    rect(-40.0, 10.0, 12.0, 8.0, 4.5)
                } else {
                    rect(-38.0, 12.0, 14.0, 6.0, -3.0)
                };
                let change = client.register_flat_zone("main", "pad", &spec).await;
                change.expect("register").revision
            }
            _ => {
                let change = client.unregister_flat_zone("main", "pad").await;
                change.expect("unregister").revision
            }
        };
        revisions.push(revision);
        let event = tokio::time::timeout(TIMEOUT, events.recv())
            .await
            .expect("an event in time")
            .expect("not lagged");
        let ReplicaEvent::Tiles(event) = event else {
            panic!("expected a tile event, got {event:?}");
        };
        assert_eq!((event.revision, event.zone.as_str()), (revision, "pad"));
        // Read at once, without waiting: the snapshot readers see is the event's.
        let snapshot = replica.snapshot();
        assert_eq!(snapshot.revision(), revision);
        let b = event.bounds;
        let points: Vec<(f64, f64)> = random_points(400, 1.0, revision)
            .into_iter()
            .map(|(u, v)| {
                (
                    b.min_x + (u + 1.0) / 2.0 * (b.max_x - b.min_x),
                    b.min_z + (v + 1.0) / 2.0 * (b.max_z - b.min_z),
                )
            })
            .collect();
        let server = client.heights("main", &points).await.expect("heights");
        assert_eq!(server.revision, revision);
        for (&(x, z), want) in points.iter().zip(&server.heights) {
            assert_eq!(
                snapshot.height_at(x, z).expect("in range").to_bits(),
                want.to_bits(),
                "({x}, {z})"
            );
        }
    }
    assert_eq!(replica.revision(), revisions[2]);
}

#[tokio::test]
async fn an_unknown_world_is_not_found() {
    let server = TestServer::start_default().await;
    assert!(matches!(
        LocalTerrain::open(server.client().await, "nope").await,
        Err(terrain_client::ClientError::NotFound(_))
    ));
}

#[tokio::test]
async fn the_replica_of_a_layout_world_equals_the_server_bit_for_bit() {
    // Rings of clearings joined by planar corridors, as in `worlds/frontier.toml`.
    let server = TestServer::start_default_with(layout_world("main", Pattern::Rings)).await;
    let mut client = server.client().await;
    let replica = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("replica opens");
    // Hubs' clearings and corridors over several chunks, and a zone in a clearing.
    let layout = client
        .layout("main", (-800.0, -800.0), (799.0, 799.0))
        .await
        .expect("layout");
    assert!(layout.hubs.len() >= 16, "{}", layout.hubs.len());
    let hub = &layout.hubs[0];
    let mut points = random_points(4000, 1200.0, 11);
    for h in &layout.hubs {
        points.extend(
            random_points(40, h.r * 1.6, 5)
                .into_iter()
                .map(|(x, z)| (h.x + x, h.z + z)),
        );
    }
    assert_bit_equal(&replica, &mut client, &points).await;
    client
        .register_flat_zone("main", "camp", &rect(hub.x, hub.z, 6.0, 6.0, 1.5))
        .await
        .expect("register");
    assert_bit_equal(&replica, &mut client, &points).await;
}

/// The server comes back on the same address with an empty data directory and takes
/// more changes than the replica had seen (revisions 1..5 against its 3), so a resume
/// by revision alone would be accepted and replay revisions 4 and 5 of another
/// history on top of the old zones. The resume names its epoch instead: the replica
/// rebuilds from the server's current state, says so ([`ReplicaEvent::Rebuilt`]), and
/// answers the server's heights bit for bit, never the old ground.
#[tokio::test]
async fn a_replica_rebuilds_when_the_server_comes_back_with_another_history() {
    // The other history: five zones the restarted server registers from a zone file
    // before it accepts anyone (revisions 1..5), so the replica always resumes
    // against a server past its own revision 3.
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("new.json");
    let new_zones: Vec<serde_json::Value> = [
        (70.0, 92.0),
        (-200.0, 150.0),
        (-40.0, 10.0),
        (10.0, 10.0),
        (0.0, -90.0),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (x, z))| {
        serde_json::json!({"id": format!("new{i}"), "centerX": x + 3.0, "centerZ": z,
            "width": 9.0, "depth": 11.0, "heightOffset": -2.0, "blendRadius": 2.0})
    })
    .collect();
    std::fs::write(&history, serde_json::to_string(&new_zones).unwrap()).unwrap();
    let fresh = move |c: &mut terrain_server::Config| {
        c.worlds = c
            .worlds
            .drain(..)
            .map(|w| {
                let mut w = w.without_zones();
                w.zone_files = vec![terrain_server::config::ZoneFile::Path(history.clone())];
                w
            })
            .collect();
        c.lifecycle.warm_radius = None;
    };
    let mut server = TestServer::start().await;
    let mut client = server.client().await;
    for (i, (x, z)) in [(70.0, 92.0), (-40.0, 10.0), (120.0, -60.0)]
        .into_iter()
        .enumerate()
    {
        client
            .register_flat_zone("main", &format!("old{i}"), &rect(x, z, 20.0, 14.0, 3.0))
            .await
            .unwrap();
    }
    let replica = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("open");
    let mut events = replica.events();
    assert_bit_equal(&replica, &mut client, &probe_points(7)).await;
    assert_eq!(replica.revision(), 3);

    server.restart_empty(fresh).await;
    let mut client = server.client().await;
    let rebuilt = tokio::time::timeout(TIMEOUT, async {
        loop {
            match events.recv().await.expect("events") {
                ReplicaEvent::Rebuilt { revision } => break revision,
                ReplicaEvent::Tiles(e) => {
                    assert!(
                        !e.zone.starts_with("new") || e.revision > 3,
                        "an event of the new history applied on the old state: {e:?}"
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    })
    .await
    .expect("the replica rebuilds");
    assert!(rebuilt >= 3, "rebuilt at {rebuilt}");
    assert_bit_equal(&replica, &mut client, &probe_points(8)).await;
    let zones = replica.snapshot();
    let ids: Vec<&str> = zones
        .terrain()
        .zones()
        .iter()
        .map(|(z, _)| z.id.as_str())
        .collect();
    assert_eq!(ids, ["new0", "new1", "new2", "new3", "new4"]);
    assert!(replica.stopped().is_none());
    server.stop().await;
}

/// A building footprint registered through the SDK reaches the replica with its mask:
/// heights on its tiles, in its L's notch and in its blend ring equal the server's.
#[tokio::test]
async fn a_tile_mask_zone_reaches_the_replica_and_decides_its_heights() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let replica = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("open");
    let tiles: Vec<[i64; 2]> = (-50..-30)
        .flat_map(|x| (0..6).map(move |z| [x, z]))
        .chain((-50..-44).flat_map(|x| (6..16).map(move |z| [x, z])))
        .collect();
    let mut spec = rect(-40.0, 8.0, 24.0, 20.0, 0.5);
    spec.tile_mask = Some(terrain_core::zones::TileMask::new(&tiles).expect("mask"));
    client
        .register_flat_zone("main", "hall", &spec)
        .await
        .expect("registered");
    let listed = client.flat_zone("main", "hall").await.expect("read");
    let mask = listed.zone.expect("zone").zone.tile_mask.expect("a mask");
    assert_eq!(mask.len(), tiles.len());
    let points: Vec<(f64, f64)> = random_points(4000, 20.0, 9)
        .into_iter()
        .map(|(x, z)| (x - 40.0, z + 8.0))
        .collect();
    assert_bit_equal(&replica, &mut client, &points).await;
    let snapshot = replica.snapshot();
    let hall = snapshot
        .terrain()
        .zones()
        .get("hall")
        .expect("the replica holds it");
    assert_eq!(hall.tile_mask.as_ref().map(|m| m.len()), Some(tiles.len()));
    // On a tile: the zone's level; in the notch (inside the rectangle, off the mask,
    // beyond the blend radius of 2 from every tile): not.
    let level = hall.height;
    assert_eq!(snapshot.height_at(-48.5, 12.5).unwrap(), level);
    assert_ne!(snapshot.height_at(-33.5, 14.5).unwrap(), level);
}
