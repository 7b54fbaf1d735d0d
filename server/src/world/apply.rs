//! Applying the zone log: how one log entry becomes the world's state. Only the
//! world's follower ([`super::follow`]) calls this, in revision order, on a blocking
//! thread; the writer that proposed the entry waits for it.
//!
//! An entry is planned against the applied state (registered, replaced or removed,
//! and the tiles and bounds it touches), recorded in this server's zone store when the
//! log lives elsewhere (the store is then this replica's copy of what it applied), and
//! installed in memory as a new snapshot. Then the log entry is annotated with
//! the measured height change and the retained history pruned to `event_history`
//! revisions (a non-durable write, see [`crate::store::history`]), and only then are
//! the commit listeners told (mesh cache first, then events): a subscriber resuming
//! from the log never finds an entry without its delta.

use terrain_core::TileGrid;
use terrain_model::ChangedTiles;
use tracing::{info, warn};

use super::{
    Outcome, World, WorldState,
    delta::{Probe, Sampled},
    registry::{Change, TileKeys, changed_tiles, zone_bounds},
};
use crate::store::{Mutation, MutationKind, StoreError, log::Entry, log::Write};

/// A planned entry: its outcome and the mutation it makes here.
struct Planned {
    outcome: Outcome,
    mutation: Mutation,
}

impl World {
    /// Applies `entry`; `copy`: also record it in this server's store (the log lives
    /// elsewhere). Answers `None` for an entry that changes nothing here (a removal of
    /// a zone this replica never saw). Blocking.
    pub(super) fn apply_entry(
        &self,
        entry: Entry,
        copy: bool,
    ) -> Result<Option<Outcome>, StoreError> {
        let revision = entry.revision;
        let (planned, probe, before, skipped, undo) = {
            let state = self.snapshot();
            let skipped = revision > state.revision + 1;
            let Some(planned) = plan_entry(&self.grid, &state, entry.write, revision) else {
                drop(state);
                self.advance(revision);
                return Ok(None);
            };
            let probe = Probe::over(&planned.outcome.bounds);
            let before = probe.sample(state.terrain());
            // What the zone was before: how an as-of query undoes this revision.
            let id = planned.mutation.zone.id.clone();
            let zones = state.zones();
            let was = zones.get(&id).cloned().zip(zones.revision_of(&id));
            (planned, probe, before, skipped, (id, was))
        };
        if copy {
            self.store
                .commit_replicated(&self.id, revision, &planned.mutation)?;
        }
        self.remember(revision, Some(undo));
        let outcome = self.finish(planned.mutation, planned.outcome, &probe, &before);
        if skipped {
            for listener in &self.listeners {
                listener.skipped(self, revision);
            }
        }
        Ok(Some(outcome))
    }

    /// Moves the world's revision to `revision` without changing anything (an entry
    /// that changes nothing here, or one skipped as poison).
    pub(super) fn advance(&self, revision: u64) {
        self.remember(revision, None);
        self.update(|state| state.revision = state.revision.max(revision));
    }

    /// Installs a recorded mutation, measures its height change, annotates the log
    /// and tells the listeners.
    fn finish(
        &self,
        mutation: Mutation,
        mut outcome: Outcome,
        probe: &Probe,
        before: &Sampled,
    ) -> Outcome {
        self.install(mutation, outcome.revision, &outcome.changed);
        outcome.max_height_delta = probe.delta(before, self.snapshot().terrain());
        let annotated = self.store.annotate(
            &self.id,
            outcome.revision,
            outcome.max_height_delta,
            self.history,
        );
        if let Err(e) = annotated {
            // The live event still goes out; only a later replay lacks the delta.
            warn!(world = %self.id, revision = outcome.revision, error = %e, "recording the height change in the log");
        }
        for listener in &self.listeners {
            listener.committed(self, &outcome);
        }
        info!(
            world = %self.id,
            zone = %outcome.zone.id,
            revision = outcome.revision,
            change = outcome.change.as_str(),
            tiles = %TileKeys(&outcome.changed),
            "flat zone {}",
            outcome.change.as_str()
        );
        outcome
    }

    /// Publishes a state with the mutation applied to the zones and tile versions.
    fn install(&self, mutation: Mutation, revision: u64, changed: &ChangedTiles) {
        self.update(|state| {
            state.tiles.touch(changed, revision);
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
        });
    }
}

/// The plan of the entry `write` at `revision` against the applied `state`, or
/// `None` when it changes nothing here (removing an unknown zone).
fn plan_entry(
    layout: &TileGrid,
    state: &WorldState,
    write: Write,
    revision: u64,
) -> Option<Planned> {
    let zones = state.zones();
    let (kind, zone, old) = match write {
        Write::Put(zone) => {
            let old = zones.get(&zone.id).cloned();
            let kind = if old.is_some() {
                MutationKind::Replaced
            } else {
                MutationKind::Registered
            };
            (kind, zone, old)
        }
        Write::Delete(id) => {
            let old = zones.get(&id)?.clone();
            (MutationKind::Removed, old, None)
        }
    };
    let all = || old.iter().chain([&zone]);
    let changed = changed_tiles(layout, all());
    let outcome = Outcome {
        change: Change::of(kind),
        zone: zone.clone(),
        zone_revision: revision,
        revision,
        tiles: changed.listed(),
        changed,
        bounds: zone_bounds(all()),
        max_height_delta: 0.0,
    };
    Some(Planned {
        outcome,
        mutation: Mutation { kind, zone },
    })
}
