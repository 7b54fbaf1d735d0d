//! A test of the crate's layering: which module may name which.
//!
//! Every top-level module belongs to one layer, lowest first: support (the error
//! taxonomy, the admin token, task ownership and signals, the compute pool and its admission
//! by cost, shared validators), config, stores (the zone logs), the domain (worlds and their registry,
//! events, lifecycle, mesh cache, queries, the metrics they record), and the edge (the
//! API surfaces, the transport under them, logging set-up, the commands and the server
//! that wires them). The test reads the sources and fails when
//!
//! - a module names (through `crate::`, `super::` or `self::`, use groups included) a
//!   module of a layer above its own, or the top-level modules name each other in a
//!   cycle;
//! - a module below the edge names an edge crate ([`EDGE_CRATES`]: axum, tonic, hyper,
//!   tungstenite, the protobuf types): the domain knows no wire;
//! - a module of one API surface (`api::http`, `api::grpc`) names the other: what both
//!   use lives in `api` itself.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
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
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// `text` with its `//` comments left out.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.find("//").map_or(line, |i| &line[..i]));
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads the rest of a path after `prefix::` at `chars[*i..]`: identifiers joined by
/// `::`, use groups `{a, b::c}` expanded, `as` renames dropped. Every full path goes
/// to `out`.
fn expand(chars: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let skip_space = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip_space(i);
    if *i < chars.len() && chars[*i] == '{' {
        *i += 1;
        loop {
            skip_space(i);
            match chars.get(*i) {
                None => return,
                Some('}') => {
                    *i += 1;
                    return;
                }
                Some(',') => *i += 1,
                Some(_) => {
                    let before = *i;
                    expand(chars, i, prefix, out);
                    if *i == before {
                        // Not a path: step over it.
                        *i += 1;
                    }
                }
            }
        }
    }
    let start = *i;
    while *i < chars.len() && (is_ident(chars[*i]) || chars[*i] == '*') {
        *i += 1;
    }
    if *i == start {
        if !prefix.is_empty() {
            out.push(prefix.to_vec());
        }
        return;
    }
    let mut path = prefix.to_vec();
    path.push(chars[start..*i].iter().collect());
    if chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':') {
        *i += 2;
        expand(chars, i, &path, out);
        return;
    }
    // `name as alias`: the alias names nothing new.
    let mut j = *i;
    while j < chars.len() && chars[j].is_whitespace() {
        j += 1;
    }
    if chars[j..].starts_with(&['a', 's']) && chars.get(j + 2).is_some_and(|c| c.is_whitespace()) {
        j += 2;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        while j < chars.len() && is_ident(chars[j]) {
            j += 1;
        }
        *i = j;
    }
    out.push(path);
}

/// Every path `text` names from `root::` (`crate`, `super`, `self` or a crate name),
/// use groups expanded, comments left out; each starts with `root`.
fn paths_from(text: &str, root: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code(text).chars().collect();
    let pattern: Vec<char> = format!("{root}::").chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + pattern.len() <= chars.len() {
        let starts = chars[i..].starts_with(&pattern)
            && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        i += pattern.len();
        expand(&chars, &mut i, &[root.to_string()], &mut out);
    }
    out
}

/// The top-level modules named through `crate::` in `text`, comments left out.
fn named_modules(text: &str) -> BTreeSet<String> {
    paths_from(text, "crate")
        .into_iter()
        .filter_map(|p| p.get(1).cloned())
        .filter(|m| m != "*")
        .collect()
}

/// The module path of a source file (`api/http/mesh.rs`: `api::http::mesh`;
/// `api/http/mod.rs`: `api::http`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut path: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if let Some(last) = path.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            path.push(stem.to_string());
        }
    }
    path
}

