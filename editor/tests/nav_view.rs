//! The navigation view driven headless with egui_kittest on the MovingAI reference map
//! den312d (compiler/tests/data/movingai): the hierarchy builds on the worker, two clicked cells get
//! the PPA* path whose cost equals plain A*'s, and a scenario's path has its optimal length.

use eframe::egui;
use egui::{Modifiers, PointerButton, Pos2};

mod support;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::nav_view::{NavSettings, NavTarget, NavView};
use ensemble_editor::panel::PanelCx;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The MovingAI map den312d and its scenarios, vendored in `compiler/tests/data/movingai`.
fn data(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compiler/tests/data/movingai")
        .join(name);
    assert!(p.is_file(), "missing reference data {}", p.display());
    p
}

struct Host {
    view: NavView,
    value: NavSettings,
    changes: usize,
}

fn harness(value: NavSettings) -> Harness<'static, Host> {
    let host = Host {
        view: NavView::with_picker(Box::new(|| None.into())),
        value,
        changes: 0,
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1300.0, 860.0))
        .build_ui_state(
            |ui, host: &mut Host| {
                let told = support::Told::default();
                let cx = PanelCx::detached(Path::new("."), &told.names, &told.requests);
                if host.view.ui(ui, &mut host.value, &cx) {
                    host.changes += 1;
                }
            },
            host,
        );
    frame(&mut h);
    h
}

use support::frame;

fn wait(h: &mut Harness<'static, Host>, what: &str, done: impl Fn(&Host) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done(h.state()) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    frame(h);
}

fn click_at(h: &mut Harness<'static, Host>, p: Pos2) {
    h.hover_at(p);
    frame(h);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: p,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    frame(h);
}

#[test]
fn two_clicked_cells_get_the_path_whose_cost_equals_a_stars() {
    let map = data("den312d.map");
    let mut h = harness(NavSettings::open(map));
    wait(&mut h, "the hierarchy", |s| s.view.ready());
    h.get_by_label_contains("65 × 81 cells, 2,445 passable");
    h.get_by_label_contains("64 leaves");
    // Two cells far apart, taken from the map's scenarios (so they are passable).
    let scen = h.state().view.scenarios().to_vec();
    assert_eq!(scen.len(), 290);
    let (a, b) = (scen[250].start, scen[289].goal);
    let pa = h.state().view.cell_center(a.0, a.1).unwrap();
    let pb = h.state().view.cell_center(b.0, b.1).unwrap();
    click_at(&mut h, pa);
    assert_eq!(h.state().value.start, Some(a));
    assert_eq!(h.state().value.goal, None);
    click_at(&mut h, pb);
    assert_eq!(h.state().value.goal, Some(b));
    wait(&mut h, "the paths", |s| s.view.answer().is_some());
    let answer = h.state().view.answer().unwrap().clone();
    let ppa = answer
        .ppa
        .clone()
        .unwrap()
        .expect("den312d is connected there");
    let astar = answer.astar.clone().unwrap().unwrap();
    assert_eq!(ppa.cost, astar.cost);
    assert!(
        ppa.expanded < astar.expanded,
        "{} vs {}",
        ppa.expanded,
        astar.expanded
    );
    assert_eq!(ppa.path.first().copied(), astar.path.first().copied());
    assert_eq!(ppa.path.last().copied(), astar.path.last().copied());
    // What the designer reads.
    h.get_by_label_contains(&format!("PPA*: cost {:.4}", ppa.cost));
    let plain = format!("A*: cost {:.4}", astar.cost);
    let shown = h
        .query_all_by(|n| {
            [n.label(), n.value()]
                .into_iter()
                .flatten()
                .any(|t| t.starts_with(&plain))
        })
        .count();
    assert!(shown > 0, "A*'s line is not shown");
    h.get_by_label_contains("✔ same cost");
    assert!(h.state().changes >= 2);
}

