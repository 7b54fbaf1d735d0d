//! The write path of a world's flat-zone registry: register, replace, remove.
//!
//! A mutation is validated (no state needed), then runs on a blocking thread while
//! holding the world's writer lock: plan it against the current state (a read lock),
//! commit it to the store (fsync; readers are not held up), and only then apply it to
//! the in-memory zones under a short write lock. The writer lock moves into the
//! blocking task, so a caller that hangs up mid-way cannot let the next mutation
//! start before this one is applied.
//!
//! Every accepted mutation takes the world's next revision and reports the tiles
//! whose heights or normals it changes: [`TileLayout::tiles_touching`] of the old and
//! the new zone's outer bounds, with a margin of [`TILE_MARGIN`]. Registering a zone
//! identical to the registered one (after resolving `heightOffset`) is a no-op:
//! [`Change::Unchanged`], the current revision, no tiles, nothing stored.

use std::{fmt, sync::Arc};

use terrain_core::{
    FlatZone, TileLayout,
    zones::{Bounds, ZoneSpec, validate_id},
};
use tracing::{debug, info};

use super::{
    World, WorldState,
    delta::{Probe, max_delta, union},
};
use crate::{
    error::ApiError,
    store::{
        Mutation, MutationKind, StoreError,
        nats::{FeedChange, FeedEntry},
    },
};

/// How far beyond a zone's outer bounds heights can change: hyperscape's shoreline
/// reads samples 1 m away, which may fall in the zone.
pub const TILE_MARGIN: f64 = 1.0;

/// What a registry call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Registered,
    Replaced,
    Removed,
    /// The zone was already registered exactly so: no revision taken.
    Unchanged,
}

impl Change {
    /// The name used in logs and API answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Registered => "registered",
            Change::Replaced => "replaced",
            Change::Removed => "removed",
            Change::Unchanged => "unchanged",
        }
    }

    fn of(kind: MutationKind) -> Self {
        match kind {
            MutationKind::Registered => Change::Registered,
            MutationKind::Replaced => Change::Replaced,
            MutationKind::Removed => Change::Removed,
        }
    }
}

/// The answer to a registry call.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub change: Change,
    /// The zone registered (height resolved), or the zone removed.
    pub zone: FlatZone,
    /// The revision that registered the zone; for a removal, the removal's.
    pub zone_revision: u64,
    /// The world's revision after the call.
    pub revision: u64,
    /// Tiles whose heights or normals changed, row-major (z outer, x inner).
    pub tiles: Vec<(i64, i64)>,
    /// The area whose heights may have changed: the old and new zones' outer bounds
    /// grown by [`TILE_MARGIN`].
    pub bounds: Bounds,
    /// The largest absolute height change inside `bounds`, sampled at most 0.5 m
    /// apart (0 for an unchanged registration).
    pub max_height_delta: f64,
}

/// A validated mutation request.
#[derive(Debug, Clone)]
pub(super) enum Op {
    Register { id: String, spec: ZoneSpec },
    Remove { id: String },
}

/// A planned mutation: the answer, and what to commit (nothing for a no-op).
pub(super) struct Plan {
    pub(super) outcome: Outcome,
    pub(super) mutation: Option<Mutation>,
}

impl World {
    /// Registers zone `id` (or replaces the zone with that id).
    pub async fn register(self: &Arc<Self>, id: &str, spec: ZoneSpec) -> Result<Outcome, ApiError> {
        self.check(id, &spec)?;
        let id = id.to_string();
        self.mutate(Op::Register { id, spec }).await
    }

    /// Checks zone `id` against the zone invariants and this world's limits (not the
    /// zone count, which depends on the state).
    pub fn check(&self, id: &str, spec: &ZoneSpec) -> Result<(), ApiError> {
        validate_id(id).map_err(|e| ApiError::zone(&e))?;
        spec.validate(&self.rules.limits)
            .map_err(|e| ApiError::zone(&e))
    }

    /// Removes zone `id`; `NOT_FOUND` (field `id`) if it is not registered.
    pub async fn unregister(self: &Arc<Self>, id: &str) -> Result<Outcome, ApiError> {
        validate_id(id).map_err(|e| ApiError::zone(&e))?;
        let id = id.to_string();
        self.mutate(Op::Remove { id }).await
    }

