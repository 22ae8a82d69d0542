//! Replays the committed fuzz corpus (`compiler/fuzz/corpus/<target>/`) and every kept crash
//! (`compiler/fuzz/regressions/<target>/`) through the same entry functions the cargo-fuzz
//! targets call, on stable: an input that once crashed, hung or ran out of memory stays fixed.
//! See docs/reliability.md for running the fuzzer itself.

use ensemble_compiler::fuzz::{Target, run};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The fuzzer's limit is 10 s an input in an optimised build; a debug build on a loaded machine
/// is several times slower, so only far past that is an input a hang to fix, not a busy CI.
const SLOW: Duration = Duration::from_secs(60);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// What replaying one input found wrong, if anything, and how long it took.
fn replay(target: Target, path: &Path) -> (Option<String>, Duration) {
    let bytes = std::fs::read(path).expect("a corpus file is readable");
    let started = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| run(target, &bytes)));
    let took = started.elapsed();
    let failure = match result {
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Some(format!("{}: panicked: {message}", path.display()))
        }
        Ok(()) if took > SLOW => Some(format!("{}: took {took:.1?}", path.display())),
        Ok(()) => None,
    };
    (failure, took)
}

#[test]
fn every_corpus_and_regression_input_reads_without_panicking() {
    let mut jobs = Vec::new();
    for target in Target::all() {
        let corpus = inputs(&fuzz_dir().join("corpus").join(target.name()));
        assert!(
            !corpus.is_empty(),
            "target `{}` has no committed corpus in compiler/fuzz/corpus/{}",
            target.name(),
            target.name()
        );
        let regressions = inputs(&fuzz_dir().join("regressions").join(target.name()));
        jobs.extend(corpus.into_iter().chain(regressions).map(|p| (target, p)));
    }
    // Thousands of small inputs: every core takes every n-th one.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results: Vec<(Option<String>, Duration, &Path)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let jobs = &jobs;
                scope.spawn(move || {
                    jobs.iter()
                        .skip(i)
                        .step_by(threads)
                        .map(|(target, path)| {
                            let (failure, took) = replay(*target, path);
                            (failure, took, path.as_path())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("panics are caught per input"))
            .collect()
    });
    let slowest = results.iter().max_by_key(|(_, took, _)| *took);
    if let Some((_, took, path)) = slowest {
        eprintln!(
            "replayed {} inputs; slowest {took:.2?} ({})",
            results.len(),
            path.display()
        );
    }
    let failures: Vec<&String> = results.iter().filter_map(|(f, _, _)| f.as_ref()).collect();
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The cargo-fuzz crate has one target file per [`Target`], each naming its target.
#[test]
fn every_target_has_a_cargo_fuzz_target() {
    let dir = fuzz_dir().join("fuzz_targets");
    let mut names: Vec<String> = inputs(&dir)
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    let mut expected: Vec<String> = Target::all().iter().map(|t| t.name().to_string()).collect();
    expected.sort();
    assert_eq!(names, expected);
    for name in &names {
        let text = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        assert!(
            text.contains(&format!("Target::from_name(\"{name}\")")),
            "fuzz_targets/{name}.rs does not run target `{name}`"
        );
        assert!(Target::from_name(name).is_some());
    }
}
