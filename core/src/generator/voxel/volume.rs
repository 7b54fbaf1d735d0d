//! Blocks of a rectangle of columns ([`Volume`]) and the public [`Chunk`]: terrain,
//! water, each column's own decoration, then the canopies of every tree within
//! [`DECORATION_REACH`] of the rectangle, so a canopy that spans chunks is seen by each.
//!
//! Placement commutes: a column's own blocks are written first, and leaves go only
//! where air remains, so which tree is placed first never matters.

use super::block::{Biome, BlockKind, Decoration};
use super::columns::{ColumnData, Rect, ZoneTops};
use super::{CHUNK, Voxel};

/// How many columns a decoration reaches beyond its own: a tree's canopy, 2.
pub const DECORATION_REACH: i64 = 2;

/// Blocks under a land surface that are the biome's subsoil before stone.
const SUBSOIL: i32 = 3;

/// A column of a chunk as served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Top of the highest solid block (the surface, the ice sheet or a solid
    /// decoration's top), equal to `Generator::height` over the column.
    pub height: i32,
    pub biome: Biome,
    /// The top terrain block (sand under water).
    pub surface: BlockKind,
    pub decoration: Option<Decoration>,
    /// Water (or ice) blocks between the ground and sea level.
    pub water_depth: u32,
    /// In the river mask.
    pub river: bool,
}

/// Blocks of any rectangle of columns ([`Voxel::area`]), column-major (`y` fastest),
/// with its columns: the same blocks as the chunks it overlaps.
#[derive(Debug, Clone)]
pub struct Volume {
    pub(crate) x0: i64,
    pub(crate) z0: i64,
    pub(crate) w: usize,
    pub(crate) d: usize,
    pub(crate) h: usize,
    pub(crate) blocks: Vec<BlockKind>,
    pub(crate) columns: Vec<Column>,
}

impl Volume {
    /// The rectangle: `(x0, z0, w, d)`.
    pub fn rect(&self) -> (i64, i64, usize, usize) {
        (self.x0, self.z0, self.w, self.d)
    }

    /// Vertical extent.
    pub fn height(&self) -> u32 {
        self.h as u32
    }

    /// The column at world `(x, z)`, if inside.
    pub fn column(&self, x: i64, z: i64) -> Option<&Column> {
        let (lx, lz) = (x - self.x0, z - self.z0);
        if lx < 0 || lz < 0 || lx >= self.w as i64 || lz >= self.d as i64 {
            return None;
        }
        self.columns.get(lz as usize * self.w + lx as usize)
    }

    /// The highest non-air block of column `(x, z)` (what a view from straight above
    /// sees: leaves, water, ice, a flower, else the surface), or air outside the
    /// rectangle.
    pub fn top(&self, x: i64, z: i64) -> BlockKind {
        (0..self.h as i64)
            .rev()
            .map(|y| self.get(x, y, z))
            .find(|&b| b != BlockKind::Air)
            .unwrap_or(BlockKind::Air)
    }

    /// Non-air blocks.
    pub fn total_blocks(&self) -> u64 {
        self.blocks.iter().filter(|&&b| b != BlockKind::Air).count() as u64
    }

    /// The block at world `(x, y, z)`: air outside the rectangle and above the range,
    /// stone below 0 (the world's floor, never seen).
    pub fn get(&self, x: i64, y: i64, z: i64) -> BlockKind {
        if y < 0 {
            return BlockKind::Stone;
        }
        let (lx, lz) = (x - self.x0, z - self.z0);
        if lx < 0 || lz < 0 || lx >= self.w as i64 || lz >= self.d as i64 || y >= self.h as i64 {
            return BlockKind::Air;
        }
        self.blocks[((lz as usize * self.w) + lx as usize) * self.h + y as usize]
    }
}

/// The blocks of a rectangle and a one-block ring around it (the volume's beyond it
/// as [`Volume::get`] says) in one flat array, for neighbour reads by index.
pub(crate) struct Padded {
    pub blocks: Vec<BlockKind>,
    /// Index steps of +x, +y, +z.
    pub stride: [isize; 3],
    x0: i64,
    z0: i64,
}

