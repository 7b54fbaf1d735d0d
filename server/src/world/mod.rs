//! Hosted worlds: each an id, a generator with its seed, its flat zones and its
//! revision.
//!
//! - [`World`]: the in-memory [`Terrain`] (generator + zones) and revision, as one
//!   shared [`WorldState`] snapshot. A reader takes the current snapshot
//!   ([`World::snapshot`]: a lock held for a pointer copy) and computes on it for as
//!   long as it likes; only the world's follower changes the state, after the log has
//!   stored the change, and never waits for a reader: while a reader holds the old
//!   snapshot the change goes into a copy (a batch of a million points does not hold up
//!   a registration, and answers with the revision it started on).
//! - [`registry`]: the write path (register, replace, remove), serialised per world:
//!   plan, propose to the world's zone log, answer once applied.
//! - [`follow`]: one follower per world applies its zone log in order (`apply`: how
//!   one entry becomes the world's state), for the embedded store and a shared one.
//! - [`sources`]: the zones a world registers at start-up (manifests, zone files).
//! - [`stats`]: lookup counters and the periodic statistics log line.
//! - [`versions`]: per-tile versions (the revision of the last change to touch each
//!   tile), kept beside the zones so heights and versions always agree.
//! - [`asof`]: the ground as of an earlier revision (lag compensation), rebuilt from
//!   the undo records of the world's last `asof_revisions` revisions.

mod apply;
pub mod asof;
pub mod delta;
pub mod error;
pub mod follow;
pub mod registry;
pub mod sources;
pub mod stats;
pub mod versions;

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

use terrain_core::{
    BuildError, GeneratorError, GeneratorKind, Terrain, TileGrid, TileRect, WorldSpec, ZoneSet,
    build_terrain,
    layout::{LayoutError, LayoutGround},
    tiles3d::{TilesetLayout, exact_below, leaf_error},
    zones::ZoneLimits,
};

use tokio::sync::Mutex;

use self::{
    asof::{AsOf, AsOfError, Ground, History, Past, PastPlan},
    versions::TileVersions,
};

use crate::sync::{locked, read_locked, write_locked};
use crate::{
    config::{LayoutSettings, Limits, WorldConfig},
    cost::Meters,
    store::{StoreError, ZoneStore},
    validate::{StoredWorldError, check_stored_world},
};

pub use crate::validate::ZoneRules;
pub use error::{RegistryError, UnknownWorld};
pub use registry::{Change, Outcome};
pub use stats::Lookups;

/// Why a world could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error(transparent)]
    Generator(#[from] GeneratorError),
    #[error("world {world:?}: layout: {source}")]
    Layout {
        world: String,
        #[source]
        source: LayoutError,
    },
    #[error("world {world:?}: {source}")]
    Store {
        world: String,
        #[source]
        source: StoreError,
    },
    /// The store holds a zone (or a revision) the API would refuse.
    #[error(
        "zone store: {0}; refusing to start: back up the data_dir, fix or remove that \
         zone in the file, and restore it into a new data_dir"
    )]
    Stored(#[from] StoredWorldError),
}

/// What readers see of a world: heights with zones, and the revision they reflect.
/// Immutable once published: a change is a new state (cloned from the last one).
#[derive(Debug, Clone)]
pub struct WorldState {
    terrain: Terrain,
    /// The number of the last accepted change. Every answer carries it so a client
    /// can tell whether what it holds is current.
    revision: u64,
    /// Each touched tile's version, of the same revision as `terrain`.
    tiles: TileVersions,
}

/// What lends a world's terrain to sliced compute jobs: a snapshot of a world's
/// state, or a bare terrain.
pub trait AsTerrain {
    /// The terrain heights are answered from.
    fn terrain(&self) -> &Terrain;
}

impl AsTerrain for Terrain {
    fn terrain(&self) -> &Terrain {
        self
    }
}

impl AsTerrain for Arc<WorldState> {
    fn terrain(&self) -> &Terrain {
        &self.terrain
    }
}

impl WorldState {
    /// The generator with the world's zones on top: what every height answer uses.
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The world's zones.
    pub fn zones(&self) -> &ZoneSet {
        self.terrain.zones()
    }

    /// The revision this state reflects.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The version of tile `tile`: the revision of the last change that touched it
    /// (0: none since the world began).
    pub fn tile_version(&self, tile: (i64, i64)) -> u64 {
        self.tiles.get(tile)
    }

