//! A canvas that does what the hand means (issue 32, finding 2): the first-time designer's
//! gestures on the machine graph, each driven with the pointer as a designer does, each
//! failing without the fix it is named for.

use eframe::egui;
use egui::{Pos2, Rect, pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;

mod support;
use support::app::{drag, harness, machine, node_rect, sample_copy, settle};

const SELLER: &str = "StandSellTicket";

fn graph<'a>(h: &'a Harness<'static, EditorApp>) -> &'a ensemble_editor::machine::GraphView {
    &h.state().session().unwrap().graph
}

fn targets(h: &Harness<'static, EditorApp>, state: &str) -> Vec<(String, String)> {
    let m = machine(h, SELLER);
    m.states
        .iter()
        .find(|s| s.name == state)
        .unwrap()
        .on
        .clone()
}

/// Every pair of the machine's nodes that overlap on screen.
fn overlaps(h: &Harness<'static, EditorApp>, name: &str) -> Vec<String> {
    let rects: Vec<(String, Rect)> = machine(h, name)
        .states
        .iter()
        .filter_map(|s| Some((s.name.clone(), graph(h).state_rect(&s.name)?)))
        .collect();
    let mut out = Vec::new();
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            if ra.intersects(*rb) {
                out.push(format!("{a} {ra:?} overlaps {b} {rb:?}"));
            }
        }
    }
    out
}

/// Whether the polyline runs through the inside of `r`.
fn runs_through(route: &[Pos2], r: Rect) -> bool {
    let inside = r.shrink(2.0);
    route
        .windows(2)
        .any(|w| (0..=20).any(|i| inside.contains(w[0] + (w[1] - w[0]) * (i as f32 / 20.0))))
}

/// A free point of the canvas near its bottom edge, where a menu has no room below the
/// pointer and opens upward.
fn low_free_point(h: &Harness<'static, EditorApp>) -> Pos2 {
    let canvas = graph(h).canvas();
    let rects: Vec<Rect> = machine(h, SELLER)
        .states
        .iter()
        .filter_map(|s| graph(h).state_rect(&s.name))
        .collect();
    let y = canvas.bottom() - 30.0;
    (0..20)
        .map(|k| pos2(canvas.left() + 40.0 + k as f32 * 40.0, y))
        .find(|p| {
            !rects
                .iter()
                .any(|r| r.expand2(vec2(260.0, 120.0)).contains(*p))
        })
        .expect("free space at the bottom of the canvas")
}

#[test]
fn a_state_made_from_a_dropped_wire_lands_where_the_wire_was_dropped_even_when_the_menu_opens_upward()
 {
    // The menu near the bottom of the window opens upward; the new state went where the menu
    // was drawn, some 300 px above the drop.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let drop = low_free_point(&h);
    let plus = graph(&h).output_pin("WaitForConversation", 1).unwrap();
    drag(&mut h, plus, drop);
    h.run_steps(2);
    support::app::click(&mut h, "Wait");
    settle(&mut h);
    let m = machine(&h, SELLER);
    let added = m.states.last().unwrap().name.clone();
    assert_eq!(added, "Wait");
    let input = graph(&h).input_pin(&added).unwrap();
    assert!(
        (input - drop).length() < 40.0,
        "the new state's input is at {input:?}, the wire was dropped at {drop:?}"
    );
    assert_eq!(targets(&h, "WaitForConversation").last().unwrap().1, "Wait");
    assert!(
        overlaps(&h, SELLER).is_empty(),
        "{:?}",
        overlaps(&h, SELLER)
    );
}

