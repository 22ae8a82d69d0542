//! Interaction scripts end to end: the bench sample (workbook and native), its invariants over
//! many seeds, and a workbook for every defect the validator and the reader must catch, each
//! reported at the right sheet and cell.

use ensemble_tests::{assert_golden, ensemble, repo_path};
use rust_xlsxwriter::{Formula, Workbook};
use serde_json::Value;
use std::collections::HashMap;

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn check_json(path: &str) -> (i32, Value) {
    let out = ensemble(&["check", path, "--format", "json"]);
    (out.code, json(&out.stdout))
}

fn find<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no `{code}` in {doc:#}"))
}

#[test]
fn the_bench_workbook_checks_clean() {
    let (code, doc) = check_json(&repo_path("samples/bench/bench.xlsx"));
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["summary"]["errors"], 0);
    let (code, doc) = check_json(&repo_path("samples/bench"));
    assert_eq!(code, 0, "{doc:#}");
}

#[test]
fn the_printed_rule_5_is_caught_at_its_cell() {
    let (code, doc) = check_json(&repo_path("samples/bench/printed"));
    assert_eq!(code, 1);
    let d = find(&doc, "deletion-never-matches");
    assert_eq!(d["file"], "bench-printed.xlsx");
    assert_eq!(d["sheet"], "Rules");
    assert_eq!(d["cell"], "K6");
    assert!(d["line"].is_null());
}

