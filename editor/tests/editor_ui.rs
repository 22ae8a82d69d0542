//! Drives the real editor UI headless with egui_kittest: what a designer sees, clicks and
//! types. Each test works on a copy of a sample (or a new project) in a temporary folder.

use eframe::egui;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::front::ron::MachineAsset;
use ensemble_editor::EditorApp;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod support;
use support::app::{
    choose_showing as choose, click_at, find, harness, open, project_copy, select, settle,
    title_of, type_over,
};

fn sample(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../samples/airport")
        .join(sub)
}

fn sample_copy(sub: &str) -> tempfile::TempDir {
    project_copy(&sample(sub))
}

fn airport_copy() -> tempfile::TempDir {
    sample_copy("")
}

fn wait_for_diagnostics(h: &mut Harness<'static, EditorApp>) {
    let start = Instant::now();
    h.step();
    while h.state().is_checking() {
        assert!(start.elapsed() < Duration::from_secs(60), "no diagnostics");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    settle(h);
}

fn machine<'a>(h: &'a Harness<'static, EditorApp>, name: &str) -> &'a MachineAsset {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(name).unwrap()]
        .state
        .machine()
        .unwrap()
}

fn codes(h: &Harness<'static, EditorApp>) -> Vec<String> {
    h.state()
        .report()
        .map(|r| {
            r.located
                .iter()
                .map(|l| l.diagnostic.code.as_str().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Replaces the text of the text field showing `current` and presses Enter.
fn retype(h: &mut Harness<'static, EditorApp>, current: &str, new: &str) {
    type_over(h, current, new);
    settle(h);
}

#[test]
fn airport_lists_its_assets_and_opens_a_machine_on_click() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    assert_eq!(h.state().project_name(), "airport");
    for m in [
        "StandSellTicket",
        "BuyTicketAtCounter",
        "SellTicket",
        "BuyTicket",
    ] {
        h.get_all_by_role_and_label(Role::Button, m).next().unwrap();
    }
    // The scene, and the content tests named after it.
    assert_eq!(h.get_all_by_label("ticket-counter").count(), 2);
    // The first scene's first agent runs StandSellTicket: it is shown at start.
    assert_eq!(h.state().current_machine_name(), Some("StandSellTicket"));
    h.get_by_label("TalkStateMachine");

    h.get_by_role_and_label(Role::Button, "SellTicket").click();
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("SellTicket"));
    // Its states are on the canvas, dialog states with the line they speak.
    h.get_by_label("ConfirmFlightX");
    h.get_by_label("says WhenTravel");
    assert!(!h.state().is_dirty());
}

#[test]
fn broken_airport_shows_the_unknown_reference_and_jumps_to_it() {
    let dir = sample_copy("broken");
    let mut h = harness(EditorApp::open(dir.path()));
    assert_eq!(h.state().project_name(), "airport-broken");
    let row = h.get_by_label_contains("unknown-reference");
    row.click();
    settle(&mut h);
    // The row opens the machine it points into and selects the state.
    assert_eq!(h.state().current_machine_name(), Some("BuyTicket"));
    assert_eq!(h.state().selection(), ["WantTicketToX".to_string()].into());
    // The missing target is drawn as its own node, and the inspector marks the transition.
    h.get_by_label("LeaveAtX");
    h.get_by_label("no such state");
    assert!(
        h.get_all_by_role(Role::ComboBox)
            .any(|n| n.value().as_deref() == Some("LeaveAtX?"))
    );
}

#[test]
fn a_folder_that_is_not_a_project_keeps_the_window_open() {
    let h = harness(EditorApp::open(sample("machines")));
    h.get_by_label("Cannot open this project");
    h.get_by_label_contains("not an Ensemble project");
    h.get_by_label("Open project…");
}

#[test]
fn double_clicking_a_host_state_opens_its_child_and_breadcrumbs_lead_back() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    let at = title_of(&h, "TalkStateMachine");
    click_at(&mut h, at);
    click_at(&mut h, at);
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("SellTicket"));
    // The breadcrumb back up is a button, after the list entry of the same name.
    h.get_all_by_role_and_label(Role::Button, "StandSellTicket")
        .last()
        .unwrap()
        .click();
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("StandSellTicket"));
}

