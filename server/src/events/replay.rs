//! Past events, rebuilt from the retained mutation log.
//!
//! A resume from revision `from` reads only the entries it missed, `(from, to]`
//! (the log is keyed by revision), so resuming the last 10 of 100,000 retained
//! events reads about 10 entries.
//!
//! Tiles and bounds are recomputed as the registry computed them: the logged zone
//! and, for a replacement, the version it replaced (the latest earlier entry for the
//! same id in the retained log; if that entry was pruned, only the new zone counts).
//! A version older than the resume point is read through the replacement's link
//! back to it (one read per zone); replacements logged before the link existed have
//! theirs found by reading the log back from the resume point, in one pass for all
//! such zones. The height change is the one the publisher recorded in the entry.

use std::collections::{HashMap, HashSet};

use terrain_core::{FlatZone, tiles3d::TilesetLayout};

use super::{Area, Event};
use crate::{
    store::{LogEntry, MutationKind, StoreError, ZoneStore},
    world::registry::{changed_tiles, zone_bounds},
};

/// What a resume from a revision finds.
#[derive(Debug, PartialEq)]
pub enum Replay {
    /// The entries after the resume point were pruned.
    Gone,
    /// The matching events after the resume point, in revision order.
    Events(Vec<Event>),
}

/// The events of `world` in `(from, to]` that touch `area`, on the world's tileset
/// layout `tileset` (whose grid is the world's tile grid). Blocks on the store.
pub fn replay(
    store: &ZoneStore,
    tileset: &TilesetLayout,
    world: &str,
    from: u64,
    to: u64,
    area: &Area,
) -> Result<Replay, StoreError> {
    if from >= to {
        return Ok(Replay::Events(Vec::new()));
    }
    let missed = store.history_between(world, from, to)?;
    // Every revision in (from, to] must be there: one missing was pruned, or is a
    // hole in a replica's log (see [`ZoneStore::commit_replicated`]).
    if missed.len() as u64 != to - from {
        return Ok(Replay::Gone);
    }
    // Each zone's latest version so far (None: never seen, or removed), starting
    // from the versions in force at the resume point of the zones replaced before
    // the missed entries wrote them otherwise.
    let mut latest = before_resume(store, world, &missed, from + 1)?;
    let mut events = Vec::new();
    for entry in &missed {
        let zone = &entry.mutation.zone;
        let kind = entry.mutation.kind;
        let previous = match kind {
            MutationKind::Replaced => latest.get(zone.id.as_str()).cloned().flatten(),
            _ => None,
        };
        let event = event_of(tileset, world, entry, previous.as_ref());
        if area.matches(&event) {
            events.push(event);
        }
        let now = match kind {
            MutationKind::Removed => None,
            MutationKind::Registered | MutationKind::Replaced => Some(zone.clone()),
        };
        latest.insert(zone.id.as_str(), now);
    }
    Ok(Replay::Events(events))
}

/// The versions in force before revision `before` of the zones that `missed`
/// replaces before writing them any other way, by id, as far as the retained log
/// still holds them (none when the latest write there is a removal).
fn before_resume<'a>(
    store: &ZoneStore,
    world: &str,
    missed: &'a [LogEntry],
    before: u64,
) -> Result<HashMap<&'a str, Option<FlatZone>>, StoreError> {
    let mut written = HashSet::new();
    // Linked back to the version they replace, and not.
    let (mut linked, mut unlinked) = (Vec::new(), Vec::new());
    for entry in missed {
        let id = entry.mutation.zone.id.as_str();
        if written.insert(id) && entry.mutation.kind == MutationKind::Replaced {
            match entry.replaces.filter(|&r| r < before) {
                Some(revision) => linked.push((id, revision)),
                None => unlinked.push(id),
            }
        }
    }
    let revisions: Vec<u64> = linked.iter().map(|&(_, r)| r).collect();
    let mut at = store.entries_at(world, &revisions)?;
    let mut found = store.last_writes_before(world, &unlinked, before)?;
    let zone = |e: LogEntry| (e.mutation.kind != MutationKind::Removed).then_some(e.mutation.zone);
    let mut versions: HashMap<&str, Option<FlatZone>> = linked
        .into_iter()
        .map(|(id, revision)| {
            let entry = at.remove(&revision).filter(|e| e.mutation.zone.id == id);
            (id, entry.and_then(zone))
        })
        .collect();
    versions.extend(
        unlinked
            .into_iter()
            .map(|id| (id, found.remove(id).and_then(zone))),
    );
    Ok(versions)
}

