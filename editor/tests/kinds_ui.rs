//! Every content kind edited in the real editor, headless with egui_kittest: HMM spaces in
//! their graph, scenes, locations, smart locations, the manifest and the HMM companions in
//! their forms, workbooks in the rule table, navigation maps from the browser. Each test works
//! on a copy of a sample, drives the widgets a designer uses, and checks the document, the
//! compiler's verdict, undo and what is saved.

mod support;

use eframe::egui;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::front::ron::any::AnyAsset;
use ensemble_editor::EditorApp;
use support::app::*;

fn asset(h: &Harness<'static, EditorApp>, path: &str) -> AnyAsset {
    let p = h.state().project().unwrap();
    let doc = p
        .by_path(path)
        .unwrap_or_else(|| panic!("no document {path}"));
    p.docs[doc].state.asset().cloned().unwrap()
}

fn space(
    h: &Harness<'static, EditorApp>,
    path: &str,
) -> ensemble_compiler::hpmm::assets::SpaceAsset {
    match asset(h, path) {
        AnyAsset::Space(s) => s,
        other => panic!("{path} is {:?}", other.kind()),
    }
}

/// Types `text` into the drag value named `label` (with the keyboard on it, it is a text field).
fn type_number(h: &mut Harness<'static, EditorApp>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(h);
}

const HAGGLE: &str = "spaces/haggle.space.ron";

#[test]
fn a_space_row_off_one_is_flagged_normalised_in_one_click_and_undone() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path().join(HAGGLE)));
    settle(&mut h);
    // The space opens in its graph: every state a node, each row's sum shown.
    assert_eq!(h.get_all_by_label_contains("Σ 1.00 ✔").count(), 6);
    assert_eq!(
        space(&h, HAGGLE).states[0].to[1],
        ("asked-price".into(), 0.4)
    );
    type_number(&mut h, "p(asked-price | idle)", "0.2");
    let row = |h: &Harness<'static, EditorApp>| space(h, HAGGLE).states[0].to.clone();
    assert_eq!(row(&h)[1].1, 0.2);
    assert!(h.state().is_dirty());
    assert!(h.state().title().starts_with('•'));
    // The sum is flagged at once, and the compiler agrees after the debounce.
    h.get_by_label("normalise idle");
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).contains(&("transition-not-normalized".into(), Some("idle".into()))),
        "{:?}",
        problems(&h)
    );
    // Inside the scaled graph, the accessibility tree clicks it (its rectangle is unscaled).
    h.get_by_label("normalise idle").click_accesskit();
    settle(&mut h);
    let sum: f64 = row(&h).iter().map(|(_, p)| p).sum();
    assert!((sum - 1.0).abs() < 1e-6, "{:?}", row(&h));
    assert_eq!(row(&h)[0].1, 0.625);
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
    // Undo takes back the normalisation, then the typing.
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(row(&h)[1].1, 0.2);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(row(&h)[1].1, 0.4);
    assert!(!h.state().is_dirty());
}

#[test]
fn a_state_added_and_connected_is_saved_with_its_layout_beside_the_space() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path().join(HAGGLE)));
    let before = std::fs::read_to_string(dir.path().join(HAGGLE)).unwrap();
    click(&mut h, "add state");
    let sp = space(&h, HAGGLE);
    assert_eq!(sp.states.len(), 7);
    assert_eq!(sp.states[6].name, "state");
    // The new state is selected: the inspector edits it. Give it a transition to `idle`.
    h.get_by_label("add transition").click();
    settle(&mut h);
    click(&mut h, "idle");
    let sp = space(&h, HAGGLE);
    assert_eq!(
        sp.states[6].to,
        vec![("state".into(), 0.5), ("idle".into(), 0.5)]
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    assert!(!h.state().is_dirty());
    let saved = std::fs::read_to_string(dir.path().join(HAGGLE)).unwrap();
    assert!(
        saved.contains("        (name: \"state\", to: [(\"state\", 0.5), (\"idle\", 0.5)]),\n"),
        "{saved}"
    );
    // A one-state change is a one-line diff; the positions live in the sidecar.
    assert_eq!(saved.lines().count(), before.lines().count() + 1);
    let sidecar =
        std::fs::read_to_string(dir.path().join("spaces/haggle.space.layout.ron")).unwrap();
    assert!(sidecar.contains("(name: \"state\""), "{sidecar}");
    // Reopened, it is the same space at the same place.
    let again = harness(EditorApp::open(dir.path().join(HAGGLE)));
    assert_eq!(space(&again, HAGGLE), space(&h, HAGGLE));
    let p = again.state().project().unwrap();
    let doc = &p.docs[p.by_path(HAGGLE).unwrap()].state;
    assert!(doc.layout.get("state").is_some());
    wait_for_diagnostics(&mut h);
    // The new state performs nothing and nothing else goes to it: no errors.
    assert!(
        problems(&h)
            .iter()
            .all(|(c, _)| c != "transition-not-normalized"),
        "{:?}",
        problems(&h)
    );
}

