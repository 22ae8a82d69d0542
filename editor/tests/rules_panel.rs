//! The rule table panel driven headless with egui_kittest, through a tiny host that owns the
//! document and counts the edits the panel reports (as the editor's host does for undo).

use eframe::egui;
use egui::{Key, Modifiers};

mod support;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::diag::Diagnostic;
use ensemble_compiler::script::source::ScriptAsset;
use ensemble_compiler::source::{FileId, SourceMap};
use ensemble_editor::panel::PanelCx;
use ensemble_editor::rules::excel;
use ensemble_editor::rules::{Column, FileRequest, RuleTable, RuleTarget};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The host: the document, what the last compile said about it, and the edits reported.
struct Host {
    table: RuleTable,
    value: ScriptAsset,
    edits: usize,
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
    file: Option<FileId>,
    told: support::Told,
    /// What the file dialog will answer, in order, and what it was asked.
    answers: Rc<RefCell<VecDeque<PathBuf>>>,
    asked: Rc<RefCell<Vec<FileRequest>>>,
}

impl Host {
    fn new(value: ScriptAsset) -> Self {
        let answers: Rc<RefCell<VecDeque<PathBuf>>> = Rc::default();
        let asked: Rc<RefCell<Vec<FileRequest>>> = Rc::default();
        let (a, q) = (answers.clone(), asked.clone());
        let table = RuleTable::with_picker(Box::new(move |req| {
            q.borrow_mut().push(req.clone());
            a.borrow_mut().pop_front().into()
        }));
        Host {
            table,
            value,
            edits: 0,
            diagnostics: Vec::new(),
            sources: SourceMap::default(),
            file: None,
            told: Default::default(),
            answers,
            asked,
        }
    }

    fn bench() -> Self {
        Host::new(
            excel::import(&sample("samples/bench/bench.xlsx"))
                .unwrap()
                .0,
        )
    }

    fn answer(&self, path: &Path) {
        self.answers.borrow_mut().push_back(path.to_path_buf());
    }

    /// Compiles the document as the `*.script.ron` it would be saved as.
    fn compile(&mut self) {
        let (diagnostics, sources, file) =
            support::compile_document(&self.value, "t.script.ron".into());
        (self.diagnostics, self.sources, self.file) = (diagnostics, sources, Some(file));
    }

    fn cx(&self) -> PanelCx<'_> {
        support::panel_cx(&self.diagnostics, &self.sources, self.file, &self.told)
    }
}

fn harness(host: Host) -> Harness<'static, Host> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1500.0, 900.0))
        .build_ui_state(
            |ui, host: &mut Host| {
                let cx = support::panel_cx(&host.diagnostics, &host.sources, host.file, &host.told);
                if host.table.ui(ui, &mut host.value, &cx) {
                    host.edits += 1;
                }
            },
            host,
        );
    h.run();
    h
}

use support::retype;

#[test]
fn a_bad_cell_is_outlined_with_the_parsers_message_before_any_compile() {
    let mut h = harness(Host::bench());
    assert!(h.query_by_label_contains("✖").is_none());
    retype(&mut h, "row 2 Target", "X Y");
    assert_eq!(h.state().value.rules[1].target, "X Y");
    assert!(h.state().edits > 0);
    // The selected cell's message, with the position the parser points at.
    h.get_by_label_contains("✖ unexpected text after the term (at character 3)");
    h.get_by_label("1 error");
    // Fixed: the message goes.
    retype(&mut h, "row 2 Target", "X");
    assert_eq!(h.state().value.rules[1].target, "X");
    assert!(h.query_by_label_contains("unexpected text").is_none());
    h.get_by_label("✔ no problems");
    // A precondition missing its comma: the message names what was expected.
    retype(&mut h, "row 1 Precondition", "seat(X) not reserved(X, Y)");
    h.get_by_label_contains("✖ expected `,` (at character 9)");
    // An unknown role is caught against the roles list, with a suggestion.
    retype(&mut h, "row 3 Role", "tourst");
    h.get_by_label_contains("did you mean `tourist`?");
}

