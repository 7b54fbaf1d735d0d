//! The flattening features of a layout and their per-chunk index.
//!
//! A [`HubFeature`] is a clearing with its ground height and blend band; a
//! [`SpokeFeature`] is a corridor with the heights of its two ends. [`ChunkFeatures`]
//! holds every feature whose reach (shape plus blend band) meets one chunk, in the
//! global application order, bucketed over a small grid so a point reads only the
//! features near it. Whether a feature changes a point is decided by the feature and
//! the point alone, never by which list it was found in, so any complete list gives
//! the same bits.

use std::collections::BTreeMap;

use super::classify::{Found, class_at, corridor_half_width};
use super::config::{Area, LayoutConfig, LayoutError, Pattern};
use super::patterns::Hub;
use super::spokes::{Layout, Reach, RegionMap, Spoke, build_with};
use crate::maths::smooth;

/// Blend band of a clearing as a fraction of its radius, before the pattern's cap.
pub const HUB_BLEND: f64 = 0.5;

/// Blend band of a corridor as a fraction of its half-width.
pub const SPOKE_BLEND: f64 = 1.0;

/// Buckets per chunk side in a [`ChunkFeatures`] index.
const BUCKETS: usize = 8;

/// Largest blend band of a clearing, as a fraction of the chunk size: half the
/// smallest gap the pattern leaves between two hub discs (see [`super::patterns`]),
/// so no clearing's band reaches another clearing and every clearing stays level.
///
/// - grid: discs keep 0.14 from their chunk's edges, so 0.28 between chunks;
/// - zigzag: one hub per chunk, at least 0.5 from any other disc;
/// - rings: 0.03 between the discs of rings 1 and 2 (0.29 - 0.17 - 0.05 - 0.04);
/// - chaotic: 0.02 from the chunk's edges, so 0.04 between chunks (0.05 inside one).
pub fn hub_band_cap(pattern: Pattern) -> f64 {
    match pattern {
        Pattern::Grid => 0.14,
        Pattern::Zigzag => 0.25,
        Pattern::Rings => 0.015,
        Pattern::Chaotic => 0.02,
    }
}

/// The blend band of a clearing of radius `r`, metres.
pub fn hub_band(cfg: &LayoutConfig, r: f64) -> f64 {
    (HUB_BLEND * r).min(hub_band_cap(cfg.pattern) * cfg.chunk_size)
}

/// The blend band of every corridor, metres.
pub fn spoke_band(cfg: &LayoutConfig) -> f64 {
    SPOKE_BLEND * corridor_half_width(cfg)
}

/// `level + (below - level) * smooth((d - inner) / band)` for `inner < d < inner +
/// band`: the flat-zone blend from a level core into what lies beneath.
#[inline]
fn blend(level: f64, below: f64, d: f64, inner: f64, band: f64) -> f64 {
    level + (below - level) * smooth((d - inner) / band)
}

/// A clearing: level at `height` within the hub's radius, blended over `band` beyond.
#[derive(Debug, Clone, PartialEq)]
pub struct HubFeature {
    pub hub: Hub,
    /// The generator's height at the hub centre (registered zones excluded).
    pub height: f64,
    /// Width of the blend ring outside the radius, metres.
    pub band: f64,
}

impl HubFeature {
    /// Distance from the centre beyond which the clearing changes nothing.
    pub fn reach(&self) -> f64 {
        self.hub.r + self.band
    }

    /// The height at `(x, z)` with this clearing applied over `below`.
    #[inline]
    pub fn apply(&self, x: f64, z: f64, below: f64) -> f64 {
        let (dx, dz) = (x - self.hub.x, z - self.hub.z);
        let reach = self.reach();
        let d2 = dx * dx + dz * dz;
        if d2 >= reach * reach {
            return below;
        }
        let d = libm::sqrt(d2);
        if d <= self.hub.r {
            self.height
        } else {
            blend(self.height, below, d, self.hub.r, self.band)
        }
    }

    /// Whether the clearing changes the height at `(x, z)`.
    pub fn reaches(&self, x: f64, z: f64) -> bool {
        let (dx, dz) = (x - self.hub.x, z - self.hub.z);
        dx * dx + dz * dz < self.reach() * self.reach()
    }

