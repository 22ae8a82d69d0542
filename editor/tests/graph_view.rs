//! The graph editor as a designer reads and drives it (issue 18): edges that show their
//! direction and go around nodes, fitting, zooming, placing new nodes, deleting.

use eframe::egui;
use egui::{Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ensemble_compiler::front::ron::MachineAsset;
use ensemble_editor::EditorApp;

mod support;
use support::app::{harness, sample_copy, settle};

fn machine<'a>(h: &'a Harness<'static, EditorApp>, name: &str) -> &'a MachineAsset {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(name).unwrap()]
        .state
        .machine()
        .unwrap()
}

fn states(h: &Harness<'static, EditorApp>, name: &str) -> Vec<String> {
    machine(h, name)
        .states
        .iter()
        .map(|s| s.name.clone())
        .collect()
}

fn rect(h: &Harness<'static, EditorApp>, state: &str) -> Rect {
    support::app::node_rect(h, state)
}

/// Whether the polyline runs through the inside of `r`.
fn runs_through(route: &[Pos2], r: Rect) -> bool {
    let inside = r.shrink(2.0);
    route
        .windows(2)
        .any(|w| (0..=20).any(|i| inside.contains(w[0] + (w[1] - w[0]) * (i as f32 / 20.0))))
}

#[test]
fn the_sellers_way_back_to_the_counter_goes_around_the_states_between() {
    // StandSellTicket: Goto1 → WaitForConversation → TalkStateMachine → FinishTalkState, and
    // FinishTalkState goes back to Goto1 to serve the next buyer. Drawn straight, that edge
    // ran behind the two states between.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let graph = &h.state().session().unwrap().graph;
    let back = graph
        .edge_route("FinishTalkState", 0)
        .expect("the way back is drawn");
    for s in states(&h, "StandSellTicket") {
        assert!(
            !runs_through(&back, rect(&h, &s)),
            "the edge back to Goto1 runs through {s}: {back:?}"
        );
    }
    // It ends at Goto1's input pin, where its arrowhead is.
    let end = *back.last().unwrap();
    let input = graph.input_pin("Goto1").unwrap();
    assert!((end - input).length() < 1.0, "{end:?} vs {input:?}");
    // And a forward edge still ends at its target.
    let forward = graph.edge_route("Goto1", 0).unwrap();
    let input = graph.input_pin("WaitForConversation").unwrap();
    assert!((*forward.last().unwrap() - input).length() < 1.0);
}

#[test]
fn the_eight_state_seller_opens_at_a_size_that_reads() {
    // Opening SellTicket used to shrink it to half size, where its text cannot be read. (Fit
    // shows it whole, smaller: issue 32's designer asked for the whole machine there.)
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "SellTicket");
    settle(&mut h);
    let zoom = h.state().session().unwrap().graph.zoom();
    assert!(zoom >= 0.75, "fit at {zoom}");
    // The zoom is shown, and the start of the machine is in view.
    h.get_by_label(&format!("{}%", (zoom * 100.0).round()));
    let start = rect(&h, "Start");
    assert!(start.left() >= 0.0 && start.right() <= 1440.0, "{start:?}");
}

/// Turns the wheel one notch towards the user with the pointer over `state`: zooms out.
fn wheel_out_over(h: &mut Harness<'static, EditorApp>, state: &str) {
    h.hover_at(rect(h, state).center());
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -120.0),
        phase: egui::TouchPhase::Move,
        modifiers: egui::Modifiers::NONE,
    });
}

#[test]
fn the_wheel_zooms_the_graph_and_zoom_to_selection_frames_the_selected_state() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let before = h.state().session().unwrap().graph.zoom();
    wheel_out_over(&mut h, "Goto1");
    settle(&mut h);
    let after = h.state().session().unwrap().graph.zoom();
    assert!(after < before * 0.8, "{before} -> {after}");
    support::app::select(&mut h, "TalkStateMachine");
    support::app::click(&mut h, "Zoom to selection");
    settle(&mut h);
    let graph = &h.state().session().unwrap().graph;
    let r = rect(&h, "TalkStateMachine");
    assert!(
        (r.center() - graph.canvas().center()).length() < 2.0,
        "{r:?}"
    );
    assert_eq!(graph.zoom(), 1.0, "one state is shown at its own size");
}

#[test]
fn a_click_anywhere_on_a_node_selects_it() {
    // Only the node's text used to select it; a click on the rest of its frame did nothing.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let r = rect(&h, "WaitForConversation");
    // Inside the frame, clear of its text and pins: the bottom-middle margin.
    support::app::click_at(&mut h, egui::pos2(r.center().x, r.bottom() - 3.0));
    settle(&mut h);
    assert_eq!(
        h.state().selection(),
        ["WaitForConversation".to_string()].into()
    );
    // A click on empty canvas clears it.
    support::app::click_at(&mut h, egui::pos2(r.center().x, r.bottom() + 150.0));
    settle(&mut h);
    assert!(h.state().selection().is_empty());
}

