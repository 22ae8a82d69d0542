//! The editor's trace reader (File › Open trace…) on every input of the `trace` fuzz target's
//! corpus and regressions (compiler/fuzz/, docs/reliability.md): the fuzzer grows the corpus
//! through the runtime's reader, which the editor's uses; this replays each input through the
//! editor's whole reader, history and snapshots included, on stable. It must return, never
//! panic.

use ensemble_editor::preview::traced::read_trace;
use std::path::Path;

#[test]
fn every_trace_corpus_input_reads_or_is_refused_without_a_panic() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/fuzz");
    let mut read = 0;
    for dir in ["corpus/trace", "regressions/trace"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let outcome = std::panic::catch_unwind(|| read_trace("fuzz", &text).map(|_| ()));
            assert!(outcome.is_ok(), "{} panicked", path.display());
            read += 1;
        }
    }
    assert!(read >= 10, "only {read} inputs: the corpus is missing");
}
