//! Planning as authored content, end to end: `ensemble check` on the planning samples and on a
//! project with one mistake per file; the airport traveller (Fig. 2.3 and the gate change), the
//! dinner date (digest T1–T6) and the shop (T8–T10) run as scenes with golden traces; a built
//! program plans like its project; a plan in progress across a hot reload.

use ensemble_compiler::plan::fixtures::FIG_2_3;
use ensemble_runtime::hsm::Scene;
use ensemble_runtime::plan::heuristic::{Heuristic, evaluate};
use ensemble_runtime::plan::{Task, validate};
use ensemble_sim::{self as sim, SimWorld};
use ensemble_tests::{assert_golden, ensemble, json_lines, repo_path, root};
use serde_json::Value;
use std::sync::Arc;

fn run(project: &str, scene: &str, ticks: &str) -> String {
    let o = ensemble(&[
        "run",
        &repo_path(project),
        "--scene",
        scene,
        "--ticks",
        ticks,
        "--seed",
        "7",
        "--trace",
        "json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.stdout
}

fn of_kind<'a>(trace: &'a [Value], kind: &str) -> Vec<&'a Value> {
    trace.iter().filter(|e| e["event"] == kind).collect()
}

/// Whether some event of `kind` has `field` equal to `value`.
fn has(trace: &[Value], kind: &str, field: &str, value: &str) -> bool {
    trace
        .iter()
        .any(|e| e["event"] == kind && e[field] == value)
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

#[test]
fn the_planning_samples_check_clean() {
    for p in [
        "samples/airport",
        "samples/dinner-date",
        "samples/weapon-shop",
    ] {
        let o = ensemble(&["check", &repo_path(p), "--format", "json"]);
        assert_eq!(o.code, 0, "{p}: {}", o.stdout);
        let j: Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(j["summary"]["errors"], 0, "{p}: {j}");
        assert_eq!(j["summary"]["warnings"], 0, "{p}: {j}");
    }
}

#[test]
fn the_traveller_plans_fig_2_3_finds_the_gate_changed_and_replans() {
    let out = run("samples/airport", "traveller", "1500");
    assert_golden("airport-traveller-seed7.jsonl", &out);
    let trace = json_lines(&out);
    let plans = of_kind(&trace, "plan");
    assert_eq!(plans.len(), 1);
    assert_eq!(names(&plans[0]["actions"]), FIG_2_3);
    assert_eq!(plans[0]["problem"], "CatchFlight");
    assert_eq!(plans[0]["planner"], "graph");
    // The world event happens when she reaches the gate; she finds out when waiting fails.
    let changed = trace
        .iter()
        .position(|e| e["event"] == "add" && e["fact"] == "Location=WrongGate")
        .expect("the gate changes");
    assert_eq!(trace[changed]["world"], "GateChanged");
    let failed = trace
        .iter()
        .position(|e| e["event"] == "fail" && e["action"] == "Wait_At_Gate")
        .expect("waiting at the wrong gate fails");
    assert!(failed > changed);
    let replans = of_kind(&trace, "replan");
    assert_eq!(replans.len(), 1);
    assert_eq!(
        names(&replans[0]["actions"]),
        [
            "Check_Gate",
            "Go_To_Correct_Gate",
            "Wait_At_Gate",
            "Get_On_Plane"
        ]
    );
    assert!(
        replans[0]["reason"]
            .as_str()
            .unwrap()
            .contains("Location=WrongGate now holds"),
        "{}",
        replans[0]
    );
    // Every action is performed by its machine, as a child of the Plan state.
    let done: Vec<&str> = of_kind(&trace, "done")
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(done.len(), 7 + 4);
    assert_eq!(done.last(), Some(&"Get_On_Plane"));
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "enter" && e["machine"] == "CheckGate" && e["depth"] == 1)
    );
    let last = trace.last().unwrap();
    assert_eq!(
        (&last["machine"], &last["state"]),
        (&"Traveller".into(), &"Finish".into())
    );
}