    fn bounds(&self) -> [f64; 4] {
        hub_bounds(&self.hub, self.reach())
    }
}

/// A corridor along the segment between its hubs' centres: level across its width;
/// along it, a smoothstep ramp from hub `a`'s height at the edge of `a`'s clearing to
/// hub `b`'s height at the edge of `b`'s (constant beyond either edge, so it meets
/// each clearing at that clearing's height); blended over `band` outside the width.
#[derive(Debug, Clone, PartialEq)]
pub struct SpokeFeature {
    pub spoke: Spoke,
    /// Height of hub `a`'s clearing.
    pub a_height: f64,
    /// Height of hub `b`'s clearing.
    pub b_height: f64,
    /// Half-width of the level corridor, metres.
    pub half_width: f64,
    /// Width of the blend band either side, metres.
    pub band: f64,
    /// `b_at - a_at`.
    dir: (f64, f64),
    /// Squared and plain length of the axis.
    len2: f64,
    len: f64,
    /// Length of the ramp between the two clearings' edges (positive: hub discs are
    /// disjoint, see [`super::patterns`]).
    ramp: f64,
}

impl SpokeFeature {
    pub fn new(spoke: Spoke, a_height: f64, b_height: f64, half_width: f64, band: f64) -> Self {
        let dir = (spoke.b_at.0 - spoke.a_at.0, spoke.b_at.1 - spoke.a_at.1);
        let len2 = dir.0 * dir.0 + dir.1 * dir.1;
        let len = libm::sqrt(len2);
        let ramp = len - spoke.a_r - spoke.b_r;
        Self {
            spoke,
            a_height,
            b_height,
            half_width,
            band,
            dir,
            len2,
            len,
            ramp,
        }
    }

    /// Distance from the axis beyond which the corridor changes nothing.
    pub fn reach(&self) -> f64 {
        self.half_width + self.band
    }

    /// The axis parameter of `(x, z)`, unclamped (0 at `a`, 1 at `b`), and the
    /// squared distance from the point to the segment.
    #[inline]
    fn project(&self, x: f64, z: f64) -> (f64, f64) {
        let (a, d) = (self.spoke.a_at, self.dir);
        let t = if self.len2 > 0.0 {
            ((x - a.0) * d.0 + (z - a.1) * d.1) / self.len2
        } else {
            0.0
        };
        let c = t.clamp(0.0, 1.0);
        let (ex, ez) = (a.0 + c * d.0 - x, a.1 + c * d.1 - z);
        (t, ex * ex + ez * ez)
    }

    /// The corridor's level at axis parameter `t`.
    #[inline]
    fn level_at(&self, t: f64) -> f64 {
        let s = t * self.len;
        let u = if self.ramp > 0.0 {
            (s - self.spoke.a_r) / self.ramp
        } else {
            t
        };
        let (ha, hb) = (self.a_height, self.b_height);
        ha + (hb - ha) * smooth(u.clamp(0.0, 1.0))
    }

    /// The level of the corridor core across from `(x, z)`.
    pub fn level(&self, x: f64, z: f64) -> f64 {
        self.level_at(self.project(x, z).0)
    }

    /// Distance from `(x, z)` to the corridor's axis segment.
    pub fn distance(&self, x: f64, z: f64) -> f64 {
        libm::sqrt(self.project(x, z).1)
    }

    /// The height at `(x, z)` with this corridor applied over `below`.
    #[inline]
    pub fn apply(&self, x: f64, z: f64, below: f64) -> f64 {
        let (t, d2) = self.project(x, z);
        let reach = self.reach();
        if d2 >= reach * reach {
            return below;
        }
        let level = self.level_at(t);
        let d = libm::sqrt(d2);
        if d <= self.half_width {
            level
        } else {
            blend(level, below, d, self.half_width, self.band)
        }
    }

    /// Whether the corridor changes the height at `(x, z)`.
    pub fn reaches(&self, x: f64, z: f64) -> bool {
        self.project(x, z).1 < self.reach() * self.reach()
    }

