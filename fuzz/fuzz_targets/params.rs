//! Query strings and path segments of the GET routes, through the server's own
//! decoders: the heightmap query (first byte 0) through to its validated grid, the
//! height query with its `mode` (1), tile and chunk path indices (2), map tile paths
//! `{z}/{x}/{y}.png` (3), and the blocks route's `format` with `Accept` (4).
//!
//! Properties: a refusal names one of the route's parameters; a decoded request,
//! written back as a query string or path, decodes to the same values (floats bit for
//! bit); a validated heightmap grid keeps the request's origin, step and counts.

#![no_main]

use axum::http::{HeaderMap, HeaderValue, Uri, header::ACCEPT};
use libfuzzer_sys::fuzz_target;
use terrain_fuzz::{named_one_of, same, select, text_parts};
use terrain_model::HeightMode;
use terrain_server::{
    ApiError, Limits,
    api::{
        http::{
            blocks::BlocksFormat,
            extract::{Query, path_indices},
            map::map_tile_of,
        },
        mode,
    },
    query::{HeightmapRequest, heightmap_grid},
};

fuzz_target!(|data: &[u8]| {
    let Some((choice, rest)) = select(data, 5) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match choice {
        0 => heightmap(text),
        1 => height(text),
        2 => indices(text),
        3 => map_tile(text),
        _ => blocks(text),
    }
});

/// The query of `/path?{query}`, as axum decodes it; `None` when hyper would not
/// accept the request target at all.
fn pairs(query: &str) -> Option<Query> {
    let uri = Uri::try_from(format!("/v1/worlds/main/route?{query}")).ok()?;
    Some(Query::from_uri(&uri))
}

fn decode_heightmap(query: &str) -> Option<Result<HeightmapRequest, ApiError>> {
    let decode = |p: Query| -> Result<HeightmapRequest, ApiError> {
        Ok(HeightmapRequest {
            x0: p.number("x0")?,
            z0: p.number("z0")?,
            step: p.number("step")?,
            nx: p.count("nx")?,
            nz: p.count("nz")?,
        })
    };
    Some(decode(pairs(query)?))
}

fn heightmap(query: &str) {
    let fields = ["query", "x0", "z0", "step", "nx", "nz", "nx*nz", "grid"];
    let Some(decoded) = decode_heightmap(query) else {
        return;
    };
    let req = match decoded {
        Ok(req) => req,
        Err(err) => return named_one_of(&err, &fields, &query),
    };
    let again = format!(
        "x0={}&z0={}&step={}&nx={}&nz={}",
        req.x0, req.z0, req.step, req.nx, req.nz
    );
    let back = decode_heightmap(&again)
        .expect("a written query is a valid URI")
        .expect("a written query decodes");
    assert!(
        same(back.x0, req.x0) && same(back.z0, req.z0) && same(back.step, req.step),
        "heightmap query round trip: {req:?} -> {again} -> {back:?}"
    );
    assert_eq!((back.nx, back.nz), (req.nx, req.nz));
    let limits = Limits {
        max_heightmap_samples: 4096,
        ..Limits::default()
    };
    match heightmap_grid(&req, &limits) {
        Ok(grid) => {
            assert!(same(grid.x0, req.x0) && same(grid.z0, req.z0) && same(grid.step, req.step));
            assert_eq!((grid.nx as u64, grid.nz as u64), (req.nx, req.nz));
            assert!(grid.nx * grid.nz <= 4096);
        }
        Err(err) => named_one_of(&ApiError::from(err), &fields, &req),
    }
}

fn height(query: &str) {
    let Some(query_pairs) = pairs(query) else {
        return;
    };
    let decoded = query_pairs
        .at_most_once("mode")
        .and_then(mode::from_query)
        .and_then(|mode| Ok((query_pairs.number("x")?, query_pairs.number("z")?, mode)));
    let (x, z, mode) = match decoded {
        Ok(d) => d,
        Err(err) => return named_one_of(&err, &["query", "x", "z", "mode"], &query),
    };
    let again = format!("x={x}&z={z}&mode={}", mode.as_str());
    let back = pairs(&again).expect("a written query is a valid URI");
    let back_mode: HeightMode = back
        .at_most_once("mode")
        .and_then(mode::from_query)
        .expect("written mode decodes");
    let (bx, bz) = (back.number("x").expect("x"), back.number("z").expect("z"));
    assert!(
        same(bx, x) && same(bz, z) && back_mode == mode,
        "{query:?} -> {again}"
    );
}

fn indices(path: &str) {
    let Some([x, z]) = text_parts(path.as_bytes(), 2).and_then(|p| <[&str; 2]>::try_from(p).ok())
    else {
        return;
    };
    for (fields, what) in [(["tx", "tz"], "tile"), (["cx", "cz"], "chunk")] {
        match path_indices([x, z], fields, what) {
            Ok((ix, iz)) => {
                let back = path_indices([&ix.to_string(), &iz.to_string()], fields, what);
                assert_eq!(back.ok(), Some((ix, iz)), "{x:?}/{z:?}");
            }
            Err(err) => named_one_of(&err, &fields, &(x, z)),
        }
    }
}

fn map_tile(path: &str) {
    let Some([z, x, file]) =
        text_parts(path.as_bytes(), 3).and_then(|p| <[&str; 3]>::try_from(p).ok())
    else {
        return;
    };
    let max = Limits::default().max_coordinate;
    match map_tile_of(z, x, file, max) {
        Ok(tile) => {
            let (z2, x2, file2) = (
                tile.zoom.to_string(),
                tile.x.to_string(),
                format!("{}.png", tile.y),
            );
            let back = map_tile_of(&z2, &x2, &file2, max).expect("a written map tile decodes");
            assert_eq!((back.zoom, back.x, back.y), (tile.zoom, tile.x, tile.y));
        }
        Err(err) => named_one_of(&err, &["z", "x", "y"], &(z, x, file)),
    }
}

fn blocks(text: &str) {
    let Some([query, accept]) =
        text_parts(text.as_bytes(), 2).and_then(|p| <[&str; 2]>::try_from(p).ok())
    else {
        return;
    };
    let Some(query_pairs) = pairs(query) else {
        return;
    };
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(accept) {
        headers.insert(ACCEPT, value);
    }
    match BlocksFormat::of(&query_pairs, &headers) {
        Ok(format) => {
            let name = match format {
                BlocksFormat::Json => "json",
                BlocksFormat::Binary => "binary",
            };
            let back = pairs(&format!("format={name}")).expect("valid URI");
            assert_eq!(
                BlocksFormat::of(&back, &HeaderMap::new()).ok(),
                Some(format)
            );
        }
        Err(err) => named_one_of(&err, &["query", "format"], &(query, accept)),
    }
}
