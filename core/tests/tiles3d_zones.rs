//! Coarse 3D Tiles contents after bursts of zone changes: random sequences of flat zones
//! added, replaced and removed (steep cores on slopes, heights far from the ground,
//! hard and soft edges, tile masks, carved floors) over a square of 16 x 16 tiles of the
//! island and of 16 x 16 chunks of a voxel world, whose root takes its samples from
//! grids one level above the finest, and two narrow pads on 32 x 32 tiles, whose root's
//! patches are patched in turn; and the island and voxel squares again with grids exact
//! only one level above the finest, as on a square over 128 x 128 tiles, whose two
//! coarsest levels take sampled grids and declare their errors. Every content of every
//! level is measured against
//! the full-detail tile meshes' surface: the largest vertical distance between the
//! content's surface (skirts left out) and the full-detail surface under it, over
//! every point where either surface bends (the full-detail vertices under each content
//! triangle, and every point where a content triangle's side crosses a full-detail
//! cell's side or diagonal), carved cells left out. It is within the level's
//! geometric error and within the bound the content was built with, and the content's
//! surface covers every full-detail cell under it.

use proptest::prelude::*;
use terrain_core::mesh::{build_tile, tile::vertex_coord};
use terrain_core::tiles3d::{
    ContentGrid, ContentKey, TilesetLayout, content_mesh, content_patches, declared_error,
    leaf_error, leaf_grid, parent_grid, sample_depth, sampled_grid,
};
use terrain_core::zones::{Shape, TileMask};
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

/// One change of a burst: a zone (re)placed under one of four ids, or an id removed.
#[derive(Debug, Clone)]
enum Change {
    Put(FlatZone),
    Remove(String),
}

/// The full-detail surface of the square: its lattice heights and which cells the tile
/// meshes hold (carved ones do not).
struct Full {
    /// Lattice vertices a side.
    m: usize,
    x0: f64,
    z0: f64,
    spacing: f64,
    h: Vec<f64>,
    present: Vec<bool>,
}

impl Full {
    fn new(t: &Terrain, l: &TilesetLayout) -> Full {
        let grid = t.generator().tile_grid();
        let n = grid.resolution as usize;
        let cells = n - 1;
        let side = l.side() as usize;
        let m = side * cells + 1;
        let mut h = vec![0.0; m * m];
        let mut present = vec![false; (m - 1) * (m - 1)];
        for tz in 0..side {
            for tx in 0..side {
                let tile = (l.min_tile.0 + tx as i64, l.min_tile.1 + tz as i64);
                let mesh = build_tile(t, tile, 0);
                for iz in 0..n {
                    for ix in 0..n {
                        let y = mesh.positions[(iz * n + ix) * 3 + 1];
                        h[(tz * cells + iz) * m + tx * cells + ix] = f64::from(y);
                    }
                }
                // Two triangles a cell, the first index at the cell's lowest corner.
                let mut k = 0;
                while let Some(a) = mesh.indices.get(k) {
                    let (ix, iz) = (a as usize % n, a as usize / n);
                    present[(tz * cells + iz) * (m - 1) + tx * cells + ix] = true;
                    k += 6;
                }
            }
        }
        let x0 = vertex_coord(&grid, l.min_tile.0, 0);
        let z0 = vertex_coord(&grid, l.min_tile.1, 0);
        // The lattice is uniform but for the float32 rounding of vertex coordinates
        // within a tile (micrometres).
        let last = vertex_coord(&grid, l.min_tile.0 + side as i64 - 1, cells);
        let spacing = (last - x0) / (m - 1) as f64;
        for t in 0..side {
            for i in 0..n {
                let x = vertex_coord(&grid, l.min_tile.0 + t as i64, i);
                assert!((x - (x0 + spacing * (t * cells + i) as f64)).abs() < 1e-4);
            }
        }
        Full {
            m,
            x0,
            z0,
            spacing,
            h,
            present,
        }
    }