    /// Runs `op` on a blocking thread, holding the writer lock until it is applied.
    async fn mutate(self: &Arc<Self>, op: Op) -> Result<Outcome, ApiError> {
        if let Some(shared) = self.shared.get() {
            return self.propose(shared, op).await;
        }
        let writer = Arc::clone(&self.writer).lock_owned().await;
        let world = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let _writer = writer;
            world.apply(op)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("registry task: {e}")))?
    }

    /// Plans, commits and applies `op`. Blocking; the caller holds the writer lock.
    fn apply(&self, op: Op) -> Result<Outcome, ApiError> {
        let (plan, probe, before) = {
            let state = self.state.blocking_read();
            let plan = self.plan(&state, op)?;
            let probe = Probe::over(&plan.outcome.bounds);
            let before = plan
                .mutation
                .as_ref()
                .map(|_| probe.sample(state.terrain()));
            (plan, probe, before)
        };
        let (Some(mutation), Some(before)) = (plan.mutation, before) else {
            let o = &plan.outcome;
            debug!(world = %self.id, zone = %o.zone.id, revision = o.revision, "flat zone unchanged");
            return Ok(plan.outcome);
        };
        let outcome = plan.outcome;
        self.store
            .commit(&self.id, outcome.revision, &mutation)
            .map_err(|e| match e {
                StoreError::Closed => {
                    ApiError::Unavailable("shutting down: the zone store is closed")
                }
                other => ApiError::Internal(other.to_string()),
            })?;
        Ok(self.finish(mutation, outcome, &probe, &before))
    }

    /// Applies one message of the shared store's change feed (see [`super::follow`]):
    /// commits it to this replica's store as revision `entry.revision` and installs it
    /// like a local mutation, listeners included. Answers `None` for a revision that
    /// changes nothing here (a removal of a zone this replica never saw, or a message
    /// that does not parse). Blocking; only the world's follower calls it.
    pub(super) fn apply_feed(&self, entry: FeedEntry) -> Result<Option<Outcome>, StoreError> {
        let revision = entry.revision;
        let (plan, probe, before, skipped) = {
            let state = self.state.blocking_read();
            let skipped = revision > state.revision + 1;
            let Some(plan) = plan_feed(&self.layout, &state, entry.change, revision) else {
                drop(state);
                let mut state = self.state.blocking_write();
                state.revision = state.revision.max(revision);
                return Ok(None);
            };
            let probe = Probe::over(&plan.outcome.bounds);
            let before = probe.sample(state.terrain());
            (plan, probe, before, skipped)
        };
        let Some(mutation) = plan.mutation else {
            return Ok(None);
        };
        self.store
            .commit_replicated(&self.id, revision, &mutation)?;
        let outcome = self.finish(mutation, plan.outcome, &probe, &before);
        if skipped {
            for listener in &self.listeners {
                listener.skipped(self, revision);
            }
        }
        Ok(Some(outcome))
    }

    /// Installs a committed mutation, measures its height change and tells the
    /// listeners.
    fn finish(
        &self,
        mutation: Mutation,
        mut outcome: Outcome,
        probe: &Probe,
        before: &[f64],
    ) -> Outcome {
        self.install(mutation, outcome.revision, &outcome.tiles);
        let after = probe.sample(self.state.blocking_read().terrain());
        outcome.max_height_delta = max_delta(before, &after);
        for listener in &self.listeners {
            listener.committed(self, &outcome);
        }
        info!(
            world = %self.id,
            zone = %outcome.zone.id,
            revision = outcome.revision,
            change = outcome.change.as_str(),
            tiles = %TileKeys(&outcome.tiles),
            "flat zone {}",
            outcome.change.as_str()
        );
        outcome
    }

    /// Applies a committed mutation to the in-memory zones and tile versions, under a
    /// short write lock.
    fn install(&self, mutation: Mutation, revision: u64, tiles: &[(i64, i64)]) {
        let mut state = self.state.blocking_write();
        state.tiles.touch(tiles, revision);
        let zones = state.terrain.zones_mut();
        match mutation.kind {
            MutationKind::Removed => {
                zones.remove(&mutation.zone.id);
            }
            MutationKind::Registered | MutationKind::Replaced => {
                zones.insert(mutation.zone, revision);
            }
        }
        state.revision = revision;
    }

    pub(super) fn plan(&self, state: &WorldState, op: Op) -> Result<Plan, ApiError> {
        match op {
            Op::Register { id, spec } => self.plan_register(state, id, spec),
            Op::Remove { id } => self.plan_remove(state, id),
        }
    }

    fn plan_register(
        &self,
        state: &WorldState,
        id: String,
        spec: ZoneSpec,
    ) -> Result<Plan, ApiError> {
        let zones = state.zones();
        let base = state.terrain().procedural(spec.center_x, spec.center_z);
        let zone = spec.resolve(id, base);
        let old = zones.get(&zone.id);
        if old == Some(&zone) {
            let zone_revision = zones.revision_of(&zone.id).unwrap_or_default();
            let outcome = Outcome {
                change: Change::Unchanged,
                bounds: zone_bounds([&zone]),
                zone,
                zone_revision,
                revision: state.revision,
                tiles: Vec::new(),
                max_height_delta: 0.0,
            };
            return Ok(Plan {
                outcome,
                mutation: None,
            });
        }
        let max = self.rules.max_zones;
        if old.is_none() && zones.len() >= max {
            let reason = format!(
                "world {:?} already holds {max} zones, the limit per world",
                self.id
            );
            return Err(ApiError::capacity("zones", reason));
        }
        let kind = if old.is_some() {
            MutationKind::Replaced
        } else {
            MutationKind::Registered
        };
        let revision = next(state.revision)?;
        let tiles = changed_tiles(&self.layout, old.into_iter().chain([&zone]));
        let outcome = Outcome {
            change: Change::of(kind),
            bounds: zone_bounds(old.into_iter().chain([&zone])),
            zone: zone.clone(),
            zone_revision: revision,
            revision,
            tiles,
            max_height_delta: 0.0,
        };
        Ok(Plan {
            outcome,
            mutation: Some(Mutation { kind, zone }),
        })
    }

    fn plan_remove(&self, state: &WorldState, id: String) -> Result<Plan, ApiError> {
        let Some(old) = state.zones().get(&id) else {
            return Err(ApiError::UnknownZone {
                world: self.id.clone(),
                id,
            });
        };
        let revision = next(state.revision)?;
        let outcome = Outcome {
            change: Change::Removed,
            zone: old.clone(),
            zone_revision: revision,
            revision,
            tiles: changed_tiles(&self.layout, [old]),
            bounds: zone_bounds([old]),
            max_height_delta: 0.0,
        };
        let mutation = Mutation {
            kind: MutationKind::Removed,
            zone: old.clone(),
        };
        Ok(Plan {
            outcome,
            mutation: Some(mutation),
        })
    }
}

