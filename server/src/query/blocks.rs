//! Voxel chunk queries both surfaces share: a chunk's blocks (columns and the compact
//! binary volume) and its visible instances, with the chunk's version for
//! conditional requests.
//!
//! A voxel world's tile is its chunk (32 x 32 columns), so chunk versions are tile
//! versions and chunk indices are checked as tile indices: `|c| <= 2^20`
//! (`terrain_core::voxel::MAX_CHUNK`), named as the caller says ([`TileFields`]).
//! Any other world is refused first, with [`QueryError::NotVoxel`]
//! (`FAILED_PRECONDITION`, HTTP 409, field `world`): the request is well formed, the
//! world's generator has no blocks. Chunks are built on the compute pool from the
//! world's state at one revision (flat zones applied).

use std::sync::Arc;

use terrain_core::{
    GeneratorKind, Terrain,
    voxel::{Chunk, Instances},
};

use super::{QueryEngine, QueryError, mesh::TileFields, mesh::TileVersion};
use crate::{cost::Scope, world::World};

/// A chunk's blocks at the version and revision they were read at.
#[derive(Debug, Clone)]
pub struct BlocksAnswer {
    pub chunk: Chunk,
    pub version: u64,
    pub revision: u64,
}

/// A chunk's visible blocks at the version and revision they were read at.
#[derive(Debug, Clone)]
pub struct InstancesAnswer {
    pub key: (i64, i64),
    pub instances: Instances,
    pub version: u64,
    pub revision: u64,
}

impl QueryEngine {
    /// Refuses a world whose generator is not voxel.
    pub fn check_voxel(&self, world: &World) -> Result<(), QueryError> {
        if world.kind() == GeneratorKind::Voxel {
            return Ok(());
        }
        Err(self.not_voxel(world))
    }

    /// The current version of chunk `chunk` of voxel world `world`, without building
    /// anything.
    pub async fn chunk_version(
        &self,
        world: &World,
        chunk: (i64, i64),
        fields: &TileFields,
    ) -> Result<TileVersion, QueryError> {
        self.check_voxel(world)?;
        self.tile_version(world, chunk, fields).await
    }

    /// Chunk `chunk`'s blocks (flat zones applied) at its current version.
    pub async fn chunk_blocks(
        &self,
        world: &Arc<World>,
        chunk: (i64, i64),
        fields: &TileFields,
    ) -> Result<BlocksAnswer, QueryError> {
        let (built, version, revision) = self
            .build_chunk(world, chunk, fields, "blocks", Terrain::voxel_chunk)
            .await?;
        Ok(BlocksAnswer {
            chunk: built,
            version,
            revision,
        })
    }

    /// What `build` makes of chunk `chunk` on the compute pool, with the chunk's
    /// version and the world's revision of the same read; `what` names it in errors.
    async fn build_chunk<T: Send + 'static>(
        &self,
        world: &Arc<World>,
        chunk: (i64, i64),
        fields: &TileFields,
        what: &'static str,
        build: fn(&Terrain, i64, i64) -> Option<T>,
    ) -> Result<(T, u64, u64), QueryError> {
        self.check_voxel(world)?;
        self.check_tile(world, chunk, fields)?;
        let meters = world.meters();
        let _admitted = self.compute().admit(
            &meters.chunk,
            1,
            Scope {
                field: "x",
                narrow: "a chunk cannot be asked for in parts: raise request_timeout",
                spread: false,
                kept: false,
            },
        )?;
        let state = world.snapshot();
        let (version, revision) = (state.tile_version(chunk), state.revision());
        let (built, took) = self
            .compute()
            .run_timed(move || build(state.terrain(), chunk.0, chunk.1))
            .await
            .map_err(|e| QueryError::Internal(format!("building chunk {what}: {e}")))?;
        meters.chunk.observe(1, took);
        let built = built.ok_or_else(|| self.not_voxel(world))?;
        Ok((built, version, revision))
    }

    /// Chunk `chunk`'s visible blocks grouped by kind, at its current version.
    pub async fn chunk_instances(
        &self,
        world: &Arc<World>,
        chunk: (i64, i64),
        fields: &TileFields,
    ) -> Result<InstancesAnswer, QueryError> {
        let (instances, version, revision) = self
            .build_chunk(world, chunk, fields, "instances", Terrain::voxel_instances)
            .await?;
        Ok(InstancesAnswer {
            key: chunk,
            instances,
            version,
            revision,
        })
    }

    /// The refusal of a world whose terrain has no blocks (also what a voxel terrain
    /// answering `None` for a checked chunk would mean: it cannot, the check covers
    /// `MAX_CHUNK`).
    fn not_voxel(&self, world: &World) -> QueryError {
        QueryError::NotVoxel {
            world: world.id().to_string(),
            generator: world.kind().as_str(),
        }
    }
}
