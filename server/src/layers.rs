//! A test of the crate's layering: which module may name which.
//!
//! Every top-level module belongs to one layer, lowest first: support (the error
//! taxonomy, the admin token, task ownership and signals, the compute pool and its admission
//! by cost, shared validators), config, stores (the zone logs), the domain (worlds and their registry,
//! events, lifecycle, mesh cache, queries, the metrics they record), and the edge (the
//! API surfaces, the transport under them, logging set-up, the commands and the server
//! that wires them). The test reads the sources and fails when
//!
//! - a module names (through `crate::`, `super::` or `self::`, use groups included,
//!   re-exports followed) a module of a layer above its own, or the top-level modules
//!   name each other in a cycle;
//! - a module below the edge names an edge crate ([`EDGE_CRATES`]: axum, tonic, hyper,
//!   tungstenite, the protobuf types): the domain knows no wire;
//! - a module of one API surface (`api::http`, `api::grpc`) names the other: what both
//!   use lives in `api` itself.
//!
//! The source reading and path parsing are terrain-layering's (tools/layering), shared
//! with terrain-core's layers test; the layers and the checks are this crate's.

use std::{collections::BTreeSet, path::Path};

use terrain_layering::{
    Crate, Source, crate_paths, find_cycle, imports_whole, paths_from, under, upward_names,
};

/// The layer of each top-level module, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "support",
        &[
            "error",
            "auth",
            "shutdown",
            "compute",
            "cost",
            "validate",
            "sync",
            "test_support",
        ],
    ),
    ("config", &["config"]),
    ("store", &["store"]),
    (
        "domain",
        &[
            "world",
            "events",
            "lifecycle",
            "mesh",
            "map",
            "query",
            "metrics",
        ],
    ),
    (
        "edge",
        &[
            "api",
            "transport",
            "server",
            "fetch",
            "commands",
            "telemetry",
        ],
    ),
];

/// Crates that speak a wire: only the edge names them. `terrain_proto` holds the
/// prost-generated messages (`pb::...` is always imported from it).
const EDGE_CRATES: &[&str] = &[
    "axum",
    "axum_core",
    "hyper",
    "hyper_util",
    "tonic",
    "tonic_health",
    "tonic_reflection",
    "tonic_types",
    "tungstenite",
    "tokio_tungstenite",
    "terrain_proto",
    "tower_http",
];

/// The API surfaces, which never name each other.
const SURFACES: &[&[&str]] = &[&["api", "http"], &["api", "grpc"]];

fn layer_of(module: &str) -> Option<usize> {
    terrain_layering::layer_of(LAYERS, module)
}

/// The crate's sources (this test and `main` left out).
fn read() -> Crate {
    Crate::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &["main", "layers"],
    )
}

/// Every source file of the crate but its root: its module path and its text.
fn sources() -> Vec<Source> {
    read().files
}

/// The edge crates `text` names as the root of a path, or imports whole (`use axum;`,
/// `use tonic as rpc;`, which later paths would name through the alias).
fn edge_crates(text: &str) -> BTreeSet<&'static str> {
    EDGE_CRATES
        .iter()
        .copied()
        .filter(|name| !paths_from(text, name).is_empty() || imports_whole(text, name))
        .collect()
}

/// For each surface file that names the other surface: the file and what it names.
fn surface_crossings(sources: &[Source]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (module, text) in sources {
        let Some(own) = SURFACES.iter().find(|s| under(module, s)) else {
            continue;
        };
        for path in crate_paths(text, module) {
            if let Some(other) = SURFACES.iter().find(|s| *s != own && under(&path, s)) {
                wrong.push(format!(
                    "{} names {} ({})",
                    module.join("::"),
                    other.join("::"),
                    path.join("::")
                ));
            }
        }
    }
    wrong
}

#[test]
fn a_surface_naming_the_other_is_found() {
    let text = "use super::{\n    REVISION_HEADER,\n    conditional::{etag, matches as m},\n};\n\
                use crate::{\n    api::{ApiError, grpc::MessageLimits},\n    query::mesh::TileFields,\n};\n\
                let x = super::super::grpc::routes(); // crate::server::run\n";
    let module: Vec<String> = ["api", "http", "mesh"].map(String::from).to_vec();
    let sources = vec![(module, text.to_string())];
    assert_eq!(
        surface_crossings(&sources),
        [
            "api::http::mesh names api::grpc (api::grpc::MessageLimits)",
            "api::http::mesh names api::grpc (api::grpc::routes)",
        ]
    );
}

#[test]
fn the_parser_finds_edge_crates_as_path_roots() {
    let text = "use axum::extract::ws::Utf8Bytes;\nuse bytes::Bytes;\n\
                // tonic::Status in a comment\nlet s = my_tonic::x(); let p: terrain_proto::v1::World;";
    let got: Vec<_> = edge_crates(text).into_iter().collect();
    assert_eq!(got, ["axum", "terrain_proto"]);
}

#[test]
fn the_parser_finds_edge_crates_imported_whole() {
    let text = "use tonic as rpc;\nuse hyper;\n// use axum;\nuse tonic_types_extra as t;\nlet use_tower_http = 1;";
    let got: Vec<_> = edge_crates(text).into_iter().collect();
    assert_eq!(got, ["hyper", "tonic"]);
}

#[test]
fn modules_name_only_their_layer_or_below() {
    let graph = read().module_graph();
    assert!(graph.contains_key("api") && graph.contains_key("world"));
    let wrong = upward_names(&graph, LAYERS);
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn only_the_edge_names_edge_crates() {
    let edge = LAYERS.len() - 1;
    let mut wrong = Vec::new();
    for (module, text) in sources() {
        let top = module.first().map(String::as_str).unwrap_or_default();
        if layer_of(top).is_some_and(|layer| layer >= edge) {
            continue;
        }
        for name in edge_crates(&text) {
            wrong.push(format!("{} ({}) names {name}", module.join("::"), top));
        }
    }
    assert!(
        wrong.is_empty(),
        "edge crates below the edge:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_surfaces_do_not_name_each_other() {
    let sources = sources();
    assert!(
        sources
            .iter()
            .any(|(m, _)| m.starts_with(&["api".into(), "http".into()]))
            && sources
                .iter()
                .any(|(m, _)| m.starts_with(&["api".into(), "grpc".into()])),
        "both surfaces have files"
    );
    let wrong = surface_crossings(&sources);
    assert!(
        wrong.is_empty(),
        "surfaces naming each other:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn top_level_modules_have_no_cycle() {
    if let Some(cycle) = find_cycle(&read().module_graph()) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}