#[test]
fn renaming_a_space_state_renames_the_dependencies_on_it_in_one_step() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path().join("spaces/selling.space.ron")));
    // Find selects the state in its graph.
    press(&mut h, Modifiers::COMMAND, Key::F);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text("presented");
    settle(&mut h);
    h.key_press(Key::Enter);
    settle(&mut h);
    assert_eq!(
        h.get_by_label("state name").value().as_deref(),
        Some("presented")
    );
    retype_field(&mut h, "state name", "shown");
    let selling = space(&h, "spaces/selling.space.ron");
    assert!(selling.states.iter().any(|s| s.name == "shown"));
    // Both spaces engaged by it follow.
    for other in [HAGGLE, "spaces/praise.space.ron"] {
        let of = space(&h, other).enabled_by.unwrap().of;
        assert_eq!(of, ["selling.requested", "selling.shown"], "{other}");
    }
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().all(|(c, _)| c != "unknown-reference"),
        "{:?}",
        problems(&h)
    );
    unfocus(&mut h, egui::pos2(700.0, 400.0));
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert!(!h.state().is_dirty(), "one undo step takes back every file");
}

#[test]
fn a_scene_is_edited_in_its_form_agents_variables_and_events() {
    let dir = sample_copy("shops");
    let mut h = harness(EditorApp::open(dir.path().join("market.scene.ron")));
    let scene = |h: &Harness<'static, EditorApp>| match asset(h, "market.scene.ron") {
        AnyAsset::Scene(s) => s,
        _ => unreachable!(),
    };
    click(&mut h, "agent player");
    choose(&mut h, "starts at", "EastEnd");
    assert_eq!(
        scene(&h)
            .agents
            .iter()
            .find(|a| a.name == "player")
            .unwrap()
            .at,
        "EastEnd"
    );
    // A variable, from the key/value table.
    h.get_by_label("add variable").click();
    settle(&mut h);
    click(&mut h, "a new one");
    let vars = scene(&h)
        .agents
        .iter()
        .find(|a| a.player)
        .unwrap()
        .variables
        .clone();
    assert_eq!(vars.keys().collect::<Vec<_>>(), ["variable"]);
    // A Notify event picks the smart location's notification.
    // (Diagnostics first: a menu should not be open when they arrive and the layout moves.)
    wait_for_diagnostics(&mut h);
    h.get_by_label("add event").click();
    settle(&mut h);
    click(&mut h, "Notify");
    let n = scene(&h).events.len();
    assert_eq!(n, 6, "the event is added");
    choose(&mut h, &format!("event {n} notification"), "FreshBread");
    let last = scene(&h).events.last().cloned().unwrap();
    assert_eq!(
        last,
        ensemble_compiler::front::ron::assets::SceneEventAsset::Notify {
            at: 91.0,
            location: "bakery".into(),
            notification: "FreshBread".into()
        }
    );
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().all(|(c, _)| c != "unknown-reference"),
        "{:?}",
        problems(&h)
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(dir.path().join("market.scene.ron")).unwrap();
    assert!(
        saved.contains("Notify(at: 91.0, location: \"bakery\", notification: \"FreshBread\")"),
        "{saved}"
    );
    assert!(saved.contains("variables: {\"variable\": \"\"}"), "{saved}");
}

#[test]
fn renaming_a_location_follows_into_the_scene_and_smart_locations() {
    let dir = sample_copy("shops");
    let mut h = harness(EditorApp::open(dir.path().join("market.locations.ron")));
    click(&mut h, "location Bakery");
    retype_field(&mut h, "location name", "Patisserie");
    let located = |h: &Harness<'static, EditorApp>| match asset(h, "bakery.smartloc.ron") {
        AnyAsset::SmartLocation(s) => s.at,
        _ => unreachable!(),
    };
    assert_eq!(located(&h), "Patisserie");
    type_number(&mut h, "location x", "-14");
    match asset(&h, "market.locations.ron") {
        AnyAsset::Locations(l) => {
            let p = l.locations.iter().find(|l| l.name == "Patisserie").unwrap();
            assert_eq!((p.x, p.y), (-14.0, 2.0));
        }
        _ => unreachable!(),
    }
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().all(|(c, _)| c != "unknown-reference"),
        "{:?}",
        problems(&h)
    );
    press(&mut h, Modifiers::COMMAND, Key::Z);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(located(&h), "Bakery");
    assert!(!h.state().is_dirty());
}

