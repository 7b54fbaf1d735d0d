//! The live map: map tiles, their legend, and the page that shows them.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/map/{z}/{x}/{y}.png` | a 256 x 256 PNG, hill-shaded and coloured as the game colours the world (projection: [`crate::map::render`]); with `?layer=walk`, the walkability layer: an RGBA PNG, transparent where walkable, shaded by reason elsewhere ([`crate::map::walk`]) |
//! | `GET /v1/worlds/{world}/map/legend` | `{"generator", "minZoom", "maxZoom", "tilePixels", "metresPerPixelAtZoom0", "waterThreshold", "tileGrid": {"size", "resolution", "centred"}, "entries": [{"label", "rgb"}], "walk": {"rule", "entries": [{"reason", "label", "rgba"}]}}` |
//! | `GET /v1/worlds/{world}/map/viewers` | `{"sequence", "viewers": [{"id", "x", "z", "viewWidth", "viewDepth", "rings": {"sim", "spawn", "active"}}]}`, each ring `[minTx, minTz, maxTx, maxTz]` (inclusive), by id |
//! | `GET /map`, `GET /map/{world}` | the map page (a world picker, one world's map): [`super::map_page`] |
//! | `GET /map/assets/{path}` | the page's script, style and vendored libraries, embedded in the binary: [`super::map_page`] |
//!
//! Map tiles send `ETag: "<world>:map1:<z>:<x>:<y>:<digest>"` (`walk1` for the walk
//! layer), the digest being that of
//! the PNG (so the tag changes exactly when the bytes do), and `Cache-Control:
//! no-cache` (keep it, ask again); a request whose `If-None-Match` lists the current
//! tag gets `304 Not Modified` (rendering only when a mesh tile the map tile reads
//! changed since the cached PNG). The query's `layer` (`terrain`, the default, or
//! `walk`) picks the layer; other query parameters are ignored (the page
//! adds one to re-request a changed tile past the browser's cache). Bad input is the
//! JSON error naming `z`, `x`, `y` or `layer`; an unknown world names `world`.

use std::sync::Arc;

use terrain_core::quote::Quoted;

use axum::{
    Extension, Json,
    extract::{
        FromRequestParts, Path, Query, State,
        rejection::{PathRejection, QueryRejection},
    },
    http::{
        HeaderMap, HeaderValue,
        header::{CACHE_CONTROL, CONTENT_TYPE, ETAG},
        request::Parts,
    },
    response::{IntoResponse, Response},
};
use serde::{Deserialize, Serialize};

use super::{
    CACHE_HEADER, REVISION_HEADER,
    conditional::{etag, not_modified},
    extract,
};
use crate::{
    api::{ApiError, ApiState},
    lifecycle::rings::TileRect,
    map::{
        Layer, MAP_CACHE_BYTES, MAX_ZOOM, MIN_ZOOM, MapCache, MapTile, TILE_PIXELS, palette, walk,
    },
};

/// The map tile cache of one server, shared by the map routes.
pub fn cache(state: &ApiState) -> Arc<MapCache> {
    Arc::new(MapCache::new(
        MAP_CACHE_BYTES,
        state.engine.compute().clone(),
    ))
}

/// `/v1/worlds/{world}/map/{z}/{x}/{y}.png`: the world and the map tile, checked
/// against the server's `max_coordinate`; errors name `z`, `x` or `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct MapPath {
    pub world: String,
    pub tile: MapTile,
}

impl FromRequestParts<Arc<ApiState>> for MapPath {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<ApiState>,
    ) -> Result<Self, ApiError> {
        let path = Path::<(String, String, String, String)>::from_request_parts(parts, state).await;
        let (world, tile) = tile_path(path, state.engine.limits().max_coordinate)?;
        Ok(MapPath { world, tile })
    }
}

/// The world and map tile of a tile path; errors name `z`, `x` or `y`.
fn tile_path(
    path: Result<Path<(String, String, String, String)>, PathRejection>,
    max_coordinate: f64,
) -> Result<(String, MapTile), ApiError> {
    let Path((world, z, x, file)) =
        path.map_err(|rejection| ApiError::invalid("path", rejection.body_text()))?;
    Ok((world, map_tile_of(&z, &x, &file, max_coordinate)?))
}

