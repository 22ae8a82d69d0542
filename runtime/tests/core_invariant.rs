//! The core's invariant (docs/ARCHITECTURE.md): it knows no world and no simulator. Its manifest
//! depends on no simulator, editor, compiler or engine crate, and no source file of the core
//! names the simulated world; everything that touches a world goes through `world::World`.

use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Crates the core must never depend on (DESIGN.md, "Dependency direction").
const FORBIDDEN_CRATES: &[&str] = &[
    "ensemble-sim",
    "ensemble-compiler",
    "ensemble-cli",
    "ensemble-editor",
    "egui",
    "eframe",
    "calamine",
    "metis",
];

/// Spellings by which a source file would reach the simulated world.
const FORBIDDEN_WORDS: &[&str] = &[
    "ensemble_sim",
    "ensemble-sim",
    "SimWorld",
    "mod sim",
    "sim::",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_manifest_depends_on_no_simulator_and_no_tool() {
    let manifest = fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let mut section = String::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        // notify is allowed only as the optional hot-reload feature.
        if section.contains("dependencies") && line.starts_with("notify") {
            assert!(
                line.contains("optional = true"),
                "notify must stay optional: {line}"
            );
        }
        for name in FORBIDDEN_CRATES {
            let named = line
                .split(['=', ' ', '.'])
                .next()
                .is_some_and(|key| key.trim_matches('"') == *name);
            assert!(
                !(section.contains("dependencies") && named),
                "runtime/Cargo.toml {section} depends on `{name}`"
            );
        }
    }
}

#[test]
fn no_source_of_the_core_names_the_simulated_world() {
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    rust_files(&Path::new(ROOT).join("benches"), &mut files);
    assert!(files.len() > 50, "found only {} sources", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for word in FORBIDDEN_WORDS {
                if line.contains(word) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core names the simulator:\n{}",
        found.join("\n")
    );
    assert!(
        !Path::new(ROOT).join("src/sim").exists() && !Path::new(ROOT).join("src/sim.rs").exists(),
        "the core has a `sim` module"
    );
}