#[test]
fn import_reproduces_the_committed_native_asset() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench.script.ron");
    let r = ensemble(&[
        "import",
        &repo_path("samples/bench/bench.xlsx"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let imported = std::fs::read_to_string(&out).unwrap();
    let committed = std::fs::read_to_string(repo_path("samples/bench/bench.script.ron")).unwrap();
    assert_eq!(
        imported, committed,
        "re-import samples/bench/bench.xlsx after changing it"
    );
    // Importing something that is not a workbook cannot run.
    assert_eq!(
        ensemble(&[
            "import",
            &repo_path("samples/bench/Ensemble.ron"),
            "-o",
            out.to_str().unwrap()
        ])
        .code,
        2
    );
}

fn bench_trace(seed: u64) -> Vec<Value> {
    bench_trace_with(seed, "0")
}

fn bench_trace_with(seed: u64, fail_rate: &str) -> Vec<Value> {
    ensemble_tests::json_lines(&bench_stdout(seed, fail_rate))
}

fn bench_stdout(seed: u64, fail_rate: &str) -> String {
    let out = ensemble(&[
        "run",
        &repo_path("samples/bench"),
        "--scene",
        "bench",
        "--ticks",
        "20000",
        "--seed",
        &seed.to_string(),
        "--trace",
        "json",
        "--fail-rate",
        fail_rate,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

#[test]
fn bench_invariants_hold_for_many_seeds() {
    for seed in 0..20 {
        let trace = bench_trace(seed);
        // No seat is ever reserved by two actors at once.
        let mut reserved: HashMap<String, String> = HashMap::new();
        let mut sat: Vec<String> = Vec::new();
        let mut got_up: Vec<String> = Vec::new();
        for e in &trace {
            let fact = e["fact"].as_str().unwrap_or("");
            if let Some(args) = fact
                .strip_prefix("reserved(")
                .and_then(|f| f.strip_suffix(')'))
            {
                let (seat, who) = args.split_once(',').unwrap();
                if e["event"] == "add" {
                    if let Some(other) = reserved.insert(seat.to_string(), who.to_string()) {
                        panic!(
                            "seed {seed}: {seat} reserved by {who} while {other} holds it (tick {})",
                            e["tick"]
                        );
                    }
                } else if e["event"] == "del" {
                    assert_eq!(
                        reserved.remove(seat).as_deref(),
                        Some(who),
                        "seed {seed}: released a seat it did not hold"
                    );
                }
            }
            let agent = e["agent"].as_str().unwrap_or("").to_string();
            if e["event"] == "done" && e["action"] == "sit" {
                sat.push(agent.clone());
            }
            if e["event"] == "done" && e["action"] == "getup" {
                got_up.push(agent);
            }
        }
        // Every participant that sits eventually gets up, and every seat is free at the end.
        sat.sort();
        got_up.sort();
        assert!(!sat.is_empty(), "seed {seed}: nobody sat down");
        assert_eq!(sat, got_up, "seed {seed}");
        assert!(
            reserved.is_empty(),
            "seed {seed}: {reserved:?} still reserved"
        );
        // The chapter's vocabulary shows up: joining, talking and listening.
        for needle in ["join", "act", "add", "del", "leave"] {
            assert!(
                trace.iter().any(|e| e["event"] == needle),
                "seed {seed}: no {needle}"
            );
        }
    }
}

#[test]
fn bench_talk_and_listen_and_late_joiner() {
    let trace = bench_trace(3);
    let acts: Vec<&str> = trace
        .iter()
        .filter(|e| e["event"] == "act")
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    for a in ["sit", "talk", "listen", "getup"] {
        assert!(acts.contains(&a), "no {a} in {acts:?}");
    }
    for f in ["talker(", "timer(", "sitting(", "reserved("] {
        assert!(
            trace
                .iter()
                .any(|e| e["event"] == "add" && e["fact"].as_str().unwrap().starts_with(f)),
            "{f}"
        );
    }
    // tourist2 arrives after the script started, and joins it.
    let first_join = trace.iter().position(|e| e["event"] == "join").unwrap();
    let late = trace
        .iter()
        .position(|e| e["event"] == "join" && e["agent"] == "tourist2")
        .expect("tourist2 joins");
    assert!(late > first_join);
}

#[test]
fn same_seed_same_bench_trace_and_the_golden_trace_holds() {
    let trace = bench_stdout(11, "0");
    assert_eq!(trace, bench_stdout(11, "0"));
    assert_golden("bench-seed11.jsonl", &trace);
}

// ---- defective workbooks ----

enum C<'a> {
    S(&'a str),
    N(f64),
    /// A formula and its cached (error) result.
    F(&'a str, &'a str),
}

type Sheet<'a> = (&'a str, Vec<Vec<Option<C<'a>>>>);

fn write(path: &std::path::Path, sheets: &[Sheet<'_>]) {
    let mut wb = Workbook::new();
    for (name, rows) in sheets {
        let ws = wb.add_worksheet();
        ws.set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                match cell {
                    Some(C::S(s)) => {
                        ws.write_string(r, c, *s).unwrap();
                    }
                    Some(C::N(x)) => {
                        ws.write_number(r, c, *x).unwrap();
                    }
                    Some(C::F(f, result)) => {
                        ws.write_formula(r, c, Formula::new(*f).set_result(*result))
                            .unwrap();
                    }
                    None => {}
                }
            }
        }
    }
    wb.save(path).unwrap();
}

const RULE_HEADER: [&str; 14] = [
    "Rule",
    "Role",
    "State",
    "Precondition",
    "Action",
    "Target",
    "Parameters",
    "Add",
    "Delete",
    "Deferred Add",
    "Deferred Delete",
    "On Error",
    "Next State",
    "Terminate",
];

/// A small valid script; `edit` changes it before writing.
fn script(
    edit: impl FnOnce(
        &mut Vec<Vec<Option<C<'static>>>>,
        &mut Vec<Vec<Option<C<'static>>>>,
        &mut Vec<Vec<Option<C<'static>>>>,
    ),
) -> (tempfile::TempDir, String) {
    let s = |t: &'static str| Some(C::S(t));
    let mut meta = vec![
        vec![s("Key"), s("Value")],
        vec![s("name"), s("t")],
        vec![s("initial_state"), s("idle")],
        vec![s("supplies"), s("seat/1")],
    ];
    let mut roles = vec![
        vec![s("Role"), s("Min"), s("Max"), s("Flags")],
        vec![
            s("guest"),
            Some(C::N(1.0)),
            Some(C::N(2.0)),
            s("dynamicJoin"),
        ],
    ];
    let row = |cells: [Option<C<'static>>; 14]| cells.into_iter().collect::<Vec<_>>();
    let mut rules = vec![
        RULE_HEADER.iter().map(|h| s(h)).collect(),
        row([
            s("sit"),
            s("guest"),
            s("idle"),
            s("seat(X), not taken(X)"),
            s("sit"),
            s("X"),
            None,
            s("taken(X)"),
            None,
            s("resting(.me)"),
            None,
            None,
            s("resting"),
            None,
        ]),
        row([
            s("leave"),
            s("guest"),
            s("resting"),
            s("resting(.me), taken(X)"),
            s("getup"),
            None,
            None,
            None,
            s("resting(.me)"),
            None,
            s("taken(X)"),
            None,
            None,
            s("actor"),
        ]),
    ];
    edit(&mut meta, &mut roles, &mut rules);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.xlsx");
    write(
        &path,
        &[("Script", meta), ("Roles", roles), ("Rules", rules)],
    );
    let p = path.to_string_lossy().into_owned();
    (dir, p)
}

fn defect(
    edit: impl FnOnce(
        &mut Vec<Vec<Option<C<'static>>>>,
        &mut Vec<Vec<Option<C<'static>>>>,
        &mut Vec<Vec<Option<C<'static>>>>,
    ),
    code: &str,
    sheet: &str,
    cell: &str,
) -> Value {
    let (_dir, path) = script(edit);
    let (exit, doc) = check_json(&path);
    let d = find(&doc, code).clone();
    assert_eq!(
        (d["sheet"].as_str(), d["cell"].as_str()),
        (Some(sheet), Some(cell)),
        "{code}: {d:#}"
    );
    assert_eq!(d["file"], "t.xlsx");
    if d["severity"] == "error" {
        assert_eq!(exit, 1);
    }
    d
}

#[test]
fn the_defect_free_workbook_is_clean() {
    let (_dir, path) = script(|_, _, _| {});
    let (code, doc) = check_json(&path);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

#[test]
fn reader_defects_are_located() {
    // A missing sheet.
    let (_dir, path) = script(|_, _, rules| rules.clear());
    let dir2 = tempfile::tempdir().unwrap();
    let p2 = dir2.path().join("t.xlsx");
    write(
        &p2,
        &[(
            "Script",
            vec![
                vec![Some(C::S("Key")), Some(C::S("Value"))],
                vec![Some(C::S("name")), Some(C::S("t"))],
            ],
        )],
    );
    let (code, doc) = check_json(p2.to_str().unwrap());
    assert_eq!(code, 1);
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("no `Rules` sheet"))
        .unwrap();
    assert_eq!(
        (d["sheet"].as_str(), d["cell"].as_str()),
        (Some("Rules"), Some("A1"))
    );
    drop(path);
    // A misspelt header: warned about where it is, and the missing column named.
    let d = defect(
        |_, _, rules| rules[0][3] = Some(C::S("Precondtion")),
        "unknown-column",
        "Rules",
        "D1",
    );
    assert!(
        d["notes"]
            .to_string()
            .contains("did you mean `precondition`"),
        "{d:#}"
    );
    defect(
        |_, _, rules| rules[0][3] = Some(C::S("Precondtion")),
        "missing-column",
        "Rules",
        "O1",
    );
    // A formula error in a cell.
    let d = defect(
        |_, _, rules| rules[1][3] = Some(C::F("=1/0", "#DIV/0!")),
        "syntax",
        "Rules",
        "D2",
    );
    assert!(d["message"].as_str().unwrap().contains("#DIV/0!"), "{d:#}");
    // A syntax error inside a cell.
    defect(
        |_, _, rules| rules[2][3] = Some(C::S("resting(.me")),
        "syntax",
        "Rules",
        "D3",
    );
    // Not a workbook at all.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.xlsx");
    std::fs::write(&fake, "Key,Value\nname,t\n").unwrap();
    let (code, doc) = check_json(fake.to_str().unwrap());
    assert_eq!(code, 1);
    let d = find(&doc, "syntax");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("not a readable Excel workbook"),
        "{d:#}"
    );
    assert_eq!(d["file"], "fake.xlsx");
}

#[test]
fn validation_defects_are_located() {
    let s = |t: &'static str| Some(C::S(t));
    defect(
        |_, _, rules| rules[1][1] = s("gest"),
        "unknown-role",
        "Rules",
        "B2",
    );
    defect(
        |_, roles, _| roles[1][1] = Some(C::N(3.0)),
        "bad-cardinality",
        "Roles",
        "C2",
    );
    defect(
        |_, roles, _| roles[1][2] = s("many"),
        "bad-cardinality",
        "Roles",
        "C2",
    );
    // A state no rule leads to.
    defect(
        |_, _, rules| rules[2][2] = s("dancing"),
        "unreachable-state",
        "Rules",
        "C3",
    );
    // A rule shadowed by an earlier one of the same state and role.
    let d = defect(
        |_, _, rules| {
            let copy = vec![
                s("sit2"),
                s("guest"),
                s("idle"),
                s("seat(X), not taken(X), seat(X)"),
                s("sit"),
                s("X"),
                None,
                s("taken(X)"),
                None,
                None,
                None,
                None,
                s("resting"),
                None,
            ];
            rules.push(copy);
        },
        "unexecutable-rule",
        "Rules",
        "D4",
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("rule sit comes first"),
        "{d:#}"
    );
    // A precondition that contradicts itself.
    defect(
        |_, _, rules| rules[2][3] = s("resting(.me), not resting(.me)"),
        "unexecutable-rule",
        "Rules",
        "D3",
    );
    // A variable used in the target that nothing binds.
    defect(
        |_, _, rules| rules[1][5] = s("Z"),
        "uninstantiated-variable",
        "Rules",
        "F2",
    );
    defect(
        |_, _, rules| rules[1][7] = s("taken(X, Y)"),
        "arity-mismatch",
        "Rules",
        "H2",
    );
    defect(
        |_, _, rules| rules[2][3] = s("not taken(X), resting(X)"),
        "unsafe-negation",
        "Rules",
        "D3",
    );
    defect(
        |_, _, rules| rules[2][3] = s("resting(.me), sleepy(.me)"),
        "never-produced",
        "Rules",
        "D3",
    );
    // A deletion whose arguments are the wrong way round.
    defect(
        |_, _, rules| rules[2][10] = s("taken(.me)"),
        "deletion-never-matches",
        "Rules",
        "K3",
    );
}

// ---- templating (35.6) ----

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Ensemble.ron"), "Project(name: \"shops\")").unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

const SHOPKEEPER: &str = r#"Script(
    name: "shopkeeper",
    supplies: "counter/1",
    roles: [Role(name: "keeper", min: "1", max: "1"), Role(name: "customer", min: "0", max: "$queue", flags: "dynamicJoin")],
    rules: [
        Rule(rule: "greet", role: "customer", state: "shop", precondition: "not greeted(.me)", action: "$greeting", add: "greeted(.me)"),
        Rule(rule: "serve", role: "keeper", state: "shop", precondition: "counter(C), greeted(X)", action: "sell", target: "X", parameters: "wares=$wares", delete: "greeted(X)"),
    ],
)"#;

#[test]
fn derived_scripts_substitute_meta_parameters_and_templates_are_not_compiled_alone() {
    let baker = r#"Script(name: "baker", base: "shopkeeper", params: [("$greeting", "wave"), ("$wares", "bread"), ("$queue", "3")])"#;
    let fishmonger = r#"Script(
        name: "fishmonger",
        base: "shopkeeper",
        params: [("$greeting", "nod"), ("$wares", "fish"), ("$queue", "2")],
        rules: [Rule(rule: "haggle", role: "customer", state: "shop", precondition: "greeted(.me)", action: "haggle")],
    )"#;
    let dir = project(&[
        ("shopkeeper.script.ron", SHOPKEEPER),
        ("baker.script.ron", baker),
        ("fishmonger.script.ron", fishmonger),
    ]);
    let out_dir = tempfile::tempdir().unwrap();
    let out = ensemble(&[
        "build",
        dir.path().to_str().unwrap(),
        "-o",
        out_dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let program = ensemble_runtime::Program::load(&out_dir.path().join("shops.ensb")).unwrap();
    let names: Vec<&str> = program
        .scripts
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    assert_eq!(
        names,
        ["baker", "fishmonger"],
        "the template itself is not compiled"
    );
    let baker = &program.scripts[0];
    assert_eq!(baker.roles[1].max, 3);
    let actions: Vec<&str> = baker
        .rules
        .iter()
        .filter_map(|r| r.action.as_ref())
        .map(|a| program.name(a.name))
        .collect();
    assert_eq!(actions, ["wave", "sell"]);
    assert!(program.name_id("bread").is_some() && program.name_id("fish").is_some());
    // The derived script's own rules come first: they take precedence over the base's.
    let fish = &program.scripts[1];
    assert_eq!(program.name(fish.rules[0].name), "haggle");
    assert_eq!(fish.roles[1].max, 2);
}

#[test]
fn template_errors_are_reported() {
    let orphan = r#"Script(name: "orphan", base: "shopkeepr")"#;
    let dir = project(&[
        ("shopkeeper.script.ron", SHOPKEEPER),
        ("orphan.script.ron", orphan),
    ]);
    let (code, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(code, 1);
    let d = find(&doc, "unknown-reference");
    assert!(
        d["notes"].to_string().contains("did you mean `shopkeeper`"),
        "{d:#}"
    );
    assert_eq!(d["file"], "orphan.script.ron");
    // The unused template is pointed out.
    let dir = project(&[("shopkeeper.script.ron", SHOPKEEPER)]);
    let (code, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(code, 0);
    let d = find(&doc, "uninstantiated-variable");
    assert_eq!(d["severity"], "warning");
    assert!(d["message"].as_str().unwrap().contains("$queue"), "{d:#}");
}

#[test]
fn failed_actions_take_the_on_error_path_and_release_their_seats() {
    let mut failures = 0;
    for seed in 0..10 {
        let trace = bench_trace_with(seed, "0.3");
        let mut reserved: HashMap<String, String> = HashMap::new();
        for e in &trace {
            let fact = e["fact"].as_str().unwrap_or("");
            if let Some(args) = fact
                .strip_prefix("reserved(")
                .and_then(|f| f.strip_suffix(')'))
            {
                let (seat, who) = args.split_once(',').unwrap();
                if e["event"] == "add" {
                    assert!(
                        reserved.insert(seat.to_string(), who.to_string()).is_none(),
                        "seed {seed}: {seat} double-booked"
                    );
                } else if e["event"] == "del" {
                    reserved.remove(seat);
                }
            }
            if e["event"] == "fail" && e["action"] == "sit" {
                failures += 1;
                // The rule's On Error fact is added, and the `fell` rule then releases the seat.
                let who = e["agent"].as_str().unwrap();
                assert!(
                    trace
                        .iter()
                        .any(|x| x["event"] == "add" && x["fact"] == format!("sitfailed({who})")),
                    "seed {seed}"
                );
            }
        }
        assert!(
            reserved.is_empty(),
            "seed {seed}: {reserved:?} still reserved after failures"
        );
    }
    assert!(
        failures > 0,
        "a 30% failure rate over ten runs must fail some sit actions"
    );
}

#[test]
fn review_findings_stay_fixed() {
    let s = |t: &'static str| Some(C::S(t));
    // `_` in an added fact can never be added.
    defect(
        |_, _, rules| rules[1][7] = s("taken(_)"),
        "uninstantiated-variable",
        "Rules",
        "H2",
    );
    // A negation over a function term with an unbound variable.
    defect(
        |_, _, rules| rules[2][3] = s("resting(.me), not taken(T + 1)"),
        "uninstantiated-variable",
        "Rules",
        "D3",
    );
    // Random preconditions do not shadow later rules.
    let (_dir, path) = script(|_, _, rules| {
        rules.insert(
            1,
            vec![
                s("maybe"),
                s("guest"),
                s("idle"),
                s("randf(0, 1) < 0.5"),
                s("wave"),
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ],
        );
        rules.insert(
            2,
            vec![
                s("maybe2"),
                s("guest"),
                s("idle"),
                s("randf(0, 1) < 0.5, seat(X)"),
                s("nod"),
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            ],
        );
    });
    let (_, doc) = check_json(&path);
    assert!(!doc.to_string().contains("unexecutable-rule"), "{doc:#}");
}
