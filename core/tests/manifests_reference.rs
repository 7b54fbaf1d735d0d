//! Zones derived from the game's manifests (docs/src/reference/zones.md, "Zones from the game's manifests") against the original: the
//! February 2026 manifests plus the duel-arena floor zone file give exactly the 28
//! zones of `flat_zones.json`, in the game's registration order, and registered in
//! that order they reproduce `flat_heights_stations.csv`. Also the footprint, order
//! and default rules on small synthetic manifests, and error messages that name the
//! entry and the field.

use terrain_core::generator::hyperscape::{Hyperscape, manifest_zones};
use terrain_core::zones::{
    FlatZone, ManifestError, NamedZone, Reach, Shape, ZoneDoc, ZoneHeight, parse_zone_file,
};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const STATIONS: &str = include_str!("data/hyperscape/manifests/stations.json");
const WORLD_AREAS: &str = include_str!("data/hyperscape/manifests/world-areas.json");
const MODEL_BOUNDS: &str = include_str!("data/hyperscape/manifests/model-bounds.json");
const FLOORS: &str = include_str!("../../worlds/hyperscape/zones/duel-arena-floors.json");
const REFERENCE: &str = include_str!("data/hyperscape/flat_zones.json");
const HEIGHTS: &str = include_str!("data/hyperscape/flat_heights_stations.csv");

/// The manifest zones, then the visual floors: the game's registration order.
fn runtime_zones() -> Vec<NamedZone> {
    let mut zones = manifest_zones(STATIONS, WORLD_AREAS, Some(MODEL_BOUNDS)).expect("manifests");
    zones.extend(parse_zone_file(FLOORS).expect("floors"));
    zones
}

fn resolve(zones: &[NamedZone]) -> Vec<FlatZone> {
    let g = Hyperscape::new(0);
    zones
        .iter()
        .map(|z| {
            z.spec
                .resolve(&z.id, g.procedural(z.spec.center_x, z.spec.center_z))
        })
        .collect()
}

fn terrain(zones: Vec<FlatZone>) -> Terrain {
    let mut set = ZoneSet::new(Overlap::Hyperscape, 100.0);
    for (i, z) in zones.into_iter().enumerate() {
        set.insert(z, i as u64 + 1);
    }
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("generator");
    Terrain::new(generator, set)
}

fn ids(zones: &[NamedZone]) -> Vec<&str> {
    zones.iter().map(|z| z.id.as_str()).collect()
}

/// `(x, z, height, mode, zone)` rows of the station table.
fn table() -> Vec<(f64, f64, f64, String, String)> {
    let num = |s: &str| s.parse::<f64>().unwrap_or_else(|e| panic!("{s:?}: {e}"));
    HEIGHTS
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                num(f[0]),
                num(f[1]),
                num(f[2]),
                f[3].to_string(),
                f[4].to_string(),
            )
        })
        .collect()
}

fn mode(t: &Terrain, x: f64, z: f64) -> (f64, &'static str, String) {
    let s = t.sample(x, z);
    match s.zone {
        None => (s.height, "procedural", String::new()),
        Some((zone, Reach::Core { .. })) => (s.height, "core", zone.id.clone()),
        Some((zone, Reach::Blend { .. })) => (s.height, "blend", zone.id.clone()),
    }
}