impl Padded {
    pub fn new(v: &Volume, x0: i64, z0: i64, w: usize, d: usize) -> Padded {
        let (pw, ph, pd) = (w + 2, v.h + 2, d + 2);
        let mut blocks = Vec::with_capacity(pw * ph * pd);
        for z in z0 - 1..z0 + d as i64 + 1 {
            for x in x0 - 1..x0 + w as i64 + 1 {
                for y in -1..v.h as i64 + 1 {
                    blocks.push(v.get(x, y, z));
                }
            }
        }
        Padded {
            blocks,
            stride: [ph as isize, 1, (pw * ph) as isize],
            x0,
            z0,
        }
    }

    /// The index of world `(x, y, z)` (within the rectangle or its ring).
    pub fn index(&self, x: i64, y: i64, z: i64) -> usize {
        let [sx, sy, sz] = self.stride;
        ((x - self.x0 + 1) as isize * sx + (y + 1) as isize * sy + (z - self.z0 + 1) as isize * sz)
            as usize
    }
}

pub(crate) fn fill_column(out: &mut [BlockKind], c: &ColumnData, sea: i32) {
    let g = c.ground as usize;
    for (y, b) in out.iter_mut().enumerate().take(g) {
        let y = y as i32;
        *b = if y == c.ground - 1 {
            c.surface
        } else if y >= c.ground - 1 - SUBSOIL {
            if c.water_depth > 0 {
                BlockKind::Sand
            } else {
                c.biome.subsoil()
            }
        } else {
            BlockKind::Stone
        };
    }
    if c.water_depth > 0 {
        for b in &mut out[g..sea as usize] {
            *b = BlockKind::Water;
        }
        if c.biome.frozen() {
            out[sea as usize - 1] = BlockKind::Ice;
        }
    }
    let kind = match c.decoration {
        None => return,
        Some(Decoration::Cactus) => BlockKind::Cactus,
        Some(Decoration::IceSpike) => BlockKind::PackedIce,
        Some(Decoration::Tree) => BlockKind::Wood,
        Some(Decoration::Rock) => BlockKind::Rock,
        Some(Decoration::Flower) => BlockKind::Flower,
        Some(Decoration::LilyPad) => {
            out[sea as usize] = BlockKind::LilyPad;
            return;
        }
    };
    let n = c.size.max(1) as usize;
    for b in &mut out[g..g + n] {
        *b = kind;
    }
    if c.decoration == Some(Decoration::Tree) {
        out[g + n] = BlockKind::Leaves;
    }
}

/// Whether a tree of trunk `size` on ground `g` has a leaf at offset `(dx, y, dz)`
/// from its trunk column: two layers of radius 2 (corners cut) around the trunk's top
/// two blocks, and a plus of radius 1 on top.
pub(crate) fn leaf(dx: i64, dz: i64, y: i32, g: i32, size: i32) -> bool {
    let top = g + size;
    let (ax, az) = (dx.abs(), dz.abs());
    if y == top {
        ax + az <= 1
    } else if y == top - 1 || y == top - 2 {
        (ax, az) != (0, 0) && ax <= 2 && az <= 2 && (ax, az) != (2, 2)
    } else {
        false
    }
}

impl Voxel {
    /// The blocks of the `w` x `d` columns from `(x0, z0)`, zones applied.
    pub(crate) fn volume(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        zones: ZoneTops<'_>,
    ) -> Volume {
        let r = DECORATION_REACH;
        let ru = r as usize;
        let cols = self.columns(x0 - r, z0 - r, w + 2 * ru, d + 2 * ru, zones);
        let h = self.config.max_height as usize;
        let sea = self.config.sea_level as i32;
        let mut blocks = vec![BlockKind::Air; w * d * h];
        let mut columns = Vec::with_capacity(w * d);
        for lz in 0..d {
            for lx in 0..w {
                let c = cols.at(x0 + lx as i64, z0 + lz as i64);
                let i = lz * w + lx;
                fill_column(&mut blocks[i * h..(i + 1) * h], &c, sea);
                columns.push(public(&c, sea));
            }
        }
        place_canopies(&cols, x0, z0, w, d, h, &mut blocks);
        Volume {
            x0,
            z0,
            w,
            d,
            h,
            blocks,
            columns,
        }
    }

