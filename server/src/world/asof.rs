//! As of a revision: the ground a world had at an earlier revision, for lag
//! compensation (a game server judging a move against the ground the client saw when
//! it made it).
//!
//! Each world keeps, beside its current state, the undo record of each of its last
//! `asof_revisions` revisions ([`History`]): the zone the revision changed and what
//! that zone was before it (absent, or a version with the revision that registered
//! it). The zones at revision `r` are the current zones with, for every zone a later
//! revision changed, the version the earliest such change replaced ([`zones_at`]);
//! the ground at `r` is the world's generator and layout with those zones, built as a
//! fresh world is built from them ([`Terrain::with_zones`]), so it answers what a
//! world built with the zones of revision `r` answers, bit for bit.
//!
//! The follower records a revision's undo before it installs the revision's state
//! (`World::apply_entry`), so whoever sees a state of revision `c` finds
//! every record up to `c`. At start-up the history is rebuilt from the retained zone
//! log (`event_history` revisions) as far as it says what each change replaced. A gap
//! in the revisions (a replica that saw only a later write of a zone) starts the
//! history again from the revision after it: what the world held inside the gap is
//! unknown here.
//!
//! Built grounds are kept in a small cache per world ([`CACHED_GROUNDS`] revisions,
//! least recently used dropped), so a burst of lag-compensated queries against the
//! same few revisions builds each once. They never touch the mesh cache, whose tiles
//! are keyed by the current versions.

use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

use terrain_core::{FlatZone, Terrain};

use super::{AsTerrain, WorldState};
use crate::{
    error::{ErrorCode, ServiceError},
    store::{Mutation, MutationKind},
};

/// Grounds of past revisions kept built per world.
pub const CACHED_GROUNDS: usize = 4;

/// A zone's version: the zone and the revision that registered (or last replaced) it.
pub type Version = (FlatZone, u64);

/// What one revision changed, to undo it.
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    /// The zone the revision wrote and what it was before (`None`: absent); `None`
    /// for a revision that changed nothing here.
    pub change: Option<(String, Option<Version>)>,
}

/// The undo records of a world's revisions `floor + 1 ..= top`, at most `limit` of
/// them: the zones at every revision from `floor` to `top` can be rebuilt from those
/// at `top`.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    limit: usize,
    floor: u64,
    undos: VecDeque<Undo>,
}

impl History {
    /// A history of at most `limit` revisions that starts at `revision`: nothing
    /// older is known.
    pub fn new(limit: usize, revision: u64) -> Self {
        History {
            limit,
            floor: revision,
            undos: VecDeque::new(),
        }
    }

    /// The history the retained zone `log` (in revision order) gives a world now at
    /// `revision`: the longest run of entries ending at `revision`, without a gap,
    /// whose every change says what it replaced (a replacement's or removal's earlier
    /// version must itself be in the log), at most `limit` of them.
    pub fn from_log(limit: usize, log: &[(u64, Mutation)], revision: u64) -> Self {
        let mut history = History::new(limit, 0);
        let mut started = false;
        // Each zone's latest version written in the log so far.
        let mut latest: HashMap<&str, (&FlatZone, u64)> = HashMap::new();
        for (at, mutation) in log {
            let id = mutation.zone.id.as_str();
            let before = match mutation.kind {
                MutationKind::Registered => Some(None),
                MutationKind::Replaced | MutationKind::Removed => latest
                    .get(id)
                    .map(|&(zone, written)| Some((zone.clone(), written))),
            };
            let follows = *at == history.top() + 1;
            match before {
                Some(before) if started && follows => {
                    history.record(*at, Some((id.to_string(), before)));
                }
                // The first retained entry: the zones before it are known from it.
                Some(before) if !started => {
                    history = History::new(limit, at.saturating_sub(1));
                    history.record(*at, Some((id.to_string(), before)));
                }
                // After a gap, or a change whose earlier version was pruned: nothing
                // before it is known.
                _ => history = History::new(limit, *at),
            }
            started = true;
            match mutation.kind {
                MutationKind::Removed => {
                    latest.remove(id);
                }
                MutationKind::Registered | MutationKind::Replaced => {
                    latest.insert(id, (&mutation.zone, *at));
                }
            }
        }
        if !started || history.top() != revision {
            // No log, or revisions after it this log does not hold.
            return History::new(limit, revision);
        }
        history
    }

