//! What a first-time designer tripped on (issue 18), driven through the real window with
//! egui_kittest: each test fails without the fix it is named for.

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;

mod support;
use support::app::{click, harness, open, sample_copy, settle, wait_for_diagnostics};

fn open_path(h: &Harness<'static, EditorApp>) -> Option<String> {
    let s = h.state().session()?;
    Some(s.project.docs[h.state().current_doc()?].state.path.clone())
}

#[test]
fn opening_an_excluded_workbook_opens_it_in_the_rule_table() {
    let dir = sample_copy("bench");
    let mut h = harness(EditorApp::open(dir.path().join("bench.xlsx")));
    settle(&mut h);
    // The workbook itself, not bench.script.ron (its import, which the project compiles).
    assert_eq!(open_path(&h).as_deref(), Some("bench.xlsx"));
    h.get_by_label("Export to .xlsx…");
    h.get_by_label_contains("excluded from the build");
    // Listed, and marked as outside the build.
    h.get_by_label_contains("bench (not built)");
}

#[test]
fn saving_the_manifest_refreshes_the_project_list() {
    let dir = sample_copy("bench");
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    assert!(h.query_by_label_contains("WORKBOOKS").is_none());
    open(&mut h, "Ensemble.ron");
    // Take bench.xlsx out of the excluded files, and save.
    click(&mut h, "remove bench.xlsx from excluded files");
    assert!(h.state().is_dirty());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    // The workbook is in the project now, and listed.
    h.get_by_label_contains("WORKBOOKS");
    let project = h.state().project().unwrap();
    assert!(project.by_path("bench.xlsx").is_some());
    assert!(!project.excluded("bench.xlsx"));
}