    /// The full-detail height at lattice coordinates `(fx, fz)`, if a cell the point
    /// lies in or on is present.
    fn at(&self, fx: f64, fz: f64) -> Option<f64> {
        let eps = 1e-9;
        let last = (self.m - 2) as f64;
        let cx = |f: f64| (f.floor().clamp(0.0, last)) as usize;
        let touching = [
            (cx(fx - eps), cx(fz - eps)),
            (cx(fx + eps), cx(fz - eps)),
            (cx(fx - eps), cx(fz + eps)),
            (cx(fx + eps), cx(fz + eps)),
        ];
        if !touching
            .iter()
            .any(|&(i, j)| self.present[j * (self.m - 1) + i])
        {
            return None;
        }
        let (ix, iz) = (cx(fx), cx(fz));
        let (u, v) = (fx - ix as f64, fz - iz as f64);
        let at = |i: usize, j: usize| self.h[(iz + j) * self.m + ix + i];
        // Cells split along the (ix, iz+1)-(ix+1, iz) diagonal.
        Some(if u + v <= 1.0 {
            let (a, b, d) = (at(0, 0), at(0, 1), at(1, 0));
            a + (d - a) * u + (b - a) * v
        } else {
            let (b, c, d) = (at(0, 1), at(1, 1), at(1, 0));
            c + (b - c) * (1.0 - u) + (d - c) * (1.0 - v)
        })
    }
}

/// Every grid of the square, by level (level `levels` first).
fn grids(t: &Terrain, l: &TilesetLayout) -> Vec<Vec<ContentGrid>> {
    let side = l.side();
    let leaves: Vec<ContentGrid> = (0..side * side)
        .map(|k| {
            let key = ContentKey {
                level: l.levels,
                ix: k % side,
                iz: k / side,
            };
            leaf_grid(t, l, key)
        })
        .collect();
    let mut out = vec![leaves];
    for level in (0..l.levels).rev() {
        let below = out.last().unwrap();
        let n = 1u64 << level;
        let nb = n * 2;
        let level_grids = (0..n * n)
            .map(|k| {
                let key = ContentKey {
                    level,
                    ix: k % n,
                    iz: k / n,
                };
                if !l.exact(level) {
                    return sampled_grid(t, l, key);
                }
                let c = key.children().map(|c| &below[(c.iz * nb + c.ix) as usize]);
                parent_grid(key, c)
            })
            .collect();
        out.push(level_grids);
    }
    out
}

