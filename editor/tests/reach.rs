//! "How do I get here?", driven like a designer drives it (egui_kittest): a state's menu
//! searches for a play that enters it, the preview shows the run stopped at the tick it
//! happens, and "Save as test" writes a content test that `ensemble test` passes.
//!
//! The search runs on a background thread, so these tests wait in real time (bounded).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;
use ensemble_editor::preview::DockTab;
use ensemble_editor::reach::{Ended, ReachPanel};
use std::time::{Duration, Instant};

mod support;
use support::app::{
    click_with, find, harness, node_rect, sample_copy, settle, wait_for_diagnostics,
};

const TIMEOUT: Duration = Duration::from_secs(120);

fn reach<'a>(h: &'a Harness<'static, EditorApp>) -> &'a ReachPanel {
    &h.state().session().unwrap().reach
}

/// Opens machine `machine` and picks "How do I get here?" from `state`'s menu, then waits
/// for the search to end.
fn ask_from_the_graph(h: &mut Harness<'static, EditorApp>, machine: &str, state: &str) {
    find(h, machine);
    h.run_steps(8);
    assert_eq!(h.state().current_machine_name(), Some(machine));
    let node = node_rect(h, state);
    // The node's menu opens on its frame (its title is a label of its own).
    click_with(
        h,
        node.left_top() + egui::vec2(4.0, 4.0),
        egui::PointerButton::Secondary,
    );
    settle(h);
    h.get_by_label("How do I get here?").click();
    settle(h);
    wait_for_the_search(h);
}

/// Steps the UI in real time until the search has ended (bounded).
fn wait_for_the_search(h: &mut Harness<'static, EditorApp>) {
    let start = Instant::now();
    while reach(h).is_running() || reach(h).ended.is_none() && reach(h).error.is_none() {
        assert!(
            start.elapsed() < TIMEOUT,
            "timed out waiting for the search"
        );
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    settle(h);
}

#[test]
fn how_do_i_get_here_on_a_state_plays_the_run_to_it_in_the_preview() {
    let dir = sample_copy("weapon-shop");
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    // The preview's scene is searched first. In `shop` the customer is disappointed only when
    // a step of the plan fails: no seed alone gets there, the search has to mock a failure.
    // (In `shop-sold-out`, the first scene, the sword is gone and any seed gets there.)
    h.get_by_label("Preview").click();
    settle(&mut h);
    h.state_mut().session_mut().unwrap().preview.scene = Some("shop".into());
    ask_from_the_graph(&mut h, "Customer", "Disappointed");
    assert_eq!(reach(&h).error, None);
    let Some(Ended::Reached(found)) = &reach(&h).ended else {
        panic!("not reached");
    };
    let (tick, scene) = (found.play.ticks, found.scene.clone());
    assert_eq!(scene, "shop");
    assert!(tick > 10, "a target deeper than the first ticks: {tick}");
    assert_eq!(
        found.play.setup.len(),
        1,
        "one mocked failure: {:?}",
        found.play
    );
    assert!(found.story.contains("<- the target"), "{}", found.story);

    // The preview shows the run, stopped at the tick the customer turns disappointed.
    let preview = &h.state().session().unwrap().preview;
    assert_eq!(preview.tab, DockTab::Preview);
    assert_eq!(preview.viewing, Some(tick));
    assert_eq!(preview.scene.as_deref(), Some("shop"));
    let at = preview
        .history
        .at(tick)
        .expect("the run is in the timeline");
    let npc = at.agent("npc").expect("the customer");
    assert!(
        npc.states
            .iter()
            .any(|s| &*s.machine == "Customer" && &*s.state == "Disappointed"),
        "{:?}",
        npc.states
    );
    let before = preview.history.at(tick - 1).expect("the tick before");
    assert!(
        !before
            .agent("npc")
            .unwrap()
            .states
            .iter()
            .any(|s| &*s.state == "Disappointed"),
        "stopped at the first tick it is there"
    );
    h.get_by_label_contains("Reached at tick");

    // "Save as test" writes a content test that passes as `ensemble test` runs it.
    h.get_by_label("Save as test").click();
    settle(&mut h);
    let file = dir
        .path()
        .join("reached")
        .join("state-Customer-Disappointed.test.ron");
    assert_eq!(reach(&h).saved.as_deref(), Some(file.as_path()));
    // The new file is a change on disk: the editor reloads the project (it polls once a
    // second) and the play found, with where it went, stays on screen.
    let start = Instant::now();
    while h.query_by_label_contains("Reloaded").is_none() {
        assert!(
            start.elapsed() < TIMEOUT,
            "the new test file was not noticed"
        );
        std::thread::sleep(Duration::from_millis(50));
        h.step();
    }
    settle(&mut h);
    assert_eq!(reach(&h).saved.as_deref(), Some(file.as_path()));
    h.get_by_label_contains("wrote reached");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("// Written by `ensemble reach`"), "{text}");
    let c = ensemble_compiler::compile_path(dir.path()).unwrap();
    assert!(!c.diagnostics.has_errors());
    let program = std::sync::Arc::new(c.output.as_ref().unwrap().0.clone());
    let mut quiet = ensemble_compiler::diag::Diagnostics::default();
    let tests = ensemble_compiler::content_test::lower(&c.sources, &c.module, &mut quiet);
    let i = tests
        .iter()
        .position(|t| t.test.name == "reaches state Customer/Disappointed")
        .expect("the saved test is one of the project's tests");
    let runs = ensemble_compiler::content_test::run::run_all(&program, &tests[i..=i], 1);
    assert!(!runs.is_empty() && runs.iter().all(|r| r.passed()));
}

#[test]
fn a_state_no_transition_enters_is_reported_unreachable_not_found() {
    let dir = sample_copy("weapon-shop");
    // Pleased's only way in removed: no play can reach it, and the window says so.
    let path = dir.path().join("machines/Customer.machine.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text.replace(r#"("PlanSucceeded", "Pleased"), "#, "");
    assert_ne!(cut, text, "the sample has a transition into Pleased");
    std::fs::write(&path, cut).unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    ask_from_the_graph(&mut h, "Customer", "Pleased");
    assert!(
        matches!(reach(&h).ended, Some(Ended::Unreachable(_))),
        "{:?}",
        reach(&h).error
    );
    h.get_by_label_contains("Unreachable: search space exhausted");
}

#[test]
fn how_do_i_get_here_on_a_rule_row_finds_the_play_that_fires_it() {
    let dir = sample_copy("bench");
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    // The bench script's fourth rule, `fell`, in state `seated`.
    find(&mut h, "fell");
    h.run_steps(8);
    h.get_by_label("rule row 4").click_secondary();
    settle(&mut h);
    h.get_by_label("How do I get here?").click();
    settle(&mut h);
    wait_for_the_search(&mut h);
    assert_eq!(reach(&h).label, "rule bench/seated/fell");
    let Some(Ended::Reached(found)) = &reach(&h).ended else {
        panic!("not reached: {:?}", reach(&h).error);
    };
    let tick = found.play.ticks;
    let preview = &h.state().session().unwrap().preview;
    assert_eq!(preview.viewing, Some(tick));
    assert!(preview.history.at(tick).is_some());
}