#[test]
fn t9_the_shop_npc_repairs_its_plan_when_the_player_opens_the_door() {
    let out = run("samples/weapon-shop", "shop", "300");
    assert_golden("weapon-shop-shop-seed7.jsonl", &out);
    let trace = json_lines(&out);
    let plan = of_kind(&trace, "plan");
    assert_eq!(
        names(&plan[0]["actions"]),
        [
            "Approach(npc)",
            "Open(npc, shopdoor)",
            "WalkIn(npc, shopdoor)",
            "Buy(npc, sword)"
        ]
    );
    assert_eq!(plan[0]["planner"], "pop");
    let replan = of_kind(&trace, "replan");
    assert_eq!(replan.len(), 1);
    assert_eq!(
        names(&replan[0]["actions"]),
        ["Approach(npc)", "WalkIn(npc, shopdoor)", "Buy(npc, sword)"]
    );
    assert!(replan[0]["reason"].as_str().unwrap().contains(
        "Open(player, shopdoor) happened; the plan was repaired (D-POP): Open(npc, shopdoor) no longer needed"
    ));
    // Over-consistency first: the NPC does not close the door to open it itself.
    assert!(
        !trace
            .iter()
            .any(|e| e["event"] == "act" && e["action"].as_str().unwrap().starts_with("Close"))
    );
    assert!(has(&trace, "done", "action", "Buy(npc, sword)"));
}

#[test]
fn t10_the_repair_fails_when_the_player_buys_the_last_sword() {
    let out = run("samples/weapon-shop", "shop-sold-out", "300");
    assert_golden("weapon-shop-sold-out-seed7.jsonl", &out);
    let trace = json_lines(&out);
    let replans = of_kind(&trace, "replan");
    let last = replans.last().unwrap();
    assert!(names(&last["actions"]).is_empty());
    assert!(
        last["reason"]
            .as_str()
            .unwrap()
            .contains("Buy(player, sword) happened; the plan cannot be repaired"),
        "{last}"
    );
    assert!(has(&trace, "enter", "state", "Disappointed"));
    assert!(!has(&trace, "done", "action", "Buy(npc, sword)"));
}

#[test]
fn the_dinner_date_scenes_plan_with_astar_and_with_minmin() {
    let out = run("samples/dinner-date", "date", "300");
    assert_golden("dinner-date-date-seed7.jsonl", &out);
    let trace = json_lines(&out);
    assert_eq!(names(&of_kind(&trace, "plan")[0]["actions"]).len(), 3);
    assert!(of_kind(&trace, "replan").is_empty());
    // T6: MinMin plans again after every action; the cat unwraps the present after wrap, and
    // the next plan wraps it again.
    let out = run("samples/dinner-date", "funny-evening", "800");
    assert_golden("dinner-date-funny-evening-seed7.jsonl", &out);
    let trace = json_lines(&out);
    let plan = names(&of_kind(&trace, "plan")[0]["actions"]);
    assert_eq!(plan.len(), 6);
    assert_eq!(plan[0], "wrap");
    let wraps = of_kind(&trace, "done")
        .iter()
        .filter(|e| e["action"] == "wrap")
        .count();
    assert_eq!(wraps, 2);
    let replans = of_kind(&trace, "replan");
    let noticed = replans
        .iter()
        .find(|e| {
            e["reason"]
                .as_str()
                .unwrap()
                .contains("present no longer holds")
        })
        .expect("the host notices the unwrapped present");
    assert_eq!(names(&noticed["actions"])[0], "wrap");
    assert!(replans.len() >= 6);
}

#[test]
fn every_trace_line_of_a_planning_scene_keeps_the_contract() {
    for (project, scene) in [
        ("samples/airport", "traveller"),
        ("samples/weapon-shop", "shop-sold-out"),
    ] {
        for e in json_lines(&run(project, scene, "1500")) {
            assert!(e["tick"].is_u64() && e["time"].is_number(), "{e}");
            match e["event"].as_str().unwrap() {
                "plan" | "replan" => {
                    assert!(e["actions"].is_array() && e["problem"].is_string(), "{e}")
                }
                "act" | "done" | "fail" => assert!(e["action"].is_string(), "{e}"),
                "add" | "del" => assert!(e["fact"].is_string() && e["world"].is_string(), "{e}"),
                "enter" | "exit" | "say" => {}
                // The airport has a navigation graph: the traveller's walks follow it.
                "path" => assert!(e["to"].is_string() && e["found"].is_boolean(), "{e}"),
                other => panic!("unexpected event {other}: {e}"),
            }
        }
    }
}