#[test]
fn facts_are_checked_as_typed_and_the_manifest_names_the_project() {
    let dir = sample_copy("shops");
    let mut h = harness(EditorApp::open(dir.path().join("bakery.smartloc.ron")));
    retype_field(&mut h, "notification 1 facts", "fresh(bread");
    assert!(
        h.get_all_by_label_contains("✖").next().is_some(),
        "an unclosed fact is flagged under the field"
    );
    retype_field(&mut h, "notification 1 facts", "fresh(bread), warm(oven)");
    match asset(&h, "bakery.smartloc.ron") {
        AnyAsset::SmartLocation(s) => {
            assert_eq!(s.notifications[0].facts, "fresh(bread), warm(oven)")
        }
        _ => unreachable!(),
    }
    open(&mut h, "Ensemble.ron");
    retype_field(&mut h, "project name", "market-street");
    assert!(
        h.state().title().contains("market-street"),
        "{}",
        h.state().title()
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(dir.path().join("Ensemble.ron")).unwrap();
    assert!(saved.contains("name: \"market-street\""), "{saved}");
    assert!(
        saved.starts_with("// A market street"),
        "comments kept: {saved}"
    );
}

#[test]
fn an_estimator_is_typed_checked_and_found() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path()));
    find(&mut h, "compliment");
    settle(&mut h);
    assert_eq!(
        h.get_by_label("estimator name").value().as_deref(),
        Some("compliment")
    );
    let expr = |h: &Harness<'static, EditorApp>| match asset(h, "innkeeper.evidence.ron") {
        AnyAsset::Evidence(e) => e
            .estimators
            .iter()
            .find(|x| x.name == "compliment")
            .unwrap()
            .is
            .clone(),
        _ => unreachable!(),
    };
    let was = expr(&h);
    // Half an expression does not read: the value stays, the error is shown.
    h.get_by_label("expression").focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_by_label("expression")
        .type_text("Match(\"@pleasant\", 0.8");
    settle(&mut h);
    assert_eq!(expr(&h), was);
    h.get_by_label_contains("not applied until it reads");
    h.get_by_label("expression").type_text(")");
    settle(&mut h);
    assert_eq!(
        expr(&h),
        ensemble_compiler::hpmm::assets::ExprAsset::Match("@pleasant".into(), 0.8)
    );
    assert!(h.state().is_dirty());
}

#[test]
fn a_workbook_is_imported_edited_in_the_rule_table_and_saved_as_a_workbook() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("market");
    ensemble_editor::document::Project::create(&dir, "market").unwrap();
    let bench = samples().join("bench/bench.xlsx");
    let app =
        EditorApp::open(&dir).with_workbook_picker(Box::new(move |_| Some(bench.clone()).into()));
    let mut h = harness(app);
    h.get_by_label("File").click();
    settle(&mut h);
    click(&mut h, "Import Excel workbook…");
    let p = h.state().project().unwrap();
    let doc = p
        .by_path("bench.xlsx")
        .expect("the workbook joins the project");
    assert_eq!(h.state().current_doc(), Some(doc));
    assert!(h.state().is_dirty(), "not on disk until saved");
    // Edit a cell of the table.
    retype_field(&mut h, "row 1 Precondition", "seat(X), not reserved(X, Z)");
    let script = |h: &Harness<'static, EditorApp>| {
        h.state().project().unwrap().docs[doc]
            .state
            .workbook()
            .unwrap()
            .clone()
    };
    assert_eq!(
        script(&h).rules[0].precondition,
        "seat(X), not reserved(X, Z)"
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    assert!(!h.state().is_dirty());
    let saved = dir.join("bench.xlsx");
    // The saved workbook checks clean and its edited cell reads back.
    let c = ensemble_compiler::compile_path(&saved).unwrap();
    assert!(
        !c.diagnostics.has_errors(),
        "{}",
        c.diagnostics.render(&c.sources, false)
    );
    let (read, _) = ensemble_editor::rules::excel::import(&saved).unwrap();
    assert_eq!(read.rules[0].precondition, "seat(X), not reserved(X, Z)");
    assert_eq!(read, script(&h));
    // And the project opens it again as a workbook in the rule table.
    let again = harness(EditorApp::open(&saved));
    let p = again.state().project().unwrap();
    assert_eq!(
        p.docs[p.by_path("bench.xlsx").unwrap()].state.workbook(),
        Some(&read)
    );
}

/// Copies MovingAI's den312d map (reference data, vendored in `compiler/tests/data/movingai`)
/// to `maps/` of the project at `root`.
fn copy_den312d(root: &std::path::Path) {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compiler/tests/data/movingai/den312d.map");
    assert!(map.is_file(), "missing reference data {}", map.display());
    std::fs::create_dir_all(root.join("maps")).unwrap();
    std::fs::copy(&map, root.join("maps/den312d.map")).unwrap();
}

#[test]
fn navigation_maps_of_the_project_open_in_the_navigation_view() {
    let dir = sample_copy("airport");
    copy_den312d(dir.path());
    let mut h = harness(EditorApp::open(dir.path()));
    // The Maps section is below the fold of the browser: the accessibility tree clicks it.
    h.get_by_label("den312d.map").click_accesskit();
    settle(&mut h);
    assert_eq!(h.state().current_doc(), None);
    assert_eq!(
        h.state().session().unwrap().maps.shown(),
        Some("maps/den312d.map")
    );
    h.get_by_label("Open map…");
    // Opening a document puts the map away.
    open(&mut h, "SellTicket");
    assert_eq!(h.state().session().unwrap().maps.shown(), None);
    assert_eq!(h.state().current_machine_name(), Some("SellTicket"));
}