#[test]
fn a_scenario_shows_its_path_and_optimal_length() {
    let mut h = harness(NavSettings::open(data("den312d.map")));
    wait(&mut h, "the hierarchy", |s| s.view.ready());
    for i in [0, 150, 289] {
        h.state_mut().view.reveal(NavTarget::Scenario(i));
        frame(&mut h);
        let s = h.state().view.scenarios()[i].clone();
        assert_eq!(h.state().value.scenario, Some(i));
        assert_eq!(
            (h.state().value.start, h.state().value.goal),
            (Some(s.start), Some(s.goal))
        );
        wait(&mut h, "the path", |st| {
            st.view
                .answer()
                .is_some_and(|a| (a.start, a.goal) == (s.start, s.goal))
        });
        let a = h.state().view.answer().unwrap().clone();
        let cost = a.ppa.unwrap().unwrap().cost;
        assert!(
            (cost - s.optimal).abs() < 1e-4,
            "scenario {i}: {cost} vs {}",
            s.optimal
        );
        h.get_by_label_contains(&format!("✔ scenario optimum {:.4}", s.optimal));
    }
    // The list shows the scenario revealed last; clicking another one picks it.
    h.get_by_label("scenario 290");
    h.get_by_label("scenario 288").click();
    frame(&mut h);
    assert_eq!(h.state().value.scenario, Some(287));
    assert_eq!(
        h.state().value.start,
        Some(h.state().view.scenarios()[287].start)
    );
}

#[test]
fn clusters_are_shown_by_level_and_blocked_cells_are_not_picked() {
    let mut h = harness(NavSettings::open(data("den312d.map")));
    wait(&mut h, "the hierarchy", |s| s.view.ready());
    h.get_by_label("cluster level").click();
    frame(&mut h);
    h.get_by_label("Level 1 (4 clusters)").click();
    frame(&mut h);
    assert_eq!(h.state().value.level, Some(1));
    // (0, 0) is outside den312d's open area.
    let p = h.state().view.cell_center(0, 0).unwrap();
    click_at(&mut h, p);
    assert_eq!(h.state().value.start, None);
    // Reveal centres a cell.
    h.state_mut().view.reveal(NavTarget::Cell(30, 40));
    frame(&mut h);
    let c = h.state().view.cell_center(30, 40).unwrap();
    let canvas = h.get_by_label("map").rect();
    assert!(
        (c - canvas.center()).length() < 20.0,
        "{c:?} vs {:?}",
        canvas.center()
    );
}

#[test]
fn a_broken_map_is_reported_where_it_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.map");
    std::fs::write(&bad, "type octile\nheight 3\nwidth 3\nmap\n...\n.?.\n...\n").unwrap();
    let mut h = harness(NavSettings::open(bad));
    wait(&mut h, "the error", |s| s.view.error().is_some());
    let e = h.state().view.error().unwrap().to_string();
    assert!(e.contains("bad.map:6:2"), "{e}");
    h.get_by_label_contains("✖");
    let missing = dir.path().join("nope.map");
    h.state_mut().value = NavSettings::open(missing);
    frame(&mut h);
    wait(&mut h, "the error", |s| {
        s.view.error().is_some_and(|e| e.contains("nope.map"))
    });
    assert!(
        h.state()
            .view
            .error()
            .unwrap()
            .contains("cannot read the file")
    );
}

/// Without a system file dialog "Open map…" asks for a typed path (issue 32, finding 4).
#[test]
fn open_map_without_a_file_dialog_takes_a_typed_path() {
    let mut h = harness(NavSettings::default());
    h.state_mut().view =
        NavView::with_picker(Box::new(|| ensemble_editor::file_dialog::Answer::NoDialog));
    h.get_by_label("Open map…").click();
    frame(&mut h);
    h.get_by_label_contains("No file dialog is available here");
    let map = data("den312d.map");
    h.get_all_by_role(egui::accesskit::Role::TextInput)
        .last()
        .unwrap()
        .type_text(&map.display().to_string());
    frame(&mut h);
    h.key_press(egui::Key::Enter);
    frame(&mut h);
    assert_eq!(h.state().value.map.as_deref(), Some(map.as_path()));
}
