//! [`MeshCache`] as the registry's [`CommitListener`]: after a change commits, the
//! cached tiles it touched are rebuilt at their new version, in parallel, without
//! holding the change up. A rebuild still waiting for the pool when a later change
//! registers the same tile's next one is skipped: under a stream of changes to one
//! tile the pool builds what requests will be served, not every version in between.

use std::sync::Arc;

use futures::FutureExt;

use super::cache::{Rebuild, rebuild_from, timed};
use super::{MeshCache, MeshError};
use crate::sync::locked;
use crate::world::{CommitListener, Outcome, World};

impl CommitListener for MeshCache {
    /// Starts rebuilding the changed tiles that are cached, at their new version, in
    /// parallel on the compute pool, and registers each rebuild under its tile before
    /// returning. Called on the registry's blocking thread, after the change is
    /// installed; it does not wait for the builds (outside a Tokio runtime, where it
    /// cannot start them in the background, it does).
    fn committed(&self, world: &World, outcome: &Outcome) {
        let id = world.id();
        let cached = self.cached_in(id, outcome);
        if cached.is_empty() {
            return;
        }
        let state = world.snapshot();
        let mut rebuilds = Vec::with_capacity(cached.len());
        for &tile in &cached {
            let version = state.tile_version(tile);
            let key = (id.to_string(), tile.0, tile.1);
            let (meshes, state) = (self.clone(), Arc::clone(&state));
            let (job_key, rebuilding) = (key.clone(), Arc::clone(&self.rebuilding));
            let done = async move {
                let key = job_key.clone();
                let built = meshes
                    .compute
                    .run(move || {
                        // A later change's rebuild of this tile replaced this one while
                        // it waited for the pool: its mesh would be thrown away.
                        let newer =
                            rebuild_from(&rebuilding, &key, version.saturating_add(1)).is_some();
                        (!newer).then(|| timed(&state, tile, version))
                    })
                    .await
                    .map_err(|e| MeshError::Build(e.to_string()))
                    .and_then(|built| built.ok_or(MeshError::Superseded));
                meshes.install(job_key, version, built).await
            }
            .boxed()
            .shared();
            let rebuild = Rebuild { version, done };
            locked(&self.rebuilding).insert(key, rebuild.clone());
            rebuilds.push(rebuild.done);
        }
        drop(state);
        let (world_id, revision, tiles) = (id.to_string(), outcome.revision, cached.len());
        let meshes = self.clone();
        let finish = async move {
            let failed = futures::future::join_all(rebuilds)
                .await
                .into_iter()
                .filter_map(Result::err)
                .find(|e| !matches!(e, MeshError::Superseded));
            meshes.update_size().await;
            match failed {
                // Not fatal: a stale entry is never served, the next request builds.
                Some(e) => {
                    tracing::warn!(world = %world_id, revision, error = %e, "rebuilding cached tile meshes")
                }
                None => {
                    tracing::debug!(world = %world_id, revision, tiles, "cached tile meshes rebuilt")
                }
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(finish);
            }
            Err(_) => futures::executor::block_on(finish),
        }
    }
}