    /// The newest version of any tile of `rect`.
    pub fn newest_tile_version(&self, rect: &TileRect) -> u64 {
        self.tiles.newest_in(rect)
    }
}

/// The tileset layout of a world of `generator` over a square of `extent` metres, with
/// its finest level's error ([`leaf_error`]) and how far a large square's grids stay
/// exact ([`exact_below`]). An osrs world's map squares all lie at
/// positive coordinates, so its square starts at map square (0, 0); the island and
/// voxel worlds spread from their spawn at the origin in every direction, so theirs is
/// centred on it.
fn tileset_layout(generator: &terrain_core::WorldGenerator, extent: f64) -> TilesetLayout {
    let mut layout = TilesetLayout::covering(generator.tile_grid(), extent, leaf_error(generator))
        .with_exact_below(exact_below(generator));
    if generator.kind() == GeneratorKind::Osrs {
        layout.min_tile = (0, 0);
    }
    layout
}

impl ZoneRules {
    /// The rules of a world of a server with `limits` whose coordinates reach
    /// `max_coordinate` (a voxel world's range may be narrower than the server's):
    /// what the API, a restore and the start-up load check zones against.
    pub fn from_limits(limits: &Limits, max_coordinate: f64) -> Self {
        ZoneRules {
            limits: ZoneLimits {
                max_size: limits.max_zone_size,
                max_coordinate,
            },
            max_zones: limits.max_zones_per_world,
        }
    }
}

/// Told about every committed mutation of a world, in commit order, once the
/// world's in-memory state reflects it and before the mutation is acknowledged.
/// Listeners run on the registry's blocking thread, in registration order: the mesh
/// cache registers the rebuilds of its affected tiles before the event publisher
/// announces the change, so whoever hears of revision r and then asks for an
/// affected tile gets version >= r (waiting for the rebuild if it is not done).
pub trait CommitListener: Send + Sync + std::fmt::Debug {
    fn committed(&self, world: &World, outcome: &Outcome);

    /// Revisions before `revision` were skipped: a replica following a shared store
    /// saw only a later message of the same zone. Told after `committed` of
    /// `revision`.
    fn skipped(&self, _world: &World, _revision: u64) {}
}

/// One hosted world.
#[derive(Debug)]
pub struct World {
    id: String,
    seed: u32,
    kind: GeneratorKind,
    /// The mesh tile grid: tile size and vertices per side.
    grid: TileGrid,
    /// The current snapshot. The lock guards only the pointer: readers clone it and
    /// let go; the follower changes the state in place when nobody holds it, or a copy
    /// when a reader still computes on it ([`World::update`]).
    state: RwLock<Arc<WorldState>>,
    /// Serialises the write path: one mutation of this world at a time, held until
    /// the in-memory state reflects the commit.
    writer: Arc<Mutex<()>>,
    store: Arc<ZoneStore>,
    rules: ZoneRules,
    lookups: Lookups,
    /// Told about each committed mutation, in order.
    listeners: Vec<Arc<dyn CommitListener>>,
    /// The layout's settings (hubs and spokes), when configured.
    layout: Option<LayoutSettings>,
    /// The layout's ground (also inside the terrain), shared by every reader.
    ground: Option<Arc<LayoutGround>>,
    /// Where players appear.
    spawn: Vec<[f64; 2]>,
    /// A voxel world's generator parameters.
    voxel: Option<terrain_core::voxel::VoxelConfig>,
    /// The coordinate range every route of this world checks points against: the
    /// server's `max_coordinate`, and on a voxel world at most
    /// [`terrain_core::voxel::MAX_COORDINATE`].
    max_coordinate: f64,
    /// The world's zone log and its follower's progress, set once following starts
    /// ([`follow::Replication::start`]): mutations are proposed there, and only the
    /// follower applies them.
    link: std::sync::OnceLock<Arc<follow::Link>>,
    /// Log entries kept for resuming subscribers (`event_history`).
    history: usize,
    /// What this world's work costs on the compute pool, for admission.
    meters: Arc<Meters>,
    /// Which points an entity may stand on.
    walk: terrain_core::walk::WalkRule,
    /// The towns the `hyperscape` rule's difficulty reads (config `towns`).
    towns: Vec<terrain_core::walk::Town>,
    /// The undo records of the last `asof_revisions` revisions and the grounds of
    /// past revisions built from them ([`World::past`]).
    asof: std::sync::Mutex<AsOf>,
    /// The side of the square its 3D Tiles tileset covers, in metres.
    /// The square and levels of the world's 3D Tiles tileset (fixed by its config).
    tileset: TilesetLayout,
}

