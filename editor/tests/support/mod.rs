//! What the panel tests share: compiling a document as its host would, and typing into a field
//! as a user does.

#![allow(dead_code)] // Each test binary uses its own part.

use eframe::egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::diag::{Diagnostic, Diagnostics};
use ensemble_compiler::source::{FileId, SourceFile, SourceMap};
use std::path::PathBuf;

/// Compiles `value` as the file at `path` it would be saved as (relative paths inside it
/// resolve beside `path`): the diagnostics, the sources they point into, and its file.
pub fn compile_document<T: serde::Serialize>(
    value: &T,
    path: PathBuf,
) -> (Vec<Diagnostic>, SourceMap, FileId) {
    let text = ensemble_compiler::front::ron::to_canonical_string(value);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(name.clone(), path, text));
    let c = ensemble_compiler::compile(ensemble_compiler::project::Project {
        name,
        sources,
        libraries: vec!["sim".into()],
        diagnostics: Diagnostics::default(),
    });
    (c.diagnostics.iter().cloned().collect(), c.sources, file)
}

/// Runs the frames an interaction needs. Spinners repaint for ever, so this does not insist
/// on the UI going idle.
pub fn frame<S>(h: &mut Harness<'static, S>) {
    let _ = h.try_run();
}

/// Replaces the text of the field named `label` by typing, as a user would.
pub fn retype<S>(h: &mut Harness<'static, S>, label: &str, text: &str) {
    h.get_by_label(label).click();
    frame(h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    frame(h);
    h.get_by_label(label).type_text(text);
    frame(h);
}

pub mod app;

/// What a test host tells a panel besides the compile: the project's names and where its
/// requests go.
#[derive(Default)]
pub struct Told {
    pub names: ensemble_editor::panel::ProjectNames,
    pub requests: std::cell::RefCell<Vec<ensemble_editor::panel::Request>>,
}

/// The panel context of a document compiled to `diagnostics` in `sources` (as `file`).
pub fn panel_cx<'a>(
    diagnostics: &'a [Diagnostic],
    sources: &'a SourceMap,
    file: Option<FileId>,
    told: &'a Told,
) -> ensemble_editor::panel::PanelCx<'a> {
    use ensemble_editor::panel::{Compiled, PanelCx};
    PanelCx {
        compiled: Some(Compiled {
            diagnostics,
            sources,
            file,
            module: None,
            tests: None,
        }),
        ..PanelCx::detached(std::path::Path::new("."), &told.names, &told.requests)
    }
}