    /// The oldest revision whose zones can be rebuilt.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// The newest revision recorded.
    pub fn top(&self) -> u64 {
        self.floor + self.undos.len() as u64
    }

    /// Most revisions kept.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Records what `revision` changed (`change`: the zone and its version before;
    /// `None` when it changed nothing). A revision already recorded is ignored; one
    /// after a gap starts the history again from it. The oldest records beyond the
    /// limit are dropped.
    pub fn record(&mut self, revision: u64, change: Option<(String, Option<Version>)>) {
        let top = self.top();
        if revision <= top {
            return;
        }
        if revision == top + 1 {
            self.undos.push_back(Undo { change });
        } else {
            self.undos.clear();
            self.floor = revision;
        }
        while self.undos.len() > self.limit {
            self.undos.pop_front();
            self.floor += 1;
        }
    }

    /// The undo records of revisions `revision + 1 ..= at`, oldest first, or `None`
    /// unless `floor <= revision <= at <= top`.
    pub fn between(&self, revision: u64, at: u64) -> Option<Vec<Undo>> {
        if revision < self.floor || revision > at || at > self.top() {
            return None;
        }
        let from = (revision - self.floor) as usize;
        let to = (at - self.floor) as usize;
        Some(self.undos.range(from..to).cloned().collect())
    }
}

/// The zones at a revision, in registration order: `current` (the zones at a later
/// revision, each with its registration revision) with the changes of `undos` (the
/// records of every revision after the one wanted up to that later one, oldest
/// first) undone.
pub fn zones_at<'a>(
    current: impl IntoIterator<Item = (&'a FlatZone, u64)>,
    undos: &[Undo],
) -> Vec<Version> {
    // Each changed zone's version before its earliest change in `undos`.
    let mut before: HashMap<&str, Option<&Version>> = HashMap::new();
    for (id, version) in undos.iter().filter_map(|u| u.change.as_ref()) {
        before.entry(id.as_str()).or_insert(version.as_ref());
    }
    let mut zones: Vec<Version> = current
        .into_iter()
        .filter(|(zone, _)| !before.contains_key(zone.id.as_str()))
        .map(|(zone, revision)| (zone.clone(), revision))
        .chain(before.values().filter_map(|v| v.cloned()))
        .collect();
    // Registration revisions are distinct: this is registration order.
    zones.sort_by_key(|&(_, revision)| revision);
    zones
}

/// Why a world cannot answer as of a revision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AsOfError {
    /// The revision is newer than the world's: as-of queries do not wait for one.
    #[error(
        "revision: {revision} is newer than world {world:?}'s current revision {current} \
         (an as-of query answers for a revision the world has reached; it does not wait)"
    )]
    Ahead {
        world: String,
        revision: u64,
        current: u64,
    },
    /// The revision is older than the world's history reaches.
    #[error(
        "revision: {revision} is no longer held for world {world:?}: as-of queries reach \
         revisions {oldest} to {current} (asof_revisions = {window})"
    )]
    Gone {
        world: String,
        revision: u64,
        oldest: u64,
        current: u64,
        window: usize,
    },
}

impl ServiceError for AsOfError {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::FailedPrecondition
    }

    fn field(&self) -> Option<&str> {
        Some("revision")
    }
}

/// A world's history and the grounds of past revisions built from it.
#[derive(Debug)]
pub(super) struct AsOf {
    pub(super) history: History,
    /// Built grounds, most recently used last.
    cache: VecDeque<(u64, Arc<Terrain>)>,
}

impl AsOf {
    pub(super) fn new(history: History) -> Self {
        AsOf {
            history,
            cache: VecDeque::new(),
        }
    }

    /// The ground of `revision` if it is built, now the most recently used.
    pub(super) fn cached(&mut self, revision: u64) -> Option<Arc<Terrain>> {
        let i = self.cache.iter().position(|(r, _)| *r == revision)?;
        let entry = self.cache.remove(i)?;
        let terrain = Arc::clone(&entry.1);
        self.cache.push_back(entry);
        Some(terrain)
    }

    /// Keeps the ground of `revision`, dropping the least recently used beyond
    /// [`CACHED_GROUNDS`] and any the history no longer reaches.
    pub(super) fn keep(&mut self, revision: u64, terrain: Arc<Terrain>) {
        let floor = self.history.floor();
        self.cache.retain(|(r, _)| *r != revision && *r >= floor);
        self.cache.push_back((revision, terrain));
        while self.cache.len() > CACHED_GROUNDS {
            self.cache.pop_front();
        }
    }
}

