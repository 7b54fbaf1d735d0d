//! The input validators the domain shares: coordinates and extents as every service
//! checks them (queries, zones, layout, lifecycle), against the configured
//! `max_coordinate`. Each answers the reason only; the caller names the field and
//! wraps it in its own error type.
//!
//! [`check_stored_world`] is the check of a whole world's zones that did not come
//! through the API: a backup being restored, or the store read at start-up (written by
//! another version, or edited by hand). Each zone passes exactly the API's check
//! ([`terrain_core::zones::validate_zone`] with the world's [`ZoneRules`]); ids and
//! revisions are unique, and consistent with the world's revision, which leaves
//! [`REVISION_HEADROOM`] revisions before the counter's end.

use std::collections::BTreeMap;

use terrain_core::{
    FlatZone,
    quote::{Num, Quoted},
};

use terrain_core::zones::ZoneLimits;

/// What a registration may hold: the zone limits and the zone count of a world (built
/// from the configuration by `ZoneRules::from_limits` in [`crate::world`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneRules {
    pub limits: ZoneLimits,
    pub max_zones: usize,
}

/// The longest world id.
pub const MAX_WORLD_ID_LEN: usize = 64;

/// `[A-Za-z0-9_-]{1,64}`: safe in URLs, file names and metric labels.
pub fn check_world_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > MAX_WORLD_ID_LEN {
        return Err(format!(
            "{} must be 1 to {MAX_WORLD_ID_LEN} characters long",
            Quoted(id)
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "{} may only contain A-Z, a-z, 0-9, '_' and '-'",
            Quoted(id)
        ));
    }
    Ok(())
}

/// How many revisions a stored or restored world must leave before `u64::MAX`: 2^32,
/// more mutations than a world takes in years at thousands a second, so a restored
/// world can never be one that refuses every change (`revision counter exhausted`).
pub const REVISION_HEADROOM: u64 = 1 << 32;

/// The largest revision a stored or restored world may have.
pub const MAX_STORED_REVISION: u64 = u64::MAX - REVISION_HEADROOM;

/// A coordinate must be finite and within `[-max, max]` (the core's one check).
pub use terrain_core::check_coordinate;

/// An extent (a width or depth, in metres) must be finite, at least 0 and at most
/// `max`.
pub fn check_extent(v: f64, max: f64) -> Result<(), String> {
    if !(v.is_finite() && v >= 0.0) {
        Err(format!(
            "must be a finite number of metres >= 0, got {}",
            Num(v)
        ))
    } else if v > max {
        Err(format!(
            "must be at most {} metres, got {}",
            Num(max),
            Num(v)
        ))
    } else {
        Ok(())
    }
}

/// Why a world's stored or backed-up zones were refused: names the world, the zone
/// (if one is to blame; both quoted briefly) and the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("world {}: {}{field}: {reason}", Quoted(.world), ZoneName(.zone.as_deref()))]
pub struct StoredWorldError {
    pub world: String,
    /// The zone's id, or `None` for the world's own fields (`id`, `revision`, `zones`).
    pub zone: Option<String>,
    /// The field of the zone (as the API names it) or of the world.
    pub field: String,
    pub reason: String,
}

/// `zone "id": ` when there is one.
struct ZoneName<'a>(Option<&'a str>);

impl std::fmt::Display for ZoneName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(id) => write!(f, "zone {}: ", Quoted(id)),
            None => Ok(()),
        }
    }
}

/// Checks a world read from a backup or the store: the world id, its revision (at
/// most [`MAX_STORED_REVISION`]), the zone count (at most `rules.max_zones`), every
/// zone as the API checks it, each zone revision in `1..=revision`, and no id or zone
/// revision twice. The first problem, in zone order, is the error.
pub fn check_stored_world(
    world: &str,
    revision: u64,
    zones: &[(FlatZone, u64)],
    rules: &ZoneRules,
) -> Result<(), StoredWorldError> {
    let refuse = |zone: Option<&str>, field: &str, reason: String| StoredWorldError {
        world: world.to_string(),
        zone: zone.map(str::to_string),
        field: field.to_string(),
        reason,
    };
    check_world_id(world).map_err(|reason| refuse(None, "id", reason))?;
    if revision > MAX_STORED_REVISION {
        return Err(refuse(
            None,
            "revision",
            format!(
                "{revision} leaves fewer than {REVISION_HEADROOM} revisions before the \
                 counter's end (at most {MAX_STORED_REVISION})"
            ),
        ));
    }
    if zones.len() > rules.max_zones {
        return Err(refuse(
            None,
            "zones",
            format!(
                "{} zones, more than max_zones_per_world ({})",
                zones.len(),
                rules.max_zones
            ),
        ));
    }
    let mut ids: BTreeMap<&str, ()> = BTreeMap::new();
    let mut revisions: BTreeMap<u64, &str> = BTreeMap::new();
    for (zone, zone_revision) in zones {
        let id = Some(zone.id.as_str());
        zone.validate(&rules.limits)
            .map_err(|e| refuse(id, e.field(), e.reason()))?;
        if *zone_revision == 0 || *zone_revision > revision {
            return Err(refuse(
                id,
                "revision",
                format!("{zone_revision} is not in 1..={revision} (the world's revision)"),
            ));
        }
        if ids.insert(&zone.id, ()).is_some() {
            return Err(refuse(id, "id", "appears more than once".into()));
        }
        if let Some(other) = revisions.insert(*zone_revision, &zone.id) {
            return Err(refuse(
                id,
                "revision",
                format!(
                    "{zone_revision} is also the revision of zone {}",
                    Quoted(other)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_and_extents() {
        assert!(check_coordinate(1e9, 1e9).is_ok());
        assert_eq!(
            check_coordinate(f64::NAN, 1e9).unwrap_err(),
            "must be finite"
        );
        assert!(
            check_coordinate(-2e9, 1e9)
                .unwrap_err()
                .contains("got -2000000000")
        );
        assert!(check_extent(0.0, 10.0).is_ok());
        assert!(check_extent(-1.0, 10.0).unwrap_err().contains(">= 0"));
        assert!(check_extent(f64::INFINITY, 10.0).is_err());
        assert_eq!(
            check_extent(11.0, 10.0).unwrap_err(),
            "must be at most 10 metres, got 11"
        );
    }
}