/// The first check: new project, new machine, add and connect states, see
/// `unreachable-state` appear and go, save, reopen, same content.
#[test]
fn create_connect_check_fix_save_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("quest");
    let mut h = harness(EditorApp::empty());
    h.get_by_label("New project…").click();
    settle(&mut h);
    let inputs: Vec<_> = h.get_all_by_role(Role::TextInput).collect();
    assert_eq!(inputs.len(), 2, "name and folder");
    inputs[0].focus();
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .next()
        .unwrap()
        .type_text("quest");
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput).nth(1).unwrap().focus();
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .nth(1)
        .unwrap()
        .type_text(&root.display().to_string());
    h.run_steps(1);
    h.get_by_label("Create").click();
    settle(&mut h);
    assert!(root.join("Ensemble.ron").is_file());
    assert_eq!(h.state().project_name(), "quest");
    assert_eq!(h.state().current_machine_name(), Some("Main"));

    // A new machine from the browser.
    h.get_by_label("+ New asset…").click();
    settle(&mut h);
    h.get_by_label("New machine").click();
    settle(&mut h);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text("Guard");
    h.run_steps(1);
    h.get_by_label("Create").click();
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("Guard"));
    assert!(
        h.state().title().starts_with("• quest"),
        "{}",
        h.state().title()
    );

    // Add a Wait state from the toolbar, then route Start through it.
    h.get_by_label("+ State").click();
    settle(&mut h);
    h.get_by_label("Wait").click();
    settle(&mut h);
    assert!(machine(&h, "Guard").states.iter().any(|s| s.name == "Wait"));
    select(&mut h, "Start");
    choose(&mut h, "Finish", "Wait");
    select(&mut h, "Wait");
    // A new transition goes to a state after it, not back to Start (issue 32): here Finish.
    h.get_by_label("+ Add transition").click();
    settle(&mut h);
    let guard = machine(&h, "Guard").clone();
    assert_eq!(guard.states[0].on, vec![("Empty".into(), "Wait".into())]);
    assert_eq!(
        guard.states[2].on,
        vec![("Done".into(), "Finish".into())],
        "Wait raises Done"
    );
    wait_for_diagnostics(&mut h);
    assert!(
        !codes(&h).contains(&"unreachable-state".to_string()),
        "{:?}",
        codes(&h)
    );

    // Cut Wait off: the diagnostic appears, on the node too.
    select(&mut h, "Start");
    choose(&mut h, "Wait", "Finish");
    wait_for_diagnostics(&mut h);
    h.get_by_label_contains("unreachable-state");
    // Fix it.
    choose(&mut h, "Finish", "Wait");
    wait_for_diagnostics(&mut h);
    assert!(!codes(&h).contains(&"unreachable-state".to_string()));

    // Save (Ctrl+S) and reopen.
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(!h.state().is_dirty());
    assert_eq!(h.state().title(), "quest — Ensemble");
    let saved = machine(&h, "Guard").clone();
    let again = harness(EditorApp::open(&root));
    assert_eq!(*machine(&again, "Guard"), saved);
    let text = std::fs::read_to_string(root.join("machines/Guard.machine.ron")).unwrap();
    assert!(
        text.contains("(name: \"Wait\", modifier: 1.0, on: [(\"Done\", \"Finish\")]),\n"),
        "{text}"
    );
    // A new timer starts at a second, so the machine is clean.
    assert!(codes(&h).is_empty(), "{:?}", codes(&h));
}

#[test]
fn renaming_a_state_moves_its_transitions_and_undo_redo_follow() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    select(&mut h, "Goto1");
    retype(&mut h, "Goto1", "WalkToCounter");
    let m = machine(&h, "StandSellTicket").clone();
    assert_eq!(m.states[1].name, "WalkToCounter");
    assert_eq!(m.states[1].code.as_deref(), Some("Goto"));
    assert_eq!(m.states[0].on[0].1, "WalkToCounter");
    assert_eq!(m.states[4].on[0].1, "WalkToCounter");
    h.get_by_label("WalkToCounter");
    assert!(h.state().is_dirty());

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert_eq!(machine(&h, "StandSellTicket").states[0].on[0].1, "Goto1");
    assert!(
        !h.state().is_dirty(),
        "undo back to the saved state is clean"
    );
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    settle(&mut h);
    assert_eq!(
        machine(&h, "StandSellTicket").states[0].on[0].1,
        "WalkToCounter"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    settle(&mut h);
    assert_eq!(
        machine(&h, "StandSellTicket").states[1].name,
        "WalkToCounter"
    );

    // The selection followed the state through undo and redo.
    assert_eq!(h.state().selection(), ["WalkToCounter".to_string()].into());
    // A rename onto another state's name is refused, and says why.
    retype(&mut h, "WalkToCounter", "Start");
    h.get_by_label_contains("is already a state");
    assert_eq!(
        machine(&h, "StandSellTicket").states[1].name,
        "WalkToCounter"
    );
}