#[test]
fn derived_zones_are_the_28_reference_zones() {
    let docs: Vec<ZoneDoc> = serde_json::from_str(REFERENCE).expect("flat_zones.json");
    let derived = runtime_zones();
    let resolved = resolve(&derived);
    assert_eq!(derived.len(), 28);
    let mut want: Vec<&str> = docs.iter().filter_map(|d| d.id.as_deref()).collect();
    let mut got = ids(&derived);
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    for doc in &docs {
        let id = doc.id.as_deref().expect("reference id");
        let (named, zone) = derived
            .iter()
            .zip(&resolved)
            .find(|(n, _)| n.id == id)
            .expect("derived");
        let spec = &named.spec;
        let shape = Shape::Rect {
            width: doc.width.expect("width"),
            depth: doc.depth.expect("depth"),
        };
        assert_eq!(
            (spec.center_x, spec.center_z),
            (doc.center_x, doc.center_z),
            "{id}"
        );
        assert_eq!(spec.shape, shape, "{id}");
        assert_eq!(spec.blend_radius, doc.blend_radius, "{id}");
        assert_eq!(spec.carve_inset, doc.carve_inset, "{id}");
        assert_eq!(spec.priority, 0, "{id}");
        assert!(matches!(spec.height, ZoneHeight::Offset(_)), "{id}");
        let want_h = doc.height.expect("height");
        assert!(
            (zone.height - want_h).abs() <= 1e-9,
            "{id}: {} vs {want_h}",
            zone.height
        );
    }
}

/// §9.1: built-in `duel_arena` comes before `central_haven`; per area the stations
/// (manifest order), then the flat zones; the floor file after the manifests.
#[test]
fn zones_come_in_the_original_registration_order() {
    let mut want = vec!["station_duel_arena_bank"];
    let arenas: Vec<String> = (1..=6).map(|k| format!("duel_arena_{k}")).collect();
    want.extend(arenas.iter().map(String::as_str));
    want.extend(["duel_arena_lobby", "duel_arena_hospital"]);
    let stations: Vec<String> = [
        "bank",
        "furnace",
        "anvil",
        "altar",
        "range",
        "air_altar",
        "mind_altar",
        "water_altar",
        "earth_altar",
        "fire_altar",
        "chaos_altar",
    ]
    .iter()
    .map(|s| format!("station_{s}_spawn"))
    .collect();
    want.extend(stations.iter().map(String::as_str));
    let floors: Vec<String> = (1..=6).map(|k| format!("duel_arena_floor_{k}")).collect();
    want.extend(floors.iter().map(String::as_str));
    want.extend(["duel_lobby_floor", "duel_hospital_floor"]);
    assert_eq!(ids(&runtime_zones()), want);
}

#[test]
fn runtime_order_reproduces_the_station_table() {
    let t = terrain(resolve(&runtime_zones()));
    let rows = table();
    assert!(rows.len() > 300, "{}", rows.len());
    for (x, z, want, want_mode, want_zone) in rows {
        let (h, m, zone) = mode(&t, x, z);
        assert!((h - want).abs() <= 1e-9, "({x}, {z}): {h} vs {want}");
        assert_eq!(
            (m, zone.as_str()),
            (want_mode.as_str(), want_zone.as_str()),
            "({x}, {z})"
        );
    }
}

/// The spec: the file order of `flat_zones.json` differs from the runtime order, but no
/// tie depends on it. Every pair of overlapping zones comes in the same relative order
/// in both, so the deciding zone and its reach agree everywhere, not only on the table.
#[test]
fn file_order_and_runtime_order_decide_alike_everywhere() {
    let docs: Vec<ZoneDoc> = serde_json::from_str(REFERENCE).expect("flat_zones.json");
    let runtime = resolve(&runtime_zones());
    let file_order: Vec<FlatZone> = docs
        .iter()
        .map(|d| {
            let id = d.id.as_deref().expect("id");
            runtime
                .iter()
                .find(|z| z.id == id)
                .expect("derived")
                .clone()
        })
        .collect();
    let (a, b) = (terrain(runtime), terrain(file_order));
    for i in 0..=880 {
        for j in 0..=960 {
            let (x, z) = (-40.0 + i as f64 * 0.25, -70.0 + j as f64 * 0.25);
            let (za, zb) = (a.zones().zone_at(x, z), b.zones().zone_at(x, z));
            let key = |s: Option<(&FlatZone, Reach)>| s.map(|(zone, r)| (zone.id.clone(), r));
            assert_eq!(key(za), key(zb), "({x}, {z})");
        }
    }
}