/// The plan of a change-feed message at `revision` against the applied `state`, or
/// `None` when it changes nothing here (removing an unknown zone).
fn plan_feed(
    layout: &TileLayout,
    state: &WorldState,
    change: FeedChange,
    revision: u64,
) -> Option<Plan> {
    let zones = state.zones();
    let (kind, zone, old) = match change {
        FeedChange::Put(zone) => {
            let old = zones.get(&zone.id).cloned();
            let kind = if old.is_some() {
                MutationKind::Replaced
            } else {
                MutationKind::Registered
            };
            (kind, zone, old)
        }
        FeedChange::Delete(id) => {
            let old = zones.get(&id)?.clone();
            (MutationKind::Removed, old, None)
        }
    };
    let all = || old.iter().chain([&zone]);
    let outcome = Outcome {
        change: Change::of(kind),
        zone: zone.clone(),
        zone_revision: revision,
        revision,
        tiles: changed_tiles(layout, all()),
        bounds: zone_bounds(all()),
        max_height_delta: 0.0,
    };
    Some(Plan {
        outcome,
        mutation: Some(Mutation { kind, zone }),
    })
}

/// The outer bounds of `zones` together, grown by [`TILE_MARGIN`].
pub(crate) fn zone_bounds<'a>(zones: impl IntoIterator<Item = &'a FlatZone>) -> Bounds {
    let empty = Bounds {
        min_x: 0.0,
        min_z: 0.0,
        max_x: 0.0,
        max_z: 0.0,
    };
    union(zones.into_iter().map(FlatZone::outer_bounds), TILE_MARGIN).unwrap_or(empty)
}

fn next(revision: u64) -> Result<u64, ApiError> {
    revision
        .checked_add(1)
        .ok_or_else(|| ApiError::Internal("revision counter exhausted".into()))
}

/// The tiles any of `zones` can change, row-major (z outer, x inner), without
/// duplicates: the union of [`TileLayout::tiles_touching`] of each zone's outer
/// bounds with [`TILE_MARGIN`].
pub fn changed_tiles<'a>(
    layout: &TileLayout,
    zones: impl IntoIterator<Item = &'a FlatZone>,
) -> Vec<(i64, i64)> {
    let mut tiles: Vec<(i64, i64)> = zones
        .into_iter()
        .flat_map(|z| layout.tiles_touching(&z.outer_bounds(), TILE_MARGIN))
        .collect();
    tiles.sort_unstable_by_key(|&(x, z)| (z, x));
    tiles.dedup();
    tiles
}

/// Tile keys for a log line: `x,z` pairs, the first few of a long list.
struct TileKeys<'a>(&'a [(i64, i64)]);

impl fmt::Display for TileKeys<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 32;
        for (i, (x, z)) in self.0.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{x},{z}")?;
        }
        if self.0.len() > SHOWN {
            write!(f, " ... ({} tiles)", self.0.len())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::square_zone as zone;

    #[test]
    fn changed_tiles_unite_old_and_new() {
        let layout = TileLayout {
            size: 100.0,
            resolution: 64,
            centred: true,
        };
        assert_eq!(changed_tiles(&layout, [&zone(0.0)]), [(0, 0)]);
        assert_eq!(
            changed_tiles(&layout, [&zone(0.0), &zone(300.0)]),
            [(0, 0), (3, 0)]
        );
        assert_eq!(changed_tiles(&layout, [&zone(0.0), &zone(0.0)]), [(0, 0)]);
    }

    #[test]
    fn long_tile_lists_are_cut_in_logs() {
        let tiles: Vec<_> = (0..40).map(|i| (i, -i)).collect();
        let text = TileKeys(&tiles).to_string();
        assert!(text.starts_with("0,0 1,-1 "), "{text}");
        assert!(text.ends_with("... (40 tiles)"), "{text}");
    }
}
