//! [`Terrain`]: a world's generator, its optional layout and its flat zones on top:
//! the height every party must agree on.
//!
//! With a layout ([`Terrain::with_layout`]) the layout sits between the generator and
//! the zones: the ground is `layout.apply(x, z, generator.height(x, z))`, and what zones
//! blend toward (and resolve `heightOffset` against) is
//! `layout.apply(x, z, generator.procedural(x, z))`. Without one, both are the
//! generator's own.

use std::ops::Range;
use std::sync::Arc;

use crate::generator::voxel::{self, Chunk, Instances, MAX_CHUNK, Voxel, VoxelMesh, block_top};
use crate::generator::{Generator, Grid, WorldGenerator};
use crate::layout::LayoutGround;
use crate::zones::{FlatZone, Reach, ZoneSet, set::Lookup};

/// How far from a point the generator may sample (hyperscape's shoreline reads four
/// neighbours 1 m away), so how close a zone must be to matter off its own reach.
const SAMPLE_REACH: f64 = 1.0;

/// Voxel worlds read zones at column centres; a column's height reads its four
/// neighbours' (1 m away: the coast rule), so a zone within this of the centre matters.
const VOXEL_REACH: f64 = 1.5;

/// The margin around a point (rather than its column's centre, up to 0.71 m away)
/// within which a zone may matter to a voxel column.
const VOXEL_POINT_REACH: f64 = VOXEL_REACH + 1.0;

/// The height at a point and what decided it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a> {
    pub height: f64,
    /// The zone that decided the height, with how it reaches the point; `None` where
    /// the procedural terrain did.
    pub zone: Option<(&'a FlatZone, Reach)>,
}

/// A generator, its layout if any, and the flat zones registered over them.
#[derive(Debug, Clone)]
pub struct Terrain {
    generator: WorldGenerator,
    /// Shared: its caches serve every copy of the terrain.
    layout: Option<Arc<LayoutGround>>,
    zones: ZoneSet,
}

impl Terrain {
    pub fn new(generator: WorldGenerator, zones: ZoneSet) -> Self {
        Terrain {
            generator,
            layout: None,
            zones,
        }
    }

    /// The terrain with `layout` between its generator and its zones. The layout must
    /// have been built over the same generator (its hub heights are that generator's).
    pub fn with_layout(mut self, layout: Arc<LayoutGround>) -> Self {
        self.layout = Some(layout);
        self
    }

    pub fn layout(&self) -> Option<&LayoutGround> {
        self.layout.as_deref()
    }

    /// The shared handle of the layout, if any.
    pub fn layout_arc(&self) -> Option<&Arc<LayoutGround>> {
        self.layout.as_ref()
    }

    pub fn generator(&self) -> &WorldGenerator {
        &self.generator
    }

    pub fn zones(&self) -> &ZoneSet {
        &self.zones
    }

    pub fn zones_mut(&mut self) -> &mut ZoneSet {
        &mut self.zones
    }

    /// The same generator and layout (shared) with `zones` (each with the revision
    /// that registered it, in registration order) instead of this terrain's: the
    /// terrain [`crate::build_terrain`] builds from the same world with those zones,
    /// without building the generator or the layout again.
    pub fn with_zones(&self, zones: impl IntoIterator<Item = (FlatZone, u64)>) -> Terrain {
        let mut set = ZoneSet::new(self.zones.overlap(), self.generator.tile_size());
        for (zone, revision) in zones {
            set.insert(zone, revision);
        }
        Terrain {
            generator: self.generator.clone(),
            layout: self.layout.clone(),
            zones: set,
        }
    }

    /// The height zones blend toward at `(x, z)` (hyperscape: procedural with mountain
    /// boost, without shoreline), which also resolves a zone's `heightOffset`.
    /// With a layout, the layout applied to it.
    pub fn procedural(&self, x: f64, z: f64) -> f64 {
        let p = self.generator.procedural(x, z);
        match &self.layout {
            Some(l) => l.apply(x, z, p),
            None => p,
        }
    }

