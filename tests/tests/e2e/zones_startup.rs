//! Start-up zones: the default world serves the island's 28 stations and arena zones
//! (compiled in), a world can name a manifest directory and zone files, restarts take
//! no new revisions for unchanged zones, changed ones are replaced, and a bad source
//! stops start-up naming its key.

use terrain_tests as common;

use std::path::Path;

use common::*;
use terrain_core::{
    Generator, Overlap, generator::hyperscape::manifest_zones, zones::parse_zone_file,
};
use terrain_server::{
    Config, Server,
    config::{Manifests, ZoneFile},
};

const STATIONS: &str = include_str!("../../../worlds/hyperscape/manifests/stations.json");
const AREAS: &str = include_str!("../../../worlds/hyperscape/manifests/world-areas.json");
const BOUNDS: &str = include_str!("../../../worlds/hyperscape/manifests/model-bounds.json");
const FLOORS: &str = include_str!("../../../worlds/hyperscape/zones/duel-arena-floors.json");

/// The 28 zones of the default world, resolved, in registration order.
fn island_zones() -> Vec<terrain_core::FlatZone> {
    let core = main_generator();
    let mut named = manifest_zones(STATIONS, AREAS, Some(BOUNDS)).expect("manifests");
    named.extend(parse_zone_file(FLOORS).expect("floors"));
    named
        .into_iter()
        .map(|n| {
            let base = core.procedural(n.spec.center_x, n.spec.center_z);
            n.spec.resolve(n.id, base)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_world_serves_the_island_zones() {
    let server = TestServer::start_default().await;
    let zones = island_zones();
    assert_eq!(zones.len(), 28);
    let ids: Vec<_> = zones.iter().map(|z| z.id.clone()).collect();
    assert_eq!(server.zone_ids("main").await, ids, "registration order");
    assert_eq!(server.revision("main").await, 28);
    let (_, worlds) = server.get("/v1/worlds").await;
    assert_eq!(worlds["worlds"][0]["overlap"], "layered");
    assert_eq!(worlds["worlds"][0]["zones"], 28);

    // Heights are the game's 28 zones under the default (layered) overlap rule.
    let terrain = terrain(&main_generator(), Overlap::Layered, &zones);
    for &(x, z) in &probe_points(&zones) {
        let (status, body) = server
            .get(&format!("/v1/worlds/main/height?x={x}&z={z}"))
            .await;
        assert_eq!(status, 200, "{body}");
        let want = terrain.sample(x, z);
        assert_same(
            num(&body["height"]),
            want.height,
            &format!("height at ({x}, {z})"),
        );
        assert_eq!(
            body["zone"].as_str(),
            want.zone.map(|(z, _)| z.id.as_str()),
            "at ({x}, {z})"
        );
    }

    // A restart registers the same zones again: all no-ops, no new revisions.
    let data = server.stop_keeping_data().await;
    let server = TestServer::start_in(data, |_| {}).await;
    assert_eq!(server.revision("main").await, 28);
    assert_eq!(server.zone_ids("main").await, ids);
    server.stop().await;
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const ARENAS: &str = r#"[
  {"id": "pit", "centerX": 400, "centerZ": -300, "radius": 12, "height": 8, "blendRadius": 3},
  {"id": "stage", "centerX": -350, "centerZ": 250, "width": 16, "depth": 10, "heightOffset": 0.5, "blendRadius": 2, "carveInset": 1}
]"#;

/// A layered world with manifests from a directory and one zone file.
fn config_with(files: &Path) -> impl FnOnce(&mut Config) {
    let manifests = files.join("manifests");
    let zone_file = files.join("zones/arenas.json");
    move |c| {
        let world = &mut c.worlds[0];
        world.overlap = Overlap::Layered;
        world.manifests = Some(Manifests::Dir(manifests));
        world.zone_files = vec![ZoneFile::Path(zone_file)];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manifest_directories_and_zone_files_register_at_start_up() {
    let files = tempfile::tempdir().expect("tempdir");
    write(&files.path().join("manifests/stations.json"), STATIONS);
    write(&files.path().join("manifests/world-areas.json"), AREAS);
    // No model-bounds.json: model-sized stations get a 1x1 footprint.
    write(&files.path().join("zones/arenas.json"), ARENAS);
    let data = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start_in(data, config_with(files.path())).await;
    let mut want: Vec<_> = manifest_zones(STATIONS, AREAS, None)
        .expect("manifests")
        .into_iter()
        .map(|n| n.id)
        .collect();
    want.extend(["pit".to_string(), "stage".to_string()]);
    assert_eq!(server.zone_ids("main").await, want);
    let n = want.len() as u64;
    assert_eq!(server.revision("main").await, n);
    let (_, worlds) = server.get("/v1/worlds").await;
    assert_eq!(worlds["worlds"][0]["overlap"], "layered");

    // Restart with one zone changed and one added: replaced and registered, nothing else.
    let data = server.stop_keeping_data().await;
    let changed = ARENAS.replace(r#""height": 8"#, r#""height": 9"#).replace(
        "\n]",
        ",\n  {\"id\": \"ring\", \"centerX\": 0, \"centerZ\": 600, \"radius\": 4, \"height\": 2, \"blendRadius\": 1}\n]",
    );
    write(&files.path().join("zones/arenas.json"), &changed);
    let server = TestServer::start_in(data, config_with(files.path())).await;
    assert_eq!(server.revision("main").await, n + 2);
    let (_, pit) = server.get("/v1/worlds/main/flat-zones/pit").await;
    assert_eq!(
        (
            pit["zone"]["height"].as_f64(),
            pit["zone"]["revision"].as_u64()
        ),
        (Some(9.0), Some(n + 1))
    );
    let (_, ring) = server.get("/v1/worlds/main/flat-zones/ring").await;
    assert_eq!(ring["zone"]["revision"], n + 2);
    let data = server.stop_keeping_data().await;

    // A bad zone file stops start-up, naming its key and the entry.
    write(
        &files.path().join("zones/arenas.json"),
        r#"[{"id": "x", "centerX": 0, "centerZ": 0, "radius": -1, "height": 0, "blendRadius": 0}]"#,
    );
    let err = start_error(data.path(), config_with(files.path())).await;
    assert!(err.starts_with("worlds[0].zones[0]: "), "{err}");
    assert!(err.contains("radius"), "{err}");
    std::fs::remove_file(files.path().join("manifests/stations.json")).expect("rm");
    let err = start_error(data.path(), config_with(files.path())).await;
    assert!(err.starts_with("worlds[0].manifests: "), "{err}");
    assert!(err.contains("stations.json"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_zones_respect_the_limits() {
    let data = tempfile::tempdir().expect("tempdir");
    let err = start_error(data.path(), |c| c.limits.max_zones_per_world = 10).await;
    assert!(err.starts_with("worlds[0].manifests: "), "{err}");
    assert!(err.contains("zones: "), "{err}");
    // The refused start above stored the zones it registered before the limit: a new
    // data_dir shows the manifests' own refusal.
    let fresh = tempfile::tempdir().expect("tempdir");
    let err = start_error(fresh.path(), |c| c.limits.max_zone_size = 20.0).await;
    assert!(err.starts_with("worlds[0].manifests: "), "{err}");
    // Stored zones pass the same check at start-up: a limit lowered below a stored zone
    // stops the start naming the world, the zone and the field.
    let err = start_error(data.path(), |c| c.limits.max_zone_size = 20.0).await;
    assert!(
        err.contains(r#"zone store: world "main": zone "duel_arena_1": width: must be at most 20"#),
        "{err}"
    );
}

/// The start-up error of `Config::default()` as changed by `edit`, as text.
async fn start_error(data: &Path, edit: impl FnOnce(&mut Config)) -> String {
    let mut config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        data_dir: data.join("data"),
        ..Config::default()
    };
    edit(&mut config);
    match Server::bind(config).await {
        Ok(_) => panic!("start-up should fail"),
        Err(err) => err.to_string(),
    }
}
