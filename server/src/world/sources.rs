//! The zones a world registers at start-up: its manifests (stations and area zones,
//! derived by [`terrain_core::generator::hyperscape::manifest_zones`]) and its zone files, in that
//! order, through the same registry path as the API. Zones already registered exactly
//! so are no-ops, so a restart takes no new revisions; changed ones are replaced.
//!
//! The default world's manifests and duel arena floors are compiled into the binary
//! from the repository's `worlds/hyperscape/`, so the server serves the island with
//! its stations and arenas wherever it is started from.

use std::{io, path::Path, sync::Arc};

use terrain_core::{
    generator::hyperscape::manifest_zones,
    zones::{ManifestError, NamedZone, parse_zone_file},
};
use tracing::info;

use super::{Change, World};
use crate::config::{Manifests, WorldConfig, ZoneFile};

/// `worlds/hyperscape/manifests/stations.json`, compiled in.
pub const BUILTIN_STATIONS: &str =
    include_str!("../../../worlds/hyperscape/manifests/stations.json");
/// `worlds/hyperscape/manifests/world-areas.json`, compiled in.
pub const BUILTIN_WORLD_AREAS: &str =
    include_str!("../../../worlds/hyperscape/manifests/world-areas.json");
/// `worlds/hyperscape/manifests/model-bounds.json`, compiled in.
pub const BUILTIN_MODEL_BOUNDS: &str =
    include_str!("../../../worlds/hyperscape/manifests/model-bounds.json");
/// `worlds/hyperscape/zones/duel-arena-floors.json`, compiled in.
pub const BUILTIN_DUEL_FLOORS: &str =
    include_str!("../../../worlds/hyperscape/zones/duel-arena-floors.json");

/// The manifest files of a directory.
const STATIONS: &str = "stations.json";
const WORLD_AREAS: &str = "world-areas.json";
const MODEL_BOUNDS: &str = "model-bounds.json";

/// A start-up zone source that could not be read or registered; the message starts
/// with its configuration key, e.g. `worlds[0].zones[1]: arenas.json: ...`.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {message}")]
pub struct SourceError {
    pub key: String,
    pub message: String,
}

/// A zone to register at start-up, with the configuration key it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct StartupZone {
    pub key: String,
    pub zone: NamedZone,
}

/// Reads every zone source of world `index` (`config`), in registration order.
/// Blocks on the file system: call it from a blocking thread.
pub fn read(config: &WorldConfig, index: usize) -> Result<Vec<StartupZone>, SourceError> {
    let mut zones = Vec::new();
    if let Some(manifests) = &config.manifests {
        let key = format!("worlds[{index}].manifests");
        let named = read_manifests(manifests).map_err(|message| SourceError {
            key: key.clone(),
            message,
        })?;
        zones.extend(named.into_iter().map(|zone| StartupZone {
            key: key.clone(),
            zone,
        }));
    }
    for (i, file) in config.zone_files.iter().enumerate() {
        let key = format!("worlds[{index}].zones[{i}]");
        let named = read_zone_file(file).map_err(|message| SourceError {
            key: key.clone(),
            message,
        })?;
        zones.extend(named.into_iter().map(|zone| StartupZone {
            key: key.clone(),
            zone,
        }));
    }
    Ok(zones)
}

fn read_manifests(manifests: &Manifests) -> Result<Vec<NamedZone>, String> {
    let dir = match manifests {
        Manifests::BuiltinHyperscape => {
            return manifest_zones(
                BUILTIN_STATIONS,
                BUILTIN_WORLD_AREAS,
                Some(BUILTIN_MODEL_BOUNDS),
            )
            .map_err(|e| format!("built-in hyperscape manifests: {e}"));
        }
        Manifests::Dir(dir) => dir,
    };
    let stations = read_text(&dir.join(STATIONS))?;
    let areas = read_text(&dir.join(WORLD_AREAS))?;
    let bounds = match std::fs::read_to_string(dir.join(MODEL_BOUNDS)) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: {e}", dir.join(MODEL_BOUNDS).display())),
    };
    manifest_zones(&stations, &areas, bounds.as_deref())
        .map_err(|e: ManifestError| format!("{}: {e}", dir.display()))
}

fn read_zone_file(file: &ZoneFile) -> Result<Vec<NamedZone>, String> {
    match file {
        ZoneFile::BuiltinDuelFloors => parse_zone_file(BUILTIN_DUEL_FLOORS)
            .map_err(|e| format!("built-in duel arena floors: {e}")),
        ZoneFile::Path(path) => {
            let text = read_text(path)?;
            parse_zone_file(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Registers `zones` in `world` one by one through the registry, and logs a summary.
/// Every zone is checked first, so an invalid one stores nothing.
pub async fn register(world: &Arc<World>, zones: Vec<StartupZone>) -> Result<(), SourceError> {
    for StartupZone { key, zone } in &zones {
        world.check(&zone.id, &zone.spec).map_err(|e| SourceError {
            key: key.clone(),
            message: format!("zone {:?}: {e}", zone.id),
        })?;
    }
    let (mut registered, mut replaced, mut unchanged) = (0, 0, 0);
    for StartupZone { key, zone } in zones {
        let outcome = world
            .register(&zone.id, zone.spec)
            .await
            .map_err(|e| SourceError {
                key,
                message: format!("zone {:?}: {e}", zone.id),
            })?;
        match outcome.change {
            Change::Registered => registered += 1,
            Change::Replaced => replaced += 1,
            _ => unchanged += 1,
        }
    }
    let state = world.snapshot();
    info!(
        world = world.id(),
        zones = state.zones().len(),
        revision = state.revision(),
        registered,
        replaced,
        unchanged,
        "start-up zones: {registered} registered, {replaced} replaced, {unchanged} unchanged"
    );
    Ok(())
}
