//! The write path of a world's flat-zone registry: register, replace, remove.
//!
//! A mutation is validated (no state needed), then, holding the world's writer lock:
//! planned against the applied state (a read lock), proposed to the world's zone log
//! ([`crate::store::log`]) with a compare-and-swap on the zone's key revision, and
//! answered once the world's follower has applied what the log stored
//! ([`super::follow`], `apply`): durable (fsync, or a JetStream ack) and
//! applied in memory. One path for one server and for many replicas; only the log
//! differs. A proposal that lost a race (another replica changed the zone first) is
//! planned again once that change is applied here, so the answer describes what
//! really happened. The mutation runs on its own task, so a caller that hangs up
//! mid-way cannot let the next mutation start before this one is applied.
//!
//! Every accepted mutation takes the world's next revision and reports the tiles
//! whose heights or normals it changes: [`TileGrid::rect_touching`] of the old and
//! the new zone's outer bounds, with a margin of [`TILE_MARGIN`], as rectangles and a
//! count, listed one by one only up to [`terrain_model::TILE_LIST_MAX`] tiles (so the largest legal
//! zone costs the same few bytes as a small one). Registering a zone
//! identical to the registered one (after resolving `heightOffset`) is a no-op:
//! [`Change::Unchanged`], the current revision, no tiles, nothing stored.

use std::{fmt, sync::Arc};

use terrain_core::{
    FlatZone, TileGrid,
    zones::{Bounds, ZoneDoc, ZoneSpec, validate_id, validate_zone},
};
use terrain_model::ChangedTiles;
use tracing::debug;

use super::{RegistryError, World, WorldState, delta::union};
use crate::store::{
    Mutation, MutationKind,
    log::{LogError, Proposal, Write},
    nats::RECONNECT_GRACE,
};

/// How many times a proposal that lost a compare-and-swap is planned again.
pub(crate) const MAX_ATTEMPTS: usize = 16;

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

    pub(super) fn of(kind: MutationKind) -> Self {
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
    /// Tiles whose heights or normals changed, row-major (z outer, x inner): listed
    /// only when there are at most [`terrain_model::TILE_LIST_MAX`] (empty otherwise).
    pub tiles: Vec<(i64, i64)>,
    /// The same tiles as rectangles and a count, whatever their number.
    pub changed: ChangedTiles,
    /// The area whose heights may have changed: the old and new zones' outer bounds
    /// grown by [`TILE_MARGIN`].
    pub bounds: Bounds,
    /// The largest absolute height change inside `bounds`, sampled at most 0.5 m
    /// apart (0 for an unchanged registration).
    pub max_height_delta: f64,
}

/// A validated mutation request.
#[derive(Debug, Clone)]
enum Op {
    Register { id: String, spec: ZoneSpec },
    Remove { id: String },
}

/// A planned mutation: the answer as planned, and what to propose (nothing for a
/// no-op).
struct Plan {
    outcome: Outcome,
    mutation: Option<Mutation>,
}

impl World {
    /// Registers zone `id` (or replaces the zone with that id).
    pub async fn register(
        self: &Arc<Self>,
        id: &str,
        spec: ZoneSpec,
    ) -> Result<Outcome, RegistryError> {
        self.check(id, &spec)?;
        let id = id.to_string();
        self.run(Op::Register { id, spec }).await
    }

    /// Registers the zone document `doc` as zone `id`. An `id` inside `doc`, if any,
    /// must equal `id`.
    pub async fn register_doc(
        self: &Arc<Self>,
        id: &str,
        doc: &ZoneDoc,
    ) -> Result<Outcome, RegistryError> {
        if let Some(inner) = doc.id.as_deref().filter(|inner| *inner != id) {
            return Err(RegistryError::IdMismatch {
                inner: inner.to_string(),
                id: id.to_string(),
            });
        }
        let spec = doc.spec().map_err(RegistryError::Zone)?;
        self.register(id, spec).await
    }

