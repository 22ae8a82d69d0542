//! The live preview, driven like a designer drives it (egui_kittest): run a scene, edit a
//! machine in the graph editor while it runs, save, and see the running scene change without
//! restarting; a broken save keeps it running on the last good program.
//!
//! The scene runs on its own thread in real time, so these tests wait in real time (bounded).

use eframe::egui;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;
use ensemble_editor::preview::Preview;
use ensemble_runtime::trace::{EventKind, TraceEvent};

mod support;
use support::app::{
    choose_showing as choose, find, harness, sample_copy, select, settle, type_into, type_over,
    until,
};

fn preview<'a>(h: &'a Harness<'static, EditorApp>) -> &'a Preview {
    &h.state().session().unwrap().preview
}

fn tick(h: &Harness<'static, EditorApp>) -> u64 {
    preview(h).history.latest().map_or(0, |s| s.tick)
}

fn events(h: &Harness<'static, EditorApp>) -> Vec<TraceEvent> {
    preview(h)
        .history
        .events()
        .map(|(_, e)| e.clone())
        .collect()
}

fn entered(e: &TraceEvent, agent: &str, machine: &str, state: &str) -> bool {
    e.agent.as_deref() == Some(agent)
        && matches!(&e.kind, EventKind::Enter { machine: m, state: s, .. } if &**m == machine && &**s == state)
}

/// Every agent's stack of `machine/state` just before and just after a reload at `tick`.
type Stacks = Vec<(String, Vec<String>)>;
fn around(h: &Harness<'static, EditorApp>, tick: u64) -> (Stacks, Stacks) {
    let stacks = |s: &ensemble_editor::preview::snapshot::Snapshot| -> Stacks {
        s.agents
            .iter()
            .map(|a| {
                let stack = a
                    .states
                    .iter()
                    .map(|s| format!("{}/{}", s.machine, s.state))
                    .collect();
                (a.name.to_string(), stack)
            })
            .collect()
    };
    let at: Vec<_> = preview(h).history.range(tick, tick).collect();
    assert_eq!(
        at.len(),
        2,
        "tick {tick} is recorded before and after the reload"
    );
    (stacks(at[0]), stacks(at[1]))
}

/// A copy of `sample` open, its preview on `scene` (the first, which the preview picks) and
/// playing at 8×.
fn playing(sample: &str, scene: &str) -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let dir = sample_copy(sample);
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    assert_eq!(preview(&h).scene.as_deref(), Some(scene));
    choose(&mut h, "1×", "8×");
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    (dir, h)
}

fn save(h: &mut Harness<'static, EditorApp>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(h);
    assert!(!h.state().is_dirty(), "saved");
}

fn reloads(h: &Harness<'static, EditorApp>) -> Vec<TraceEvent> {
    events(h)
        .into_iter()
        .filter(|e| matches!(e.kind, EventKind::Reload { .. }))
        .collect()
}

fn rejections(h: &Harness<'static, EditorApp>) -> Vec<TraceEvent> {
    events(h)
        .into_iter()
        .filter(|e| matches!(e.kind, EventKind::ReloadRejected { .. }))
        .collect()
}