/// Waits (in real time) until `done` holds, stepping the UI; the planning previews run on a
/// worker thread.
fn wait_until(
    h: &mut Harness<'static, EditorApp>,
    what: &str,
    done: impl Fn(&Harness<'static, EditorApp>) -> bool,
) {
    let start = std::time::Instant::now();
    while !done(h) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "never: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    settle(h);
}

fn shown(h: &Harness<'static, EditorApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

#[test]
fn an_action_list_previews_its_plan_and_explains_an_explosion() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(
        dir.path().join("traveller/traveller.actionlist.ron"),
    ));
    // Fig. 2.3's plan, from the first seed, on the planning graph built from the asset.
    wait_until(&mut h, "the plan", |h| shown(h, "9 steps to a goal state"));
    assert!(shown(&h, "19 states"));
    // An integer that every step can increase makes the graph explode; the report says why.
    click(&mut h, "Variables (5)");
    click(&mut h, "add variable");
    click(&mut h, "variable 6 enumerated");
    click(&mut h, "Actions (11)");
    click(&mut h, "add action");
    click(&mut h, "add effect");
    choose(&mut h, "effect 1 kind", "add to");
    choose(&mut h, "effect 1 variable", "Variable");
    let list = match asset(&h, "traveller/traveller.actionlist.ron") {
        AnyAsset::ActionList(l) => l,
        _ => unreachable!(),
    };
    assert_eq!(list.variables[5].values, None, "an integer");
    // A new action goes after the selected one (the first), and is selected.
    assert_eq!(list.actions[1].name, "action");
    assert_eq!(
        list.actions[1].effects,
        vec![ensemble_compiler::plan::action_list::Effect::Add(
            "Variable".into(),
            1
        )]
    );
    wait_until(&mut h, "the explosion report", |h| {
        shown(h, "the graph explodes")
    });
    assert!(shown(&h, "`Variable` is unbounded"));
    // The compiler agrees, with the same code the CLI prints.
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h)
            .iter()
            .any(|(c, _)| c == "state-limit-exceeded"),
        "{:?}",
        problems(&h)
    );
    // Undo all the way back: the plan returns.
    for _ in 0..6 {
        press(&mut h, Modifiers::COMMAND, Key::Z);
    }
    assert!(!h.state().is_dirty());
    wait_until(&mut h, "the plan again", |h| {
        shown(h, "9 steps to a goal state")
    });
    // Each step names the machine that performs it; a click opens it.
    click(&mut h, "open machine PassThroughSecurity");
    assert_eq!(
        h.state().current_machine_name(),
        Some("PassThroughSecurity")
    );
}

#[test]
fn a_problem_shows_the_plan_its_agent_would_make() {
    let dir = sample_copy("weapon-shop");
    let path = "buy-sword.problem.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    wait_until(&mut h, "the plan", |h| shown(h, "4 steps, checked"));
    assert!(shown(&h, "Buy(npc, sword)"));
    // Each step with the machine that performs it.
    h.get_by_label("open machine Buy");
    // A goal only the player's actions reach: the npc (the actor) finds no plan.
    retype_field(&mut h, "goal", "has(player, sword)");
    let goal = |h: &Harness<'static, EditorApp>| match asset(h, path) {
        AnyAsset::Problem(p) => p.goal,
        _ => unreachable!(),
    };
    assert_eq!(goal(&h), ["has(player, sword)"]);
    assert!(h.state().title().starts_with('•'));
    wait_for_diagnostics(&mut h);
    wait_until(&mut h, "no plan", |h| shown(h, "no plan reaches the goal"));
    assert!(!shown(&h, "Buy(npc, sword)"));
    // A literal that does not read is marked as typed, and the compiler reports it.
    retype_field(&mut h, "goal", "has(npc, sword");
    assert!(
        shown(&h, "line 1:"),
        "the literal's error is shown under the field"
    );
    wait_for_diagnostics(&mut h);
    assert!(!problems(&h).is_empty());
    // Undo brings back the goal and its plan.
    press(&mut h, Modifiers::COMMAND, Key::Z);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(goal(&h), ["has(npc, sword)"]);
    assert!(!h.state().is_dirty());
    wait_for_diagnostics(&mut h);
    wait_until(&mut h, "the plan again", |h| shown(h, "4 steps, checked"));
    // Objects pick their type, and actions their machine, from what the domain and project
    // declare.
    choose(&mut h, "object sword", "door");
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().any(|(c, _)| c == "unreachable-goal"),
        "a door cannot be had: {:?}",
        problems(&h)
    );
    press(&mut h, Modifiers::COMMAND, Key::Z);
    // (Diagnostics first: the form's error line goes, and the layout moves under an open menu.)
    wait_for_diagnostics(&mut h);
    wait_until(&mut h, "the plan again", |h| shown(h, "4 steps, checked"));
    h.get_by_label("add machine for").click();
    settle(&mut h);
    click(&mut h, "WalkIn");
    // The new row is an edit: let its diagnostics land before opening a menu over the form,
    // or the layout moves under the open list and the click picks a neighbour.
    wait_for_diagnostics(&mut h);
    choose(&mut h, "machine for WalkIn", "OpenDoor");
    match asset(&h, path) {
        AnyAsset::Problem(p) => {
            assert_eq!(p.objects["sword"], "item");
            assert_eq!(p.machines["WalkIn"], "OpenDoor");
        }
        _ => unreachable!(),
    }
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
}