impl World {
    /// Builds the world's generator and loads its committed zones and revision.
    /// Blocks on the store: call it from a blocking thread.
    pub fn open(
        config: &WorldConfig,
        store: Arc<ZoneStore>,
        limits: &Limits,
        listeners: &[Arc<dyn CommitListener>],
    ) -> Result<Self, WorldError> {
        let store_err = |source| WorldError::Store {
            world: config.id.clone(),
            source,
        };
        let stored = store.load(&config.id).map_err(store_err)?;
        // A store written by another version or edited by hand: its zones pass the
        // API's check, or the server does not start.
        let rules = ZoneRules::from_limits(limits, limits.max_coordinate_of(config.generator));
        check_stored_world(&config.id, stored.revision, &stored.zones, &rules)?;
        let log = store.log(&config.id, 0).map_err(store_err)?;
        let spec = WorldSpec {
            generator: config.generator,
            seed: config.seed,
            overlap: config.overlap,
            layout: config.layout.map(|l| l.layout),
            voxel: config.voxel,
        };
        let terrain = build_terrain(&spec, stored.zones).map_err(|e| match e {
            BuildError::Generator(e) => WorldError::Generator(e),
            BuildError::Layout(source) => WorldError::Layout {
                world: config.id.clone(),
                source,
            },
        })?;
        let grid = terrain.generator().tile_grid();
        let tileset = tileset_layout(terrain.generator(), config.tileset_extent);
        let ground = terrain.layout_arc().cloned();
        let resolution = f64::from(grid.resolution);
        let chunk = terrain_core::voxel::CHUNK as f64;
        let meters = Meters::seeded(
            Meters::time_generator(&terrain),
            resolution * resolution,
            chunk * chunk,
        );
        meters.tiles3d_height.seed(Meters::time_area(&terrain));
        if let Some(ns) = Meters::time_search(&terrain, &config.walk_rule()) {
            meters.path_node.seed(ns);
        }
        let meters = Arc::new(meters);
        let history = History::from_log(limits.asof_revisions, &log, stored.revision);
        let mut tiles = TileVersions::replay(&grid, &log);
        tiles.cover(&grid, terrain.zones().iter());
        let state = WorldState {
            terrain,
            revision: stored.revision,
            tiles,
        };
        Ok(World {
            id: config.id.clone(),
            seed: config.seed,
            kind: config.generator,
            grid,
            state: RwLock::new(Arc::new(state)),
            writer: Arc::new(Mutex::new(())),
            store,
            rules,
            lookups: Lookups::default(),
            listeners: listeners.to_vec(),
            layout: config.layout,
            ground,
            spawn: config.spawn.clone(),
            voxel: config.voxel,
            max_coordinate: limits.max_coordinate_of(config.generator),
            link: std::sync::OnceLock::new(),
            history: limits.event_history.max(1),
            meters,
            walk: config.walk_rule(),
            towns: config.towns.clone(),
            asof: std::sync::Mutex::new(AsOf::new(history)),
            tileset,
        })
    }

    /// What answering as of `revision` takes, the one place that decides whether a
    /// revision is the current one: the current state when `revision` is `None` or the
    /// current revision, a cached ground of an earlier revision at once, else the plan
    /// of a rebuild for [`World::build_past`] (its history still reaching `revision`,
    /// `asof_revisions`: the current zones with the later changes undone; the caller
    /// admits the build first, [`crate::query::QueryEngine::ground`]). Cheap.
    pub fn past(&self, revision: Option<u64>) -> Result<Past, AsOfError> {
        let state = self.snapshot();
        let current = state.revision();
        let Some(revision) = revision.filter(|&r| r != current) else {
            return Ok(Past::Ready(Ground::Current(state)));
        };
        if revision > current {
            return Err(AsOfError::Ahead {
                world: self.id.clone(),
                revision,
                current,
            });
        }
        let mut asof = locked(&self.asof);
        if let Some(terrain) = asof.cached(revision) {
            return Ok(Past::Ready(Ground::Past { terrain, revision }));
        }
        let undos = self.undos(&asof.history, revision, current)?;
        Ok(Past::ToBuild(PastPlan {
            revision,
            state,
            undos,
        }))
    }

