//! A stand-in host for the content panels, to try them as a designer would and to take
//! screenshots: each panel on one document, recompiled with the real compiler whenever the
//! panel changes it (what the editor's host does, minus saving and undo).
//!
//! ```sh
//! cargo run -p ensemble-editor --example panels -- rules samples/bench/bench.script.ron
//! cargo run -p ensemble-editor --example panels -- sentences samples/airport/airport.sentences.ron
//! cargo run -p ensemble-editor --example panels -- nav compiler/tests/data/movingai/den312d.map
//! ```

use eframe::egui;
use ensemble_compiler::Compilation;
use ensemble_compiler::diag::{Diagnostic, Diagnostics};
use ensemble_compiler::front::ron::SentencesAsset;
use ensemble_compiler::script::source::ScriptAsset;
use ensemble_compiler::source::{FileId, SourceFile, SourceMap};
use ensemble_editor::nav_view::{NavSettings, NavView};
use ensemble_editor::panel::{Compiled, PanelCx, ProjectNames};
use ensemble_editor::rules::RuleTable;
use ensemble_editor::theme;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A document as the host keeps it: the value, and the compile of its last settled state.
struct Doc<T> {
    path: PathBuf,
    value: T,
    compiled: Option<(T, Compilation)>,
    changed_at: Option<Instant>,
}

fn read<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(&text)
        .map_err(|e| format!("{}: {e}", path.display()))
}

impl<T: Clone + PartialEq + Serialize> Doc<T> {
    fn new(path: PathBuf, value: T) -> Self {
        let mut d = Doc {
            path,
            value,
            compiled: None,
            changed_at: None,
        };
        d.compile();
        d
    }

    /// Compiles the value as the file it would be saved as.
    fn compile(&mut self) {
        let text = ensemble_compiler::front::ron::to_canonical_string(&self.value);
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name.clone(), self.path.clone(), text));
        let project = ensemble_compiler::project::Project {
            name,
            sources,
            libraries: vec!["sim".into()],
            diagnostics: Diagnostics::default(),
        };
        self.compiled = Some((self.value.clone(), ensemble_compiler::compile(project)));
        self.changed_at = None;
    }

    /// Recompiles a short while after the last change (the host's debounce).
    fn settle(&mut self, changed: bool, ctx: &egui::Context) {
        if changed {
            self.changed_at = Some(Instant::now());
        }
        if let Some(t) = self.changed_at {
            if t.elapsed() > Duration::from_millis(250) {
                self.compile();
            } else {
                ctx.request_repaint_after(Duration::from_millis(50));
            }
        }
    }

    /// Shows `panel` on this document with the last compile's diagnostics, and recompiles
    /// after it changes the value.
    fn show(
        &mut self,
        ui: &mut egui::Ui,
        root: &Path,
        panel: impl FnOnce(&mut egui::Ui, &mut T, &PanelCx<'_>) -> bool,
    ) {
        let diagnostics: Vec<Diagnostic> = self
            .compiled
            .as_ref()
            .map(|(_, c)| c.diagnostics.iter().cloned().collect())
            .unwrap_or_default();
        let (names, requests) = (ProjectNames::default(), Default::default());
        let cx = PanelCx {
            compiled: self.compiled.as_ref().map(|(_, c)| Compiled {
                diagnostics: &diagnostics,
                sources: &c.sources,
                file: Some(FileId(0)),
                module: None,
                tests: None,
            }),
            ..PanelCx::detached(root, &names, &requests)
        };
        let changed = panel(ui, &mut self.value, &cx);
        self.settle(changed, ui.ctx());
    }
}

enum Shown {
    Rules(Box<(Doc<ScriptAsset>, RuleTable)>),
    Sentences(
        Box<(
            Doc<SentencesAsset>,
            ensemble_editor::sentences::SentenceEditor,
        )>,
    ),
    Nav(Box<(NavSettings, NavView)>),
}

struct Gallery {
    shown: Shown,
    root: PathBuf,
    themed: bool,
}

impl eframe::App for Gallery {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        if !self.themed {
            theme::apply(ui.ctx());
            self.themed = true;
        }
        let root = self.root.clone();
        egui::CentralPanel::default()
            .frame(
                egui::Frame::new()
                    .fill(theme::CANVAS)
                    .inner_margin(egui::Margin::same(10)),
            )
            .show(ui, |ui| match &mut self.shown {
                Shown::Rules(shown) => {
                    let (doc, panel) = &mut **shown;
                    doc.show(ui, &root, |ui, value, cx| panel.ui(ui, value, cx));
                }
                Shown::Sentences(shown) => {
                    let (doc, panel) = &mut **shown;
                    doc.show(ui, &root, |ui, value, cx| panel.ui(ui, value, cx));
                }
                Shown::Nav(shown) => {
                    let (settings, view) = &mut **shown;
                    let (names, requests) = (ProjectNames::default(), Default::default());
                    let cx = PanelCx::detached(&root, &names, &requests);
                    view.ui(ui, settings, &cx);
                }
            });
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: panels (rules FILE.script.ron | sentences FILE.sentences.ron | nav MAP.map) [--select N]";
    let (kind, path) = match args.as_slice() {
        [k, p, ..] => (k.as_str(), PathBuf::from(p)),
        _ => return Err(usage.into()),
    };
    let select: Option<usize> = args
        .iter()
        .position(|a| a == "--select")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok());
    let root = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let shown = match kind {
        "rules" => {
            let mut table = RuleTable::new();
            if let Some(n) = select {
                table.reveal(ensemble_editor::rules::RuleTarget::Cell(
                    n,
                    ensemble_editor::rules::Column::Precondition,
                ));
            }
            Shown::Rules(Box::new((Doc::new(path.clone(), read(&path)?), table)))
        }
        "sentences" => {
            let mut editor = ensemble_editor::sentences::SentenceEditor::new();
            if let Some(n) = select {
                editor.reveal(ensemble_editor::sentences::SentenceTarget::State(n));
            }
            Shown::Sentences(Box::new((Doc::new(path.clone(), read(&path)?), editor)))
        }
        "nav" => {
            let settings = NavSettings::open(path.clone());
            let mut view = NavView::new();
            if let Some(n) = select {
                view.reveal(ensemble_editor::nav_view::NavTarget::Scenario(n));
            }
            Shown::Nav(Box::new((settings, view)))
        }
        _ => return Err(usage.into()),
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(format!("Ensemble panels — {}", path.display()))
            .with_inner_size([1400.0, 860.0]),
        ..Default::default()
    };
    eframe::run_native(
        "ensemble-panels",
        options,
        Box::new(|_| {
            Ok(Box::new(Gallery {
                shown,
                root,
                themed: false,
            }))
        }),
    )
    .map_err(|e| e.to_string())
}