#[test]
fn pddl_is_edited_as_text_checked_as_typed_and_saved_as_typed() {
    let dir = sample_copy("dinner-date");
    let path = "pddl/date-tonight.pddl";
    let original = std::fs::read_to_string(dir.path().join(path)).unwrap();
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    wait_until(&mut h, "the plan", |h| shown(h, "3 steps, checked"));
    h.get_by_label("PDDL text").focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::End);
    h.get_by_label("PDDL text").type_text("(oops");
    settle(&mut h);
    assert!(h.state().is_dirty());
    assert!(h.state().title().starts_with('•'));
    // The file ends in a newline: the unclosed list is on line 5.
    assert!(
        shown(&h, "line 5, column 1: unclosed"),
        "the unclosed list is reported at its line"
    );
    // The compiler reports it too; its diagnostic puts the cursor on it: Delete removes it.
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().any(|(c, _)| c == "syntax"),
        "{:?}",
        problems(&h)
    );
    h.get_by_label("PDDL text").focus();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Home);
    settle(&mut h);
    let row = h
        .query_all_by_label_contains("error syntax")
        .next()
        .expect("the diagnostic row")
        .rect()
        .center();
    click_at(&mut h, row);
    assert!(h.get_by_label("PDDL text").is_focused());
    for _ in 0.."(oops".len() {
        h.key_press(Key::Delete);
    }
    settle(&mut h);
    assert!(shown(&h, "reads"));
    let text = |h: &Harness<'static, EditorApp>| {
        let p = h.state().project().unwrap();
        p.docs[p.by_path(path).unwrap()].state.text().unwrap()
    };
    assert_eq!(text(&h), original);
    assert!(!h.state().is_dirty(), "as saved again");
    // Each typing gesture is one undo step: the deleting, then the typing. (While the text has
    // the keyboard, Ctrl+Z is its own; Escape leaves it.)
    h.key_press(Key::Escape);
    settle(&mut h);
    assert!(!h.get_by_label("PDDL text").is_focused());
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(text(&h), format!("{original}(oops"));
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(text(&h), original);
    press(&mut h, Modifiers::COMMAND, Key::Y);
    assert_eq!(text(&h), format!("{original}(oops"));
    press(&mut h, Modifiers::COMMAND, Key::Z);
    // Saved as typed: a comment stays where it was written.
    h.get_by_label("PDDL text").focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::End);
    h.get_by_label("PDDL text").type_text("; checked");
    settle(&mut h);
    press(&mut h, Modifiers::COMMAND, Key::S);
    assert!(!h.state().is_dirty());
    let saved = std::fs::read_to_string(dir.path().join(path)).unwrap();
    assert_eq!(saved, format!("{original}; checked"));
}

#[test]
fn find_reaches_planning_actions_in_action_lists_domains_and_pddl() {
    let dir = sample_copy("dinner-date");
    let mut h = harness(EditorApp::open(dir.path()));
    // Types `what` into Find and picks the hit shown as `row`.
    let find = |h: &mut Harness<'static, EditorApp>, what: &str, row: &str| {
        press(h, Modifiers::COMMAND, Key::F);
        h.get_all_by_role(Role::TextInput)
            .find(|n| n.is_focused())
            .unwrap()
            .type_text(what);
        settle(h);
        click(h, row);
    };
    // An operator of a native domain: its form opens on it.
    find(&mut h, "cook", "cook  ·  operator in dinner-date");
    assert_eq!(
        h.get_by_label("operator name").value().as_deref(),
        Some("cook")
    );
    // The same action in the PDDL domain: the text opens with the cursor on its name.
    find(
        &mut h,
        "dolly",
        "dolly  ·  PDDL action in pddl/dinner-date.pddl",
    );
    assert!(shown(&h, "PDDL domain dinner-date-pddl"));
    assert!(h.get_by_label("PDDL text").is_focused());
    h.get_by_label("PDDL text").type_text("x");
    settle(&mut h);
    let p = h.state().project().unwrap();
    let doc = p.by_path("pddl/dinner-date.pddl").unwrap();
    let text = p.docs[doc].state.text().unwrap();
    assert!(text.contains("(:action xdolly"), "{text}");
}

#[test]
fn a_world_event_names_its_problem_and_agent_and_is_checked() {
    let dir = sample_copy("weapon-shop");
    let path = "shop.scene.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    let events = |h: &Harness<'static, EditorApp>| match asset(h, path) {
        AnyAsset::Scene(s) => s.events,
        _ => unreachable!(),
    };
    wait_for_diagnostics(&mut h);
    h.get_by_label("add event").click();
    settle(&mut h);
    click(&mut h, "World");
    let n = events(&h).len();
    assert_eq!(n, 2, "the event is added");
    // It starts on the project's only planning problem; the agent is picked from the scene's.
    choose(&mut h, &format!("event {n} agent"), "npc");
    retype_field(
        &mut h,
        &format!("event {n} perform"),
        "Close(player, shopdoor)",
    );
    use ensemble_compiler::front::ron::assets::SceneEventAsset;
    match events(&h).last().unwrap() {
        SceneEventAsset::World {
            problem,
            agent,
            perform,
            at,
            ..
        } => {
            assert_eq!(problem, "BuySword");
            assert_eq!(agent.as_deref(), Some("npc"));
            assert_eq!(perform.as_deref(), Some("Close(player, shopdoor)"));
            assert_eq!(*at, 3.0, "a second after the last event");
        }
        other => panic!("{other:?}"),
    }
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
    // An action the problem does not have is reported as the CLI reports it.
    retype_field(&mut h, &format!("event {n} perform"), "Fly(player)");
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().any(|(c, _)| c == "unknown-reference"),
        "{:?}",
        problems(&h)
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(dir.path().join(path)).unwrap();
    assert!(saved.contains("perform: \"Fly(player)\""), "{saved}");
}

