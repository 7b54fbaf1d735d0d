//! The per-column fields of the voxel generator, each a pure function of the seed and
//! the column: the raw height (FBM of three 2-D simplex octaves at domain-warped
//! coordinates, rivers carved), the biome, and the deterministic hashes behind
//! decorations and colour jitter.
//!
//! Noise is the `noise` crate's 2-D simplex (f64 arithmetic and `sqrt` only, so the
//! same bits everywhere), evaluated by [`super::simplex`] with the same bits, one
//! permutation table per field, each seeded with a hash of the world's seed and the
//! field's number.

use super::simplex::Simplex2 as Simplex;

use super::block::Biome;
use super::config::VoxelConfig;

/// How far above sea level the raw ground may be for a river to carve it: rivers run
/// through lowlands and stop at hills instead of cutting canyons through them.
pub const RIVER_MAX_RISE: i32 = 8;

/// SplitMix64's finaliser: a bijective mix of 64 bits.
pub(crate) const fn mix(mut h: u64) -> u64 {
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// A hash of `(seed, salt, a, b)`.
pub(crate) const fn hash2(seed: u32, salt: u64, a: i64, b: i64) -> u64 {
    let h = mix((seed as u64) ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let h = mix(h ^ (a as u64));
    mix(h ^ (b as u64).wrapping_mul(0xd6e8_feb8_6659_fd93))
}

/// `hash3(x, y, z)` of the seed, uniform in `[0, 1)`: the colour jitter's.
pub fn hash3(seed: u32, x: i64, y: i64, z: i64) -> f64 {
    let h = mix(hash2(seed, 3, x, z) ^ (y as u64).wrapping_mul(0xa076_1d64_78bd_642f));
    (h >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Salts of the hashes.
pub(crate) const SALT_DECORATION: u64 = 1;
const SALT_REGION: u64 = 2;
const SALT_NOISE: u64 = 4;

/// The noise fields of one world.
#[derive(Debug, Clone)]
pub(crate) struct Fields {
    seed: u32,
    config: VoxelConfig,
    octaves: [Simplex; 3],
    warp_x: Simplex,
    warp_z: Simplex,
    patch: Simplex,
    river: Simplex,
}

/// What the fields give for one column before erosion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw {
    /// Top of the ground (blocks `0..top` solid), rivers carved.
    pub top: i32,
    pub river: bool,
}

impl Fields {
    pub fn new(seed: u32, config: VoxelConfig) -> Self {
        let simplex = |i: i64| Simplex::new(hash2(seed, SALT_NOISE, i, 0) as u32);
        Fields {
            seed,
            config,
            octaves: [simplex(0), simplex(1), simplex(2)],
            warp_x: simplex(3),
            warp_z: simplex(4),
            patch: simplex(5),
            river: simplex(6),
        }
    }

    /// The raw column at `(x, z)`: FBM of three octaves (amplitudes 1, 1/2, 1/4,
    /// frequencies f, 2f, 4f, normalised to -1..1) at the warped coordinates, times
    /// `amplitude`, floored, plus `base_height`, clamped to `1..max_height`; then a
    /// river column (river noise within `river_width` of 0, raw top at most
    /// [`RIVER_MAX_RISE`] above sea level) is carved to one block below sea level.
    pub fn raw(&self, x: i64, z: i64) -> Raw {
        let c = &self.config;
        let (fx, fz) = (x as f64, z as f64);
        let wf = 0.5 / c.scale;
        let wx = fx + c.warp * self.warp_x.get(fx * wf, fz * wf);
        let wz = fz + c.warp * self.warp_z.get(fx * wf, fz * wf);
        let f = 1.0 / c.scale;
        let n = self.octaves[0].get(wx * f, wz * f)
            + 0.5 * self.octaves[1].get(wx * (2.0 * f), wz * (2.0 * f))
            + 0.25 * self.octaves[2].get(wx * (4.0 * f), wz * (4.0 * f));
        let n = (n / 1.75).clamp(-1.0, 1.0);
        let top_max = c.max_height as i32 - 1;
        let top = (c.base_height as i32 + libm::floor(n * f64::from(c.amplitude)) as i32)
            .clamp(1, top_max);
        let sea = c.sea_level as i32;
        let river = c.river_width > 0.0
            && top <= sea + RIVER_MAX_RISE
            && self.river.get(wx / c.river_scale, wz / c.river_scale).abs() < c.river_width;
        let top = if river { top.min(sea - 1).max(1) } else { top };
        Raw { top, river }
    }

    /// The biome at `(x, z)`: the region's primary biome, or its secondary where the
    /// patch noise exceeds `patch_threshold`.
    ///
    /// The primary biome is `primary_biome` when configured; else with `biome_region`
    /// 0 it is one for the whole world, `Biome::ALL[hash(seed) % 5]` (the seed's rule);
    /// else each square region of `biome_region` blocks (edges displaced by up to a
    /// quarter region by the warp noise, so they are not straight) draws its own from
    /// a hash of the seed and the region.
    pub fn biome(&self, x: i64, z: i64) -> Biome {
        let c = &self.config;
        let primary = match (c.primary_biome, c.biome_region) {
            (Some(b), _) => b,
            (None, 0) => pick(hash2(self.seed, SALT_REGION, 0, 0)),
            (None, r) => {
                let r = f64::from(r);
                let (fx, fz) = (x as f64, z as f64);
                // The warp moves a column by at most a quarter region: far enough from
                // every edge, the region is known without sampling it.
                let cell = |c: f64| libm::floor(c / r) as i64;
                let q = 0.25 * r;
                if cell(fx - q) == cell(fx + q) && cell(fz - q) == cell(fz + q) {
                    let h = hash2(self.seed, SALT_REGION, cell(fx), cell(fz));
                    return self.with_patch(x, z, pick(h));
                }
                let wx = fx + q * self.warp_x.get(fx / r, fz / r).clamp(-1.0, 1.0);
                let wz = fz + q * self.warp_z.get(fx / r, fz / r).clamp(-1.0, 1.0);
                let (rx, rz) = (libm::floor(wx / r) as i64, libm::floor(wz / r) as i64);
                pick(hash2(self.seed, SALT_REGION, rx, rz))
            }
        };
        self.with_patch(x, z, primary)
    }

    /// `primary`, or its secondary biome where the patch noise says so.
    fn with_patch(&self, x: i64, z: i64, primary: Biome) -> Biome {
        let c = &self.config;
        let p = c.patch_scale;
        if c.patch_threshold < 1.0 && self.patch.get(x as f64 / p, z as f64 / p) > c.patch_threshold
        {
            primary.secondary()
        } else {
            primary
        }
    }
}

fn pick(h: u64) -> Biome {
    Biome::ALL[(h % Biome::ALL.len() as u64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipping_the_region_warp_far_from_edges_changes_no_biome() {
        let config = VoxelConfig {
            biome_region: 64,
            patch_threshold: 1.0,
            ..VoxelConfig::default()
        };
        let f = Fields::new(5, config);
        let r = 64.0;
        for z in -100..100i64 {
            for x in (-100..100i64).step_by(7) {
                let (fx, fz) = (x as f64, z as f64);
                let wx = fx + 16.0 * f.warp_x.get(fx / r, fz / r).clamp(-1.0, 1.0);
                let wz = fz + 16.0 * f.warp_z.get(fx / r, fz / r).clamp(-1.0, 1.0);
                let (rx, rz) = (libm::floor(wx / r) as i64, libm::floor(wz / r) as i64);
                assert_eq!(
                    f.biome(x, z),
                    pick(hash2(5, SALT_REGION, rx, rz)),
                    "({x}, {z})"
                );
            }
        }
    }
}
