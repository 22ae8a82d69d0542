//! Navigation graphs in projects, end to end: the airport's buyers walk PPA* paths round the
//! terminal's walls, a closing door re-routes them (golden trace), a grid map and a road graph
//! serve as graphs too, every mistake in a `*.nav.ron` is reported at its place, and built
//! programs carry the navigation data.

use ensemble_tests::{assert_golden, ensemble, repo_path, run_trace};
use serde_json::Value;

fn trace(project: &str, scene: &str, ticks: u64) -> Vec<Value> {
    run_trace(project, scene, ticks, 7, "0").1
}

fn paths<'a>(trace: &'a [Value], agent: &str) -> Vec<&'a Value> {
    trace
        .iter()
        .filter(|e| e["event"] == "path" && e["agent"] == agent)
        .collect()
}

fn via(e: &Value) -> Vec<&str> {
    e["via"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn the_buyers_walk_round_the_kiosks_and_through_security() {
    let trace = trace("samples/airport", "ticket-counter", 2000);
    let walks = paths(&trace, "buyer1");
    assert_eq!(walks.len(), 2, "to the counter, then to the gate");
    let (counter, gate) = (walks[0], walks[1]);
    assert_eq!(counter["to"], "CounterFront");
    assert_eq!(via(counter), ["HallWest", "KioskEnd"]);
    // Entrance (0, -10) to the counter (12, -1.5) is 14.7 m in a straight line, through the
    // kiosks; round their north end it is longer.
    let length = counter["length"].as_f64().unwrap();
    assert!(length > 18.0 && length < 18.5, "{counter}");
    assert!((counter["cost"].as_f64().unwrap() - length).abs() < 0.01);
    assert_eq!(gate["to"], "Gate");
    assert_eq!(via(gate), ["QueueEast", "LaneA", "LaneAExit"]);
    assert_eq!(gate["reroute"], false);
    // Walking takes the path's length at 1.4 m/s: the buyer reaches the counter after 13 s.
    let arrived = trace
        .iter()
        .find(|e| e["agent"] == "buyer1" && e["event"] == "exit" && e["state"] == "Goto1")
        .unwrap();
    let t = arrived["time"].as_f64().unwrap();
    assert!((t - length / 1.4).abs() < 0.1, "{t} s for {length} m");
}

#[test]
fn a_closing_lane_reroutes_the_walkers_and_the_trace_is_golden() {
    let (out, trace) = run_trace("samples/airport", "lane-closed", 2000, 7, "0");
    assert_golden("airport-lane-closed-seed7.jsonl", &out);
    let doors: Vec<(f64, bool)> = trace
        .iter()
        .filter(|e| e["event"] == "door")
        .map(|e| {
            assert!(e["agent"].is_null() && e["door"] == "SecurityLaneA", "{e}");
            assert!(e["tables"].as_u64().unwrap() >= 1, "{e}");
            (e["time"].as_f64().unwrap(), e["open"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(doors, [(29.0, false), (45.0, true)]);
    // buyer1 was on its way to lane A when it closed: it turns to lane B.
    let b1 = paths(&trace, "buyer1");
    let reroute = b1.iter().find(|e| e["reroute"] == true).unwrap();
    assert_eq!(reroute["time"], 29.033333);
    assert!(via(reroute).contains(&"LaneB"), "{reroute}");
    assert!(!via(reroute).contains(&"LaneA"), "{reroute}");
    // buyer2 set off while it was closed, the long way; when it opens it turns back to lane A.
    let b2 = paths(&trace, "buyer2");
    let to_gate: Vec<_> = b2.iter().filter(|e| e["to"] == "Gate").collect();
    assert!(via(to_gate[0]).contains(&"LaneB"), "{}", to_gate[0]);
    assert_eq!(to_gate[1]["reroute"], true);
    assert!(via(to_gate[1]).contains(&"LaneA"), "{}", to_gate[1]);
    // Both still get to the gate.
    for buyer in ["buyer1", "buyer2"] {
        assert!(trace.iter().any(|e| e["agent"] == buyer
            && e["event"] == "enter"
            && e["state"] == "Finish"
            && e["depth"] == 0));
    }
}

#[test]
fn projects_without_a_graph_walk_straight_and_trace_no_paths() {
    let trace = trace("samples/bench", "bench", 3000);
    assert!(trace.iter().all(|e| e["event"] != "path"));
}

#[test]
fn a_grid_map_is_a_graph_and_a_door_of_cells_reroutes() {
    let trace = trace("tests/fixtures/nav-grid", "cross", 600);
    let walks = paths(&trace, "walker");
    let lengths: Vec<(f64, bool)> = walks
        .iter()
        .map(|e| {
            (
                e["length"].as_f64().unwrap(),
                e["reroute"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(walks.len(), 5, "{walks:?}");
    assert_eq!(walks[0]["to"], "East");
    assert_eq!(
        walks[1]["reroute"], true,
        "the north gate, shut at first, opened"
    );
    assert!(
        lengths[1].0 < lengths[0].0,
        "through the north gate is shorter"
    );
    assert_eq!(walks[2]["reroute"], true, "the south gate closed");
    assert_eq!(walks[3]["to"], "West");
    assert_eq!(walks[4]["reroute"], true, "the south gate opened");
    // Round the wall through a gap: longer than the straight 7.5 m.
    assert!(lengths.iter().all(|(l, _)| *l > 7.5), "{lengths:?}");
    // Cells are half a metre: a path's cost is its octile length in cells (a straight steps
    // and b diagonal ones, a + b·√2) times 0.5.
    let cells = walks[0]["cost"].as_f64().unwrap() / 0.5;
    assert!(
        (0..40).any(|b| {
            let a = cells - b as f64 * std::f64::consts::SQRT_2;
            a > -1e-6 && (a - a.round()).abs() < 1e-5
        }),
        "{cells} cells is not an octile length"
    );
    assert!(
        trace
            .iter()
            .any(|e| e["agent"] == "walker" && e["event"] == "enter" && e["state"] == "Finish")
    );
}

#[test]
fn with_every_way_shut_goto_raises_no_path() {
    let trace = trace("tests/fixtures/nav-grid", "shut", 100);
    let blocked = paths(&trace, "walker")
        .into_iter()
        .find(|e| e["found"] == false)
        .expect("a walk with no path");
    assert!(
        blocked["cost"].is_null() && blocked["reroute"] == true,
        "{blocked}"
    );
    // The machine takes NoPath to its failure state: the agent fails.
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "fail" && e["machine"] == "Cross")
    );
}

#[test]
fn a_road_graph_with_coordinates_is_a_graph() {
    let trace = trace("tests/fixtures/nav-roads", "drive", 6000);
    let walks = paths(&trace, "van");
    // Weights are decimetres (cost_unit 0.1): the diagonal street costs 150 m.
    assert!(
        (walks[0]["cost"].as_f64().unwrap() - 150.0).abs() < 1e-6,
        "{}",
        walks[0]
    );
    assert_eq!(walks[0]["nodes"], 2);
    // Roadworks close the diagonal while the van is on it: it turns back and goes round.
    assert_eq!(walks[1]["reroute"], true);
    assert!(
        (walks[1]["cost"].as_f64().unwrap() - 200.0).abs() < 1e-6,
        "{}",
        walks[1]
    );
    assert!(
        trace
            .iter()
            .any(|e| e["agent"] == "van" && e["state"] == "Finish")
    );
}

/// `(code, line, column)` of every diagnostic about `file`.
fn diagnostics(project: &str) -> (i32, Vec<(String, String, u64, u64)>) {
    let out = ensemble(&["check", &repo_path(project), "--format", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).expect("one JSON document");
    let list = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    (out.code, list)
}

fn has(list: &[(String, String, u64, u64)], code: &str, file: &str, line: u64, column: u64) {
    assert!(
        list.iter()
            .any(|d| d.0 == code && d.1 == file && d.2 == line && d.3 == column),
        "no {code} at {file}:{line}:{column} in {list:#?}"
    );
}

#[test]
fn every_mistake_in_a_node_graph_is_reported_where_it_is_written() {
    let (code, list) = diagnostics("tests/fixtures/nav-broken");
    assert_eq!(code, 1);
    let nav = "hall.nav.ron";
    has(&list, "duplicate-name", nav, 5, 16);
    has(&list, "unknown-reference", nav, 11, 22); // "Coridor"
    has(&list, "unknown-reference", nav, 12, 22); // node #7
    has(&list, "invalid-value", nav, 13, 46); // cost -2
    has(&list, "invalid-value", nav, 14, 28); // cost NaN
    has(&list, "invalid-value", nav, 15, 9); // a node joined to itself
    has(&list, "unknown-reference", nav, 18, 37); // a door on an edge that does not exist
    has(&list, "invalid-value", nav, 19, 16); // a door blocking nothing
    has(&list, "location-off-graph", "places.locations.ron", 4, 16);
    has(&list, "unknown-reference", "walk.scene.ron", 5, 30); // door "FrontDor"
    has(&list, "invalid-value", "walk.scene.ron", 6, 18); // at: -1
    assert_eq!(list.len(), 11, "{list:#?}");
}

#[test]
fn map_problems_carry_the_maps_own_line_and_column() {
    let out = ensemble(&["check", &repo_path("tests/fixtures/nav-grid-broken")]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("error[nav-source]"), "{}", out.stderr);
    assert!(
        out.stderr.contains("yard.map:6:3: unknown terrain `x`"),
        "{}",
        out.stderr
    );
    let (_, list) = diagnostics("tests/fixtures/nav-grid-broken");
    has(&list, "nav-source", "yard.nav.ron", 2, 17);
}

#[test]
fn locations_must_stand_on_walkable_cells() {
    let (code, list) = diagnostics("tests/fixtures/nav-grid-off");
    assert_eq!(code, 1);
    has(&list, "location-off-graph", "yard.locations.ron", 3, 16); // on the wall
    has(&list, "location-off-graph", "yard.locations.ron", 4, 16); // off the map
    has(&list, "invalid-value", "yard.nav.ron", 3, 36); // a door on a blocked cell
    has(&list, "invalid-value", "yard.nav.ron", 3, 44); // a door off the map
    assert_eq!(list.len(), 4, "{list:#?}");
}

#[test]
fn locations_on_separate_parts_of_the_graph_are_a_warning() {
    let (code, list) = diagnostics("tests/fixtures/nav-islands");
    assert_eq!(code, 0, "a warning does not fail the check");
    has(
        &list,
        "disconnected-location",
        "places.locations.ron",
        5,
        16,
    );
    assert_eq!(list.len(), 1, "{list:#?}");
}

#[test]
fn a_built_program_carries_the_graph_and_runs_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_string_lossy().into_owned();
    let built = ensemble(&["build", &repo_path("samples/airport"), "-o", &out_dir]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    // No progress bar when stderr is not a terminal.
    assert!(
        !built.stderr.contains("distance tables"),
        "{}",
        built.stderr
    );
    let ensb = dir.path().join("airport.ensb");
    let program = ensemble_runtime::Program::load(&ensb).unwrap();
    assert!(program.nav.data.is_some());
    assert_eq!(program.nav.doors.len(), 1);
    let run = |path: &str| {
        let out = ensemble(&[
            "run",
            path,
            "--scene",
            "lane-closed",
            "--ticks",
            "1500",
            "--seed",
            "7",
            "--trace",
            "json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    assert_eq!(
        run(&ensb.to_string_lossy()),
        run(&repo_path("samples/airport"))
    );
    // A program whose navigation section is damaged is refused with a clear message.
    let mut bytes = std::fs::read(&ensb).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0x10;
    std::fs::write(&ensb, &bytes).unwrap();
    let out = ensemble(&["run", &ensb.to_string_lossy(), "--scene", "lane-closed"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("checksum mismatch"), "{}", out.stderr);
}

/// Compiles the project at `dir` into a program.
fn program_of(dir: &std::path::Path) -> std::sync::Arc<ensemble_runtime::Program> {
    let c = ensemble_compiler::compile_path(dir).unwrap();
    assert!(
        !c.diagnostics.has_errors(),
        "{}",
        c.diagnostics.render(&c.sources, false)
    );
    std::sync::Arc::new(c.output.unwrap().0)
}

#[test]
fn reloading_a_changed_graph_replans_walks_in_progress() {
    use ensemble_runtime::hsm::Scene;
    use ensemble_sim::{self as sim, SimWorld};
    // A copy of the grid fixture, so that its graph can change under a running scene.
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(&repo_path("tests/fixtures/nav-grid")).to_path_buf();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let program = program_of(dir.path());
    let scene_id = program.scene_by_name("cross").unwrap();
    let world = SimWorld::for_scene(&program, scene_id);
    let mut scene = Scene::new_traced(program.clone(), sim::library(), "cross", world, 7).unwrap();
    let mut external = Vec::new();
    for _ in 0..60 {
        scene.tick();
        let (p, now) = (scene.program().clone(), scene.now());
        scene.game.advance(&p, now, &mut external);
    }
    scene.take_events();
    // Wall off the top rows of the map: the walker, heading for the north gate, must re-plan.
    let map = std::fs::read_to_string(dir.path().join("yard.map")).unwrap();
    let walled = map.replacen(
        "....................\n.........@",
        "....................\n@@@@@@@@@@",
        1,
    );
    assert_ne!(map, walled);
    std::fs::write(dir.path().join("yard.map"), walled).unwrap();
    let changed = program_of(dir.path());
    assert_ne!(changed.nav.fingerprint, program.nav.fingerprint);
    scene.reload(changed.clone(), "yard.map changed").unwrap();
    for _ in 0..5 {
        scene.tick();
        let now = scene.now();
        scene.game.advance(&changed, now, &mut external);
    }
    // The doors kept their state across the reload, by name: south shut at 1 s, north opened.
    let nav = scene.game.nav.as_ref().unwrap();
    assert!(nav.is_closed(0) && !nav.is_closed(1));
    let events = scene.take_events();
    let replanned = events.iter().find_map(|e| match &e.kind {
        ensemble_runtime::trace::EventKind::Path {
            reroute: true,
            cost,
            ..
        } => Some(*cost),
        _ => None,
    });
    assert!(
        matches!(replanned, Some(Some(_))),
        "the walk was planned again on the new graph: {events:#?}"
    );
}