/// But ties do depend on the order in general: at (28.5, -55) the air and chaos altars
/// (same tile, same blend radius) both reach with blend factor 2/3, and the zone
/// registered first wins, as in the original. Reversing the order moves the ground by 3.4 cm there.
#[test]
fn ties_between_overlapping_zones_depend_on_registration_order() {
    let zones = resolve(&runtime_zones());
    let forward = terrain(zones.clone());
    let backward = terrain(zones.into_iter().rev().collect());
    let (f, b) = (forward.sample(28.5, -55.0), backward.sample(28.5, -55.0));
    let (fz, fr) = f.zone.expect("a zone reaches");
    let (bz, br) = b.zone.expect("a zone reaches");
    assert_eq!(fz.id, "station_air_altar_spawn");
    assert_eq!(bz.id, "station_chaos_altar_spawn");
    assert_eq!(fr, br);
    assert!(matches!(fr, Reach::Blend { factor } if (factor - 2.0 / 3.0).abs() < 1e-15));
    assert!(
        (f.height - b.height).abs() > 0.03,
        "{} vs {}",
        f.height,
        b.height
    );
}

/// §9.4: the visual floors duplicate the manifest's duel zones and change no height.
#[test]
fn visual_floors_change_no_height() {
    let manifest = manifest_zones(STATIONS, WORLD_AREAS, Some(MODEL_BOUNDS)).expect("manifests");
    let without = terrain(resolve(&manifest));
    let with = terrain(resolve(&runtime_zones()));
    for i in 0..=500 {
        for j in 0..=500 {
            let (x, z) = (40.0 + i as f64 * 0.25, 40.0 + j as f64 * 0.25);
            let (a, b) = (without.sample(x, z).height, with.sample(x, z).height);
            assert_eq!(a.to_bits(), b.to_bits(), "({x}, {z})");
        }
    }
}

#[test]
fn without_model_bounds_every_station_is_one_tile() {
    let zones = manifest_zones(STATIONS, WORLD_AREAS, None).expect("manifests");
    let size = |id: &str| zones.iter().find(|z| z.id == id).expect(id).spec.shape;
    // 1 + 2 * padding: the furnace pads 2.5 m, runecrafting altars 3 m.
    assert_eq!(
        size("station_furnace_spawn"),
        Shape::Rect {
            width: 6.0,
            depth: 6.0
        }
    );
    assert_eq!(
        size("station_air_altar_spawn"),
        Shape::Rect {
            width: 7.0,
            depth: 7.0
        }
    );
    assert_eq!(
        size("station_bank_spawn"),
        Shape::Rect {
            width: 5.0,
            depth: 5.0
        }
    );
}

/// The world data under `worlds/hyperscape/manifests/` is the reference copy.
#[test]
fn world_manifests_are_the_reference_manifests() {
    let world = [
        include_str!("../../worlds/hyperscape/manifests/stations.json"),
        include_str!("../../worlds/hyperscape/manifests/world-areas.json"),
        include_str!("../../worlds/hyperscape/manifests/model-bounds.json"),
    ];
    assert!(world == [STATIONS, WORLD_AREAS, MODEL_BOUNDS]);
}

// === synthetic manifests ===

