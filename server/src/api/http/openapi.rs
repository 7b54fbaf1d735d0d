//! `GET /openapi.json`: the OpenAPI 3.1 document of the whole HTTP surface, generated
//! from the handlers' `#[utoipa::path]` attributes and the `ToSchema` derives of the
//! JSON types they send and read, so the contract is the code's and cannot drift.
//!
//! What the attributes do not say per route is added here, once, from the rules that
//! make it true for every route (`Shared`):
//!
//! - the `world` path parameter of every `/v1/worlds/{world}/...` operation;
//! - the `ErrorBody` JSON of every refusal (4xx and 5xx) an operation lists: the
//!   attributes give each one's status and description only;
//! - `500` on every operation (an internal error is possible anywhere);
//! - `503` (`Retry-After`, every request slot taken) and `504` (`request_timeout`) on
//!   every operation under admission, that is all but `/healthz`, `/readyz`,
//!   `/metrics` and the WebSocket upgrade ([`crate::transport::admission`]);
//! - `408` on every operation with a request body (`request_body_timeout`);
//! - the admin bearer token as the `admin` security scheme;
//! - the map page's two other paths (`/map/`, `/map/{world}`), served by one handler;
//! - a tile mesh's JSON as either a terrain tile's or a voxel chunk's body.
//!
//! The binary bodies (batches, voxel chunks, glb, PNG) are `format: binary` strings
//! whose byte layout the operation's description gives.

pub mod rules;
pub mod schemas;

use std::sync::Arc;

use axum::{
    Extension,
    http::{HeaderValue, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
};
use utoipa::{
    Modify, OpenApi,
    openapi::{
        self, Content, HttpMethod, RefOr, Required,
        path::{Operation, PathItem},
        response::Response as OpenApiResponse,
        schema::{AnyOf, Schema},
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
    },
};

use super::{
    admin, blocks, events, heights, layout, lifecycle, map, map_page, mesh, ops, tiles3d, walk,
    worlds, zones,
};
use crate::{api::metrics, config::Limits};

/// The document: every HTTP route of the server.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "terrain-server HTTP API",
        description = "The HTTP/1.1 surface of terrain-server (the gRPC surface on the same port \
            is described by its protobuf files). JSON is lowerCamelCase. Every refusal is \
            `{\"error\": {\"code\", \"message\", \"field\"}}` (`ErrorBody`), including the \
            400 / 414 / 431 answers to requests that cannot be parsed, `404` for an unknown \
            path and `405` for a method a path does not serve. A query key an operation does \
            not list is refused with 400 naming it. Mutations (zones, viewers) and the backup \
            need `Authorization: Bearer <admin token>` when the server has one.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    paths(
        ops::healthz,
        ops::readyz,
        metrics::render,
        openapi_json,
        worlds::list_worlds,
        heights::height,
        heights::heights,
        heights::heightmap,
        zones::list,
        zones::get_zone,
        zones::put_zone,
        zones::delete_zone,
        zones::zone_at,
        mesh::mesh_json,
        mesh::mesh_glb,
        tiles3d::tileset,
        tiles3d::subtree_file,
        tiles3d::content,
        blocks::blocks,
        blocks::instances,
        lifecycle::put_viewer,
        lifecycle::delete_viewer,
        lifecycle::live_tiles,
        layout::layout,
        layout::zone_class,
        walk::terrain_info,
        walk::check_path,
        walk::find_path,
        walk::walk_grid,
        map::map_tile,
        map::legend,
        map::viewers,
        map_page::page,
        map_page::asset,
        events::events,
        admin::backup,
    ),
    components(schemas(mesh::ChunkMeshBody, crate::api::error::ErrorBody)),
    modifiers(&Shared),
    tags(
        (name = "ops", description = "Liveness, readiness, metrics and this document"),
        (name = "worlds", description = "The hosted worlds and their heights"),
        (name = "zones", description = "Flat zones: registered areas of fixed height"),
        (name = "meshes", description = "Tile meshes (JSON and glTF binary)"),
        (name = "3dtiles", description = "The world as an OGC 3D Tiles 1.1 tileset of error-bounded meshes"),
        (name = "voxel", description = "A voxel world's chunk blocks and instances"),
        (name = "lifecycle", description = "Viewers and the tiles kept live around them"),
        (name = "layout", description = "Hubs, spokes and zone classes of a layout world"),
        (name = "movement", description = "Terrain info, path checks and path finding by the world's walkability rule"),
        (name = "map", description = "The live map: tiles, legend, viewers, the page"),
        (name = "events", description = "Tile events over a WebSocket"),
        (name = "admin", description = "Backups of the running server"),
    ),
)]
#[derive(Debug)]
pub struct ApiDoc;

