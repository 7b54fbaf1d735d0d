//! Hyperscape vertex colours and biome ids against the original terrain worker
//! (`data/hyperscape/colours/`, produced by running its code under Node 20): every
//! vertex of tiles (0, 0), (1, -1) and (3, 0) of seed 0, bit for bit in f32, with the
//! boundary noise and top-three influences of the sampled vertices.

use serde_json::Value;
use terrain_core::{
    Generator,
    generator::hyperscape::{Hyperscape, colours::BIOME_NAMES, tile::worker_coord},
};

const TABLE: &str = include_str!("data/hyperscape/colours/ref_seed0.csv");
const DEBUG: &str = include_str!("data/hyperscape/colours/debug_seed0.json");

struct Row {
    tile: (i64, i64),
    ix: i64,
    iz: i64,
    x: f64,
    z: f64,
    height: f32,
    biome: u8,
    rgb: [f32; 3],
}

fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |k: usize| f[k].parse::<f64>().unwrap();
            Row {
                tile: (f[0].parse().unwrap(), f[1].parse().unwrap()),
                ix: f[2].parse().unwrap(),
                iz: f[3].parse().unwrap(),
                x: num(4),
                z: num(5),
                height: num(6) as f32,
                biome: f[7].parse().unwrap(),
                rgb: [num(8) as f32, num(9) as f32, num(10) as f32],
            }
        })
        .collect()
}

#[test]
fn every_vertex_colour_and_biome_matches_the_worker_bit_for_bit() {
    let generator = Hyperscape::new(0);
    let colours = generator.colours();
    let rows = rows();
    assert_eq!(rows.len(), 3 * 64 * 64);
    let mut mismatched = Vec::new();
    for r in &rows {
        // The worker's vertex coordinates and f32 heights are ours.
        assert_eq!(r.x.to_bits(), worker_coord(r.tile.0, r.ix).to_bits());
        assert_eq!(r.z.to_bits(), worker_coord(r.tile.1, r.iz).to_bits());
        assert_eq!(
            (generator.height(r.x, r.z) as f32).to_bits(),
            r.height.to_bits(),
            "height at {:?} ({}, {})",
            r.tile,
            r.ix,
            r.iz
        );
        let got = colours.at(generator.noise(), r.x, r.z, r.height);
        let same = got.biome == r.biome
            && got
                .rgb
                .iter()
                .zip(&r.rgb)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if !same {
            mismatched.push((r.tile, r.ix, r.iz, got, r.biome, r.rgb));
        }
    }
    assert!(
        mismatched.is_empty(),
        "{} of {} vertices differ, first: {:?}",
        mismatched.len(),
        rows.len(),
        mismatched.first()
    );
}

#[test]
fn sampled_influences_and_boundary_noise_match_the_worker() {
    let generator = Hyperscape::new(0);
    let colours = generator.colours();
    let debug: Value = serde_json::from_str(DEBUG).unwrap();
    let samples = debug["samples"].as_array().unwrap();
    assert!(samples.len() >= 48, "{}", samples.len());
    for s in samples {
        let (x, z) = (s["x"].as_f64().unwrap(), s["z"].as_f64().unwrap());
        let height = s["height_f32"].as_f64().unwrap() as f32;
        let bn = generator.noise().simplex(x * 0.003, z * 0.003);
        assert_eq!(
            bn.to_bits(),
            s["boundaryNoise"].as_f64().unwrap().to_bits(),
            "{s}"
        );
        let nh = f64::from(height) / 50.0;
        assert_eq!(
            nh.to_bits(),
            s["normalizedHeight"].as_f64().unwrap().to_bits()
        );
        let got = colours.influences(generator.noise(), x, z, height);
        let want = s["top3Influences"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{s}");
        for ((biome, weight), w) in got.iter().zip(want) {
            assert_eq!(biome.as_str(), w["type"].as_str().unwrap(), "{s}");
            assert_eq!(
                weight.to_bits(),
                w["weight"].as_f64().unwrap().to_bits(),
                "{s}"
            );
        }
    }
}

#[test]
fn the_colour_table_is_the_one_passed_to_the_worker() {
    let debug: Value = serde_json::from_str(DEBUG).unwrap();
    let table = &debug["biomeDataPassedToWorker"];
    for (id, name) in BIOME_NAMES.iter().enumerate() {
        let colour = &table[*name]["color"];
        assert!(colour.is_object(), "{name}");
        let got = terrain_core::generator::hyperscape::colours::colour_of(id as u8);
        for (k, channel) in ["r", "g", "b"].into_iter().enumerate() {
            assert_eq!(
                got[k].to_bits(),
                colour[channel].as_f64().unwrap().to_bits(),
                "{name}.{channel}"
            );
        }
    }
}
