//! The layout's effect on heights, over hyperscape seed 7 with the example world's
//! layout sizes (chunk_size 400, cell_size 8, layout seed 7), for all four patterns:
//!
//! - clearings are exactly level at the generator's height at their centre; corridor
//!   cores are level across their width and ramp monotonically between their hubs'
//!   heights, meeting each clearing at its height; far from every feature the height
//!   is the generator's bit for bit;
//! - heights are continuous across clearing, corridor and blend-band edges;
//! - heights are bit-identical whatever the chunk order, thread, cache budget or
//!   eviction, on the per-point and area paths, and equal a fresh surface's;
//! - `classify` agrees with `classify_grid` cell by cell;
//! - registered zones stay on top of the layout.

use std::sync::Arc;

use terrain_core::layout::{
    Area, Hub, Layout, LayoutConfig, LayoutError, LayoutGround, Mulberry32, Pattern, Spoke,
    ZoneClass, classify_grid, corridor_half_width, hub_band, layout_in, layout_over, spoke_band,
};
use terrain_core::zones::{Shape, ZoneHeight, ZoneSpec};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const PATTERNS: [Pattern; 4] = [
    Pattern::Grid,
    Pattern::Zigzag,
    Pattern::Rings,
    Pattern::Chaotic,
];
const CHUNK: f64 = 400.0;

fn generator() -> WorldGenerator {
    WorldGenerator::new(GeneratorKind::Hyperscape, 7).expect("hyperscape")
}

fn config(pattern: Pattern) -> LayoutConfig {
    LayoutConfig::new(pattern, CHUNK, 8.0, 7).expect("layout config")
}

fn surface(pattern: Pattern) -> Arc<LayoutGround> {
    Arc::new(LayoutGround::new(config(pattern), generator()).expect("surface"))
}

fn plain() -> Terrain {
    Terrain::new(generator(), ZoneSet::new(Overlap::Layered, 100.0))
}

fn area(x0: f64, z0: f64, x1: f64, z1: f64) -> Area {
    Area::new(x0, z0, x1, z1).expect("area")
}

/// The hubs and spokes over chunks -2..=1 (the island and its shore), from the
/// stateless layout.
fn island_layout(cfg: &LayoutConfig) -> Layout {
    layout_over(cfg, &area(-800.0, -800.0, 799.0, 799.0)).expect("layout")
}

/// Every feature that can reach the island area, with the stateless layout's data and
/// the documented sizes: `(hub, band)` and `(spoke, half-width + band)`.
struct Reaches {
    hubs: Vec<(Hub, f64)>,
    spokes: Vec<Spoke>,
    spoke_reach: f64,
}

impl Reaches {
    fn new(cfg: &LayoutConfig) -> Self {
        // Grown by two regions, so every end of `island_layout`'s spokes is included.
        let l = layout_over(cfg, &area(-4800.0, -4800.0, 4799.0, 4799.0)).expect("layout");
        Self {
            hubs: l
                .hubs
                .into_iter()
                .map(|h| (h.clone(), hub_band(cfg, h.r)))
                .collect(),
            spokes: l.spokes,
            spoke_reach: corridor_half_width(cfg) + spoke_band(cfg),
        }
    }

    /// The features whose reach comes within `radius` of `c`.
    fn near(&self, c: (f64, f64), radius: f64) -> Self {
        Self {
            hubs: self
                .hubs
                .iter()
                .filter(|(h, band)| dist(c, (h.x, h.z)) < h.r + band + radius)
                .cloned()
                .collect(),
            spokes: self
                .spokes
                .iter()
                .filter(|s| seg_dist(c, s.a_at, s.b_at) < self.spoke_reach + radius)
                .cloned()
                .collect(),
            spoke_reach: self.spoke_reach,
        }
    }

