//! Shared helpers for the end-to-end tests: run the real `ensemble` command line in-process and
//! find the repository's samples.

use std::path::PathBuf;

/// What one invocation printed and returned.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `ensemble ARGS...` exactly as the binary would, capturing its output.
pub fn ensemble(args: &[&str]) -> Output {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = {
        let mut io = ensemble_compiler::cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        let argv = std::iter::once("ensemble").chain(args.iter().copied());
        ensemble_compiler::cli::run(argv, &mut io)
    };
    Output {
        code,
        stdout: String::from_utf8(out).expect("stdout is UTF-8"),
        stderr: String::from_utf8(err).expect("stderr is UTF-8"),
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A path below the repository root, as a string for argument lists.
pub fn repo_path(rel: &str) -> String {
    root().join(rel).to_string_lossy().into_owned()
}

/// Compares `actual` with the golden file `tests/golden/NAME`; with `UPDATE_GOLDEN=1` rewrites it.
pub fn assert_golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{name} differs from the golden file at {}\n(run with UPDATE_GOLDEN=1 if the change is intended)",
            first_difference(&expected, actual)
        );
    }
}

/// Where two traces first differ: the line number and both lines.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    format!(
        "line {}:\n  expected: {}\n  actual:   {}",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    )
}

/// Parses a JSON-lines trace (`ensemble run --trace json`), one event per line.
pub fn json_lines(trace: &str) -> Vec<serde_json::Value> {
    trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line ({e}): {l}")))
        .collect()
}

/// `ensemble run SAMPLE --scene SCENE` with a tick count, a seed and a failure rate, as a JSON
/// trace: the raw lines and the parsed events.
pub fn run_trace(
    sample: &str,
    scene: &str,
    ticks: u64,
    seed: u64,
    fail_rate: &str,
) -> (String, Vec<serde_json::Value>) {
    let out = ensemble(&[
        "run",
        &repo_path(sample),
        "--scene",
        scene,
        "--ticks",
        &ticks.to_string(),
        "--seed",
        &seed.to_string(),
        "--trace",
        "json",
        "--fail-rate",
        fail_rate,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    (out.stdout, events)
}

/// The arguments of an `add`/`del` event's fact if it is of `predicate`: `reserved(seat1,elder)`
/// gives `["seat1", "elder"]`.
pub fn fact_args(e: &serde_json::Value, predicate: &str) -> Option<Vec<String>> {
    let fact = e["fact"].as_str()?;
    let inner = fact
        .strip_prefix(predicate)?
        .strip_prefix('(')?
        .strip_suffix(')')?;
    Some(inner.split(',').map(str::to_string).collect())
}

/// The 1-based line and column where `at` first occurs in `text` (what diagnostics report).
pub fn line_col(text: &str, at: &str) -> (u64, u64) {
    let offset = text
        .find(at)
        .unwrap_or_else(|| panic!("`{at}` is not in the text"));
    let line = text[..offset].matches('\n').count() + 1;
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u64, column as u64)
}

/// `ensemble import` of a sample's workbook gives exactly the committed native asset.
pub fn assert_import_reproduces(workbook: &str, asset: &str) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("imported.script.ron");
    let r = ensemble(&["import", &repo_path(workbook), "-o", out.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(repo_path(asset)).unwrap(),
        "re-import {workbook} after changing it"
    );
}

/// Builds a project with `ensemble build` and loads the program it wrote.
pub fn build_program(project: &std::path::Path, name: &str) -> ensemble_runtime::Program {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = ensemble(&[
        "build",
        project.to_str().unwrap(),
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    ensemble_runtime::Program::load(&dir.path().join(format!("{name}.ensb"))).unwrap()
}

/// Copies the folder `from` and everything in it to `to` (a sample to edit in a test).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
