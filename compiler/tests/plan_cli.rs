//! End-to-end tests of `ensemble plan`: the DESIGN.md contract (JSON shape, exit codes 0/1/3),
//! the seeds' fixtures, refusal of unsupported PDDL, located diagnostics for bad input, and
//! independent validation of every plan on the IPC tasks (vendored in `tests/data/ipc`).

use ensemble_compiler::cli;
use ensemble_compiler::diag::Diagnostics;
use ensemble_compiler::front::pddl;
use ensemble_compiler::source::SourceMap;
use ensemble_runtime::plan::validate::validate_names;
use std::path::{Path, PathBuf};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ensemble(args: &[&str]) -> Out {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = {
        let mut io = cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        cli::run(
            std::iter::once("ensemble").chain(args.iter().copied()),
            &mut io,
        )
    };
    Out {
        code,
        stdout: String::from_utf8(out).unwrap(),
        stderr: String::from_utf8(err).unwrap(),
    }
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/plan")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The IPC tasks, vendored in `tests/data/ipc` (its README says where they come from).
fn ipc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ipc")
}

/// The IPC task folders, sorted.
fn ipc_domains() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(ipc())
        .expect("the IPC tasks can be listed")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("domain.pddl").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 8,
        "expected the eight IPC domains, found {dirs:?}"
    );
    dirs
}

fn json(o: &Out) -> serde_json::Value {
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {} {}", o.stdout, o.stderr))
}

/// Re-validates a printed plan against an independently grounded task.
fn revalidate(domain: &Path, problem: &Path, plan: &serde_json::Value) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let g = pddl::ground_files(&mut sources, domain, problem, &mut diags)
        .unwrap()
        .unwrap();
    let names: Vec<&str> = plan
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    if let Err(e) = validate_names(&g.task, &g.task.initial_state(), &names) {
        panic!("{}: {}", problem.display(), e.describe(&g.task));
    }
}

fn plan_len(domain: &str, problem: &str, search: &str) -> (i32, serde_json::Value) {
    let o = ensemble(&[
        "plan", domain, problem, "--search", search, "--format", "json",
    ]);
    (o.code, json(&o))
}

#[test]
fn json_contract_on_the_dinner_date() {
    let (d, p) = (
        data("dinner-date-domain.pddl"),
        data("dinner-date-problem.pddl"),
    );
    let (code, j) = plan_len(&d, &p, "astar");
    assert_eq!(code, 0);
    assert_eq!(j["length"], 3);
    assert_eq!(j["valid"], true);
    assert!(j["expanded"].as_u64().is_some() && j["millis"].as_f64().is_some());
    assert_eq!(j["plan"].as_array().unwrap().len(), 3);
    for s in ["gbfs", "minmin", "pop"] {
        let (code, j) = plan_len(&d, &p, s);
        assert_eq!(code, 0, "{s}");
        assert_eq!(j["valid"], true, "{s}");
        revalidate(Path::new(&d), Path::new(&p), &j["plan"]);
    }
    // MinMin and POP find minimal plans here.
    assert_eq!(plan_len(&d, &p, "minmin").1["length"], 3);
    assert_eq!(plan_len(&d, &p, "pop").1["length"], 3);
}

#[test]
fn funny_dinner_date_is_six_steps_for_astar_and_minmin() {
    let (d, p) = (
        data("funny-dinner-date-domain.pddl"),
        data("funny-dinner-date-problem.pddl"),
    );
    assert_eq!(plan_len(&d, &p, "astar").1["length"], 6);
    assert_eq!(plan_len(&d, &p, "minmin").1["length"], 6);
    let (code, j) = plan_len(&d, &p, "pop");
    assert_eq!(code, 0);
    revalidate(Path::new(&d), Path::new(&p), &j["plan"]);
}

#[test]
fn shop_plan_with_negative_preconditions() {
    let (d, p) = (data("shop-domain.pddl"), data("shop-problem.pddl"));
    for s in ["astar", "pop"] {
        let (code, j) = plan_len(&d, &p, s);
        assert_eq!(code, 0);
        assert_eq!(
            j["plan"],
            serde_json::json!(["(open npc)", "(walk-in npc)", "(buy npc)"])
        );
    }
}

