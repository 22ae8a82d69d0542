//! The first-time designer's findings of issue 32, driven through the real window with
//! egui_kittest: each test fails without the fix it is named for.

use eframe::egui::{self, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::front::ron::any::AnyAsset;
use ensemble_editor::EditorApp;

mod support;
use support::app::{
    click, harness, press, problems, retype_field, sample_copy, settle, wait_for_diagnostics,
};

fn scene(
    h: &Harness<'static, EditorApp>,
    path: &str,
) -> ensemble_compiler::front::ron::assets::SceneAsset {
    let p = h.state().project().unwrap();
    match p.docs[p.by_path(path).unwrap()].state.asset() {
        Some(AnyAsset::Scene(s)) => s.clone(),
        other => panic!("{path} is not a scene: {other:?}"),
    }
}

/// Finding 1: the workbook is excluded from the build (bench.script.ron is its import), yet a
/// designer editing it expects its problems where every other file's are, and a save of a
/// broken file must not read as all well.
#[test]
fn a_broken_cell_in_an_excluded_workbook_is_in_problems_and_its_save_says_so() {
    let dir = sample_copy("bench");
    let mut h = harness(EditorApp::open(dir.path().join("bench.xlsx")));
    wait_for_diagnostics(&mut h);
    assert_eq!(
        h.state().report().unwrap().errors(),
        0,
        "{:?}",
        problems(&h)
    );
    // A precondition with a parenthesis never closed.
    retype_field(&mut h, "row 1 Precondition", "seat(X, not reserved(X, Y)");
    wait_for_diagnostics(&mut h);
    let r = h.state().report().unwrap();
    let in_workbook: Vec<_> = r.in_file("bench.xlsx").collect();
    assert!(
        in_workbook.iter().any(|l| l.cell.as_deref() == Some("D2")
            && l.diagnostic
                .message
                .contains("unbalanced parenthesis: `(` at column 5 is never closed")),
        "{:?}",
        r.located
    );
    assert_eq!(r.errors(), 1, "{:?}", problems(&h));
    // The status bar counts it as the Problems list does, and the list shows where.
    assert_eq!(h.get_all_by_label("1 error, 0 warnings").count(), 2);
    h.get_by_label_contains("bench.xlsx · Rules!D2");
    press(&mut h, Modifiers::COMMAND, Key::S);
    let status = h.state().status().unwrap_or_default().to_string();
    assert!(status.starts_with("Saved 1 file, with 1 error"), "{status}");
}

/// Finding 6: "+ agent" added an ambient NPC, an error at once; a designer adding an agent
/// to a project of machines means one that runs a machine.
#[test]
fn a_new_agent_in_a_scene_runs_a_machine_like_the_last_one_without_an_error() {
    let dir = sample_copy("airport");
    let path = "ticket-counter.scene.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    wait_for_diagnostics(&mut h);
    let before = h.state().report().unwrap().errors();
    let names: Vec<String> = scene(&h, path)
        .agents
        .iter()
        .map(|a| a.name.clone())
        .collect();
    click(&mut h, "add agent");
    settle(&mut h);
    let agents = scene(&h, path).agents;
    let added: Vec<_> = agents.iter().filter(|a| !names.contains(&a.name)).collect();
    assert_eq!(added.len(), 1, "{agents:?}");
    let first = h.state().project().unwrap().machine_names();
    assert!(
        first.contains(added[0].machine.as_ref().unwrap()),
        "{added:?}"
    );
    wait_for_diagnostics(&mut h);
    assert_eq!(
        h.state().report().unwrap().errors(),
        before,
        "{:?}",
        problems(&h)
    );
}

/// No desktop portal, no zenity: the system's dialog answers nothing.
fn no_dialogs() -> ensemble_editor::file_dialog::Dialogs {
    Box::new(|_| ensemble_editor::file_dialog::Answer::NoDialog)
}

/// Types `text` into the focused field and presses Enter.
fn type_path(h: &mut Harness<'static, EditorApp>, text: &str) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the path field has the keyboard")
        .type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(h);
}

/// Finding 4: File › Open trace… did nothing without a native file dialog.
#[test]
fn open_trace_without_a_file_dialog_asks_for_a_typed_path() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()).with_dialogs(no_dialogs()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    click(&mut h, "File");
    click(&mut h, "Open trace…");
    h.get_by_label_contains("No file dialog is available here");
    // A path that is not there: said, and the modal stays.
    type_path(&mut h, "nowhere.jsonl");
    h.get_by_label_contains("nowhere.jsonl: no such file");
    assert!(h.state().modal_open());
    // Relative to the project: a recorded trace copied into it opens in the timeline.
    let file = "airport-ticket-counter-seed7.jsonl";
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden")
        .join(file);
    std::fs::copy(golden, dir.path().join(file)).unwrap();
    type_path(&mut h, file);
    assert!(!h.state().modal_open());
    h.get_by_label(&format!("trace {file}"));
}

