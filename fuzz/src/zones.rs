//! Zone bodies (`PUT .../flat-zones/{id}`, first byte even) and zone files (odd).
//!
//! Properties: a decoded body re-encodes to JSON that decodes to the same zone, and its
//! spec is either valid or refused naming a zone field; a parsed zone file re-encodes
//! to a file that parses to the same zones; every refusal names its field (`centerX`,
//! `zones[3].radius`, ...).

use crate::{named_field, select, zone_file_doc};
use terrain_core::zones::{ManifestError, ZoneLimits, parse_zone_file, validate_id};
use terrain_server::api::http::zone_body::decode_zone;

/// Runs one input: the first byte picks the decoder.
pub fn run(data: &[u8]) {
    let Some((choice, rest)) = select(data, 2) else {
        return;
    };
    match choice {
        0 => zone_body(rest),
        _ => {
            if let Ok(text) = std::str::from_utf8(rest) {
                zone_file(text);
            }
        }
    }
}

fn zone_body(body: &[u8]) {
    let doc = match decode_zone(body) {
        Ok(doc) => doc,
        Err(err) => {
            named_field(&err, &String::from_utf8_lossy(body));
            return;
        }
    };
    assert_eq!(doc.id, None, "a body never carries an id");
    let text = serde_json::to_vec(&doc).expect("a decoded zone serialises");
    let again = decode_zone(&text).unwrap_or_else(|e| {
        panic!(
            "re-encoded zone {} refused: {e}",
            String::from_utf8_lossy(&text)
        )
    });
    assert_eq!(again, doc, "zone body round trip");
    match doc.spec() {
        Ok(spec) => {
            if let Err(err) = spec.validate(&ZoneLimits::default()) {
                assert!(!err.field().is_empty(), "zone error without a field: {err}");
            }
        }
        Err(err) => assert!(!err.field().is_empty(), "spec error without a field: {err}"),
    }
}

fn zone_file(text: &str) {
    let zones = match parse_zone_file(text) {
        Ok(zones) => zones,
        Err(err) => {
            assert!(
                err.to_string().starts_with("zone file: "),
                "{err} does not name the file"
            );
            match &err {
                ManifestError::Field { field, .. } => {
                    assert!(!field.is_empty(), "empty field: {err} for {text:?}");
                }
                ManifestError::Zone { entry, source, .. } => {
                    assert!(entry.starts_with("zones["), "entry {entry:?} of {err}");
                    assert!(!source.field().is_empty(), "{err} names no zone field");
                }
                ManifestError::Json { .. } => {}
            }
            return;
        }
    };
    for zone in &zones {
        validate_id(&zone.id).expect("a parsed zone has a valid id");
        zone.spec
            .validate(&ZoneLimits::default())
            .expect("a parsed zone is valid");
    }
    let docs: Vec<_> = zones.iter().map(zone_file_doc).collect();
    let again_text = serde_json::to_string(&docs).expect("zones serialise");
    let again = parse_zone_file(&again_text)
        .unwrap_or_else(|e| panic!("re-encoded zone file {again_text} refused: {e}"));
    assert_eq!(again, zones, "zone file round trip");
}