#[test]
fn copy_paste_and_delete_in_the_graph() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    select(&mut h, "Goto1");
    h.key_press_modifiers(Modifiers::COMMAND, Key::C);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::V);
    settle(&mut h);
    let m = machine(&h, "StandSellTicket").clone();
    let pasted = m
        .states
        .iter()
        .find(|s| s.name == "Goto2")
        .expect("a uniquely named copy");
    assert_eq!(pasted.modifier, m.states[1].modifier);
    assert_eq!(
        pasted.on,
        vec![("ReachedLocation".into(), "WaitForConversation".into())]
    );
    assert_eq!(h.state().selection(), ["Goto2".to_string()].into());
    // Delete removes the selection, and undo brings it back.
    h.key_press(Key::Delete);
    settle(&mut h);
    assert!(
        !machine(&h, "StandSellTicket")
            .states
            .iter()
            .any(|s| s.name == "Goto2")
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(
        machine(&h, "StandSellTicket")
            .states
            .iter()
            .any(|s| s.name == "Goto2")
    );
}

#[test]
fn closing_with_unsaved_changes_asks_first() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    select(&mut h, "Goto1");
    retype(&mut h, "Goto1", "Walk");
    assert!(h.state().title().starts_with("• airport"));
    let close = |h: &mut Harness<'static, EditorApp>| {
        h.input_mut()
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .events
            .push(egui::ViewportEvent::Close);
        settle(h);
    };
    close(&mut h);
    assert!(h.state().close_prompt_open());
    assert!(!h.state().closing);
    h.get_by_label("Cancel").click();
    settle(&mut h);
    assert!(!h.state().close_prompt_open());
    assert!(h.state().is_dirty());

    close(&mut h);
    // The dialog's Save (the top bar has one too).
    h.get_all_by_label("Save").last().unwrap().click();
    settle(&mut h);
    assert!(h.state().closing);
    assert!(!h.state().is_dirty());
    let text =
        std::fs::read_to_string(dir.path().join("machines/StandSellTicket.machine.ron")).unwrap();
    assert!(text.contains("(name: \"Walk\", code: \"Goto\""));
}

#[test]
fn a_crash_loses_nothing() {
    let dir = airport_copy();
    {
        let mut h = harness(EditorApp::open(dir.path()));
        select(&mut h, "Goto1");
        retype(&mut h, "Goto1", "Walk");
        // The autosave runs every few seconds while there are unsaved changes.
        std::thread::sleep(ensemble_editor::recovery::INTERVAL + Duration::from_millis(200));
        settle(&mut h);
        assert!(ensemble_editor::recovery::path(dir.path()).exists());
        // The editor dies here: no save, no cleanup.
    }
    let mut h = harness(EditorApp::open(dir.path()));
    assert!(!h.state().is_dirty());
    h.get_by_label("Restore unsaved changes?");
    h.get_by_label("Restore").click();
    settle(&mut h);
    assert!(h.state().is_dirty());
    assert_eq!(machine(&h, "StandSellTicket").states[1].name, "Walk");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(!ensemble_editor::recovery::path(dir.path()).exists());
}

#[test]
fn find_jumps_to_a_state_in_another_machine() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    find(&mut h, "okay2");
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("SellTicket"));
    assert_eq!(h.state().selection(), ["Okay2".to_string()].into());
}