#[test]
fn proven_unsolvable_exits_3() {
    let d = data("shop-domain.pddl");
    // Relaxed-unreachable goal.
    for s in ["astar", "gbfs", "minmin", "pop"] {
        let o = ensemble(&["plan", &d, &data("shop-sold-out.pddl"), "--search", s]);
        assert_eq!(o.code, 3, "{s}: {}", o.stderr);
        assert!(o.stderr.contains("unreachable-goal"), "{}", o.stderr);
    }
    // Relaxed-reachable, unsolvable: the complete searches prove it by exhaustion.
    for s in ["astar", "gbfs", "pop"] {
        let o = ensemble(&[
            "plan",
            &d,
            &data("trap-problem.pddl"),
            "--search",
            s,
            "--format",
            "json",
        ]);
        assert_eq!(o.code, 3, "{s}: {}", o.stderr);
        assert_eq!(json(&o)["unsolvable"], true);
    }
}

#[test]
fn native_airport_plans_the_nine_steps_of_fig_2_3() {
    let list = data("airport.actionlist.ron");
    let o = ensemble(&["plan", &list, "--format", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j = json(&o);
    assert_eq!(j["length"], 9);
    assert_eq!(j["plan"][0], "Go_To_Ticket_Counter");
    assert_eq!(j["plan"][8], "Get_On_Plane");
    // Human output warns that At_Wrong_Gate is never produced.
    let o = ensemble(&["plan", &list]);
    assert_eq!(o.code, 0);
    assert!(o.stderr.contains("never-produced"), "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 9);
    // Bad names are located.
    let o = ensemble(&[
        "plan",
        &data("airport-bad.actionlist.ron"),
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 1);
    let j = json(&o);
    let ds = j["diagnostics"].as_array().unwrap();
    assert!(
        ds.iter()
            .any(|d| d["code"] == "unknown-reference" && d["line"] == 5 && d["column"] == 36),
        "{j}"
    );
    assert!(
        ds.iter().any(
            |d| d["code"] == "invalid-value" && d["message"].as_str().unwrap().contains("Moon")
        )
    );
    // A domain without its problem cannot run.
    let o = ensemble(&["plan", &data("shop-domain.pddl")]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("needs a problem file"), "{}", o.stderr);
    let o = ensemble(&["plan", &data("notes.txt"), &data("shop-problem.pddl")]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("not a planning file"), "{}", o.stderr);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn another_planners_plan_is_checked_step_by_step() {
    // The funny dinner date's plan, written as Fast Downward writes plans: upper case, a cost
    // comment, a blank line.
    let (d, p) = (
        data("funny-dinner-date-domain.pddl"),
        data("funny-dinner-date-problem.pddl"),
    );
    let (code, j) = plan_len(&d, &p, "astar");
    assert_eq!(code, 0);
    let steps: Vec<String> = j["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_uppercase())
        .collect();
    assert_eq!(steps.len(), 6);
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, lines: &[String]| {
        write(
            dir.path(),
            name,
            &format!(
                "{}\n\n; cost = {} (unit cost)\n",
                lines.join("\n"),
                lines.len()
            ),
        )
    };
    let check = |plan: &str| ensemble(&["plan", &d, &p, "--validate", plan, "--format", "json"]);

    let o = check(&file("good.plan", &steps));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(json(&o)["valid"], true);
    assert_eq!(json(&o)["length"], 6);
    assert!(o.stderr.contains("is valid"), "{}", o.stderr);

    // The first two steps swapped: the error names the step, its line and what does not hold.
    let mut swapped = steps.clone();
    swapped.swap(0, 1);
    let path = file("swapped.plan", &swapped);
    let o = check(&path);
    assert_eq!(o.code, 1);
    assert_eq!(json(&o)["valid"], false);
    let e = json(&o)["error"].as_str().unwrap().to_string();
    assert!(e.starts_with(&format!("{path}:1: step 1: ")), "{e}");
    assert!(e.contains("is not applicable"), "{e}");

    let o = check(&file("short.plan", &steps[..5]));
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("without reaching the goal"),
        "{}",
        o.stderr
    );

    let mut unknown = steps.clone();
    unknown.insert(2, "(fly-to mars)".into());
    let path = file("unknown.plan", &unknown);
    let o = check(&path);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains(&format!("{path}:3: step 3: `(fly-to mars)`")),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("no such action"), "{}", o.stderr);

    let o = check(&dir.path().join("missing.plan").to_string_lossy());
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cannot read"), "{}", o.stderr);
}

#[test]
fn unsupported_features_are_refused_with_construct_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = write(
        dir.path(),
        "d.pddl",
        "(define (domain e)\n  (:requirements :typing :action-costs)\n  (:predicates (p))\n  (:functions (total-cost) - number)\n  (:action a :parameters ()\n    :precondition (p)\n    :effect (and (p) (increase (total-cost) 3))))\n",
    );
    let p = write(
        dir.path(),
        "p.pddl",
        "(define (problem q) (:domain e) (:init (p) (= (total-cost) 0)) (:goal (p))\n (:metric minimize (total-cost)))\n",
    );
    let o = ensemble(&["plan", &d, &p, "--format", "json"]);
    assert_eq!(o.code, 1);
    let j = json(&o);
    let found: Vec<(String, u64)> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "unsupported-feature")
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let has = |w: &str, line: u64| found.iter().any(|(m, l)| m.contains(w) && *l == line);
    assert!(has(":action-costs", 2), "{found:?}");
    assert!(has(":functions", 4), "{found:?}");
    assert!(has("total-cost", 7), "{found:?}");
    assert!(has(":metric", 2), "{found:?}");
    assert!(has("numeric fluent", 1), "{found:?}");
    // Durative actions, conditional effects.
    let d2 = write(
        dir.path(),
        "d2.pddl",
        "(define (domain e) (:predicates (p) (q))\n(:durative-action a :parameters () :duration (= ?duration 1) :condition () :effect ())\n(:action b :parameters () :precondition () :effect (when (p) (q))))",
    );
    let o = ensemble(&["plan", &d2, &p, "--format", "json"]);
    assert_eq!(o.code, 1);
    assert!(o.stdout.contains("durative-action") && o.stdout.contains("conditional effects"));
}

#[test]
fn bad_input_is_located_and_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "p.pddl",
        "(define (problem q) (:domain e) (:objects a - thing) (:init (p a)) (:goal (p a)))",
    );
    let cases: &[(&str, &str, u64)] = &[
        (
            "(define (domain e)\n (:predicates (p ?x))\n (:action a :parameters (?x) :precondition (p ?x)\n :effect (p ?x)",
            "syntax",
            1,
        ),
        (
            "(define (domain e) (:types thing)\n (:predicates (p ?x - thing))\n (:action a :parameters (?x - thing)\n :precondition (q ?x) :effect (p ?x)))",
            "unknown-reference",
            4,
        ),
        (
            "(define (domain e) (:types thing)\n (:predicates (p ?x - thing))\n (:action a :parameters (?x - thing)\n :precondition (p ?x ?x) :effect (p ?x)))",
            "arity-mismatch",
            4,
        ),
        (
            "(define (domain e) (:types thing)\n (:predicates (p ?x - thng))\n (:action a :parameters (?x - thing) :precondition (p ?x) :effect (p ?x)))",
            "unknown-reference",
            2,
        ),
        (
            "(define (domain e) (:types thing)\n (:predicates (p ?x - thing))\n (:action a :parameters (?x - thing) :precondition (p ?x)\n :effect (p ?y)))",
            "uninstantiated-variable",
            4,
        ),
    ];
    for (text, code, line) in cases {
        let d = write(dir.path(), "d.pddl", text);
        let o = ensemble(&["plan", &d, &p, "--format", "json"]);
        assert_eq!(o.code, 1, "{text}");
        let j = json(&o);
        let ds = j["diagnostics"].as_array().unwrap();
        assert!(
            ds.iter().any(|x| x["code"] == *code
                && x["line"] == *line
                && x["file"].as_str().unwrap().ends_with("d.pddl")),
            "{code} line {line}: {j}"
        );
        // Human rendering shows the snippet.
        let o = ensemble(&["plan", &d, &p]);
        assert_eq!(o.code, 1);
        assert!(o.stderr.contains(&format!("error[{code}]")), "{}", o.stderr);
    }
    let o = ensemble(&["plan", "/nonexistent/d.pddl", &p]);
    assert_eq!(o.code, 2);
}