    /// Checks zone `id` against the zone invariants and this world's limits (not the
    /// zone count, which depends on the state).
    pub fn check(&self, id: &str, spec: &ZoneSpec) -> Result<(), RegistryError> {
        Ok(validate_zone(id, spec, &self.rules.limits)?)
    }

    /// Removes zone `id`; `NOT_FOUND` (field `id`) if it is not registered.
    pub async fn unregister(self: &Arc<Self>, id: &str) -> Result<Outcome, RegistryError> {
        validate_id(id)?;
        let id = id.to_string();
        self.run(Op::Remove { id }).await
    }

    /// Runs `op` to the end on its own task, whatever happens to the caller.
    async fn run(self: &Arc<Self>, op: Op) -> Result<Outcome, RegistryError> {
        let world = Arc::clone(self);
        tokio::spawn(async move { world.mutate(op).await })
            .await
            .map_err(|e| RegistryError::Internal(format!("registry task: {e}")))?
    }

    /// Proposes `op` to the world's log and answers once the world applied it.
    async fn mutate(&self, op: Op) -> Result<Outcome, RegistryError> {
        let link = self.link.get().ok_or(RegistryError::NotStarted)?;
        // One proposal of this world at a time from this server.
        let _writer = self.writer.lock().await;
        // After a lost race: the revision the key has in the log.
        let mut seen: Option<u64> = None;
        for _ in 0..MAX_ATTEMPTS {
            if !link.log().wait_connected(RECONNECT_GRACE).await {
                return Err(RegistryError::Unreachable);
            }
            let proposal = {
                let state = self.snapshot();
                let plan = self.plan(&state, op.clone())?;
                let Some(mutation) = plan.mutation else {
                    let o = &plan.outcome;
                    debug!(world = %self.id, zone = %o.zone.id, revision = o.revision, "flat zone unchanged");
                    return Ok(plan.outcome);
                };
                let known = state.zones().revision_of(&mutation.zone.id);
                let expected = seen.max(known).unwrap_or(0);
                let write = match mutation.kind {
                    MutationKind::Removed => Write::Delete(mutation.zone.id),
                    MutationKind::Registered | MutationKind::Replaced => Write::Put(mutation.zone),
                };
                Proposal { write, expected }
            };
            match link.log().propose(proposal).await {
                Ok(revision) => return link.collect(revision).await,
                Err(LogError::Conflict(id)) => {
                    let latest = link
                        .log()
                        .key_revision(&id)
                        .await
                        .map_err(RegistryError::not_stored)?;
                    let latest = latest.unwrap_or(0);
                    debug!(world = %self.id, zone = %id, latest, "lost a compare-and-swap; planning again");
                    if !link.wait_applied(latest).await {
                        return Err(RegistryError::Behind);
                    }
                    seen = Some(latest);
                }
                Err(e) => return Err(RegistryError::not_stored(e)),
            }
        }
        Err(RegistryError::Contended)
    }