/// The document served, built once for the server's `limits`.
pub fn served(limits: &Limits) -> Arc<String> {
    Arc::new(document_json(limits))
}

/// The document of a server with `limits`, as JSON: the derived document with the
/// input rules and limits of [`rules`].
pub fn document(limits: &Limits) -> serde_json::Value {
    // A tree of maps, strings and numbers always serialises.
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    rules::apply(&mut doc, limits);
    doc
}

/// [`document`] as text.
fn document_json(limits: &Limits) -> String {
    let doc = document(limits);
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string())
}

/// This document.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "ops",
    responses((
        status = 200,
        description = "The OpenAPI 3.1 document of the HTTP API",
        content_type = "application/json",
        body = Object,
    )),
)]
pub async fn openapi_json(Extension(doc): Extension<Arc<String>>) -> Response {
    let json = HeaderValue::from_static("application/json");
    ([(CONTENT_TYPE, json)], doc.as_str().to_owned()).into_response()
}

/// Paths outside admission: they answer under any load, with no request timeout.
const UNADMITTED: &[&str] = &[
    "/healthz",
    "/readyz",
    "/metrics",
    "/v1/worlds/{world}/events",
];

/// The additions that hold for every route (see the module docs).
#[derive(Debug)]
struct Shared;

impl Modify for Shared {
    fn modify(&self, doc: &mut openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "admin",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "The admin token (`admin_token` in the configuration). Without one \
                         configured, every request is allowed.",
                    ))
                    .build(),
            ),
        );
        // The zone body's rules, with the default limits ([`rules::apply`] puts in the
        // server's own).
        if let Ok(zone) = serde_json::from_value(rules::zone_request(&Limits::default())) {
            components.schemas.insert("ZoneRequest".to_string(), zone);
        }
        for (name, response) in schemas::shared_responses() {
            components.responses.insert(name, response);
        }
        map_page_paths(&mut doc.paths.paths);
        mesh_json_either(&mut doc.paths.paths);
        for (path, item) in doc.paths.paths.iter_mut() {
            let admitted = !UNADMITTED.contains(&path.as_str());
            for op in operations(item) {
                if path.contains("{world}") {
                    world_parameter(op);
                }
                error_bodies(op);
                let responses = &mut op.responses.responses;
                let body = op.request_body.is_some();
                let mut add = |status: &str, name: &str| {
                    responses
                        .entry(status.to_string())
                        .or_insert_with(|| RefOr::Ref(openapi::Ref::from_response_name(name)));
                };
                add("500", "Internal");
                if admitted {
                    add("503", "Overloaded");
                    add("504", "TimedOut");
                }
                if body {
                    add("408", "BodyTimedOut");
                }
            }
        }
    }
}

/// An example world id for the operations of `tag`: the world of the example
/// configurations that has what they need.
fn example_world(tag: &str) -> &'static str {
    match tag {
        "voxel" => "diorama",
        "layout" => "frontier",
        _ => "main",
    }
}

/// Puts the `world` path parameter first in `op`, unless it declares its own.
fn world_parameter(op: &mut Operation) {
    let params = op.parameters.get_or_insert_with(Vec::new);
    if params.iter().any(|p| p.name == "world") {
        return;
    }
    let tag = op
        .tags
        .as_ref()
        .and_then(|tags| tags.first())
        .map_or("", String::as_str);
    let world = openapi::path::ParameterBuilder::new()
        .name("world")
        .parameter_in(openapi::path::ParameterIn::Path)
        .required(Required::True)
        .description(Some("World id, as `[[worlds]] id` in the configuration"))
        .schema(Some(openapi::schema::Object::with_type(
            openapi::Type::String,
        )))
        .example(Some(serde_json::Value::from(example_world(tag))))
        .build();
    params.insert(0, world);
}

