//! Graphs that read and a discoverable editor (issue 18): the layered Arrange, the minimap,
//! comments on the canvas, suggested transition events, and a tooltip on every control.

use eframe::egui;
use egui::accesskit::Role;
use egui::{Key, Modifiers, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ensemble_editor::EditorApp;

mod support;
use support::app::{machine, sample_copy, settle};

/// The editor in a window wide enough to show the eight-state seller whole.
fn wide_harness(app: EditorApp) -> Harness<'static, EditorApp> {
    support::app::harness_of_size(app, egui::vec2(2800.0, 1100.0))
}

fn position(h: &Harness<'static, EditorApp>, machine: &str, state: &str) -> Option<[f32; 2]> {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(machine).unwrap()]
        .state
        .layout
        .get(state)
}

/// The airport sample with every state of `machine` on the same spot (its sidecar says so),
/// open at `machine`.
fn piled_up(machine: &str, states: &[&str]) -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let dir = sample_copy("airport");
    let nodes: Vec<String> = states
        .iter()
        .map(|s| format!("(name: \"{s}\", x: 0.0, y: 0.0)"))
        .collect();
    std::fs::write(
        dir.path()
            .join(format!("machines/{machine}.machine.layout.ron")),
        format!("Layout(nodes: [{}])", nodes.join(", ")),
    )
    .unwrap();
    let mut h = wide_harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, machine);
    (dir, h)
}

/// Every transition of `machine` not in `back` goes to a later column; no two states overlap
/// on screen.
fn assert_layered(h: &Harness<'static, EditorApp>, name: &str, back: &[(&str, &str)]) {
    let m = machine(h, name);
    for s in &m.states {
        for (event, to) in &s.on {
            if back.contains(&(s.name.as_str(), to.as_str())) {
                continue;
            }
            let (a, b) = (
                position(h, name, &s.name).unwrap(),
                position(h, name, to).unwrap(),
            );
            assert!(
                b[0] > a[0],
                "{} on {event} -> {to} does not go right: {a:?} -> {b:?}",
                s.name
            );
        }
    }
    let graph = &h.state().session().unwrap().graph;
    let rects: Vec<(String, Rect)> = m
        .states
        .iter()
        .map(|s| {
            let r = graph
                .state_rect(&s.name)
                .unwrap_or_else(|| panic!("{} not drawn", s.name));
            (s.name.clone(), r)
        })
        .collect();
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            assert!(!ra.intersects(*rb), "{a} {ra:?} overlaps {b} {rb:?}");
        }
    }
}

#[test]
fn arrange_lays_the_seller_out_in_layers_that_follow_the_flow_in_one_undo_step() {
    let states = [
        "Start",
        "Listen",
        "Okay1",
        "WhenTravel",
        "Okay2",
        "HandOverTicket",
        "ConfirmFlightX",
        "Finish",
    ];
    let (_dir, mut h) = piled_up("SellTicket", &states);
    assert_eq!(position(&h, "SellTicket", "Okay2"), Some([0.0, 0.0]));
    // The shortcut from the one shortcut table.
    support::app::press(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::L);
    support::app::click(&mut h, "Fit");
    settle(&mut h);
    assert_layered(&h, "SellTicket", &[]);
    // One undo step puts every state back.
    support::app::press(&mut h, Modifiers::COMMAND, Key::Z);
    for s in states {
        assert_eq!(position(&h, "SellTicket", s), Some([0.0, 0.0]), "{s}");
    }
}

#[test]
fn arrange_from_the_edit_menu_keeps_the_way_back_to_the_counter_as_the_only_edge_going_left() {
    let states = [
        "Start",
        "Goto1",
        "WaitForConversation",
        "TalkStateMachine",
        "FinishTalkState",
    ];
    let (_dir, mut h) = piled_up("StandSellTicket", &states);
    support::app::click(&mut h, "Edit");
    let item = h
        .get_all_by_label_contains("Arrange (layered)")
        .last()
        .expect("Edit menu has Arrange (layered)")
        .rect()
        .center();
    support::app::click_at(&mut h, item);
    settle(&mut h);
    support::app::click(&mut h, "Fit");
    settle(&mut h);
    assert_layered(&h, "StandSellTicket", &[("FinishTalkState", "Goto1")]);
}

