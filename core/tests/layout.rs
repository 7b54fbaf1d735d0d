//! The layout layer against the seed's reference PRNG values and its geometric
//! promises: hubs inside their chunks and disjoint, planar spokes non-crossing and
//! maximal, grid spokes orthogonal, and answers independent of query order.

use std::collections::BTreeSet;

use terrain_core::layout::{
    Area, Hub, Layout, LayoutConfig, Mulberry32, PLANAR_MAX_LEN, Pattern, SpokeRule, ZoneClass,
    chunk_rng, classify, classify_grid, hubs_in_chunk, layout_in, planar_region,
};

const PATTERNS: [Pattern; 4] = [
    Pattern::Grid,
    Pattern::Zigzag,
    Pattern::Rings,
    Pattern::Chaotic,
];
const SEEDS: [u32; 4] = [0, 42, 12345, u32::MAX];

fn cfg(pattern: Pattern, spokes: SpokeRule, seed: u32) -> LayoutConfig {
    let cfg = LayoutConfig {
        pattern,
        spokes,
        chunk_size: 2000.0,
        cell_size: 64.0,
        seed,
    };
    assert_eq!(cfg.validate(), Ok(()));
    cfg
}

fn area(min_x: f64, min_z: f64, max_x: f64, max_z: f64) -> Area {
    Area::new(min_x, min_z, max_x, max_z).expect("valid test area")
}

#[test]
fn prng_matches_reference_sequences() {
    let cases: [(u32, i64, i64, [f64; 4]); 3] = [
        (
            0,
            0,
            0,
            [
                0.266429208685,
                0.000329745701,
                0.223272027448,
                0.146202147938,
            ],
        ),
        (
            42,
            3,
            -2,
            [
                0.248785022413,
                0.018411457306,
                0.929933244828,
                0.293036984280,
            ],
        ),
        (
            12345,
            -7,
            11,
            [
                0.974008283811,
                0.833860859973,
                0.480275803013,
                0.116527047707,
            ],
        ),
    ];
    for (seed, cx, cz, want) in cases {
        let mut rng = chunk_rng(seed, cx, cz);
        for w in want {
            let got = rng.next_f64();
            assert!(
                (got - w).abs() < 1e-12,
                "seed {seed} ({cx},{cz}): {got} vs {w}"
            );
        }
    }
}

fn sample_chunks() -> Vec<(i64, i64)> {
    let mut chunks: Vec<(i64, i64)> = (-4..4).flat_map(|x| (-4..4).map(move |z| (x, z))).collect();
    chunks.extend([(1_000_000, -3), (-50_000_000, 60_000_000), (7, -1_234_567)]);
    chunks
}

#[test]
fn every_pattern_keeps_hubs_inside_their_chunk_and_apart() {
    for pattern in PATTERNS {
        for seed in SEEDS {
            let cfg = cfg(pattern, SpokeRule::Planar, seed);
            let s = cfg.chunk_size;
            for (cx, cz) in sample_chunks() {
                let hubs = hubs_in_chunk(&cfg, cx, cz);
                assert!(!hubs.is_empty(), "{pattern:?} ({cx},{cz}) has no hub");
                let (x0, z0) = (cx as f64 * s, cz as f64 * s);
                for (i, h) in hubs.iter().enumerate() {
                    assert_eq!(h.id, format!("{cx},{cz}:{i}"));
                    assert!(h.r > 0.0);
                    assert!(h.x - h.r >= x0 && h.x + h.r <= x0 + s, "{pattern:?} {h:?}");
                    assert!(h.z - h.r >= z0 && h.z + h.r <= z0 + s, "{pattern:?} {h:?}");
                    for o in &hubs[i + 1..] {
                        let d = ((h.x - o.x).powi(2) + (h.z - o.z).powi(2)).sqrt();
                        assert!(d >= h.r + o.r, "{pattern:?} {} overlaps {}", h.id, o.id);
                    }
                }
                match pattern {
                    Pattern::Grid | Pattern::Zigzag => assert_eq!(hubs.len(), 1),
                    Pattern::Rings => assert!((4..=20).contains(&hubs.len())),
                    Pattern::Chaotic => assert!((1..=4).contains(&hubs.len())),
                }
            }
        }
    }
}