#[test]
fn an_action_list_built_from_nothing_plans_as_it_is_written() {
    let dir = sample_copy("weapon-shop");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("+ New asset…").click();
    settle(&mut h);
    h.get_by_label("New action list").click();
    settle(&mut h);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text("Door");
    h.run_steps(1);
    h.get_by_label("Create").click();
    settle(&mut h);
    let path = "Door.actionlist.ron";
    let list = |h: &Harness<'static, EditorApp>| match asset(h, path) {
        AnyAsset::ActionList(l) => l,
        other => panic!("{:?}", other.kind()),
    };
    assert_eq!(list(&h).name, "Door");
    // A variable with two values: closed (the first, so every seed starts there) and open.
    click(&mut h, "Variables (0)");
    click(&mut h, "add variable");
    retype_field(&mut h, "variable 1 name", "Door");
    retype_field(&mut h, "variable 1 values", "closed, open");
    // An action that opens it, performed by the project's OpenDoor machine.
    click(&mut h, "Actions (0)");
    click(&mut h, "add action");
    retype_field(&mut h, "action name", "Open");
    choose(&mut h, "machine", "OpenDoor");
    click(&mut h, "add constraint");
    choose(&mut h, "constraint 1 value", "closed");
    click(&mut h, "add effect");
    choose(&mut h, "effect 1 value", "open");
    // The goal: the door open.
    click(&mut h, "Seeds and goal (1)");
    click(&mut h, "add goal condition");
    choose(&mut h, "goal condition 1 value", "open");
    let l = list(&h);
    use ensemble_compiler::plan::action_list::{Condition, Effect, Value};
    let name = |s: &str| Value::Name(s.into());
    assert_eq!(
        l.variables[0].values.as_deref(),
        Some(&["closed".to_string(), "open".to_string()][..])
    );
    assert_eq!(l.actions[0].name, "Open");
    assert_eq!(l.actions[0].machine.as_deref(), Some("OpenDoor"));
    assert_eq!(
        l.actions[0].constraints,
        [Condition::Eq("Door".into(), name("closed"))]
    );
    assert_eq!(
        l.actions[0].effects,
        [Effect::Set("Door".into(), name("open"))]
    );
    assert_eq!(l.goal, [Condition::Eq("Door".into(), name("open"))]);
    wait_until(&mut h, "the plan", |h| shown(h, "1 step to a goal state"));
    assert!(shown(&h, "2 states, 1 edges, 1 goal states"));
    h.get_by_label("open machine OpenDoor");
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h)
            .iter()
            .all(|(_, item)| item.as_deref() != Some("Open")),
        "{:?}",
        problems(&h)
    );
    press(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(dir.path().join(path)).unwrap();
    assert!(
        saved.contains("(name: \"Door\", values: [\"closed\", \"open\"])"),
        "{saved}"
    );
}

#[test]
fn a_navigation_graph_is_edited_in_its_form_and_scene_events_pick_its_doors() {
    let dir = sample_copy("airport");
    let path = "terminal.nav.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    let nav = |h: &Harness<'static, EditorApp>| match asset(h, path) {
        AnyAsset::Navigation(n) => n,
        other => panic!("{:?}", other.kind()),
    };
    assert!(shown(&h, "Navigation graph"));
    let before = nav(&h);
    // A node moved in the form; a second door on lane B's edge, picked by node name.
    type_number(&mut h, "node 1 x", "-5");
    assert_eq!(nav(&h).nodes[0].x, -5.0);
    h.get_by_label("add door").click_accesskit();
    settle(&mut h);
    retype_field(&mut h, "door 2 name", "SecurityLaneB");
    h.get_by_label("add door 2 edge").click_accesskit();
    settle(&mut h);
    // (The doors are below the nodes: scrolled to first.)
    for (end, node) in [("from", "LaneB"), ("to", "LaneBExit")] {
        let label = format!("door 2 edge 1 {end}");
        h.get_by_label(&label).scroll_to_me();
        settle(&mut h);
        // (A long list of nodes: the option is scrolled to in the popup too.)
        h.get_by_label(&label).click_accesskit();
        settle(&mut h);
        h.get_all_by_label(node).last().unwrap().scroll_to_me();
        settle(&mut h);
        h.get_all_by_label(node).last().unwrap().click_accesskit();
        settle(&mut h);
    }
    let door = nav(&h).doors[1].clone();
    assert_eq!(door.name, "SecurityLaneB");
    use ensemble_compiler::nav::asset::NodeRef;
    assert_eq!(
        (&door.edges[0].from, &door.edges[0].to),
        (
            &NodeRef::Name("LaneB".into()),
            &NodeRef::Name("LaneBExit".into())
        )
    );
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
    // The scene closes the new door instead: its event picks among the project's doors.
    open(&mut h, "lane-closed");
    choose(&mut h, "event 1 door", "SecurityLaneB");
    let scene = match asset(&h, "lane-closed.scene.ron") {
        AnyAsset::Scene(s) => s,
        _ => unreachable!(),
    };
    assert_eq!(
        scene.events[0],
        ensemble_compiler::front::ron::assets::SceneEventAsset::Close {
            at: 29.0,
            door: "SecurityLaneB".into()
        }
    );
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
    press(&mut h, Modifiers::COMMAND, Key::S);
    let saved = std::fs::read_to_string(dir.path().join(path)).unwrap();
    assert!(
        saved.contains("(name: \"SecurityLaneB\", edges: [(\"LaneB\", \"LaneBExit\")])"),
        "{saved}"
    );
    // Undo takes every step back: the door event, the edge's ends, the edge, the door's name,
    // the door, the move.
    for _ in 0..7 {
        press(&mut h, Modifiers::COMMAND, Key::Z);
    }
    assert_eq!(nav(&h), before);
}