    /// The changes to undo from `current` back to `revision`, or `Gone` when `history`
    /// no longer reaches that far.
    fn undos(
        &self,
        history: &History,
        revision: u64,
        current: u64,
    ) -> Result<Vec<asof::Undo>, AsOfError> {
        history
            .between(revision, current)
            .ok_or_else(|| AsOfError::Gone {
                world: self.id.clone(),
                revision,
                oldest: history.floor().min(current),
                current,
                window: history.limit(),
            })
    }

    /// The zones the world held at `revision`, each with its registration revision, in
    /// registration order: the current zones when `revision` is the current one, else
    /// the current zones with the later changes undone, while the history
    /// (`asof_revisions`) still reaches `revision`. Costs a copy of the zone list (the
    /// masks are shared), no ground is built.
    pub fn zones_as_of(&self, revision: u64) -> Result<Vec<asof::Version>, AsOfError> {
        let state = self.snapshot();
        let current = state.revision();
        if revision > current {
            return Err(AsOfError::Ahead {
                world: self.id.clone(),
                revision,
                current,
            });
        }
        let undos = {
            let asof = locked(&self.asof);
            self.undos(&asof.history, revision, current)?
        };
        Ok(asof::zones_at(state.zones().iter(), &undos))
    }

    /// Builds the ground `plan` describes and keeps it in the cache of built grounds.
    /// Costs about as much as loading the world's zones: call it from a compute thread.
    pub fn build_past(&self, plan: PastPlan) -> Ground {
        let PastPlan {
            revision,
            state,
            undos,
        } = plan;
        let zones = asof::zones_at(state.zones().iter(), &undos);
        let terrain = Arc::new(state.terrain().with_zones(zones));
        locked(&self.asof).keep(revision, Arc::clone(&terrain));
        Ground::Past { terrain, revision }
    }

    /// Records what `revision` changes (`change`: the zone and its version before;
    /// `None`: nothing) before the revision's state is installed, so a reader of that
    /// state finds its record.
    fn remember(&self, revision: u64, change: Option<(String, Option<asof::Version>)>) {
        locked(&self.asof).history.record(revision, change);
    }

    /// The world's 3D Tiles tileset layout: the square of its `tileset_extent`.
    pub fn tileset(&self) -> &TilesetLayout {
        &self.tileset
    }

    /// The walkability rule of terrain info, path checks and path finding.
    pub fn walk_rule(&self) -> &terrain_core::walk::WalkRule {
        &self.walk
    }

    /// The towns terrain info's difficulty fades in from under the `hyperscape` rule
    /// ([`terrain_core::walk::Walker::difficulty`]); never empty.
    pub fn towns(&self) -> &[terrain_core::walk::Town] {
        &self.towns
    }

    /// What this world's work costs on the compute pool, for admission
    /// ([`crate::cost`]).
    pub fn meters(&self) -> &Arc<Meters> {
        &self.meters
    }

    /// The epoch of the history the world follows ([`crate::store::log::ZoneLog::epoch`]);
    /// `None` until following starts.
    pub fn epoch(&self) -> Option<&str> {
        self.link.get().map(|l| l.log().epoch())
    }

    /// The id requests name the world by: `[A-Za-z0-9_-]{1,64}`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The generator family.
    pub fn kind(&self) -> GeneratorKind {
        self.kind
    }

    /// The coordinate range of this world's routes (heights, heightmaps, zones,
    /// viewers, map tiles): `|x|, |z| <=` this.
    pub fn max_coordinate(&self) -> f64 {
        self.max_coordinate
    }

    /// The configured seed (always 0 for osrs).
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// The mesh tile grid (tile size and resolution).
    pub fn tile_grid(&self) -> TileGrid {
        self.grid
    }

    /// The layout's settings (hubs and spokes), when the world has a layout.
    pub fn layout(&self) -> Option<&LayoutSettings> {
        self.layout.as_ref()
    }

    /// The layout's ground: hubs, spokes and their flattening, with its caches.
    pub fn layout_ground(&self) -> Option<&Arc<LayoutGround>> {
        self.ground.as_ref()
    }

    /// A voxel world's generator parameters (`None` for other generators).
    pub fn voxel(&self) -> Option<&terrain_core::voxel::VoxelConfig> {
        self.voxel.as_ref()
    }

