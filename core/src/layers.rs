//! A test of the crate's layering: which module may name which.
//!
//! Every top-level module belongs to one layer ([`LAYERS`], lowest first, as the crate
//! docs list them under "Layers"). The test reads the sources and fails when
//!
//! - a module names (through `crate::`, `super::` or `self::`, use groups included,
//!   re-exports such as `crate::Terrain` followed to their module) a module of a layer
//!   above its own, or the top-level modules name each other in a loop;
//! - a generator (`generator::hyperscape`, `generator::osrs`, `generator::voxel`)
//!   names another generator or the enum that picks one (`generator::world_generator`),
//!   or the trait (`generator` itself, `generator::grid`) names a generator: what they
//!   share lives in the trait's module or a layer below;
//! - the crate docs' "Layers" list or their module tour disagree with [`LAYERS`].
//!
//! The source reading and path parsing are terrain-layering's (tools/layering), shared
//! with terrain-server's layers test; the layers and the checks are this crate's.

use std::path::Path;

use terrain_layering::{Crate, find_cycle, under, upward_names};

/// The layer of each top-level module, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    ("support", &["names", "quote", "coordinate", "maths"]),
    ("zones", &["zones"]),
    ("tiles", &["tile"]),
    ("generators", &["generator"]),
    ("layout", &["layout"]),
    ("terrain", &["terrain"]),
    ("world", &["world"]),
    ("meshes", &["mesh"]),
    ("tilesets", &["tiles3d"]),
    ("movement", &["walk"]),
];

/// The generators, side by side: none names another.
const GENERATORS: &[&[&str]] = &[
    &["generator", "hyperscape"],
    &["generator", "osrs"],
    &["generator", "voxel"],
];

/// The enum that picks a generator: above the generators, which never name it.
const PICKER: &[&str] = &["generator", "world_generator"];

/// The trait's own files: they name no generator.
const TRAIT: &[&[&str]] = &[&["generator"], &["generator", "grid"]];

/// The crate's sources (this test left out).
fn read() -> Crate {
    Crate::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &["layers"],
    )
}

/// For each file of `krate` that names what it must not in `generator`: the file and
/// what it names.
fn generator_crossings(krate: &Crate) -> Vec<String> {
    let mut wrong = Vec::new();
    for (module, text) in &krate.files {
        let own = GENERATORS.iter().find(|g| under(module, g));
        let is_trait = TRAIT.iter().any(|t| module.as_slice() == *t);
        if own.is_none() && !is_trait {
            continue;
        }
        for path in krate.named_paths(text, module) {
            let other = GENERATORS
                .iter()
                .find(|g| Some(*g) != own && under(&path, g));
            let crossed = match other {
                Some(g) => Some(*g),
                None if own.is_some() && under(&path, PICKER) => Some(PICKER),
                None => None,
            };
            if let Some(crossed) = crossed {
                wrong.push(format!(
                    "{} names {} ({})",
                    module.join("::"),
                    crossed.join("::"),
                    path.join("::")
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    wrong
}

/// The lines of the crate docs' section `heading` (`# Layers`), indentation kept: from
/// the line after it to the next heading.
fn docs_section(root: &str, heading: &str) -> Vec<String> {
    root.lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The modules linked as `` [`name`] `` in `text`, in order.
fn linked(text: &str) -> Vec<String> {
    text.split("[`")
        .skip(1)
        .filter_map(|s| s.split_once("`]").map(|(name, _)| name.to_string()))
        .collect()
}

#[test]
fn modules_name_only_their_layer_or_below() {
    let graph = read().module_graph();
    assert!(graph.contains_key("generator") && graph.contains_key("walk"));
    let wrong = upward_names(&graph, LAYERS);
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn top_level_modules_have_no_cycle() {
    if let Some(cycle) = find_cycle(&read().module_graph()) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn generators_name_neither_each_other_nor_the_enum() {
    let krate = read();
    for g in GENERATORS.iter().chain([&PICKER]) {
        assert!(
            krate.files.iter().any(|(m, _)| under(m, g)),
            "{} has files",
            g.join("::")
        );
    }
    let wrong = generator_crossings(&krate);
    assert!(
        wrong.is_empty(),
        "generators naming each other or the enum:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_generator_naming_another_is_found() {
    let krate = Crate::from_files(vec![
        (
            vec![],
            "pub mod generator;\npub use generator::Kind;\n".into(),
        ),
        (
            vec!["generator".into()],
            "pub mod osrs;\npub mod voxel;\nmod world_generator;\npub use world_generator::Kind;\n"
                .into(),
        ),
        (
            vec!["generator".into(), "world_generator".into()],
            String::new(),
        ),
        (
            vec!["generator".into(), "osrs".into()],
            "use super::voxel::CHUNK;\nuse crate::Kind;\nuse super::Generator;\n".into(),
        ),
        (vec!["generator".into(), "voxel".into()], String::new()),
    ]);
    assert_eq!(
        generator_crossings(&krate),
        [
            "generator::osrs names generator::voxel (generator::voxel::CHUNK)",
            "generator::osrs names generator::world_generator (generator::world_generator::Kind)",
        ]
    );
}

#[test]
fn the_crate_docs_list_the_layers() {
    let root = read().root;
    let listed: Vec<(String, Vec<String>)> = docs_section(&root, "# Layers")
        .iter()
        .filter_map(|l| {
            // `3. **tiles**: [`tile`]: how the ground ...`
            let (_, rest) = l.split_once(". **")?;
            let (name, rest) = rest.split_once("**:")?;
            let modules = rest.split(": ").next().unwrap_or_default();
            Some((name.to_string(), linked(modules)))
        })
        .collect();
    let want: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(name, modules)| {
            (
                name.to_string(),
                modules.iter().map(|m| m.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(listed, want, "the crate docs' layers differ from LAYERS");
}

#[test]
fn the_tour_names_every_module_in_layer_order() {
    let krate = read();
    let tour: Vec<String> = docs_section(&krate.root, "# Modules")
        .iter()
        // Top-level bullets only: a nested one is a part of its module.
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| linked(l).into_iter().next())
        .collect();
    let mut top_level: Vec<String> = krate.top_level().into_iter().collect();
    let mut sorted_tour = tour.clone();
    sorted_tour.sort();
    top_level.sort();
    assert_eq!(sorted_tour, top_level, "the tour names each module once");
    let layers: Vec<usize> = tour
        .iter()
        .map(|m| terrain_layering::layer_of(LAYERS, m).expect("a layer"))
        .collect();
    assert!(
        layers.is_sorted(),
        "the tour is in layer order: {tour:?} (layers {layers:?})"
    );
}
