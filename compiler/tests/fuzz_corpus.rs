//! Replays the committed fuzz corpus (`compiler/fuzz/corpus/<target>/`) and every kept crash
//! (`compiler/fuzz/regressions/<target>/`) through the same entry functions the cargo-fuzz
//! targets call, on stable: an input that once crashed, hung or ran out of memory stays fixed.
//! See docs/reliability.md for running the fuzzer itself.

use ensemble_compiler::fuzz::{Target, run};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A debug build is 10–30× slower than the fuzzer's optimised one, whose limit is 10 s an
/// input; anything near this is a hang to fix, not a slow machine.
const SLOW: Duration = Duration::from_secs(20);

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

#[test]
fn every_corpus_and_regression_input_reads_without_panicking() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    let mut slowest = (Duration::ZERO, PathBuf::new());
    for target in Target::all() {
        let corpus = inputs(&fuzz_dir().join("corpus").join(target.name()));
        assert!(
            !corpus.is_empty(),
            "target `{}` has no committed corpus in compiler/fuzz/corpus/{}",
            target.name(),
            target.name()
        );
        let regressions = inputs(&fuzz_dir().join("regressions").join(target.name()));
        for path in corpus.iter().chain(&regressions) {
            let bytes = std::fs::read(path).expect("a corpus file is readable");
            let started = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| run(target, &bytes)));
            let took = started.elapsed();
            if took > slowest.0 {
                slowest = (took, path.clone());
            }
            if let Err(panic) = result {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: panicked: {message}", path.display()));
            } else if took > SLOW {
                failures.push(format!("{}: took {took:.1?}", path.display()));
            }
            replayed += 1;
        }
    }
    eprintln!(
        "replayed {replayed} inputs; slowest {:.2?} ({})",
        slowest.0,
        slowest.1.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
