//! `LocalTerrain`'s movement answers against the server's (gRPC through terrain-client),
//! field for field and bit for bit at the same revision: terrain info on thousands of
//! random points, path checks in both modes on random polylines, and path searches, on a
//! hyperscape world under the original's rule (with the 28 reference zones), a layered
//! one under `slope` with zones that decide movement registered, and a voxel world under
//! `block-step` with plateaus (one- and two-block rises) and a dry pit below the sea.

use terrain_tests as common;

use std::path::PathBuf;

use common::{TIMEOUT, TestServer, random_points, rect};
use terrain_client::{
    LocalTerrain, PathChecked, PathFound, PathMode, TerrainClient, TerrainInfos, ZoneHeight,
    ZoneSpec,
};
use terrain_core::{GeneratorKind, Overlap, walk::Reason};
use terrain_server::config::{WorldConfig, ZoneFile};

fn reference_zones() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/hyperscape/flat_zones.json")
}

fn worlds(c: &mut terrain_server::Config) {
    let mut reference = WorldConfig::new("ref", GeneratorKind::Hyperscape, 0);
    reference.overlap = Overlap::Hyperscape;
    reference.zone_files = vec![ZoneFile::Path(reference_zones())];
    let mut voxel = WorldConfig::new("blocks", GeneratorKind::Voxel, 3);
    voxel.voxel = Some(Default::default());
    c.worlds = vec![
        reference,
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
        voxel,
    ];
    c.lifecycle.warm_radius = None;
}

/// A voxel plateau at `height` blocks with a sheer edge.
fn plateau(x: f64, z: f64, w: f64, d: f64, height: f64) -> ZoneSpec {
    ZoneSpec {
        height: ZoneHeight::Absolute(height),
        blend_radius: 0.0,
        ..rect(x, z, w, d, 0.0)
    }
}

/// A splitmix64 stream of numbers in `[-span/2, span/2)`.
fn stream(seed: u64) -> impl FnMut(f64) -> f64 {
    let mut s = seed;
    move |span| {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * span
    }
}

fn bits_of_path(path: &[(f64, f64)]) -> Vec<(u64, u64)> {
    path.iter()
        .map(|p| (p.0.to_bits(), p.1.to_bits()))
        .collect()
}

fn assert_infos_equal(world: &str, points: &[(f64, f64)], got: &TerrainInfos, want: &TerrainInfos) {
    assert_eq!(got.revision, want.revision, "{world}");
    assert_eq!(got.points.len(), want.points.len(), "{world}");
    for ((p, g), w) in points.iter().zip(&got.points).zip(&want.points) {
        assert_eq!(
            g.height.to_bits(),
            w.height.to_bits(),
            "{world} {p:?} height"
        );
        assert_eq!(g.slope.to_bits(), w.slope.to_bits(), "{world} {p:?} slope");
        assert_eq!(
            (&g.biome, g.underwater, g.walkable(), g.reason),
            (&w.biome, w.underwater, w.walkable(), w.reason),
            "{world} {p:?}"
        );
        assert_eq!(
            g.normal.map(f64::to_bits),
            w.normal.map(f64::to_bits),
            "{world} {p:?} normal"
        );
        let difficulty = |i: &terrain_client::PointInfo| {
            i.difficulty.as_ref().map(|d| {
                (
                    d.level,
                    d.scalar.to_bits(),
                    d.biome.clone(),
                    d.tier,
                    d.is_safe,
                )
            })
        };
        assert_eq!(difficulty(g), difficulty(w), "{world} {p:?} difficulty");
    }
}

fn assert_checks_equal(what: &str, got: &PathChecked, want: &PathChecked) {
    assert_eq!(got.revision, want.revision, "{what}");
    let bits = |c: &PathChecked| c.blocked.map(|((x, z), r)| ((x.to_bits(), z.to_bits()), r));
    assert_eq!(bits(got), bits(want), "{what}");
    assert_eq!(bits_of_path(&got.path), bits_of_path(&want.path), "{what}");
}

fn assert_found_equal(what: &str, got: &PathFound, want: &PathFound) {
    assert_eq!(got.revision, want.revision, "{what}");
    assert_eq!(
        got.found.as_ref().map(|w| bits_of_path(w)),
        want.found.as_ref().map(|w| bits_of_path(w)),
        "{what}"
    );
    assert_eq!(got.length.to_bits(), want.length.to_bits(), "{what}");
    assert_eq!(got.expanded, want.expanded, "{what}");
}