#[test]
fn a_new_state_stays_clear_of_its_neighbour_when_a_rename_widens_it() {
    // Dropped just left of a state, the new one fit there at its first size; renamed to a
    // long name it grew over its neighbour.
    let dir = sample_copy("airport");
    // Goto1 and WaitForConversation in a column on the left, TalkStateMachine 600 to the
    // right of them.
    let places = [
        ("Start", 0, 0),
        ("Goto1", 0, 200),
        ("WaitForConversation", 0, 400),
        ("TalkStateMachine", 600, 0),
        ("FinishTalkState", 600, 400),
    ];
    let nodes: Vec<String> = places
        .iter()
        .map(|(s, x, y)| format!("(name: \"{s}\", x: {x}.0, y: {y}.0)"))
        .collect();
    std::fs::write(
        dir.path()
            .join("machines/StandSellTicket.machine.layout.ron"),
        format!("Layout(nodes: [{}])", nodes.join(", ")),
    )
    .unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let talk = node_rect(&h, "TalkStateMachine");
    let zoom = graph(&h).zoom();
    // Beside TalkStateMachine, with room for a new state as first drawn (about 50 wide, 200
    // as estimated), not for its long name (about 230, wrapped).
    let drop = pos2(talk.left() - 216.0 * zoom, talk.top() + 30.0 * zoom);
    let plus = graph(&h).output_pin("Goto1", 1).unwrap();
    drag(&mut h, plus, drop);
    h.run_steps(2);
    support::app::click(&mut h, "Wait");
    settle(&mut h);
    assert!(
        overlaps(&h, SELLER).is_empty(),
        "{:?}",
        overlaps(&h, SELLER)
    );
    assert!(h.state().selection().contains("Wait"));
    h.key_press(egui::Key::F2);
    settle(&mut h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    support::app::type_over(&mut h, "Wait", "WaitForTheNextTravellerToArrive");
    settle(&mut h);
    settle(&mut h);
    assert!(
        machine(&h, SELLER)
            .states
            .iter()
            .any(|s| s.name == "WaitForTheNextTravellerToArrive")
    );
    assert!(
        overlaps(&h, SELLER).is_empty(),
        "{:?}",
        overlaps(&h, SELLER)
    );
}

#[test]
fn a_wire_dropped_anywhere_on_a_state_connects_to_it() {
    // Only the 12 px input pin took a wire; dropped on the state's body it did nothing.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let before = machine(&h, SELLER).states.len();
    let plus = graph(&h).output_pin("Goto1", 1).unwrap();
    let body = node_rect(&h, "FinishTalkState").center();
    drag(&mut h, plus, body);
    settle(&mut h);
    let on = targets(&h, "Goto1");
    assert_eq!(on.len(), 2, "{on:?}");
    assert_eq!(on[1].1, "FinishTalkState");
    assert_eq!(
        machine(&h, SELLER).states.len(),
        before,
        "no state was made"
    );
    assert!(
        h.query_by_label("Wait").is_none(),
        "no add-state menu opened"
    );
}

#[test]
fn a_drag_starting_beside_a_pin_draws_a_wire_and_leaves_the_state_where_it_is() {
    // A drag a few pixels inside the `+` pin moved the state instead of drawing a wire.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let plus = graph(&h).output_pin("Goto1", 1).unwrap();
    let to = graph(&h).input_pin("FinishTalkState").unwrap();
    drag(&mut h, plus - vec2(11.0, 0.0), to);
    settle(&mut h);
    let on = targets(&h, "Goto1");
    assert_eq!(on.len(), 2, "no wire: {on:?}");
    assert_eq!(on[1].1, "FinishTalkState");
    // No state was dragged: a move would have written every state's place.
    let placed = |h: &Harness<'static, EditorApp>, s: &str| {
        let p = h.state().project().unwrap();
        p.docs[p.machine_doc(SELLER).unwrap()].state.layout.get(s)
    };
    assert_eq!(placed(&h, "Goto1"), None, "Goto1 moved");
    // And from the input side: a drag starting a few pixels left of an input pin draws a
    // wire (it panned the canvas), here to Start's `+`.
    let input = graph(&h).input_pin("TalkStateMachine").unwrap();
    let plus = graph(&h).output_pin("Start", 1).unwrap();
    drag(&mut h, input - vec2(11.0, 0.0), plus);
    settle(&mut h);
    assert_eq!(
        targets(&h, "Start"),
        vec![("Empty".to_string(), "TalkStateMachine".to_string())]
    );
}

#[test]
fn dragging_a_wired_outcome_to_another_state_retargets_it() {
    // A drag from a transition's pin that already has its wire made a new "Event"
    // transition instead of moving the wire.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let pin = graph(&h).output_pin("Goto1", 0).unwrap();
    let to = graph(&h).input_pin("TalkStateMachine").unwrap();
    drag(&mut h, pin, to);
    settle(&mut h);
    assert_eq!(
        targets(&h, "Goto1"),
        vec![(
            "ReachedLocation".to_string(),
            "TalkStateMachine".to_string()
        )]
    );
    // Onto a state's body, likewise.
    let pin = graph(&h).output_pin("Goto1", 0).unwrap();
    let body = node_rect(&h, "FinishTalkState").center();
    drag(&mut h, pin, body);
    settle(&mut h);
    assert_eq!(
        targets(&h, "Goto1"),
        vec![("ReachedLocation".to_string(), "FinishTalkState".to_string())]
    );
    for s in &machine(&h, SELLER).states {
        assert!(
            s.on.iter().all(|(e, _)| !e.starts_with("Event")),
            "{}: {:?}",
            s.name,
            s.on
        );
    }
}