#[test]
fn a_saved_edit_reloads_the_running_ticket_counter_in_place() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    assert_eq!(h.state().current_machine_name(), Some("StandSellTicket"));

    // Open the preview (the first scene is picked), pick the ticket counter, run it at 8×.
    h.get_by_label("Preview").click();
    settle(&mut h);
    assert_eq!(preview(&h).scene.as_deref(), Some("lane-closed"));
    choose(&mut h, "lane-closed", "ticket-counter");
    assert_eq!(preview(&h).scene.as_deref(), Some("ticket-counter"));
    choose(&mut h, "1×", "8×");
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    until(&mut h, "300 ticks", |h| tick(h) >= 300);
    assert!(preview(&h).is_playing());
    // Real time while editing: the seller's sales end at ticks 710 and 1286.
    choose(&mut h, "8×", "1×");
    // The graph shows where the seller is.
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(
        live.states.values().flatten().any(|a| a.name == "seller"),
        "{live:?}"
    );

    // In the graph editor: a new Wait state after each sale, between FinishTalkState and Goto1.
    h.get_by_label("+ State").click();
    settle(&mut h);
    h.get_by_label("Wait").click();
    settle(&mut h);
    select(&mut h, "FinishTalkState");
    choose(&mut h, "Goto1", "Wait");
    select(&mut h, "Wait");
    // The new transition goes to the first state after Wait that is not Start: Goto1.
    h.get_by_label("+ Add transition").click();
    settle(&mut h);
    let m = {
        let p = h.state().project().unwrap();
        p.docs[p.machine_doc("StandSellTicket").unwrap()]
            .state
            .machine()
            .unwrap()
            .clone()
    };
    let wait = m.states.iter().find(|s| s.name == "Wait").unwrap();
    assert_eq!(wait.on, vec![("Done".into(), "Goto1".into())]);
    // Unsaved edits do not reach the running scene.
    assert!(reloads(&h).is_empty());

    // Save: the scene reloads in place.
    save(&mut h);
    until(&mut h, "the reload", |h| !reloads(h).is_empty());
    let reload = reloads(&h).remove(0);
    assert!(
        reload.tick < 1286,
        "the edit came after the last sale (tick {}): too slow to see it run",
        reload.tick
    );
    choose(&mut h, "1×", "8×");
    let EventKind::Reload {
        kept, fallbacks, ..
    } = &reload.kind
    else {
        unreachable!()
    };
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    assert!(*kept >= 3, "kept {kept}");
    // Every agent kept its states across the reload (the tick is recorded just before and just
    // after it): no one restarted.
    let (before, after) = around(&h, reload.tick);
    assert_eq!(before, after);
    assert!(
        !events(&h)
            .iter()
            .any(|e| e.tick >= reload.tick && entered(e, "seller", "StandSellTicket", "Start")),
        "the seller restarted"
    );
    let note = preview(&h)
        .last_reload
        .as_ref()
        .expect("the toolbar reports it");
    assert!(note.ok);
    assert!(!preview(&h).latencies.is_empty());

    // The new state runs: the seller goes through Wait after its sale.
    until(&mut h, "the seller in Wait", |h| {
        events(h)
            .iter()
            .any(|e| entered(e, "seller", "StandSellTicket", "Wait"))
    });
    let at = events(&h)
        .into_iter()
        .find(|e| entered(e, "seller", "StandSellTicket", "Wait"))
        .unwrap()
        .tick;
    assert!(at > reload.tick);
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    assert!(!preview(&h).is_playing());
    // In the timeline, found by its name; clicking it shows the scene as it was then: the
    // graph has the seller in Wait.
    type_into(&mut h, "filter", "StandSellTicket/Wait");
    h.get_all_by_label("StandSellTicket/Wait")
        .next()
        .expect("the event in the timeline")
        .click();
    settle(&mut h);
    assert_eq!(preview(&h).viewing, Some(at));
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(live.scrubbed);
    assert!(
        live.agents_in("Wait").iter().any(|a| a.name == "seller"),
        "{live:?}"
    );
    // Leave the filter (Escape), back to the present.
    h.key_press(Key::Escape);
    settle(&mut h);
    h.get_by_label("⏵ LIVE").click();
    settle(&mut h);
    assert_eq!(preview(&h).viewing, None);

    // A broken save: a typo in the agent a buyer asks for a conversation. The scene goes on
    // with the last good program, and the diagnostics show why.
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    // Find the buyer's RequestConversation (Ctrl+F): it opens its machine and selects it.
    find(&mut h, "RequestConversation");
    h.run_steps(8);
    assert_eq!(h.state().current_machine_name(), Some("BuyTicketAtCounter"));
    assert!(h.state().selection().contains("RequestConversation"));
    type_over(&mut h, "seller", "sellr");
    settle(&mut h);
    assert!(h.state().is_dirty());
    save(&mut h);
    until(&mut h, "the refusal", |h| !rejections(h).is_empty());
    let refused = rejections(&h).remove(0);
    let EventKind::ReloadRejected { reason } = &refused.kind else {
        unreachable!()
    };
    assert!(
        reason.contains("BuyTicketAtCounter.machine.ron"),
        "{reason}"
    );
    assert!(reason.contains("unknown-reference"), "{reason}");
    assert!(h.state().report().unwrap().errors() > 0);
    until(&mut h, "the scene going on", |h| {
        tick(h) > refused.tick + 30
    });
    assert!(preview(&h).is_playing());
    assert_eq!(reloads(&h).len(), 1, "the broken program never ran");

    // Undo and save: it reloads again.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    save(&mut h);
    until(&mut h, "the second reload", |h| reloads(h).len() == 2);
}