    /// Whether any feature's reach (shape plus band, plus `margin`) holds `(x, z)`.
    fn any(&self, x: f64, z: f64, margin: f64) -> bool {
        let hub = self
            .hubs
            .iter()
            .any(|(h, band)| dist((x, z), (h.x, h.z)) < h.r + band + margin);
        hub || self
            .spokes
            .iter()
            .any(|s| seg_dist((x, z), s.a_at, s.b_at) < self.spoke_reach + margin)
    }

    /// The number of features whose reach (plus `margin`) holds `(x, z)`, not
    /// counting the hubs `skip` names.
    fn count(&self, x: f64, z: f64, margin: f64, skip: &[&str]) -> usize {
        let hubs = self
            .hubs
            .iter()
            .filter(|(h, _)| !skip.contains(&h.id.as_str()))
            .filter(|(h, band)| dist((x, z), (h.x, h.z)) < h.r + band + margin)
            .count();
        hubs + self
            .spokes
            .iter()
            .filter(|s| seg_dist((x, z), s.a_at, s.b_at) < self.spoke_reach + margin)
            .count()
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Distance from `p` to segment `a-b`, and the axis parameter of `p` (unclamped).
fn seg_param(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (dx, dz) = (b.0 - a.0, b.1 - a.1);
    let t = ((p.0 - a.0) * dx + (p.1 - a.1) * dz) / (dx * dx + dz * dz);
    let c = t.clamp(0.0, 1.0);
    (dist(p, (a.0 + c * dx, a.1 + c * dz)), t)
}

fn seg_dist(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    seg_param(p, a, b).0
}

fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Points on a circle of radius `rho` around `(x, z)`.
fn ring(x: f64, z: f64, rho: f64, n: usize) -> impl Iterator<Item = (f64, f64)> {
    (0..n).map(move |k| {
        let a = k as f64 * std::f64::consts::TAU / n as f64 + 0.3;
        (x + rho * a.cos(), z + rho * a.sin())
    })
}

#[test]
fn clearings_are_level_at_the_generator_height_of_their_centre() {
    let g = generator();
    for pattern in PATTERNS {
        let s = surface(pattern);
        let t = plain().with_layout(Arc::clone(&s));
        let layout = island_layout(s.config());
        assert!(
            layout.hubs.len() >= 16,
            "{pattern:?}: {}",
            layout.hubs.len()
        );
        for h in &layout.hubs {
            let want = g.height(h.x, h.z);
            assert_eq!(s.hub_height(h).to_bits(), want.to_bits());
            assert_eq!(t.height(h.x, h.z).to_bits(), want.to_bits(), "{}", h.id);
            for frac in [0.3, 0.7, 0.999] {
                for (x, z) in ring(h.x, h.z, frac * h.r, 12) {
                    let got = t.height(x, z);
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{pattern:?} {} at {x},{z}",
                        h.id
                    );
                }
            }
        }
    }
}

#[test]
fn corridors_are_level_across_and_ramp_between_their_hubs() {
    for pattern in PATTERNS {
        let s = surface(pattern);
        let cfg = *s.config();
        let t = plain().with_layout(Arc::clone(&s));
        let reaches = Reaches::new(&cfg);
        let w = corridor_half_width(&cfg);
        let (mut checked, mut ramps) = (0, 0);
        for sp in &island_layout(&cfg).spokes {
            let g = s.generator();
            let (ha, hb) = (
                g.height(sp.a_at.0, sp.a_at.1),
                g.height(sp.b_at.0, sp.b_at.1),
            );
            let len = dist(sp.a_at, sp.b_at);
            let (ux, uz) = ((sp.b_at.0 - sp.a_at.0) / len, (sp.b_at.1 - sp.a_at.1) / len);
            let mid = ((sp.a_at.0 + sp.b_at.0) / 2.0, (sp.a_at.1 + sp.b_at.1) / 2.0);
            let reaches = reaches.near(mid, len / 2.0 + 2.0 * w);
            let mut levels = Vec::new();
            for k in 0..=40 {
                let along = sp.a_r + (len - sp.a_r - sp.b_r) * k as f64 / 40.0;
                let (x, z) = (sp.a_at.0 + ux * along, sp.a_at.1 + uz * along);
                // The corridor shows alone where nothing else reaches its width; at
                // its ends, where it meets its clearings, only they may.
                let ends = [sp.a.as_str(), sp.b.as_str()];
                let skip: &[&str] = if k == 0 || k == 40 { &ends } else { &[] };
                if reaches.count(x, z, w, skip) != 1 {
                    continue;
                }
                let want = ha + (hb - ha) * smoothstep(k as f64 / 40.0);
                let h = t.height(x, z);
                let what = format!("{pattern:?} {}-{} k {k}", sp.a, sp.b);
                assert!((h - want).abs() < 1e-9, "{what}: {h} vs {want}");
                for off in [-0.95, -0.5, 0.5, 0.95] {
                    let (px, pz) = (x - uz * off * w, z + ux * off * w);
                    let across = t.height(px, pz);
                    assert!((across - h).abs() < 1e-9, "{what}: {across} across vs {h}");
                }
                match k {
                    0 => assert_eq!(h, ha, "{what}: meets clearing a at its height"),
                    40 => assert_eq!(h, hb, "{what}: meets clearing b at its height"),
                    _ => {}
                }
                levels.push(h);
                checked += 1;
            }
            if levels.len() >= 5 && (hb - ha).abs() > 0.1 {
                ramps += 1;
                let sign = (hb - ha).signum();
                for pair in levels.windows(2) {
                    assert!(
                        sign * (pair[1] - pair[0]) >= 0.0,
                        "{pattern:?}: not monotonic"
                    );
                }
            }
        }
        assert!(
            checked >= 100,
            "{pattern:?}: {checked} corridor points checked"
        );
        assert!(ramps >= 3, "{pattern:?}: {ramps} ramps checked");
    }
}

#[test]
fn far_from_every_feature_heights_are_the_generators_bit_for_bit() {
    let g = generator();
    for pattern in PATTERNS {
        let s = surface(pattern);
        let t = plain().with_layout(Arc::clone(&s));
        let reaches = Reaches::new(s.config()).near((0.0, 0.0), 1200.0);
        let (mut far, mut near) = (0, 0);
        for j in 0..60 {
            for i in 0..60 {
                let (x, z) = (-790.0 + i as f64 * 26.3, -790.0 + j as f64 * 26.3);
                // 1 mm of slack against rounding in this test's own distances.
                if reaches.any(x, z, 1e-3) {
                    near += 1;
                    continue;
                }
                far += 1;
                assert_eq!(
                    t.height(x, z).to_bits(),
                    g.height(x, z).to_bits(),
                    "{pattern:?} {x},{z}"
                );
                assert_eq!(t.procedural(x, z).to_bits(), g.procedural(x, z).to_bits());
                assert_eq!(s.apply(x, z, -123.5), -123.5);
            }
        }
        assert!(
            far >= 100 && near >= 100,
            "{pattern:?}: {far} far, {near} near"
        );
    }
}

/// The height step across `p` along unit direction `u`, over a gap of `gap`.
fn step(t: &Terrain, p: (f64, f64), u: (f64, f64), gap: f64) -> f64 {
    let h = |k: f64| t.height(p.0 + k * u.0 * gap / 2.0, p.1 + k * u.1 * gap / 2.0);
    (h(1.0) - h(-1.0)).abs()
}

#[test]
fn heights_are_continuous_across_every_edge() {
    for pattern in PATTERNS {
        let s = surface(pattern);
        let cfg = *s.config();
        let t = plain().with_layout(Arc::clone(&s));
        let layout = island_layout(&cfg);
        let w = corridor_half_width(&cfg);
        let mut edges: Vec<((f64, f64), (f64, f64))> = Vec::new();
        for h in layout.hubs.iter().take(60) {
            let band = hub_band(&cfg, h.r);
            for rho in [h.r, h.r + band] {
                for (x, z) in ring(h.x, h.z, rho, 8) {
                    let u = ((x - h.x) / rho, (z - h.z) / rho);
                    edges.push(((x, z), u));
                }
            }
        }
        for sp in layout.spokes.iter().take(80) {
            let len = dist(sp.a_at, sp.b_at);
            let n = (
                -(sp.b_at.1 - sp.a_at.1) / len,
                (sp.b_at.0 - sp.a_at.0) / len,
            );
            for frac in [0.3, 0.5, 0.7] {
                let m = (
                    sp.a_at.0 + frac * (sp.b_at.0 - sp.a_at.0),
                    sp.a_at.1 + frac * (sp.b_at.1 - sp.a_at.1),
                );
                for off in [-2.0 * w, -w, w, 2.0 * w] {
                    edges.push(((m.0 + n.0 * off, m.1 + n.1 * off), n));
                }
            }
        }
        assert!(edges.len() >= 500, "{pattern:?}: {} edges", edges.len());
        let mut largest: f64 = 0.0;
        for (p, u) in edges {
            let (cm, mm) = (step(&t, p, u, 0.01), step(&t, p, u, 0.001));
            largest = largest.max(cm);
            assert!(cm <= 0.03, "{pattern:?} step {cm} m over 1 cm at {p:?}");
            // A jump would not shrink with the gap; a slope shrinks tenfold.
            assert!(
                mm <= 0.2 * cm + 1e-6,
                "{pattern:?} {mm} over 1 mm vs {cm} over 1 cm at {p:?}"
            );
        }
        assert!(largest > 1e-4, "{pattern:?}: every edge flat ({largest})");
    }
}

/// Points of one chunk, with the chunk.
type ChunkPoints = ((i64, i64), Vec<(f64, f64)>);

/// Sample points over chunks -2..=1 (not aligned with chunks or cells), grouped by
/// the chunk they fall in.
fn chunk_points() -> Vec<ChunkPoints> {
    let mut groups = Vec::new();
    for cz in -2..=1i64 {
        for cx in -2..=1i64 {
            let mut pts = Vec::new();
            for j in 0..9 {
                for i in 0..9 {
                    let x = cx as f64 * CHUNK + 3.7 + i as f64 * 49.1;
                    let z = cz as f64 * CHUNK + 1.3 + j as f64 * 49.7;
                    pts.push((x, z));
                }
            }
            groups.push(((cx, cz), pts));
        }
    }
    groups
}

fn heights_in_order(t: &Terrain, groups: &[ChunkPoints], order: &[usize]) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); groups.len()];
    for &g in order {
        out[g] = groups[g]
            .1
            .iter()
            .map(|&(x, z)| t.height(x, z).to_bits())
            .collect();
    }
    out
}