#[test]
fn a_grid_navigation_graph_shows_its_map_in_the_navigation_view() {
    let dir = sample_copy("airport");
    copy_den312d(dir.path());
    std::fs::create_dir_all(dir.path().join("nav")).unwrap();
    std::fs::write(
        dir.path().join("nav/den.nav.ron"),
        "Navigation(nodes: [(x: 0.0, y: 0.0)])\n",
    )
    .unwrap();
    let path = "nav/den.nav.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    // From nodes to a grid: the map is picked among the project's, written relative to the file.
    choose(&mut h, "source", "a grid map");
    let grid = match asset(&h, path) {
        AnyAsset::Navigation(n) => n.grid.unwrap(),
        _ => unreachable!(),
    };
    assert_eq!(grid.map, "../maps/den312d.map");
    type_number(&mut h, "cell size", "0.5");
    click(&mut h, "show map");
    assert_eq!(
        h.state().session().unwrap().maps.shown(),
        Some("maps/den312d.map")
    );
    assert_eq!(h.state().current_doc(), None);
    // The document kept its edits (the view edits nothing).
    let p = h.state().project().unwrap();
    let text = p.docs[p.by_path(path).unwrap()].state.text().unwrap();
    assert!(
        text.contains("grid: (map: \"../maps/den312d.map\", cell_size: 0.5"),
        "{text}"
    );
}

/// A copy of the road-graph fixture project (tests/fixtures/nav-roads).
fn roads_copy() -> tempfile::TempDir {
    project_copy(&samples().join("../tests/fixtures/nav-roads"))
}

/// Steps until `label` is shown (the road graph is read on a thread).
fn wait_for_label(h: &mut Harness<'static, EditorApp>, label: &str) {
    wait_until(h, label, |h| shown(h, label));
}

#[test]
fn a_road_graph_is_drawn_from_its_files_with_its_door_and_the_locations() {
    let dir = roads_copy();
    let path = "streets.nav.ron";
    let mut h = harness(EditorApp::open(dir.path().join(path)));
    wait_for_label(&mut h, "4 nodes, 5 roads drawn.");
    // Four junctions and the two locations; four roads and the door on the diagonal (1, 3).
    assert!(
        h.query_by_label("plot: 6 points, 5 lines").is_some(),
        "{:?}",
        h.query_by_label_contains("plot:").map(|n| format!("{n:?}"))
    );
    // The origin moves the drawing at once, as it moves the nodes in the build.
    type_number(&mut h, "origin x", "50");
    let AnyAsset::Navigation(n) = asset(&h, path) else {
        unreachable!()
    };
    assert_eq!(n.roads.unwrap().origin.0, 50.0);
    assert!(h.query_by_label("plot: 6 points, 5 lines").is_some());
    // The compiler agrees the graph is fine (the Market is a metre from junction 3).
    wait_for_diagnostics(&mut h);
    assert!(
        problems(&h).iter().all(|(code, _)| code != "nav-source"),
        "{:?}",
        problems(&h)
    );
}

#[test]
fn a_road_graph_whose_coordinates_are_missing_says_so_in_its_form() {
    let dir = roads_copy();
    std::fs::remove_file(dir.path().join("streets.co")).unwrap();
    let mut h = harness(EditorApp::open(dir.path().join("streets.nav.ron")));
    wait_for_label(&mut h, "Not drawn: streets.co: cannot read the file");
    // Nothing of the graph is drawn; the locations still are.
    assert!(h.query_by_label("plot: 2 points, 0 lines").is_some());
    // The file put back is read again without reopening anything.
    std::fs::copy(
        samples().join("../tests/fixtures/nav-roads/streets.co"),
        dir.path().join("streets.co"),
    )
    .unwrap();
    wait_for_label(&mut h, "4 nodes, 5 roads drawn.");
    assert!(h.query_by_label("plot: 6 points, 5 lines").is_some());
}

#[test]
fn a_city_sized_road_graph_is_drawn_as_one_image_and_the_form_says_so() {
    let dir = roads_copy();
    // A 150 × 150 street grid, 10 m a block: 44,700 roads, more than are drawn as lines.
    let side = 150u32;
    let id = |x: u32, y: u32| y * side + x + 1;
    let mut arcs = Vec::new();
    for (x, y) in (0..side).flat_map(|y| (0..side).map(move |x| (x, y))) {
        let right = (x + 1 < side).then(|| id(x + 1, y));
        let up = (y + 1 < side).then(|| id(x, y + 1));
        for to in right.into_iter().chain(up) {
            arcs.push(format!(
                "a {} {to} 100\na {to} {} 100\n",
                id(x, y),
                id(x, y)
            ));
        }
    }
    let gr = format!("p sp {} {}\n{}", side * side, arcs.len() * 2, arcs.concat());
    let co: String = (0..side * side)
        .map(|i| format!("v {} {} {}\n", i + 1, (i % side) * 10, (i / side) * 10))
        .collect();
    std::fs::write(dir.path().join("streets.gr"), gr).unwrap();
    let header = format!("p aux sp co {}\n", side * side);
    std::fs::write(dir.path().join("streets.co"), header + &co).unwrap();
    let mut h = harness(EditorApp::open(dir.path().join("streets.nav.ron")));
    wait_for_label(
        &mut h,
        "22500 nodes, 44700 roads: more than 20000 roads are drawn",
    );
    // The image, the door's line and the two locations; no junction is labelled.
    assert!(
        h.query_by_label("plot: 2 points, 1 lines, an image")
            .is_some()
    );
}