    fn bounds(&self) -> [f64; 4] {
        spoke_bounds(&self.spoke, self.reach())
    }
}

/// Feature indices of one bucket, in application order.
#[derive(Debug, Clone, Default, PartialEq)]
struct Bucket {
    spokes: Vec<u32>,
    hubs: Vec<u32>,
}

/// Every feature whose reach meets one chunk, in application order (spokes by their
/// hubs' keys, then hubs by key), and a bucket grid over the chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkFeatures {
    chunk: (i64, i64),
    /// South-west corner of the chunk and side of a bucket, metres.
    origin: (f64, f64),
    bucket: f64,
    /// Corridor half-width of the configuration (for classification).
    half_width: f64,
    spokes: Vec<SpokeFeature>,
    hubs: Vec<HubFeature>,
    /// `BUCKETS x BUCKETS`, row-major (z outer).
    buckets: Vec<Bucket>,
}

impl ChunkFeatures {
    /// Builds the features of `chunk` from the layout over the chunk grown by the
    /// corridors' reach, `ground(x, z)` giving hub heights. `regions` may hold cached
    /// region graphs (it gets any it lacks).
    pub(crate) fn build(
        cfg: &LayoutConfig,
        ground: &dyn Fn(f64, f64) -> f64,
        chunk: (i64, i64),
        regions: &mut RegionMap,
    ) -> Result<Self, LayoutError> {
        let s = cfg.chunk_size;
        let origin = (chunk.0 as f64 * s, chunk.1 as f64 * s);
        // Generous slack against rounding: lists only need to be complete.
        let eps = s * 1e-3;
        let (half_width, band) = (corridor_half_width(cfg), spoke_band(cfg));
        let grow = half_width + band + eps;
        let rect = [
            origin.0 - eps,
            origin.1 - eps,
            origin.0 + s + eps,
            origin.1 + s + eps,
        ];
        let area = Area::new(
            rect[0] - grow,
            rect[1] - grow,
            rect[2] + grow,
            rect[3] + grow,
        )?;
        let Layout { hubs, spokes } = build_with(cfg, &area, Reach::Over, regions)?;
        let mut heights: BTreeMap<(u64, u64), f64> = BTreeMap::new();
        let mut height = |p: (f64, f64)| {
            *heights
                .entry((p.0.to_bits(), p.1.to_bits()))
                .or_insert_with(|| ground(p.0, p.1))
        };
        // Heights are computed only for what reaches the chunk.
        let spokes: Vec<SpokeFeature> = spokes
            .into_iter()
            .filter(|sp| overlaps(spoke_bounds(sp, half_width + band), rect))
            .map(|sp| {
                let (ha, hb) = (height(sp.a_at), height(sp.b_at));
                SpokeFeature::new(sp, ha, hb, half_width, band)
            })
            .collect();
        let hubs: Vec<HubFeature> = hubs
            .into_iter()
            .map(|hub| (hub_band(cfg, hub.r), hub))
            .filter(|(band, hub)| overlaps(hub_bounds(hub, hub.r + band), rect))
            .map(|(band, hub)| HubFeature {
                height: height((hub.x, hub.z)),
                band,
                hub,
            })
            .collect();
        let bucket = s / BUCKETS as f64;
        let mut buckets = vec![Bucket::default(); BUCKETS * BUCKETS];
        for (k, b) in buckets.iter_mut().enumerate() {
            let (bx, bz) = ((k % BUCKETS) as f64, (k / BUCKETS) as f64);
            let x0 = origin.0 + bx * bucket;
            let z0 = origin.1 + bz * bucket;
            let r = [x0 - eps, z0 - eps, x0 + bucket + eps, z0 + bucket + eps];
            b.spokes = indices(spokes.iter().map(|f| overlaps(f.bounds(), r)));
            b.hubs = indices(hubs.iter().map(|f| overlaps(f.bounds(), r)));
        }
        Ok(Self {
            chunk,
            origin,
            bucket,
            half_width,
            spokes,
            hubs,
            buckets,
        })
    }

