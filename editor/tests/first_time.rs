//! What a first-time designer tripped on (issue 18), driven through the real window with
//! egui_kittest: each test fails without the fix it is named for.

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;

mod support;
use support::app::{
    click, find, harness, open, sample_copy, settle, type_over, until, wait_for_diagnostics,
};

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

#[test]
fn a_save_the_running_preview_refuses_does_not_say_only_saved() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    // A typo in the agent the buyer asks for a conversation: the program does not compile.
    find(&mut h, "RequestConversation");
    h.run_steps(8);
    type_over(&mut h, "seller", "sellr");
    settle(&mut h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(!h.state().is_dirty(), "saved");
    until(&mut h, "the preview's verdict", |h| {
        h.state().status().is_some_and(|s| !s.contains("reloading"))
    });
    let status = h.state().status().unwrap().to_string();
    assert!(
        status.starts_with("Saved 1 file, but the preview refused it"),
        "{status}"
    );
    assert!(status.contains("unknown-reference"), "{status}");
    h.get_by_label_contains("Saved 1 file, but the preview refused it");
}