#[test]
fn following_an_agent_opens_the_machines_it_runs() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    choose(&mut h, "1×", "8×");
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    // Until buyer1 talks with the seller: it runs BuyTicket under BuyTicketAtCounter.
    until(&mut h, "buyer1 in its conversation", |h| {
        preview(h)
            .history
            .latest()
            .and_then(|s| s.agent("buyer1"))
            .is_some_and(|a| a.states.len() == 2)
    });
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    // Select buyer1 from the timeline, and follow it.
    h.get_by_label("Agent").click();
    settle(&mut h);
    // (A row in the middle of the list: the first and last may be half scrolled out.)
    let rows: Vec<_> = h.get_all_by_label("buyer1").collect();
    rows[rows.len() / 2].click();
    settle(&mut h);
    assert_eq!(preview(&h).selected.as_deref(), Some("buyer1"));
    h.get_all_by_label("Follow").next().unwrap().click();
    h.run_steps(8);
    assert!(preview(&h).follow);
    assert_eq!(h.state().current_machine_name(), Some("BuyTicket"));
    let trail = &h.state().session().unwrap().trail;
    assert_eq!(trail, &["BuyTicketAtCounter", "BuyTicket"]);
    // Its state glows; with "only its states", the seller's do not.
    h.get_all_by_label("Only its states")
        .next()
        .unwrap()
        .click();
    settle(&mut h);
    let live = preview(&h).live("BuyTicket").unwrap();
    let agents: Vec<&str> = live
        .states
        .values()
        .flatten()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(agents, ["buyer1"]);
}

#[test]
fn the_bench_shows_its_blackboard_searchable() {
    let dir = sample_copy("bench");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    assert_eq!(preview(&h).scene.as_deref(), Some("bench"));
    choose(&mut h, "1×", "8×");
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    until(&mut h, "a seat reserved", |h| {
        preview(h).history.latest().is_some_and(|s| {
            s.boards
                .iter()
                .any(|b| b.facts.iter().any(|f| f.starts_with("reserved(")))
        })
    });
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    h.get_by_label("bench · bench");
    h.get_by_label("seat(seat1)");
    // Searching keeps what matches.
    type_into(&mut h, "search facts", "reserved");
    assert!(h.query_by_label("seat(seat1)").is_none());
    assert!(h.get_all_by_label_contains("reserved(").next().is_some());
    // The participants, with their roles and script states.
    let board = preview(&h).history.latest().unwrap().boards[0].clone();
    for p in &board.participants {
        h.get_all_by_label(&p.name).next().unwrap();
        h.get_all_by_label(&p.role).next().unwrap();
    }
}

/// Says `line` to the conversation in the preview, as the player types it.
fn say(h: &mut Harness<'static, EditorApp>, line: &str) {
    type_into(h, "your turn: say something (/nods for an emote)", line);
    h.key_press(Key::Enter);
    settle(h);
}