/// Proper crossing: each segment strictly separates the other's ends.
fn properly_cross(p1: (f64, f64), p2: (f64, f64), q1: (f64, f64), q2: (f64, f64)) -> bool {
    let orient = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let (d1, d2) = (orient(q1, q2, p1), orient(q1, q2, p2));
    let (d3, d4) = (orient(p1, p2, q1), orient(p1, p2, q2));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

fn assert_no_crossings(layout: &Layout, what: &str) {
    let spokes = &layout.spokes;
    for (i, s) in spokes.iter().enumerate() {
        for t in &spokes[i + 1..] {
            let shared = s.a == t.a || s.a == t.b || s.b == t.a || s.b == t.b;
            if !shared {
                assert!(
                    !properly_cross(s.a_at, s.b_at, t.a_at, t.b_at),
                    "{what}: {}-{} crosses {}-{}",
                    s.a,
                    s.b,
                    t.a,
                    t.b
                );
            }
        }
    }
}

#[test]
fn planar_spokes_never_cross_inside_or_across_regions() {
    for pattern in PATTERNS {
        for seed in [0, 42, 777] {
            let cfg = cfg(pattern, SpokeRule::Planar, seed);
            // Chunks -5..=5 span regions -2..=1 on both axes: borders at 0 and +-4.
            let layout =
                layout_in(&cfg, &area(-9000.0, -9000.0, 11_999.0, 11_999.0)).expect("layout");
            assert!(
                layout.spokes.len() >= layout.hubs.len(),
                "{pattern:?} too few spokes"
            );
            assert_no_crossings(&layout, &format!("{pattern:?} seed {seed}"));
            let crossing_border = layout
                .spokes
                .iter()
                .filter(|s| (s.a_at.0 < 0.0) != (s.b_at.0 < 0.0))
                .count();
            assert!(
                crossing_border > 0,
                "{pattern:?}: no spoke joins regions across x = 0"
            );
        }
    }
}

#[test]
fn planar_region_graph_is_maximal() {
    for pattern in PATTERNS {
        for (seed, rx, rz) in [(0, 0, 0), (42, -1, 2), (12345, 3, -5)] {
            let cfg = cfg(pattern, SpokeRule::Planar, seed);
            let g = planar_region(&cfg, rx, rz);
            let limit = PLANAR_MAX_LEN * cfg.chunk_size;
            let at = |i: usize| (g.hubs[i].x, g.hubs[i].z);
            let kept: BTreeSet<(usize, usize)> = g.edges.iter().copied().collect();
            assert_eq!(kept.len(), g.edges.len(), "duplicate edges");
            for i in 0..g.hubs.len() {
                for j in i + 1..g.hubs.len() {
                    let len = ((at(i).0 - at(j).0).powi(2) + (at(i).1 - at(j).1).powi(2)).sqrt();
                    if kept.contains(&(i, j)) {
                        assert!(len <= limit * (1.0 + 1e-12));
                        continue;
                    }
                    if len > limit {
                        continue;
                    }
                    let blocked = g.edges.iter().any(|&(a, b)| {
                        ![a, b].contains(&i)
                            && ![a, b].contains(&j)
                            && segments_meet(at(i), at(j), at(a), at(b))
                    });
                    assert!(blocked, "{pattern:?}: {i}-{j} could be added");
                }
            }
        }
    }
}

/// Any contact between closed segments (the rule the builder uses to refuse an edge).
fn segments_meet(p1: (f64, f64), p2: (f64, f64), q1: (f64, f64), q2: (f64, f64)) -> bool {
    let orient = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let (d1, d2) = (orient(q1, q2, p1), orient(q1, q2, p2));
    let (d3, d4) = (orient(p1, p2, q1), orient(p1, p2, q2));
    (d1 * d2 <= 0.0 && d3 * d4 <= 0.0) && !(d1 == 0.0 && d2 == 0.0 && d3 == 0.0 && d4 == 0.0)
        || properly_cross(p1, p2, q1, q2)
}

fn chunk_of_id(id: &str) -> (i64, i64) {
    let (chunk, _) = id.split_once(':').expect("hub id has ':'");
    let (x, z) = chunk.split_once(',').expect("hub id has ','");
    (x.parse().expect("cx"), z.parse().expect("cz"))
}

#[test]
fn grid_spokes_join_orthogonal_neighbours_only() {
    for seed in SEEDS {
        let cfg = cfg(Pattern::Grid, SpokeRule::Grid, seed);
        let layout = layout_in(&cfg, &area(-6000.0, -4000.0, 5999.0, 3999.0)).expect("layout");
        for s in &layout.spokes {
            let (a, b) = (chunk_of_id(&s.a), chunk_of_id(&s.b));
            let step = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
            assert!(step == (1, 0) || step == (0, 1), "{} - {}", s.a, s.b);
        }
        // One hub per chunk: each hub of the area meets its four neighbours.
        for h in &layout.hubs {
            let degree = layout
                .spokes
                .iter()
                .filter(|s| s.a == h.id || s.b == h.id)
                .count();
            assert_eq!(degree, 4, "hub {}", h.id);
        }
        assert_no_crossings(&layout, "grid pattern, grid spokes");
    }
    // Multi-hub chunks: still exactly one spoke per adjacent chunk pair.
    let cfg = cfg(Pattern::Rings, SpokeRule::Grid, 5);
    let layout = layout_in(&cfg, &area(0.0, 0.0, 1999.0, 1999.0)).expect("layout");
    assert_eq!(layout.spokes.len(), 4);
}

type Bits = (
    Vec<(String, u64, u64, u64)>,
    Vec<(String, String, [u64; 4])>,
);

fn bits(layout: &Layout) -> Bits {
    let hubs = layout
        .hubs
        .iter()
        .map(|h: &Hub| (h.id.clone(), h.x.to_bits(), h.z.to_bits(), h.r.to_bits()));
    let spokes = layout.spokes.iter().map(|s| {
        let p = [s.a_at.0, s.a_at.1, s.b_at.0, s.b_at.1].map(f64::to_bits);
        (s.a.clone(), s.b.clone(), p)
    });
    (hubs.collect(), spokes.collect())
}

/// The union of several layouts, deduplicated and sorted like `layout_in`'s output.
fn union(parts: &[Layout]) -> Bits {
    let mut hubs = BTreeSet::new();
    let mut spokes = BTreeSet::new();
    for p in parts {
        let (h, s) = bits(p);
        hubs.extend(h);
        spokes.extend(s);
    }
    (hubs.into_iter().collect(), spokes.into_iter().collect())
}

/// Sorts [`Bits`] by id strings so it compares with [`union`] (which sorts by string).
fn sorted(mut b: Bits) -> Bits {
    b.0.sort();
    b.1.sort();
    b
}

#[test]
fn layout_is_the_same_whatever_the_order_thread_or_history() {
    for (pattern, rule) in [
        (Pattern::Grid, SpokeRule::Grid),
        (Pattern::Zigzag, SpokeRule::Planar),
        (Pattern::Rings, SpokeRule::Planar),
        (Pattern::Chaotic, SpokeRule::Planar),
    ] {
        let cfg = cfg(pattern, rule, 4242);
        let (x0, z0, x1, z1) = (-7_300.0, -5_100.0, 9_700.0, 8_900.0);
        let direct = layout_in(&cfg, &area(x0, z0, x1, z1)).expect("direct");
        // Pieces that do not align with chunks or regions.
        let xs = [x0, -2_345.6, 1_000.0, 4_321.0, x1];
        let zs = [z0, -17.5, 3_999.9, z1];
        let mut pieces = Vec::new();
        for w in xs.windows(2) {
            for v in zs.windows(2) {
                pieces.push(area(w[0], v[0], w[1], v[1]));
            }
        }
        let mut rng = Mulberry32::new(99);
        for round in 0..3 {
            let mut order: Vec<usize> = (0..pieces.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, (rng.next_f64() * (i + 1) as f64) as usize);
            }
            let parts: Vec<Layout> = order
                .iter()
                .map(|&i| layout_in(&cfg, &pieces[i]).expect("piece"))
                .collect();
            assert_eq!(
                union(&parts),
                sorted(bits(&direct)),
                "{pattern:?} round {round}"
            );
        }
        // Pieces built concurrently, in reverse, after visiting far-away land.
        layout_in(&cfg, &area(1e8, 1e8, 1e8 + 500.0, 1e8 + 500.0)).expect("far away");
        let parts: Vec<Layout> = std::thread::scope(|s| {
            let handles: Vec<_> = pieces
                .iter()
                .rev()
                .map(|p| s.spawn(|| layout_in(&cfg, p).expect("threaded piece")))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        });
        assert_eq!(union(&parts), sorted(bits(&direct)), "{pattern:?} threaded");
        let again = layout_in(&cfg, &area(x0, z0, x1, z1)).expect("again");
        assert_eq!(bits(&again), bits(&direct));
    }
}