/// Presses at `from`, moves in steps to `to`, releases: a mouse drag.
fn drag(h: &mut Harness<'static, EditorApp>, from: egui::Pos2, to: egui::Pos2) {
    h.hover_at(from);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(1);
    for i in 1..=8 {
        h.hover_at(from + (to - from) * (i as f32 / 8.0));
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    settle(h);
}

fn layout_of(h: &Harness<'static, EditorApp>, machine: &str) -> ensemble_editor::sidecar::Layout {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(machine).unwrap()].state.layout.clone()
}

#[test]
fn a_node_drag_is_one_undo_step_and_saves_only_the_sidecar() {
    let dir = airport_copy();
    let file = dir.path().join("machines/StandSellTicket.machine.ron");
    let before = std::fs::read(&file).unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    assert!(
        layout_of(&h, "StandSellTicket").is_empty(),
        "the sample has no layout yet"
    );
    let from = title_of(&h, "Goto1");
    drag(&mut h, from, from + egui::vec2(80.0, 120.0));
    let layout = layout_of(&h, "StandSellTicket");
    // The first move keeps every state where it was drawn, and moves this one.
    assert_eq!(layout.nodes.len(), 5);
    let moved = title_of(&h, "Goto1");
    assert!(
        (moved - from - egui::vec2(80.0, 120.0)).length() < 4.0,
        "{from:?} -> {moved:?}"
    );
    assert!(h.state().is_dirty());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(
        layout_of(&h, "StandSellTicket").is_empty(),
        "one step undoes the whole drag"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert_eq!(std::fs::read(&file).unwrap(), before, "behaviour untouched");
    let sidecar = std::fs::read_to_string(
        dir.path()
            .join("machines/StandSellTicket.machine.layout.ron"),
    )
    .unwrap();
    assert!(sidecar.contains("(name: \"Goto1\""), "{sidecar}");
}

#[test]
fn dragging_from_the_plus_pin_to_a_state_adds_a_transition() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    let graph = &h.state().session().unwrap().graph;
    // The `+` pin is the output after the state's transitions. Goto1 raises ReachedLocation,
    // wired, and NoPath: the new transition is on NoPath (issue 32: not on a made-up "Event").
    let plus = graph.output_pin("Goto1", 1).unwrap();
    let input = graph.input_pin("Start").unwrap();
    drag(&mut h, plus, input);
    let m = machine(&h, "StandSellTicket");
    assert_eq!(
        m.states[1].on,
        vec![
            ("ReachedLocation".into(), "WaitForConversation".into()),
            ("NoPath".into(), "Start".into())
        ]
    );
}

#[test]
fn box_select_then_delete_removes_every_selected_state() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    let graph = &h.state().session().unwrap().graph;
    let a = graph.state_rect("WaitForConversation").unwrap();
    let b = graph.state_rect("TalkStateMachine").unwrap();
    // Shift+drag from above-left of one node to below-right of the next.
    let from = egui::pos2(a.left() - 10.0, a.top().min(b.top()) - 20.0);
    let to = egui::pos2(b.right() + 10.0, a.bottom().max(b.bottom()) + 20.0);
    h.event(egui::Event::ModifiersChanged(Modifiers::SHIFT));
    drag(&mut h, from, to);
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    settle(&mut h);
    assert_eq!(
        h.state().selection(),
        [
            "TalkStateMachine".to_string(),
            "WaitForConversation".to_string()
        ]
        .into()
    );
    h.key_press(Key::Delete);
    settle(&mut h);
    // Goto1's transition into WaitForConversation goes too: the editor asks first.
    h.get_by_label("Delete").click();
    settle(&mut h);
    let m = machine(&h, "StandSellTicket");
    assert_eq!(m.states.len(), 3);
    // Ctrl+A selects every state, Escape none.
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    settle(&mut h);
    assert_eq!(h.state().selection().len(), 3);
    h.key_press(Key::Escape);
    settle(&mut h);
    assert!(h.state().selection().is_empty());
    let m = machine(&h, "StandSellTicket");
    // The transitions into them went with them.
    assert!(
        m.states
            .iter()
            .all(|s| s.on.iter().all(|(_, t)| t != "TalkStateMachine"))
    );
}

#[test]
fn renaming_a_machine_renames_its_file_and_its_hosts_in_one_undo_step() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_role_and_label(Role::Button, "SellTicket").click();
    settle(&mut h);
    // Nothing selected: the inspector edits the machine.
    retype(&mut h, "SellTicket", "SellTickets");
    let p = h.state().project().unwrap();
    let doc = p.machine_doc("SellTickets").unwrap();
    assert_eq!(p.docs[doc].state.path, "machines/SellTickets.machine.ron");
    assert_eq!(
        machine(&h, "StandSellTicket").states[3].modifier,
        Some(ensemble_compiler::front::ron::ModifierValue::Name(
            "SellTickets".into()
        ))
    );
    assert_eq!(h.state().current_machine_name(), Some("SellTickets"));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(
        !h.state().is_dirty(),
        "one step undoes the rename everywhere"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(dir.path().join("machines/SellTickets.machine.ron").exists());
    assert!(!dir.path().join("machines/SellTicket.machine.ron").exists());
    // The machine's lines now have ids under its new name, and its French translations moved
    // with them (docs/formats/strings.md): nothing is orphaned, missing or stale.
    let table = std::fs::read_to_string(dir.path().join("strings/fr.strings.ron")).unwrap();
    assert!(
        table.contains("(id: \"SellTickets/Okay1/2\", source: \"Sure.\", text: \"Bien sûr.\")"),
        "{table}"
    );
    assert!(!table.contains("\"SellTicket/"), "{table}");
    wait_for_diagnostics(&mut h);
    assert!(codes(&h).is_empty(), "{:?}", codes(&h));
}