/// Every IPC task as `(domain, problem, "domain/taskNN")`, all 88 of them.
fn ipc_tasks() -> Vec<(PathBuf, PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ipc_domains() {
        for i in 1..=11 {
            let p = dir.join(format!("task{i:02}.pddl"));
            let name = format!("{}/task{i:02}", dir.file_name().unwrap().to_string_lossy());
            assert!(p.is_file(), "{name} is missing");
            out.push((dir.join("domain.pddl"), p, name));
        }
    }
    assert_eq!(out.len(), 88);
    out
}

/// `ensemble plan DOMAIN PROBLEM --format json ARGS...`.
fn plan_task(d: &Path, p: &Path, args: &[&str]) -> Out {
    let mut all = vec![
        "plan",
        d.to_str().unwrap(),
        p.to_str().unwrap(),
        "--format",
        "json",
    ];
    all.extend_from_slice(args);
    ensemble(&all)
}

/// Every shared task: a plan that greedy best-first search finds within its budget is
/// validated step by step against an independently grounded task; and on the tasks where our
/// A* needs few expansions, the optimal length is the reference planner's (recorded below).
#[test]
fn every_shared_task_is_solved_validated_and_optimal_where_astar_is_quick() {
    let mut solved = 0;
    let tasks = ipc_tasks();
    for (d, p, name) in &tasks {
        let o = plan_task(d, p, &["--search", "gbfs", "--max-expansions", "500"]);
        match o.code {
            0 => {
                revalidate(d, p, &json(&o)["plan"]);
                solved += 1;
            }
            1 if json(&o)["error"]
                .as_str()
                .is_some_and(|e| e.contains("limit")) => {}
            code => panic!("{name}: exit {code}: {} {}", o.stdout, o.stderr),
        }
        let Some(&(_, len, expansions)) = QUICK_OPTIMAL.iter().find(|(n, _, _)| n == name) else {
            continue;
        };
        let o = plan_task(d, p, &["--max-expansions", &(expansions * 2).to_string()]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let j = json(&o);
        revalidate(d, p, &j["plan"]);
        assert_eq!(j["length"].as_u64().unwrap(), len, "{name}: not optimal");
    }
    // GBFS with h_ff solves most of them within 500 expansions (BENCHMARKS.md).
    eprintln!(
        "GBFS solved {solved} of {} shared tasks within 500 expansions",
        tasks.len()
    );
    assert!(solved >= 60, "only {solved} of {} solved", tasks.len());
}

/// Every shared task: GBFS plans are validated independently; A* (h_max) plans, where A*
/// finishes within the limit, have the optimal length of Fast Downward's A* with LM-cut
/// (BENCHMARKS.md, "Planning"). Slow: run with `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn every_shared_task_is_solved_validated_and_optimal_where_astar_finishes() {
    // Optimal lengths measured with Fast Downward `astar(lmcut())` (see BENCHMARKS.md).
    let optimal: &[(&str, u64)] = REFERENCE_OPTIMAL;
    let mut astar_done = 0;
    for (d, p, name) in ipc_tasks() {
        let o = plan_task(&d, &p, &["--search", "gbfs", "--time-limit", "20"]);
        if o.code == 0 {
            revalidate(&d, &p, &json(&o)["plan"]);
        }
        let o = plan_task(&d, &p, &["--time-limit", "10"]);
        if o.code != 0 {
            continue;
        }
        let j = json(&o);
        revalidate(&d, &p, &j["plan"]);
        astar_done += 1;
        if let Some((_, len)) = optimal.iter().find(|(n, _)| *n == name) {
            assert_eq!(j["length"].as_u64().unwrap(), *len, "{name}: not optimal");
        }
    }
    assert!(astar_done > 30);
}