#[test]
fn rules_reorder_with_keys_buttons_and_drag() {
    let mut h = harness(Host::bench());
    let labels = |h: &Harness<'static, Host>| -> Vec<String> {
        h.state()
            .value
            .rules
            .iter()
            .map(|r| r.rule.clone())
            .collect()
    };
    assert_eq!(labels(&h)[..3], ["1", "wait", "giveup"]);
    h.get_by_label("rule row 3").click();
    h.run();
    h.key_press_modifiers(Modifiers::ALT, Key::ArrowUp);
    h.run();
    assert_eq!(labels(&h)[..3], ["1", "giveup", "wait"]);
    assert_eq!(h.state().table.selection().row, Some(1));
    h.get_by_label("⏷ Down").click();
    h.run();
    assert_eq!(labels(&h)[..3], ["1", "wait", "giveup"]);
    let edits = h.state().edits;
    assert_eq!(edits, 2);

    // Drag rule 1 by its number onto the lower half of row 3: it lands after rule 3.
    let from = h.get_by_label("rule row 1").rect().center();
    let to = h.get_by_label("rule row 3").rect();
    let to = egui::pos2(to.center().x, to.bottom() - 3.0);
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for k in 1..=6 {
        h.hover_at(from + (to - from) * (k as f32 / 6.0));
        h.run();
    }
    h.drop_at(to);
    h.run();
    assert_eq!(labels(&h)[..3], ["wait", "giveup", "1"]);

    // The context menu inserts, duplicates and deletes.
    h.get_by_label("rule row 2").click_secondary();
    h.run();
    h.get_by_label("Duplicate rule").click();
    h.run();
    assert_eq!(labels(&h)[..4], ["wait", "giveup", "giveup", "1"]);
    h.get_by_label("rule row 3").click();
    h.run();
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(labels(&h)[..3], ["wait", "giveup", "1"]);
    h.get_by_label("+ Rule").click();
    h.run();
    let rules = &h.state().value.rules;
    assert_eq!(rules.len(), 9);
    // The new rule follows the selected one and continues its state.
    assert_eq!(rules[3].rule, "");
    assert_eq!(rules[3].state, rules[2].state);
}

#[test]
fn import_edit_export_and_import_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("edited.xlsx");
    let host = Host::new(ScriptAsset::default());
    host.answer(&sample("samples/bench/bench.xlsx"));
    host.answer(&out);
    let mut h = harness(host);
    h.get_by_label("Import from Excel…").click();
    h.run();
    assert_eq!(h.state().asked.borrow()[0], FileRequest::Import);
    assert_eq!(h.state().value.rules.len(), 8);
    assert_eq!(h.state().edits, 1);
    h.get_by_label_contains("Imported 8 rules and 2 roles");

    retype(&mut h, "row 1 Action", "perch");
    retype(&mut h, "role 2 max", "3");
    assert_eq!(h.state().value.rules[0].action, "perch");
    assert_eq!(h.state().value.roles[1].max, "3");

    h.get_by_label("Export to .xlsx…").click();
    h.run();
    assert_eq!(
        h.state().asked.borrow()[1],
        FileRequest::Export {
            suggested: "bench.xlsx".into()
        }
    );
    h.get_by_label_contains("Exported 8 rules to");
    let (again, warnings) = excel::import(&out).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(again, h.state().value);
    // The exported workbook compiles as cleanly as the original.
    let c = ensemble_compiler::compile_path(&out).unwrap();
    assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
}

