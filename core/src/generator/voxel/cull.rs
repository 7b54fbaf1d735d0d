//! Hidden-block culling: the blocks of a rectangle that can be seen, grouped by kind
//! with their jittered colours, for one instanced draw per kind.
//!
//! A block is hidden when all six neighbours occlude (solid and opaque), neighbours in
//! the next chunk included; below the world counts as occluding, outside the volume's
//! rectangle and above the range as air.

use super::Voxel;
use super::block::BlockKind;
use super::field::hash3;
use super::volume::{Padded, Volume};

/// The visible blocks of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct KindInstances {
    pub kind: BlockKind,
    /// World block coordinates `[x, y, z]` (the block spans `x..x+1` and so on).
    pub positions: Vec<[i32; 3]>,
    /// Linear colours in 0..1: the base colour times `1 + (hash3 * 2 - 1) * jitter`,
    /// clamped.
    pub colours: Vec<[f32; 3]>,
}

/// The visible blocks of a chunk by kind (in [`BlockKind`] order, kinds with no
/// visible block left out), with the counts of visible and of all non-air blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Instances {
    pub kinds: Vec<KindInstances>,
    pub visible: u64,
    pub total: u64,
}

/// sRGB (0..255) to linear (0..1).
pub fn srgb_to_linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        libm::pow((c + 0.055) / 1.055, 2.4)
    }
}

/// The linear base colour of `kind`.
pub fn base_colour(kind: BlockKind) -> [f64; 3] {
    kind.info().colour.map(srgb_to_linear)
}

/// The jittered colour of a `kind` block at `(x, y, z)` in world `seed`.
pub fn instance_colour(seed: u32, kind: BlockKind, x: i64, y: i64, z: i64) -> [f32; 3] {
    jittered(base_colour(kind), seed, kind, x, y, z)
}

fn jittered(base: [f64; 3], seed: u32, kind: BlockKind, x: i64, y: i64, z: i64) -> [f32; 3] {
    let k = 1.0 + (hash3(seed, x, y, z) * 2.0 - 1.0) * f64::from(kind.info().jitter);
    base.map(|c| (c * k).clamp(0.0, 1.0) as f32)
}

impl Volume {
    /// Whether the block at `(x, y, z)` has all six neighbours occluding.
    pub fn hidden(&self, x: i64, y: i64, z: i64) -> bool {
        [
            (1, 0, 0),
            (-1, 0, 0),
            (0, 1, 0),
            (0, -1, 0),
            (0, 0, 1),
            (0, 0, -1),
        ]
        .into_iter()
        .all(|(dx, dy, dz)| self.get(x + dx, y + dy, z + dz).occludes())
    }
}

impl Voxel {
    /// The visible blocks of the `w` x `d` columns from `(x0, z0)` of `volume` (which
    /// must hold them; its ring around them is their neighbourhood).
    pub(crate) fn instances(
        &self,
        volume: &Volume,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
    ) -> Instances {
        let mut kinds: Vec<KindInstances> = BlockKind::ALL
            .iter()
            .map(|&kind| KindInstances {
                kind,
                positions: Vec::new(),
                colours: Vec::new(),
            })
            .collect();
        let bases: Vec<[f64; 3]> = BlockKind::ALL.iter().map(|&k| base_colour(k)).collect();
        let (mut visible, mut total) = (0, 0);
        let pad = Padded::new(volume, x0, z0, w, d);
        let [sx, sy, sz] = pad.stride;
        let occludes = |i: isize| pad.blocks[i as usize].occludes();
        for z in z0..z0 + d as i64 {
            for x in x0..x0 + w as i64 {
                let base = pad.index(x, 0, z) as isize;
                for y in 0..volume.h as i64 {
                    let i = base + y as isize;
                    let kind = pad.blocks[i as usize];
                    if kind == BlockKind::Air {
                        continue;
                    }
                    total += 1;
                    let hidden = occludes(i + sx)
                        && occludes(i - sx)
                        && occludes(i + sy)
                        && occludes(i - sy)
                        && occludes(i + sz)
                        && occludes(i - sz);
                    if hidden {
                        continue;
                    }
                    visible += 1;
                    let k = &mut kinds[usize::from(kind.id())];
                    k.positions.push([x as i32, y as i32, z as i32]);
                    let base = bases[usize::from(kind.id())];
                    k.colours.push(jittered(base, self.seed(), kind, x, y, z));
                }
            }
        }
        kinds.retain(|k| !k.positions.is_empty());
        Instances {
            kinds,
            visible,
            total,
        }
    }
}
