//! BENCHMARKS.md opens with the table of current figures, and every command in it names
//! something that exists: `cargo bench -p PACKAGE --bench NAME` a bench declared by (or in the
//! `benches/` of) a workspace package, another cargo command a package (and its example, bench
//! or test) that exists, `ensemble SUBCOMMAND…` a subcommand the CLI accepts, `python3 FILE` or
//! `bash FILE` a file of the repository. A failure names the row and what is missing.

use ensemble_tests::{ensemble, root as repo};
use std::path::{Path, PathBuf};

/// One row of the summary table: its line, its first cell, and its command cell's code spans.
struct Row {
    line: usize,
    measure: String,
    commands: Vec<String>,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The first table of BENCHMARKS.md, which must come before the first `##` heading and have a
/// `command` column.
fn summary_rows() -> Vec<Row> {
    let text = std::fs::read_to_string(repo().join("BENCHMARKS.md")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with('|'))
        .expect("BENCHMARKS.md has a table");
    if let Some(heading) = lines.iter().position(|l| l.starts_with("## ")) {
        assert!(
            heading > header,
            "BENCHMARKS.md must open with the table of current figures, before its first section (line {})",
            heading + 1
        );
    }
    let names = cells(lines[header]);
    let column = names
        .iter()
        .position(|c| c == "command")
        .unwrap_or_else(|| panic!("the summary table has no `command` column: {names:?}"));
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(header + 2) {
        if !line.trim_start().starts_with('|') {
            break;
        }
        let row = cells(line);
        assert_eq!(
            row.len(),
            names.len(),
            "BENCHMARKS.md:{}: {} cells, the header has {}",
            i + 1,
            row.len(),
            names.len()
        );
        let commands = row[column]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        rows.push(Row {
            line: i + 1,
            measure: row[0].clone(),
            commands,
        });
    }
    rows
}

/// The workspace's packages: name → folder.
fn packages() -> Vec<(String, PathBuf)> {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("the root manifest lists its members")
        .0;
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| {
            let dir = repo().join(m);
            let toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            let name = toml
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .expect("a package name")
                .trim_matches('"')
                .to_string();
            (name, dir)
        })
        .collect()
}

/// Whether the package in `dir` has a target of `kind` (`bench`, `example`, `test`) called
/// `name`: declared in its manifest, or a file of the folder cargo finds them in.
fn has_target(dir: &Path, kind: &str, name: &str) -> bool {
    let toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let declared = toml.split(&format!("[[{kind}]]")).skip(1).any(|section| {
        section
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = "))
            .is_some_and(|n| n.trim_matches('"') == name)
    });
    let folder = dir.join(format!("{kind}s"));
    declared || folder.join(format!("{name}.rs")).is_file() || folder.join(name).is_dir()
}

/// The value after `flag` (`-p X`, `--bench Y`) in `words`.
fn flag<'a>(words: &[&'a str], names: &[&str]) -> Option<&'a str> {
    words
        .windows(2)
        .find(|w| names.contains(&w[0]))
        .map(|w| w[1])
}

/// What is wrong with `command`, if anything.
fn check(command: &str) -> Result<(), String> {
    // Leading `NAME=value` settings are the environment, not the command.
    let words: Vec<&str> = command
        .split_whitespace()
        .skip_while(|w| w.split_once('=').is_some_and(|(k, _)| !k.starts_with('-')))
        .collect();
    match words.first().copied() {
        Some("cargo") => {
            let sub = words.get(1).copied().unwrap_or_default();
            if !["bench", "build", "run", "test"].contains(&sub) {
                return Err(format!("`cargo {sub}` is not a command this table uses"));
            }
            let package =
                flag(&words, &["-p", "--package"]).ok_or_else(|| "no `-p PACKAGE`".to_string())?;
            let packages = packages();
            let (_, dir) = packages
                .iter()
                .find(|(n, _)| n == package)
                .ok_or_else(|| format!("no package `{package}` in the workspace"))?;
            if sub == "bench" && flag(&words, &["--bench"]).is_none() {
                return Err("`cargo bench` without `--bench NAME`".into());
            }
            for kind in ["bench", "example", "test"] {
                let option = format!("--{kind}");
                if let Some(name) = flag(&words, &[option.as_str()])
                    && !has_target(dir, kind, name)
                {
                    return Err(format!("package `{package}` has no {kind} `{name}`"));
                }
            }
            Ok(())
        }
        Some("ensemble" | "target/release/ensemble") => {
            // The subcommand path: the words before the first argument (a path, a value, a
            // flag, a placeholder in capitals).
            let path: Vec<&str> = words[1..]
                .iter()
                .copied()
                .take_while(|w| {
                    !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                })
                .filter(|w| !w.starts_with('-'))
                .collect();
            if path.is_empty() {
                return Err("no subcommand".into());
            }
            let mut args = vec!["--help"];
            args.splice(0..0, path.iter().copied());
            let out = ensemble(&args);
            if out.code == 0 && out.stdout.contains("Usage:") {
                Ok(())
            } else {
                Err(format!(
                    "`ensemble {}` is not a subcommand: {}",
                    path.join(" "),
                    out.stderr
                ))
            }
        }
        Some("python3" | "bash") => {
            let file = words.get(1).ok_or("no file")?;
            if repo().join(file).is_file() {
                Ok(())
            } else {
                Err(format!("no file `{file}` in the repository"))
            }
        }
        other => Err(format!(
            "`{}` is neither a bench, a script nor the CLI",
            other.unwrap_or_default()
        )),
    }
}

#[test]
fn every_command_of_the_summary_table_names_a_bench_script_or_subcommand_that_exists() {
    let rows = summary_rows();
    assert!(rows.len() >= 20, "only {} rows", rows.len());
    let mut problems = Vec::new();
    for row in &rows {
        if row.commands.is_empty() {
            problems.push(format!(
                "BENCHMARKS.md:{}: `{}` has no command",
                row.line, row.measure
            ));
        }
        for command in &row.commands {
            if let Err(why) = check(command) {
                problems.push(format!("BENCHMARKS.md:{}: `{command}`: {why}", row.line));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_refuse_what_does_not_exist() {
    for (command, why) in [
        (
            "cargo bench -p ensemble-runtime --bench tock",
            "no bench `tock`",
        ),
        ("cargo bench -p ensemble-runtim --bench tick", "no package"),
        ("cargo bench -p ensemble-runtime", "without `--bench"),
        ("ensemble nav biuld MAP.map -o x", "not a subcommand"),
        ("ensemble plna DOMAIN PROBLEM", "not a subcommand"),
        ("python3 compiler/benches/plan_compere.py", "no file"),
        ("make bench", "neither"),
    ] {
        let e = check(command).expect_err(command);
        assert!(e.contains(why), "{command}: {e}");
    }
    for command in [
        "cargo bench -p ensemble-compiler --bench nav",
        "ENSEMBLE_NGR=/tmp/corpus.ngr cargo bench -p ensemble-compiler --bench ngram",
        "cargo build -p ensemble-bevy --example airport --features game",
        "ensemble nav query MAP.ensnav --scen MAP.map.scen --format json",
        "ensemble run samples/airport --scene ticket-counter",
        "bash .ci/run",
    ] {
        check(command).unwrap_or_else(|e| panic!("{command}: {e}"));
    }
}
