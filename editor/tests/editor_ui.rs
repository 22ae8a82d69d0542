//! Drives the real editor UI headless with egui_kittest: what a designer sees and clicks.

use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;
use std::path::{Path, PathBuf};

fn sample(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../samples/airport")
        .join(sub)
}

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        // Each queued input event takes one step; short steps let two clicks make a double click.
        .with_step_dt(0.02)
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app);
    harness.run();
    harness
}

#[test]
fn airport_lists_its_machines_and_opens_one_on_click() {
    let mut harness = harness(EditorApp::open(sample("")));
    harness.get_by_label("airport");
    // Machines are buttons in the list (the shown one is also the breadcrumb, a plain label).
    harness.get_by_role_and_label(Role::Button, "StandSellTicket");
    harness.get_by_role_and_label(Role::Button, "BuyTicketAtCounter");
    harness.get_by_label("ticket-counter.scene.ron");
    // The first scene's first agent runs StandSellTicket: it is shown at start.
    assert_eq!(
        harness.state().current_machine_name(),
        Some("StandSellTicket")
    );
    harness.get_by_label("TalkStateMachine");

    harness.get_by_label("SellTicket").click();
    harness.run();
    assert_eq!(harness.state().current_machine_name(), Some("SellTicket"));
    // Its states are on the canvas now.
    harness.get_by_label("ConfirmFlightX");
    harness.get_by_label("WhenTravel");
}

#[test]
fn broken_airport_shows_the_unknown_reference() {
    let mut harness = harness(EditorApp::open(sample("broken")));
    harness.get_by_label("airport-broken");
    let row = harness.get_by_label_contains("unknown-reference");
    row.click();
    harness.run();
    // The row opens the machine it points into and selects the state.
    assert_eq!(harness.state().current_machine_name(), Some("BuyTicket"));
    let app = harness.state();
    let module = &app.project().unwrap().compilation.module;
    assert_eq!(
        module.states[app.selected_state().unwrap()].name.text,
        "WantTicketToX"
    );
    // The missing target is drawn as its own box.
    harness.get_by_label("LeaveAtX");
}

#[test]
fn a_folder_that_is_not_a_project_keeps_the_window_open() {
    let dir = sample("machines");
    let harness = harness(EditorApp::open(dir));
    harness.get_by_label("Cannot open this project");
    harness.get_by_label_contains("not an Ensemble project");
}

#[test]
fn double_clicking_a_host_state_opens_its_child_and_breadcrumbs_lead_back() {
    let mut harness = harness(EditorApp::open(sample("")));
    let talk = harness.get_by_label("TalkStateMachine");
    talk.click();
    talk.click();
    harness.run();
    assert_eq!(harness.state().current_machine_name(), Some("SellTicket"));
    // The breadcrumb back up is a button, after the list entry of the same name.
    harness
        .get_all_by_role_and_label(Role::Button, "StandSellTicket")
        .last()
        .unwrap()
        .click();
    harness.run();
    assert_eq!(
        harness.state().current_machine_name(),
        Some("StandSellTicket")
    );
}