/// A ground asked for as of a revision: ready at once, or to be built first.
#[derive(Debug)]
pub enum Past {
    /// The current state, or a ground of a past revision from the cache.
    Ready(Ground),
    /// A past revision's ground that must be rebuilt ([`super::World::build_past`]).
    ToBuild(PastPlan),
}

/// What rebuilding the ground of a past revision starts from.
#[derive(Debug)]
pub struct PastPlan {
    /// The revision wanted.
    pub(super) revision: u64,
    /// The state its zones are rebuilt from (a later one).
    pub(super) state: Arc<WorldState>,
    /// The changes after `revision` up to `state`'s, to undo.
    pub(super) undos: Vec<Undo>,
}

impl PastPlan {
    /// The revision wanted.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The (later) state the rebuild starts from: its generator and layout are the
    /// past revision's too, only its zones differ.
    pub fn state(&self) -> &Arc<WorldState> {
        &self.state
    }

    /// How many zones the rebuilt ground starts from (the state's): what the rebuild
    /// costs is about proportional to it.
    pub fn zones(&self) -> usize {
        self.state.zones().len()
    }
}

/// What a query reads heights from: the world's current state, or the ground of an
/// earlier revision.
#[derive(Debug, Clone)]
pub enum Ground {
    Current(Arc<WorldState>),
    Past {
        terrain: Arc<Terrain>,
        revision: u64,
    },
}

impl Ground {
    /// The revision the ground is of: what the answer carries.
    pub fn revision(&self) -> u64 {
        match self {
            Ground::Current(state) => state.revision(),
            Ground::Past { revision, .. } => *revision,
        }
    }

    /// The current state, when this is it (its tile versions key the mesh cache).
    pub fn current(&self) -> Option<&Arc<WorldState>> {
        match self {
            Ground::Current(state) => Some(state),
            Ground::Past { .. } => None,
        }
    }
}

