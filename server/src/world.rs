//! Hosted worlds: each an id, a generator with its seed, and a revision.

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use terrain_core::{GeneratorError, GeneratorKind, WorldGenerator};

use crate::{config::WorldConfig, error::ApiError};

/// One hosted world.
#[derive(Debug)]
pub struct World {
    id: String,
    seed: u32,
    generator: WorldGenerator,
    /// The number of the last accepted change to this world. Every answer carries it so
    /// a client can tell whether what it holds is current. Nothing mutates a world yet,
    /// so it stays 0; flat-zone registration will advance it.
    revision: AtomicU64,
}

impl World {
    /// Builds the world's generator.
    pub fn new(config: &WorldConfig) -> Result<Self, GeneratorError> {
        Ok(World {
            id: config.id.clone(),
            seed: config.seed,
            generator: WorldGenerator::new(config.generator, config.seed)?,
            revision: AtomicU64::new(0),
        })
    }

    /// The id requests name the world by: `[A-Za-z0-9_-]{1,64}`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The generator family.
    pub fn kind(&self) -> GeneratorKind {
        self.generator.kind()
    }

    /// The configured seed (always 0 for osrs).
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// The height function; pure, so it may be shared across threads freely.
    pub fn generator(&self) -> &WorldGenerator {
        &self.generator
    }

    /// The current revision. Read it *before* computing an answer: the answer is then
    /// at least as new as the revision it reports.
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }
}

/// The worlds of one server: in configuration order (for listing) with an id index
/// (for lookups).
#[derive(Debug)]
pub struct Worlds {
    list: Vec<Arc<World>>,
    by_id: HashMap<String, usize>,
}

impl Worlds {
    /// Builds every configured world. The configuration is validated, so this only
    /// fails for a hand-built, unvalidated one.
    pub fn new(configs: &[WorldConfig]) -> Result<Self, GeneratorError> {
        let list = configs
            .iter()
            .map(|c| World::new(c).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let by_id = list
            .iter()
            .enumerate()
            .map(|(i, w)| (w.id.clone(), i))
            .collect();
        Ok(Worlds { list, by_id })
    }

    /// Every world, in configuration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<World>> {
        self.list.iter()
    }

    /// The world called `id`, or `NOT_FOUND`.
    pub fn get(&self, id: &str) -> Result<&Arc<World>, ApiError> {
        self.by_id
            .get(id)
            .map(|&i| &self.list[i])
            .ok_or_else(|| ApiError::UnknownWorld {
                id: id.to_string(),
                hosted: self
                    .list
                    .iter()
                    .map(|w| w.id())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_order() {
        let worlds = Worlds::new(&[
            WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
            WorldConfig::new("old", GeneratorKind::Osrs, 0),
        ])
        .unwrap();
        let ids: Vec<_> = worlds.iter().map(|w| w.id()).collect();
        assert_eq!(ids, ["main", "old"]);
        assert_eq!(worlds.get("old").unwrap().kind(), GeneratorKind::Osrs);
        let err = worlds.get("nope").unwrap_err();
        assert_eq!(err.field(), Some("world"));
        assert!(err.to_string().contains("main, old"), "{err}");
    }
}