#[test]
fn heights_do_not_depend_on_order_threads_budget_or_eviction() {
    let groups = chunk_points();
    let forward: Vec<usize> = (0..groups.len()).collect();
    for pattern in PATTERNS {
        let fresh = plain().with_layout(surface(pattern));
        let want = heights_in_order(&fresh, &groups, &forward);
        // A tiny budget evicts constantly while the chunks are visited shuffled.
        let small = Arc::new(
            LayoutGround::with_cache_bytes(config(pattern), generator(), 64 << 10)
                .expect("surface"),
        );
        let t = plain().with_layout(Arc::clone(&small));
        let mut rng = Mulberry32::new(5);
        for round in 0..2 {
            let mut order = forward.clone();
            for i in (1..order.len()).rev() {
                order.swap(i, (rng.next_f64() * (i + 1) as f64) as usize);
            }
            assert_eq!(
                heights_in_order(&t, &groups, &order),
                want,
                "{pattern:?} round {round}"
            );
        }
        let kept = small.cached_chunks();
        assert!(
            kept < groups.len(),
            "{pattern:?}: nothing was evicted ({kept})"
        );
        // Everything dropped, then two threads in opposite orders on one surface.
        let shared = surface(pattern);
        let t = plain().with_layout(Arc::clone(&shared));
        heights_in_order(&t, &groups, &forward);
        assert!(shared.cached_chunks() >= 16);
        let dropped = shared.retain_chunks(|_| false);
        assert_eq!(shared.cached_chunks(), 0);
        assert_eq!(shared.cached_regions(), 0);
        assert!(dropped >= 16, "{dropped}");
        let backward: Vec<usize> = forward.iter().rev().copied().collect();
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| heights_in_order(&t, &groups, &forward));
            let b = scope.spawn(|| heights_in_order(&t, &groups, &backward));
            (a.join().expect("thread"), b.join().expect("thread"))
        });
        assert_eq!(a, want, "{pattern:?} thread a");
        assert_eq!(b, want, "{pattern:?} thread b");
        // The layout changes something here, or the comparison proves little.
        let g = generator();
        let changed = groups
            .iter()
            .flat_map(|(_, p)| p)
            .filter(|&&(x, z)| t.height(x, z) != g.height(x, z))
            .count();
        assert!(
            changed >= 50,
            "{pattern:?}: layout changed {changed} points"
        );
    }
}