/// The largest distance between `key`'s content surface and the full-detail one, with
/// the bound the content was built with; panics where the content leaves a present
/// full-detail cell uncovered.
fn measure(
    t: &Terrain,
    l: &TilesetLayout,
    all: &[Vec<ContentGrid>],
    full: &Full,
    key: ContentKey,
) -> (f64, f64) {
    let at_level = |level: u32| &all[(l.levels - level) as usize];
    let get = |k: ContentKey| &at_level(k.level)[(k.iz * (1u64 << k.level) + k.ix) as usize];
    let below = |d: u32| -> Vec<&ContentGrid> {
        let k = 1u64 << d;
        (0..k * k)
            .map(|i| {
                get(ContentKey {
                    level: key.level + d,
                    ix: key.ix * k + i % k,
                    iz: key.iz * k + i / k,
                })
            })
            .collect()
    };
    let depth = sample_depth(l, key, |d| {
        below(d).iter().map(|g| g.error).fold(0.0, f64::max)
    });
    let samples = below(depth);
    let patches = content_patches(l, key, &samples, &mut |k: ContentKey| {
        k.children().map(get).to_vec()
    });
    let (mesh, bound) = content_mesh(t, l, key, &samples, depth, &patches, 0);
    // Vertices in lattice coordinates (every content vertex is a lattice vertex).
    let lattice = |v: u32| {
        let i = v as usize * 3;
        let x = f64::from(mesh.positions[i]) + mesh.placement[0];
        let z = f64::from(mesh.positions[i + 2]) + mesh.placement[2];
        let (fx, fz) = (
            ((x - full.x0) / full.spacing).round(),
            ((z - full.z0) / full.spacing).round(),
        );
        (fx, fz, f64::from(mesh.positions[i + 1]))
    };
    let tris: Vec<[(f64, f64, f64); 3]> = (0..mesh.indices.len() / 3)
        .map(|k| [0, 1, 2].map(|j| lattice(mesh.indices.get(k * 3 + j).unwrap())))
        .filter(|t| {
            // Skirts are vertical: no area seen from above.
            let a = (t[1].0 - t[0].0) * (t[2].1 - t[0].1) - (t[1].1 - t[0].1) * (t[2].0 - t[0].0);
            a.abs() > 1e-9
        })
        .collect();
    // Skirts hang twice the error the content declares below its surface.
    let surface_min = tris
        .iter()
        .flatten()
        .map(|p| p.2)
        .fold(f64::INFINITY, f64::min);
    let skirt = 2.0 * declared_error(l, t, key);
    assert!(
        (f64::from(mesh.min_height) - (surface_min - skirt)).abs() < 1e-3,
        "{key:?}: skirts to {} below a surface from {surface_min}, not {skirt} m",
        mesh.min_height
    );
    let rect = l.tiles(key);
    let cells = (full.m - 1) / l.side() as usize;
    let g0 = |t: i64, min: i64| (t - min) as usize * cells;
    let (gx0, gz0) = (g0(rect.min_tx, l.min_tile.0), g0(rect.min_tz, l.min_tile.1));
    let (gx1, gz1) = (
        g0(rect.max_tx + 1, l.min_tile.0),
        g0(rect.max_tz + 1, l.min_tile.1),
    );
    let w = gx1 - gx0 + 1;
    let mut covered = vec![false; w * (gz1 - gz0 + 1)];
    let mut worst = 0.0f64;
    let mut check = |fx: f64, fz: f64, s: f64| {
        if let Some(h) = full.at(fx, fz) {
            worst = worst.max((s - h).abs());
        }
    };
    for t in &tris {
        let d = (t[1].1 - t[2].1) * (t[0].0 - t[2].0) + (t[2].0 - t[1].0) * (t[0].1 - t[2].1);
        // Lattice vertices under the triangle.
        let lo = |f: fn(&(f64, f64, f64)) -> f64| t.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = |f: fn(&(f64, f64, f64)) -> f64| t.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        let (x_lo, x_hi) = (lo(|p| p.0) as usize, hi(|p| p.0) as usize);
        let (z_lo, z_hi) = (lo(|p| p.1) as usize, hi(|p| p.1) as usize);
        assert!(
            x_lo >= gx0 && x_hi <= gx1 && z_lo >= gz0 && z_hi <= gz1,
            "{key:?}: a triangle beyond its square"
        );
        for gz in z_lo..=z_hi {
            for gx in x_lo..=x_hi {
                let (x, z) = (gx as f64, gz as f64);
                let a = ((t[1].1 - t[2].1) * (x - t[2].0) + (t[2].0 - t[1].0) * (z - t[2].1)) / d;
                let b = ((t[2].1 - t[0].1) * (x - t[2].0) + (t[0].0 - t[2].0) * (z - t[2].1)) / d;
                let c = 1.0 - a - b;
                if a < -1e-9 || b < -1e-9 || c < -1e-9 {
                    continue;
                }
                check(x, z, a * t[0].2 + b * t[1].2 + c * t[2].2);
                covered[(gz - gz0) * w + gx - gx0] = true;
            }
        }
        // Where each side crosses a lattice column, row or cell diagonal.
        for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            let mut ts = Vec::new();
            let mut crossings = |a: f64, b: f64| {
                if (b - a).abs() < 1e-12 {
                    return;
                }
                let (lo, hi) = (a.min(b).ceil() as i64, a.max(b).floor() as i64);
                for v in lo..=hi {
                    ts.push((v as f64 - a) / (b - a));
                }
            };
            crossings(p.0, q.0);
            crossings(p.1, q.1);
            crossings(p.0 + p.1, q.0 + q.1);
            for s in ts {
                let (x, z) = (p.0 + (q.0 - p.0) * s, p.1 + (q.1 - p.1) * s);
                check(x, z, p.2 + (q.2 - p.2) * s);
            }
        }
    }
    // Every vertex of a present full-detail cell lies under the surface.
    for gz in gz0..=gz1 {
        for gx in gx0..=gx1 {
            if !covered[(gz - gz0) * w + gx - gx0] && full.at(gx as f64, gz as f64).is_some() {
                panic!("{key:?}: lattice vertex ({gx}, {gz}) under no triangle");
            }
        }
    }
    (worst, bound)
}

/// Applies `burst` to an empty zone set of `kind`'s world and checks every coarse
/// content of the square of `extent` metres from `min_tile`; answers the largest
/// real error found at the root.
fn check(
    kind: GeneratorKind,
    seed: u32,
    extent: f64,
    min_tile: (i64, i64),
    burst: &[Change],
) -> f64 {
    check_layout(kind, seed, extent, min_tile, None, burst)
}

