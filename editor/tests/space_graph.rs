//! The HMM space graph driven with the pointer, headless: connecting two states by dragging
//! from a `+` pin, dropping a wire on empty space to make a state there, moving a node (the
//! layout changes, the space does not), selecting and deleting with the keyboard, comments and
//! groups on the canvas (kept in the space's layout sidecar).

mod support;

use eframe::egui;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::hpmm::assets::SpaceAsset;
use ensemble_editor::panel::{GraphPanel, PanelCx, ProjectNames, Request};
use ensemble_editor::reach::Asked;
use ensemble_editor::sidecar::Layout;
use ensemble_editor::space::SpacePanel;
use std::cell::RefCell;
use support::app::{click_with, drag, samples};

struct Host {
    panel: SpacePanel,
    value: SpaceAsset,
    layout: Layout,
    changes: usize,
    names: ProjectNames,
    /// What the panel asked of its host, every frame's.
    requests: Vec<Request>,
}

fn haggle() -> SpaceAsset {
    let text =
        std::fs::read_to_string(samples().join("innkeeper/spaces/haggle.space.ron")).unwrap();
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(&text)
        .unwrap()
}

fn harness() -> Harness<'static, Host> {
    let host = Host {
        panel: SpacePanel::default(),
        value: haggle(),
        layout: Layout::default(),
        changes: 0,
        names: ProjectNames::default(),
        requests: Vec::new(),
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 860.0))
        .with_step_dt(0.02)
        .build_ui_state(
            |ui, host: &mut Host| {
                let requests = RefCell::new(Vec::new());
                let root = std::path::Path::new(".");
                let cx = PanelCx {
                    root,
                    file: "spaces/haggle.space.ron",
                    diagnostics: &[],
                    names: &host.names,
                    requests: &requests,
                    compiled: None,
                };
                if host.panel.ui(ui, &mut host.value, &mut host.layout, &cx) {
                    host.changes += 1;
                }
                host.requests.extend(requests.take());
            },
            host,
        );
    h.run_steps(8);
    h
}

fn row(h: &Harness<'static, Host>, state: &str) -> Vec<(String, f64)> {
    let v = &h.state().value;
    v.states
        .iter()
        .find(|s| s.name == state)
        .unwrap()
        .to
        .clone()
}

fn plus_pin(h: &Harness<'static, Host>, state: &str) -> Pos2 {
    let n = row(h, state).len();
    h.state().panel.view.output_pin(state, n).unwrap()
}

#[test]
fn dragging_from_a_plus_pin_to_a_state_adds_a_transition_and_keeps_the_row_a_distribution() {
    let mut h = harness();
    let from = plus_pin(&h, "dealt");
    let to = h.state().panel.view.input_pin("idle").unwrap();
    drag(&mut h, from, to);
    let r = row(&h, "dealt");
    assert_eq!(r.len(), 3, "{r:?}");
    assert_eq!(r[2].0, "idle");
    let sum: f64 = r.iter().map(|(_, p)| p).sum();
    assert!((sum - 1.0).abs() < 1e-6, "{r:?}");
    assert_eq!(h.state().changes, 1);
}

#[test]
fn a_wire_dropped_on_empty_space_makes_a_state_there() {
    let mut h = harness();
    let from = plus_pin(&h, "idle");
    let empty = egui::pos2(from.x + 40.0, 820.0);
    drag(&mut h, from, empty);
    h.run_steps(2);
    h.get_by_label("New state here").click();
    h.run_steps(4);
    let v = &h.state().value;
    assert!(v.states.iter().any(|s| s.name == "state"));
    assert!(row(&h, "idle").iter().any(|(t, _)| t == "state"));
    assert!(h.state().layout.get("state").is_some());
    assert_eq!(h.state().panel.view.selection, ["state".to_string()].into());
}