/// Vertex coordinates of a 64-vertex tile edge starting at `o`, 100/63 m apart.
fn tile_axis(o: f64) -> Vec<f64> {
    (0..64).map(|i| o + i as f64 * 100.0 / 63.0).collect()
}

#[test]
fn area_paths_equal_the_per_point_path_bit_for_bit() {
    let g = generator();
    for pattern in PATTERNS {
        let s = surface(pattern);
        let cfg = *s.config();
        // A zone inside a clearing and one across a corridor edge, so the area
        // paths redo some points through the zones too.
        let hub = island_layout(&cfg)
            .hubs
            .into_iter()
            .find(|h| h.x.abs() < 300.0 && h.z.abs() < 300.0)
            .expect("hub near the origin");
        let mut zones = ZoneSet::new(Overlap::Layered, 100.0);
        let t0 = plain().with_layout(Arc::clone(&s));
        for (i, (x, z)) in [(hub.x, hub.z), (hub.x + hub.r, hub.z)]
            .into_iter()
            .enumerate()
        {
            let spec = ZoneSpec {
                center_x: x,
                center_z: z,
                shape: Shape::Rect {
                    width: 12.0,
                    depth: 9.0,
                },
                height: ZoneHeight::Offset(1.5),
                blend_radius: 4.0,
                carve_inset: None,
                priority: 0,
                walkable: None,
                tile_mask: None,
            };
            zones.insert(
                spec.resolve(format!("z{i}"), t0.procedural(x, z)),
                i as u64 + 1,
            );
        }
        let t = Terrain::new(generator(), zones).with_layout(Arc::clone(&s));
        // The tile holding the clearing's centre, and its east neighbour.
        let tile = |v: f64| ((v + 50.0) / 100.0).floor() * 100.0 - 50.0;
        let (tx, tz) = (tile(hub.x), tile(hub.z));
        for (ox, oz) in [(tx, tz), (tx + 100.0, tz), (-1234.5, 987.25)] {
            let (xs, zs) = (tile_axis(ox), tile_axis(oz));
            let mut out = vec![0.0; xs.len() * zs.len()];
            t.fill_axes(&xs, &zs, &mut out);
            let mut differs = 0;
            for (iz, &z) in zs.iter().enumerate() {
                for (ix, &x) in xs.iter().enumerate() {
                    let h = out[iz * xs.len() + ix];
                    assert_eq!(
                        h.to_bits(),
                        t.height(x, z).to_bits(),
                        "{pattern:?} fill_axes at {x},{z}"
                    );
                    differs += usize::from(h != g.height(x, z));
                }
            }
            if (ox, oz) == (tx, tz) {
                assert!(
                    differs > 100,
                    "{pattern:?}: the tile over a clearing is flattened"
                );
            }
            let grid = terrain_core::Grid::new(ox, oz, 100.0 / 63.0, 64, 64).expect("grid");
            let mut rows = vec![0.0; 64 * 20];
            t.fill_rows(&grid, 30..50, &mut rows);
            for (k, h) in rows.iter().enumerate() {
                let (x, z) = (grid.x(k % 64), grid.z(30 + k / 64));
                assert_eq!(
                    h.to_bits(),
                    t.height(x, z).to_bits(),
                    "{pattern:?} fill_rows at {x},{z}"
                );
            }
        }
    }
}