    /// A proven range of every height this terrain answers at a point of the
    /// rectangle `[x0, x1] x [z0, z1]` ([`Generator::height`], zones and layout
    /// included), without reading any: the generator's range there
    /// ([`WorldGenerator::height_bounds`]), over the whole plane when a layout is set
    /// (its clearings and corridors take generator heights from elsewhere, blended),
    /// joined with the height of every zone whose outer bounds meet the rectangle (a
    /// zone's value is its height, or a blend of it with what lies beneath). On a
    /// voxel world zones are rounded into its block range, which already holds them.
    pub fn height_bounds(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> (f64, f64) {
        let (lo, hi) = match &self.layout {
            Some(_) => self.generator.height_bounds(
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::INFINITY,
            ),
            None => self.generator.height_bounds(x0, z0, x1, z1),
        };
        if self.generator.as_voxel().is_some() {
            return (lo, hi);
        }
        let rect = crate::zones::Bounds {
            min_x: x0,
            min_z: z0,
            max_x: x1,
            max_z: z1,
        };
        match self.zones.heights_meeting(&rect) {
            Some((zlo, zhi)) => (lo.min(zlo), hi.max(zhi)),
            None => (lo, hi),
        }
    }

    /// The surface normal at `(x, z)`, as the original's `getNormalAt` computes it on
    /// every generator: central differences of [`Generator::height`] (zones included)
    /// at 0.5 m, `(-dh/dx, 1, -dh/dz)` normalised as three.js does it (multiplied by
    /// the reciprocal of its length). On flat ground x and z are `-0`.
    pub fn normal(&self, x: f64, z: f64) -> [f64; 3] {
        const E: f64 = 0.5;
        let (hl, hr) = (self.height(x - E, z), self.height(x + E, z));
        let (hd, hu) = (self.height(x, z - E), self.height(x, z + E));
        let dhdx = (hr - hl) / (2.0 * E);
        let dhdz = (hu - hd) / (2.0 * E);
        let (nx, ny, nz) = (-dhdx, 1.0, -dhdz);
        let len = libm::sqrt(nx * nx + ny * ny + nz * nz);
        // JavaScript's `len || 1`: a zero or NaN length divides by 1.
        let s = 1.0 / if len == 0.0 || len.is_nan() { 1.0 } else { len };
        [nx * s, ny * s, nz * s]
    }

    /// The ground no zone reaches: the generator's height, with the layout applied.
    fn ground(&self, x: f64, z: f64) -> f64 {
        let h = self.generator.height(x, z);
        match &self.layout {
            Some(l) => l.apply(x, z, h),
            None => h,
        }
    }

    /// The height at `(x, z)` and the zone (if any) that decided it: a zone's value
    /// where one reaches the point (docs/src/reference/height.md, "The final height"), else the generator's
    /// height, whose neighbour samples see the zones (§5.2).
    ///
    /// On a voxel world the zones are read at the centre of the point's column and a
    /// zone's height is rounded to whole blocks ([`voxel::block_top`]): the column is
    /// levelled to it, and a blend ring steps by whole blocks.
    pub fn sample(&self, x: f64, z: f64) -> Sample<'_> {
        if let Some(v) = self.generator.as_voxel() {
            return self.sample_voxel(v, x, z);
        }
        let procedural = |x, z| self.procedural(x, z);
        let height = match self.zones.lookup(x, z, SAMPLE_REACH, procedural) {
            Lookup::Zone(s) => {
                return Sample {
                    height: s.height,
                    zone: Some((s.zone, s.reach)),
                };
            }
            Lookup::Near => self.height_near_zones(x, z),
            Lookup::Clear => self.ground(x, z),
        };
        Sample { height, zone: None }
    }