fn area(stations: &str) -> String {
    format!(r#"{{"starterTowns": {{"town": {{"id": "town", "stations": [{stations}]}}}}}}"#)
}

fn station(id: &str, kind: &str) -> String {
    format!(r#"{{"id": "{id}", "type": "{kind}", "position": {{"x": 10, "y": 0, "z": -20}}}}"#)
}

/// The zone sizes of one station per type of `types` (a stations.json array body).
fn sizes(types: &str, kinds: &[&str], bounds: Option<&str>) -> Vec<(String, Shape, f64)> {
    let stations = format!(r#"{{"stations": [{types}]}}"#);
    let placed: Vec<String> = kinds.iter().map(|k| station(k, k)).collect();
    let zones = manifest_zones(&stations, &area(&placed.join(",")), bounds).expect("zones");
    zones
        .into_iter()
        .map(|z| (z.id, z.spec.shape, z.spec.blend_radius))
        .collect()
}

#[test]
fn footprints_follow_the_original_rules() {
    let types = r#"
        {"type": "plain", "flattenGround": true},
        {"type": "named", "flattenGround": true, "footprint": "massive", "flattenPadding": 0},
        {"type": "explicit", "flattenGround": true, "footprint": {"width": 2, "depth": 4},
         "flattenPadding": 1, "model": "asset://a.glb"},
        {"type": "half", "flattenGround": true, "model": "asset://a.glb", "modelScale": 1.25},
        {"type": "huge", "flattenGround": true, "model": "asset://big.glb"},
        {"type": "clamped", "flattenGround": true, "model": "asset://wide.glb", "modelScale": 2},
        {"type": "missing", "flattenGround": true, "model": "asset://none.glb"},
        {"type": "off", "flattenGround": false},
        {"type": "unset"},
        {"type": "twice", "flattenGround": false},
        {"type": "twice", "flattenGround": true, "flattenPadding": 0.5, "flattenBlendRadius": 4}"#;
    let bounds = r#"{"models": [
        {"assetPath": "asset://a.glb", "dimensions": {"x": 2, "y": 9, "z": 0.3}},
        {"assetPath": "asset://big.glb", "dimensions": {"x": 100.5, "y": 1, "z": 1}},
        {"assetPath": "asset://wide.glb", "dimensions": {"x": 7.3, "y": 1, "z": 0.74}}]}"#;
    let kinds = [
        "plain", "named", "explicit", "half", "huge", "clamped", "missing", "off", "unset",
        "unknown", "twice",
    ];
    let rect = |width, depth| Shape::Rect { width, depth };
    let want = vec![
        ("station_plain".to_string(), rect(1.6, 1.6), 0.5),
        ("station_named".to_string(), rect(3.0, 3.0), 0.5),
        ("station_explicit".to_string(), rect(4.0, 6.0), 0.5),
        // 2 * 1.25 = 2.5 rounds half up to 3; 0.3 * 1.25 rounds to 0, clamped to 1.
        ("station_half".to_string(), rect(3.6, 1.6), 0.5),
        ("station_huge".to_string(), rect(1.6, 1.6), 0.5),
        // 14.6 tiles clamp to 10; 1.48 rounds to 1.
        ("station_clamped".to_string(), rect(10.6, 1.6), 0.5),
        ("station_missing".to_string(), rect(1.6, 1.6), 0.5),
        ("station_twice".to_string(), rect(2.0, 2.0), 4.0),
    ];
    assert_eq!(sizes(types, &kinds, Some(bounds)), want);
    // Without the bounds manifest, model footprints fall back to 1x1.
    let unloaded = sizes(types, &["half", "clamped"], None);
    assert_eq!(unloaded[0].1, rect(1.6, 1.6));
    assert_eq!(unloaded[1].1, rect(1.6, 1.6));
}

/// §9.1 on a synthetic manifest: built-in keys keep their slot, new keys append in
/// group order (document order, not sorted), a later group's definition replaces an
/// earlier one in place, integer-like keys come first (as in JavaScript objects), and
/// an area with flat zones but no stations still counts.
#[test]
fn areas_merge_in_the_original_order() {
    let stations = r#"{"stations": [{"type": "t", "flattenGround": true}]}"#;
    let st = |id: &str| format!(r#"{{"stations": [{}]}}"#, station(id, "t"));
    let areas = format!(
        r#"{{
        "specialAreas": {{"zeta": {zeta}, "duel_arena": {duel}, "alpha": {late_alpha}}},
        "starterTowns": {{"zulu": {zulu}, "alpha": {alpha}, "7": {seven}}},
        "level2Areas": null,
        "level3Areas": {{"flat": {{"flatZones": [{{"id": "f", "centerX": 1, "centerZ": 2,
            "width": 3, "depth": 4, "blendRadius": 0.5, "height": 12.5, "heightOffset": 9}}]}},
            "10": {ten}}},
        "other": 5
    }}"#,
        zeta = st("zeta"),
        duel = st("duel"),
        late_alpha = st("alpha_late"),
        zulu = st("zulu"),
        alpha = st("alpha"),
        seven = st("seven"),
        ten = st("ten"),
    );
    let zones = manifest_zones(stations, &areas, None).expect("zones");
    let want = [
        "station_seven",
        "station_ten",
        "station_duel",
        "station_zulu",
        "station_alpha_late",
        "f",
        "station_zeta",
    ];
    assert_eq!(ids(&zones), want);
    let f = zones.iter().find(|z| z.id == "f").expect("f");
    assert_eq!(
        f.spec.height,
        ZoneHeight::Absolute(12.5),
        "explicit height wins"
    );
    assert_eq!(f.spec.carve_inset, None);
}