#[test]
fn a_built_program_plans_exactly_like_its_project() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let o = ensemble(&["build", &repo_path("samples/weapon-shop"), "-o", &out]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let ensb = dir.path().join("weapon-shop.ensb");
    let o = ensemble(&[
        "run",
        ensb.to_str().unwrap(),
        "--scene",
        "shop-sold-out",
        "--ticks",
        "300",
        "--seed",
        "7",
        "--trace",
        "json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, run("samples/weapon-shop", "shop-sold-out", "300"));
}

/// `(code, file, line)` of every diagnostic.
fn located(doc: &Value) -> Vec<(String, String, u64)> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn every_planning_mistake_is_reported_at_its_place() {
    let o = ensemble(&[
        "check",
        &repo_path("tests/fixtures/plan-broken"),
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    let found = located(&doc);
    let expect = [
        ("state-limit-exceeded", "grid.actionlist.ron", 19),
        ("never-produced", "gate.actionlist.ron", 11),
        ("unexecutable-rule", "gate.actionlist.ron", 11),
        ("unreachable-goal", "gate.actionlist.ron", 14),
        ("unreachable-goal", "both-places.problem.ron", 7),
        ("unreachable-goal", "no-road.problem.ron", 7),
        ("arity-mismatch", "broken.domain.ron", 6),
        ("uninstantiated-variable", "broken.domain.ron", 6),
        ("unknown-reference", "broken.domain.ron", 7),
        ("unknown-reference", "no-road.problem.ron", 8),
        ("unknown-reference", "errand.problem.ron", 9),
        ("unknown-reference", "machines/Planner.machine.ron", 7),
        ("recursive-machine", "machines/Planner.machine.ron", 8),
        ("unknown-reference", "town.scene.ron", 6),
        ("unknown-reference", "town.scene.ron", 7),
        ("unknown-reference", "town.scene.ron", 8),
        ("invalid-value", "town.scene.ron", 9),
        ("duplicate-name", "town.scene.ron", 10),
    ];
    for (code, file, line) in expect {
        assert!(
            found
                .iter()
                .any(|(c, f, l)| c == code && f == file && *l == line),
            "missing {code} at {file}:{line} in {found:#?}"
        );
    }
    // The explosion report blames the unbounded variables, not the busy polarity switch.
    let report = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "state-limit-exceeded")
        .unwrap();
    let msg = report["message"].as_str().unwrap();
    assert!(
        msg.contains("`Y` is unbounded") && msg.contains("`X` is unbounded"),
        "{msg}"
    );
    assert!(
        msg.contains("Travel_North") && !msg.contains("new values come from Switch"),
        "{msg}"
    );
    assert_eq!(report["related"].as_array().unwrap().len(), 2);
    // Human form: snippets and a summary.
    let o = ensemble(&["check", &repo_path("tests/fixtures/plan-broken")]);
    assert!(
        o.stderr.contains("error[state-limit-exceeded]"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("= in problem `NoRoad`"), "{}", o.stderr);
}

#[test]
fn a_single_pddl_file_is_checked_against_the_domain_beside_it() {
    let o = ensemble(&[
        "check",
        &repo_path("samples/dinner-date/pddl/date-tonight.pddl"),
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("date.pddl");
    std::fs::copy(
        root().join("samples/dinner-date/pddl/date-tonight.pddl"),
        &lone,
    )
    .unwrap();
    let o = ensemble(&["check", lone.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.code, 0);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        located(&doc),
        [("unknown-reference".into(), "date.pddl".into(), 2)]
    );
    assert_eq!(doc["diagnostics"][0]["severity"], "warning");
    // With a broken domain beside it, the domain's error is reported with its own file.
    std::fs::write(
        dir.path().join("domain.pddl"),
        "(define (domain dinner-date-pddl)\n (:predicates (dinner))\n (:action cook :parameters () :precondition (hands) :effect (dinner)))\n",
    )
    .unwrap();
    let o = ensemble(&["check", lone.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.code, 1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        located(&doc).contains(&("unknown-reference".into(), "domain.pddl".into(), 3)),
        "{doc}"
    );
    // Unsupported PDDL in a project file is refused with the construct and its line.
    std::fs::write(
        dir.path().join("domain.pddl"),
        "(define (domain dinner-date-pddl)\n (:requirements :strips :conditional-effects)\n (:predicates (dinner)))\n",
    )
    .unwrap();
    let o = ensemble(&["check", lone.to_str().unwrap(), "--format", "json"]);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        located(&doc).contains(&("unsupported-feature".into(), "domain.pddl".into(), 2)),
        "{doc}"
    );
}

/// The grounded task of a sample's problem, as the compiler lowers it.
fn sample_task(project: &str, problem: &str) -> Task {
    let c = ensemble_compiler::compile_path(&root().join(project)).unwrap();
    assert!(!c.diagnostics.has_errors());
    c.module
        .problems
        .iter()
        .find(|(_, p)| p.name.text == problem)
        .map(|(_, p)| p.task.clone())
        .unwrap()
}

#[test]
fn t1_t2_the_dinner_date_sample_has_six_optimal_plans_and_the_digests_heuristics() {
    let t = sample_task("samples/dinner-date", "DinnerDate");
    let s0 = t.initial_state();
    let n = t.operators.len() as u32;
    let mut optimal = Vec::new();
    for a in 0..n {
        for b in 0..n {
            assert!(validate(&t, &s0, &[a, b]).is_err(), "a two-step plan");
            for c in 0..n {
                if validate(&t, &s0, &[a, b, c]).is_ok() {
                    optimal.push(t.plan_names(&[a, b, c]).join("·"));
                }
            }
        }
    }
    optimal.sort();
    assert_eq!(
        optimal,
        [
            "cook·carry·wrap",
            "cook·wrap·carry",
            "cook·wrap·dolly",
            "wrap·cook·carry",
            "wrap·cook·dolly",
            "wrap·dolly·cook"
        ]
    );
    assert_eq!(evaluate(&t, &s0, Heuristic::Add), Some(3));
    assert_eq!(evaluate(&t, &s0, Heuristic::Max), Some(1));
    let funny = sample_task("samples/dinner-date", "FunnyEvening");
    let f0 = funny.initial_state();
    assert_eq!(evaluate(&funny, &f0, Heuristic::Add), Some(6));
    assert_eq!(evaluate(&funny, &f0, Heuristic::Max), Some(2));
    // What the sample's comment says of the start: carry adds something new (garbOut), relax
    // does not apply yet, washHands adds nothing new.
    let op = |name: &str| funny.op(funny.op_id(name).unwrap());
    let adds_new = |name: &str| op(name).add.iter().any(|&f| !f0.contains(f));
    assert!(op("carry").is_applicable(&f0) && adds_new("carry"));
    assert!(!op("relax").is_applicable(&f0));
    assert!(op("washHands").is_applicable(&f0) && !adds_new("washHands"));
    // The PDDL copy in the same project is the same task.
    let pddl = sample_task("samples/dinner-date", "date-tonight");
    assert_eq!(pddl.operators.len(), t.operators.len());
}

#[test]
fn an_action_list_that_asks_for_the_graph_plans_on_it_from_the_command_line() {
    let list = repo_path("samples/airport/traveller/traveller.actionlist.ron");
    let j = plan_json(&[&list]);
    assert_eq!(j["search"], "graph", "{j}");
    assert_eq!(names(&j["plan"]), FIG_2_3);
    // An explicit --search still wins; the graph cannot be asked for on a PDDL task.
    assert_eq!(plan_json(&[&list, "--search", "astar"])["search"], "astar");
    let o = ensemble(&[
        "plan",
        &repo_path("samples/dinner-date/pddl/dinner-date.pddl"),
        &repo_path("samples/dinner-date/pddl/date-tonight.pddl"),
        "--search",
        "graph",
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("search: Graph"), "{}", o.stderr);
}

#[test]
fn a_search_over_its_memory_limit_ends_with_a_clean_error() {
    // 20 switches: about a million states, far more than 1 MiB holds.
    let dir = tempfile::tempdir().unwrap();
    let switches: Vec<String> = (0..20).map(|i| format!("s{i}")).collect();
    let domain = "(define (domain switches) (:requirements :strips)
        (:predicates (on ?x) (off ?x))
        (:action flip :parameters (?x) :precondition (off ?x)
            :effect (and (on ?x) (not (off ?x))))
        (:action unflip :parameters (?x) :precondition (on ?x)
            :effect (and (off ?x) (not (on ?x)))))";
    let problem = format!(
        "(define (problem all-on) (:domain switches) (:objects {}) (:init {}) (:goal (and {})))",
        switches.join(" "),
        switches
            .iter()
            .map(|s| format!("(off {s})"))
            .collect::<Vec<_>>()
            .join(" "),
        switches
            .iter()
            .map(|s| format!("(on {s})"))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let (d, p) = (
        dir.path().join("domain.pddl"),
        dir.path().join("all-on.pddl"),
    );
    std::fs::write(&d, domain).unwrap();
    std::fs::write(&p, problem).unwrap();
    let (d, p) = (d.to_string_lossy(), p.to_string_lossy());
    let o = ensemble(&[
        "plan",
        &d,
        &p,
        "--search",
        "astar",
        "--heuristic",
        "blind",
        "--memory-limit",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let j: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        j["error"],
        "search stopped by the memory limit without a plan"
    );
    assert!(j["stored"].as_u64().unwrap() > 1000, "{j}");
    // Search time and grounding time are reported apart (the benchmarks compare search alone).
    assert!(j["millis"].as_f64().unwrap() > 0.0, "{j}");
    assert!(j["ground_millis"].as_f64().unwrap() > 0.0, "{j}");
    assert!(o.stderr.contains("memory limit"), "{}", o.stderr);
}

fn plan_json(args: &[&str]) -> Value {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let o = ensemble(&all);
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap()
}

/// The greedy search says how long it improves its first plan, and `--time-limit` replaces that
/// default with the whole budget.
#[test]
fn the_greedy_search_prints_its_default_improvement_budget() {
    let (d, p) = (
        repo_path("samples/dinner-date/dinner-date.domain.ron"),
        repo_path("samples/dinner-date/dinner-date.problem.ron"),
    );
    let o = ensemble(&["plan", &d, &p, "--search", "gbfs"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("the greedy search improves its first plan for at most 5 s (--time-limit sets the whole budget)"),
        "{}",
        o.stderr
    );
    let json = plan_json(&[&d, &p, "--search", "gbfs"]);
    assert_eq!(json["improvement_seconds"], 5.0);
    let o = ensemble(&["plan", &d, &p, "--search", "gbfs", "--time-limit", "30"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        !o.stderr.contains("improves its first plan"),
        "{}",
        o.stderr
    );
    let json = plan_json(&[&d, &p, "--search", "gbfs", "--time-limit", "30"]);
    assert!(json["improvement_seconds"].is_null());
    // A* does not improve: it says nothing of it.
    let json = plan_json(&[&d, &p]);
    assert!(json["improvement_seconds"].is_null());
}

#[test]
fn t1_t4_t5_the_dinner_dates_through_ensemble_plan() {
    let (d, p) = (
        repo_path("samples/dinner-date/dinner-date.domain.ron"),
        repo_path("samples/dinner-date/dinner-date.problem.ron"),
    );
    for search in ["astar", "gbfs", "minmin", "pop"] {
        let j = plan_json(&[&d, &p, "--search", search]);
        assert_eq!(j["valid"], true, "{search}");
        if search != "gbfs" {
            assert_eq!(j["length"], 3, "{search}: {j}");
        }
    }
    let pddl = plan_json(&[
        &repo_path("samples/dinner-date/pddl/dinner-date.pddl"),
        &repo_path("samples/dinner-date/pddl/date-tonight.pddl"),
    ]);
    assert_eq!(pddl["length"], 3);
    let (d, p) = (
        repo_path("samples/dinner-date/funny-dinner-date.domain.ron"),
        repo_path("samples/dinner-date/funny-dinner-date.problem.ron"),
    );
    let lmcut = plan_json(&[&d, &p, "--search", "astar"]);
    assert_eq!(lmcut["length"], 6);
    assert_eq!(lmcut["heuristic"], "lmcut", "A* uses LM-cut by default");
    let hmax = plan_json(&[&d, &p, "--search", "astar", "--heuristic", "hmax"]);
    assert_eq!(hmax["length"], 6);
    assert_eq!(hmax["heuristic"], "hmax");
    assert!(
        lmcut["expanded"].as_u64() <= hmax["expanded"].as_u64(),
        "LM-cut is better informed: {lmcut} vs {hmax}"
    );
    // MinMin with d = 10 and H = 3, 4, with and without the second bound: always length 6,
    // the first action wrap, and 2-B saves nodes (Lozano et al., Table 1).
    for h in ["3", "4"] {
        let args = [
            &d,
            &p,
            "--search",
            "minmin",
            "--horizon",
            h,
            "--depth-bound",
            "10",
        ];
        let with = plan_json(&args);
        let without = plan_json(&[&args[..], &["--no-second-bound"]].concat());
        for j in [&with, &without] {
            assert_eq!(j["length"], 6, "H={h}: {j}");
            assert_eq!(j["plan"][0], "wrap");
        }
        assert!(
            with["expanded"].as_u64() < without["expanded"].as_u64(),
            "H={h}: {with} vs {without}"
        );
    }
}

/// Runs a scene of a compiled project in-process; returns it after `ticks`.
fn scene_of(dir: &std::path::Path, scene: &str, ticks: u64) -> Scene<SimWorld> {
    let c = ensemble_compiler::compile_path(dir).unwrap();
    let (program, _) = c.output.expect("the project compiles");
    let program = Arc::new(program);
    let id = program.scene_by_name(scene).unwrap();
    let mut s = Scene::new_traced(
        program.clone(),
        sim::library(),
        scene,
        SimWorld::for_scene(&program, id),
        7,
    )
    .unwrap();
    for _ in 0..ticks {
        step(&mut s);
    }
    s
}

fn step(s: &mut Scene<SimWorld>) {
    s.tick();
    ensemble_runtime::stdlib::fire_world_events(s);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A copy of a sample project to change (the directory lives as long as the guard).
fn sample_copy(sample: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(sample);
    copy_dir(&root().join("samples").join(sample), &project);
    (dir, project)
}

/// Replaces `from` (which must be there) by `to` in a file of `project`.
fn edit(project: &std::path::Path, file: &str, from: &str, to: &str) {
    let path = project.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file}: {from}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// Checks `project` (no errors), then runs `scene`; returns the trace.
fn check_and_run(project: &std::path::Path, scene: &str, ticks: &str) -> Vec<Value> {
    let path = project.to_str().unwrap();
    let o = ensemble(&["check", path]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = ensemble(&[
        "run", path, "--scene", scene, "--ticks", ticks, "--trace", "json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    json_lines(&o.stdout)
}

#[test]
fn a_plan_in_progress_survives_a_reload_by_action_names_or_replans() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("dinner-date");
    copy_dir(&root().join("samples/dinner-date"), &project);
    // Mid-plan: cook is done, carry is under way.
    let mut s = scene_of(&project, "date", 80);
    s.take_events();
    let recompile = || {
        let c = ensemble_compiler::compile_path(&project).unwrap();
        Arc::new(c.output.expect("still compiles").0)
    };
    // Unchanged sources: everything carries over, nothing to report.
    let same = recompile();
    let r = s.reload(same.clone(), "same").unwrap();
    assert!(r.fallbacks.is_empty(), "{:?}", r.fallbacks);
    // Rename the remaining action: the plan cannot carry over; the host plans again from what
    // it believes, and the reload report says why.
    let path = project.join("dinner-date.domain.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("name: \"wrap\"", "name: \"giftWrap\"")).unwrap();
    let renamed = recompile();
    let r = s.reload(renamed.clone(), "renamed").unwrap();
    assert!(
        r.fallbacks
            .iter()
            .any(|f| f.contains("action wrap no longer exists; planned again")),
        "{:?}",
        r.fallbacks
    );
    s.game
        .standard
        .planning
        .reload(&same, &renamed, renamed.scene_by_name("date"));
    for _ in 0..300 {
        step(&mut s);
    }
    let ev: Vec<String> = s.take_events().iter().map(|e| e.to_json()).collect();
    let trace = json_lines(&ev.join("\n"));
    let replan = of_kind(&trace, "replan")[0];
    assert!(
        replan["reason"]
            .as_str()
            .unwrap()
            .starts_with("reloaded: action wrap no longer exists")
    );
    assert!(names(&replan["actions"]).contains(&"giftWrap"));
    assert!(has(&trace, "done", "action", "giftWrap"));
    assert_eq!(
        s.status(ensemble_runtime::hsm::AgentId(0)),
        &ensemble_runtime::hsm::AgentStatus::Finished
    );
}

#[test]
fn ensemble_plan_and_the_project_agree_on_the_shop() {
    // The same files through `ensemble plan` (no machines) and the project (with machines).
    let j = plan_json(&[
        &repo_path("samples/weapon-shop/shop.domain.ron"),
        &repo_path("samples/weapon-shop/buy-sword.problem.ron"),
        "--search",
        "pop",
    ]);
    assert_eq!(j["length"], 4);
    assert_eq!(j["operators"], 5, "only the NPC's own actions: {j}");
}

#[test]
fn a_world_event_may_test_a_fact_that_no_action_changes() {
    // `sells(sword)` is static (no action changes it): the event's `when` must still find it
    // as a fact of the problem, with its truth from the initial state.
    let (_dir, project) = sample_copy("weapon-shop");
    let domain = "shop.domain.ron";
    edit(
        &project,
        domain,
        "\"has(agent, item)\"]",
        "\"has(agent, item)\", \"sells(item)\"]",
    );
    edit(
        &project,
        domain,
        "inStock(I)\"], add",
        "inStock(I), sells(I)\"], add",
    );
    edit(
        &project,
        "buy-sword.problem.ron",
        "\"inStock(sword)\"]",
        "\"inStock(sword)\", \"sells(sword)\"]",
    );
    edit(
        &project,
        "shop.scene.ron",
        "perform: \"Open(player, shopdoor)\",",
        "perform: \"Open(player, shopdoor)\", when: [\"sells(sword)\"],",
    );
    let trace = check_and_run(&project, "shop", "300");
    assert!(
        has(&trace, "add", "world", "PlayerOpensTheDoor"),
        "{trace:#?}"
    );
}

#[test]
fn a_world_event_on_an_action_list_names_values_as_the_action_list_does() {
    // A number names an enumerated variable's value by its index (docs/formats/planning.md),
    // in world events as in the action list; a wrong value is one mistake, reported once.
    let (_dir, project) = sample_copy("airport");
    let scene = "traveller/traveller.scene.ron";
    let original = r#"when: ["Location = Gate"], set: ["Location = WrongGate", "Know = 0"]"#;
    let numbered = r#"when: ["Location = 0"], set: ["Location = 5", "Know = 0"]"#;
    edit(&project, scene, original, numbered);
    let trace = check_and_run(&project, "traveller", "1500");
    assert!(
        has(&trace, "add", "fact", "Location=WrongGate"),
        "{trace:#?}"
    );
    let wrong = r#"when: ["Location = Gate"], set: ["Location = Nowhere", "Know = 0"]"#;
    edit(&project, scene, numbered, wrong);
    let o = ensemble(&["check", project.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.code, 1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        located(&doc),
        [("invalid-value".into(), scene.into(), 12)],
        "{doc}"
    );
}

#[test]
fn ensemble_plan_says_why_minmin_stopped_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let (d, p) = (
        dir.path().join("u.domain.ron"),
        dir.path().join("u.problem.ron"),
    );
    std::fs::write(
        &d,
        r#"Domain(name: "u", predicates: ["a", "b"], actions: [
            (name: "ab", pre: ["a"], add: ["b"], del: ["a"]),
            (name: "ba", pre: ["b"], add: ["a"], del: ["b"]),
        ])"#,
    )
    .unwrap();
    std::fs::write(
        &p,
        r#"Problem(name: "U", domain: "u", init: ["a"], goal: ["a, b"])"#,
    )
    .unwrap();
    let o = ensemble(&[
        "plan",
        d.to_str().unwrap(),
        p.to_str().unwrap(),
        "--search",
        "minmin",
    ]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains(
            "error: minmin stopped by the depth bound, node budget or step limit without a plan"
        ),
        "{}",
        o.stderr
    );
    // The goals can never hold together: A* proves it, and the check says why.
    let o = ensemble(&["plan", d.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("mutually exclusive"), "{}", o.stderr);
}

#[test]
fn a_reload_that_renames_the_running_scene_keeps_planning_without_its_events() {
    // The scene's world events are gone with its name; the traveller's world (by problem and
    // fact names) carries over and she goes on planning.
    let (_dir, project) = sample_copy("airport");
    let compile = || {
        let c = ensemble_compiler::compile_path(&project).unwrap();
        Arc::new(c.output.expect("the project compiles").0)
    };
    let program = compile();
    let id = program.scene_by_name("traveller").unwrap();
    let mut s = Scene::new_traced(
        program.clone(),
        sim::library(),
        "traveller",
        SimWorld::for_scene(&program, id),
        7,
    )
    .unwrap();
    let mut interactions = sim::Interactions::new(&program, id, 7);
    let run = |s: &mut Scene<SimWorld>, interactions: &mut sim::Interactions, ticks| {
        for _ in 0..ticks {
            s.tick();
            interactions.advance(s);
            ensemble_runtime::stdlib::fire_world_events(s);
        }
    };
    run(&mut s, &mut interactions, 50);
    let scene = project.join("traveller/traveller.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    let start = text.find("    events: [").unwrap();
    let end = text[start..].find("    ],\n").unwrap() + start + "    ],\n".len();
    let renamed = format!("{}{}", &text[..start], &text[end..])
        .replace("name: \"traveller\"", "name: \"traveller-renamed\"");
    std::fs::write(&scene, renamed).unwrap();
    // The sample's content tests name the scene by its old name: they would (rightly) stop
    // the project compiling.
    std::fs::remove_file(project.join("traveller/traveller.test.ron")).unwrap();
    let p2 = compile();
    assert!(p2.planning.events.is_empty());
    interactions.reload(&mut s, p2, "renamed").unwrap();
    run(&mut s, &mut interactions, 2000);
    let ev: Vec<String> = s.take_events().iter().map(|e| e.to_json()).collect();
    let trace = json_lines(&ev.join("\n"));
    // No gate change any more: she boards at the gate she was told.
    assert!(has(&trace, "done", "action", "Get_On_Plane"), "{trace:#?}");
    assert!(!has(&trace, "add", "fact", "Location=WrongGate"));
}

#[test]
fn a_problem_with_errors_is_not_also_called_undefined_where_it_is_used() {
    // One mistake in the problem (a goal that can never be reached): the Plan state naming it
    // must not get a second error saying that the problem does not exist.
    let (_dir, project) = sample_copy("weapon-shop");
    edit(
        &project,
        "buy-sword.problem.ron",
        "\"inStock(sword)\"]",
        "]",
    );
    let o = ensemble(&["check", project.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.code, 1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    let errors: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{doc}");
    assert_eq!(
        (&errors[0]["code"], &errors[0]["file"]),
        (&"unreachable-goal".into(), &"buy-sword.problem.ron".into())
    );
}

#[test]
fn a_world_event_for_an_agent_a_reload_added_waits_for_a_restart() {
    // Agents added to a scene appear on restart; until then an event about one has nobody
    // to happen to, and must neither panic nor change someone else's world.
    let (_dir, project) = sample_copy("airport");
    let compile = || {
        let c = ensemble_compiler::compile_path(&project).unwrap();
        Arc::new(c.output.expect("the project compiles").0)
    };
    let program = compile();
    let id = program.scene_by_name("traveller").unwrap();
    let mut s = Scene::new_traced(
        program.clone(),
        sim::library(),
        "traveller",
        SimWorld::for_scene(&program, id),
        7,
    )
    .unwrap();
    let mut interactions = sim::Interactions::new(&program, id, 7);
    edit(
        &project,
        "traveller/traveller.scene.ron",
        r#"(name: "traveller", machine: "Traveller", at: "TerminalEntrance"),"#,
        r#"(name: "companion", machine: "Traveller", at: "TerminalEntrance"),
        (name: "traveller", machine: "Traveller", at: "TerminalEntrance"),"#,
    );
    edit(
        &project,
        "traveller/traveller.scene.ron",
        r#"World(name: "GateChanged", problem: "CatchFlight","#,
        r#"World(name: "CompanionLost", problem: "CatchFlight", agent: "companion", set: ["Location = WrongGate"]),
        World(name: "GateChanged", problem: "CatchFlight", agent: "traveller","#,
    );
    let p2 = compile();
    interactions.reload(&mut s, p2, "a companion").unwrap();
    for _ in 0..1500 {
        s.tick();
        interactions.advance(&mut s);
        ensemble_runtime::stdlib::fire_world_events(&mut s);
    }
    let ev: Vec<String> = s.take_events().iter().map(|e| e.to_json()).collect();
    let trace = json_lines(&ev.join("\n"));
    assert!(!has(&trace, "add", "world", "CompanionLost"), "{trace:#?}");
    // The traveller's own event still happens to her.
    let changed = trace
        .iter()
        .find(|e| e["event"] == "add" && e["world"] == "GateChanged")
        .expect("the gate changes");
    assert_eq!(changed["agent"], "traveller");
    assert!(has(&trace, "done", "action", "Get_On_Plane"));
}