#[test]
fn moving_a_node_changes_the_layout_not_the_space_and_delete_removes_the_selection() {
    let mut h = harness();
    let before = h.state().value.clone();
    let rect = h.state().panel.view.state_rect("offered").unwrap();
    let grab = rect.left_top() + egui::vec2(20.0, 12.0);
    drag(&mut h, grab, grab + egui::vec2(60.0, 40.0));
    assert_eq!(h.state().value, before);
    let layout = &h.state().layout;
    // The first move of an auto-laid-out space keeps every node where it was drawn.
    assert_eq!(layout.nodes.len(), before.states.len());
    let moved = h.state().panel.view.state_rect("offered").unwrap();
    assert!(
        (moved.left() - rect.left() - 60.0).abs() < 2.0,
        "{rect:?} -> {moved:?}"
    );
    // A click on its title selects it; Delete removes it and every transition into it.
    click_title(&mut h, "offered", Modifiers::NONE);
    assert_eq!(
        h.state().panel.view.selection,
        ["offered".to_string()].into()
    );
    h.key_press_modifiers(Modifiers::NONE, Key::Delete);
    h.run_steps(3);
    let v = &h.state().value;
    assert!(v.states.iter().all(|s| s.name != "offered"));
    assert!(
        v.states
            .iter()
            .all(|s| s.to.iter().all(|(t, _)| t != "offered"))
    );
}

/// Every state's node on screen, by name.
fn state_rects(h: &Harness<'static, Host>) -> Vec<(String, egui::Rect)> {
    let names: Vec<String> = h
        .state()
        .value
        .states
        .iter()
        .map(|s| s.name.clone())
        .collect();
    names
        .into_iter()
        .map(|n| {
            let r = h.state().panel.view.state_rect(&n).unwrap();
            (n, r)
        })
        .collect()
}

#[test]
fn a_new_state_goes_where_no_state_is_and_moves_none_of_the_others() {
    // Through the toolbar (the middle of the view, where a state is after fitting) and
    // through a wire dropped beside a state: each new state lands off every other, and the
    // states of this auto-laid-out space stay where they were drawn.
    let mut h = harness();
    let before = state_rects(&h);
    h.get_by_label("add state").click();
    h.run_steps(4);
    let from = plus_pin(&h, "idle");
    drag(&mut h, from, from + egui::vec2(30.0, 0.0));
    h.run_steps(2);
    h.get_by_label("New state here").click();
    h.run_steps(4);
    let after = state_rects(&h);
    assert_eq!(after.len(), before.len() + 2, "{after:?}");
    for (name, was) in &before {
        let (_, now) = after.iter().find(|(n, _)| n == name).unwrap();
        assert!(
            (now.min - was.min).length() < 1.0,
            "{name} moved: {was:?} -> {now:?}"
        );
    }
    for (i, (a, ra)) in after.iter().enumerate() {
        for (b, rb) in &after[i + 1..] {
            assert!(!ra.intersects(*rb), "{a} {ra:?} overlaps {b} {rb:?}");
        }
    }
}

/// Clicks the title of `state`'s node with `modifiers` held (Shift adds it to the selection).
fn click_title(h: &mut Harness<'static, Host>, state: &str, modifiers: Modifiers) {
    let title = h.state().panel.view.state_rect(state).unwrap().left_top() + egui::vec2(20.0, 12.0);
    h.hover_at(title);
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.run_steps(2);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: title,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers,
        });
        h.run_steps(1);
    }
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.run_steps(2);
}

#[test]
fn a_group_around_selected_states_is_kept_in_the_layout_and_its_title_drags_them_together() {
    let mut h = harness();
    let space = h.state().value.clone();
    click_title(&mut h, "idle", Modifiers::NONE);
    click_title(&mut h, "offered", Modifiers::SHIFT);
    assert_eq!(
        h.state().panel.view.selection,
        ["idle".to_string(), "offered".to_string()].into()
    );
    h.get_by_label("Group").click();
    h.run_steps(4);
    let groups = &h.state().layout.groups;
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0].nodes, ["idle", "offered"]);
    let before = state_rects(&h);
    let title = support::app::text_fields(&h)
        .into_iter()
        .find(|(text, _)| text == "Group")
        .expect("the group's title on the canvas")
        .1;
    let bar = egui::pos2(title.right() + 20.0, title.center().y);
    drag(&mut h, bar, bar + egui::vec2(0.0, 80.0));
    h.run_steps(2);
    // The grouped states follow the pointer (less the few points egui waits for before it
    // calls it a drag); the others stay.
    for (name, was) in before {
        let now = h.state().panel.view.state_rect(&name).unwrap();
        let dy = if name == "idle" || name == "offered" {
            80.0
        } else {
            0.0
        };
        assert!(
            (now.top() - was.top() - dy).abs() < 4.0 && (now.left() - was.left()).abs() < 2.0,
            "{name}: {was:?} -> {now:?}"
        );
    }
    // Only the layout changed.
    assert_eq!(h.state().value, space);
}