/// Finding 4: Browse… in "Open project" did nothing without a native file dialog.
#[test]
fn browse_without_a_file_dialog_says_to_type_the_path() {
    let mut h = harness(EditorApp::empty().with_dialogs(no_dialogs()));
    press(&mut h, Modifiers::COMMAND, Key::O);
    click(&mut h, "Browse…");
    h.get_by_label_contains("No file dialog is available here: type the path above.");
}

/// Finding 4: File › Import Excel workbook… goes through the same fallback.
#[test]
fn import_workbook_without_a_file_dialog_asks_for_a_typed_path() {
    let dir = sample_copy("airport");
    let bench = support::app::samples().join("bench/bench.xlsx");
    let mut h = harness(
        EditorApp::open(dir.path())
            .with_workbook_picker(Box::new(|_| ensemble_editor::file_dialog::Answer::NoDialog)),
    );
    click(&mut h, "File");
    click(&mut h, "Import Excel workbook…");
    type_path(&mut h, "Ensemble.ron");
    h.get_by_label_contains("Ensemble.ron: wanted a .xlsx file (Excel workbook)");
    type_path(&mut h, &bench.display().to_string());
    assert!(!h.state().modal_open());
    assert!(h.state().project().unwrap().by_path("bench.xlsx").is_some());
}

/// Finding 6: "needs a agent modifier".
#[test]
fn a_missing_agent_modifier_is_asked_for_with_an_article_that_fits() {
    let dir = sample_copy("airport");
    let path = dir.path().join("machines/BuyTicketAtCounter.machine.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let without = text.replacen(
        r#"(name: "RequestConversation", modifier: "seller", "#,
        r#"(name: "RequestConversation", "#,
        1,
    );
    assert_ne!(text, without);
    std::fs::write(&path, without).unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    h.get_by_label_contains("needs an agent modifier");
}

/// Finding 3: a Listen state's events were offered nothing outside a conversation; a
/// patrolling guard who stops for a visitor's request had to guess the message's name.
#[test]
fn a_guards_listen_state_is_offered_the_request_for_a_conversation() {
    let dir = sample_copy("airport");
    let write = |path: &str, text: &str| std::fs::write(dir.path().join(path), text).unwrap();
    write(
        "machines/Guard.machine.ron",
        r#"Machine(
    name: "Guard",
    states: [
        (name: "Start", on: [("Empty", "Patrol")]),
        (name: "Patrol", code: "Goto", modifier: "Gate", on: [("ReachedLocation", "Listen")]),
        (name: "Listen", on: [("Event", "Accept")]),
        (name: "Accept", code: "WaitForConversation", on: [("ConversationCoupled", "Patrol")]),
    ],
)
"#,
    );
    write(
        "machines/AskGuard.machine.ron",
        r#"Machine(
    name: "AskGuard",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", code: "Goto", modifier: "Gate", on: [("ReachedLocation", "RequestConversation")]),
        (name: "RequestConversation", modifier: "guard", on: [("ConversationCoupled", "Finish")]),
        (name: "Finish"),
    ],
)
"#,
    );
    write(
        "gate.scene.ron",
        r#"Scene(
    name: "gate",
    agents: [
        (name: "guard", machine: "Guard", at: "Gate"),
        (name: "visitor", machine: "AskGuard", at: "Entrance"),
    ],
)
"#,
    );
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    support::app::open(&mut h, "Guard");
    support::app::select(&mut h, "Listen");
    support::app::type_over_keeping_focus(&mut h, "Event", "conv");
    settle(&mut h);
    let offered: Vec<_> = h
        .query_all_by_role_and_label(egui::accesskit::Role::Button, "RequestConversation")
        .map(|n| n.rect())
        .collect();
    assert_eq!(offered.len(), 1, "the request is not suggested");
    // One line under the field, not a letter a line squeezed beside its buttons.
    assert!(offered[0].width() > offered[0].height(), "{offered:?}");
    support::app::click_at(&mut h, offered[0].center());
    settle(&mut h);
    let guard = support::app::machine(&h, "Guard");
    assert_eq!(guard.states[2].on[0].0, "RequestConversation");
    wait_for_diagnostics(&mut h);
    assert!(
        !problems(&h).iter().any(|(code, _)| code == "unknown-event"),
        "{:?}",
        problems(&h)
    );
}