#[test]
fn broken_workbooks_and_unwritable_paths_change_nothing_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.xlsx");
    std::fs::write(&fake, "Key,Value\nname,x\n").unwrap();
    let no_rules = dir.path().join("no-rules.xlsx");
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("Script").unwrap();
    ws.write(0, 0, "Key").unwrap();
    ws.write(0, 1, "Value").unwrap();
    ws.write(1, 0, "name").unwrap();
    ws.write(1, 1, "x").unwrap();
    wb.save(&no_rules).unwrap();
    let unwritable = dir.path().join("missing/folder/out.xlsx");

    let host = Host::bench();
    let before = host.value.clone();
    host.answer(&fake);
    host.answer(&no_rules);
    host.answer(&unwritable);
    let mut h = harness(host);
    h.get_by_label("Import from Excel…").click();
    h.run();
    h.get_by_label_contains("Cannot import");
    h.get_by_label_contains("not a readable Excel workbook");
    h.get_by_label("Import from Excel…").click();
    h.run();
    h.get_by_label_contains("sheet `Rules`, cell A1: the workbook has no `Rules` sheet");
    assert_eq!(h.state().value, before);
    assert_eq!(h.state().edits, 0);
    h.get_by_label("Export to .xlsx…").click();
    h.run();
    h.get_by_label_contains("Cannot export to");
    assert!(!unwritable.exists());
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn compiler_diagnostics_mark_their_cell_in_ron_and_in_workbooks() {
    // The seed's rule 5 as printed, in the native form: the deletion's argument order is
    // reversed, and the compiler's `deletion-never-matches` lands on its cell.
    let mut host = Host::bench();
    host.value.rules[4].deferred_delete = "reserved(.me, X)".into();
    host.compile();
    let d = host
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "deletion-never-matches")
        .cloned()
        .expect("the printed rule 5 is caught");
    let target = RuleTarget::of_diagnostic(&d, &host.cx());
    assert_eq!(target, RuleTarget::Cell(4, Column::DeferredDelete));
    host.table.reveal(target);
    let mut h = harness(host);
    h.run();
    assert_eq!(h.state().table.selection().row, Some(4));
    h.get_by_label_contains("deletion-never-matches: rule 5");
    h.get_by_label("1 error");

    // The same defect in the printed workbook: located by sheet and cell.
    let c = ensemble_compiler::compile_path(&sample("samples/bench/printed")).unwrap();
    let (value, _) = excel::import(&sample("samples/bench/printed/bench-printed.xlsx")).unwrap();
    let mut host = Host::new(value);
    host.diagnostics = c.diagnostics.iter().cloned().collect();
    host.file = host.diagnostics.iter().find_map(|d| d.file_id());
    host.sources = c.sources;
    let d = host.diagnostics[0].clone();
    assert_eq!(
        RuleTarget::of_diagnostic(&d, &host.cx()),
        RuleTarget::Cell(4, Column::DeferredDelete)
    );
    let mut h = harness(host);
    h.get_by_label("1 error");
    h.get_by_label("next ›").click();
    h.run();
    assert_eq!(
        h.state().table.selection().column,
        Some(Column::DeferredDelete)
    );
    h.get_by_label_contains("deletion-never-matches");
}

#[test]
fn find_by_name_reveals_rules_states_and_roles() {
    let host = Host::bench();
    let v = &host.value;
    assert_eq!(RuleTarget::find(v, "giveup"), Some(RuleTarget::Rule(2)));
    assert_eq!(
        RuleTarget::find(v, "Seated"),
        Some(RuleTarget::Cell(3, Column::State))
    );
    assert_eq!(RuleTarget::find(v, "tourist"), Some(RuleTarget::Role(1)));
    assert_eq!(RuleTarget::find(v, "nothing"), None);
    let mut h = harness(host);
    h.state_mut().table.reveal(RuleTarget::Rule(6));
    h.run();
    assert_eq!(h.state().table.selection().row, Some(6));
    h.get_by_label_contains("Rule 7 (3) · state seated");
    h.state_mut().table.reveal(RuleTarget::Role(1));
    h.run();
    assert!(h.get_by_label("role 2 name").is_focused());
}

/// Without a system file dialog (no portal, no zenity) the table asks for a typed path
/// (issue 32, finding 4): Export wrote nothing and said nothing.
#[test]
fn export_without_a_file_dialog_takes_a_typed_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::bench();
    host.table =
        RuleTable::with_picker(Box::new(|_| ensemble_editor::file_dialog::Answer::NoDialog));
    let mut h = harness(host);
    h.get_by_label("Export to .xlsx…").click();
    h.run();
    h.get_by_label_contains("No file dialog is available here");
    // Without the extension: the filter's is added, as the system dialogs do.
    let out = dir.path().join("typed");
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.value().as_deref() == Some("bench.xlsx") || n.is_focused())
        .unwrap()
        .type_text(&out.display().to_string());
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert!(dir.path().join("typed.xlsx").is_file());
    h.get_by_label_contains("Exported 8 rules to");
}

/// Enter after a cell edit moves one row down, as in a spreadsheet (issue 32, finding 6: the
/// row it moved to took the same Enter, and so on to the last row).
#[test]
fn enter_after_a_cell_edit_moves_one_row_down() {
    let mut h = harness(Host::bench());
    assert!(h.state().value.rules.len() > 3);
    retype(&mut h, "row 1 Target", "X");
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().value.rules[0].target, "X");
    assert!(h.get_by_label("row 2 Target").is_focused());
    h.key_press(Key::Enter);
    h.run();
    assert!(h.get_by_label("row 3 Target").is_focused());
}
