//! Replication against the in-memory log ([`crate::store::memory::MemoryLog`]): lost
//! compare-and-swap races, exhausted retries, poison entries and the eviction of
//! recent outcomes.

use std::sync::Arc;

use terrain_core::{FlatZone, GeneratorKind};

use super::*;
use crate::{
    config::{Limits, WorldConfig},
    error::{ErrorCode, ServiceError},
    store::{ZoneStore, log::Write, memory::MemoryLog},
    test_support::square_zone,
    world::{Change, registry::MAX_ATTEMPTS},
};

/// Zone `a` centred on `(x, 0)`.
fn zone(x: f64) -> FlatZone {
    square_zone(x)
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Arc<ZoneStore>,
    worlds: Arc<Worlds>,
    log: Arc<MemoryLog>,
    metrics: Arc<Metrics>,
    replication: Replication,
}

impl Fixture {
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let configs = [WorldConfig::new("main", GeneratorKind::Hyperscape, 0)];
        let worlds = Worlds::open(&configs, &store, &Limits::default(), &[]).unwrap();
        let worlds = Arc::new(worlds);
        let log = Arc::new(MemoryLog::new("memory"));
        let metrics = Arc::new(Metrics::new().unwrap());
        let logs: Vec<Arc<dyn ZoneLog>> = vec![Arc::clone(&log) as _];
        let replication = Replication::start(&worlds, logs, Arc::clone(&metrics)).await;
        Fixture {
            _dir: dir,
            store,
            worlds,
            log,
            metrics,
            replication,
        }
    }

    fn world(&self) -> &Arc<World> {
        self.worlds.get("main").unwrap()
    }

    async fn applied(&self, revision: u64) {
        let link = self.world().link.get().unwrap();
        assert!(link.wait_applied(revision).await, "revision {revision}");
    }
}

#[tokio::test]
async fn a_reader_s_snapshot_does_not_hold_up_a_change() {
    let f = Fixture::new().await;
    let world = f.world();
    // With nobody reading, a change is made in place.
    let unread = Arc::as_ptr(&world.snapshot());
    world.register("a", zone(0.0).spec()).await.unwrap();
    assert_eq!(Arc::as_ptr(&world.snapshot()), unread, "changed in place");
    // A long computation holds the state it began on.
    let held = world.snapshot();
    let change = world.register("b", zone(500.0).spec());
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(10), change)
        .await
        .expect("the change waited for the reader")
        .unwrap();
    assert_eq!(outcome.revision, 2);
    // The reader still sees revision 1; a new reader sees the change.
    assert_eq!(held.revision(), 1);
    assert!(held.zones().get("b").is_none());
    let now = world.snapshot();
    assert_eq!(now.revision(), 2);
    let b = FlatZone {
        id: "b".into(),
        ..zone(500.0)
    };
    assert_eq!(now.zones().get("b"), Some(&b));
    assert_eq!(now.zones().get("a"), held.zones().get("a"));
    assert!(!Arc::ptr_eq(&now, &held), "the change went into a copy");
}

#[tokio::test]
async fn a_lost_race_is_planned_again_and_answers_what_really_happened() {
    let f = Fixture::new().await;
    let world = f.world();
    // Another replica registers a different zone `a` just before ours is checked.
    f.log.before_next_proposal(Write::Put(zone(50.0)));
    let outcome = world.register("a", zone(0.0).spec()).await.unwrap();
    assert_eq!(outcome.change, Change::Replaced);
    assert_eq!((outcome.revision, outcome.zone_revision), (2, 2));
    assert_eq!(outcome.zone, zone(0.0));
    // The tiles of both versions changed.
    assert_eq!(outcome.tiles, changed(world, &[zone(50.0), zone(0.0)]));
    let state = world.snapshot();
    assert_eq!(state.revision(), 2);
    assert_eq!(state.zones().get("a"), Some(&zone(0.0)));
    drop(state);
    // The local copy holds both revisions.
    assert_eq!(f.store.load("main").unwrap().revision, 2);
    assert_eq!(f.store.log("main", 0).unwrap().len(), 2);

    // The race is lost to exactly the change proposed: nothing more to do.
    f.log.before_next_proposal(Write::Put(zone(7.0)));
    let outcome = world.register("a", zone(7.0).spec()).await.unwrap();
    assert_eq!(outcome.change, Change::Unchanged);
    assert_eq!((outcome.revision, outcome.zone_revision), (3, 3));
    assert_eq!(f.log.revision(), 3);
}

