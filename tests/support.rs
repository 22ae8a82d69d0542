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
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the golden file at line {}:\n  expected: {}\n  actual:   {}\n(run with UPDATE_GOLDEN=1 if the change is intended)",
            name,
            first + 1,
            expected.lines().nth(first).unwrap_or("<end>"),
            actual.lines().nth(first).unwrap_or("<end>")
        );
    }
}

/// Parses a JSON-lines trace (`ensemble run --trace json`), one event per line.
pub fn json_lines(trace: &str) -> Vec<serde_json::Value> {
    trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line ({e}): {l}")))
        .collect()
}
