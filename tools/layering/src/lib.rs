//! The parsing behind the layering tests of the workspace's crates (terrain-core's and
//! terrain-server's `src/layers.rs`): which module of a crate names which.
//!
//! A layering test declares its layers (top-level modules, lowest first) and asks this
//! crate for the sources ([`Crate::read`]), the graph of top-level modules
//! ([`Crate::module_graph`]), the names that run upward ([`upward_names`]) and a loop
//! ([`find_cycle`]); checks of its own build on [`crate_paths`], [`paths_from`] and
//! [`under`].
//!
//! What it reads, from the text of every `.rs` file under `src/`:
//!
//! - code only: `//` comments (doc comments included) are left out, so a doc link
//!   names nothing;
//! - paths rooted at `crate::`, `super::` or `self::` (resolved against the file's
//!   module, [`crate_paths`]) or at a crate's name ([`paths_from`]), use groups
//!   `{a, b::c}` expanded (over lines too), `as` renames dropped;
//! - what a module's own `use` items bring in ([`use_declarations`]): a path through a
//!   re-export is followed to where the item lives, so `crate::Terrain` with
//!   `pub use terrain::Terrain;` in the crate root names `terrain`.
//!
//! What it does not: it is no Rust parser. String literals are read as code; `use` items
//! count as a module's own only when they start a line unindented (rustfmt's layout of
//! module-level items); glob re-exports (`pub use a::*`), renamed re-exports
//! (`pub use a::B as C`: `C` is not followed), `#[path]` and macros' own syntax are not
//! followed; `super::` inside an inline module (`mod tests { use super::*; }`) is
//! resolved against the file's module.
//!
//! No dependencies beyond std; `publish = false`: a dev-dependency of the crates whose
//! layering it checks.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// A source file: its module path (`["api", "http", "mesh"]` for `api/http/mesh.rs`)
/// and its text.
pub type Source = (Vec<String>, String);

/// `text` with its `//` comments left out (line by line).
pub fn code(text: &str) -> String {
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
pub fn paths_from(text: &str, root: &str) -> Vec<Vec<String>> {
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
pub fn named_modules(text: &str) -> BTreeSet<String> {
    paths_from(text, "crate")
        .into_iter()
        .filter_map(|p| p.get(1).cloned())
        .filter(|m| m != "*")
        .collect()
}

/// The module path of a source file relative to `src/` (`api/http/mesh.rs`:
/// `api::http::mesh`; `api/http/mod.rs`: `api::http`; `lib.rs`: the crate root, empty).
pub fn module_path(relative: &Path) -> Vec<String> {
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

/// `path` (from a file at `module`) with its leading `crate`, `self` or `super`s
/// resolved: a full path from the crate root.
fn resolve(path: &[String], module: &[String]) -> Vec<String> {
    let mut resolved = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super") => module[..module.len().saturating_sub(1)].to_vec(),
        _ => module.to_vec(),
    };
    let mut rest = path[1..].iter().peekable();
    while rest.peek().is_some_and(|s| *s == "super") {
        rest.next();
        resolved.pop();
    }
    resolved.extend(rest.cloned());
    resolved
}

/// Every crate path `text` names, from the file at `module` (`super::` and `self::`
/// resolved against it), as full paths from the crate root.
pub fn crate_paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for root in ["crate", "super", "self"] {
        for path in paths_from(text, root) {
            out.push(resolve(&path, module));
        }
    }
    out
}

/// The names the module-level `use` items of `text` (the file of `module`) bring in,
/// each with the full path it stands for: `pub use world::{Kind, Generator};` in
/// `generator/mod.rs` gives `Kind -> generator::world::Kind` and `Generator -> ...`.
/// `is_module` tells the crate's modules apart from other crates (`use serde::Deserialize`
/// names no module of the crate and is left out). Only `use` items that start a line
/// unindented count (a module's own, as rustfmt lays them out; not those of inline
/// modules or functions); globs are left out.
pub fn use_declarations(
    text: &str,
    module: &[String],
    is_module: impl Fn(&[String]) -> bool,
) -> Vec<(String, Vec<String>)> {
    let code = code(text);
    let mut out = Vec::new();
    let mut offset = 0;
    let chars: Vec<char> = code.chars().collect();
    for line in code.lines() {
        let start = offset;
        offset += line.chars().count() + 1;
        // `use`, `pub use`, `pub(crate) use`, `pub(in a::b) use`.
        let rest = match line.strip_prefix("pub") {
            Some(after) => {
                let after = after.trim_start();
                match after.strip_prefix('(') {
                    Some(scope) => scope.split_once(')').map_or("", |(_, r)| r.trim_start()),
                    None => after,
                }
            }
            None => line,
        };
        let Some(after_use) = rest.strip_prefix("use") else {
            continue;
        };
        if !after_use.starts_with(char::is_whitespace) {
            continue;
        }
        let mut i = start + (line.chars().count() - after_use.chars().count());
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if chars[i..].starts_with(&[':', ':']) {
            i += 2;
        }
        let mut paths = Vec::new();
        expand(&chars, &mut i, &[], &mut paths);
        for mut path in paths {
            if path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            let (Some(first), Some(name)) = (path.first(), path.last().cloned()) else {
                continue;
            };
            if name == "*" || matches!(name.as_str(), "crate" | "super") {
                continue;
            }
            let full = match first.as_str() {
                "crate" | "self" | "super" => resolve(&path, module),
                _ => {
                    // A child module (2018 paths), else another crate.
                    let mut child = module.to_vec();
                    child.push(first.clone());
                    if !is_module(&child) {
                        continue;
                    }
                    let mut full = module.to_vec();
                    full.extend(path.iter().cloned());
                    full
                }
            };
            out.push((name, full));
        }
    }
    out
}

/// True when `path` starts with the segments of `prefix`.
pub fn under(path: &[String], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b)
}