/// The map tile of the decoded path segments `{z}/{x}/{file}` (`file` is `<y>.png`),
/// checked against `max_coordinate`; errors name `z`, `x` or `y`.
pub fn map_tile_of(z: &str, x: &str, file: &str, max_coordinate: f64) -> Result<MapTile, ApiError> {
    let int = |field: &'static str, raw: &str| {
        raw.parse::<i64>().map_err(|_| {
            ApiError::invalid(field, format!("expected an integer, got {}", Quoted(raw)))
        })
    };
    let y = file
        .strip_suffix(".png")
        .ok_or_else(|| ApiError::invalid("y", format!("expected <y>.png, got {file:?}")))?;
    Ok(MapTile::checked(
        int("z", z)?,
        int("x", x)?,
        int("y", y)?,
        max_coordinate,
    )?)
}

/// The strong validator of `tile` of `layer` of `world` rendered to a PNG whose
/// [`crate::map::digest`] is `digest`: the tag follows the pixels.
fn map_etag(world: &str, layer: Layer, tile: MapTile, digest: u64) -> HeaderValue {
    let digest = format!("{digest:016x}");
    let rendering = layer.rendering();
    etag(&[&world, &rendering, &tile.zoom, &tile.x, &tile.y, &digest])
}

/// The query of a map tile: the layer; `r`, the page's cache buster, is ignored (any
/// other key is refused before the handler: [`super::query_keys`]).
#[derive(Debug, Deserialize)]
pub struct MapQuery {
    layer: Option<String>,
}

/// The layer a map tile's query names (`terrain` without one); errors name `layer`.
pub fn layer_of(query: Result<Query<MapQuery>, QueryRejection>) -> Result<Layer, ApiError> {
    let Query(query) = query.map_err(|r| ApiError::invalid("layer", r.body_text()))?;
    match query.layer.as_deref() {
        None => Ok(Layer::Terrain),
        Some(name) => Layer::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
            ApiError::invalid(
                "layer",
                format!("expected one of {}, got {}", names.join(", "), Quoted(name)),
            )
        }),
    }
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/map/{z}/{x}/{file}",
    tag = "map",
    description = "A 256 x 256 PNG map tile (slippy-map `z/x/y` addressing), hill-shaded and coloured \
        as the game colours the world; with `layer=walk`, the walkability layer: an RGBA PNG, \
        transparent where the world's walkability rule lets an entity stand at the pixel's centre, \
        elsewhere the legend's colour of the reason (`walk.entries`). `Cache-Control: no-cache`; \
        query parameters other than `layer` are ignored.",
    params(
        ("z" = i64, Path, description = "Zoom level, `minZoom` to `maxZoom` of the legend"),
        ("x" = i64, Path, description = "Column, 0 to 2^z - 1"),
        ("file" = String, Path, description = "`<y>.png`: the row, 0 to 2^z - 1", example = "0.png"),
        ("layer" = Option<String>, Query, description = "`terrain` (the default) or `walk`"),
        ("r" = Option<String>, Query, description = "Ignored: a cache buster (the map page bumps it when an event touches the tile)"),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds"),
    ),
    responses(
        (status = 200, description = "The PNG",
            headers(
                ("ETag" = String, description = "`\"<world>:map1:<z>:<x>:<y>:<digest>\"` (`walk1` for the walk layer): the digest of the PNG"),
                ("x-terrain-revision" = u64, description = "The world revision served"),
                ("x-terrain-cache" = String, description = "`hit` or `miss`"),
                ("Cache-Control" = String),
            ),
            content((crate::api::http::openapi::schemas::Bytes = "image/png")),
        ),
        (status = 304, description = "The client holds the current PNG",
            headers(("ETag" = String), ("x-terrain-revision" = u64), ("Cache-Control" = String))),
        (status = 400, description = "A malformed or out-of-range `z`, `x` or `y`, or an unknown `layer` (the field names it)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn map_tile(
    State(state): State<Arc<ApiState>>,
    Extension(cache): Extension<Arc<MapCache>>,
    MapPath { world, tile }: MapPath,
    query: Result<Query<MapQuery>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let layer = layer_of(query)?;
    let engine = &state.engine;
    let world = engine.world(&world)?;
    // The world's own range (a voxel world's is narrower than the server's).
    let tile = MapTile::checked(i64::from(tile.zoom), tile.x, tile.y, world.max_coordinate())?;
    // The tag is the current PNG's digest: cached at the current version, or rendered
    // now (a change to a mesh tile this one reads may leave its pixels as they were).
    let served = cache.get(world, tile, layer).await?;
    let tag = map_etag(world.id(), layer, tile, served.png.digest);
    let no_cache = HeaderValue::from_static("no-cache");
    let extra = Some((CACHE_CONTROL, no_cache.clone()));
    if let Some(response) = not_modified(&headers, &tag, served.revision, extra) {
        return Ok(response);
    }
    let hit = HeaderValue::from_static(if served.cached { "hit" } else { "miss" });
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static("image/png")),
        (ETAG, tag),
        (REVISION_HEADER, served.revision.into()),
        (CACHE_HEADER, hit),
        (CACHE_CONTROL, no_cache),
    ];
    Ok((head, served.png.png.clone()).into_response())
}

