//! The editor's CPU costs, headless (no display, no GPU): one UI frame of a 500-state machine
//! (egui layout, egui-snarl, our panels, and egui's tessellation into triangles — everything
//! but rasterising them), and the background compile that turns a keystroke into diagnostics,
//! on each sample.
//!
//! `cargo bench -p ensemble-editor --bench editor`

#[path = "support/mod.rs"]
mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use eframe::egui;
use egui_kittest::Harness;
use ensemble_compiler::front::ron::ModifierValue;
use ensemble_editor::EditorApp;
use ensemble_editor::analysis::Analysis;
use ensemble_editor::document::Project;
use std::path::Path;

fn frame(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    support::big_project(dir.path(), 500);
    let mut group = c.benchmark_group("editor frame");
    for (name, fit) in [
        ("500 states, fitted", true),
        ("500 states, zoom 1:1", false),
    ] {
        let mut harness = Harness::builder()
            .with_size(egui::vec2(1600.0, 1000.0))
            .build_ui_state(
                |ui, app: &mut EditorApp| app.show(ui),
                EditorApp::open(dir.path()),
            );
        harness.run_steps(4);
        if !fit {
            // Zoom back to 1:1 around the middle: the densest readable view.
            harness.event(egui::Event::Zoom(2.0));
            harness.run_steps(2);
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                harness.step();
                // Tessellation is part of a frame's CPU cost; rasterising is not measured here.
                let shapes = harness.output().shapes.clone();
                let ppp = harness.ctx.pixels_per_point();
                std::hint::black_box(harness.ctx.tessellate(shapes, ppp));
            })
        });
    }
    group.finish();
}

fn samples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
}

/// Keystroke to diagnostics, minus the 150 ms debounce: print the edited document, compile the
/// project with it as an overlay, and locate every diagnostic — what the worker does.
fn diagnostics(c: &mut Criterion) {
    let mut group = c.benchmark_group("keystroke to diagnostics (after the debounce)");
    group.sample_size(20);
    for sample in ["airport", "bench", "innkeeper"] {
        let mut project = Project::open(&samples().join(sample)).unwrap();
        // One edit in one document: a state's modifier, a rule's precondition, a space state's name.
        let doc = project
            .docs
            .iter()
            .position(|d| {
                d.state.machine().is_some()
                    || d.state.path.ends_with(".script.ron")
                    || d.state.path.ends_with(".space.ron")
            })
            .unwrap();
        use ensemble_compiler::front::ron::any::AnyAsset;
        match project.docs[doc].state.asset_mut().unwrap() {
            AnyAsset::Machine(m) => m.states[1].modifier = Some(ModifierValue::Name("Gate".into())),
            AnyAsset::Script(s) => s.rules[0].precondition.push_str(", seat(X)"),
            AnyAsset::Space(s) => s.states[0].to[0].1 = 0.6,
            _ => unreachable!(),
        }
        let root = project.root.clone();
        let mut analysis = Analysis::new();
        group.bench_function(sample, |b| {
            b.iter(|| {
                analysis.compile_now(&root, &project);
                std::hint::black_box(analysis.current.as_ref().map(|r| r.located.len()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, frame, diagnostics);
criterion_main!(benches);
