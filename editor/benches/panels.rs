//! The content panels' cost per frame on the CPU (docs/benchmarks/editor.md, "Editor panels"): one egui
//! frame of the panel (layout and interaction) plus its tessellation into triangles, headless,
//! so what a GPU or software rasteriser then draws is left out.
//!
//! - `rule table/N rules`: the bench script's rules repeated to N, the view at the top.
//! - `sentence states/airport`: the airport's sentence states with ConfirmFlightX's ranked
//!   candidates on screen (the ranking itself runs on the worker and is not in the frame).
//! - `nav view/64room_005`: the 512×512 map's texture and a scenario's two paths.

use criterion::{Criterion, criterion_group, criterion_main};
use eframe::egui;
use ensemble_compiler::front::ron::SentencesAsset;
use ensemble_editor::nav_view::{NavSettings, NavTarget, NavView};
use ensemble_editor::panel::{PanelCx, ProjectNames};
use ensemble_editor::rules::RuleTable;
use ensemble_editor::sentences::SentenceEditor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// One frame of `show` in a 1400×860 window, tessellated.
fn frame(ctx: &egui::Context, show: &mut dyn FnMut(&mut egui::Ui)) -> usize {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 860.0),
        )),
        ..Default::default()
    };
    let out = ctx.run_ui(input, |ui| {
        egui::CentralPanel::default().show(ui, |ui| show(ui));
    });
    ctx.tessellate(out.shapes, out.pixels_per_point).len()
}

fn rule_table(c: &mut Criterion) {
    let (bench, _) =
        ensemble_editor::rules::excel::import(&repo("samples/bench/bench.xlsx")).unwrap();
    let (names, requests) = (ProjectNames::default(), Default::default());
    let root = repo(".");
    let mut g = c.benchmark_group("rule table");
    for n in [8usize, 500, 2000] {
        let mut script = bench.clone();
        script.rules = bench.rules.iter().cycle().take(n).cloned().collect();
        let mut table = RuleTable::with_picker(Box::new(|_| {
            ensemble_editor::file_dialog::Answer::Cancelled
        }));
        let ctx = egui::Context::default();
        let cx = PanelCx::detached(&root, &names, &requests);
        let mut show = |ui: &mut egui::Ui| {
            table.ui(ui, &mut script, &cx);
        };
        for _ in 0..3 {
            frame(&ctx, &mut show);
        }
        g.bench_function(format!("{n} rules"), |b| b.iter(|| frame(&ctx, &mut show)));
    }
    g.finish();
}

fn sentence_states(c: &mut Criterion) {
    let path = repo("samples/airport/airport.sentences.ron");
    let mut asset: SentencesAsset = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap();
    let (names, requests) = (ProjectNames::default(), Default::default());
    let root = repo("samples/airport");
    let cx = PanelCx::detached(&root, &names, &requests);
    let mut editor = SentenceEditor::new();
    let ctx = egui::Context::default();
    // Until the worker's ranking is on screen.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        frame(&ctx, &mut |ui| {
            editor.ui(ui, &mut asset, &cx);
        });
        let (list, current) = editor.shown_candidates();
        if current && !list.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the ranking never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut show = |ui: &mut egui::Ui| {
        editor.ui(ui, &mut asset, &cx);
    };
    c.bench_function("sentence states/airport", |b| {
        b.iter(|| frame(&ctx, &mut show))
    });
}

fn nav_view(c: &mut Criterion) {
    let map = std::env::var_os("ENSEMBLE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
        .join("movingai/64room_005.map");
    assert!(map.is_file(), "missing reference data {}", map.display());
    let mut settings = NavSettings::open(map);
    let mut view =
        NavView::with_picker(Box::new(|| ensemble_editor::file_dialog::Answer::Cancelled));
    view.reveal(NavTarget::Scenario(2000));
    let (names, requests) = (ProjectNames::default(), Default::default());
    let root = repo(".");
    let cx = PanelCx::detached(&root, &names, &requests);
    let ctx = egui::Context::default();
    let deadline = Instant::now() + Duration::from_secs(600);
    while view.answer().is_none() {
        frame(&ctx, &mut |ui| {
            view.ui(ui, &mut settings, &cx);
        });
        assert!(Instant::now() < deadline, "the hierarchy was never built");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut show = |ui: &mut egui::Ui| {
        view.ui(ui, &mut settings, &cx);
    };
    c.bench_function("nav view/64room_005", |b| b.iter(|| frame(&ctx, &mut show)));
}

criterion_group!(benches, rule_table, sentence_states, nav_view);
criterion_main!(benches);