#[test]
fn edits_made_outside_the_editor_are_picked_up() {
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    let file = dir.path().join("machines/BuyTicket.machine.ron");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "\"Salutation\", on:",
        "\"Salutation\", modifier: \"x\", on:",
    );
    std::fs::write(&file, text).unwrap();
    // Some file systems keep whole-second times: make the change visible whatever the clock.
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(later)
        .unwrap();
    std::thread::sleep(ensemble_editor::watch::POLL_INTERVAL + Duration::from_millis(100));
    settle(&mut h);
    assert_eq!(
        machine(&h, "BuyTicket").states[1].modifier,
        Some(ensemble_compiler::front::ron::ModifierValue::Name(
            "x".into()
        ))
    );
    assert!(!h.state().is_dirty());
    // And the compiler's verdict on it is shown (Salutation takes no modifier).
    wait_for_diagnostics(&mut h);
    assert!(
        codes(&h).contains(&"modifier-mismatch".to_string()),
        "{:?}",
        codes(&h)
    );
}

/// A panel as another editor would write one: it edits its asset's value and nothing else.
struct LocationsPanel {
    revealed: std::rc::Rc<std::cell::RefCell<Vec<ensemble_editor::panel::Reveal>>>,
}

impl ensemble_editor::panel::AssetPanel<ensemble_compiler::front::ron::LocationsAsset>
    for LocationsPanel
{
    fn ui(
        &mut self,
        ui: &mut egui::Ui,
        value: &mut ensemble_compiler::front::ron::LocationsAsset,
        cx: &ensemble_editor::panel::PanelCx,
    ) -> bool {
        ui.label(format!("{} problems here", cx.diagnostics.len()));
        let mut changed = false;
        for l in &mut value.locations {
            changed |= ui.text_edit_singleline(&mut l.name).changed();
        }
        changed
    }

    fn reveal(&mut self, target: &ensemble_editor::panel::Reveal) {
        self.revealed.borrow_mut().push(target.clone());
    }
}