/// Compares the replica of `world` with the server on `points`, `polylines` random
/// polylines of segments up to `reach` metres around `centre`, and `searches` searches;
/// answers how many checks were blocked for each reason.
async fn compare(
    client: &mut TerrainClient,
    replica: &LocalTerrain,
    world: &str,
    points: &[(f64, f64)],
    (centre, span, reach): ((f64, f64), f64, f64),
    (polylines, searches): (usize, usize),
) -> [usize; 5] {
    let server = client
        .terrain_info(world, points)
        .await
        .expect("terrain info");
    assert_eq!(
        replica.revision(),
        server.revision,
        "{world}: nothing in flight"
    );
    let local = replica.terrain_info(points).expect("local terrain info");
    assert_infos_equal(world, points, &local, &server);

    let mut next = stream(world.len() as u64 * 7919);
    let mut reasons = [0usize; 5];
    for i in 0..polylines {
        let mut line = vec![(centre.0 + next(span), centre.1 + next(span))];
        for _ in 0..1 + i % 3 {
            let &(x, z) = line.last().unwrap();
            line.push((x + next(2.0 * reach), z + next(2.0 * reach)));
        }
        // Some on tile centres and corners, where the walk takes both sides.
        if i % 5 == 0 {
            line = line
                .iter()
                .map(|&(x, z)| (x.floor() + 0.5, z.floor() + 0.5))
                .collect();
        } else if i % 5 == 1 {
            line = line.iter().map(|&(x, z)| (x.floor(), z.floor())).collect();
        }
        for mode in [PathMode::Hyperscape, PathMode::Exact] {
            let want = client.check_path(world, &line, mode).await.expect("check");
            let got = replica.check_path(&line, mode).expect("local check");
            assert_checks_equal(&format!("{world} {mode:?} {line:?}"), &got, &want);
            let k = match want.blocked {
                None => 0,
                Some((_, Reason::Water)) => 1,
                Some((_, Reason::Slope)) => 2,
                Some((_, Reason::Zone)) => 3,
                Some((_, Reason::Step)) => 4,
            };
            reasons[k] += 1;
        }
    }
    let mut found = 0;
    for _ in 0..searches {
        let from = (centre.0 + next(span), centre.1 + next(span));
        let to = (from.0 + next(2.0 * reach), from.1 + next(2.0 * reach));
        let want = client
            .find_path(world, from, to, Some(20_000), None)
            .await
            .expect("find");
        let got = replica
            .find_path(from, to, Some(20_000), None)
            .expect("local find");
        assert_found_equal(&format!("{world} {from:?} -> {to:?}"), &got, &want);
        found += usize::from(want.found.is_ok());
    }
    assert!(found > 0, "{world}: no search found a path");
    eprintln!(
        "{world}: {} points, {} checks (clear, water, slope, zone, step: {reasons:?}), \
         {searches} searches ({found} found)",
        points.len(),
        2 * polylines
    );
    reasons
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_movement_answers_equal_the_server_s_bit_for_bit() {
    let server = TestServer::start_with(worlds).await;
    let mut client = server.client().await;

    // The original's rule over its own zones.
    let reference = LocalTerrain::open(client.clone(), "ref")
        .await
        .expect("open ref");
    assert_eq!(reference.walk_rule().unwrap().name(), "hyperscape");
    let points = random_points(3000, 480.0, 11);
    let r = compare(
        &mut client,
        &reference,
        "ref",
        &points,
        ((0.0, 0.0), 800.0, 25.0),
        (300, 20),
    )
    .await;
    assert!(r[0] > 0 && r[1] > 0 && r[2] > 0, "ref: {r:?}");

    // `slope`, with a building and a floor registered after the replica opened.
    let main = LocalTerrain::open(client.clone(), "main")
        .await
        .expect("open main");
    let hall = ZoneSpec {
        walkable: Some(false),
        ..rect(-30.0, 20.0, 12.0, 10.0, 0.5)
    };
    let floor = ZoneSpec {
        walkable: Some(true),
        ..rect(30.0, -20.0, 16.0, 6.0, 4.0)
    };
    client
        .register_flat_zone("main", "hall", &hall)
        .await
        .unwrap();
    let rev = client
        .register_flat_zone("main", "floor", &floor)
        .await
        .unwrap()
        .revision;
    tokio::time::timeout(TIMEOUT, main.wait_for_revision(rev))
        .await
        .expect("caught up")
        .expect("following");
    let mut points = random_points(2000, 480.0, 12);
    points.extend(random_points(1000, 40.0, 13));
    let r = compare(
        &mut client,
        &main,
        "main",
        &points,
        ((0.0, 0.0), 100.0, 20.0),
        (300, 20),
    )
    .await;
    assert!(r[0] > 0 && r[3] > 0, "main: {r:?}");

    // `block-step`: plateaus at 40, 42 (a two-block rise) and a stair at 41, a pit.
    let blocks = LocalTerrain::open(client.clone(), "blocks")
        .await
        .expect("open blocks");
    assert_eq!(blocks.walk_rule().unwrap().name(), "block-step");
    for (id, spec) in [
        ("a", plateau(5.0, 5.0, 10.0, 10.0, 40.0)),
        ("b", plateau(15.0, 5.0, 10.0, 10.0, 42.0)),
        ("c", plateau(10.0, 12.0, 20.0, 4.0, 41.0)),
        ("pit", {
            let mut pit = plateau(40.0, -30.0, 12.0, 8.0, 20.0);
            pit.blend_radius = 3.0;
            pit
        }),
    ] {
        let rev = client
            .register_flat_zone("blocks", id, &spec)
            .await
            .unwrap()
            .revision;
        tokio::time::timeout(TIMEOUT, blocks.wait_for_revision(rev))
            .await
            .expect("caught up")
            .expect("following");
    }
    let mut points = random_points(2000, 200.0, 14);
    points.extend(random_points(1000, 50.0, 15));
    let r = compare(
        &mut client,
        &blocks,
        "blocks",
        &points,
        ((10.0, 0.0), 120.0, 15.0),
        (400, 20),
    )
    .await;
    assert!(r[0] > 0 && r[1] > 0 && r[4] > 0, "blocks: {r:?}");
    // The plateaus' two-block rise, locally and on the server.
    let across = [(5.5, 5.5), (15.5, 5.5)];
    let want = client
        .check_path("blocks", &across, PathMode::Exact)
        .await
        .unwrap();
    assert_eq!(want.blocked, Some(((10.5, 5.5), Reason::Step)));
    assert_checks_equal(
        "plateaus",
        &blocks.check_path(&across, PathMode::Exact).unwrap(),
        &want,
    );
    server.stop().await;
}