#[test]
fn a_form_edit_and_a_graph_edit_are_undone_in_turn_from_one_history() {
    // Both are edits applied after the frame and recorded in the one history: a scene's form,
    // then a machine's graph; Ctrl+Z takes back the graph edit, then the form edit.
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path().join("ticket-counter.scene.ron")));
    let seller_at = |h: &Harness<'static, EditorApp>| match asset(h, "ticket-counter.scene.ron") {
        AnyAsset::Scene(s) => s
            .agents
            .iter()
            .find(|a| a.name == "seller")
            .unwrap()
            .at
            .clone(),
        _ => unreachable!(),
    };
    let states =
        |h: &Harness<'static, EditorApp>| match asset(h, "machines/StandSellTicket.machine.ron") {
            AnyAsset::Machine(m) => m.states.len(),
            _ => unreachable!(),
        };
    assert_eq!(seller_at(&h), "SellerSpawn");
    click(&mut h, "agent seller");
    choose(&mut h, "starts at", "Entrance");
    assert_eq!(seller_at(&h), "Entrance");
    open(&mut h, "StandSellTicket");
    let before = states(&h);
    click(&mut h, "+ State");
    click(&mut h, "Wait");
    assert_eq!(states(&h), before + 1);
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(states(&h), before);
    assert_eq!(
        seller_at(&h),
        "Entrance",
        "the form edit is the step before"
    );
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(seller_at(&h), "SellerSpawn");
}

#[test]
fn a_tally_is_edited_in_the_variables_form() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path()));
    find(&mut h, "the-tab");
    settle(&mut h);
    assert_eq!(
        h.get_by_label("variable name").value().as_deref(),
        Some("the-tab")
    );
    let tally = |h: &Harness<'static, EditorApp>| match asset(h, "innkeeper.concepts.ron") {
        AnyAsset::Concepts(c) => (c.variables.iter())
            .find(|v| v.name == "the-tab")
            .unwrap()
            .tally
            .clone(),
        _ => unreachable!(),
    };
    assert_eq!(tally(&h).unwrap().units[1], ("silver".to_string(), 10));
    // A silver worth twelve copper, typed in the unit's value.
    type_number(&mut h, "unit 2 value", "12");
    assert_eq!(tally(&h).unwrap().units[1], ("silver".to_string(), 12));
    assert!(h.state().is_dirty());
    // No longer a tally: the actions that put things on it are errors where they stand.
    let i = match asset(&h, "innkeeper.concepts.ron") {
        AnyAsset::Concepts(c) => c
            .variables
            .iter()
            .position(|v| v.name == "the-tab")
            .unwrap(),
        _ => unreachable!(),
    };
    h.get_by_label(&format!("variable {} is a tally", i + 1))
        .click();
    wait_for_diagnostics(&mut h);
    assert_eq!(tally(&h), None);
    let r = h.state().report().unwrap();
    assert!(
        (r.located.iter()).any(|l| l.diagnostic.message.contains("which is no tally")),
        "no error for the actions that put things on the-tab: {:?}",
        problems(&h)
    );
}

#[test]
fn a_tracker_that_reads_a_role_is_edited_in_the_variables_form() {
    let dir = sample_copy("innkeeper");
    let mut h = harness(EditorApp::open(dir.path()));
    find(&mut h, "the-place");
    settle(&mut h);
    // The fifth of `the-place`'s trackers binds the place after "to" in a question of how far.
    assert_eq!(
        h.get_by_label("tracker 5 after").value().as_deref(),
        Some("goal-word")
    );
    let rule = |h: &Harness<'static, EditorApp>| match asset(h, "innkeeper.concepts.ron") {
        AnyAsset::Concepts(c) => (c.variables.iter())
            .find(|v| v.name == "the-place")
            .unwrap()
            .track[4]
            .rule
            .clone(),
        _ => unreachable!(),
    };
    use ensemble_compiler::formats::spaces::TrackerRuleAsset;
    let after = |r: TrackerRuleAsset| match r {
        TrackerRuleAsset::MentionAfter { after, .. } => after,
        other => panic!("{other:?}"),
    };
    assert_eq!(after(rule(&h)), "goal-word");
    // The categories are many: the list is filtered by what is typed.
    h.get_by_label("tracker 5 after").click();
    settle(&mut h);
    type_into(&mut h, "filter…", "phrase-st");
    h.get_all_by_label("phrase-start").last().unwrap().click();
    settle(&mut h);
    assert_eq!(after(rule(&h)), "phrase-start");
    assert!(h.state().is_dirty());
    press(&mut h, Modifiers::COMMAND, Key::Z);
    assert_eq!(after(rule(&h)), "goal-word");
}
