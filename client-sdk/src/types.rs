//! Plain Rust types for the service's answers (no protobuf types in the public API).

use terrain_proto::v1;

/// A hosted world.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldInfo {
    pub id: String,
    /// `"hyperscape"` or `"osrs"`.
    pub generator: String,
    pub seed: u32,
    /// Edge length of one mesh tile, in world units.
    pub tile_size: f64,
    /// Vertices along one edge of a tile mesh.
    pub tile_resolution: u32,
    /// The world's revision when it was listed.
    pub revision: u64,
}

impl From<v1::World> for WorldInfo {
    fn from(w: v1::World) -> Self {
        WorldInfo {
            id: w.id,
            generator: w.generator,
            seed: w.seed,
            tile_size: w.tile_size,
            tile_resolution: w.tile_resolution,
            revision: w.revision,
        }
    }
}

/// The height at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Height {
    pub x: f64,
    pub z: f64,
    /// Metres, Y up.
    pub height: f64,
    /// The world revision the height reflects.
    pub revision: u64,
}

/// Heights at many points, in request order.
#[derive(Debug, Clone, PartialEq)]
pub struct Heights {
    pub heights: Vec<f64>,
    pub revision: u64,
}

/// A regular grid of heights: sample `(ix, iz)` is at `(x0 + ix*step, z0 + iz*step)`
/// and stored at `heights[iz * nx + ix]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    pub x0: f64,
    pub z0: f64,
    pub step: f64,
    pub nx: u32,
    pub nz: u32,
    pub heights: Vec<f64>,
    pub revision: u64,
}

impl Heightmap {
    /// The height of sample `(ix, iz)`, if it is inside the grid.
    pub fn get(&self, ix: u32, iz: u32) -> Option<f64> {
        if ix >= self.nx || iz >= self.nz {
            return None;
        }
        self.heights
            .get(iz as usize * self.nx as usize + ix as usize)
            .copied()
    }
}
