//! [`LocalTerrain`]: a local replica of one world that answers `height_at(x, z)`
//! in-process with `terrain-core`, bit for bit what the server's `GetHeight` answers
//! at the same revision.
//!
//! It reads the world's generator config (`ListWorlds`) and zone list
//! (`ListFlatZones`, one consistent snapshot with its revision), then follows a
//! [`Subscription`] from that revision. Each event names a zone: a removal is
//! applied as is; a registration or replacement fetches the zone (`GetFlatZone`).
//! The fetch may already see a later change of that zone (its revision is newer, or
//! it is gone); the replica then holds it *ahead* and does not publish until the
//! event of that later change has arrived, so every published state is exactly the
//! server's state at the published revision. A `resync` rebuilds from a fresh list.
//!
//! Readers see immutable snapshots (`Arc<Snapshot>`), swapped by one follower task:
//! the only writer. [`LocalTerrain::events`] hands out what each swap applied, after
//! the swap, so a caller that re-reads the heights inside an event's bounds sees them.
//!
//! Movement (terrain info, path checks, path finding) is answered locally too, by the
//! world's listed walkability rule ([`LocalTerrain::terrain_info`],
//! [`LocalTerrain::check_path`], [`LocalTerrain::find_path`]; [`LocalWalk`] at a held
//! snapshot).

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
    time::Duration,
};

use terrain_core::{Sample, Terrain};
use tokio::{
    sync::{broadcast, watch},
    task::JoinHandle,
};

use crate::{
    CauseKind, ClientError, HeightMode, LocalMover, LocalWalk, PathChecked, PathFound, PathMode,
    ResyncMode, Snapshot, Subscription, SubscriptionEvent, SurfaceReader, TerrainClient,
    TerrainInfos, TileEvent, Town, WorldInfo, ZoneList, build_terrain, check_point,
};

/// What [`LocalTerrain::events`] delivers, each after the snapshot it describes is
/// the one readers see.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaEvent {
    /// A committed mutation is now in the replica: re-read what stands inside its
    /// `bounds`.
    Tiles(TileEvent),
    /// The replica was rebuilt from a fresh zone list at `revision` (the server
    /// could not replay, or its history is another than the one the replica held:
    /// restored from a backup, restarted empty): re-read everything.
    Rebuilt { revision: u64 },
    /// The replica stopped following for good (the last event it sends): `reason`
    /// says why (the world is gone, access was refused, ...). Reads answer the last
    /// state it reached; [`LocalTerrain::wait_for_revision`] fails with the error.
    Stopped { reason: String },
}

/// Events [`LocalTerrain::events`] buffers per receiver; a receiver further behind
/// gets `RecvError::Lagged` and should re-read everything.
pub const REPLICA_EVENTS: usize = 1024;

/// Where the follower is: the published revision, or why it stopped for good.
#[derive(Debug, Clone)]
enum Progress {
    At(u64),
    Failed(ClientError),
}

/// A local replica of one world; see the module docs. Dropping it stops following.
#[derive(Debug)]
pub struct LocalTerrain {
    world: WorldInfo,
    /// The towns the world's rule judges difficulty from, as listed.
    towns: Vec<Town>,
    current: Arc<RwLock<Arc<Snapshot>>>,
    progress: watch::Receiver<Progress>,
    events: broadcast::Sender<ReplicaEvent>,
    follower: JoinHandle<()>,
}

impl Drop for LocalTerrain {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

impl LocalTerrain {
    /// Loads world `world` from the server behind `client` and starts following it.
    pub async fn open(client: TerrainClient, world: &str) -> Result<Self, ClientError> {
        let mut client = client;
        let (info, towns) = client
            .list_worlds_with_towns()
            .await?
            .into_iter()
            .find(|(w, _)| w.id == world)
            .ok_or_else(|| ClientError::NotFound(format!("world: {world:?} is not hosted")))?;
        let zones = client.list_flat_zones(world).await?;
        let terrain = build_terrain(&info, &zones)?;
        let revision = zones.revision;
        // The list's epoch with its revision: a server that comes back with another
        // history (restored, restarted empty) answers the resume with a resync, and
        // the replica rebuilds instead of applying that history's events on top.
        let subscription = client
            .subscription(world)
            .from_revision(revision)
            .from_epoch(zones.epoch.clone())
            .resync(ResyncMode::Refetch)
            .open()
            .await?;
        let snapshot = Arc::new(Snapshot::from_terrain(terrain, revision));
        let current = Arc::new(RwLock::new(Arc::clone(&snapshot)));
        let (tx, progress) = watch::channel(Progress::At(revision));
        let (events, _) = broadcast::channel(REPLICA_EVENTS);
        let follower = Follower {
            client,
            world: info.clone(),
            working: snapshot.terrain().clone(),
            ahead: HashMap::new(),
            current: Arc::clone(&current),
            progress: tx,
            events: events.clone(),
            applied: Vec::new(),
        };
        let follower = tokio::spawn(follower.run(subscription));
        Ok(LocalTerrain {
            world: info,
            towns,
            current,
            progress,
            events,
            follower,
        })
    }