    fn sample_voxel(&self, v: &Voxel, x: f64, z: f64) -> Sample<'_> {
        let (cx, cz) = (libm::floor(x) + 0.5, libm::floor(z) + 0.5);
        let procedural = |x, z| self.procedural(x, z);
        let height = match self.zones.lookup(cx, cz, VOXEL_REACH, procedural) {
            Lookup::Zone(s) => {
                return Sample {
                    height: f64::from(block_top(s.height, v.config().max_height)),
                    zone: Some((s.zone, s.reach)),
                };
            }
            Lookup::Near => self.height_near_zones(x, z),
            Lookup::Clear => self.ground(x, z),
        };
        Sample { height, zone: None }
    }

    /// The whole-block top a zone gives voxel column `(x, z)`, if one reaches its
    /// centre.
    fn voxel_zone_top(&self, v: &Voxel, x: i64, z: i64) -> Option<i32> {
        self.zones
            .sample(x as f64 + 0.5, z as f64 + 0.5, |x, z| self.procedural(x, z))
            .map(|s| block_top(s.height, v.config().max_height))
    }

    /// The blocks of `w` x `d` columns from `(x0, z0)` with zones applied.
    fn voxel_volume(&self, v: &Voxel, x0: i64, z0: i64, w: usize, d: usize) -> voxel::Volume {
        let tops = |x: i64, z: i64| self.voxel_zone_top(v, x, z);
        let zones: Option<&dyn Fn(i64, i64) -> Option<i32>> = if self.zones.is_empty() {
            None
        } else {
            Some(&tops)
        };
        v.volume(x0, z0, w, d, zones)
    }

    fn voxel_at(&self, cx: i64, cz: i64) -> Option<&Voxel> {
        let v = self.generator.as_voxel()?;
        (cx.abs() <= MAX_CHUNK && cz.abs() <= MAX_CHUNK).then_some(v)
    }

    /// The blocks of voxel chunk `(cx, cz)` with the flat zones applied: each column a
    /// zone reaches (at its centre) levelled to the zone's height in whole blocks
    /// (`floor(h + 0.5)`), dry and bare; its neighbours' coast and decorations follow.
    /// `None` when the world is not voxel or `|cx|` or `|cz|` exceeds [`MAX_CHUNK`].
    pub fn voxel_chunk(&self, cx: i64, cz: i64) -> Option<Chunk> {
        let v = self.voxel_at(cx, cz)?;
        let n = voxel::CHUNK as usize;
        let vol = self.voxel_volume(v, cx * voxel::CHUNK, cz * voxel::CHUNK, n, n);
        Some(Chunk::from_volume(cx, cz, vol))
    }

    /// The blocks of the `w` x `d` columns from block `(x0, z0)` with the flat zones
    /// applied, as [`Terrain::voxel_chunk`] levels them (clipped to 4096 x 4096
    /// columns, as [`Voxel::area`]). `None` when the world is not voxel or a corner
    /// lies beyond [`MAX_CHUNK`] chunks.
    pub fn voxel_area(&self, x0: i64, z0: i64, w: usize, d: usize) -> Option<voxel::Volume> {
        let (w, d) = (w.min(4096), d.min(4096));
        let chunk = |c: i64| c.div_euclid(voxel::CHUNK);
        let far = |c: i64, n: usize| {
            chunk(c).abs() > MAX_CHUNK || chunk(c.saturating_add(n as i64)).abs() > MAX_CHUNK
        };
        let v = self.generator.as_voxel()?;
        (!far(x0, w) && !far(z0, d)).then(|| self.voxel_volume(v, x0, z0, w, d))
    }

    /// Voxel column `(x, z)` as served (zones applied) and the block seen from straight
    /// above it: what [`Terrain::voxel_area`] of that one column gives as its column and
    /// [`Volume::top`](voxel::Volume::top), without building its blocks. `None` as for
    /// [`Terrain::voxel_area`].
    pub fn voxel_column_top(&self, x: i64, z: i64) -> Option<(voxel::Column, voxel::BlockKind)> {
        let chunk = |c: i64| c.div_euclid(voxel::CHUNK);
        let far =
            |c: i64| chunk(c).abs() > MAX_CHUNK || chunk(c.saturating_add(1)).abs() > MAX_CHUNK;
        let v = self.generator.as_voxel()?;
        if far(x) || far(z) {
            return None;
        }
        let tops = |x: i64, z: i64| self.voxel_zone_top(v, x, z);
        let zones: Option<&dyn Fn(i64, i64) -> Option<i32>> = if self.zones.is_empty() {
            None
        } else {
            Some(&tops)
        };
        Some(v.column_top(x, z, zones))
    }

    /// The visible blocks of voxel chunk `(cx, cz)` (zones applied) by kind, culled
    /// against the neighbouring chunks' blocks too. `None` as for
    /// [`Terrain::voxel_chunk`].
    pub fn voxel_instances(&self, cx: i64, cz: i64) -> Option<Instances> {
        let v = self.voxel_at(cx, cz)?;
        let (n, x0, z0) = (voxel::CHUNK as usize, cx * voxel::CHUNK, cz * voxel::CHUNK);
        let vol = self.voxel_volume(v, x0 - 1, z0 - 1, n + 2, n + 2);
        Some(v.instances(&vol, x0, z0, n, n))
    }

    /// The greedy mesh of voxel chunk `(cx, cz)` (zones applied), faces toward the
    /// neighbouring chunks decided by their blocks. `None` as for
    /// [`Terrain::voxel_chunk`].
    pub fn voxel_mesh(&self, cx: i64, cz: i64) -> Option<VoxelMesh> {
        let v = self.voxel_at(cx, cz)?;
        let (n, x0, z0) = (voxel::CHUNK as usize, cx * voxel::CHUNK, cz * voxel::CHUNK);
        let vol = self.voxel_volume(v, x0 - 1, z0 - 1, n + 2, n + 2);
        Some(voxel::greedy_mesh(&vol, x0, z0, n, n))
    }

    /// The heights of the 3 x 3 neighbourhood of each of `centres` at spacing `d`, into
    /// `out` (one array per centre): entry `3 * j + i` is [`Generator::height`] at
    /// `(xs[i], zs[j])` with `xs = [x - d, x, x + d]` and `zs = [z - d, z, z + d]`, bit
    /// for bit (what a slope at the centre reads).
    ///
    /// On the hyperscape island without a layout the generator computes the nine
    /// points together ([`Hyperscape::neighbourhoods`]); the zone index is asked once
    /// per neighbourhood whether a zone lies near it, and only then is each of its
    /// points a zone may affect redone by the point path. Other worlds evaluate the
    /// nine points one by one.
    ///
    /// [`Hyperscape::neighbourhoods`]: crate::generator::hyperscape::Hyperscape::neighbourhoods
    pub fn neighbourhoods(&self, centres: &[(f64, f64)], d: f64, out: &mut [[f64; 9]]) {
        assert_eq!(centres.len(), out.len(), "one neighbourhood per centre");
        let axes = |c: f64| [c - d, c, c + d];
        let (WorldGenerator::Hyperscape(h), None) = (&self.generator, &self.layout) else {
            for (&(x, z), o) in centres.iter().zip(out.iter_mut()) {
                let (xs, zs) = (axes(x), axes(z));
                for (k, h) in o.iter_mut().enumerate() {
                    *h = self.height(xs[k % 3], zs[k / 3]);
                }
            }
            return;
        };
        h.neighbourhoods(centres, d, out);
        if self.zones.is_empty() {
            return;
        }
        // A point within `d` of the centre on each axis (at most `2 d` once rounded)
        // reads a zone only if the centre is within this of it.
        let margin = SAMPLE_REACH + 2.0 * d + 1.0;
        for (&(x, z), o) in centres.iter().zip(out.iter_mut()) {
            if !self.zones.near(x, z, margin) {
                continue;
            }
            let (xs, zs) = (axes(x), axes(z));
            for (k, h) in o.iter_mut().enumerate() {
                self.redo_if_zoned(xs[k % 3], zs[k / 3], h);
            }
        }
    }

    /// The heights at `pairs` of coordinates: `out[k]` is [`Generator::height`] at
    /// `(xs[i], zs[j])` for `pairs[k] = (i, j)`, bit for bit.
    ///
    /// On the hyperscape island without a layout the generator computes each
    /// coordinate's axis parts once for every pair that shares it
    /// ([`Hyperscape::heights_at`]); each pair a zone may affect is then redone by the
    /// point path. Other worlds evaluate the pairs one by one.
    ///
    /// [`Hyperscape::heights_at`]: crate::generator::hyperscape::Hyperscape::heights_at
    pub fn heights_at(&self, xs: &[f64], zs: &[f64], pairs: &[(usize, usize)], out: &mut [f64]) {
        assert_eq!(pairs.len(), out.len(), "one height per pair");
        let (WorldGenerator::Hyperscape(h), None) = (&self.generator, &self.layout) else {
            for (&(i, j), o) in pairs.iter().zip(out.iter_mut()) {
                *o = self.height(xs[i], zs[j]);
            }
            return;
        };
        h.heights_at(xs, zs, pairs, out);
        if self.zones.is_empty() {
            return;
        }
        for (&(i, j), o) in pairs.iter().zip(out.iter_mut()) {
            self.redo_if_zoned(xs[i], zs[j], o);
        }
    }

    /// On a height-field world, `h` (the ground at `(x, z)`) becomes the height
    /// [`Terrain::sample`] gives there if a zone is near the point, from the one index
    /// lookup the point path takes (a point no zone is near looks up `Clear` and
    /// keeps its ground).
    fn redo_if_zoned(&self, x: f64, z: f64, h: &mut f64) {
        match self
            .zones
            .lookup(x, z, SAMPLE_REACH, |x, z| self.procedural(x, z))
        {
            Lookup::Zone(s) => *h = s.height,
            Lookup::Near => *h = self.height_near_zones(x, z),
            Lookup::Clear => {}
        }
    }

    /// After the generator's area path filled `out` (rows along `zs`, `nx` columns at
    /// `x(ix)`), redoes point by point the samples a zone may affect.
    fn redo_near_zones(
        &self,
        nx: usize,
        zs: impl Iterator<Item = f64>,
        x: impl Fn(usize) -> f64,
        out: &mut [f64],
    ) {
        if self.zones.is_empty() {
            return;
        }
        let reach = if self.generator.as_voxel().is_some() {
            VOXEL_POINT_REACH
        } else {
            SAMPLE_REACH
        };
        for (z, row) in zs.zip(out.chunks_exact_mut(nx.max(1))) {
            for (ix, h) in row.iter_mut().enumerate() {
                let x = x(ix);
                if self.zones.near(x, z, reach) {
                    *h = self.height(x, z);
                }
            }
        }
    }

    /// The area path under zones on a height-field world: one generator pass gives
    /// every point's height and its procedural height; points a zone may affect then
    /// decide from those what [`Terrain::sample`] would (the zone's blend over the
    /// procedural height, the shoreline near a zone, or the ground already filled),
    /// without evaluating the generator there again. Same bits as point by point.
    fn fill_axes_zoned(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        let mut procedural = vec![0.0; out.len()];
        self.fill_axes_ground(xs, zs, out, &mut procedural);
        self.zone_pass(xs, zs, &procedural, out);
    }

    /// The ground of [`Generator::fill_axes`] before any zone: `ground` gets the
    /// generator's area path with the layout applied, `procedural` the generator's
    /// procedural heights (height-field worlds; a voxel world leaves it alone). With
    /// [`Terrain::fill_axes_on_ground`] it gives the heights of several terrains of
    /// one world (the same generator and layout, different zones) over one grid for
    /// the cost of one generator pass: the before and after of a zone change.
    /// `ground` and `procedural` hold `xs.len() * zs.len()` values, rows along `zs`.
    pub fn fill_axes_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        ground: &mut [f64],
        procedural: &mut [f64],
    ) {
        if self.generator.as_voxel().is_some() {
            self.generator.fill_axes(xs, zs, ground);
        } else {
            self.generator
                .fill_axes_procedural(xs, zs, ground, procedural);
        }
        if let Some(l) = &self.layout {
            l.apply_area(xs.len(), zs.iter().copied(), |ix| xs[ix], ground);
        }
    }

    /// This terrain's heights over `xs` x `zs`, given the `ground` and `procedural`
    /// [`Terrain::fill_axes_ground`] made of a terrain with the same generator and
    /// layout: the same bits as [`Generator::fill_axes`], without the generator's
    /// area pass.
    pub fn fill_axes_on_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        ground: &[f64],
        procedural: &[f64],
        out: &mut [f64],
    ) {
        out.copy_from_slice(ground);
        if self.generator.as_voxel().is_some() {
            self.redo_near_zones(xs.len(), zs.iter().copied(), |ix| xs[ix], out);
        } else if !self.zones.is_empty() {
            self.zone_pass(xs, zs, procedural, out);
        }
    }

    /// The zones over an area pass: each point a zone may affect decides from the
    /// ground in `out` and its `procedural` height what [`Terrain::sample`] would.
    /// Each point takes the point path's one index lookup (no separate
    /// [`ZoneSet::near`] test first: a point no zone is near looks up `Clear`),
    /// through an [`AreaLookup`] that reads only the zones near the area.
    ///
    /// [`ZoneSet::near`]: crate::zones::ZoneSet::near
    /// [`AreaLookup`]: crate::zones::set::AreaLookup
    fn zone_pass(&self, xs: &[f64], zs: &[f64], procedural: &[f64], out: &mut [f64]) {
        let nx = xs.len().max(1);
        let mut zones = self.zones.area_lookup(xs, zs, SAMPLE_REACH);
        for (iz, &z) in zs.iter().enumerate() {
            for (ix, &x) in xs.iter().enumerate() {
                let i = iz * nx + ix;
                let p = procedural[i];
                // What zones blend toward: the procedural height with the layout.
                let beneath = |px: f64, pz: f64| {
                    if px == x && pz == z {
                        match &self.layout {
                            Some(l) => l.apply(x, z, p),
                            None => p,
                        }
                    } else {
                        self.procedural(px, pz)
                    }
                };
                match zones.lookup(x, z, beneath) {
                    Lookup::Zone(s) => out[i] = s.height,
                    Lookup::Near => out[i] = self.height_near_zones_from(p, x, z),
                    // The ground, as the area pass filled it.
                    Lookup::Clear => {}
                }
            }
        }
    }

    /// [`Terrain::height_near_zones`] given the generator's procedural height there.
    fn height_near_zones_from(&self, procedural: f64, x: f64, z: f64) -> f64 {
        let zone_at = |nx: f64, nz: f64| {
            self.zones
                .sample(nx, nz, |x, z| self.procedural(x, z))
                .map(|s| s.height)
        };
        let h = self
            .generator
            .height_near_zones_from(procedural, x, z, &zone_at);
        match &self.layout {
            Some(l) => l.apply(x, z, h),
            None => h,
        }
    }

    /// The height at a point no zone reaches but one lies within the generator's
    /// sampling reach of (with the layout applied to the generator's answer).
    fn height_near_zones(&self, x: f64, z: f64) -> f64 {
        let zone_at = |nx: f64, nz: f64| {
            self.zones
                .sample(nx, nz, |x, z| self.procedural(x, z))
                .map(|s| s.height)
        };
        let h = self.generator.height_near_zones(x, z, &zone_at);
        match &self.layout {
            Some(l) => l.apply(x, z, h),
            None => h,
        }
    }
}

