//! What the panel and editor tests share: compiling a document as its host would, typing into a
//! field as a user does, and driving the whole editor on a copy of a sample.

#![allow(dead_code)] // Each test binary uses its own part.

use eframe::egui::{self, Key, Modifiers};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::diag::{Diagnostic, Diagnostics};
use ensemble_compiler::source::{FileId, SourceFile, SourceMap};
use ensemble_editor::EditorApp;
use std::path::{Path, PathBuf};

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

/// Copies the folder `from` and everything in it to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
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

/// A copy of the project at `from` in a temporary folder: tests never write into the
/// repository, nor see what an editor left in it (a recovery file of a designer's session).
pub fn project_copy(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(from, dir.path());
    let _ = std::fs::remove_dir_all(dir.path().join(".ensemble"));
    dir
}

/// A copy of `samples/<name>`.
pub fn sample_copy(name: &str) -> tempfile::TempDir {
    project_copy(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples")
            .join(name),
    )
}

/// The whole editor in a 1440×900 window.
pub fn editor_harness(app: EditorApp) -> Harness<'static, EditorApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        // Each queued input event takes one step; short steps let two clicks make a double click.
        .with_step_dt(0.02)
        .with_max_steps(400)
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app);
    harness.run_steps(3);
    harness
}

/// A few frames for a click or a key to take effect.
pub fn settle<S>(h: &mut Harness<'static, S>) {
    h.run_steps(4);
}

/// Picks `option` in the combo box currently showing `shown`.
pub fn choose<S>(h: &mut Harness<'static, S>, shown: &str, option: &str) {
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.value().as_deref() == Some(shown))
        .unwrap_or_else(|| panic!("no combo box showing {shown}"))
        .click();
    settle(h);
    h.get_all_by_label(option)
        .last()
        .unwrap_or_else(|| panic!("no option {option}"))
        .click();
    settle(h);
}

/// Replaces the text of the text field showing `current` by typing `new`, and presses Enter
/// (the caller runs the frame that commits it).
pub fn type_over<S>(h: &mut Harness<'static, S>, current: &str, new: &str) {
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.value().as_deref() == Some(current))
        .unwrap_or_else(|| panic!("no text field holding {current}"))
        .focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text(new);
    h.run_steps(1);
    h.key_press(Key::Enter);
}

/// Clicks the pointer at `pos`, as a mouse does.
pub fn click_at<S>(h: &mut Harness<'static, S>, pos: egui::Pos2) {
    h.hover_at(pos);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(1);
    }
}

/// Finds `name` with Ctrl+F and presses Enter on the first match (the caller runs the frames
/// that reveal it).
pub fn find<S>(h: &mut Harness<'static, S>, name: &str) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    settle(h);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text(name);
    settle(h);
    h.key_press(Key::Enter);
}

/// Where the title of the node of `state` is on screen.
pub fn title_of(h: &Harness<'static, EditorApp>, state: &str) -> egui::Pos2 {
    let rect = h
        .state()
        .session()
        .unwrap()
        .graph
        .state_rect(state)
        .unwrap_or_else(|| panic!("no node {state}"));
    rect.left_top() + egui::vec2(22.0, 14.0)
}

/// Clicks the title of the node of `state` on the canvas (selects it).
pub fn select(h: &mut Harness<'static, EditorApp>, state: &str) {
    let at = title_of(h, state);
    click_at(h, at);
    settle(h);
    assert!(
        h.state().selection().contains(state),
        "{state} not selected"
    );
}
