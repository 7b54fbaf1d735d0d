//! Figures of a rectangle seen as an isolated diorama (outside it is air, as in the
//! seed's scene): total blocks, visible instances after culling, kinds drawn (one
//! instanced draw call each), greedy quads and the unit faces they cover.

use super::Voxel;
use super::greedy::mesh;

/// The figures of one area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AreaStats {
    /// Non-air blocks.
    pub total_blocks: u64,
    /// Blocks not hidden by six occluding neighbours.
    pub visible: u64,
    /// Kinds with a visible block: instanced draw calls.
    pub kinds: u64,
    /// Greedy quads.
    pub quads: u64,
    /// Visible unit faces (a naive mesh's quads).
    pub visible_faces: u64,
}

impl Voxel {
    /// [`AreaStats`] of the `w` x `d` columns from `(x0, z0)` as a diorama.
    pub fn area_stats(&self, x0: i64, z0: i64, w: usize, d: usize) -> AreaStats {
        let v = self.area(x0, z0, w, d);
        let (x0, z0, w, d) = v.rect();
        let inst = self.instances(&v, x0, z0, w, d);
        let m = mesh(&v, x0, z0, w, d);
        AreaStats {
            total_blocks: inst.total,
            visible: inst.visible,
            kinds: inst.kinds.len() as u64,
            quads: m.quads,
            visible_faces: m.visible_faces,
        }
    }
}