/// Every crate path `text` names, from the file at `module` (`super::` and `self::`
/// resolved against it), as full paths from the crate root.
fn crate_paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for root in ["crate", "super", "self"] {
        for path in paths_from(text, root) {
            let mut resolved = match root {
                "crate" => Vec::new(),
                "super" => module[..module.len().saturating_sub(1)].to_vec(),
                _ => module.to_vec(),
            };
            let mut rest = path[1..].iter().peekable();
            while rest.peek().is_some_and(|s| *s == "super") {
                rest.next();
                resolved.pop();
            }
            resolved.extend(rest.cloned());
            out.push(resolved);
        }
    }
    out
}

/// Every source file of the crate: its module path and its text.
fn sources() -> Vec<(Vec<String>, String)> {
    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(&src).ok()?.to_path_buf();
            let module = module_path(&relative);
            let first = module.first()?;
            if matches!(first.as_str(), "main" | "layers") {
                return None;
            }
            Some((module, std::fs::read_to_string(&file).unwrap_or_default()))
        })
        .collect()
}

/// Top-level module -> the top-level modules it names.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in sources() {
        let Some(top) = module.first().cloned() else {
            continue;
        };
        let named: BTreeSet<String> = crate_paths(&text, &module)
            .into_iter()
            .filter_map(|p| p.first().cloned())
            .filter(|m| *m != top && m != "*")
            .collect();
        graph.entry(top).or_default().extend(named);
    }
    graph
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

/// True when `text` has `use NAME;` or `use NAME as ...` (comments left out).
fn imports_whole(text: &str, name: &str) -> bool {
    let code = code(text);
    let words: Vec<&str> = code
        .split(|c: char| c.is_whitespace() || c == ';' || c == '{' || c == '}' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "use" && (w[1] == name || w[1] == format!("::{name}")))
}

/// True when `path` starts with the segments of `prefix`.
fn under(path: &[String], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b)
}

/// For each surface file that names the other surface: the file and what it names.
fn surface_crossings(sources: &[(Vec<String>, String)]) -> Vec<String> {
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
fn the_parser_reads_use_groups() {
    let named = named_modules(
        "use crate::{api::{self, X}, config::Y, world as w};\n// crate::server\nlet a = crate::store::open();",
    );
    let got: Vec<_> = named.iter().map(String::as_str).collect();
    assert_eq!(got, ["api", "config", "store", "world"]);
}

#[test]
fn the_parser_reads_groups_over_lines_and_relative_paths() {
    let text = "use super::{\n    REVISION_HEADER,\n    conditional::{etag, matches as m},\n};\n\
                use crate::{\n    api::{ApiError, grpc::MessageLimits},\n    query::mesh::TileFields,\n};\n\
                let x = super::super::grpc::routes(); // crate::server::run\n";
    let module: Vec<String> = ["api", "http", "mesh"].map(String::from).to_vec();
    let paths: Vec<String> = crate_paths(text, &module)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "api::ApiError",
            "api::grpc::MessageLimits",
            "query::mesh::TileFields",
            "api::http::REVISION_HEADER",
            "api::http::conditional::etag",
            "api::http::conditional::matches",
            "api::grpc::routes",
        ]
    );
    let sources = vec![(module, text.to_string())];
    assert_eq!(
        surface_crossings(&sources).len(),
        2,
        "{:?}",
        surface_crossings(&sources)
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
    let graph = module_graph();
    assert!(graph.contains_key("api") && graph.contains_key("world"));
    let mut wrong = Vec::new();
    for (module, named) in &graph {
        let Some(from) = layer_of(module) else {
            wrong.push(format!("{module}: not assigned to a layer"));
            continue;
        };
        for other in named {
            match layer_of(other) {
                Some(to) if to > from => wrong.push(format!(
                    "{module} ({}) names {other} ({})",
                    LAYERS[from].0, LAYERS[to].0
                )),
                _ => {}
            }
        }
    }
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
    let graph = module_graph();
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if graph.contains_key(next)
                && let Some(cycle) = visit(next, graph, path, done)
            {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!("module cycle: {}", cycle.join(" -> "));
        }
    }
}