fn changed(world: &World, zones: &[FlatZone]) -> Vec<(i64, i64)> {
    crate::world::registry::changed_tiles(&world.tile_grid(), zones).listed()
}

#[tokio::test]
async fn a_zone_that_keeps_changing_exhausts_the_retries() {
    let f = Fixture::new().await;
    for i in 0..MAX_ATTEMPTS {
        f.log
            .before_next_proposal(Write::Put(zone(100.0 + i as f64)));
    }
    let err = f.world().register("a", zone(0.0).spec()).await.unwrap_err();
    assert!(
        err.to_string().contains("keeps changing concurrently"),
        "{err}"
    );
    // ABORTED (HTTP 409), not UNAVAILABLE: the caller may simply try again.
    assert_eq!(err, RegistryError::Contended);
    assert_eq!(err.error_code(), ErrorCode::Aborted);
    // Every racing write was applied; ours never was.
    f.applied(MAX_ATTEMPTS as u64).await;
    let state = f.world().snapshot();
    assert_eq!(
        state.zones().get("a"),
        Some(&zone(99.0 + MAX_ATTEMPTS as f64))
    );
}

#[tokio::test]
async fn a_poison_entry_is_logged_counted_and_skipped() {
    let f = Fixture::new().await;
    let world = f.world();
    world.register("a", zone(0.0).spec()).await.unwrap();
    // Something else writes `a`'s key with what no server can read, then a zone `b`.
    assert_eq!(
        f.log
            .append_poison("a", "expected value at line 1 column 1"),
        2
    );
    let mut b = zone(300.0);
    b.id = "b".into();
    assert_eq!(f.log.append(Write::Put(b.clone())), 3);
    f.applied(3).await;
    {
        let state = world.snapshot();
        assert_eq!(state.revision(), 3);
        assert_eq!(state.zones().get("a"), Some(&zone(0.0)));
        assert_eq!(state.zones().get("b"), Some(&b));
    }
    let text = f.metrics.render();
    assert!(
        text.contains(r#"terrain_replication_poison_total{world="main"} 1"#),
        "{text}"
    );
    // Writes go on: replacing `a` loses once to the poison entry's key revision, then
    // lands.
    let outcome = world.register("a", zone(10.0).spec()).await.unwrap();
    assert_eq!((outcome.change, outcome.revision), (Change::Replaced, 4));
    assert!(f.replication.current().await);
    // The local copy has a hole where the poison entry was.
    let revisions: Vec<_> = f
        .store
        .log("main", 0)
        .unwrap()
        .iter()
        .map(|(r, _)| *r)
        .collect();
    assert_eq!(revisions, [1, 3, 4]);
}

#[tokio::test]
async fn recent_outcomes_are_evicted_oldest_first() {
    let mut recent = Recent::new(3);
    for revision in 1..=4 {
        recent.record(revision, None);
    }
    assert_eq!(recent.get(1), None);
    assert_eq!(recent.get(2), Some(None));
    assert_eq!(recent.get(4), Some(None));

    // A proposer whose outcome was evicted before it collected is told so.
    let link = Link::new(
        Arc::new(MemoryLog::new("memory")),
        0,
        CancellationToken::new(),
    );
    let outcome = |revision| Outcome {
        change: Change::Registered,
        zone: zone(0.0),
        zone_revision: revision,
        revision,
        tiles: Vec::new(),
        changed: Default::default(),
        bounds: crate::world::registry::zone_bounds([&zone(0.0)]),
        max_height_delta: 0.0,
    };
    for revision in 1..=RECENT_OUTCOMES as u64 + 1 {
        link.record(revision, Some(outcome(revision)));
    }
    let err = link.collect(1).await.unwrap_err();
    assert!(err.to_string().contains("superseded"), "{err}");
    assert_eq!(link.collect(2).await.unwrap().revision, 2);
}

#[tokio::test]
async fn proposers_stop_waiting_when_following_stops() {
    let f = Fixture::new().await;
    let link = Arc::clone(f.world().link.get().unwrap());
    f.replication.stop();
    let err = link.collect(5).await.unwrap_err();
    assert!(err.to_string().starts_with("shutting down"), "{err}");
}

#[tokio::test]
async fn shutdown_waits_for_the_followers_and_nothing_is_applied_after() {
    let f = Fixture::new().await;
    f.world().register("a", zone(0.0).spec()).await.unwrap();
    f.applied(1).await;
    // Every follower ends within the bound, none aborted.
    let started = std::time::Instant::now();
    f.replication
        .shutdown(std::time::Duration::from_secs(5))
        .await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // A change another replica writes to the log after shutdown is not applied here,
    // and a proposal is refused rather than left waiting.
    assert_eq!(f.log.append(Write::Put(zone(50.0))), 2);
    let refused = f.world().register("b", zone(200.0).spec()).await;
    assert!(refused.is_err(), "{refused:?}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(f.world().snapshot().revision(), 1);
    assert_eq!(f.store.load("main").unwrap().revision, 1);
}

/// The ground as of each applied revision holds that revision's zones (with the
/// revisions that registered them), a poison entry (a change of nothing here)
/// included; a revision newer than the world's is refused naming `revision`.
#[tokio::test]
async fn the_ground_as_of_each_applied_revision_has_that_revision_s_zones() {
    let f = Fixture::new().await;
    let world = f.world();
    let moved = FlatZone {
        center_x: 10.0,
        ..zone(0.0)
    };
    let b = FlatZone {
        id: "b".into(),
        ..zone(300.0)
    };
    assert_eq!(f.log.append(Write::Put(zone(0.0))), 1);
    assert_eq!(f.log.append(Write::Put(moved)), 2);
    assert_eq!(f.log.append(Write::Delete("a".into())), 3);
    assert_eq!(f.log.append_poison("a", "not a zone"), 4);
    assert_eq!(f.log.append(Write::Put(b)), 5);
    f.applied(5).await;
    let zones = |revision| -> Vec<(String, f64, u64)> {
        let ground = match world.past(Some(revision)).unwrap() {
            crate::world::asof::Past::Ready(ground) => ground,
            crate::world::asof::Past::ToBuild(plan) => world.build_past(plan),
        };
        assert_eq!(ground.revision(), revision);
        let terrain = crate::world::AsTerrain::terrain(&ground);
        terrain
            .zones()
            .iter()
            .map(|(z, r)| (z.id.clone(), z.center_x, r))
            .collect()
    };
    assert_eq!(zones(0), []);
    assert_eq!(zones(1), [("a".to_string(), 0.0, 1)]);
    assert_eq!(zones(2), [("a".to_string(), 10.0, 2)]);
    assert_eq!(zones(3), []);
    assert_eq!(zones(4), []);
    assert_eq!(zones(5), [("b".to_string(), 300.0, 5)]);
    // Asked again: the same ground, from the cache.
    assert_eq!(zones(2), [("a".to_string(), 10.0, 2)]);
    let Err(err) = world.past(Some(6)) else {
        panic!("revision 6 is ahead of the world");
    };
    assert_eq!(err.error_code(), ErrorCode::FailedPrecondition);
    assert_eq!(err.field(), Some("revision"));
    assert!(err.to_string().starts_with("revision: 6 is newer"), "{err}");
}