#[test]
fn a_wire_from_the_plus_of_a_state_whose_outcomes_are_wired_makes_no_event_it_never_raises() {
    // Start raises one outcome, Empty, wired to Goto1: a wire from its `+` made a transition
    // on "Event", which Start never raises.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    settle(&mut h);
    let plus = graph(&h).output_pin("Start", 1).unwrap();
    let to = graph(&h).input_pin("WaitForConversation").unwrap();
    drag(&mut h, plus, to);
    settle(&mut h);
    // Its one outcome goes where the wire was dropped.
    assert_eq!(
        targets(&h, "Start"),
        vec![("Empty".to_string(), "WaitForConversation".to_string())]
    );
    // Goto1 raises two: the free one is taken, then nothing is made up.
    for _ in 0..2 {
        let plus = graph(&h)
            .output_pin("Goto1", targets(&h, "Goto1").len())
            .unwrap();
        let to = graph(&h).input_pin("FinishTalkState").unwrap();
        drag(&mut h, plus, to);
        settle(&mut h);
    }
    let on = targets(&h, "Goto1");
    assert_eq!(on.len(), 2, "{on:?}");
    assert_eq!(on[1], ("NoPath".to_string(), "FinishTalkState".to_string()));
    let status = h.state().status().unwrap_or_default().to_string();
    assert!(
        status.contains("drag one's pin to re-target it"),
        "{status}"
    );
}

#[test]
fn add_transition_in_the_inspector_goes_to_the_next_state_not_start() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::select(&mut h, "Goto1");
    support::app::click(&mut h, "+ Add transition");
    settle(&mut h);
    let on = targets(&h, "Goto1");
    assert_eq!(on.len(), 2, "{on:?}");
    // Goto1 already goes to WaitForConversation: the next state it does not go to yet.
    assert_eq!(on[1].1, "TalkStateMachine", "{on:?}");
}

#[test]
fn an_edge_that_skips_a_state_goes_around_it() {
    // Five states in a row; Goto1 also goes straight to TalkStateMachine, two columns on.
    // Drawn as a curve, that edge ran through WaitForConversation.
    let dir = sample_copy("airport");
    let file = dir.path().join("machines/StandSellTicket.machine.ron");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "[(\"ReachedLocation\", \"WaitForConversation\")]",
        "[(\"ReachedLocation\", \"WaitForConversation\"), (\"Timeout\", \"TalkStateMachine\")]",
    );
    std::fs::write(&file, text).unwrap();
    let row: Vec<String> = [
        "Start",
        "Goto1",
        "WaitForConversation",
        "TalkStateMachine",
        "FinishTalkState",
    ]
    .iter()
    .enumerate()
    .map(|(i, s)| format!("(name: \"{s}\", x: {}.0, y: 0.0)", i * 280))
    .collect();
    std::fs::write(
        dir.path()
            .join("machines/StandSellTicket.machine.layout.ron"),
        format!("Layout(nodes: [{}])", row.join(", ")),
    )
    .unwrap();
    let mut h =
        support::app::harness_of_size(EditorApp::open(dir.path()), egui::vec2(2400.0, 900.0));
    support::app::click(&mut h, "Fit");
    settle(&mut h);
    let skip = graph(&h).edge_route("Goto1", 1).expect("drawn");
    let wait = node_rect(&h, "WaitForConversation");
    assert!(
        !runs_through(&skip, wait),
        "runs through {wait:?}: {skip:?}"
    );
    for s in ["Start", "Goto1", "TalkStateMachine", "FinishTalkState"] {
        assert!(!runs_through(&skip, node_rect(&h, s)), "through {s}");
    }
    let end = *skip.last().unwrap();
    let input = graph(&h).input_pin("TalkStateMachine").unwrap();
    assert!((end - input).length() < 1.0, "{end:?} vs {input:?}");
    // The edge it skips beside is still the plain curve into the next state.
    let next = graph(&h).edge_route("Goto1", 0).unwrap();
    assert!(!runs_through(
        &next,
        wait.expand(40.0).translate(vec2(0.0, 200.0))
    ));
}

#[test]
fn fit_shows_the_whole_machine() {
    // "Show the whole machine" showed the eight-state seller from its start, the last
    // states off the right edge.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    support::app::open(&mut h, "SellTicket");
    support::app::click(&mut h, "Fit");
    settle(&mut h);
    let canvas = graph(&h).canvas();
    for s in &machine(&h, "SellTicket").states {
        let r = graph(&h)
            .state_rect(&s.name)
            .unwrap_or_else(|| panic!("{} is not drawn", s.name));
        assert!(
            canvas.contains_rect(r),
            "{} {r:?} outside {canvas:?}",
            s.name
        );
    }
}