/// Gives every refusal `op` lists (4xx, 5xx) without a body the `ErrorBody` JSON.
fn error_bodies(op: &mut Operation) {
    for (status, response) in op.responses.responses.iter_mut() {
        let refusal = status.starts_with('4') || status.starts_with('5');
        if let (true, RefOr::T(response)) = (refusal, response)
            && response.content.is_empty()
        {
            let body = Content::new(Some(openapi::Ref::from_schema_name("ErrorBody")));
            response
                .content
                .insert("application/json".to_string(), body);
        }
    }
}

/// The operations of a path item.
fn operations(item: &mut PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.head.as_mut(),
        item.patch.as_mut(),
        item.options.as_mut(),
        item.trace.as_mut(),
    ]
    .into_iter()
    .flatten()
}

/// `/map/` and `/map/{world}` answer what `/map` answers (one handler, three routes).
fn map_page_paths(paths: &mut openapi::path::PathsMap<String, PathItem>) {
    let Some(page) = paths.get("/map").and_then(|item| item.get.clone()) else {
        return;
    };
    let mut slash = page.clone();
    slash.operation_id = Some("map_page_slash".to_string());
    paths.insert("/map/".to_string(), PathItem::new(HttpMethod::Get, slash));
    let mut world = page;
    world.operation_id = Some("map_page_world".to_string());
    world.description =
        Some("The map page opened on one world (its script reads the path).".into());
    let param = openapi::path::ParameterBuilder::new()
        .name("world")
        .parameter_in(openapi::path::ParameterIn::Path)
        .required(Required::True)
        .description(Some(
            "World id; the page shows it (any id is served the page)",
        ))
        .schema(Some(openapi::schema::Object::with_type(
            openapi::Type::String,
        )))
        .build();
    world.parameters = Some(vec![param]);
    paths.insert(
        "/map/{world}".to_string(),
        PathItem::new(HttpMethod::Get, world),
    );
}

/// A mesh's JSON is a terrain tile's (`MeshBody`) or, on a voxel world, a chunk's
/// (`ChunkMeshBody`): the 200 answer says either.
fn mesh_json_either(paths: &mut openapi::path::PathsMap<String, PathItem>) {
    let Some(op) = paths
        .get_mut("/v1/worlds/{world}/tiles/{tx}/{tz}/mesh")
        .and_then(|item| item.get.as_mut())
    else {
        return;
    };
    let Some(RefOr::T(ok)) = op.responses.responses.get_mut("200") else {
        return;
    };
    let ok: &mut OpenApiResponse = ok;
    if let Some(json) = ok.content.get_mut("application/json") {
        let mut either = AnyOf::new();
        either.items = vec![
            RefOr::Ref(openapi::Ref::from_schema_name("MeshBody")),
            RefOr::Ref(openapi::Ref::from_schema_name("ChunkMeshBody")),
        ];
        json.schema = Some(RefOr::T(Schema::AnyOf(either)));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every property name of every JSON body in `schema` and below.
    fn property_names(schema: &serde_json::Value, out: &mut Vec<String>) {
        match schema {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                map.values().for_each(|v| property_names(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| property_names(v, out)),
            _ => {}
        }
    }

    /// One naming rule for every JSON body: lowerCamelCase, as the protobuf JSON
    /// mapping spells the gRPC fields.
    #[test]
    fn every_json_property_is_lower_camel_case() {
        let doc = document(&Limits::default());
        let mut names = Vec::new();
        property_names(&doc, &mut names);
        assert!(names.len() > 100, "{} properties read", names.len());
        for must in ["maxHeight", "seaLevel", "blockKinds", "tileSize"] {
            assert!(names.iter().any(|n| n == must), "{must} is documented");
        }
        let camel = |n: &str| {
            n.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && n.chars().all(|c| c.is_ascii_alphanumeric())
        };
        let wrong: BTreeSet<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| !camel(n))
            .collect();
        assert!(wrong.is_empty(), "not lowerCamelCase: {wrong:?}");
    }
}