/// True when `text` has `use NAME;` or `use NAME as ...` (comments left out).
pub fn imports_whole(text: &str, name: &str) -> bool {
    let code = code(text);
    let words: Vec<&str> = code
        .split(|c: char| c.is_whitespace() || c == ';' || c == '{' || c == '}' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "use" && (w[1] == name || w[1] == format!("::{name}")))
}

/// A crate's sources, read from its `src/` directory.
#[derive(Debug, Clone, Default)]
pub struct Crate {
    /// Every source file but the crate root and the skipped top-level modules, sorted by
    /// path.
    pub files: Vec<Source>,
    /// The crate root's text (`lib.rs`; empty when there is none): its `use` items are
    /// re-exports the other files name through `crate::`.
    pub root: String,
    /// Module -> the names its `use` items bring in -> the full paths they stand for.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// Every module path (files and their parents, the root included).
    modules: BTreeSet<Vec<String>>,
}

impl Crate {
    /// Reads every `.rs` file under `src` (a crate's `src/` directory), leaving out the
    /// top-level modules named in `skip` (the layering test itself, a binary's `main`).
    pub fn read(src: &Path, skip: &[&str]) -> Crate {
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
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        paths.sort();
        let mut files = Vec::new();
        for file in paths {
            let Ok(relative) = file.strip_prefix(src) else {
                continue;
            };
            let module = module_path(relative);
            if module.first().is_some_and(|m| skip.contains(&m.as_str())) {
                continue;
            }
            files.push((module, std::fs::read_to_string(&file).unwrap_or_default()));
        }
        Crate::from_files(files)
    }

    /// A crate of the given files (module path and text; the root is the file whose
    /// module path is empty).
    pub fn from_files(all: Vec<Source>) -> Crate {
        let mut modules = BTreeSet::from([Vec::new()]);
        for (module, _) in &all {
            for n in 1..=module.len() {
                modules.insert(module[..n].to_vec());
            }
        }
        let mut reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        for (module, text) in &all {
            for (name, full) in use_declarations(text, module, |m| modules.contains(m)) {
                reexports
                    .entry(module.clone())
                    .or_default()
                    .insert(name, full);
            }
        }
        let mut root = String::new();
        let mut files = Vec::new();
        for (module, text) in all {
            if module.is_empty() {
                root = text;
            } else {
                files.push((module, text));
            }
        }
        Crate {
            files,
            root,
            reexports,
            modules,
        }
    }

    /// The top-level modules of the crate.
    pub fn top_level(&self) -> BTreeSet<String> {
        self.modules
            .iter()
            .filter(|m| m.len() == 1)
            .map(|m| m[0].clone())
            .collect()
    }

    /// `path` (a full path from the crate root) and, when it goes through re-exports
    /// (`use` items), the paths they stand for, in turn: `["Terrain"]` with
    /// `pub use terrain::Terrain;` in the root gives `Terrain`, then `terrain::Terrain`.
    pub fn followed(&self, path: &[String]) -> Vec<Vec<String>> {
        let mut out = vec![path.to_vec()];
        let mut path = path.to_vec();
        'follow: while out.len() < 16 {
            for k in 0..path.len() {
                let (prefix, name) = (&path[..k], &path[k]);
                if !self.modules.contains(prefix) {
                    break 'follow;
                }
                let mut child = prefix.to_vec();
                child.push(name.clone());
                if self.modules.contains(&child) {
                    continue;
                }
                let Some(target) = self.reexports.get(prefix).and_then(|r| r.get(name)) else {
                    break 'follow;
                };
                let mut next = target.clone();
                next.extend(path[k + 1..].iter().cloned());
                if out.contains(&next) {
                    break 'follow;
                }
                out.push(next.clone());
                path = next;
                continue 'follow;
            }
            break;
        }
        out
    }

    /// Every crate path the file at `module` names (see [`crate_paths`]), with the
    /// paths its re-exports stand for ([`Crate::followed`]).
    pub fn named_paths(&self, text: &str, module: &[String]) -> Vec<Vec<String>> {
        crate_paths(text, module)
            .iter()
            .flat_map(|p| self.followed(p))
            .collect()
    }

    /// Top-level module -> the other top-level modules it names (re-exports followed).
    pub fn module_graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        let top_level = self.top_level();
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, text) in &self.files {
            let Some(top) = module.first().cloned() else {
                continue;
            };
            let named: BTreeSet<String> = self
                .named_paths(text, module)
                .into_iter()
                .filter_map(|p| p.first().cloned())
                .filter(|m| *m != top && top_level.contains(m))
                .collect();
            graph.entry(top).or_default().extend(named);
        }
        graph
    }
}