/// [`check`] with the grids exact only `exact_below` levels above the finest where
/// given (as on a square over 128 x 128 tiles): contents over sampled grids must be
/// within the error they declare ([`declared_error`]), the others within their
/// level's and their bound.
fn check_layout(
    kind: GeneratorKind,
    seed: u32,
    extent: f64,
    min_tile: (i64, i64),
    exact_below: Option<u32>,
    burst: &[Change],
) -> f64 {
    let generator = WorldGenerator::new(kind, seed).unwrap();
    let grid = generator.tile_grid();
    let mut zones = ZoneSet::new(Overlap::Layered, grid.size);
    for (revision, change) in (1..).zip(burst) {
        match change {
            Change::Put(z) => {
                zones.insert(z.clone(), revision);
            }
            Change::Remove(id) => {
                zones.remove(id);
            }
        }
    }
    let t = Terrain::new(generator, zones);
    let mut l = TilesetLayout::covering(grid, extent, leaf_error(t.generator()));
    l.min_tile = min_tile;
    if let Some(n) = exact_below {
        l.exact_below = n;
    }
    let all = grids(&t, &l);
    let full = Full::new(&t, &l);
    let mut root = 0.0;
    for level in 0..l.levels {
        let n = 1u64 << level;
        for k in 0..n * n {
            let key = ContentKey {
                level,
                ix: k % n,
                iz: k / n,
            };
            let (real, bound) = measure(&t, &l, &all, &full, key);
            if !l.proven(level) {
                let declared = declared_error(&l, &t, key);
                assert!(
                    real <= declared + 1e-3,
                    "{key:?}: {real} m beyond the {declared} m it declares"
                );
                if level == 0 {
                    root = real;
                }
                continue;
            }
            let limit = l.geometric_error(level);
            // Distances are taken in lattice coordinates: the float32 rounding of vertex
            // coordinates (micrometres) moves them by less than a millimetre.
            assert!(
                real <= limit + 1e-3,
                "{key:?}: {real} m beyond its level's {limit} m"
            );
            assert!(
                real <= bound + 1e-3,
                "{key:?}: {real} m beyond its bound {bound} m"
            );
            if level == 0 {
                root = real;
            }
        }
    }
    root
}