/// Finding 6: a scene offered Delay (and roles, route, group) for agents that run a machine,
/// which the build ignores: the designer set a delay and the agent came at once.
#[test]
fn an_agent_that_runs_a_machine_is_offered_no_delay_it_would_ignore() {
    let dir = sample_copy("airport");
    let path = dir.path().join("ticket-counter.scene.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let delayed = text.replacen(
        r#"(name: "buyer2", machine: "BuyTicketAtCounter", "#,
        r#"(name: "buyer2", machine: "BuyTicketAtCounter", delay: 5.0, "#,
        1,
    );
    assert_ne!(text, delayed);
    std::fs::write(&path, delayed).unwrap();
    let mut h = harness(EditorApp::open(path));
    settle(&mut h);
    click(&mut h, "agent seller");
    assert!(
        h.query_by_label("delay").is_none(),
        "the seller is offered a delay"
    );
    // Roles, route, group and delay: a note in each field's place.
    assert_eq!(h.query_all_by_label("ambient NPCs only").count(), 4);
    // A delay written before stays to be cleared, marked as ignored.
    click(&mut h, "agent buyer2");
    h.get_by_label("delay");
    assert_eq!(
        h.query_all_by_label("⚠ ignored: it runs a machine").count(),
        1
    );
    // Without a machine, the agent is an ambient NPC: the delay is its own.
    support::app::choose(&mut h, "machine", "none (ambient NPC)");
    assert_eq!(
        scene(&h, "ticket-counter.scene.ron").agents[2].machine,
        None
    );
    h.get_by_label("delay");
    assert!(h.query_by_label("⚠ ignored: it runs a machine").is_none());
}

/// Finding 6: empty boxes where the font has no glyph — the arrow of each transition listed by
/// the delete confirmation, and the button that removes a breakpoint.
#[test]
fn the_delete_confirmation_and_the_breakpoints_show_no_missing_glyphs() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "SellTicket");
    // Okay1 has a transition into it: deleting it asks first, listing that transition.
    support::app::select(&mut h, "Okay1");
    press(&mut h, Modifiers::NONE, Key::Delete);
    h.get_by_label_contains("Listen on YourTurn");
    let missing = support::app::glyphs_the_font_lacks(&h);
    assert!(missing.is_empty(), "{missing:?}");
    click(&mut h, "Cancel");
    // A breakpoint on Listen, listed in the preview's Breakpoints pane with its remove button.
    let node = support::app::node_rect(&h, "Listen");
    support::app::click_with(
        &mut h,
        node.left_top() + egui::vec2(4.0, 4.0),
        egui::PointerButton::Secondary,
    );
    click(&mut h, "Toggle breakpoint");
    h.get_by_label("Preview").click();
    settle(&mut h);
    h.get_by_label("▶ Play").click();
    support::app::until(&mut h, "the scene's first tick", |h| {
        h.query_by_label("Breakpoints").is_some()
    });
    click(&mut h, "Breakpoints");
    h.get_by_label("SellTicket/Listen");
    let missing = support::app::glyphs_the_font_lacks(&h);
    assert!(missing.is_empty(), "{missing:?}");
}