    fn plan(&self, state: &WorldState, op: Op) -> Result<Plan, RegistryError> {
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
    ) -> Result<Plan, RegistryError> {
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
                changed: ChangedTiles::default(),
                max_height_delta: 0.0,
            };
            return Ok(Plan {
                outcome,
                mutation: None,
            });
        }
        let max = self.rules.max_zones;
        if old.is_none() && zones.len() >= max {
            return Err(RegistryError::Full {
                world: self.id.clone(),
                max,
            });
        }
        let kind = if old.is_some() {
            MutationKind::Replaced
        } else {
            MutationKind::Registered
        };
        let revision = next(state.revision)?;
        let changed = changed_tiles(&self.grid, old.into_iter().chain([&zone]));
        let outcome = Outcome {
            change: Change::of(kind),
            bounds: zone_bounds(old.into_iter().chain([&zone])),
            zone: zone.clone(),
            zone_revision: revision,
            revision,
            tiles: changed.listed(),
            changed,
            max_height_delta: 0.0,
        };
        Ok(Plan {
            outcome,
            mutation: Some(Mutation { kind, zone }),
        })
    }

    fn plan_remove(&self, state: &WorldState, id: String) -> Result<Plan, RegistryError> {
        let Some(old) = state.zones().get(&id) else {
            return Err(RegistryError::UnknownZone {
                world: self.id.clone(),
                id,
            });
        };
        let revision = next(state.revision)?;
        let changed = changed_tiles(&self.grid, [old]);
        let outcome = Outcome {
            change: Change::Removed,
            zone: old.clone(),
            zone_revision: revision,
            revision,
            tiles: changed.listed(),
            changed,
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

fn next(revision: u64) -> Result<u64, RegistryError> {
    revision
        .checked_add(1)
        .ok_or_else(|| RegistryError::Internal("revision counter exhausted".into()))
}

/// The tiles any of `zones` can change: the union of [`TileGrid::rect_touching`] of
/// each zone's outer bounds with [`TILE_MARGIN`] (at most one rectangle per zone;
/// nothing is enumerated, whatever the zones' size).
pub fn changed_tiles<'a>(
    layout: &TileGrid,
    zones: impl IntoIterator<Item = &'a FlatZone>,
) -> ChangedTiles {
    ChangedTiles::new(
        zones
            .into_iter()
            .map(|z| layout.rect_touching(&z.outer_bounds(), TILE_MARGIN)),
    )
}

/// Changed tiles for a log line: `x,z` pairs for a short list, else the rectangles
/// (`x0,z0..x1,z1`) and the count.
pub(super) struct TileKeys<'a>(pub(super) &'a ChangedTiles);

impl fmt::Display for TileKeys<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: u64 = 32;
        let changed = self.0;
        if changed.count <= SHOWN {
            for (i, (x, z)) in changed.listed().into_iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{x},{z}")?;
            }
            return Ok(());
        }
        for r in &changed.rects {
            write!(f, "{},{}..{},{} ", r.min_tx, r.min_tz, r.max_tx, r.max_tz)?;
        }
        write!(f, "({} tiles)", changed.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::square_zone as zone;

    #[test]
    fn changed_tiles_unite_old_and_new() {
        let layout = TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        };
        assert_eq!(changed_tiles(&layout, [&zone(0.0)]).listed(), [(0, 0)]);
        assert_eq!(
            changed_tiles(&layout, [&zone(0.0), &zone(300.0)]).listed(),
            [(0, 0), (3, 0)]
        );
        assert_eq!(
            changed_tiles(&layout, [&zone(0.0), &zone(0.0)]).listed(),
            [(0, 0)]
        );
    }

    /// The largest legal zone (10 km, blend 10 km) on 32 m tiles: 879,844 tiles,
    /// described by one rectangle and listed by none.
    #[test]
    fn the_largest_zone_changes_one_rectangle_of_tiles() {
        let voxel = TileGrid {
            size: 32.0,
            resolution: 33,
            centred: false,
        };
        let mut big = zone(0.0);
        big.shape = terrain_core::zones::Shape::Rect {
            width: 10_000.0,
            depth: 10_000.0,
        };
        big.blend_radius = 10_000.0;
        let changed = changed_tiles(&voxel, [&big]);
        assert_eq!(changed.rects.len(), 1);
        assert_eq!(
            changed.count,
            voxel.tiles_touching(&big.outer_bounds(), TILE_MARGIN).len() as u64
        );
        assert!(changed.count > terrain_model::TILE_LIST_MAX);
        assert!(changed.listed().is_empty());
    }

    #[test]
    fn long_tile_lists_are_cut_in_logs() {
        let row = terrain_core::TileRect {
            min_tx: 0,
            min_tz: -1,
            max_tx: 39,
            max_tz: -1,
        };
        let text = TileKeys(&ChangedTiles::new([row])).to_string();
        assert_eq!(text, "0,-1..39,-1 (40 tiles)");
        let short = ChangedTiles::new([terrain_core::TileRect { max_tx: 1, ..row }]);
        assert_eq!(TileKeys(&short).to_string(), "0,-1 1,-1");
    }
}
