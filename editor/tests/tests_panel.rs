//! The Tests panel, driven like a designer drives it (egui_kittest): run the project's content
//! tests, see every test × seed pass or fail, click a failing run to see it in the preview's
//! timeline at its failing tick, and see the states no run reached marked in the graph.
//!
//! The tests run on a background thread, so these tests wait in real time (bounded).

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;
use ensemble_editor::machine::view::NEVER_REACHED;
use ensemble_editor::preview::DockTab;
use ensemble_editor::tests_panel::TestsPanel;
use ensemble_runtime::trace::EventKind;
use std::time::{Duration, Instant};

mod support;
use support::app::{click, harness, sample_copy, settle};

const TIMEOUT: Duration = Duration::from_secs(120);

fn tests<'a>(h: &'a Harness<'static, EditorApp>) -> &'a TestsPanel {
    &h.state().session().unwrap().tests
}

/// Steps the UI in real time until `done` holds.
fn until(
    h: &mut Harness<'static, EditorApp>,
    what: &str,
    done: impl Fn(&Harness<'static, EditorApp>) -> bool,
) {
    let start = Instant::now();
    while !done(h) {
        assert!(
            start.elapsed() < TIMEOUT,
            "timed out waiting for {what}; {:?}",
            tests(h).error
        );
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    settle(h);
}

/// Opens the Tests tab and runs every test, waiting for the results.
fn run_tests(h: &mut Harness<'static, EditorApp>) {
    h.get_by_label("Tests").click();
    settle(h);
    click(h, "▶ Run tests");
    until(h, "the test results", |h| {
        tests(h).outcome.is_some() && !tests(h).is_running()
    });
}

#[test]
fn running_the_tests_lists_every_test_and_seed_as_passed() {
    let dir = sample_copy("dinner-date");
    let mut h = harness(EditorApp::open(dir.path()));
    run_tests(&mut h);
    let o = tests(&h).outcome.as_ref().unwrap();
    assert_eq!(o.tests.len(), 4);
    assert_eq!(o.runs.len(), 40, "4 tests × 10 seeds");
    assert_eq!(o.failed_runs(), 0);
    h.get_by_label("4 tests, 40 runs: all passed");
    for t in &o.tests {
        h.get_by_label(t.test.name.as_str());
    }
    // One cell per test and seed.
    assert_eq!(h.get_all_by_label("9").count(), 4);
    // Coverage names the kinds the project has and leaves out the rest (it has no rules,
    // lines or HMM states).
    h.get_by_label_contains("states: ");
    h.get_by_label_contains("actions: ");
    assert!(h.query_by_label_contains("0/0 reached").is_none());
}

#[test]
fn clicking_a_failing_run_shows_it_in_the_timeline_at_its_failing_tick() {
    let dir = sample_copy("dinner-date");
    // Carrying always fails (a mock on a planning action), and this test says it never does.
    std::fs::write(
        dir.path().join("carry.test.ron"),
        r#"Tests(tests: [Test(
    name: "the host always manages to carry",
    scene: "date",
    seeds: List([42]),
    ticks: 600,
    setup: [Action(action: "carry", outcome: Fails)],
    expect: [Never(what: (event: "fail", agent: "host", action: "carry"))],
)])"#,
    )
    .unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    run_tests(&mut h);
    let o = tests(&h).outcome.as_ref().unwrap();
    assert_eq!(o.failed_runs(), 1);
    let failing = o.runs.iter().find(|r| !r.passed()).unwrap();
    assert_eq!(failing.seed, 42);
    let tick = failing.first_failing_tick().unwrap();
    h.get_by_label("5 tests, 41 runs: 1 failed");
    // The failure's message is shown (the failing run is picked at once).
    h.get_by_label_contains("Never (expect[0]) failed at tick");

    click(&mut h, "42");
    until(&mut h, "the replayed run", |h| {
        h.state().session().unwrap().preview.tab == DockTab::Preview
    });
    let preview = &h.state().session().unwrap().preview;
    assert_eq!(preview.viewing, Some(tick));
    assert_eq!((preview.scene.as_deref(), preview.seed), (Some("date"), 42));
    let shown = preview.shown().unwrap();
    assert_eq!(shown.tick, tick);
    // The tick shown is the one carry failed in, read off the replayed run's own events.
    let failed_at = preview
        .history
        .events()
        .find(|(_, e)| matches!(&e.kind, EventKind::ActionFailed { action, .. } if &**action == "carry"))
        .map(|(_, e)| e.tick);
    assert_eq!(failed_at, Some(tick));
    assert!(shown.agents.iter().any(|a| &*a.name == "host"));
}

#[test]
fn a_state_no_run_reached_is_marked_in_the_graph() {
    let dir = sample_copy("dinner-date");
    let mut h = harness(EditorApp::open(dir.path()));
    run_tests(&mut h);
    let never = tests(&h).unreached_states("Host");
    // No test makes the host give up: GiveUp and Fail are never entered; the rest are.
    assert_eq!(never, ["GiveUp", "Fail"]);
    h.get_by_role_and_label(Role::Button, "Host").click();
    settle(&mut h);
    assert_eq!(h.state().current_machine_name(), Some("Host"));
    assert_eq!(h.get_all_by_label(NEVER_REACHED).count(), never.len());
}