impl AsTerrain for Ground {
    fn terrain(&self) -> &Terrain {
        match self {
            Ground::Current(state) => state.terrain(),
            Ground::Past { terrain, .. } => terrain,
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::test_support::square_zone;

    fn zone(id: &str, x: f64) -> FlatZone {
        FlatZone {
            id: id.into(),
            ..square_zone(x)
        }
    }

    /// A random log of registrations, replacements and removals over four ids, with
    /// the zones at every revision by applying it forward (the oracle).
    fn scripted(seed: u64, len: u64) -> (Vec<(u64, Mutation)>, Vec<Vec<Version>>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut live: Vec<Version> = Vec::new();
        let mut states = vec![Vec::new()];
        let mut log = Vec::new();
        for revision in 1..=len {
            let id = format!("z{}", rng.random_range(0..4));
            let pos = live.iter().position(|(z, _)| z.id == id);
            let x = f64::from(rng.random_range(0..1000));
            let mutation = match pos {
                Some(i) if rng.random_range(0..3) == 0 => {
                    let (old, _) = live.remove(i);
                    Mutation {
                        kind: MutationKind::Removed,
                        zone: old,
                    }
                }
                Some(i) => {
                    live.remove(i);
                    live.push((zone(&id, x), revision));
                    Mutation {
                        kind: MutationKind::Replaced,
                        zone: zone(&id, x),
                    }
                }
                None => {
                    live.push((zone(&id, x), revision));
                    Mutation {
                        kind: MutationKind::Registered,
                        zone: zone(&id, x),
                    }
                }
            };
            log.push((revision, mutation));
            states.push(live.clone());
        }
        (log, states)
    }

    /// The history the follower keeps, recording each entry against the zones
    /// before it, as [`super::super::World::apply_entry`] does.
    fn followed(limit: usize, states: &[Vec<Version>], log: &[(u64, Mutation)]) -> History {
        let mut history = History::new(limit, 0);
        for (revision, mutation) in log {
            let before = &states[*revision as usize - 1];
            let id = mutation.zone.id.clone();
            let version = before.iter().find(|(z, _)| z.id == id).cloned();
            history.record(*revision, Some((id, version)));
        }
        history
    }

    fn rebuilt(history: &History, current: &[Version], at: u64, revision: u64) -> Vec<Version> {
        let undos = history.between(revision, at).expect("in the window");
        zones_at(current.iter().map(|(z, r)| (z, *r)), &undos)
    }

    #[test]
    fn every_revision_in_the_window_is_the_forward_replay() {
        for seed in [1, 7, 42, 1234] {
            let (log, states) = scripted(seed, 60);
            let top = states.len() as u64 - 1;
            let history = followed(100, &states, &log);
            assert_eq!((history.floor(), history.top()), (0, top));
            for revision in 0..=top {
                assert_eq!(
                    rebuilt(&history, &states[top as usize], top, revision),
                    states[revision as usize],
                    "seed {seed}, revision {revision}"
                );
            }
            // From an intermediate state too (a reader holding an older snapshot).
            for revision in 0..=30 {
                assert_eq!(
                    rebuilt(&history, &states[30], 30, revision),
                    states[revision as usize]
                );
            }
            // The log rebuilds the same history at start-up.
            assert_eq!(History::from_log(100, &log, top), history);
        }
    }

    #[test]
    fn the_window_keeps_the_last_revisions_only() {
        let (log, states) = scripted(9, 40);
        let history = followed(5, &states, &log);
        assert_eq!((history.floor(), history.top()), (35, 40));
        assert!(history.between(34, 40).is_none());
        assert!(history.between(35, 41).is_none());
        assert!(history.between(36, 35).is_none());
        for revision in 35..=40 {
            assert_eq!(
                rebuilt(&history, &states[40], 40, revision),
                states[revision as usize]
            );
        }
        assert_eq!(History::from_log(5, &log, 40), history);
    }

    #[test]
    fn a_gap_restarts_the_history_after_it() {
        let mut history = History::new(10, 0);
        history.record(1, Some(("a".into(), None)));
        history.record(2, None);
        assert_eq!((history.floor(), history.top()), (0, 2));
        // Recorded again (a feed reopened): ignored.
        history.record(2, Some(("b".into(), None)));
        assert_eq!(history.between(1, 2).unwrap(), [Undo { change: None }]);
        history.record(5, Some(("a".into(), None)));
        assert_eq!((history.floor(), history.top()), (5, 5));
        assert!(history.between(4, 5).is_none());
        history.record(6, None);
        assert_eq!(history.between(5, 6).unwrap().len(), 1);
    }

    #[test]
    fn a_pruned_log_reaches_back_only_as_far_as_it_says_what_was_replaced() {
        let (log, states) = scripted(3, 50);
        // Drop the first 20 entries, as pruning to event_history does.
        let retained = &log[20..];
        let history = History::from_log(100, retained, 50);
        assert_eq!(history.top(), 50);
        assert!(history.floor() >= 20, "{}", history.floor());
        for revision in history.floor()..=50 {
            assert_eq!(
                rebuilt(&history, &states[50], 50, revision),
                states[revision as usize]
            );
        }
        // The first retained change of a zone written before the retained log cannot
        // be undone: the history starts at or after it.
        let first_blind = retained
            .iter()
            .find(|(at, m)| {
                m.kind != MutationKind::Registered
                    && !retained
                        .iter()
                        .any(|(b, o)| b < at && o.zone.id == m.zone.id)
            })
            .map(|(at, _)| *at);
        if let Some(at) = first_blind {
            assert!(history.floor() >= at, "{} < {at}", history.floor());
        }
        // A log that stops short of the world's revision: nothing older is known.
        assert_eq!(History::from_log(100, &log, 51), History::new(100, 51));
        assert_eq!(History::from_log(100, &[], 7), History::new(100, 7));
    }

    #[test]
    fn the_cache_keeps_the_most_recently_used_grounds() {
        let terrain = Arc::new(
            terrain_core::build_terrain(
                &terrain_core::WorldSpec {
                    generator: terrain_core::GeneratorKind::Osrs,
                    seed: 0,
                    overlap: Default::default(),
                    layout: None,
                    voxel: None,
                },
                [],
            )
            .unwrap(),
        );
        let mut asof = AsOf::new(History::new(100, 0));
        for revision in 0..6 {
            asof.keep(revision, Arc::clone(&terrain));
        }
        assert!(asof.cached(0).is_none() && asof.cached(1).is_none());
        assert!(asof.cached(2).is_some());
        asof.keep(6, Arc::clone(&terrain));
        // 2 was used last: 3 went.
        assert!(asof.cached(3).is_none());
        assert!(asof.cached(2).is_some() && asof.cached(6).is_some());
    }
}
