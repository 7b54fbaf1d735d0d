//! Tile mesh calls of [`TerrainClient`]: the packed little-endian arrays of
//! `terrain.v1.TileMesh` decoded into plain vectors. A voxel world's chunk mesh has
//! `resolution` 0, per-vertex `colours` and a `transparent` part.

use futures::TryStreamExt;
use terrain_proto::v1;

use crate::{ClientError, TerrainClient};

/// One tile's triangle mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct TileMesh {
    pub tile_x: i64,
    pub tile_z: i64,
    /// The revision of the last change that touched the tile (0: none).
    pub version: u64,
    /// Vertices per edge; vertex `i = iz * resolution + ix`.
    pub resolution: u32,
    pub min_height: f32,
    pub max_height: f32,
    /// World position of the tile's local origin: add it to `positions`.
    pub placement: [f64; 3],
    /// `x, y, z` per vertex, relative to `placement`.
    pub positions: Vec<f32>,
    /// Unit normals, `x, y, z` per vertex.
    pub normals: Vec<f32>,
    /// Three vertex indices per triangle; carved cells are absent.
    pub indices: Vec<u32>,
    /// The world's revision when the mesh was served.
    pub revision: u64,
    /// Linear RGB `r, g, b` per vertex: a voxel chunk's block colours, or a hyperscape
    /// tile's vertex colours (empty for other heightfield tiles).
    pub colours: Vec<f32>,
    /// Hyperscape tiles: each vertex's dominant biome id (empty otherwise).
    pub biomes: Vec<u8>,
    /// Voxel chunks: the transparent kinds' part.
    pub transparent: Option<MeshPart>,
    /// Voxel chunks: greedy quads, and the visible block faces they cover.
    pub quads: u64,
    pub visible_faces: u64,
}

/// A voxel chunk mesh's transparent part.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshPart {
    /// `x, y, z` per vertex, relative to the mesh's `placement`.
    pub positions: Vec<f32>,
    pub normals: Vec<f32>,
    /// Linear RGB `r, g, b` per vertex.
    pub colours: Vec<f32>,
    pub indices: Vec<u32>,
}

fn f32s(bytes: &[u8], what: &str) -> Result<Vec<f32>, ClientError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(ClientError::Protocol(format!(
            "{what}: {} bytes is not a whole number of f32",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn indices(bytes: &[u8], format: i32) -> Result<Vec<u32>, ClientError> {
    let width = match v1::IndexFormat::try_from(format) {
        Ok(v1::IndexFormat::U16) => 2,
        Ok(v1::IndexFormat::U32) => 4,
        _ => {
            return Err(ClientError::Protocol(format!(
                "index_format {format} is not u16 or u32"
            )));
        }
    };
    if !bytes.len().is_multiple_of(width) {
        return Err(ClientError::Protocol(format!(
            "indices: {} bytes is not a whole number of {width}-byte indices",
            bytes.len()
        )));
    }
    Ok(if width == 2 {
        bytes
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect()
    } else {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

impl TryFrom<v1::TileMesh> for TileMesh {
    type Error = ClientError;

    fn try_from(m: v1::TileMesh) -> Result<Self, ClientError> {
        let placement: [f64; 3] = m.placement.as_slice().try_into().map_err(|_| {
            ClientError::Protocol(format!("placement has {} values", m.placement.len()))
        })?;
        Ok(TileMesh {
            tile_x: m.tile_x,
            tile_z: m.tile_z,
            version: m.version,
            resolution: m.resolution,
            min_height: m.min_height,
            max_height: m.max_height,
            placement,
            positions: f32s(&m.positions, "positions")?,
            normals: f32s(&m.normals, "normals")?,
            indices: indices(&m.indices, m.index_format)?,
            revision: m.revision,
            colours: f32s(&m.colours, "colours")?,
            transparent: match m.transparent {
                None => None,
                Some(p) => Some(MeshPart {
                    positions: f32s(&p.positions, "transparent.positions")?,
                    normals: f32s(&p.normals, "transparent.normals")?,
                    colours: f32s(&p.colours, "transparent.colours")?,
                    indices: indices(&p.indices, v1::IndexFormat::U32.into())?,
                }),
            },
            quads: m.quads,
            visible_faces: m.visible_faces,
            biomes: m.biomes.to_vec(),
        })
    }
}

impl TerrainClient {
    /// The mesh of tile `(tile_x, tile_z)` of `world` at its current version.
    pub async fn tile_mesh(
        &mut self,
        world: &str,
        tile_x: i64,
        tile_z: i64,
    ) -> Result<TileMesh, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetTileMesh", || {
                let mut c = inner.clone();
                let req = v1::GetTileMeshRequest {
                    world: world.to_string(),
                    tile_x,
                    tile_z,
                    max_error: 0.0,
                };
                async move { TileMesh::try_from(c.get_tile_mesh(req).await?.into_inner()) }
            })
            .await
    }

    /// The meshes of `tiles` (at most 1024), in the same order.
    pub async fn tile_meshes(
        &mut self,
        world: &str,
        tiles: &[(i64, i64)],
    ) -> Result<Vec<TileMesh>, ClientError> {
        let inner = self.inner.clone();
        let keys: Vec<v1::TileKey> = tiles.iter().map(|&(x, z)| v1::TileKey { x, z }).collect();
        self.retry
            .run("GetTileMeshes", || {
                let mut c = inner.clone();
                let req = v1::GetTileMeshesRequest {
                    world: world.to_string(),
                    tiles: keys.clone(),
                    max_error: 0.0,
                };
                async move {
                    let stream = c.get_tile_meshes(req).await?.into_inner();
                    let meshes: Vec<v1::TileMesh> = stream.try_collect().await?;
                    meshes.into_iter().map(TileMesh::try_from).collect()
                }
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_arrays_decode_little_endian() {
        assert_eq!(f32s(&1.5f32.to_le_bytes(), "p").unwrap(), [1.5]);
        assert!(f32s(&[0, 0, 0], "p").is_err());
        let u16s = [1u8, 0, 0xff, 0xff];
        assert_eq!(
            indices(&u16s, v1::IndexFormat::U16 as i32).unwrap(),
            [1, 65535]
        );
        assert_eq!(
            indices(&u16s, v1::IndexFormat::U32 as i32).unwrap(),
            [0xffff_0001]
        );
        assert!(indices(&u16s, 0).is_err());
    }
}