fn event_of(
    tileset: &TilesetLayout,
    world: &str,
    entry: &LogEntry,
    previous: Option<&FlatZone>,
) -> Event {
    let zone = &entry.mutation.zone;
    let zones = || previous.into_iter().chain([zone]);
    let changed = changed_tiles(&tileset.grid, zones());
    Event {
        world: world.to_string(),
        revision: entry.revision,
        zone: zone.id.clone(),
        kind: entry.mutation.kind,
        tiles: changed.listed(),
        tile_rects: changed.rects.clone(),
        tile_count: changed.count,
        bounds: zone_bounds(zones()),
        max_height_delta: entry.max_height_delta,
        walkable: super::publisher::walkable_after(entry.mutation.kind, zone),
        tileset_contents: tileset.changed_contents(&changed.rects),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Mutation;
    use terrain_core::TileGrid;

    use crate::test_support::square_zone as zone;

    /// The tileset of 16 x 16 island tiles (100 m, 64 vertices, centred).
    fn island_square() -> TilesetLayout {
        let grid = TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        };
        TilesetLayout::covering(grid, 1600.0, 0.25)
    }

    fn commit(store: &ZoneStore, revision: u64, kind: MutationKind, x: f64) {
        let zone = zone(x);
        store
            .commit("main", revision, &Mutation { kind, zone })
            .unwrap();
        store.annotate("main", revision, x / 100.0, 3).unwrap();
    }

    #[test]
    fn replacements_count_the_old_tiles_and_pruned_history_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let layout = island_square();
        commit(&store, 1, MutationKind::Registered, 0.0);
        commit(&store, 2, MutationKind::Replaced, 300.0);
        let Replay::Events(events) = replay(&store, &layout, "main", 1, 2, &Area::All).unwrap()
        else {
            panic!("history is there");
        };
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].tiles, [(0, 0), (3, 0)]);
        assert_eq!(events[0].bounds.min_x, -8.0);
        assert_eq!(events[0].bounds.max_x, 308.0);
        assert_eq!(events[0].max_height_delta, Some(3.0));
        let far = Area::tiles([10, 10, 11, 11], "t").unwrap();
        assert_eq!(
            replay(&store, &layout, "main", 0, 2, &far).unwrap(),
            Replay::Events(Vec::new())
        );
        for r in 3..=5 {
            commit(&store, r, MutationKind::Removed, 0.0);
        }
        assert_eq!(
            replay(&store, &layout, "main", 1, 5, &Area::All).unwrap(),
            Replay::Gone
        );
        let Replay::Events(events) = replay(&store, &layout, "main", 2, 5, &Area::All).unwrap()
        else {
            panic!("entries 3..=5 are kept");
        };
        assert_eq!(
            events.iter().map(|e| e.revision).collect::<Vec<_>>(),
            [3, 4, 5]
        );
    }

    /// What a resume found when it folded the whole retained log (the previous way).
    fn replay_whole(
        store: &ZoneStore,
        layout: &TilesetLayout,
        from: u64,
        to: u64,
        area: &Area,
    ) -> Vec<Event> {
        let history = store.history("main", to).unwrap();
        let mut latest: HashMap<&str, &FlatZone> = HashMap::new();
        let mut events = Vec::new();
        for entry in &history {
            let zone = &entry.mutation.zone;
            if entry.revision > from {
                let previous = match entry.mutation.kind {
                    MutationKind::Replaced => latest.get(zone.id.as_str()).copied(),
                    _ => None,
                };
                let event = event_of(layout, "main", entry, previous);
                if area.matches(&event) {
                    events.push(event);
                }
            }
            match entry.mutation.kind {
                MutationKind::Removed => latest.remove(zone.id.as_str()),
                _ => latest.insert(zone.id.as_str(), zone),
            };
        }
        events
    }

    #[test]
    fn a_resume_from_anywhere_finds_what_folding_the_whole_log_found() {
        let layout = island_square();
        // Three ids registered, replaced, removed and registered again, moving.
        let kinds = [
            MutationKind::Registered,
            MutationKind::Replaced,
            MutationKind::Replaced,
            MutationKind::Removed,
        ];
        // With replacements linked back to the version they replace (as commits log
        // them), and without (entries logged before the link existed).
        for linked in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let store = ZoneStore::open(dir.path()).unwrap();
            let mut last_write = HashMap::new();
            let entries: Vec<LogEntry> = (1..=24u64)
                .map(|revision| {
                    let mut z = zone(revision as f64 * 90.0);
                    z.id = format!("z{}", revision % 3);
                    let kind = kinds[((revision - 1) / 3 % 4) as usize];
                    let previous = last_write.insert(z.id.clone(), revision);
                    LogEntry {
                        revision,
                        mutation: Mutation { kind, zone: z },
                        max_height_delta: Some(revision as f64),
                        replaces: previous.filter(|_| linked && kind == MutationKind::Replaced),
                    }
                })
                .collect();
            store.append_history("main", &entries).unwrap();
            let near = Area::tiles([0, -1, 12, 1], "t").unwrap();
            for area in [Area::All, near] {
                for from in 0..24 {
                    let got = replay(&store, &layout, "main", from, 24, &area).unwrap();
                    let want = replay_whole(&store, &layout, from, 24, &area);
                    assert_eq!(got, Replay::Events(want), "linked {linked}, from {from}");
                }
            }
            // Pruned history: a version replaced before the first retained entry no
            // longer counts, linked or not.
            store.annotate("main", 24, 24.0, 14).unwrap();
            assert_eq!(store.history("main", 24).unwrap()[0].revision, 11);
            for from in 10..24 {
                let got = replay(&store, &layout, "main", from, 24, &Area::All).unwrap();
                let want = replay_whole(&store, &layout, from, 24, &Area::All);
                assert_eq!(
                    got,
                    Replay::Events(want),
                    "pruned, linked {linked}, from {from}"
                );
            }
        }
    }

    #[test]
    fn a_hole_in_a_replicated_log_is_gone_only_for_resumes_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let layout = island_square();
        let m = |x| Mutation {
            kind: MutationKind::Registered,
            zone: zone(x),
        };
        store.commit_replicated("main", 1, &m(0.0)).unwrap();
        store.commit_replicated("main", 4, &m(100.0)).unwrap();
        store.commit_replicated("main", 5, &m(200.0)).unwrap();
        assert!(store.commit_replicated("main", 5, &m(0.0)).is_err());
        assert_eq!(store.revision("main").unwrap(), 5);
        assert_eq!(
            replay(&store, &layout, "main", 0, 5, &Area::All).unwrap(),
            Replay::Gone
        );
        assert_eq!(
            replay(&store, &layout, "main", 2, 5, &Area::All).unwrap(),
            Replay::Gone
        );
        let Replay::Events(events) = replay(&store, &layout, "main", 3, 5, &Area::All).unwrap()
        else {
            panic!("4 and 5 are there");
        };
        assert_eq!(
            events.iter().map(|e| e.revision).collect::<Vec<_>>(),
            [4, 5]
        );
    }
}