#[test]
fn a_conversation_hears_the_player_and_charts_its_beliefs() {
    let (_dir, mut h) = playing("innkeeper", "chat");
    until(&mut h, "the scene started", |h| tick(h) >= 2);
    say(&mut h, "hi there");
    until(&mut h, "Xenos answering", |h| {
        events(h)
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Output { .. }))
    });
    let said: Vec<String> = events(&h)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Input { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["hi there"]);
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    // The transcript shows both, and the greeting space is engaged, with its chart.
    h.get_all_by_label("hi there").next().unwrap();
    let s = preview(&h).history.latest().unwrap().clone();
    // One space a file in the sample's spaces folder.
    let files = std::fs::read_dir(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/innkeeper/spaces"),
    )
    .unwrap()
    .count();
    assert_eq!(s.world.spaces.len(), files, "the innkeeper's spaces");
    let greeting = s
        .world
        .spaces
        .iter()
        .position(|x| &*x.name == "greeting")
        .unwrap();
    let start: usize = s.world.spaces[..greeting]
        .iter()
        .map(|x| x.states.len())
        .sum();
    let at_rest = s.beliefs[start + s.world.spaces[greeting].start];
    assert!(at_rest < 0.9, "greeting is engaged: {at_rest}");
    h.get_all_by_label("greeting").next().unwrap();
}

/// What the agent's variables hold is shown beside its beliefs: the dish a line named (with
/// the number asked for), and the tab with what was served on it and its total.
#[test]
fn a_conversation_shows_what_its_variables_hold() {
    let (_dir, mut h) = playing("innkeeper", "chat");
    until(&mut h, "the scene started", |h| tick(h) >= 2);
    h.get_by_label("no variable is bound");
    say(&mut h, "a bowl of stew and two ales please");
    until(&mut h, "the stew and the ales served", |h| {
        events(h)
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Output { action, .. } if action == "serve-both"))
    });
    // The number asked for is held with the dish and put on the tab.
    until(&mut h, "the tab shown", |h| {
        h.query_by_label("stew, 2 ale (7)").is_some()
    });
    // The dish, and the topic and item the line named too.
    assert_eq!(h.get_all_by_label("2 ale").count(), 3);
    h.get_by_label("the-tab");
    h.get_by_label("the-dish");
}

/// The map draws the route each agent walks, and the timeline takes you back to it: in
/// lane-closed, buyer1's walk to the gate goes through lane A until the lane shuts (its
/// re-route), through lane B after; clicking the first walk in the timeline shows lane A again.
#[test]
fn scrubbing_back_shows_the_route_before_the_lane_shut() {
    let (_dir, mut h) = playing("airport", "lane-closed");
    until(&mut h, "the re-route at tick 871", |h| tick(h) >= 900);
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    let (lane_a, lane_b) = ([19.0, -6.0], [19.0, 5.0]);
    let route = |h: &Harness<'static, EditorApp>| {
        let shown = preview(h).shown().unwrap();
        (shown.tick, shown.route_ahead("buyer1").to_vec())
    };
    let (_, now) = route(&h);
    assert!(now.contains(&lane_b) && !now.contains(&lane_a), "{now:?}");

    // The re-route in the timeline: the scene as it was then, lane B ahead.
    type_into(&mut h, "filter", "re-routed");
    h.get_all_by_label_contains("re-routed to Gate")
        .next()
        .expect("buyer1's re-route in the timeline")
        .click();
    settle(&mut h);
    let (at, then) = route(&h);
    assert_eq!(at, 871, "the golden trace's re-route");
    assert!(
        then.contains(&lane_b) && !then.contains(&lane_a),
        "{then:?}"
    );
    // The walk planned before it: lane A ahead.
    type_over(&mut h, "re-routed", "via QueueEast, LaneA");
    settle(&mut h);
    h.get_all_by_label_contains("via QueueEast, LaneA, LaneAExit")
        .next()
        .expect("buyer1's first walk to the gate in the timeline")
        .click();
    settle(&mut h);
    let (at, before) = route(&h);
    assert_eq!(at, 775);
    assert!(
        before.contains(&lane_a) && !before.contains(&lane_b),
        "{before:?}"
    );
}