    /// The world as listed when the replica opened.
    pub fn world(&self) -> &WorldInfo {
        &self.world
    }

    /// The current snapshot: hold it to answer many queries at one revision.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The exact height at `(x, z)`, as the server answers at [`Self::revision`]; a
    /// coordinate the server would refuse is refused ([`check_point`]).
    pub fn height_at(&self, x: f64, z: f64) -> Result<f64, ClientError> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .height_at(x, z)
    }

    /// The height at `(x, z)` in `mode` at [`Self::revision`]
    /// ([`Snapshot::height_in`]): what `GetHeight` answers in that mode.
    pub fn height_in(&self, x: f64, z: f64, mode: HeightMode) -> Result<f64, ClientError> {
        self.snapshot().height_in(x, z, mode)
    }

    /// A surface-mode reader over the current snapshot (see [`SurfaceReader`]).
    pub fn surface_reader(&self) -> SurfaceReader {
        SurfaceReader::new(self.snapshot())
    }

    /// A voxel world's chunk `(cx, cz)` at the current revision (see
    /// [`Snapshot::chunk`]); `None` for other worlds.
    pub fn chunk(&self, cx: i64, cz: i64) -> Option<terrain_core::voxel::Chunk> {
        self.snapshot().chunk(cx, cz)
    }

    /// The world's walkability rule, as listed; `NotFound` from a server that does not
    /// describe it (the movement answers below need it).
    pub fn walk_rule(&self) -> Result<&terrain_core::walk::WalkRule, ClientError> {
        self.world.walkability.as_ref().ok_or_else(|| {
            ClientError::NotFound(format!(
                "walkability: the server lists no rule for world {:?}",
                self.world.id
            ))
        })
    }

    /// The towns the world's rule judges difficulty from, as listed (empty under
    /// rules without difficulty).
    pub fn towns(&self) -> &[Town] {
        &self.towns
    }

    /// Terrain info at `points` computed locally at the current revision: what
    /// `GetTerrainInfo` answers at that revision, bit for bit, normal and difficulty
    /// included ([`LocalWalk`] with [`Self::towns`]).
    pub fn terrain_info(&self, points: &[(f64, f64)]) -> Result<TerrainInfos, ClientError> {
        LocalWalk::new(&self.snapshot(), self.walk_rule()?)
            .with_towns(&self.towns)
            .terrain_info(points)
    }

    /// The path check of `points` in `mode` computed locally at the current revision:
    /// what `CheckPath` answers at that revision ([`LocalWalk`]).
    pub fn check_path(
        &self,
        points: &[(f64, f64)],
        mode: PathMode,
    ) -> Result<PathChecked, ClientError> {
        LocalWalk::new(&self.snapshot(), self.walk_rule()?).check_path(points, mode)
    }

    /// A path found locally at the current revision: what `FindPath` answers at that
    /// revision ([`LocalWalk`]).
    pub fn find_path(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        max_nodes: Option<u64>,
        max_distance: Option<f64>,
    ) -> Result<PathFound, ClientError> {
        LocalWalk::new(&self.snapshot(), self.walk_rule()?).find_path(
            from,
            to,
            max_nodes,
            max_distance,
        )
    }

    /// A mover over the current snapshot: exact checks of many entities' moves from
    /// cached grids ([`LocalMover`]).
    pub fn mover(&self) -> Result<LocalMover, ClientError> {
        Ok(LocalMover::new(self.snapshot(), self.walk_rule()?.clone()))
    }

    /// The height at `(x, z)` and the zone that decided it ([`check_point`] first).
    pub fn sample_at(&self, x: f64, z: f64) -> Result<(f64, Option<String>), ClientError> {
        check_point(x, z)?;
        let snapshot = self.snapshot();
        let Sample { height, zone } = snapshot.terrain().sample(x, z);
        Ok((height, zone.map(|(z, _)| z.id.clone())))
    }

    /// The revision the replica reflects.
    pub fn revision(&self) -> u64 {
        self.snapshot().revision()
    }

    /// The events of every snapshot published from now on, in revision order, each
    /// sent once the snapshot is the one readers see (so re-reading inside its bounds
    /// gets the new heights). Buffers [`REPLICA_EVENTS`] per receiver.
    pub fn events(&self) -> broadcast::Receiver<ReplicaEvent> {
        self.events.subscribe()
    }

    /// Why the replica stopped following, once it has (see [`ReplicaEvent::Stopped`]).
    pub fn stopped(&self) -> Option<ClientError> {
        match &*self.progress.borrow() {
            Progress::Failed(e) => Some(e.clone()),
            Progress::At(_) => None,
        }
    }

