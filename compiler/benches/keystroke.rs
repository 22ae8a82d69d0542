//! Keystroke to diagnostics, as the editor's diagnostics worker runs it: one source file of a
//! sample holds unsaved text (an overlay), the project is loaded with it and compiled, and the
//! diagnostics are what the editor shows. Each iteration types a different number into a comment
//! at the end of the file, so the text differs every time (no memo keyed by a file's text answers
//! for it) and stays the same length give or take a digit.
//!
//! Reproduce: `cargo bench -p ensemble-compiler --bench keystroke`.

use criterion::{Criterion, criterion_group, criterion_main};
use ensemble_compiler::project::Overlay;
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// The sample, and the file of it a designer is typing in.
const EDITS: [(&str, &str); 7] = [
    ("airport", "machines/BuyTicket.machine.ron"),
    ("bench", "bench.script.ron"),
    ("dinner-date", "machines/Cook.machine.ron"),
    ("innkeeper", "spaces/bar.space.ron"),
    ("shops", "baker.script.ron"),
    ("street-vendor", "vendor.script.ron"),
    ("weapon-shop", "machines/Buy.machine.ron"),
];

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
}

fn keystroke(c: &mut Criterion) {
    let mut group = c.benchmark_group("keystroke_to_diagnostics");
    group.sample_size(20);
    for (sample, file) in EDITS {
        let root = samples().join(sample);
        let original = std::fs::read_to_string(root.join(file)).unwrap();
        let mut keystroke = 0u64;
        group.bench_function(sample, |b| {
            b.iter(|| {
                keystroke += 1;
                let mut overlay = Overlay::default();
                overlay.set(file, format!("{original}\n// {keystroke}\n"));
                let compilation = ensemble_compiler::compile_path_with(&root, &overlay).unwrap();
                black_box(compilation.diagnostics.iter().count())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, keystroke);
criterion_main!(benches);