// === errors ===

fn manifest_error(stations: &str, areas: &str, bounds: Option<&str>) -> String {
    match manifest_zones(stations, areas, bounds) {
        Ok(z) => panic!("expected an error, got {} zones", z.len()),
        Err(e) => e.to_string(),
    }
}

fn zone_file_error(json: &str) -> String {
    let err: ManifestError = parse_zone_file(json).expect_err("expected an error");
    assert_eq!(err.file(), "zone file");
    err.to_string()
}

#[test]
fn manifest_errors_name_the_file_entry_and_field() {
    let ok_areas = area(&station("a", "t"));
    let padding = r#"{"stations": [{"type": "x"}, {"type": "t", "flattenPadding": "2"}]}"#;
    assert_eq!(
        manifest_error(padding, &ok_areas, None),
        "stations.json: stations[1].flattenPadding: expected a number, got a string"
    );
    let e = manifest_error(r#"{"stations": [}"#, &ok_areas, None);
    assert!(e.starts_with("stations.json: not valid JSON: "), "{e}");
    let e = manifest_error(STATIONS, "[1, 2", None);
    assert!(e.starts_with("world-areas.json: not valid JSON: "), "{e}");
    let bad_bounds = r#"{"models": [{"assetPath": "asset://models/stations/anvil/anvil.glb",
        "dimensions": {"x": "wide", "z": 1}}]}"#;
    assert_eq!(
        manifest_error(STATIONS, WORLD_AREAS, Some(bad_bounds)),
        "model-bounds.json: models[0].dimensions.x: expected a number, got a string"
    );
    let types = r#"{"stations": [{"type": "t", "flattenGround": true}]}"#;
    let no_position = area(r#"{"id": "a", "type": "t"}"#);
    assert_eq!(
        manifest_error(types, &no_position, None),
        "world-areas.json: starterTowns.town.stations[0].position: required (an object)"
    );
    let bad_id = area(&station("a b", "t"));
    let e = manifest_error(types, &bad_id, None);
    assert!(
        e.starts_with("world-areas.json: starterTowns.town.stations[0].id: must match"),
        "{e}"
    );
    let twice = area(&[station("a", "t"), station("a", "t")].join(","));
    assert_eq!(
        manifest_error(types, &twice, None),
        "world-areas.json: starterTowns.town.stations[1].id: duplicate zone id \"station_a\" \
         (first from starterTowns.town.stations[0])"
    );
    let flat = r#"{"specialAreas": {"arena": {"flatZones": [{"id": "z", "centerX": 0,
        "centerZ": 0, "width": -2, "depth": 1, "blendRadius": 0}]}}}"#;
    assert_eq!(
        manifest_error(types, flat, None),
        "world-areas.json: specialAreas.arena.flatZones[0].width: must be greater than 0 (got -2)"
    );
    let group = r#"{"level1Areas": [1]}"#;
    assert_eq!(
        manifest_error(types, group, None),
        "world-areas.json: level1Areas: expected an object, got an array"
    );
}

