//! docs/ARCHITECTURE.md's code map stays true: every repository path it names exists, it names
//! every top-level module of every crate in the workspace (a `src/NAME.rs` or `src/NAME/`), and
//! it points at nothing outside the repository. A failure says which line to add or fix.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn architecture() -> String {
    std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap()
}

/// Every `code span` of the document that is a repository path: it starts with a top-level
/// folder of the repository and has no wildcard (`*.ron` names a kind, not a file).
fn named_paths(doc: &str) -> Vec<(usize, String)> {
    let tops: Vec<String> = std::fs::read_dir(repo())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| format!("{}/", e.file_name().to_string_lossy()))
        .filter(|t| !t.starts_with('.') && t != "target/")
        .collect();
    let mut out = Vec::new();
    for (n, line) in doc.lines().enumerate() {
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1
                && !span.contains(['*', ' '])
                && tops.iter().any(|t| span.starts_with(t.as_str()))
            {
                out.push((n + 1, span.to_string()));
            }
        }
    }
    out
}

/// The workspace's members, from the root manifest (crates other work adds are seen too).
fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let list = manifest
        .split("members")
        .nth(1)
        .and_then(|rest| rest.split(['[', ']']).nth(1))
        .expect("the root Cargo.toml lists its members");
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// A crate's top-level modules as the code map names them: `member/src/NAME.rs` or
/// `member/src/NAME/` (the crate roots and unit-test files are not modules of their own).
fn top_level_modules(member: &str) -> Vec<String> {
    let src = repo().join(member).join("src");
    let Ok(entries) = std::fs::read_dir(&src) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                Some(format!("{member}/src/{name}/"))
            } else if name.ends_with(".rs") && !["lib.rs", "tests.rs"].contains(&name.as_str()) {
                Some(format!("{member}/src/{name}"))
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_path_the_code_map_names_exists() {
    let doc = architecture();
    let missing: Vec<String> = named_paths(&doc)
        .into_iter()
        .filter(|(_, p)| !repo().join(p).exists())
        .map(|(line, p)| format!("docs/ARCHITECTURE.md line {line}: `{p}` does not exist"))
        .collect();
    assert!(
        missing.is_empty(),
        "fix or remove these:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_code_map_names_every_crate_and_top_level_module() {
    let doc = architecture();
    let named: Vec<String> = named_paths(&doc).into_iter().map(|(_, p)| p).collect();
    let mut omitted = Vec::new();
    for member in members() {
        let heading = format!("### `{member}/`");
        if !doc.lines().any(|l| l.starts_with(&heading)) {
            omitted.push(format!(
                "the crate `{member}`: add a section `{heading} — <crate name>, <its job>` under `## Code map`"
            ));
        }
        for module in top_level_modules(&member) {
            if !named.contains(&module) {
                omitted.push(format!(
                    "`{module}`: add the line `- `{module}` — <its job and invariants>` under `{heading}`"
                ));
            }
        }
    }
    assert!(
        omitted.is_empty(),
        "docs/ARCHITECTURE.md's code map omits:\n{}",
        omitted.join("\n")
    );
}

#[test]
fn the_architecture_is_self_contained_and_short() {
    let doc = architecture();
    for outside in ["shared/", "DESIGN.md", "digest"] {
        assert!(
            !doc.contains(outside),
            "docs/ARCHITECTURE.md points outside the repository (`{outside}`); say it here instead"
        );
    }
    let lines = doc.lines().count();
    assert!(
        lines <= 250,
        "docs/ARCHITECTURE.md is {lines} lines; keep it under 250"
    );
}

/// The measure itself on a made-up document: a wildcard is a kind, not a path.
#[test]
fn paths_are_read_from_code_spans_only() {
    let doc = "See `compiler/src/lib.rs` and `*.ron`, not compiler/src/x.rs; `samples/a b`.";
    assert_eq!(
        named_paths(doc),
        vec![(1, "compiler/src/lib.rs".to_string())]
    );
}