#[test]
fn classify_agrees_with_classify_grid_cell_by_cell() {
    for pattern in PATTERNS {
        // The example sizes, and cells that do not divide the chunk.
        for cell in [8.0, 7.3] {
            let cfg = LayoutConfig::new(pattern, CHUNK, cell, 7).expect("cfg");
            let s = LayoutGround::new(cfg, generator()).expect("surface");
            let bounds = area(-430.0, -250.0, 415.0, 160.0);
            let grid = classify_grid(&cfg, &bounds).expect("grid");
            let mut seen = [0usize; 3];
            for j in 0..grid.rows {
                for i in 0..grid.cols {
                    let (ci, cj) = (grid.col0 + i as i64, grid.row0 + j as i64);
                    let want = &grid.cells[j * grid.cols + i];
                    // Anywhere inside the cell gives the cell's class.
                    let (x, z) = ((ci as f64 + 0.25) * cell, (cj as f64 + 0.9) * cell);
                    let got = s.classify(x, z).expect("classify");
                    assert_eq!(
                        (&got.class, got.cell),
                        (want, (ci, cj)),
                        "{pattern:?} cell {cell}"
                    );
                    seen[match want {
                        ZoneClass::Hub(id) => {
                            assert_eq!(got.hub_id(), Some(id.as_str()));
                            0
                        }
                        ZoneClass::Spoke => 1,
                        ZoneClass::Wilds => 2,
                    }] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n > 20), "{pattern:?}: {seen:?}");
        }
    }
}