#[test]
fn the_preview_keeps_clear_of_the_form_and_shows_long_lines_whole() {
    let dir = sample_copy("weapon-shop");
    let long = "Sold out? I came all this way for a blade forged in the north by a smith who learnt \
                the craft from her mother, and her mother from hers, for seven generations.";
    let customer = dir.path().join("machines/Customer.machine.ron");
    let text = std::fs::read_to_string(&customer).unwrap();
    std::fs::write(
        &customer,
        text.replace("Sold out? I came all this way.", long),
    )
    .unwrap();
    // A laptop's window: the form and the preview share little height.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 640.0))
        .with_step_dt(0.02)
        .with_max_steps(400)
        .build_ui_state(
            |ui, app: &mut EditorApp| app.show(ui),
            EditorApp::open(dir.path()),
        );
    settle(&mut h);
    support::app::open(&mut h, "shop");
    h.get_by_label("Preview").click();
    settle(&mut h);
    choose(&mut h, "1×", "8×");
    h.get_by_label("▶ Play").click();
    settle(&mut h);
    until(&mut h, "the customer is disappointed", |h| {
        preview(h)
            .history
            .transcript_until(u64::MAX)
            .any(|l| l.text.starts_with("Sold out?"))
    });
    h.get_by_label("⏸ Pause").click();
    settle(&mut h);
    h.get_by_label("Transcript").click();
    settle(&mut h);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 640.0));
    let dock = egui::containers::panel::PanelState::load(&h.ctx, egui::Id::new("preview"))
        .expect("the preview dock")
        .outer_rect;
    // The dock fits the window: a toolbar wider than the window would widen it past the
    // edge and cut the timeline off there.
    assert!(
        dock.max.x <= window.max.x + 0.5,
        "{dock:?} runs out of the window"
    );
    // The long line is whole: wrapped onto more rows inside the window, not cut at its edge.
    let line = h
        .get_all_by_label_contains("Sold out?")
        // The transcript's row (the timeline quotes it).
        .find(|n| n.value().is_some_and(|v| v.starts_with("Sold out?")))
        .expect("the line in the transcript")
        .rect();
    assert!(line.height() > 2.5 * 16.0, "one row, cut: {line:?}");
    assert!(
        window.contains_rect(line),
        "{line:?} runs out of the window"
    );
    // The form above stops at the dock and scrolls: its last row (Delay), laid out under the
    // preview at first, comes up into view instead of staying hidden behind it.
    assert!(h.get_by_label("Delay").rect().intersects(dock));
    let over_form = h.get_by_label("agent name").rect().center();
    h.event(egui::Event::PointerMoved(over_form));
    for _ in 0..4 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -200.0),
            phase: egui::TouchPhase::Move,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(2);
    }
    settle(&mut h);
    let delay = h.get_by_label("Delay").rect();
    assert!(
        delay.max.y <= dock.min.y,
        "{delay:?} is still under the preview ({dock:?})"
    );
}

/// A project whose game adds its own state (the forge's `Hammer`, C code in the game) previews
/// without the game: the simulated world stands in for it (docs/formats/statelib.md).
#[test]
fn a_project_with_a_game_state_previews_with_a_stand_in() {
    // The C ABI's fixture, beside the samples.
    let (_dir, mut h) = playing("../runtime/capi/tests/forge", "morning");
    until(&mut h, "the smith past its hammer", |h| {
        events(h)
            .iter()
            .any(|e| entered(e, "smith", "Forge", "Hand"))
    });
    // Said once, under the toolbar.
    let note = preview(&h).game_note.clone().unwrap_or_default();
    assert!(
        note.contains("`Hammer` is the game's; standing it in"),
        "{note}"
    );
    h.get_by_label_contains("standing it in");
}

/// Another scene picked while one runs is the one that runs (Xvfb finding: the picker changed,
/// the preview went on running, and saying "running", the old scene).
#[test]
fn picking_another_scene_while_one_runs_runs_it() {
    let (_dir, mut h) = playing("airport", "lane-closed");
    until(&mut h, "a few ticks", |h| tick(h) >= 5);
    assert_eq!(preview(&h).running_scene(), Some("lane-closed"));
    choose(&mut h, "lane-closed", "ticket-counter");
    settle(&mut h);
    assert_eq!(preview(&h).running_scene(), Some("ticket-counter"));
    assert!(
        preview(&h).is_playing(),
        "it goes on playing, now the picked scene"
    );
}