#[test]
fn zone_file_errors_name_the_entry_and_field() {
    let zone = |extra: &str| {
        format!(
            r#"{{"centerX": 1, "centerZ": 2, "width": 3, "depth": 4, "height": 5,
                "blendRadius": 1{extra}}}"#
        )
    };
    let file = |zones: &[String]| format!("[{}]", zones.join(","));
    let e = zone_file_error("[{");
    assert!(e.starts_with("zone file: not valid JSON: "), "{e}");
    assert_eq!(
        zone_file_error(&file(&[zone(r#","id": "a""#), zone("")])),
        "zone file: zones[1].id: required"
    );
    assert_eq!(
        zone_file_error(&file(&[zone(r#","id": "no spaces""#)])),
        "zone file: zones[0].id: must match [A-Za-z0-9_.:-]{1,128} (got \"no spaces\")"
    );
    let e = zone_file_error(&file(&[
        zone(r#","id": "a""#),
        zone(r#","id": "b","colour": 1"#),
    ]));
    assert!(
        e.starts_with("zone file: zones[1].colour: unknown field (expected one of: id, centerX"),
        "{e}"
    );
    assert_eq!(
        zone_file_error(&file(&[zone(r#","id": "a","priority": 1.5"#)])),
        "zone file: zones[0].priority: expected a 32-bit integer, got 1.5"
    );
    assert_eq!(
        zone_file_error(
            r#"[{"id": "a", "centerX": 1, "centerZ": 2, "radius": 1, "height": 0,
                "blendRadius": "1"}]"#
        ),
        "zone file: zones[0].blendRadius: expected a number, got \"1\""
    );
    assert_eq!(
        zone_file_error(&file(&[zone(r#","id": "a","radius": 2"#)])),
        "zone file: zones[0].radius: give either radius or width and depth"
    );
    assert_eq!(
        zone_file_error(
            r#"[{"id": "a", "centerX": 1, "width": 1, "depth": 1, "height": 0, "blendRadius": 0}]"#
        ),
        "zone file: zones[0]: missing field `centerZ`"
    );
    assert_eq!(
        zone_file_error(&file(&[zone(r#","id": "a""#), zone(r#","id": "a""#)])),
        "zone file: zones[1].id: duplicate zone id \"a\" (first from zones[0])"
    );
    assert_eq!(
        zone_file_error(r#"{"zones": []}"#),
        "zone file: (top level): expected an array of zones, got an object"
    );
}

/// Every key a [`ZoneDoc`] can carry is accepted (the key check keeps in step with
/// the type), and a zone file round-trips registered zones.
#[test]
fn zone_files_accept_every_zone_doc_field() {
    let full = ZoneDoc {
        id: Some("full".into()),
        center_x: 1.0,
        center_z: 2.0,
        width: Some(3.0),
        depth: Some(4.0),
        radius: Some(5.0),
        height: Some(6.0),
        height_offset: Some(7.0),
        blend_radius: 0.5,
        carve_inset: Some(0.25),
        priority: -2,
        walkable: None,
        tile_mask: None,
    };
    let json = serde_json::to_string(&[full]).expect("json");
    // Every key passes the key check; the doc itself is then refused by its own rules.
    assert_eq!(
        zone_file_error(&json),
        "zone file: zones[0].radius: give either radius or width and depth"
    );
    let zones = resolve(&runtime_zones());
    let docs: Vec<ZoneDoc> = zones.iter().map(ZoneDoc::from_zone).collect();
    let back = parse_zone_file(&serde_json::to_string(&docs).expect("json")).expect("zone file");
    for (z, b) in zones.iter().zip(&back) {
        assert_eq!(b.spec.resolve(&b.id, f64::NAN), *z);
    }
}