#[test]
fn clicking_the_minimap_moves_the_view_there() {
    // The eight-state seller at a size that reads (as it opens) is wider than the view: the
    // minimap shows, and a click at its right end brings the machine's end into view.
    let dir = sample_copy("airport");
    let mut h = support::app::harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "SellTicket");
    settle(&mut h);
    let graph = &h.state().session().unwrap().graph;
    let canvas = graph.canvas();
    let finish_in_view = |h: &Harness<'static, EditorApp>| {
        let graph = &h.state().session().unwrap().graph;
        graph
            .state_rect("Finish")
            .is_some_and(|r| canvas.contains_rect(r))
    };
    assert!(
        !finish_in_view(&h),
        "the seller fits whole: no minimap needed"
    );
    let map = h.get_by_label("Minimap").rect();
    assert!(canvas.contains_rect(map), "{map:?} outside {canvas:?}");
    let start_before = support::app::node_rect(&h, "Start");
    support::app::click_at(&mut h, egui::pos2(map.right() - 4.0, map.center().y));
    settle(&mut h);
    assert!(finish_in_view(&h), "Finish is still out of view");
    assert!(
        h.state()
            .session()
            .unwrap()
            .graph
            .state_rect("Start")
            .is_none_or(|r| r.left() < start_before.left() - 100.0),
        "the view did not move right"
    );
    // The click on the minimap left the selection alone.
    assert!(h.state().selection().is_empty());
}

/// The buttons named `label`.
fn buttons(h: &Harness<'static, EditorApp>, label: &str) -> Vec<Rect> {
    h.query_all_by_role_and_label(Role::Button, label)
        .map(|n| n.rect())
        .collect()
}

#[test]
fn typing_a_listen_transition_suggests_the_message_the_buyer_sends() {
    // The seller's Listen waits for YourTurn, which its partner's side sends when the buyer
    // yields the turn; a designer had to know to type it.
    let dir = sample_copy("airport");
    let mut h = support::app::harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "SellTicket");
    support::app::select(&mut h, "Listen");
    support::app::type_over_keeping_focus(&mut h, "YourTurn", "turn");
    settle(&mut h);
    assert_eq!(machine(&h, "SellTicket").states[1].on[0].0, "turn");
    let offered = buttons(&h, "YourTurn");
    assert_eq!(offered.len(), 1, "YourTurn is not suggested");
    assert!(buttons(&h, "ConversationEnded").is_empty(), "not a match");
    support::app::click_at(&mut h, offered[0].center());
    settle(&mut h);
    assert_eq!(machine(&h, "SellTicket").states[1].on[0].0, "YourTurn");
    // The list went with the pick; the menu beside the field offers the end of the talk too.
    assert!(buttons(&h, "YourTurn").is_empty());
    support::app::click(&mut h, "⏷");
    assert_eq!(buttons(&h, "ConversationEnded").len(), 1);
}

/// The buttons, checkboxes and combo boxes in the window that show no tooltip when hovered.
fn untipped(h: &mut Harness<'static, EditorApp>) -> (usize, Vec<String>) {
    let window = Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1440.0, 900.0));
    let controls: Vec<(String, Role, Rect)> = [Role::Button, Role::CheckBox, Role::ComboBox]
        .into_iter()
        .flat_map(|role| {
            h.query_all_by_role(role)
                .map(|n| {
                    let name = n.accesskit_node().label().unwrap_or_default();
                    (name, role, n.rect())
                })
                .collect::<Vec<_>>()
        })
        .filter(|(_, _, r)| r.is_positive() && window.contains(r.center()))
        .collect();
    let mut without = Vec::new();
    for (name, role, r) in &controls {
        // Away first, so the last tooltip closes (egui shows one per layer: the first wins).
        h.hover_at(egui::pos2(720.0, 899.0));
        h.run_steps(4);
        h.hover_at(r.center());
        h.run_steps(4);
        let tooltip = h.ctx.memory(|m| {
            m.areas()
                .visible_layer_ids()
                .iter()
                .any(|l| l.order == egui::Order::Tooltip)
        });
        if !tooltip {
            without.push(format!("{role:?} {name:?} at {:?}", r.center()));
        }
    }
    (controls.len(), without)
}

