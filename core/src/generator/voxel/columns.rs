//! Columns of a rectangle of the world: talus erosion over the raw ground (Jacobi
//! iterations on an apron), flat-zone levelling, water, surfaces with the coast rule,
//! and decorations.
//!
//! Every step reads only a bounded neighbourhood, so a rectangle is computed from a
//! larger one by shrinking: erosion iteration `i` reads iteration `i - 1` at the column
//! and its four neighbours (north, east, south, west, in that order), so `k`
//! iterations need `k` columns of apron; the coast rule reads the four neighbours'
//! water, one more. Any two rectangles therefore agree on the columns they share,
//! whatever was computed before, in which order, on which thread.

use super::Voxel;
use super::block::{Biome, BlockKind, Decoration};
use super::field::{SALT_DECORATION, hash2};

/// The top a flat zone gives a column, if one reaches it (already whole blocks).
pub(crate) type ZoneTops<'a> = Option<&'a dyn Fn(i64, i64) -> Option<i32>>;

/// One column as the generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColumnData {
    /// Top of the ground: blocks `0..ground` are terrain.
    pub ground: i32,
    /// Levelled by a flat zone: dry, no decoration.
    pub zoned: bool,
    pub river: bool,
    pub biome: Biome,
    /// Water blocks `ground..sea_level` (the top one ice when frozen).
    pub water_depth: u32,
    /// The top terrain block.
    pub surface: BlockKind,
    pub decoration: Option<Decoration>,
    /// The decoration's size: blocks of cactus, spike or trunk.
    pub size: i32,
}

impl ColumnData {
    /// Top of the highest solid block: ground, the ice sheet, solid decorations.
    pub fn height(&self, sea_level: i32, frozen: bool) -> i32 {
        let base = if self.water_depth > 0 && frozen {
            sea_level
        } else {
            self.ground
        };
        let solid = match self.decoration {
            Some(Decoration::Cactus | Decoration::IceSpike | Decoration::Tree) => self.size,
            Some(Decoration::Rock) => 1,
            Some(Decoration::Flower | Decoration::LilyPad) | None => 0,
        };
        base + solid
    }
}

/// A rectangle of values, row-major (x fastest).
#[derive(Debug, Clone)]
pub(crate) struct Rect<T> {
    pub x0: i64,
    pub z0: i64,
    pub w: usize,
    pub d: usize,
    pub v: Vec<T>,
}

impl<T: Copy> Rect<T> {
    pub fn at(&self, x: i64, z: i64) -> T {
        self.v[(z - self.z0) as usize * self.w + (x - self.x0) as usize]
    }
}

/// Talus rule of one column against its neighbours' previous values (N, E, S, W):
/// higher than the lowest by `excess` more than the threshold, it is lowered by
/// `ceil(excess / 2)`.
pub(crate) fn talus(h: i32, n: [i32; 4], threshold: i32) -> i32 {
    let lowest = n.into_iter().fold(i32::MAX, i32::min);
    let excess = h - lowest - threshold;
    if excess > 0 { h - (excess + 1) / 2 } else { h }
}

impl Voxel {
    /// Eroded ground tops (and river flags) over the rectangle.
    pub(crate) fn eroded(&self, x0: i64, z0: i64, w: usize, d: usize) -> Rect<(i32, bool)> {
        let k = self.config.erosion_iterations as usize;
        let (mut cw, mut cd) = (w + 2 * k, d + 2 * k);
        let (ax, az) = (x0 - k as i64, z0 - k as i64);
        let mut cur = Vec::with_capacity(cw * cd);
        for iz in 0..cd {
            for ix in 0..cw {
                let r = self.fields.raw(ax + ix as i64, az + iz as i64);
                cur.push((r.top, r.river));
            }
        }
        let t = self.config.talus_threshold as i32;
        for _ in 0..k {
            let (nw, nd) = (cw - 2, cd - 2);
            let mut next = Vec::with_capacity(nw * nd);
            for iz in 1..cd - 1 {
                for ix in 1..cw - 1 {
                    let at = |x: usize, z: usize| cur[z * cw + x].0;
                    let (h, river) = cur[iz * cw + ix];
                    let n = [
                        at(ix, iz - 1),
                        at(ix + 1, iz),
                        at(ix, iz + 1),
                        at(ix - 1, iz),
                    ];
                    next.push((talus(h, n, t), river));
                }
            }
            cur = next;
            (cw, cd) = (nw, nd);
        }
        Rect {
            x0,
            z0,
            w,
            d,
            v: cur,
        }
    }

