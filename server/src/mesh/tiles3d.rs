//! A world's 3D Tiles tileset ([`terrain_core::tiles3d`]): content grids built
//! bottom-up on the compute pool (one pool job per grid, so a cold root takes turns
//! with every other request instead of holding the pool), kept by content and
//! version, and content glbs cached by content and version within an eighth of
//! `limits.mesh_cache_bytes`.
//!
//! A content's version is the newest version of the mesh tiles it covers, so after a
//! zone change exactly the contents covering the changed tiles get a new version (and
//! ETag); everything else is served from the caches. The finest level's
//! contents are the meshes of [`MeshCache`] in the glb encoding kept with them, the
//! bytes `mesh.glb` serves: the full-detail tile meshes, or a voxel world's greedy
//! chunk meshes (whose coarse levels are grids of the top-block heightfield, see
//! [`terrain_core::tiles3d`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use bytes::Bytes;
use futures::future::{BoxFuture, FutureExt, try_join_all};
use moka::future::Cache;
use terrain_core::{
    mesh::to_glb,
    tiles3d::{
        ContentGrid, ContentKey, TilesetLayout, content_mesh, leaf_error, leaf_grid, parent_grid,
        sample_depth,
    },
};

use super::{MeshCache, MeshError, MeshFormat, encode_glb, locked};
use crate::world::{World, WorldState};

/// Grids kept at most (about 16 KiB each); levels above the two finest only, whose
/// grids are cheap to make again from the tiles.
const MAX_GRIDS: usize = 8192;

type GridKey = (String, ContentKey);

/// Kept grids, by content, with the version each was made at.
type Grids = HashMap<GridKey, (u64, Arc<ContentGrid>)>;

/// The tilesets of every world of one server.
#[derive(Clone)]
pub struct Tilesets {
    grids: Arc<Mutex<Grids>>,
    contents: Cache<GridKey, (u64, Bytes)>,
}

impl std::fmt::Debug for Tilesets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tilesets")
            .field("contents", &self.contents.entry_count())
            .finish_non_exhaustive()
    }
}

impl Tilesets {
    pub fn new(budget: usize) -> Self {
        Tilesets {
            grids: Arc::default(),
            contents: Cache::builder()
                .name("3dtiles-contents")
                .max_capacity(budget as u64 / 8)
                .weigher(|_k: &GridKey, v: &(u64, Bytes)| {
                    u32::try_from(v.1.len()).unwrap_or(u32::MAX)
                })
                .build(),
        }
    }
}

/// A world's tileset layout: the square of its `tileset_extent`, with its finest
/// level's error ([`leaf_error`]).
pub fn layout(world: &World) -> TilesetLayout {
    let state = world.snapshot();
    let grid = state.terrain().generator().tile_grid();
    let leaf = leaf_error(state.terrain().generator());
    let mut layout = TilesetLayout::covering(grid, world.tileset_extent(), leaf);
    if !grid.centred {
        // Corner-based tiles (osrs map squares, voxel chunks) start at tile 0.
        layout.min_tile = (0, 0);
    }
    layout
}

/// The newest tile version under `key`.
pub fn content_version(state: &WorldState, layout: &TilesetLayout, key: ContentKey) -> u64 {
    layout
        .tiles(key)
        .tiles()
        .map(|t| state.tile_version(t))
        .max()
        .unwrap_or(0)
}