/// LM-cut's estimate of the initial state beside Fast Downward's ("Initial heuristic value for
/// lmcut" of `astar(lmcut())`, up-fast-downward 1.0.0) on tasks where tie-breaking among
/// equal-cost preconditions decides it (elevators/task01 was 8 before the goal zone's
/// tie-breaking; elevators/task03 was 12 before the zone's own facts were preferred to its
/// border), and the plans stay optimal. Ours equals Fast Downward's on all but
/// elevators/task01: the end operator keeps its goal fact across rounds as Fast Downward's
/// does, but ties among goal facts fall by their order, which Fast Downward's translator takes
/// from the causal graph and ours from grounding.
#[test]
fn lmcut_initial_estimates_beside_fast_downwards() {
    let root = ipc();
    for (name, ours, fast_downward_h, optimal) in [
        ("elevators/task01", 12, 13, 14),
        ("elevators/task03", 13, 13, 18),
        ("satellite/task05", 14, 14, 15),
        ("depot/task01", 9, 9, 10),
        ("logistics/task07", 23, 23, 25),
    ] {
        assert!(ours <= optimal && fast_downward_h <= optimal);
        let (domain, task) = name.split_once('/').unwrap();
        let d = root.join(domain).join("domain.pddl");
        let p = root.join(domain).join(format!("{task}.pddl"));
        let o = plan_task(&d, &p, &["--search", "astar"]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let j = json(&o);
        assert_eq!(j["initial_h"], ours, "{name}: initial estimate");
        assert_eq!(j["length"], optimal, "{name}: not optimal");
        revalidate(&d, &p, &j["plan"]);
    }
}

/// Tasks on which our A* (h_max) finishes in a few thousand expansions: (task, the reference
/// optimal length from [`REFERENCE_OPTIMAL`], our expansions in BENCHMARKS.md).
const QUICK_OPTIMAL: &[(&str, u64, u64)] = &[
    ("blocks/task01", 6, 24),
    ("blocks/task03", 6, 18),
    ("blocks/task05", 10, 129),
    ("blocks/task07", 12, 273),
    ("blocks/task09", 20, 2553),
    ("depot/task01", 10, 135),
    ("gripper/task01", 11, 207),
    ("logistics/task01", 20, 4885),
    ("logistics/task03", 15, 1205),
    ("miconic/task01", 4, 4),
    ("miconic/task03", 10, 101),
    ("miconic/task05", 17, 4386),
    ("movie/task01", 7, 121),
    ("satellite/task01", 9, 54),
    ("satellite/task03", 11, 6821),
];

/// Fast Downward 23.x `astar(lmcut())` plan lengths (optimal), measured by
/// `compiler/benches/plan_compare.py` (BENCHMARKS.md, "Planning").
const REFERENCE_OPTIMAL: &[(&str, u64)] = &[
    ("blocks/task01", 6),
    ("blocks/task03", 6),
    ("blocks/task05", 10),
    ("blocks/task07", 12),
    ("blocks/task09", 20),
    ("blocks/task11", 22),
    ("depot/task01", 10),
    ("elevators/task01", 14),
    ("elevators/task03", 18),
    ("elevators/task11", 17),
    ("gripper/task01", 11),
    ("gripper/task03", 23),
    ("logistics/task01", 20),
    ("logistics/task03", 15),
    ("logistics/task05", 17),
    ("logistics/task07", 25),
    ("logistics/task09", 25),
    ("logistics/task11", 36),
    ("miconic/task01", 4),
    ("miconic/task03", 10),
    ("miconic/task05", 17),
    ("miconic/task07", 23),
    ("miconic/task09", 31),
    ("miconic/task11", 37),
    ("movie/task01", 7),
    ("movie/task03", 7),
    ("movie/task05", 7),
    ("movie/task07", 7),
    ("movie/task09", 7),
    ("movie/task11", 7),
    ("satellite/task01", 9),
    ("satellite/task03", 11),
    ("satellite/task05", 15),
    ("satellite/task07", 21),
    ("satellite/task09", 27),
    ("satellite/task11", 31),
];
