//! End-to-end tests of `ensemble plan`: the DESIGN.md contract (JSON shape, exit codes 0/1/3),
//! the seeds' fixtures, refusal of unsupported PDDL, located diagnostics for bad input,
//! independent validation of every plan on the IPC tasks (vendored in `compiler/tests/data/ipc`), and
//! A*'s plan lengths against the reference optima recorded beside them.

use ensemble_cli as cli;
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
        .join("../compiler/tests/data/plan")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The IPC tasks, vendored in `compiler/tests/data/ipc` (its README says where they come from).
fn ipc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/tests/data/ipc")
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

/// One line of `compiler/tests/data/ipc/optimal.txt`: a task, its optimal plan length (Fast Downward's
/// A* with LM-cut), and whether the normal test suite plans it (`ci`) or only the ignored
/// release test (`release`).
struct Reference {
    task: String,
    optimal: u64,
    in_ci: bool,
}

fn reference_optima() -> Vec<Reference> {
    let path = ipc().join("optimal.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("{}:{}: `{line}`", path.display(), i + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [task, optimal, run] = fields[..] else {
            panic!("{}: expected `task optimal ci|release`", at());
        };
        assert!(
            ipc().join(format!("{task}.pddl")).is_file(),
            "{}: no such task",
            at()
        );
        out.push(Reference {
            task: task.to_string(),
            optimal: optimal.parse().unwrap_or_else(|_| panic!("{}", at())),
            in_ci: match run {
                "ci" => true,
                "release" => false,
                _ => panic!("{}: the run is `ci` or `release`", at()),
            },
        });
    }
    out
}

/// A* (LM-cut, the default) on `reference`'s task: it finds a plan, the plan is valid when
/// checked against an independently grounded task, and it has the reference optimal length.
fn assert_astar_optimal(reference: &Reference) {
    let (domain, task) = reference.task.split_once('/').unwrap();
    let d = ipc().join(domain).join("domain.pddl");
    let p = ipc().join(domain).join(format!("{task}.pddl"));
    let started = std::time::Instant::now();
    let o = plan_task(&d, &p, &["--search", "astar"]);
    assert_eq!(o.code, 0, "{}: {} {}", reference.task, o.stdout, o.stderr);
    let j = json(&o);
    revalidate(&d, &p, &j["plan"]);
    assert_eq!(
        j["length"].as_u64().unwrap(),
        reference.optimal,
        "{}: not optimal",
        reference.task
    );
    eprintln!(
        "{}: {} steps, optimal, {} expanded, {:.2} s",
        reference.task,
        reference.optimal,
        j["expanded"],
        started.elapsed().as_secs_f64()
    );
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

/// Every IPC task: a plan that greedy best-first search finds within its budget is validated
/// step by step against an independently grounded task.
#[test]
fn every_ipc_task_gbfs_plan_is_validated() {
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
    }
    // GBFS with h_ff solves most of them within 500 expansions.
    eprintln!(
        "GBFS solved {solved} of {} IPC tasks within 500 expansions",
        tasks.len()
    );
    assert!(solved >= 60, "only {solved} of {} solved", tasks.len());
}

/// A* is optimal: on every task of `compiler/tests/data/ipc/optimal.txt` marked `ci` (those our A*
/// plans in under 2 s in a debug build), A* finds a plan, the plan is valid, and its length is
/// the reference optimum. The rest are the ignored release test's.
#[test]
fn astar_plans_have_the_reference_optimal_length_on_the_quick_tasks() {
    let references = reference_optima();
    let quick: Vec<&Reference> = references.iter().filter(|r| r.in_ci).collect();
    assert!(quick.len() >= 30, "only {} quick tasks", quick.len());
    for reference in quick {
        assert_astar_optimal(reference);
    }
}

/// The same on every task with a reference optimum, the slow ones included (all 41 within
/// 30 s each in a release build: docs/benchmarks/planning.md), and every plan GBFS finds
/// within 20 s (with its improvement phase) validated. Slow: `cargo test --release -p
/// ensemble-cli --test plan_cli -- --ignored`.
#[test]
#[ignore = "minutes in a release build"]
fn astar_plans_have_the_reference_optimal_length_on_every_reference_task() {
    for reference in &reference_optima() {
        assert_astar_optimal(reference);
    }
    for (d, p, _) in ipc_tasks() {
        let o = plan_task(&d, &p, &["--search", "gbfs", "--time-limit", "20"]);
        if o.code == 0 {
            revalidate(&d, &p, &json(&o)["plan"]);
        }
    }
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
