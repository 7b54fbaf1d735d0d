//! The game manifests of the Hyperscape world (`stations.json`, `world-areas.json`
//! and optionally `model-bounds.json`, the input's NUL-separated parts), read by
//! `terrain_core`'s manifest reader into zones.
//!
//! Properties: the zones read are valid (ids and specs, against the default limits)
//! with unique ids, and reading is deterministic; a refusal names its file and a
//! non-empty field or entry (`stations.json: stations[3].flattenPadding`).

#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use terrain_core::{
    generator::hyperscape::manifest_zones,
    zones::{ManifestError, ZoneLimits, validate_id},
};
use terrain_fuzz::text_parts;

const FILES: [&str; 3] = ["stations.json", "world-areas.json", "model-bounds.json"];

fuzz_target!(|data: &[u8]| {
    let Some(parts) = text_parts(data, 3) else {
        return;
    };
    let (stations, areas, bounds) = match parts.as_slice() {
        [stations, areas] => (*stations, *areas, None),
        [stations, areas, bounds] => (*stations, *areas, Some(*bounds)),
        _ => return,
    };
    let result = manifest_zones(stations, areas, bounds);
    match &result {
        Ok(zones) => {
            let mut ids = BTreeSet::new();
            for zone in zones {
                validate_id(&zone.id).expect("a manifest zone has a valid id");
                zone.spec
                    .validate(&ZoneLimits::default())
                    .expect("a manifest zone is valid");
                assert!(ids.insert(zone.id.as_str()), "duplicate id {}", zone.id);
            }
        }
        Err(err) => {
            assert!(FILES.contains(&err.file()), "{err} names no manifest");
            assert!(
                err.to_string().starts_with(&format!("{}: ", err.file())),
                "{err}"
            );
            match err {
                ManifestError::Field { field, .. } => assert!(!field.is_empty(), "{err}"),
                ManifestError::Zone { entry, source, .. } => {
                    assert!(!entry.is_empty() && !source.field().is_empty(), "{err}");
                }
                ManifestError::Json { .. } => {}
            }
        }
    }
    let again = manifest_zones(stations, areas, bounds);
    match (&result, &again) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "reading is deterministic"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("reading twice gave {result:?} and {again:?}"),
    }
});