impl Generator for Terrain {
    fn height(&self, x: f64, z: f64) -> f64 {
        self.sample(x, z).height
    }

    fn procedural(&self, x: f64, z: f64) -> f64 {
        Terrain::procedural(self, x, z)
    }

    /// The generator's area path, the layout applied, then the points zones can
    /// affect redone one by one.
    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        if !self.zones.is_empty() && self.generator.as_voxel().is_none() {
            return self.fill_axes_zoned(xs, zs, out);
        }
        self.generator.fill_axes(xs, zs, out);
        if let Some(l) = &self.layout {
            l.apply_area(xs.len(), zs.iter().copied(), |ix| xs[ix], out);
        }
        self.redo_near_zones(xs.len(), zs.iter().copied(), |ix| xs[ix], out);
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        if !self.zones.is_empty() && self.generator.as_voxel().is_none() {
            // The generator's row and axis paths agree bit for bit (their contracts).
            let xs: Vec<f64> = (0..grid.nx).map(|ix| grid.x(ix)).collect();
            let zs: Vec<f64> = rows.map(|iz| grid.z(iz)).collect();
            return self.fill_axes_zoned(&xs, &zs, out);
        }
        self.generator.fill_rows(grid, rows.clone(), out);
        if let Some(l) = &self.layout {
            l.apply_area(
                grid.nx,
                rows.clone().map(|iz| grid.z(iz)),
                |ix| grid.x(ix),
                out,
            );
        }
        self.redo_near_zones(grid.nx, rows.map(|iz| grid.z(iz)), |ix| grid.x(ix), out);
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::generator::GeneratorKind;
    use crate::zones::{FlatZone, Overlap, Shape};