fn zone(id: usize, x: f64, z: f64, shape: Shape, height: f64, blend: f64) -> FlatZone {
    FlatZone {
        id: format!("z{id}"),
        center_x: x,
        center_z: z,
        shape,
        height,
        blend_radius: blend,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// A burst over ground within `reach` metres of `(cx, cz)`, zone heights in `heights`.
fn burst(cx: f64, cz: f64, reach: f64, heights: (f64, f64)) -> impl Strategy<Value = Vec<Change>> {
    let shape = prop_oneof![
        (1.0..60.0f64, 1.0..60.0f64).prop_map(|(width, depth)| Shape::Rect { width, depth }),
        (0.5..30.0f64).prop_map(|radius| Shape::Circle { radius }),
    ];
    let blend = prop_oneof![2 => Just(0.0), 3 => 0.25..20.0f64];
    let carve =
        prop_oneof![2 => Just(None), 1 => Just(Some(0.0)), 1 => (0.0..4.0f64).prop_map(Some)];
    let put = (
        0..4usize,
        -reach..reach,
        -reach..reach,
        shape,
        heights.0..heights.1,
        blend,
        carve,
        -2..=2i32,
        any::<u64>(),
    )
        .prop_map(
            move |(id, dx, dz, shape, height, blend, carve, priority, bits)| {
                let (x, z) = ((cx + dx).round(), (cz + dz).round());
                let mut zone = zone(id, x, z, shape, height, blend);
                zone.carve_inset = carve;
                zone.priority = priority;
                // Every other rectangle's core as a tile mask: the 1 m tiles inside it that
                // `bits` picks (rows of 8 bits, repeating).
                if let Shape::Rect { width, depth } = shape
                    && bits % 2 == 0
                {
                    let (x0, x1) = (
                        (x - width / 2.0).ceil() as i64,
                        (x + width / 2.0).floor() as i64,
                    );
                    let (z0, z1) = (
                        (z - depth / 2.0).ceil() as i64,
                        (z + depth / 2.0).floor() as i64,
                    );
                    let tiles: Vec<(i64, i64)> = (z0..z1)
                        .flat_map(|tz| (x0..x1).map(move |tx| (tx, tz)))
                        .filter(|&(tx, tz)| {
                            bits >> (1 + ((tx - x0) % 8 + 8 * ((tz - z0) % 7))) & 1 == 1
                        })
                        .collect();
                    if let Ok(mask) = TileMask::from_tiles(tiles) {
                        zone.tile_mask = Some(mask);
                    }
                }
                Change::Put(zone)
            },
        );
    let change = prop_oneof![
        4 => put,
        1 => (0..4usize).prop_map(|id| Change::Remove(format!("z{id}"))),
    ];
    proptest::collection::vec(change, 1..8)
}

/// A pad 30 m across at 70 m, some 40 m above the island's western slopes, with a
/// hard edge.
fn western_pad() -> FlatZone {
    zone(
        0,
        -420.0,
        130.0,
        Shape::Rect {
            width: 30.0,
            depth: 30.0,
        },
        70.0,
        0.0,
    )
}

/// [`western_pad`]: the root of a 16 x 16 tile square (4 m of error) samples the ground
/// every 3.2 m, which cuts the pad's cliffs tens of metres off the full-detail surface.
#[test]
fn a_hard_edged_pad_stays_within_the_root_error() {
    let pad = western_pad();
    let root = check(
        GeneratorKind::Hyperscape,
        0,
        1600.0,
        (-8, -8),
        &[Change::Put(pad)],
    );
    // The cliffs are really there: the root is measured near its error.
    assert!(root > 1.0, "{root}");
}

/// Two narrow pads far above and below the ground on a square of 32 x 32 tiles, whose
/// root (8 m of error) samples grids of 4 x 4 tiles: their patches are patched in turn
/// down to the full-detail tiles.
#[test]
fn patches_of_patches_hold_the_root_error() {
    let high = zone(
        0,
        -700.0,
        -350.0,
        Shape::Rect {
            width: 6.0,
            depth: 40.0,
        },
        110.0,
        0.0,
    );
    let mut low = zone(1, 420.0, 380.0, Shape::Circle { radius: 9.0 }, -20.0, 0.5);
    low.carve_inset = Some(2.0);
    let root = check(
        GeneratorKind::Hyperscape,
        0,
        3200.0,
        (-16, -16),
        &[Change::Put(high), Change::Put(low)],
    );
    assert!(root > 1.0, "{root}");
}

/// A voxel pad 20 blocks above the ground with a one-block blend, on a square of
/// 16 x 16 chunks whose root (16 m of error) samples every other block corner.
#[test]
fn a_voxel_pad_stays_within_the_root_error() {
    let pad = zone(
        0,
        256.0,
        256.0,
        Shape::Rect {
            width: 41.0,
            depth: 23.0,
        },
        62.0,
        1.0,
    );
    let root = check(GeneratorKind::Voxel, 3, 512.0, (0, 0), &[Change::Put(pad)]);
    assert!(root > 1.0, "{root}");
}

/// The same square of the island with grids exact only one level above the finest,
/// as a square over 128 x 128 tiles has them: the root and level 1 take their
/// samples from sampled grids and declare what the ground proves. [`western_pad`]
/// takes the root (4 m) beyond its level's error.
#[test]
fn sampled_contents_hold_the_error_they_declare() {
    let pad = western_pad();
    let root = check_layout(
        GeneratorKind::Hyperscape,
        1,
        1600.0,
        (-8, -8),
        Some(1),
        &[Change::Put(pad)],
    );
    assert!(root > 4.0, "the root is beyond its level's error: {root}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn sampled_island_contents_hold_their_declared_error_after_zone_bursts(
        changes in burst(-300.0, 0.0, 300.0, (-20.0, 120.0))
    ) {
        check_layout(GeneratorKind::Hyperscape, 1, 1600.0, (-8, -8), Some(1), &changes);
    }

    #[test]
    fn sampled_voxel_contents_hold_their_declared_error_after_zone_bursts(
        changes in burst(256.0, 256.0, 200.0, (0.0, 90.0))
    ) {
        check_layout(GeneratorKind::Voxel, 3, 512.0, (0, 0), Some(1), &changes);
    }

    #[test]
    fn island_contents_hold_their_error_after_zone_bursts(
        changes in burst(-300.0, 0.0, 300.0, (-20.0, 120.0))
    ) {
        check(GeneratorKind::Hyperscape, 0, 1600.0, (-8, -8), &changes);
    }

    #[test]
    fn voxel_contents_hold_their_error_after_zone_bursts(
        changes in burst(256.0, 256.0, 200.0, (0.0, 90.0))
    ) {
        check(GeneratorKind::Voxel, 3, 512.0, (0, 0), &changes);
    }
}