#[test]
fn every_button_checkbox_and_combo_of_the_main_window_has_a_tooltip() {
    // Walks the window's accessibility tree, with a state selected and with none, hovering
    // each control. (The project list's `+` sat under the panel's resize handle: no tooltip,
    // and a click there resized the panel.)
    let dir = sample_copy("airport");
    let mut h = support::app::harness(EditorApp::open(dir.path()));
    h.ctx.all_styles_mut(|s| {
        s.interaction.tooltip_delay = 0.0;
        s.interaction.show_tooltips_only_when_still = false;
    });
    support::app::open(&mut h, "StandSellTicket");
    support::app::select(&mut h, "Goto1");
    let (selected, mut without) = untipped(&mut h);
    support::app::press(&mut h, Modifiers::NONE, Key::Escape);
    assert!(h.state().selection().is_empty());
    let (machine, more) = untipped(&mut h);
    without.extend(more);
    assert!(
        selected > 20 && machine > 20,
        "{selected} and {machine} controls"
    );
    assert!(
        without.is_empty(),
        "{} of {} controls have no tooltip:\n{}",
        without.len(),
        selected + machine,
        without.join("\n")
    );
}

#[test]
fn a_comment_and_a_group_on_the_canvas_are_saved_in_the_sidecar_and_come_back() {
    let dir = sample_copy("airport");
    let mut h = support::app::harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "StandSellTicket");
    support::app::click(&mut h, "+ Comment");
    support::app::type_over_keeping_focus(&mut h, "Comment", "The seller waits here");
    settle(&mut h);
    // A group around every state; dragging its title moves them together.
    support::app::select(&mut h, "Goto1");
    support::app::press(&mut h, Modifiers::COMMAND, Key::A);
    assert_eq!(h.state().selection().len(), 5);
    support::app::click(&mut h, "Group");
    let drawn_at =
        |h: &Harness<'static, EditorApp>, s: &str| support::app::drawn_at(h, "StandSellTicket", s);
    let before = [drawn_at(&h, "Goto1"), drawn_at(&h, "WaitForConversation")];
    let title = h
        .get_all_by_role(Role::TextInput)
        .find(|n| n.value().as_deref() == Some("Group"))
        .expect("the group's title")
        .rect();
    let bar = egui::pos2(title.right() + 20.0, title.center().y);
    support::app::drag(&mut h, bar, bar + egui::vec2(0.0, 80.0));
    settle(&mut h);
    for (i, s) in ["Goto1", "WaitForConversation"].iter().enumerate() {
        let (was, now) = (before[i], drawn_at(&h, s));
        assert!(
            (now[1] - was[1] - 80.0 / h.state().session().unwrap().graph.zoom()).abs() < 2.0,
            "{s} {was:?} -> {now:?}"
        );
    }
    support::app::press(&mut h, Modifiers::COMMAND, Key::S);
    let sidecar = std::fs::read_to_string(
        dir.path()
            .join("machines/StandSellTicket.machine.layout.ron"),
    )
    .unwrap();
    assert!(sidecar.contains("The seller waits here"), "{sidecar}");

    // Reopened, both are there.
    let mut h = support::app::harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "StandSellTicket");
    let texts: Vec<String> = support::app::text_fields(&h)
        .into_iter()
        .map(|(text, _)| text)
        .collect();
    assert!(
        texts.contains(&"The seller waits here".to_string()),
        "{texts:?}"
    );
    assert!(texts.contains(&"Group".to_string()), "{texts:?}");
    // Deleting the comment is one undo step away from coming back.
    let n = |h: &Harness<'static, EditorApp>| {
        let p = h.state().project().unwrap();
        p.docs[p.machine_doc("StandSellTicket").unwrap()]
            .state
            .layout
            .comments
            .len()
    };
    assert_eq!(n(&h), 1);
    let close = support::app::text_fields(&h)
        .into_iter()
        .find(|(text, _)| text == "The seller waits here")
        .unwrap()
        .1;
    support::app::click_at(&mut h, egui::pos2(close.right() - 8.0, close.top() - 4.0));
    settle(&mut h);
    assert_eq!(n(&h), 0);
    support::app::press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(n(&h), 1);
}