#[test]
fn cells_too_fine_to_keep_are_classified_when_asked_with_the_same_answers() {
    // 800 x 800 cells per chunk: more than a chunk keeps.
    let cfg = LayoutConfig::new(Pattern::Chaotic, CHUNK, 0.5, 7).expect("cfg");
    let s = LayoutGround::new(cfg, generator()).expect("surface");
    let hub = island_layout(&cfg).hubs.into_iter().next().expect("a hub");
    // A square across the clearing's edge.
    let (x0, z0) = (hub.x + hub.r - 10.0, hub.z - 10.0);
    let grid = classify_grid(&cfg, &area(x0, z0, x0 + 20.0, z0 + 20.0)).expect("grid");
    let mut hubs = 0;
    for j in 0..grid.rows {
        for i in 0..grid.cols {
            let (ci, cj) = (grid.col0 + i as i64, grid.row0 + j as i64);
            let got = s
                .classify((ci as f64 + 0.5) * 0.5, (cj as f64 + 0.5) * 0.5)
                .expect("classify");
            assert_eq!(got.class, grid.cells[j * grid.cols + i]);
            assert_eq!(got.cell, (ci, cj));
            hubs += usize::from(got.hub_id() == Some(hub.id.as_str()));
        }
    }
    assert!(
        hubs > 100 && hubs < grid.cells.len() - 100,
        "{hubs} of {}",
        grid.cells.len()
    );
}