    /// Waits until the replica reflects `revision` or later; answers the revision
    /// reached, or why the replica stopped following.
    pub async fn wait_for_revision(&self, revision: u64) -> Result<u64, ClientError> {
        let mut rx = self.progress.clone();
        let reached = rx
            .wait_for(|p| match p {
                Progress::At(r) => *r >= revision,
                Progress::Failed(_) => true,
            })
            .await
            .map_err(|_| ClientError::Unavailable("replica follower stopped".into()))?;
        match &*reached {
            Progress::At(r) => Ok(*r),
            Progress::Failed(e) => Err(e.clone()),
        }
    }
}

/// The follower task's state: the only writer of the replica.
struct Follower {
    client: TerrainClient,
    world: WorldInfo,
    /// The terrain as events are applied, published when consistent.
    working: Terrain,
    /// Zones fetched ahead of the event being applied: id -> the revision of the
    /// later change to wait for (`None`: a removal).
    ahead: HashMap<String, Option<u64>>,
    current: Arc<RwLock<Arc<Snapshot>>>,
    progress: watch::Sender<Progress>,
    events: broadcast::Sender<ReplicaEvent>,
    /// Events applied to `working` since the last publish.
    applied: Vec<TileEvent>,
}

/// Delay between attempts to fetch a zone while the server is away.
const FETCH_BACKOFF: Duration = Duration::from_millis(100);

impl Follower {
    async fn run(mut self, mut subscription: Subscription) {
        loop {
            let result = match subscription.next().await {
                Ok(SubscriptionEvent::Tiles(event)) => self.apply(&event).await,
                Ok(SubscriptionEvent::Resynced(list)) => self.rebuild(&list),
                // Not sent with ResyncMode::Refetch; handled the same way regardless.
                Ok(SubscriptionEvent::Resync { .. }) => {
                    match self.client.list_flat_zones(&self.world.id).await {
                        Ok(list) => self.rebuild(&list),
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                tracing::warn!(world = %self.world.id, error = %e, "replica stopped following");
                let reason = e.to_string();
                self.progress.send_replace(Progress::Failed(e));
                // No receiver is not an error: nobody listens.
                let _ = self.events.send(ReplicaEvent::Stopped { reason });
                return;
            }
        }
    }

    fn rebuild(&mut self, list: &ZoneList) -> Result<(), ClientError> {
        self.working = build_terrain(&self.world, list)?;
        self.ahead.clear();
        self.applied.clear();
        self.publish(list.revision);
        // No receiver is not an error: nobody listens.
        let _ = self.events.send(ReplicaEvent::Rebuilt {
            revision: list.revision,
        });
        Ok(())
    }

    async fn apply(&mut self, event: &TileEvent) -> Result<(), ClientError> {
        let id = &event.zone;
        let waited = self.ahead.remove(id);
        match event.kind {
            CauseKind::Removed => {
                self.working.zones_mut().remove(id);
            }
            CauseKind::Registered | CauseKind::Replaced => {
                if waited.flatten().is_some_and(|r| r > event.revision) {
                    // Already holding a later state of this zone: wait on.
                    self.ahead.insert(id.clone(), waited.flatten());
                } else {
                    self.fetch_and_install(id, event.revision).await?;
                }
            }
        }
        self.applied.push(event.clone());
        if self.ahead.is_empty() {
            self.publish(event.revision);
            for applied in std::mem::take(&mut self.applied) {
                let _ = self.events.send(ReplicaEvent::Tiles(applied));
            }
        }
        Ok(())
    }

    /// Fetches zone `id` after the event at `revision` and installs what the server
    /// holds, noting when that is a later state than `revision`'s.
    async fn fetch_and_install(&mut self, id: &str, revision: u64) -> Result<(), ClientError> {
        let answer = loop {
            match self.client.flat_zone(&self.world.id, id).await {
                Ok(a) => break Ok(a),
                Err(ClientError::NotFound(m)) => break Err(m),
                Err(e) if e.is_transient() => tokio::time::sleep(FETCH_BACKOFF).await,
                Err(e) => return Err(e),
            }
        };
        match answer.map(|a| a.zone) {
            Ok(Some(entry)) => {
                if entry.revision > revision {
                    self.ahead.insert(id.to_string(), Some(entry.revision));
                }
                self.working.zones_mut().insert(entry.zone, entry.revision);
            }
            // Removed since: the removal's event is on its way.
            Ok(None) | Err(_) => {
                self.working.zones_mut().remove(id);
                self.ahead.insert(id.to_string(), None);
            }
        }
        Ok(())
    }

    fn publish(&mut self, revision: u64) {
        let snapshot = Arc::new(Snapshot::from_terrain(self.working.clone(), revision));
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = snapshot;
        self.progress.send_replace(Progress::At(revision));
    }
}
