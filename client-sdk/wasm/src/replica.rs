//! [`Replica`]: one world's terrain at one revision, built from JSON, and the sink a
//! follower drives (`reset`, `put`, `remove`). The view every read answers at is
//! terrain-client's [`View`]: the follower's state with this process's zone changes
//! (the Hyperscape adapter's `register`, `unregister`) on top.

use std::sync::Arc;

use terrain_client::{
    Snapshot, SurfaceCache, WorldInfo, build_terrain, offline,
    view::{self, View},
};
use terrain_core::walk::{Town, WalkRule};
use wasm_bindgen::prelude::*;

use crate::js_error;

/// A world's terrain in this process; see the crate docs.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Replica {
    /// The world as listed: what `reset` builds from.
    pub(crate) world: WorldInfo,
    /// The base (the follower's state), the view and the local changes.
    pub(crate) state: View,
    /// The towns the world lists for the difficulty rule (none when built from a
    /// listing that carries none: the original's fallback towns).
    pub(crate) towns: Vec<Town>,
    /// The surface tiles surface reads keep, of the view they were read at (replaced
    /// at the first read after the view moved on).
    pub(crate) surface: Option<SurfaceCache>,
}

/// A revision from a JavaScript number: whole, from 0 to 2^53 - 1.
fn revision_of(revision: f64) -> Result<u64, JsError> {
    if revision.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&revision) {
        Ok(revision as u64)
    } else {
        Err(js_error(format!(
            "revision: must be a whole number from 0 to 2^53 - 1, got {revision}"
        )))
    }
}

#[wasm_bindgen]
impl Replica {
    /// A replica of `world` (one world of `GET /v1/worlds`, JSON) with `zones` (the
    /// answer of `GET /v1/worlds/{world}/flat-zones`, `{"zones": [...], "revision":
    /// n}`, or its bare array; each zone with an absolute `height`), at the list's
    /// revision. Errors name the field (`world: walkability.name: ...`).
    #[wasm_bindgen(constructor)]
    pub fn new(world: &str, zones: &str) -> Result<Replica, JsError> {
        let info = offline::world_info(world).map_err(|e| js_error(format!("world: {e}")))?;
        let list = offline::zone_list(zones).map_err(|e| js_error(format!("zones: {e}")))?;
        let terrain = build_terrain(&info, &list).map_err(js_error)?;
        let towns = offline::world_towns(world).map_err(|e| js_error(format!("world: {e}")))?;
        let snapshot = Arc::new(Snapshot::from_terrain(terrain, list.revision));
        Ok(Replica {
            world: info,
            state: View::new(snapshot),
            towns,
            surface: None,
        })
    }

    /// The world's id.
    #[wasm_bindgen(getter)]
    pub fn world(&self) -> String {
        self.world.id.clone()
    }

    /// The revision of the follower's state (the base of the view).
    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> f64 {
        self.state.base.revision() as f64
    }

    /// Bumped each time the view changes: what JavaScript keeps, it keeps by epoch.
    #[wasm_bindgen(getter)]
    pub fn epoch(&self) -> f64 {
        self.state.epoch as f64
    }

    /// Sink: the server's whole zone list at `revision` (`zones` as the constructor
    /// takes it; the list's own revision is not read), replacing the follower's state.
    /// Answers the view's epoch and where its zones changed: `[epoch, n, minX, minZ,
    /// maxX, maxZ, ...]`.
    pub fn reset(&mut self, revision: f64, zones: &str) -> Result<Vec<f64>, JsError> {
        let revision = revision_of(revision)?;
        let list = offline::zone_list(zones).map_err(|e| js_error(format!("zones: {e}")))?;
        let terrain = build_terrain(&self.world, &list).map_err(js_error)?;
        Ok(self
            .state
            .rebase(Arc::new(Snapshot::from_terrain(terrain, revision))))
    }

    /// Sink: zone `zone` (JSON, as `GET .../flat-zones/{id}` answers it, with an
    /// absolute `height`) registered or replaced at `revision`; the zone's own
    /// `revision` key, when present, orders it among overlapping zones, else
    /// `revision` does. Answers as [`Replica::reset`].
    pub fn put(&mut self, revision: f64, zone: &str) -> Result<Vec<f64>, JsError> {
        let revision = revision_of(revision)?;
        let entry = offline::zone(zone, revision).map_err(|e| js_error(format!("zone: {e}")))?;
        let mut terrain = self.state.base.terrain().clone();
        terrain.zones_mut().insert(entry.zone, entry.revision);
        Ok(self
            .state
            .rebase(Arc::new(Snapshot::from_terrain(terrain, revision))))
    }

    /// Sink: zone `id` removed at `revision` (a zone the state lacks changes only the
    /// revision). Answers as [`Replica::reset`].
    pub fn remove(&mut self, revision: f64, id: &str) -> Result<Vec<f64>, JsError> {
        let revision = revision_of(revision)?;
        let mut terrain = self.state.base.terrain().clone();
        terrain.zones_mut().remove(id);
        Ok(self
            .state
            .rebase(Arc::new(Snapshot::from_terrain(terrain, revision))))
    }

    /// The Hyperscape adapter's local registration of zone `id` (`body` as the HTTP
    /// API takes it, an absolute `height`): the view has it at once. Answers `[seq,
    /// epoch, n, rectangles...]` (see `settle`).
    pub fn register(&mut self, id: String, body: &str) -> Result<Vec<f64>, JsError> {
        let zone = view::local_zone(&id, body).map_err(js_error)?;
        Ok(self.state.change(id, Some(zone)))
    }

    /// The adapter's local removal of zone `id`. Answers as `register`.
    pub fn unregister(&mut self, id: String) -> Vec<f64> {
        self.state.change(id, None)
    }

    /// Local operation `seq`'s fate at the server (`revision >= 0` the revision that
    /// holds it, `-1` refused, `-2` a removal of a zone the server lacks). Answers
    /// `[epoch, n, rectangles...]`.
    pub fn settle(&mut self, seq: f64, revision: f64) -> Result<Vec<f64>, JsError> {
        self.state.settle(seq, revision).map_err(js_error)
    }

    /// The difficulty rule's towns, `[x0, z0, radius0, ...]`; `undefined`, the
    /// world's again.
    #[wasm_bindgen(js_name = setTowns)]
    pub fn set_towns(&mut self, towns: Option<Vec<f64>>) -> Result<(), JsError> {
        let towns = towns
            .as_deref()
            .map(view::towns_of)
            .transpose()
            .map_err(js_error)?;
        self.state.overlay.set_towns(towns);
        Ok(())
    }
}

impl Replica {
    /// The world's walkability rule, or the error the Node addon gives without one.
    pub(crate) fn rule(&self) -> Result<&WalkRule, JsError> {
        self.world.walkability.as_ref().ok_or_else(|| {
            js_error("world: the description has no `walkability` (GET /v1/worlds lists it)")
        })
    }

    /// The snapshot every read answers at.
    pub(crate) fn view(&self) -> &Snapshot {
        &self.state.view
    }

    /// `f` over the surface cache of the view (a new one when the view moved on).
    pub(crate) fn with_surface<T>(&mut self, f: impl FnOnce(&mut SurfaceCache) -> T) -> T {
        f(SurfaceCache::of(&mut self.surface, &self.state.view))
    }
}