#[test]
fn classification_marks_hubs_spokes_and_wilds() {
    for pattern in PATTERNS {
        let cfg = cfg(pattern, SpokeRule::default_for(pattern), 8);
        let layout = layout_in(&cfg, &area(0.0, 0.0, 3999.0, 3999.0)).expect("layout");
        for h in layout
            .hubs
            .iter()
            .filter(|h| h.chunk.0 >= 0 && h.chunk.1 >= 0)
            .take(6)
        {
            assert_eq!(classify(&cfg, h.x, h.z), Ok(ZoneClass::Hub(h.id.clone())));
            let out = classify(&cfg, h.x + h.r * 1.0001, h.z).expect("classify");
            assert_ne!(out, ZoneClass::Hub(h.id.clone()));
        }
        let grid = classify_grid(&cfg, &area(-1000.0, -1000.0, 1000.0, 1000.0)).expect("grid");
        assert_eq!(grid.cells.len(), grid.cols * grid.rows);
        let mut seen = [0usize; 3];
        for j in 0..grid.rows {
            for i in 0..grid.cols {
                let cx = (grid.col0 + i as i64) as f64 * grid.cell_size + grid.cell_size / 2.0;
                let cz = (grid.row0 + j as i64) as f64 * grid.cell_size + grid.cell_size / 2.0;
                let cell = &grid.cells[j * grid.cols + i];
                if i % 5 == 0 && j % 5 == 0 {
                    assert_eq!(Ok(cell.clone()), classify(&cfg, cx, cz), "cell ({i},{j})");
                }
                seen[match cell {
                    ZoneClass::Hub(_) => 0,
                    ZoneClass::Spoke => 1,
                    ZoneClass::Wilds => 2,
                }] += 1;
            }
        }
        assert!(
            seen.iter().all(|&n| n > 0),
            "{pattern:?}: classes seen {seen:?}"
        );
    }
}

