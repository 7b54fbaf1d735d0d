//! The documentation cannot rot: every relative link of README.md and of the book under
//! `docs/src` names a file that exists, every `#anchor` names a heading of its target (by
//! mdBook's and GitHub's rule for heading ids), and every chapter is in the book's
//! `SUMMARY.md`. `scripts/test-all.sh` also builds the book with `mdbook`.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// A Markdown file's heading ids and link targets.
struct Page {
    ids: BTreeSet<String>,
    links: Vec<String>,
}

/// A heading's id as mdBook and GitHub make it: lowercase letters, digits, `-` and `_`
/// kept, whitespace turned into `-`, everything else dropped; a repeated id gets `-1`,
/// `-2`, ...
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

fn read_page(path: &Path) -> Page {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ids = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let id = heading_id(&heading.take().unwrap_or_default());
                let n = seen.entry(id.clone()).or_default();
                ids.insert(if *n == 0 { id } else { format!("{id}-{n}") });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            _ => {}
        }
    }
    Page { ids, links }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![root.join("README.md")];
    let mut chapters = Vec::new();
    markdown_under(&root.join("docs/src"), &mut chapters);
    chapters.sort();
    files.extend(chapters);
    files
}

/// Every Markdown file under `dir`, subdirectories (the reference part) included.
fn markdown_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a docs directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            markdown_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The problems of one link from `from`, if any.
fn check_link(
    from: &Path,
    link: &str,
    page_ids: &dyn Fn(&Path) -> BTreeSet<String>,
) -> Option<String> {
    if link.contains("://") || link.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match link.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (link, None),
    };
    let target = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().expect("a directory").join(path)
    };
    if !target.exists() {
        return Some(format!("{link}: no file {}", target.display()));
    }
    match anchor {
        Some(anchor) if target.extension().is_some_and(|e| e == "md") => {
            let ids = page_ids(&target);
            (!ids.contains(anchor)).then(|| format!("{link}: no heading with id {anchor:?}"))
        }
        _ => None,
    }
}

#[test]
fn every_link_resolves() {
    let ids = |p: &Path| read_page(p).ids;
    let mut problems = Vec::new();
    let files = documents();
    assert!(files.len() > 10, "the book has its chapters: {files:?}");
    for file in &files {
        for link in read_page(file).links {
            if let Some(problem) = check_link(file, &link, &ids) {
                problems.push(format!("{}: {problem}", file.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_chapter_is_in_the_summary() {
    let root = repo();
    let summary = read_page(&root.join("docs/src/SUMMARY.md"));
    let listed: BTreeSet<&str> = summary.links.iter().map(String::as_str).collect();
    let src = root.join("docs/src");
    for file in documents().iter().skip(1) {
        let name = file
            .strip_prefix(&src)
            .ok()
            .and_then(|n| n.to_str())
            .expect("a chapter under docs/src");
        if name != "SUMMARY.md" {
            assert!(listed.contains(name), "{name} is not in SUMMARY.md");
        }
    }
}

#[test]
fn heading_ids_follow_mdbook() {
    assert_eq!(
        heading_id("Client SDK (terrain-client)"),
        "client-sdk-terrain-client"
    );
    assert_eq!(
        heading_id("Stream and message limits"),
        "stream-and-message-limits"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("p.md");
    std::fs::write(
        &page,
        "# A `b` c\n\n## Limits\n\n## Limits\n\n[x](#limits-1) [y](#nope) [z](q.md)\n",
    )
    .expect("write");
    let read = read_page(&page);
    assert_eq!(
        read.ids.into_iter().collect::<Vec<_>>(),
        ["a-b-c", "limits", "limits-1"]
    );
    let ids = |p: &Path| read_page(p).ids;
    assert_eq!(check_link(&page, "#limits-1", &ids), None);
    assert!(check_link(&page, "#nope", &ids).is_some());
    assert!(check_link(&page, "q.md", &ids).is_some());
}
