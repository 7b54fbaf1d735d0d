//! The state a `LocalTerrain` shares with the per-call functions: where it reads from
//! (a following replica or a fixed snapshot), the *view* every read answers at (the
//! server's state with this process's zone changes on top), its epoch, and the class's
//! surface tiles. Read through one lock; the view changes only on the JavaScript thread
//! (the hand-over, the adapter's zone changes).

use std::sync::{Arc, Mutex, RwLock};

use napi::Result;
use terrain_client::{Snapshot, SurfaceCache, view::View};
use terrain_core::walk::WalkRule;
use tokio::sync::{broadcast, watch};

use crate::errors::{closed_error, invalid, js_error, point_error, sdk_error};
use crate::handoff::Applied;

/// What the JS object reads from: a following replica, or a fixed snapshot and the
/// rule its world description gave (if any).
#[derive(Clone)]
pub(crate) enum Source {
    Live(Arc<terrain_client::LocalTerrain>),
    Offline(Option<WalkRule>),
}

impl Source {
    pub(crate) fn walk_rule(&self) -> Result<&WalkRule> {
        match self {
            Source::Live(r) => r.walk_rule().map_err(js_error),
            Source::Offline(rule) => rule.as_ref().ok_or_else(|| {
                invalid("world: the description has no `walkability` (GET /v1/worlds lists it)")
            }),
        }
    }
}

/// An open replica: where it reads from and the view the reads see (terrain-client's
/// [`View`]: the base, the view, its epoch and this process's zone changes, reached
/// through `Deref`).
pub(crate) struct Open {
    pub(crate) source: Source,
    pub(crate) state: View,
}

impl std::ops::Deref for Open {
    type Target = View;

    fn deref(&self) -> &View {
        &self.state
    }
}

impl std::ops::DerefMut for Open {
    fn deref_mut(&mut self) -> &mut View {
        &mut self.state
    }
}

/// The state a `LocalTerrain` shares with the per-call functions of [`crate::fast`]: the
/// source and view (gone once closed), and `surfaceHeights`' tiles.
pub struct Replica {
    open: RwLock<Option<Open>>,
    /// The view's revision, sent on each change of the view: `waitForRevision` waits
    /// on it.
    pub(crate) published: watch::Sender<u64>,
    /// What the follower applied, sent once the view shows it: `nextEvent` reads it.
    pub(crate) applied: broadcast::Sender<Applied>,
    /// `surfaceHeights`' tiles, replaced when the view moves on.
    surface: Mutex<Option<SurfaceCache>>,
}

impl std::fmt::Debug for Replica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replica")
            .field("closed", &self.source().is_err())
            .finish_non_exhaustive()
    }
}

impl Replica {
    pub(crate) fn new(source: Source, view: Arc<Snapshot>) -> Self {
        Replica {
            published: watch::channel(view.revision()).0,
            applied: broadcast::channel(terrain_client::REPLICA_EVENTS).0,
            open: RwLock::new(Some(Open {
                source,
                state: View::new(view),
            })),
            surface: Mutex::new(None),
        }
    }

    pub(crate) fn read<T>(&self, f: impl FnOnce(&Open) -> T) -> Result<T> {
        let open = self.open.read().unwrap_or_else(|e| e.into_inner());
        Ok(f(open.as_ref().ok_or_else(closed_error)?))
    }

    pub(crate) fn source(&self) -> Result<Source> {
        self.read(|o| o.source.clone())
    }

    /// The snapshot reads answer at.
    pub(crate) fn snapshot(&self) -> Result<Arc<Snapshot>> {
        self.read(|o| Arc::clone(&o.view))
    }

    /// The view and its epoch.
    pub(crate) fn view(&self) -> Result<(Arc<Snapshot>, u64)> {
        self.read(|o| (Arc::clone(&o.view), o.epoch))
    }

    /// Takes the follower's latest snapshot as the base of the view (on the
    /// JavaScript thread, from the hand-over's callback); answers the view's epoch and
    /// the rectangles where its zones changed ([`View::rebuild`]; `[0, 0]` once
    /// closed).
    pub(crate) fn publish(&self) -> Vec<f64> {
        let mut open = self.open.write().unwrap_or_else(|e| e.into_inner());
        let Some(open) = open.as_mut() else {
            return vec![0.0, 0.0];
        };
        if let Source::Live(r) = &open.source {
            let latest = r.snapshot();
            if !Arc::ptr_eq(&latest, &open.base) {
                let changed = open.rebase(latest);
                self.published.send_replace(open.base.revision());
                return changed;
            }
        }
        vec![open.epoch as f64, 0.0]
    }

    /// `f` over the open state, for a change of the view made on the JavaScript
    /// thread (the adapter's zone changes).
    pub(crate) fn change<T>(&self, f: impl FnOnce(&mut Open) -> Result<T>) -> Result<T> {
        let mut open = self.open.write().unwrap_or_else(|e| e.into_inner());
        f(open.as_mut().ok_or_else(closed_error)?)
    }

    pub(crate) fn height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.read(|o| o.view.height_at(x, z))?.map_err(sdk_error)
    }

    pub(crate) fn surface_height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.with_surface(|cache| cache.height_at(x, z))?
            .map_err(sdk_error)
    }

    /// The surface heights of `points`, all at one snapshot.
    pub(crate) fn surface_heights(
        &self,
        points: std::slice::ChunksExact<'_, f64>,
    ) -> Result<Vec<f64>> {
        self.with_surface(|cache| {
            points
                .enumerate()
                .map(|(i, p)| cache.height_at(p[0], p[1]).map_err(|e| point_error(i, e)))
                .collect()
        })?
    }

    /// `f` over the surface cache of the view (a new one when the view moved on).
    pub(crate) fn with_surface<T>(&self, f: impl FnOnce(&mut SurfaceCache) -> T) -> Result<T> {
        let snapshot = self.snapshot()?;
        let mut cache = self.surface.lock().unwrap_or_else(|e| e.into_inner());
        Ok(f(SurfaceCache::of(&mut cache, &snapshot)))
    }

    pub(crate) fn close(&self) {
        *self.open.write().unwrap_or_else(|e| e.into_inner()) = None;
        *self.surface.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