    /// A terrain whose zones (blended rings, stacked, some hard-edged) cover a coastal
    /// tile completely, with gaps between some of them (the shoreline then reads zone
    /// heights 1 m away).
    fn covered(kind: GeneratorKind, overlap: Overlap) -> Terrain {
        let generator = WorldGenerator::new(kind, 0).expect("seed 0");
        let mut set = ZoneSet::new(overlap, generator.tile_size());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1234_5678_9abc_def1);
        for i in 0..60i32 {
            let zone = FlatZone {
                id: format!("z{i}"),
                center_x: rng.random_range(240.0..360.0),
                center_z: rng.random_range(-320.0..-200.0),
                shape: if i % 2 == 0 {
                    Shape::Circle {
                        radius: rng.random_range(2.0..16.0),
                    }
                } else {
                    Shape::Rect {
                        width: rng.random_range(2.0..27.0),
                        depth: rng.random_range(2.0..27.0),
                    }
                },
                height: rng.random_range(4.0..16.0),
                blend_radius: if i % 7 == 0 {
                    0.0
                } else {
                    rng.random_range(0.0..9.0)
                },
                carve_inset: None,
                priority: i % 3,
                walkable: None,
                tile_mask: None,
            };
            set.insert(zone, i as u64 + 1);
        }
        Terrain::new(generator, set)
    }

    #[test]
    fn zoned_area_path_equals_the_point_path() {
        for kind in [GeneratorKind::Hyperscape, GeneratorKind::Osrs] {
            for overlap in [Overlap::Layered, Overlap::Hyperscape] {
                let t = covered(kind, overlap);
                // Irregular widths: lane groups and scalar tails.
                for (nx, step) in [(66usize, 100.0 / 63.0), (23, 0.37), (5, 3.1)] {
                    let xs: Vec<f64> = (0..nx).map(|i| 245.0 + i as f64 * step).collect();
                    let zs: Vec<f64> = (0..31).map(|i| -315.0 + i as f64 * 3.3).collect();
                    let mut out = vec![0.0; xs.len() * zs.len()];
                    t.fill_axes(&xs, &zs, &mut out);
                    let grid = Grid::new(xs[0], zs[0], step, nx, 7).expect("grid");
                    let mut rows = vec![0.0; nx * 7];
                    t.fill_rows(&grid, 0..7, &mut rows);
                    for (iz, &z) in zs.iter().enumerate() {
                        for (ix, &x) in xs.iter().enumerate() {
                            let want = t.height(x, z).to_bits();
                            assert_eq!(out[iz * nx + ix].to_bits(), want, "{kind:?} ({x}, {z})");
                            if iz < 7 {
                                let (gx, gz) = (grid.x(ix), grid.z(iz));
                                let want = t.height(gx, gz).to_bits();
                                assert_eq!(rows[iz * nx + ix].to_bits(), want, "rows ({gx}, {gz})");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Points in the shoreline's band (seed 0), each ringed by four small flat zones
    /// on its four slope samples, level with it: no zone reaches the point, but its
    /// shoreline reads their heights (`Lookup::Near`), and the adjustment, which the
    /// steeper bare ground leaves out, acts.
    fn ringed_shore_points(overlap: Overlap) -> (Terrain, Vec<(f64, f64)>) {
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0");
        let bare = Terrain::new(
            generator.clone(),
            ZoneSet::new(overlap, generator.tile_size()),
        );
        let mut set = ZoneSet::new(overlap, generator.tile_size());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0054_07e5);
        let mut points = Vec::new();
        while points.len() < 24 {
            let angle = rng.random_range(0.0..std::f64::consts::TAU);
            let r = rng.random_range(150.0..600.0);
            let (x, z) = (r * libm::cos(angle), r * libm::sin(angle));
            let b = bare.procedural(x, z);
            if !(6.5..11.5).contains(&b) {
                continue;
            }
            for (k, (dx, dz)) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
                .into_iter()
                .enumerate()
            {
                let zone = FlatZone {
                    id: format!("ring{}-{k}", points.len()),
                    center_x: x + dx,
                    center_z: z + dz,
                    shape: Shape::Circle { radius: 0.25 },
                    height: b + 0.01,
                    blend_radius: 0.0,
                    carve_inset: None,
                    priority: 0,
                    walkable: None,
                    tile_mask: None,
                };
                let revision = set.len() as u64 + 1;
                set.insert(zone, revision);
            }
            points.push((x, z));
        }
        (Terrain::new(generator, set), points)
    }

    /// Pairs of axis coordinates and slope neighbourhoods on a zoned island (points
    /// in zones, beside them and clear of them, the covered tile's edges included),
    /// and those and the area path at points whose shoreline reads zones, are the
    /// point path's heights, bit for bit.
    #[test]
    fn zoned_pairs_and_neighbourhoods_equal_the_point_path() {
        for overlap in [Overlap::Layered, Overlap::Hyperscape] {
            let (ringed, points) = ringed_shore_points(overlap);
            let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
            let zs: Vec<f64> = points.iter().map(|p| p.1).collect();
            let pairs: Vec<(usize, usize)> = (0..points.len()).map(|k| (k, k)).collect();
            let mut out = vec![0.0; pairs.len()];
            ringed.heights_at(&xs, &zs, &pairs, &mut out);
            let mut neighbourhoods = vec![[0.0; 9]; points.len()];
            ringed.neighbourhoods(&points, 1.0, &mut neighbourhoods);
            let mut shore = 0;
            for ((&(x, z), h), n) in points.iter().zip(&out).zip(&neighbourhoods) {
                let sample = ringed.sample(x, z);
                assert_eq!(sample.zone, None, "({x}, {z})");
                assert_eq!(h.to_bits(), sample.height.to_bits(), "({x}, {z})");
                assert_eq!(n[4].to_bits(), sample.height.to_bits(), "({x}, {z})");
                shore += usize::from(sample.height != ringed.ground(x, z));
            }
            assert!(shore >= 3, "the zones changed {shore} shorelines");
            // The area path over each ringed point, its ring and around it.
            for &(x, z) in &points {
                let axis = |c: f64| [c - 1.5, c - 1.0, c - 0.25, c, c + 0.25, c + 1.0, c + 1.5];
                let (xs, zs) = (axis(x), axis(z));
                let mut area = [0.0; 49];
                ringed.fill_axes(&xs, &zs, &mut area);
                for (k, h) in area.iter().enumerate() {
                    let (px, pz) = (xs[k % 7], zs[k / 7]);
                    let want = ringed.height(px, pz);
                    assert_eq!(h.to_bits(), want.to_bits(), "area ({px}, {pz})");
                }
            }

            let t = covered(GeneratorKind::Hyperscape, overlap);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x7e55_e11a);
            let xs: Vec<f64> = (0..41).map(|_| rng.random_range(200.0..400.0)).collect();
            let zs: Vec<f64> = (0..37).map(|_| rng.random_range(-360.0..-160.0)).collect();
            let pairs: Vec<(usize, usize)> = (0..xs.len())
                .flat_map(|i| (0..zs.len()).map(move |j| (i, j)))
                .collect();
            let mut out = vec![0.0; pairs.len()];
            t.heights_at(&xs, &zs, &pairs, &mut out);
            let mut zoned = 0;
            for (&(i, j), h) in pairs.iter().zip(&out) {
                let (x, z) = (xs[i], zs[j]);
                let sample = t.sample(x, z);
                assert_eq!(h.to_bits(), sample.height.to_bits(), "({x}, {z})");
                zoned += usize::from(sample.zone.is_some());
            }
            assert!(zoned > 100, "{zoned} pairs in zones");
            let centres: Vec<(f64, f64)> = (0..400)
                .map(|_| {
                    (
                        rng.random_range(200.0..400.0),
                        rng.random_range(-360.0..-160.0),
                    )
                })
                .collect();
            let mut out = vec![[0.0; 9]; centres.len()];
            t.neighbourhoods(&centres, 0.5, &mut out);
            for (&(x, z), o) in centres.iter().zip(&out) {
                let (ax, az) = ([x - 0.5, x, x + 0.5], [z - 0.5, z, z + 0.5]);
                for (k, h) in o.iter().enumerate() {
                    let want = t.height(ax[k % 3], az[k / 3]);
                    assert_eq!(h.to_bits(), want.to_bits(), "({x}, {z}) [{k}]");
                }
            }
        }
    }

    #[test]
    fn heights_on_a_shared_ground_equal_the_area_path() {
        for kind in [
            GeneratorKind::Hyperscape,
            GeneratorKind::Osrs,
            GeneratorKind::Voxel,
        ] {
            for overlap in [Overlap::Layered, Overlap::Hyperscape] {
                let zoned = covered(kind, overlap);
                let generator = WorldGenerator::new(kind, 0).expect("seed 0");
                let bare = Terrain::new(
                    generator.clone(),
                    ZoneSet::new(overlap, generator.tile_size()),
                );
                let xs: Vec<f64> = (0..37).map(|i| 238.0 + i as f64 * 3.41).collect();
                let zs: Vec<f64> = (0..29).map(|i| -322.0 + i as f64 * 4.3).collect();
                let n = xs.len() * zs.len();
                // The ground of the zone-free terrain serves both.
                let (mut ground, mut procedural) = (vec![0.0; n], vec![0.0; n]);
                bare.fill_axes_ground(&xs, &zs, &mut ground, &mut procedural);
                for t in [&bare, &zoned] {
                    let mut want = vec![0.0; n];
                    t.fill_axes(&xs, &zs, &mut want);
                    let mut got = vec![f64::NAN; n];
                    t.fill_axes_on_ground(&xs, &zs, &ground, &procedural, &mut got);
                    let bits = |v: &[f64]| v.iter().map(|h| h.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&got),
                        bits(&want),
                        "{kind:?} {overlap:?} {} zones",
                        t.zones().len()
                    );
                }
                assert_ne!(
                    ground,
                    {
                        let mut z = vec![0.0; n];
                        zoned.fill_axes(&xs, &zs, &mut z);
                        z
                    },
                    "{kind:?}: the zones change the grid"
                );
            }
        }
    }
}