    /// The generator's blocks of the `w` x `d` columns from `(x0, z0)`, no zones (at
    /// most 2^24 columns; larger rectangles are clipped to 4096 x 4096).
    pub fn area(&self, x0: i64, z0: i64, w: usize, d: usize) -> Volume {
        self.volume(x0, z0, w.min(4096), d.min(4096), None)
    }

    /// The generator's chunk `(cx, cz)`: 32 x 32 columns from `(32 cx, 32 cz)`, no
    /// zones. Callers keep `|cx|, |cz| <= MAX_CHUNK`.
    pub fn chunk(&self, cx: i64, cz: i64) -> Chunk {
        self.chunk_with(cx, cz, None)
    }

    pub(crate) fn chunk_with(&self, cx: i64, cz: i64, zones: ZoneTops<'_>) -> Chunk {
        let n = CHUNK as usize;
        Chunk::from_volume(cx, cz, self.volume(cx * CHUNK, cz * CHUNK, n, n, zones))
    }
}

pub(crate) fn public(c: &ColumnData, sea: i32) -> Column {
    Column {
        height: c.height(sea, c.biome.frozen()),
        biome: c.biome,
        surface: c.surface,
        decoration: c.decoration,
        water_depth: c.water_depth,
        river: c.river,
    }
}

fn place_canopies(
    cols: &Rect<ColumnData>,
    x0: i64,
    z0: i64,
    w: usize,
    d: usize,
    h: usize,
    blocks: &mut [BlockKind],
) {
    for iz in 0..cols.d {
        for ix in 0..cols.w {
            let c = &cols.v[iz * cols.w + ix];
            if c.decoration != Some(Decoration::Tree) {
                continue;
            }
            let (tx, tz) = (cols.x0 + ix as i64, cols.z0 + iz as i64);
            for dz in -DECORATION_REACH..=DECORATION_REACH {
                for dx in -DECORATION_REACH..=DECORATION_REACH {
                    let (lx, lz) = (tx + dx - x0, tz + dz - z0);
                    if lx < 0 || lz < 0 || lx >= w as i64 || lz >= d as i64 {
                        continue;
                    }
                    let base = (lz as usize * w + lx as usize) * h;
                    for y in c.ground + c.size - 2..=c.ground + c.size {
                        let b = &mut blocks[base + y as usize];
                        if *b == BlockKind::Air && leaf(dx, dz, y, c.ground, c.size) {
                            *b = BlockKind::Leaves;
                        }
                    }
                }
            }
        }
    }
}

/// One chunk's blocks and columns: 32 x 32 columns of `height` blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub(crate) cx: i64,
    pub(crate) cz: i64,
    pub(crate) height: u32,
    /// Column-major: `(z * 32 + x) * height + y`.
    pub(crate) blocks: Vec<BlockKind>,
    pub(crate) columns: Vec<Column>,
}

impl Chunk {
    /// The chunk of a 32 x 32 volume.
    pub(crate) fn from_volume(cx: i64, cz: i64, v: Volume) -> Chunk {
        Chunk {
            cx,
            cz,
            height: v.h as u32,
            blocks: v.blocks,
            columns: v.columns,
        }
    }

    pub fn cx(&self) -> i64 {
        self.cx
    }

    pub fn cz(&self) -> i64 {
        self.cz
    }

    /// Vertical extent: blocks `y` in `0..height()`.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The block at local `(x, y, z)` (`x`, `z` in `0..32`, `y` in `0..height`); air
    /// outside.
    pub fn block(&self, x: usize, y: usize, z: usize) -> BlockKind {
        let n = CHUNK as usize;
        if x >= n || z >= n || y >= self.height as usize {
            return BlockKind::Air;
        }
        self.blocks[(z * n + x) * self.height as usize + y]
    }

    /// The column blocks of local `(x, z)`, bottom up.
    pub fn column_blocks(&self, x: usize, z: usize) -> &[BlockKind] {
        let (n, h) = (CHUNK as usize, self.height as usize);
        let i = (z.min(n - 1) * n + x.min(n - 1)) * h;
        &self.blocks[i..i + h]
    }

    /// The columns, index `z * 32 + x`.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Blocks that are not air.
    pub fn total_blocks(&self) -> u64 {
        self.blocks.iter().filter(|&&b| b != BlockKind::Air).count() as u64
    }
}