/// Every text painted in the last frame, with where (what the accessibility tree does not
/// name: a plot's labels).
fn painted_texts(h: &Harness<'static, EditorApp>) -> Vec<(String, egui::Pos2)> {
    fn walk(shape: &egui::Shape, out: &mut Vec<(String, egui::Pos2)>) {
        match shape {
            egui::Shape::Text(t) => out.push((t.galley.text().to_string(), t.pos)),
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in &h.output().shapes {
        walk(&c.shape, &mut out);
    }
    out
}

/// Finding 6: the locations plot labelled its grid with float noise (0.30000001) once zoomed
/// in to tenths of a metre.
#[test]
fn the_locations_plot_labels_its_grid_with_round_numbers() {
    // A project of a tray a third of a metre across: its grid is a tenth of a metre.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Ensemble.ron"),
        r#"Project(name: "desk", libraries: ["sim"])"#,
    )
    .unwrap();
    let path = dir.path().join("desk.locations.ron");
    std::fs::write(
        &path,
        r#"Locations(
    locations: [
        (name: "Till", x: 0.0, y: 0.0),
        (name: "Tray", x: 0.2, y: 0.1),
        (name: "Bell", x: 0.3, y: 0.2),
    ],
)
"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(path));
    settle(&mut h);
    // Zoomed in on the till, as far as the plot goes (its name on the plot is drawn after
    // the form's list).
    let till = painted_texts(&h)
        .into_iter()
        .rfind(|(t, _)| t == "Till")
        .expect("the till on the plot")
        .1;
    h.hover_at(till);
    h.run_steps(1);
    for _ in 0..12 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 200.0),
            phase: egui::TouchPhase::Move,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(2);
    }
    settle(&mut h);
    let ticks: Vec<String> = painted_texts(&h)
        .into_iter()
        .map(|(t, _)| t)
        .filter(|t| t.parse::<f64>().is_ok())
        .collect();
    assert!(
        ticks.iter().filter(|t| t.contains('.')).count() >= 3,
        "no grid of tenths: {ticks:?}"
    );
    let noisy: Vec<&String> = ticks
        .iter()
        .filter(|t| t.split_once('.').is_some_and(|(_, d)| d.len() > 1) || *t == "-0")
        .collect();
    assert!(noisy.is_empty(), "{noisy:?} among {ticks:?}");
}

/// Finding 1, for the other kinds: a save of a machine with an error says so too.
#[test]
fn a_save_of_a_broken_machine_says_it_has_an_error() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    assert_eq!(h.state().report().unwrap().errors(), 0);
    support::app::open(&mut h, "SellTicket");
    support::app::select(&mut h, "Okay1");
    // One slip from the event a OneOff raises: the agent would wait for ever, an error.
    support::app::type_over(&mut h, "FinishStatement", "FinishStatment");
    settle(&mut h);
    press(&mut h, Modifiers::COMMAND, Key::S);
    wait_for_diagnostics(&mut h);
    let status = h.state().status().unwrap_or_default().to_string();
    assert!(status.starts_with("Saved 1 file, with 1 error"), "{status}");
    assert!(
        std::fs::read_to_string(dir.path().join("machines/SellTicket.machine.ron"))
            .unwrap()
            .contains("FinishStatment"),
        "saved all the same"
    );
}