#[test]
fn bad_configs_and_queries_name_the_field() {
    let good = cfg(Pattern::Grid, SpokeRule::Grid, 1);
    let bad = |f: fn(&mut LayoutConfig)| {
        let mut c = good;
        f(&mut c);
        c.validate().expect_err("must be refused").to_string()
    };
    assert!(bad(|c| c.chunk_size = 0.0).starts_with("chunk_size"));
    assert!(bad(|c| c.chunk_size = f64::NAN).starts_with("chunk_size"));
    assert!(bad(|c| c.cell_size = -1.0).starts_with("cell_size"));
    assert!(bad(|c| c.cell_size = 4000.0).starts_with("cell_size"));
    let err = |e: terrain_core::layout::LayoutError| e.to_string();
    assert!(err(Area::new(5.0, 0.0, 1.0, 1.0).expect_err("inverted")).starts_with("bounds"));
    assert!(err(Area::new(f64::INFINITY, 0.0, 1.0, 1.0).expect_err("inf")).starts_with("bounds"));
    let huge = layout_in(&good, &area(0.0, 0.0, 1e7, 1e7)).expect_err("too many chunks");
    assert!(err(huge).starts_with("bounds"));
    let far = layout_in(&good, &area(1e15, 0.0, 1e15, 1.0)).expect_err("out of world");
    assert!(err(far).starts_with("bounds"));
    let cells = classify_grid(&good, &area(0.0, 0.0, 1e6, 1e6)).expect_err("too many cells");
    assert!(err(cells).starts_with("bounds"));
}
