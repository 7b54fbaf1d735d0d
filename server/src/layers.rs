//! A test of the crate's layering: which top-level module may name which.
//!
//! Every module belongs to one layer, lowest first: support (the error taxonomy, the
//! admin token, task ownership and signals, the compute pool, shared validators),
//! config, stores (the zone logs), the domain (worlds and their registry, events,
//! lifecycle, mesh cache, queries, the metrics they record), and the edge (the API
//! surfaces, logging set-up, the commands and the server that wires them). A module may name modules of its own layer or
//! below, never above, and the top-level modules name each other without a cycle.
//! The test reads the sources, so a `use crate::api::...` in the domain fails it.

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
            "healthcheck",
            "commands",
            "telemetry",
        ],
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// The top-level modules named through `crate::` in `text`, comments left out.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `crate::{a::b, c, d::{e, f}}`: the names at depth one.
                let mut depth = 1;
                let mut word = String::new();
                let mut at_start = true;
                for ch in group.chars() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        ',' if depth == 1 => at_start = true,
                        c if c.is_alphanumeric() || c == '_' => {
                            if at_start && depth == 1 {
                                word.push(c);
                            }
                        }
                        _ => {
                            if !word.is_empty() {
                                out.insert(std::mem::take(&mut word));
                                at_start = false;
                            }
                        }
                    }
                }
                if !word.is_empty() {
                    out.insert(word);
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

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

/// Top-level module -> the top-level modules it names.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap_or(&file);
        let Some(first) = relative.components().next() else {
            continue;
        };
        let first = first.as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if matches!(module.as_str(), "lib" | "main" | "layers") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let named = named_modules(&text);
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(named.into_iter().filter(|n| *n != module));
    }
    graph
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