/// Tried under Xvfb (a guard's yard from nothing): a place given x = 10 m stayed off the plot
/// until Fit was pressed. The selected place now stays in view.
#[test]
fn a_place_moved_past_the_plots_edge_brings_the_plot_along() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Ensemble.ron"),
        r#"Project(name: "yard", libraries: ["sim"])"#,
    )
    .unwrap();
    let path = dir.path().join("yard.locations.ron");
    std::fs::write(
        &path,
        "Locations(\n    locations: [\n        (name: \"Gate\", x: 0.0, y: 0.0),\n        (name: \"Tower\", x: 0.5, y: 0.0),\n    ],\n)\n",
    )
    .unwrap();
    let mut h = harness(EditorApp::open(path.clone()));
    settle(&mut h);
    let on_plot = |h: &Harness<'static, EditorApp>, name: &str| {
        painted_texts(h)
            .into_iter()
            .rfind(|(t, _)| t == name)
            .map(|(_, at)| at)
    };
    let gate = on_plot(&h, "Gate").expect("the gate on the plot");
    // Tower selected, its x typed far past the right edge.
    h.get_by_label_contains("Tower").click();
    settle(&mut h);
    h.get_by_label("location x").focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_by_label("location x").type_text("500");
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(&mut h);
    let tower = on_plot(&h, "Tower").expect("the tower on the plot");
    assert!(
        tower.x > gate.x && tower.x < 1440.0,
        "the tower at {tower:?} is off the plot (the gate at {gate:?}; the window 1440 wide)"
    );
}

/// A copy of the airport sample with `path` written as `text`.
fn airport_with(path: &str, text: &str) -> tempfile::TempDir {
    let dir = sample_copy("airport");
    std::fs::write(dir.path().join(path), text).unwrap();
    dir
}

/// The second first-time designer (a guard that patrols and talks, built under Xvfb): a
/// TalkStateMachine's picker offered the machine being edited (a machine that runs itself
/// recurses), and an empty agent picker read "choose a agent".
#[test]
fn a_talk_state_is_not_offered_its_own_machine_and_an_empty_picker_reads_well() {
    let dir = airport_with(
        "machines/Guard.machine.ron",
        r#"Machine(
    name: "Guard",
    states: [
        (name: "Start", on: [("Empty", "AskVisitor")]),
        (name: "AskVisitor", code: "RequestConversation", on: [("ConversationCoupled", "TalkToVisitor")]),
        (name: "TalkToVisitor", code: "TalkStateMachine", on: [("EndStateMachine", "Finish")]),
        (name: "Finish"),
    ],
)
"#,
    );
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    support::app::open(&mut h, "Guard");
    settle(&mut h);
    support::app::select(&mut h, "AskVisitor");
    settle(&mut h);
    h.get_by_value("choose an agent");
    support::app::select(&mut h, "TalkToVisitor");
    settle(&mut h);
    let count = |h: &Harness<'static, EditorApp>, name: &str| h.query_all_by_label(name).count();
    let (guards, others) = (count(&h, "Guard"), count(&h, "BuyTicket"));
    h.get_by_value("choose a machine").click();
    settle(&mut h);
    // The list is open (another machine is offered), and the machine itself is not in it.
    assert!(
        count(&h, "BuyTicket") > others,
        "the machine list did not open"
    );
    assert_eq!(
        count(&h, "Guard"),
        guards,
        "the Talk state is offered its own machine"
    );
}

/// Ticking "this agent is the player" on an agent that runs a machine left the machine, an
/// error until cleared by hand (the player runs none): the machine goes with the tick.
#[test]
fn an_agent_made_the_player_drops_its_machine() {
    let dir = airport_with(
        "gate.scene.ron",
        r#"Scene(
    name: "gate",
    agents: [
        (name: "visitor", machine: "BuyTicket", at: "Entrance"),
    ],
)
"#,
    );
    let mut h = harness(EditorApp::open(dir.path().join("gate.scene.ron")));
    wait_for_diagnostics(&mut h);
    let before = h.state().report().unwrap().errors();
    click(&mut h, "player");
    settle(&mut h);
    let visitor = &scene(&h, "gate.scene.ron").agents[0];
    assert!(visitor.player, "{visitor:?}");
    assert_eq!(visitor.machine, None);
    wait_for_diagnostics(&mut h);
    assert!(
        h.state().report().unwrap().errors() <= before,
        "{:?}",
        problems(&h)
    );
}
