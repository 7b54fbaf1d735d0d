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

/// A raw column with the values it was made of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawPoint {
    pub raw: Raw,
    /// The height noise times `amplitude`, before it is floored.
    pub a: f64,
    /// The river noise, when the river rule read it.
    pub river_noise: Option<f64>,
    /// The warped coordinates the height and river noises are read at.
    pub wx: f64,
    pub wz: f64,
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
        self.raw_point(x, z).raw
    }

    /// [`Fields::raw`] with what the bounds of `super::bounds` read: the height before
    /// it is floored and the warped coordinates.
    #[inline]
    pub fn raw_point(&self, x: i64, z: i64) -> RawPoint {
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
        let a = n * f64::from(c.amplitude);
        let top = self.top_of(a);
        let sea = c.sea_level as i32;
        let noise =
            (c.river_width > 0.0 && top <= sea + RIVER_MAX_RISE).then(|| self.river_noise(wx, wz));
        let river = noise.is_some_and(|r| r.abs() < c.river_width);
        let carved = if river { top.min(sea - 1).max(1) } else { top };
        RawPoint {
            raw: Raw { top: carved, river },
            a,
            river_noise: noise,
            wx,
            wz,
        }
    }

    /// The uncarved top of a column whose noise times `amplitude` is `a`.
    #[inline]
    pub fn top_of(&self, a: f64) -> i32 {
        let c = &self.config;
        let top_max = c.max_height as i32 - 1;
        (c.base_height as i32 + libm::floor(a) as i32).clamp(1, top_max)
    }

    /// The river noise at warped coordinates `(wx, wz)`.
    #[inline]
    pub fn river_noise(&self, wx: f64, wz: f64) -> f64 {
        let rs = self.config.river_scale;
        self.river.get(wx / rs, wz / rs)
    }

    /// The biome at `(x, z)`: the region's primary biome, or its secondary where the
    /// patch noise exceeds `patch_threshold`.
    ///
    /// The primary biome is `primary_biome` when configured; else with `biome_region`
    /// 0 it is one for the whole world, `Biome::ALL[hash(seed) % 5]` (the seed's rule);
    /// else each square region of `biome_region` blocks draws its own from a hash of the
    /// seed and the region (`Fields::region` in the tests: edges warped at four scales),
    /// and the regions meet in a transition band ([`Fields::banded`]).
    pub fn biome(&self, x: i64, z: i64) -> Biome {
        let c = &self.config;
        let primary = match (c.primary_biome, c.biome_region) {
            (Some(b), _) => b,
            (None, 0) => pick(hash2(self.seed, SALT_REGION, 0, 0)),
            (None, r) => self.banded(x, z, f64::from(r)),
        };
        self.with_patch(x, z, primary)
    }

    /// Where the region warp moves column `(x, z)` (regions of `r` blocks): four
    /// octaves of the warp fields at wavelengths `r`, `r / 4`, `r / 16`, `r / 64`,
    /// displacing by up to `0.25 r`, `0.1 r`, `0.04 r`, `0.016 r` ([`REGION_WARP`] in
    /// all: each octave bends the edge more for its size than the one before), so
    /// region edges wander at every scale from the region down to a few dozen blocks.
    #[cfg(test)]
    fn warped(&self, x: i64, z: i64, r: f64) -> (f64, f64) {
        self.warp_octaves(x, z, r, false).unwrap_err()
    }

    /// What the tests' `Fields::warped` computes, octave by octave; with `early`,
    /// `Ok(region)` as soon as the octaves left cannot bring the point within [`BAND`]
    /// `r` of its region's edges (its biome is then its region's, [`Fields::banded`]),
    /// else `Err` with the warped point. The octaves are added in the same order either
    /// way, so the point is the same bits.
    fn warp_octaves(&self, x: i64, z: i64, r: f64, early: bool) -> Result<(i64, i64), (f64, f64)> {
        let (fx, fz) = (x as f64, z as f64);
        let (mut wx, mut wz) = (fx, fz);
        let (mut amp, mut f) = (0.25 * r, 1.0 / r);
        for octave in 0..4 {
            // Each octave reads the fields at its own offset, so octaves are unrelated.
            let o = 1013.5 * f64::from(octave);
            wx += amp * self.warp_x.get(fx * f + o, fz * f - o).clamp(-1.0, 1.0);
            wz += amp * self.warp_z.get(fx * f - o, fz * f + o).clamp(-1.0, 1.0);
            amp *= 0.4;
            f *= 4.0;
            if early && octave < 3 {
                // In region units: the point is at least this far inside its region
                // when the octaves left (each moving it by at most its amplitude) and
                // the band, with room for rounding, fit.
                let need = BAND + WARP_LEFT[octave as usize];
                let inside = |w: f64| {
                    let u = w / r;
                    let edge = libm::floor(u);
                    let slack = 1e-9 * (u.abs() + 1.0);
                    (u - edge >= need + slack && edge + 1.0 - u >= need + slack)
                        .then_some(edge as i64)
                };
                if let (Some(i), Some(j)) = (inside(wx), inside(wz)) {
                    return Ok((i, j));
                }
            }
        }
        Err((wx, wz))
    }

    /// The region column `(x, z)` lies in (regions of `r` blocks, edges warped).
    #[cfg(test)]
    fn region(&self, x: i64, z: i64, r: f64) -> (i64, i64) {
        let (wx, wz) = self.warped(x, z, r);
        (libm::floor(wx / r) as i64, libm::floor(wz / r) as i64)
    }

    /// The primary biome of column `(x, z)` with regions of `r` blocks: its region's,
    /// except within [`BAND`] `r` of an edge between unlike biomes, where the biomes'
    /// heats ([`heat`]: desert, humid, temperate, tundra, icy) are blended across the
    /// edge (bilinearly, so corners blend too) and dithered by a small noise: snow
    /// meets grass through tundra, desert meets temperate through humid, and like
    /// biomes on both sides keep theirs. The blend moves less than one heat step
    /// between neighbouring columns, so two columns side by side are never more than
    /// one step apart (`tests::neighbouring_columns_are_at_most_one_heat_step_apart`).
    fn banded(&self, x: i64, z: i64, r: f64) -> Biome {
        self.banded_with(x, z, r, true)
    }

    /// [`Fields::banded`]; with `early`, the warp may stop once it proves the region
    /// ([`Fields::warp_octaves`]).
    fn banded_with(&self, x: i64, z: i64, r: f64, early: bool) -> Biome {
        let cell = |c: f64| libm::floor(c / r) as i64;
        let (fx, fz) = (x as f64, z as f64);
        // Far enough from every edge (warp and band), the region is known without
        // sampling it.
        let reach = (REGION_WARP + BAND) * r;
        if cell(fx - reach) == cell(fx + reach) && cell(fz - reach) == cell(fz + reach) {
            return pick(hash2(self.seed, SALT_REGION, cell(fx), cell(fz)));
        }
        // Far enough inside its region once some octaves are in, the blend is its
        // region's heat alone, which the dither (at most 0.45 times the patch noise,
        // whose magnitude stays under 1) cannot move by half a step.
        let (wx, wz) = match self.warp_octaves(x, z, r, early) {
            Ok((i, j)) => return pick(hash2(self.seed, SALT_REGION, i, j)),
            Err(w) => w,
        };
        // Cell-centred coordinates: cells i0 and i0 + 1 meet at fraction 0.5.
        let (tx, tz) = (wx / r - 0.5, wz / r - 0.5);
        let (i0, j0) = (libm::floor(tx), libm::floor(tz));
        let ramp = |f: f64| ((f - 0.5) / (2.0 * BAND) + 0.5).clamp(0.0, 1.0);
        let (ax, az) = (ramp(tx - i0), ramp(tz - j0));
        let (i0, j0) = (i0 as i64, j0 as i64);
        let h = |i: i64, j: i64| heat(pick(hash2(self.seed, SALT_REGION, i, j)));
        let mixed = (1.0 - az) * ((1.0 - ax) * h(i0, j0) + ax * h(i0 + 1, j0))
            + az * ((1.0 - ax) * h(i0, j0 + 1) + ax * h(i0 + 1, j0 + 1));
        let dither = 0.45 * self.patch.get(fx / 16.0 + 7717.5, fz / 16.0 - 3301.5);
        of_heat(libm::floor(mixed + 0.5 + dither.clamp(-1.0, 1.0)))
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

/// The most the region warp displaces a column, as a fraction of the region:
/// `0.25 + 0.1 + 0.04 + 0.016` (a little more, for the rounding of the products).
const REGION_WARP: f64 = 0.407;

/// What the region warp's octaves after the first, second and third can still move a
/// column, as a fraction of the region: `0.1 + 0.04 + 0.016`, `0.04 + 0.016`, `0.016`
/// (a little more, for the rounding of the products).
const WARP_LEFT: [f64; 3] = [0.157, 0.057, 0.017];

/// Half the width of the transition band between unlike regions, as a fraction of
/// the region (128 blocks each side of the edge for the default 2048).
const BAND: f64 = 1.0 / 16.0;

/// A biome's place on the heat scale the transition band blends along.
fn heat(b: Biome) -> f64 {
    match b {
        Biome::Icy => 0.0,
        Biome::Tundra => 1.0,
        Biome::Temperate => 2.0,
        Biome::Humid => 3.0,
        Biome::Desert => 4.0,
    }
}

/// The biome at heat `level` (clamped to the scale).
fn of_heat(level: f64) -> Biome {
    match level {
        l if l < 0.5 => Biome::Icy,
        l if l < 1.5 => Biome::Tundra,
        l if l < 2.5 => Biome::Temperate,
        l if l < 3.5 => Biome::Humid,
        _ => Biome::Desert,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(seed: u32) -> Fields {
        let config = VoxelConfig {
            patch_threshold: 1.0,
            ..VoxelConfig::default()
        };
        Fields::new(seed, config)
    }

    #[test]
    fn skipping_the_warp_far_from_edges_changes_no_biome() {
        let f = fields(5);
        let r = 2048.0;
        for z in (-6000..6000i64).step_by(37) {
            for x in (-6000..6000i64).step_by(41) {
                let (rx, rz) = f.region(x, z, r);
                let (wx, wz) = f.warped(x, z, r);
                let clear = |w: f64, c: i64| {
                    w - c as f64 * r >= BAND * r && (c + 1) as f64 * r - w >= BAND * r
                };
                if clear(wx, rx) && clear(wz, rz) {
                    let want = pick(hash2(5, SALT_REGION, rx, rz));
                    assert_eq!(f.biome(x, z), want, "({x}, {z})");
                }
            }
        }
    }

    /// The longest run of region-boundary samples along any straight line: samples
    /// `step` blocks apart over an `n x n` square at the origin, a sample on the
    /// boundary when its region differs from its east or south neighbour's, runs
    /// traced in 64 directions from every boundary sample for as long as the nearest
    /// sample to each step is on the boundary too.
    fn longest_straight_boundary(f: &Fields, r: f64, step: i64, n: usize) -> f64 {
        let regions: Vec<(i64, i64)> = (0..n * n)
            .map(|k| {
                f.region(
                    (k % n) as i64 * step - 8192,
                    (k / n) as i64 * step - 8192,
                    r,
                )
            })
            .collect();
        let mut edge = vec![false; n * n];
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let k = j * n + i;
                edge[k] = regions[k] != regions[k + 1] || regions[k] != regions[k + n];
            }
        }
        let near = |i: i64, j: i64| {
            (0..n as i64).contains(&i)
                && (0..n as i64).contains(&j)
                && edge[j as usize * n + i as usize]
        };
        let mut best = 0usize;
        for k in (0..n * n).filter(|&k| edge[k]) {
            let (i0, j0) = ((k % n) as f64, (k / n) as f64);
            for d in 0..64 {
                let a = std::f64::consts::PI * f64::from(d) / 64.0;
                let (dx, dz) = (libm::cos(a), libm::sin(a));
                let mut len = 0;
                loop {
                    let s = (len + 1) as f64;
                    let (i, j) = (
                        libm::round(i0 + s * dx) as i64,
                        libm::round(j0 + s * dz) as i64,
                    );
                    if !near(i, j) {
                        break;
                    }
                    len += 1;
                }
                best = best.max(len);
            }
        }
        best as f64 * step as f64
    }

    #[test]
    fn region_boundaries_have_no_long_straight_runs() {
        // 16 km square, samples 16 m apart: about 64 regions of 2,048 m. With the one
        // warp octave the regions had, seed 7's longest run was 1,040 m (99% of the
        // boundary samples' longest under 496 m); with four, 336 m (192 m).
        for seed in [7u32, 3] {
            let longest = longest_straight_boundary(&fields(seed), 2048.0, 16, 1024);
            assert!(
                longest <= 400.0,
                "seed {seed}: a straight boundary of {longest} m"
            );
        }
    }

    #[test]
    fn stopping_the_warp_early_changes_no_biome() {
        // Across region edges and corners (regions of 64 and 2,048 blocks), near and
        // far out: the early stop takes most columns, and the biome is the full warp's.
        let f = fields(11);
        let (mut early, mut n) = (0, 0);
        for (r, step, origin) in [
            (2048.0, 7, 0i64),
            (2048.0, 5, -16_777_000),
            (64.0, 1, 12_345),
        ] {
            for z in (origin - 3000..origin + 3000).step_by(step * 13) {
                for x in (origin - 3000..origin + 3000).step_by(step) {
                    let want = f.banded_with(x, z, r, false);
                    assert_eq!(f.banded_with(x, z, r, true), want, "r {r} ({x}, {z})");
                    early += usize::from(f.warp_octaves(x, z, r, true).is_ok());
                    n += 1;
                }
            }
        }
        assert!(early * 3 > n, "{early} of {n}");
        assert!(early < n, "every column stopped early");
    }

    #[test]
    fn neighbouring_columns_are_at_most_one_heat_step_apart() {
        let f = fields(7);
        let (mut steps, mut far) = (0, 0);
        for z in (-4200..4200i64).step_by(3) {
            for x in (-4200..4200i64).step_by(3) {
                let h = heat(f.biome(x, z));
                for (dx, dz) in [(1, 0), (0, 1)] {
                    let d = (heat(f.biome(x + dx, z + dz)) - h).abs();
                    steps += usize::from(d == 1.0);
                    far += usize::from(d > 1.0);
                }
            }
        }
        assert!(steps > 0, "no boundary sampled");
        assert_eq!(
            far, 0,
            "{far} neighbouring columns more than one heat step apart"
        );
    }
}