    /// The columns of the rectangle, flat zones (`zones`) applied.
    pub(crate) fn columns(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        zones: ZoneTops<'_>,
    ) -> Rect<ColumnData> {
        let g = self.eroded(x0 - 1, z0 - 1, w + 2, d + 2);
        let sea = self.config.sea_level as i32;
        let max = self.config.max_height as i32;
        // Ground, zone and water over the rectangle and its one-column ring.
        let wet = Rect {
            x0: g.x0,
            z0: g.z0,
            w: g.w,
            d: g.d,
            v: (0..g.d)
                .flat_map(|iz| (0..g.w).map(move |ix| (ix, iz)))
                .map(|(ix, iz)| {
                    let (x, z) = (g.x0 + ix as i64, g.z0 + iz as i64);
                    let (ground, river) = g.v[iz * g.w + ix];
                    match zones.and_then(|f| f(x, z)) {
                        Some(top) => (top.clamp(1, max), river, true),
                        None => (ground, river, false),
                    }
                })
                .collect::<Vec<(i32, bool, bool)>>(),
        };
        let water = |x: i64, z: i64| {
            let (ground, _, zoned) = wet.at(x, z);
            !zoned && ground < sea
        };
        let mut v = Vec::with_capacity(w * d);
        for z in z0..z0 + d as i64 {
            for x in x0..x0 + w as i64 {
                let (ground, river, zoned) = wet.at(x, z);
                let biome = self.fields.biome(x, z);
                let wet_here = water(x, z);
                let surface = if wet_here {
                    BlockKind::Sand
                } else if !river
                    && (water(x, z - 1) || water(x + 1, z) || water(x, z + 1) || water(x - 1, z))
                {
                    // The coast rule.
                    BlockKind::Sand
                } else {
                    biome.land_surface()
                };
                let mut c = ColumnData {
                    ground,
                    zoned,
                    river,
                    biome,
                    water_depth: if wet_here { (sea - ground) as u32 } else { 0 },
                    surface,
                    decoration: None,
                    size: 0,
                };
                if !zoned {
                    (c.decoration, c.size) = self.decoration(x, z, &c);
                }
                v.push(c);
            }
        }
        Rect { x0, z0, w, d, v }
    }

    /// The decoration of column `(x, z)` from its hash, biome and surface, if it fits
    /// under `max_height`.
    pub(crate) fn decoration(&self, x: i64, z: i64, c: &ColumnData) -> (Option<Decoration>, i32) {
        self.decoration_by_hash(hash2(self.seed, SALT_DECORATION, x, z), c)
    }

    /// The decoration a column's hash `h` gives it.
    pub(crate) fn decoration_by_hash(&self, h: u64, c: &ColumnData) -> (Option<Decoration>, i32) {
        let roll = h % 1000;
        let extra = ((h >> 32) % 4) as i32;
        let (deco, size) = if c.water_depth > 0 {
            match c.biome {
                Biome::Humid if roll < 120 => (Decoration::LilyPad, 0),
                _ => return (None, 0),
            }
        } else {
            match (c.biome, c.surface, roll) {
                (Biome::Desert, BlockKind::Sand, 0..25) => (Decoration::Cactus, 1 + extra % 3),
                (Biome::Temperate, BlockKind::Grass, 0..20) => (Decoration::Tree, 4 + extra % 2),
                (Biome::Temperate, BlockKind::Grass, 20..100) => (Decoration::Flower, 0),
                (Biome::Temperate, BlockKind::Grass, 100..115) => (Decoration::Rock, 1),
                (Biome::Humid, BlockKind::Moss, 0..70) => (Decoration::Tree, 4 + extra % 2),
                (Biome::Humid, BlockKind::Moss, 70..110) => (Decoration::Flower, 0),
                (Biome::Tundra, BlockKind::Snow, 0..20) => (Decoration::Rock, 1),
                (Biome::Tundra, BlockKind::Snow, 20..28) => (Decoration::Tree, 4 + extra % 2),
                (Biome::Icy, BlockKind::Snow, 0..15) => (Decoration::IceSpike, 3 + extra),
                _ => return (None, 0),
            }
        };
        // Blocks the decoration occupies above the ground (a tree: trunk and the top
        // leaf layer; a lily pad floats on the water's top block).
        let top = match deco {
            Decoration::Tree => c.ground + size + 1,
            Decoration::LilyPad => self.config.sea_level as i32 + 1,
            Decoration::Flower | Decoration::Rock => c.ground + 1,
            Decoration::Cactus | Decoration::IceSpike => c.ground + size,
        };
        if top > self.config.max_height as i32 {
            return (None, 0);
        }
        (Some(deco), size)
    }
}

#[cfg(test)]
mod tests {
    use super::talus;

    #[test]
    fn talus_lowers_only_steep_columns_by_half_the_excess() {
        assert_eq!(talus(10, [9, 9, 8, 9], 2), 10);
        assert_eq!(talus(11, [9, 9, 8, 9], 2), 10);
        assert_eq!(talus(20, [9, 30, 30, 30], 2), 15);
    }
}