/// The legend of a world's map.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LegendBody {
    generator: &'static str,
    min_zoom: u8,
    max_zoom: u8,
    tile_pixels: usize,
    metres_per_pixel_at_zoom0: f64,
    water_threshold: Option<f64>,
    tile_grid: TileGridBody,
    entries: Vec<LegendEntryBody>,
    walk: WalkLegendBody,
}

/// The legend of the walk layer (`layer=walk`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WalkLegendBody {
    /// The world's walkability rule (`hyperscape`, `slope`, `max-slope`, `block-step`).
    rule: &'static str,
    /// The shadings the rule can draw, one per `reason` of terrain info (and `step`,
    /// under `block-step`); walkable ground is transparent.
    entries: Vec<WalkLegendEntryBody>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WalkLegendEntryBody {
    /// `water`, `slope`, `zone` or `step`.
    reason: &'static str,
    label: String,
    /// Straight-alpha RGBA, exactly the layer's pixels.
    rgba: [u8; 4],
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TileGridBody {
    size: f64,
    resolution: u32,
    centred: bool,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LegendEntryBody {
    label: String,
    rgb: [u8; 3],
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/map/legend",
    tag = "map",
    responses(
        (status = 200, description = "What the map's colours mean, and its zoom range", body = LegendBody),
        (status = 400, description = "A malformed world (field `world`)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn legend(
    State(state): State<Arc<ApiState>>,
    extract::World(world): extract::World,
) -> Result<Json<LegendBody>, ApiError> {
    let world = state.engine.world(&world)?;
    let s = world.snapshot();
    let palette = palette::Palette::of(s.terrain());
    let water_threshold = match palette {
        palette::Palette::Hyperscape { .. } => Some(palette::WATER_THRESHOLD),
        palette::Palette::Voxel { sea_level, .. } => Some(sea_level),
        palette::Palette::Osrs => None,
    };
    let entries = palette
        .legend()
        .into_iter()
        .map(|e| LegendEntryBody {
            label: e.label,
            rgb: e.rgb,
        })
        .collect();
    Ok(Json(LegendBody {
        generator: world.kind().as_str(),
        min_zoom: MIN_ZOOM,
        max_zoom: MAX_ZOOM,
        tile_pixels: TILE_PIXELS,
        metres_per_pixel_at_zoom0: crate::map::render::metres_per_pixel(MIN_ZOOM),
        water_threshold,
        tile_grid: {
            let g = world.tile_grid();
            TileGridBody {
                size: g.size,
                resolution: g.resolution,
                centred: g.centred,
            }
        },
        entries,
        walk: WalkLegendBody {
            rule: world.walk_rule().name(),
            entries: walk::legend(world.walk_rule())
                .into_iter()
                .map(|e| WalkLegendEntryBody {
                    reason: e.reason,
                    label: e.label,
                    rgba: e.rgba,
                })
                .collect(),
        },
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ViewersBody {
    sequence: u64,
    viewers: Vec<ViewerBody>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewerBody {
    id: String,
    x: f64,
    z: f64,
    view_width: f64,
    view_depth: f64,
    rings: RingsBody,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RingsBody {
    sim: [i64; 4],
    spawn: [i64; 4],
    active: [i64; 4],
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/map/viewers",
    tag = "map",
    responses(
        (status = 200, description = "Every viewer with its rings (`[minTx, minTz, maxTx, maxTz]`, inclusive), by id", body = ViewersBody),
        (status = 400, description = "A malformed world (field `world`)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn viewers(
    State(state): State<Arc<ApiState>>,
    extract::World(world): extract::World,
) -> Result<Json<ViewersBody>, ApiError> {
    let (sequence, list) = state.lifecycle(&world)?.viewers();
    let rect = |r: &TileRect| [r.x0, r.z0, r.x1, r.z1];
    let viewers = list
        .into_iter()
        .map(|(v, rings)| ViewerBody {
            id: v.id,
            x: v.x,
            z: v.z,
            view_width: v.view_width,
            view_depth: v.view_depth,
            rings: RingsBody {
                sim: rect(&rings[0]),
                spawn: rect(&rings[1]),
                active: rect(&rings[2]),
            },
        })
        .collect();
    Ok(Json(ViewersBody { sequence, viewers }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_tags_name_the_rendering_and_the_digest() {
        let tile = MapTile {
            zoom: 3,
            x: 1,
            y: -2,
        };
        let tag = map_etag("main", Layer::Terrain, tile, 0xab);
        assert_eq!(
            tag.to_str().unwrap(),
            "\"main:map1:3:1:-2:00000000000000ab\""
        );
        assert_ne!(tag, map_etag("main", Layer::Terrain, tile, 0xac));
        let walk = map_etag("main", Layer::Walk, tile, 0xab);
        assert_eq!(
            walk.to_str().unwrap(),
            "\"main:walk1:3:1:-2:00000000000000ab\""
        );
    }

    #[test]
    fn layers_are_named_and_a_bad_one_names_the_field() {
        use axum::http::Uri;
        let layer = |query: &str| {
            let uri: Uri = format!("/v1/worlds/main/map/0/0/0.png{query}")
                .parse()
                .unwrap();
            layer_of(Query::try_from_uri(&uri))
        };
        assert_eq!(layer("").unwrap(), Layer::Terrain);
        assert_eq!(layer("?r=3").unwrap(), Layer::Terrain);
        assert_eq!(layer("?layer=terrain").unwrap(), Layer::Terrain);
        assert_eq!(layer("?layer=walk&r=3").unwrap(), Layer::Walk);
        for bad in ["?layer=Walk", "?layer=", "?layer=walk&layer=terrain"] {
            let err = layer(bad).unwrap_err();
            assert_eq!(err.field(), Some("layer"), "{bad}");
        }
        assert!(
            layer("?layer=roads")
                .unwrap_err()
                .to_string()
                .contains("expected one of terrain, walk, got \"roads\""),
        );
    }

    #[test]
    fn bad_tiles_name_the_field() {
        let p = |z: &str, x: &str, y: &str| {
            Ok(Path((
                "main".to_string(),
                z.to_string(),
                x.to_string(),
                y.to_string(),
            )))
        };
        let field =
            |r: Result<(String, MapTile), ApiError>| r.unwrap_err().field().map(str::to_string);
        assert_eq!(
            field(tile_path(p("7", "0", "0.png"), 1e9)),
            Some("z".into())
        );
        assert_eq!(
            field(tile_path(p("-1", "0", "0.png"), 1e9)),
            Some("z".into())
        );
        assert_eq!(
            field(tile_path(p("a", "0", "0.png"), 1e9)),
            Some("z".into())
        );
        assert_eq!(
            field(tile_path(p("0", "1.5", "0.png"), 1e9)),
            Some("x".into())
        );
        assert_eq!(
            field(tile_path(p("0", "0", "0.jpg"), 1e9)),
            Some("y".into())
        );
        assert_eq!(
            field(tile_path(p("0", "0", "3.png"), 1e4)),
            Some("y".into())
        );
        assert_eq!(
            field(tile_path(p("0", "-3", "0.png"), 1e4)),
            Some("x".into())
        );
        let (_, t) = tile_path(p("0", "-2", "1.png"), 1e4).unwrap();
        assert_eq!(
            t,
            MapTile {
                zoom: 0,
                x: -2,
                y: 1
            }
        );
        assert_eq!(
            field(tile_path(p("0", "9223372036854775807", "0.png"), 1e9)),
            Some("x".into())
        );
    }
}
