//! Greedy meshing of a chunk: every visible face, coplanar adjacent faces of one kind
//! merged into one quad, opaque kinds in one part and the others (water, ice, leaves,
//! flowers, lily pads) in a part of their own.
//!
//! A face of block `a` toward its neighbour `b` is visible when `a` is not air, `b`
//! does not occlude, and `b` is not of `a`'s kind (no faces inside a body of water);
//! so a face between two opaque blocks is never emitted. Each direction is cut into
//! slices; in each slice the mask of visible faces is covered greedily (widest run
//! along the first axis, then as many rows as match). Every quad is four consecutive
//! vertices, counter-clockwise seen from outside, with the kind's linear base colour
//! (merged quads carry no per-block jitter) and indices `0 1 2, 0 2 3`.
//!
//! The mesh is plain geometry: its glTF form ([`VoxelMesh::primitives`]) is the meshes'
//! ([`crate::mesh::glb`]), a layer above the generators.

use super::block::BlockKind;
use super::cull::base_colour;
use super::volume::{Padded, Volume};

/// Triangles of one part of a voxel mesh, world metres.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshPart {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// Linear 0..1.
    pub colours: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
}

/// A greedy-meshed chunk, with the counts of merged quads and of the unit faces they
/// cover.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VoxelMesh {
    pub opaque: MeshPart,
    pub transparent: MeshPart,
    pub quads: u64,
    pub visible_faces: u64,
}

/// Whether the face of `a` toward `b` is drawn.
pub fn face_visible(a: BlockKind, b: BlockKind) -> bool {
    a != BlockKind::Air && !b.occludes() && a != b
}

impl MeshPart {
    fn quad(&mut self, corners: [[f64; 3]; 4], normal: [f32; 3], colour: [f32; 3]) {
        let base = self.positions.len() as u32;
        for c in corners {
            self.positions.push(c.map(|v| v as f32));
            self.normals.push(normal);
            self.colours.push(colour);
        }
        self.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}

/// The greedy mesh of the `w` x `d` columns from `(x0, z0)` of `volume` (its ring
/// around them is their neighbourhood).
pub(crate) fn mesh(volume: &Volume, x0: i64, z0: i64, w: usize, d: usize) -> VoxelMesh {
    let mut out = VoxelMesh::default();
    let lo = [x0, 0, z0];
    let size = [w, volume.h, d];
    let pad = Padded::new(volume, x0, z0, w, d);
    let bases: Vec<[f32; 3]> = BlockKind::ALL
        .iter()
        .map(|&k| base_colour(k).map(|c| c as f32))
        .collect();
    for n in 0..3 {
        // (u, v) with u x v = +n.
        let (u, v) = match n {
            0 => (1, 2),
            1 => (2, 0),
            _ => (0, 1),
        };
        for sign in [1i64, -1] {
            let mut normal = [0.0f32; 3];
            normal[n] = sign as f32;
            let mut mask = vec![BlockKind::Air; size[u] * size[v]];
            let step = pad.stride[n] * sign as isize;
            for s in 0..size[n] {
                for iv in 0..size[v] {
                    let mut p = lo;
                    p[n] += s as i64;
                    p[v] += iv as i64;
                    let row = pad.index(p[0], p[1], p[2]);
                    for iu in 0..size[u] {
                        let i = row + iu * pad.stride[u] as usize;
                        let a = pad.blocks[i];
                        let b = pad.blocks[(i as isize + step) as usize];
                        mask[iv * size[u] + iu] = if face_visible(a, b) {
                            out.visible_faces += 1;
                            a
                        } else {
                            BlockKind::Air
                        };
                    }
                }
                let plane = lo[n] + s as i64 + i64::from(sign > 0);
                cover(&mut mask, size[u], size[v], |kind, iu, iv, du, dv| {
                    let corner = |cu: usize, cv: usize| {
                        let mut c = [0.0; 3];
                        c[n] = plane as f64;
                        c[u] = (lo[u] + cu as i64) as f64;
                        c[v] = (lo[v] + cv as i64) as f64;
                        c
                    };
                    let mut corners = [
                        corner(iu, iv),
                        corner(iu + du, iv),
                        corner(iu + du, iv + dv),
                        corner(iu, iv + dv),
                    ];
                    if sign < 0 {
                        corners.reverse();
                    }
                    let colour = bases[usize::from(kind.id())];
                    let part = if kind.occludes() {
                        &mut out.opaque
                    } else {
                        &mut out.transparent
                    };
                    part.quad(corners, normal, colour);
                    out.quads += 1;
                });
            }
        }
    }
    out
}

/// Covers the non-air cells of `mask` (`nu` x `nv`, u fastest) with rectangles of one
/// kind each, clearing it: `emit(kind, u, v, du, dv)`.
fn cover(
    mask: &mut [BlockKind],
    nu: usize,
    nv: usize,
    mut emit: impl FnMut(BlockKind, usize, usize, usize, usize),
) {
    for iv in 0..nv {
        let mut iu = 0;
        while iu < nu {
            let kind = mask[iv * nu + iu];
            if kind == BlockKind::Air {
                iu += 1;
                continue;
            }
            let mut du = 1;
            while iu + du < nu && mask[iv * nu + iu + du] == kind {
                du += 1;
            }
            let mut dv = 1;
            while iv + dv < nv
                && mask[(iv + dv) * nu + iu..(iv + dv) * nu + iu + du]
                    .iter()
                    .all(|&k| k == kind)
            {
                dv += 1;
            }
            for row in iv..iv + dv {
                mask[row * nu + iu..row * nu + iu + du].fill(BlockKind::Air);
            }
            emit(kind, iu, iv, du, dv);
            iu += du;
        }
    }
}