#[test]
fn a_state_added_beside_a_node_goes_in_free_space_and_no_other_state_moves() {
    // The new state used to land where the menu was opened, on the node beside it, and every
    // state the auto-layout placed moved when the layout was redone with it.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    // Where each state is, in graph coordinates (the view may move; the states must not).
    let at = |h: &Harness<'static, EditorApp>, s: &str| {
        let p = h.state().project().unwrap();
        let layout = &p.docs[p.machine_doc("StandSellTicket").unwrap()]
            .state
            .layout;
        h.state().session().unwrap().graph.position(layout, s)
    };
    let before: Vec<(String, [f32; 2])> = states(&h, "StandSellTicket")
        .into_iter()
        .map(|s| {
            let p = at(&h, &s);
            (s, p)
        })
        .collect();
    // Drag a new transition out of WaitForConversation's `+` pin and drop it just above
    // TalkStateMachine: the menu there makes the new state.
    let talk = rect(&h, "TalkStateMachine");
    let plus = h
        .state()
        .session()
        .unwrap()
        .graph
        .output_pin("WaitForConversation", 1)
        .unwrap();
    support::app::drag(&mut h, plus, egui::pos2(talk.center().x, talk.top() - 20.0));
    h.run_steps(2);
    support::app::click(&mut h, "Wait");
    settle(&mut h);
    let now = states(&h, "StandSellTicket");
    assert_eq!(now.len(), before.len() + 1, "{now:?}");
    let added = rect(&h, now.last().unwrap());
    for (s, p) in &before {
        let now = at(&h, s);
        assert!(
            (now[0] - p[0]).abs() < 0.5 && (now[1] - p[1]).abs() < 0.5,
            "{s} moved from {p:?} to {now:?}"
        );
        let r = rect(&h, s);
        assert!(
            !r.intersects(added),
            "the new state {added:?} is on {s} {r:?}"
        );
    }
}

#[test]
fn f2_renames_the_selected_state_through_the_name_field() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::select(&mut h, "Goto1");
    h.key_press(egui::Key::F2);
    settle(&mut h);
    let field = h
        .get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.is_focused())
        .expect("F2 focuses a name field");
    assert_eq!(field.accesskit_node().value().as_deref(), Some("Goto1"));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text("WalkToCounter");
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    let m = machine(&h, "StandSellTicket");
    assert_eq!(m.states[1].name, "WalkToCounter");
    // The rename path moves the transitions into it too.
    assert_eq!(m.states[0].on[0].1, "WalkToCounter");
}

#[test]
fn the_add_state_menu_searches_the_library() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    let before = states(&h, "StandSellTicket").len();
    support::app::click(&mut h, "+ State");
    settle(&mut h);
    let gotos = |h: &Harness<'static, EditorApp>| h.query_all_by_label("Goto").count();
    let with_menu = gotos(&h);
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the search field takes the keys at once")
        .type_text("dialog");
    settle(&mut h);
    assert_eq!(gotos(&h), with_menu - 1, "Goto does not match");
    assert!(h.query_all_by_label("Dialog").count() > 0);
    // Enter takes the first match.
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    let now = states(&h, "StandSellTicket");
    assert_eq!(now.len(), before + 1);
    assert!(now.last().unwrap().starts_with("Dialog"), "{now:?}");
}

#[test]
fn deleting_a_state_with_transitions_into_it_asks_first_and_is_undoable() {
    // Deleting Goto1 used to remove Start's and FinishTalkState's transitions into it
    // without a word.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::select(&mut h, "Goto1");
    h.key_press(egui::Key::Delete);
    settle(&mut h);
    assert!(states(&h, "StandSellTicket").contains(&"Goto1".to_string()));
    h.get_by_label("Delete Goto1?");
    h.get_by_label("  FinishTalkState on FinishTalk goes to Goto1");
    support::app::click(&mut h, "Cancel");
    settle(&mut h);
    assert!(states(&h, "StandSellTicket").contains(&"Goto1".to_string()));
    assert!(h.query_by_label("Delete Goto1?").is_none());
    // Asked again, and confirmed: it goes, with the transitions, in one undo step.
    h.key_press(egui::Key::Delete);
    settle(&mut h);
    h.get_by_label("Delete").click();
    settle(&mut h);
    assert!(!states(&h, "StandSellTicket").contains(&"Goto1".to_string()));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    let m = machine(&h, "StandSellTicket");
    assert_eq!(m.states[1].name, "Goto1");
    assert_eq!(m.states[4].on[0].1, "Goto1");
}

#[test]
fn a_change_on_disk_keeps_the_view_where_the_designer_left_it() {
    // A reload after a change on disk (another editor, "Save as test", a pull) used to fit the
    // graph again: the view jumped and the zoom the designer chose was lost.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let fitted = h.state().session().unwrap().graph.zoom();
    wheel_out_over(&mut h, "Goto1");
    // egui spreads a wheel turn over several frames.
    h.run_steps(30);
    let zoom = h.state().session().unwrap().graph.zoom();
    assert!(
        zoom < fitted * 0.8,
        "the wheel zoomed out: {fitted} -> {zoom}"
    );
    let at = rect(&h, "Goto1");
    let s = h.state().session().unwrap();
    let file = dir.path().join(&s.project.docs[s.open.unwrap()].state.path);
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n// changed in another editor\n");
    std::fs::write(&file, text).unwrap();
    support::app::until(&mut h, "the change on disk to be noticed", |h| {
        h.query_by_label_contains("Reloaded").is_some()
    });
    settle(&mut h);
    assert_eq!(h.state().session().unwrap().graph.zoom(), zoom);
    let now = rect(&h, "Goto1");
    assert!(
        (now.center() - at.center()).length() < 1.0,
        "{at:?} -> {now:?}"
    );
}