#[test]
fn a_surface_is_shared_across_threads_and_terrain_has_none_by_default() {
    fn shared<T: Send + Sync>() {}
    shared::<LayoutGround>();
    shared::<Terrain>();
    assert!(plain().layout().is_none());
    let s = surface(Pattern::Grid);
    let t = plain().with_layout(Arc::clone(&s));
    assert!(t.layout().is_some_and(|l| std::ptr::eq(l, &*s)));
    assert_eq!(
        Arc::strong_count(&s),
        2,
        "the terrain holds the shared surface"
    );
}

#[test]
fn registered_zones_stay_on_top_of_the_layout() {
    for pattern in PATTERNS {
        let s = surface(pattern);
        let layout = island_layout(s.config());
        let hub = layout
            .hubs
            .iter()
            .find(|h| h.x.abs() < 400.0 && h.z.abs() < 400.0)
            .expect("hub");
        let clearing = s.hub_height(hub);
        let bare = plain().with_layout(Arc::clone(&s));
        // Inside the clearing what zones blend toward is the clearing's level.
        assert_eq!(bare.procedural(hub.x, hub.z), clearing);
        let (w, br) = (0.4 * hub.r, 0.2 * hub.r);
        let spec = ZoneSpec {
            center_x: hub.x,
            center_z: hub.z,
            shape: Shape::Rect { width: w, depth: w },
            height: ZoneHeight::Offset(2.5),
            blend_radius: br,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let zone = spec.resolve("floor", bare.procedural(hub.x, hub.z));
        assert_eq!(zone.height, clearing + 2.5);
        let mut zones = ZoneSet::new(Overlap::Layered, 100.0);
        zones.insert(zone, 1);
        let t = Terrain::new(generator(), zones).with_layout(Arc::clone(&s));
        for (dx, dz) in [(0.0, 0.0), (0.49 * w, -0.3 * w), (-0.2 * w, 0.49 * w)] {
            assert_eq!(
                t.height(hub.x + dx, hub.z + dz),
                clearing + 2.5,
                "{pattern:?} core"
            );
        }
        // Halfway across the blend ring: between the floor and the clearing.
        let f = 0.5;
        let h = t.height(hub.x + w / 2.0 + f * br, hub.z);
        let want = (clearing + 2.5) + (clearing - (clearing + 2.5)) * smoothstep(f);
        assert!((h - want).abs() < 1e-9, "{pattern:?} blend {h} vs {want}");
        // Beyond the zone, still in the clearing: the clearing's level.
        assert_eq!(t.height(hub.x + 0.9 * hub.r, hub.z), clearing);
        // Without the layout the zone resolves against the raw terrain.
        let raw = spec
            .resolve("floor", plain().procedural(hub.x, hub.z))
            .height;
        assert_eq!(raw, generator().procedural(hub.x, hub.z) + 2.5);
    }
}

#[test]
fn prepare_builds_each_chunk_once_and_retain_drops_what_is_not_kept() {
    let s = surface(Pattern::Rings);
    let bake = area(-1200.0, -1200.0, 1599.0, 1599.0);
    assert_eq!(s.prepare(&bake), Ok(49));
    assert_eq!(s.cached_chunks(), 49);
    assert_eq!(s.prepare(&bake), Ok(0), "everything was cached");
    assert!(
        s.cached_bytes() > 49 * 2500,
        "cells and features are weighed"
    );
    // Keep the chunks within one chunk of the origin.
    let keep = |(cx, cz): (i64, i64)| cx.abs() <= 1 && cz.abs() <= 1;
    assert_eq!(s.retain_chunks(keep), 40);
    assert_eq!(s.cached_chunks(), 9);
    assert_eq!(s.prepare(&bake), Ok(40));
    // The same layout through the surface as without it.
    for a in [bake, area(-5000.0, 300.0, -2100.0, 2900.0)] {
        assert_eq!(s.layout_in(&a), layout_in(s.config(), &a));
        assert_eq!(s.layout_over(&a), layout_over(s.config(), &a));
    }
    assert_eq!(s.retain_chunks(|_| false), 49);
    assert_eq!(s.cached_chunks(), 0);
    assert_eq!(s.cached_bytes(), 0);
}

#[test]
fn bad_input_is_refused_with_the_field_named() {
    let mut cfg = config(Pattern::Grid);
    cfg.cell_size = 0.0;
    let err = LayoutGround::new(cfg, generator()).expect_err("bad cell size");
    assert!(err.to_string().starts_with("cell_size"), "{err}");
    let s = surface(Pattern::Grid);
    assert_eq!(
        s.classify(f64::NAN, 0.0),
        Err(LayoutError::NotFinite { field: "x" })
    );
    assert_eq!(
        s.classify(0.0, f64::INFINITY),
        Err(LayoutError::NotFinite { field: "z" })
    );
    assert_eq!(s.classify(1e30, 0.0), Err(LayoutError::OutOfWorld));
    let huge = s
        .prepare(&area(0.0, 0.0, 1e6, 1e6))
        .expect_err("too many chunks");
    assert!(huge.to_string().starts_with("bounds"), "{huge}");
    assert_eq!(s.cached_chunks(), 0, "a refused query builds nothing");
    // Outside the layout's world the ground is left alone.
    assert_eq!(s.apply(1e30, 0.0, 4.25), 4.25);
    assert_eq!(s.apply(f64::NAN, 0.0, 4.25), 4.25);
}

#[test]
fn no_blend_band_reaches_another_clearing() {
    for pattern in PATTERNS {
        for seed in [7, 0, 99, 123_456] {
            let cfg = LayoutConfig::new(pattern, CHUNK, 8.0, seed).expect("cfg");
            let hubs = layout_in(&cfg, &area(-2400.0, -2400.0, 2399.0, 2399.0))
                .expect("layout")
                .hubs;
            for (i, a) in hubs.iter().enumerate() {
                for b in &hubs[i + 1..] {
                    let d = dist((a.x, a.z), (b.x, b.z));
                    let (ba, bb) = (hub_band(&cfg, a.r), hub_band(&cfg, b.r));
                    assert!(
                        d >= a.r + ba + b.r && d >= a.r + b.r + bb,
                        "{pattern:?} {} {}",
                        a.id,
                        b.id
                    );
                }
            }
        }
    }
}

#[test]
fn chunk_feature_lists_hold_every_feature_reaching_the_chunk() {
    for pattern in PATTERNS {
        let s = surface(pattern);
        let cfg = *s.config();
        let all = Reaches::new(&cfg).near((0.0, 0.0), 1200.0);
        for ((cx, cz), points) in chunk_points() {
            let f = s.features((cx, cz)).expect("features");
            assert_eq!(f.chunk(), (cx, cz));
            for (x, z) in points {
                let hubs: Vec<&str> = f
                    .hubs()
                    .iter()
                    .filter(|h| h.reaches(x, z))
                    .map(|h| h.hub.id.as_str())
                    .collect();
                let want: Vec<&str> = all
                    .hubs
                    .iter()
                    .filter(|(h, band)| dist((x, z), (h.x, h.z)) < h.r + band)
                    .map(|(h, _)| h.id.as_str())
                    .collect();
                assert_eq!(
                    hubs.len(),
                    want.len(),
                    "{pattern:?} at {x},{z}: {hubs:?} vs {want:?}"
                );
                let spokes = f.spokes().iter().filter(|sp| sp.reaches(x, z)).count();
                let want = all
                    .spokes
                    .iter()
                    .filter(|sp| seg_dist((x, z), sp.a_at, sp.b_at) < all.spoke_reach)
                    .count();
                assert_eq!(spokes, want, "{pattern:?} spokes at {x},{z}");
                for h in f.hubs() {
                    assert_eq!(h.height, s.hub_height(&h.hub));
                }
            }
        }
    }
}