    /// The chunk these features cover.
    pub fn chunk(&self) -> (i64, i64) {
        self.chunk
    }

    /// Every corridor that reaches the chunk, in application order.
    pub fn spokes(&self) -> &[SpokeFeature] {
        &self.spokes
    }

    /// Every clearing that reaches the chunk (its own and its neighbours'), by key.
    pub fn hubs(&self) -> &[HubFeature] {
        &self.hubs
    }

    #[inline]
    fn bucket_of(&self, x: f64, z: f64) -> &Bucket {
        let at = |v: f64, o: f64| {
            // Saturating cast, then clamped: points of the chunk on its edges (or a
            // rounding step outside) use the edge buckets, which cover them.
            (libm::floor((v - o) / self.bucket) as i64).clamp(0, BUCKETS as i64 - 1) as usize
        };
        &self.buckets[at(z, self.origin.1) * BUCKETS + at(x, self.origin.0)]
    }

    /// The height at `(x, z)` (a point of this chunk) given the ground `base` there:
    /// corridors in order, each over what lies beneath it, then clearings.
    #[inline]
    pub fn apply(&self, x: f64, z: f64, base: f64) -> f64 {
        let b = self.bucket_of(x, z);
        let mut h = base;
        for &i in &b.spokes {
            h = self.spokes[i as usize].apply(x, z, h);
        }
        for &i in &b.hubs {
            h = self.hubs[i as usize].apply(x, z, h);
        }
        h
    }

    /// The class of `(x, z)`, a point of this chunk, by the rule of
    /// [`super::classify`](fn@super::classify): the index into [`Self::hubs`] of the
    /// clearing holding it, or whether a corridor does.
    pub(crate) fn class_of(&self, x: f64, z: f64) -> Found<'_> {
        let b = self.bucket_of(x, z);
        let hubs = b.hubs.iter().map(|&i| &self.hubs[i as usize].hub);
        let axes = b.spokes.iter().map(|&i| {
            let s = &self.spokes[i as usize].spoke;
            (s.a_at, s.b_at)
        });
        class_at(self.chunk, hubs, axes, self.half_width, x, z)
    }

    /// Position of `hub` in [`Self::hubs`].
    pub(crate) fn hub_index(&self, hub: &Hub) -> Option<usize> {
        self.hubs.iter().position(|f| f.hub.key() == hub.key())
    }

    /// Approximate heap and inline size, bytes (the cache's weight).
    pub(crate) fn weight(&self) -> usize {
        let ids = |s: &str| s.len() + std::mem::size_of::<String>();
        let spokes: usize = self
            .spokes
            .iter()
            .map(|f| std::mem::size_of::<SpokeFeature>() + f.spoke.a.len() + f.spoke.b.len())
            .sum();
        let hubs: usize = self
            .hubs
            .iter()
            .map(|f| std::mem::size_of::<HubFeature>() + ids(&f.hub.id))
            .sum();
        let buckets: usize = self
            .buckets
            .iter()
            .map(|b| std::mem::size_of::<Bucket>() + 4 * (b.spokes.len() + b.hubs.len()))
            .sum();
        std::mem::size_of::<Self>() + spokes + hubs + buckets
    }
}

/// The box `[min_x, min_z, max_x, max_z]` within `reach` of a hub's centre.
fn hub_bounds(h: &Hub, reach: f64) -> [f64; 4] {
    [h.x - reach, h.z - reach, h.x + reach, h.z + reach]
}

/// The box within `reach` of a spoke's axis.
fn spoke_bounds(s: &Spoke, reach: f64) -> [f64; 4] {
    let (a, b) = (s.a_at, s.b_at);
    [
        a.0.min(b.0) - reach,
        a.1.min(b.1) - reach,
        a.0.max(b.0) + reach,
        a.1.max(b.1) + reach,
    ]
}

/// Whether boxes `[min_x, min_z, max_x, max_z]` overlap (closed).
fn overlaps(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

fn indices(hits: impl Iterator<Item = bool>) -> Vec<u32> {
    hits.zip(0u32..)
        .filter_map(|(hit, i)| hit.then_some(i))
        .collect()
}