    /// The spawn points: never empty.
    pub fn spawn(&self) -> &[[f64; 2]] {
        &self.spawn
    }

    /// What a registration may hold.
    pub fn rules(&self) -> ZoneRules {
        self.rules
    }

    /// The lookup counters (heights answered, and how many a zone decided).
    pub fn lookups(&self) -> &Lookups {
        &self.lookups
    }

    /// The world's current state: heights, zones and revision as of the last applied
    /// change. Never waits: a change published while the caller computes makes a new
    /// state and leaves this one as it was.
    pub fn snapshot(&self) -> Arc<WorldState> {
        let state = read_locked(&self.state);
        Arc::clone(&state)
    }

    /// Makes `change` to the current state. Only the follower calls it, one change at
    /// a time. Copy on write: when nobody else holds the current snapshot it changes
    /// in place, under the lock (a pointer's worth of waiting for readers); when a
    /// reader still computes on it, the change goes into a copy made outside the lock
    /// (zones, tile versions and generator; the layout's ground is shared), which then
    /// replaces it. No reader waits for the copy, and none sees a change half made.
    fn update(&self, change: impl FnOnce(&mut WorldState)) {
        {
            let mut state = write_locked(&self.state);
            if let Some(state) = Arc::get_mut(&mut state) {
                change(state);
                return;
            }
        }
        let mut next = WorldState::clone(&self.snapshot());
        change(&mut next);
        *write_locked(&self.state) = Arc::new(next);
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
    /// Opens every configured world from `store`. The configuration is validated, so
    /// this fails only for a hand-built, unvalidated one or a store error. Blocks on
    /// the store: call it from a blocking thread.
    pub fn open(
        configs: &[WorldConfig],
        store: &Arc<ZoneStore>,
        limits: &Limits,
        listeners: &[Arc<dyn CommitListener>],
    ) -> Result<Self, WorldError> {
        let list = configs
            .iter()
            .map(|c| World::open(c, Arc::clone(store), limits, listeners).map(Arc::new))
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
    pub fn get(&self, id: &str) -> Result<&Arc<World>, UnknownWorld> {
        self.by_id
            .get(id)
            .map(|&i| &self.list[i])
            .ok_or_else(|| UnknownWorld {
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
    use crate::error::ServiceError;

    #[test]
    fn lookup_and_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let worlds = Worlds::open(
            &[
                WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
                WorldConfig::new("old", GeneratorKind::Osrs, 0),
            ],
            &store,
            &Limits::default(),
            &[],
        )
        .unwrap();
        let ids: Vec<_> = worlds.iter().map(|w| w.id()).collect();
        assert_eq!(ids, ["main", "old"]);
        assert_eq!(worlds.get("old").unwrap().kind(), GeneratorKind::Osrs);
        let err = worlds.get("nope").unwrap_err();
        assert_eq!(err.field(), Some("world"));
        assert!(err.to_string().contains("main, old"), "{err}");
    }

    /// A store edited to hold a zone the API refuses (written through the store's own
    /// commit, which does not validate) is refused at start, naming the world, the
    /// zone and the field; a sound store opens.
    #[test]
    fn a_stored_zone_the_api_would_refuse_stops_the_start() {
        use crate::store::{Mutation, MutationKind};
        let open = |store: &Arc<ZoneStore>| {
            World::open(
                &WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
                Arc::clone(store),
                &Limits::default(),
                &[],
            )
        };
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let mut zone = crate::test_support::square_zone(0.0);
        store
            .commit(
                "main",
                1,
                &Mutation {
                    kind: MutationKind::Registered,
                    zone: zone.clone(),
                },
            )
            .unwrap();
        assert_eq!(open(&store).unwrap().snapshot().revision(), 1);
        zone.id = "wide".into();
        zone.shape = terrain_core::zones::Shape::Rect {
            width: 1e6,
            depth: 2.0,
        };
        store
            .commit(
                "main",
                2,
                &Mutation {
                    kind: MutationKind::Registered,
                    zone,
                },
            )
            .unwrap();
        let err = open(&store).unwrap_err();
        assert!(matches!(err, WorldError::Stored(_)), "{err}");
        let text = err.to_string();
        assert!(
            text.starts_with(
                r#"zone store: world "main": zone "wide": width: must be at most 10000 (got 1000000)"#
            ),
            "{text}"
        );
    }
}