#[test]
fn a_comment_on_the_space_canvas_is_saved_beside_the_space_comes_back_and_undoes() {
    use ensemble_editor::EditorApp;
    const HAGGLE: &str = "spaces/haggle.space.ron";
    let dir = support::app::sample_copy("innkeeper");
    let mut h = support::app::harness(EditorApp::open(dir.path().join(HAGGLE)));
    support::app::settle(&mut h);
    support::app::click(&mut h, "+ Comment");
    support::app::type_over_keeping_focus(&mut h, "Comment", "Offers start low");
    support::app::settle(&mut h);
    support::app::press(&mut h, Modifiers::COMMAND, Key::S);
    let sidecar =
        std::fs::read_to_string(dir.path().join("spaces/haggle.space.layout.ron")).unwrap();
    assert!(sidecar.contains("Offers start low"), "{sidecar}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(HAGGLE)).unwrap(),
        std::fs::read_to_string(support::app::samples().join("innkeeper").join(HAGGLE)).unwrap(),
        "a comment never goes into the space"
    );

    // Reopened, it is there; deleting it is one undo step away from coming back.
    let mut h = support::app::harness(EditorApp::open(dir.path().join(HAGGLE)));
    support::app::settle(&mut h);
    let comments = |h: &Harness<'static, EditorApp>| {
        let p = h.state().project().unwrap();
        p.docs[p.by_path(HAGGLE).unwrap()]
            .state
            .layout
            .comments
            .clone()
    };
    assert_eq!(comments(&h).len(), 1);
    assert_eq!(comments(&h)[0].text, "Offers start low");
    let text = support::app::text_fields(&h)
        .into_iter()
        .find(|(text, _)| text == "Offers start low")
        .expect("the comment on the canvas")
        .1;
    support::app::click_at(&mut h, egui::pos2(text.right() - 8.0, text.top() - 4.0));
    support::app::settle(&mut h);
    assert!(comments(&h).is_empty());
    support::app::press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(comments(&h).len(), 1);
}

#[test]
fn how_do_i_get_here_on_a_state_asks_the_host_to_search_for_it() {
    let mut h = harness();
    let rect = h.state().panel.view.state_rect("offered").unwrap();
    click_with(
        &mut h,
        rect.left_top() + egui::vec2(4.0, 4.0),
        egui::PointerButton::Secondary,
    );
    h.run_steps(4);
    h.get_by_label("How do I get here?").click();
    h.run_steps(4);
    let asked: Vec<&Asked> = h
        .state()
        .requests
        .iter()
        .filter_map(|r| match r {
            Request::Reach(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(
        asked,
        [&Asked::HmmState {
            space: "haggle".into(),
            state: "offered".into()
        }]
    );
}

/// A state just added is named by typing (the Xvfb designer's typing went nowhere: the name
/// field looked ready but did not have the keyboard): the placeholder is replaced, and the
/// host is asked for the rename.
#[test]
fn a_new_state_is_named_by_typing_at_once() {
    let mut h = harness();
    h.get_by_label("add state").click();
    h.run_steps(4);
    let added = h
        .state()
        .value
        .states
        .last()
        .map(|s| s.name.clone())
        .unwrap();
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the new state's name field has the keyboard")
        .type_text("asked");
    h.run_steps(1);
    h.key_press(Key::Enter);
    h.run_steps(2);
    let renamed =
        h.state().requests.iter().any(
            |r| matches!(r, Request::Rename { old, new, .. } if *old == added && new == "asked"),
        );
    assert!(renamed, "{:?}", h.state().requests);
}