#[test]
fn a_plugged_panel_gets_undo_dirty_tracking_saving_and_reveal_from_the_host() {
    use ensemble_compiler::front::ron::AssetKind;
    use ensemble_compiler::front::ron::any::AnyAsset;
    use ensemble_editor::panel::{Reveal, for_kind};
    let dir = airport_copy();
    let revealed = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let panel = for_kind(
        LocationsPanel {
            revealed: revealed.clone(),
        },
        |a| match a {
            AnyAsset::Locations(l) => Some(l),
            _ => None,
        },
    );
    let app = EditorApp::open(dir.path()).with_panel(AssetKind::Locations, panel);
    let mut h = harness(app);
    // The locations group lists its file before the sentences group lists theirs.
    h.get_all_by_role_and_label(Role::Button, "airport")
        .next()
        .unwrap()
        .click();
    settle(&mut h);
    h.get_by_label("0 problems here");
    let field = h
        .get_all_by_role(Role::TextInput)
        .find(|n| n.value().as_deref() == Some("Gate"))
        .unwrap();
    field.focus();
    h.run_steps(2);
    for c in ["s", "1"] {
        h.get_all_by_role(Role::TextInput)
            .find(|n| n.is_focused())
            .unwrap()
            .type_text(c);
        h.run_steps(2);
    }
    let text = |h: &Harness<'static, EditorApp>| {
        let p = h.state().project().unwrap();
        p.docs[p.by_path("airport.locations.ron").unwrap()]
            .state
            .text()
            .unwrap()
    };
    assert!(text(&h).contains("(name: \"Gates1\""), "{}", text(&h));
    assert!(h.state().is_dirty());
    // Unfocus, then one undo takes back the whole typing.
    h.key_press(Key::Escape);
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(700.0, 700.0),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.event(egui::Event::PointerButton {
        pos: egui::pos2(700.0, 700.0),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(!h.state().is_dirty(), "{}", text(&h));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    let saved = std::fs::read_to_string(dir.path().join("airport.locations.ron")).unwrap();
    assert!(
        saved.contains("        (name: \"Gates1\", x: 30.0, y: -10.0),\n"),
        "{saved}"
    );
    assert!(
        saved.starts_with("// Named places of the terminal"),
        "comments kept"
    );
    // Find reveals the item through the panel.
    find(&mut h, "CounterFront");
    settle(&mut h);
    assert_eq!(
        revealed.borrow().last(),
        Some(&Reveal::Item {
            list: "locations".into(),
            name: "CounterFront".into()
        })
    );
}

#[test]
fn scripts_open_in_the_rule_table_and_its_edits_are_undoable() {
    let dir = sample_copy("../bench");
    let mut h = harness(EditorApp::open(dir.path()));
    // No machine in this project: the script opens, in the rule table.
    h.get_by_label("+ Add a rule").click();
    settle(&mut h);
    let p = h.state().project().unwrap();
    let doc = p.by_path("bench.script.ron").unwrap();
    let rules = |h: &Harness<'static, EditorApp>| match h.state().project().unwrap().docs[doc]
        .state
        .asset()
    {
        Some(ensemble_compiler::front::ron::any::AnyAsset::Script(s)) => s.rules.len(),
        _ => 0,
    };
    assert_eq!(rules(&h), 9);
    assert!(h.state().is_dirty());
    h.key_press(Key::Escape);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert_eq!(rules(&h), 8);
    assert!(!h.state().is_dirty());
}

#[test]
fn a_machine_without_a_layout_opens_with_no_state_over_another() {
    // SellTicket has no layout sidecar, and its dialog states draw their best line, wider than
    // the auto-layout's estimate: the layout is redone once the states have been measured.
    let dir = airport_copy();
    assert!(
        !dir.path()
            .join("machines/SellTicket.machine.layout.ron")
            .exists()
    );
    let mut h = harness(EditorApp::open(dir.path()));
    open(&mut h, "SellTicket");
    // The lines arrive with the compile, after the machine was first drawn.
    wait_for_diagnostics(&mut h);
    settle(&mut h);
    assert!(
        h.get_all_by_label_contains("When would you like to travel?")
            .next()
            .is_some(),
        "the dialog state shows its line"
    );
    // Fit shows the machine from its start at a size that reads; zoom out to see it whole.
    let canvas = h.state().session().unwrap().graph.canvas();
    h.hover_at(canvas.center());
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -200.0),
        phase: egui::TouchPhase::Move,
        modifiers: Modifiers::NONE,
    });
    settle(&mut h);
    let m = machine(&h, "SellTicket");
    let graph = &h.state().session().unwrap().graph;
    let rects: Vec<(String, egui::Rect)> = m
        .states
        .iter()
        .map(|s| (s.name.clone(), graph.state_rect(&s.name).expect("drawn")))
        .collect();
    let gap = 8.0 * graph.zoom();
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            // Columns are laid out a gap apart; a node wider than its estimate eats the gap.
            assert!(
                !ra.expand(gap).intersects(*rb),
                "{a} {ra:?} touches {b} {rb:?}"
            );
        }
    }
}

#[test]
fn the_dock_resizes_from_just_above_its_edge_over_a_graph() {
    // The machine graph fills the central area down to the dock; its canvas must leave the
    // dock's resize handle the pointer, on both sides of the edge; and each tab keeps the
    // height it is dragged to.
    let dir = airport_copy();
    let mut h = harness(EditorApp::open(dir.path()));
    open(&mut h, "SellTicket");
    let tab = |h: &Harness<'static, EditorApp>| h.get_by_label("Problems").rect();
    for dock in ["Problems", "Preview"] {
        h.get_by_label(dock).click();
        settle(&mut h);
        let before = tab(&h);
        // The dock's frame has an 8-point margin above the tabs: its edge is just above that.
        let edge = before.top() - 8.0;
        let x = 700.0;
        drag(
            &mut h,
            egui::pos2(x, edge - 3.0),
            egui::pos2(x, edge - 103.0),
        );
        settle(&mut h);
        let after = tab(&h);
        assert!(
            (before.top() - after.top() - 100.0).abs() < 6.0,
            "the {dock} dock grew by {} points, not 100",
            before.top() - after.top()
        );
    }
}
