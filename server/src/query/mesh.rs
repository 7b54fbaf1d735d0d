//! Tile mesh queries both surfaces share: tile validation (with the caller's field
//! names), the version of a tile (for HTTP conditional requests) and the mesh itself
//! from the [`MeshCache`](crate::mesh::MeshCache).

use std::sync::Arc;

use terrain_core::{GeneratorKind, voxel::MAX_CHUNK};

use super::QueryError;
use super::{QueryEngine, check_coordinate};
use crate::{error::Field, mesh::ServedMesh, world::World};

/// The most tiles one `GetTileMeshes` call may ask for.
pub const MAX_TILES_PER_CALL: usize = 1024;

/// How the caller names a tile's two indices in errors: each surface spells its own
/// (the HTTP path segments, the gRPC request fields, an element of a list).
#[derive(Debug, Clone)]
pub struct TileFields {
    pub x: Field,
    pub z: Field,
}

impl TileFields {
    /// The fields named `x` and `z`.
    pub fn new(x: impl Into<Field>, z: impl Into<Field>) -> Self {
        TileFields {
            x: x.into(),
            z: z.into(),
        }
    }
}

/// The version of a tile and the world revision it was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileVersion {
    pub version: u64,
    pub revision: u64,
}

impl QueryEngine {
    /// Checks that tile `tile` of `world` lies within the coordinate limit: `|t *
    /// tile_size| <= max_coordinate` on both axes; on a voxel world, within the chunks
    /// the voxel generator serves instead (`|c| <= 2^20`,
    /// `terrain_core::voxel::MAX_CHUNK`): every chunk a viewer inside the world's
    /// coordinate range can be announced, whatever `max_coordinate` is.
    pub fn check_tile(
        &self,
        world: &World,
        tile: (i64, i64),
        fields: &TileFields,
    ) -> Result<(), QueryError> {
        let size = world.tile_grid().size;
        let max = self.limits().max_coordinate;
        for (t, field) in [(tile.0, &fields.x), (tile.1, &fields.z)] {
            if world.kind() == GeneratorKind::Voxel {
                if t.unsigned_abs() > MAX_CHUNK.unsigned_abs() {
                    let reason = format!(
                        "chunk {t} is beyond the voxel chunks served: |chunk| must be at most {MAX_CHUNK}"
                    );
                    return Err(QueryError::invalid(field.clone(), reason));
                }
                continue;
            }
            check_coordinate(t as f64 * size, max).map_err(|_| {
                let reason = format!(
                    "tile {t} is outside the world: tile * {size} must be within [-{max}, {max}]"
                );
                QueryError::invalid(field.clone(), reason)
            })?;
        }
        Ok(())
    }

    /// The current version of `tile` (validated), without building anything.
    pub async fn tile_version(
        &self,
        world: &World,
        tile: (i64, i64),
        fields: &TileFields,
    ) -> Result<TileVersion, QueryError> {
        self.check_tile(world, tile, fields)?;
        let state = world.snapshot();
        Ok(TileVersion {
            version: state.tile_version(tile),
            revision: state.revision(),
        })
    }

    /// The mesh of `tile` (validated) at its current version.
    pub async fn tile_mesh(
        &self,
        world: &Arc<World>,
        tile: (i64, i64),
        fields: &TileFields,
    ) -> Result<ServedMesh, QueryError> {
        self.check_tile(world, tile, fields)?;
        let state = world.snapshot();
        Ok(self.meshes().get(world, state, tile).await?)
    }

    /// The mesh of `tile` (validated) at its current version, simplified to at most
    /// `max_error` metres (checked by [`check_max_error`]; 0: full detail).
    pub async fn tile_mesh_lod(
        &self,
        world: &Arc<World>,
        tile: (i64, i64),
        fields: &TileFields,
        max_error: f64,
    ) -> Result<ServedMesh, QueryError> {
        let served = self.tile_mesh(world, tile, fields).await?;
        Ok(self
            .meshes()
            .simplified(world.id(), served, max_error)
            .await?)
    }

    /// Refuses a tile list longer than [`MAX_TILES_PER_CALL`].
    pub fn check_tile_count(&self, n: usize) -> Result<(), QueryError> {
        if n > MAX_TILES_PER_CALL {
            let reason = format!("{n} tiles exceed the limit of {MAX_TILES_PER_CALL} per call");
            return Err(QueryError::too_large("tiles", reason));
        }
        Ok(())
    }
}

/// The largest `maxError` a mesh route takes, in metres.
pub const MAX_MESH_ERROR: f64 = 1000.0;

/// A mesh's maximum vertical error as asked for (field `field`): finite, from 0 (full
/// detail) to [`MAX_MESH_ERROR`] metres.
pub fn check_max_error(value: f64, field: impl Into<Field>) -> Result<f64, QueryError> {
    if !value.is_finite() {
        return Err(QueryError::invalid(field, "must be finite"));
    }
    if !(0.0..=MAX_MESH_ERROR).contains(&value) {
        return Err(QueryError::invalid(
            field,
            format!("must be from 0 to {MAX_MESH_ERROR} metres (got {value})"),
        ));
    }
    // -0.0 and 0.0 are one error (one cache entry).
    Ok(value + 0.0)
}