impl MeshCache {
    /// The grid of `key` as of `state`: kept, or built from its children (or, for a
    /// full-detail tile, from the terrain) on the compute pool.
    pub fn content_grid(
        &self,
        world: Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
    ) -> BoxFuture<'static, Result<Arc<ContentGrid>, MeshError>> {
        let meshes = self.clone();
        async move {
            let version = content_version(&state, &layout, key);
            let gk = (world.id().to_string(), key);
            if let Some((v, g)) = locked(&meshes.tilesets.grids).get(&gk)
                && *v == version
            {
                return Ok(Arc::clone(g));
            }
            let grid = if key.level == layout.levels {
                let job = Arc::clone(&state);
                meshes
                    .compute
                    .run(move || leaf_grid(job.terrain(), &layout, key))
                    .await
                    .map_err(|e| MeshError::Build(e.to_string()))?
            } else {
                let children = try_join_all(key.children().map(|c| {
                    meshes.content_grid(Arc::clone(&world), Arc::clone(&state), layout, c)
                }))
                .await?;
                meshes
                    .compute
                    .run(move || {
                        let c: Vec<&ContentGrid> = children.iter().map(|c| &**c).collect();
                        parent_grid(key, [c[0], c[1], c[2], c[3]])
                    })
                    .await
                    .map_err(|e| MeshError::Build(e.to_string()))?
            };
            let grid = Arc::new(grid);
            if key.level + 2 <= layout.levels {
                let mut grids = locked(&meshes.tilesets.grids);
                if grids.len() >= MAX_GRIDS {
                    grids.clear();
                }
                grids.insert(gk, (version, Arc::clone(&grid)));
            }
            Ok(grid)
        }
        .boxed()
    }

    /// The grids of `key`'s descendants `depth` levels down, row by row from the
    /// lowest x and z.
    async fn descendants(
        &self,
        world: &Arc<World>,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
        depth: u32,
    ) -> Result<Vec<Arc<ContentGrid>>, MeshError> {
        let k = 1u64 << depth;
        let keys = (0..k * k).map(|i| ContentKey {
            level: key.level + depth,
            ix: key.ix * k + i % k,
            iz: key.iz * k + i / k,
        });
        try_join_all(
            keys.map(|c| self.content_grid(Arc::clone(world), Arc::clone(state), layout, c)),
        )
        .await
    }

    /// Content `key` of `world`'s tileset as glb, with its version: cached, or built
    /// (a full-detail tile's mesh at the finest level, a coarse content mesh above).
    pub async fn content(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
    ) -> Result<(u64, Bytes), MeshError> {
        let version = content_version(&state, &layout, key);
        let ck = (world.id().to_string(), key);
        if let Some((v, bytes)) = self.tilesets.contents.get(&ck).await
            && v == version
        {
            return Ok((v, bytes));
        }
        let bytes = if key.level == layout.levels {
            let tiles = layout.tiles(key);
            let served = self
                .get(world, Arc::clone(&state), (tiles.min_tx, tiles.min_tz))
                .await?;
            // The tile's own glb encoding: `mesh.glb`'s bytes, made once for both.
            self.encoded(world.id(), &served, MeshFormat::Glb, encode_glb)
                .await?
        } else {
            let mut depth = 1;
            let budget = layout.geometric_error(key.level);
            let mut samples = self.descendants(world, &state, layout, key, 1).await?;
            loop {
                let worst = samples.iter().map(|g| g.error).fold(0.0, f64::max);
                let want = sample_depth(&layout, key, |d| if d <= depth { worst } else { 0.0 });
                if want <= depth || worst <= budget / 2.0 {
                    break;
                }
                depth += 1;
                samples = self.descendants(world, &state, layout, key, depth).await?;
            }
            let job = Arc::clone(&state);
            self.compute
                .run(move || {
                    let refs: Vec<&ContentGrid> = samples.iter().map(|g| &**g).collect();
                    let (mesh, bound) =
                        content_mesh(job.terrain(), &layout, key, &refs, depth, version);
                    if bound > layout.geometric_error(key.level) {
                        tracing::warn!(?key, bound, "3D Tiles content beyond its level's error");
                    }
                    to_glb(&mesh).map_err(|e| e.to_string())
                })
                .await
                .map_err(|e| MeshError::Build(e.to_string()))?
                .map(Bytes::from)
                .map_err(MeshError::Encode)?
        };
        self.tilesets
            .contents
            .insert(ck, (version, bytes.clone()))
            .await;
        Ok((version, bytes))
    }

    /// The heights every content lies in and the newest tile version of the square:
    /// the root grid's exact range, or on a voxel world the whole block range, 0 to
    /// `max_height`, which needs no grid (a chunk mesh is its blocks, which the
    /// top-block heightfield does not bound: water and leaves lie above it, faces
    /// beside ice and toward columns beyond the square reach below it).
    pub async fn tileset_range(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
    ) -> Result<((f64, f64), u64), MeshError> {
        let root = ContentKey {
            level: 0,
            ix: 0,
            iz: 0,
        };
        let version = content_version(&state, &layout, root);
        if let Some(voxel) = state.terrain().generator().as_voxel() {
            return Ok(((0.0, f64::from(voxel.config().max_height)), version));
        }
        let grid = self
            .content_grid(Arc::clone(world), state, layout, root)
            .await?;
        Ok(((f64::from(grid.min), f64::from(grid.max)), version))
    }
}