/// The layer (index into `layers`, lowest first) of a top-level module.
pub fn layer_of(layers: &[(&str, &[&str])], module: &str) -> Option<usize> {
    layers
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// What breaks the layering of `graph`: every top-level module not assigned to one of
/// `layers` (`name, modules`, lowest first), and every name of a module in a higher
/// layer (`walk (movement) names world (world)`).
pub fn upward_names(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layers: &[(&str, &[&str])],
) -> Vec<String> {
    let mut wrong = Vec::new();
    for (module, named) in graph {
        let Some(from) = layer_of(layers, module) else {
            wrong.push(format!("{module}: not assigned to a layer"));
            continue;
        };
        for other in named {
            match layer_of(layers, other) {
                Some(to) if to > from => wrong.push(format!(
                    "{module} ({}) names {other} ({})",
                    layers[from].0, layers[to].0
                )),
                _ => {}
            }
        }
    }
    wrong
}

/// A loop in `graph` (its first module repeated at the end: `a -> b -> a`), if any,
/// found by a depth-first search for a back edge.
pub fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
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
        let module = strings(&["api", "http", "mesh"]);
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
    }

    #[test]
    fn module_paths_of_files() {
        assert_eq!(
            module_path(Path::new("api/http/mesh.rs")),
            ["api", "http", "mesh"]
        );
        assert_eq!(module_path(Path::new("api/http/mod.rs")), ["api", "http"]);
        assert!(module_path(Path::new("lib.rs")).is_empty());
    }

    #[test]
    fn use_items_of_a_module() {
        let text = "pub use world::{Kind, Generator as G};\npub(crate) use super::grid::{self, Grid};\n\
                    use serde::Deserialize;\nuse crate::a::*;\nmod tests {\n    use crate::b::C;\n}\n\
                    // pub use world::Commented;\n";
        let module = strings(&["generator"]);
        let modules = [strings(&["generator", "world"])];
        let got: Vec<(String, String)> =
            use_declarations(text, &module, |m| modules.iter().any(|k| k == m))
                .into_iter()
                .map(|(name, path)| (name, path.join("::")))
                .collect();
        let want = [
            ("Kind", "generator::world::Kind"),
            ("Generator", "generator::world::Generator"),
            ("grid", "grid"),
            ("Grid", "grid::Grid"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(got, want);
    }

    #[test]
    fn paths_through_re_exports_are_followed() {
        let krate = Crate::from_files(vec![
            (
                vec![],
                "pub mod a;\npub mod b;\npub mod c;\npub use a::Thing;\n".into(),
            ),
            (
                strings(&["a"]),
                "mod inner;\npub use inner::Thing;\n".into(),
            ),
            (strings(&["a", "inner"]), "pub struct Thing;\n".into()),
            (strings(&["b"]), "use crate::Thing;\n".into()),
            (strings(&["c"]), "fn f() { super::b::g(); }\n".into()),
        ]);
        let followed: Vec<String> = krate
            .followed(&strings(&["Thing", "new"]))
            .iter()
            .map(|p| p.join("::"))
            .collect();
        assert_eq!(
            followed,
            ["Thing::new", "a::Thing::new", "a::inner::Thing::new"]
        );
        let graph = krate.module_graph();
        assert_eq!(graph["b"], BTreeSet::from(["a".to_string()]));
        assert_eq!(graph["c"], BTreeSet::from(["b".to_string()]));
        assert!(graph["a"].is_empty());
        assert_eq!(find_cycle(&graph), None);
    }

    #[test]
    fn upward_names_and_cycles_are_found() {
        let graph: BTreeMap<String, BTreeSet<String>> = [
            ("low", vec!["high"]),
            ("high", vec!["low"]),
            ("lost", vec![]),
        ]
        .into_iter()
        .map(|(m, named)| (m.to_string(), named.into_iter().map(String::from).collect()))
        .collect();
        let layers: &[(&str, &[&str])] = &[("bottom", &["low"]), ("top", &["high"])];
        assert_eq!(
            upward_names(&graph, layers),
            [
                "lost: not assigned to a layer",
                "low (bottom) names high (top)"
            ]
        );
        assert_eq!(find_cycle(&graph).unwrap(), ["high", "low", "high"]);
    }
}
