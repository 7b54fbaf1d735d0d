//! The live map's page and the files it loads, embedded in the binary: `GET /map`,
//! `/map/{world}` (one document; its script reads the path) and `/map/assets/{path}`
//! (the page's script and style, vendored Leaflet, three.js and 3DTilesRendererJS,
//! with their licences). The map's data routes (tiles, legend, viewers) are in
//! [`super::map`].

use axum::{
    extract::{Path, rejection::PathRejection},
    http::{
        HeaderValue,
        header::{CACHE_CONTROL, CONTENT_TYPE},
    },
    response::{IntoResponse, Response},
};

use crate::api::ApiError;

/// The page's files: path under `/map/assets/`, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    ("map.js", JS, include_bytes!("../../../assets/map/map.js")),
    (
        "view3d.js",
        JS,
        include_bytes!("../../../assets/map/view3d.js"),
    ),
    (
        "map.css",
        CSS,
        include_bytes!("../../../assets/map/map.css"),
    ),
    (
        "vendor/leaflet/leaflet.js",
        JS,
        include_bytes!("../../../assets/map/vendor/leaflet/leaflet.js"),
    ),
    (
        "vendor/leaflet/leaflet.css",
        CSS,
        include_bytes!("../../../assets/map/vendor/leaflet/leaflet.css"),
    ),
    (
        "vendor/leaflet/LICENSE",
        TEXT,
        include_bytes!("../../../assets/map/vendor/leaflet/LICENSE"),
    ),
    (
        "vendor/leaflet/images/layers.png",
        PNG,
        include_bytes!("../../../assets/map/vendor/leaflet/images/layers.png"),
    ),
    (
        "vendor/leaflet/images/layers-2x.png",
        PNG,
        include_bytes!("../../../assets/map/vendor/leaflet/images/layers-2x.png"),
    ),
    (
        "vendor/leaflet/images/marker-icon.png",
        PNG,
        include_bytes!("../../../assets/map/vendor/leaflet/images/marker-icon.png"),
    ),
    (
        "vendor/leaflet/images/marker-icon-2x.png",
        PNG,
        include_bytes!("../../../assets/map/vendor/leaflet/images/marker-icon-2x.png"),
    ),
    (
        "vendor/leaflet/images/marker-shadow.png",
        PNG,
        include_bytes!("../../../assets/map/vendor/leaflet/images/marker-shadow.png"),
    ),
    (
        "vendor/three/three.module.min.js",
        JS,
        include_bytes!("../../../assets/map/vendor/three/three.module.min.js"),
    ),
    (
        "vendor/three/three.core.min.js",
        JS,
        include_bytes!("../../../assets/map/vendor/three/three.core.min.js"),
    ),
    (
        "vendor/three/LICENSE",
        TEXT,
        include_bytes!("../../../assets/map/vendor/three/LICENSE"),
    ),
    (
        "vendor/three/addons/controls/OrbitControls.js",
        JS,
        include_bytes!("../../../assets/map/vendor/three/addons/controls/OrbitControls.js"),
    ),
    (
        "vendor/three/addons/loaders/GLTFLoader.js",
        JS,
        include_bytes!("../../../assets/map/vendor/three/addons/loaders/GLTFLoader.js"),
    ),
    (
        "vendor/three/addons/utils/BufferGeometryUtils.js",
        JS,
        include_bytes!("../../../assets/map/vendor/three/addons/utils/BufferGeometryUtils.js"),
    ),
    (
        "vendor/3d-tiles-renderer/index.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/index.js"),
    ),
    (
        "vendor/3d-tiles-renderer/index.core.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/index.core.js"),
    ),
    (
        "vendor/3d-tiles-renderer/index.core-plugins.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/index.core-plugins.js"),
    ),
    (
        "vendor/3d-tiles-renderer/CameraTransitionManager-CMaqw78S.js",
        JS,
        include_bytes!(
            "../../../assets/map/vendor/3d-tiles-renderer/CameraTransitionManager-CMaqw78S.js"
        ),
    ),
    (
        "vendor/3d-tiles-renderer/LoaderBase-CfTLVHyZ.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/LoaderBase-CfTLVHyZ.js"),
    ),
    (
        "vendor/3d-tiles-renderer/MemoryUtils-DPE4VZ3R.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/MemoryUtils-DPE4VZ3R.js"),
    ),
    (
        "vendor/3d-tiles-renderer/QuantizedMeshLoaderBase-018lzCXI.js",
        JS,
        include_bytes!(
            "../../../assets/map/vendor/3d-tiles-renderer/QuantizedMeshLoaderBase-018lzCXI.js"
        ),
    ),
    (
        "vendor/3d-tiles-renderer/constants-BPcXltxX.js",
        JS,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/constants-BPcXltxX.js"),
    ),
    (
        "vendor/3d-tiles-renderer/LICENSE",
        TEXT,
        include_bytes!("../../../assets/map/vendor/3d-tiles-renderer/LICENSE"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const PNG: &str = "image/png";

/// The page: the same document for the picker and a world's map (its script reads
/// the path).
const PAGE: &str = include_str!("../../../assets/map/index.html");

#[utoipa::path(
    get,
    path = "/map",
    tag = "map",
    description = "The live map page (a world picker; `/map/{world}` opens one world).",
    responses((status = 200, description = "The page", content_type = "text/html", body = String)),
)]
pub async fn page() -> Response {
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        )],
        PAGE,
    )
        .into_response()
}

#[utoipa::path(
    get,
    path = "/map/assets/{path}",
    tag = "map",
    description = "The map page's script, style and vendored Leaflet, three.js and 3DTilesRendererJS, embedded in the binary.",
    params(("path" = String, Path, description = "A file under `assets/map/` (`map.js`, `vendor/leaflet/leaflet.js`, ...)", example = "map.js")),
    responses(
        (status = 200, description = "The file", headers(("Cache-Control" = String)),
            content(
                (String = "text/javascript"),
                (String = "text/css"),
                (String = "text/plain"),
                (crate::api::http::openapi::schemas::Bytes = "image/png"),
            ),
        ),
        (status = 400, description = "A malformed path (field `path`)"),
        (status = 404, description = "No such file"),
    ),
)]
pub async fn asset(path: Result<Path<String>, PathRejection>) -> Result<Response, ApiError> {
    let Path(path) = path.map_err(|r| ApiError::invalid("path", r.body_text()))?;
    let (_, content_type, bytes) = ASSETS
        .iter()
        .find(|(name, _, _)| *name == path)
        .ok_or_else(|| ApiError::NoRoute(format!("GET /map/assets/{path}")))?;
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    Ok((head, *bytes).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_file_is_served_and_every_served_asset_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/map");
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    let rel = path
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .to_string();
                    files.push(rel);
                }
            }
        }
        files.retain(|f| f != "index.html");
        files.sort();
        let mut served: Vec<String> = ASSETS.iter().map(|(p, _, _)| p.to_string()).collect();
        served.sort();
        assert_eq!(files, served);
        for (path, _, bytes) in ASSETS {
            assert!(!bytes.is_empty(), "{path}");
        }
        // The page names only served assets.
        for src in PAGE.split("/map/assets/").skip(1) {
            let name = src.split(['"', '\'']).next().unwrap();
            assert!(
                name.ends_with('/') || ASSETS.iter().any(|(p, _, _)| *p == name),
                "{name}"
            );
        }
    }
}
