//! Interaction scripts end to end: the bench sample (workbook and native), its invariants over
//! many seeds, and a workbook for every defect the validator and the reader must catch, each
//! reported at the right sheet and cell.

use ensemble_tests::{assert_golden, assert_import_reproduces, ensemble, line_col, repo_path};
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
    assert_import_reproduces("samples/bench/bench.xlsx", "samples/bench/bench.script.ron");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench.script.ron");
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
    ensemble_tests::run_trace("samples/bench", "bench", 20_000, seed, fail_rate).0
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

/// A Rules row: the cells given from the first column on (empty text: an empty cell), the rest
/// empty.
fn rule_row(cells: &[&'static str]) -> Vec<Option<C<'static>>> {
    let mut row: Vec<Option<C<'static>>> = cells
        .iter()
        .map(|t| (!t.is_empty()).then_some(C::S(t)))
        .collect();
    row.resize_with(RULE_HEADER.len(), || None);
    row
}

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
            rules.push(rule_row(&[
                "sit2",
                "guest",
                "idle",
                "seat(X), not taken(X), seat(X)",
                "sit",
                "X",
                "",
                "taken(X)",
                "",
                "",
                "",
                "",
                "resting",
            ]));
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
            rule_row(&["maybe", "guest", "idle", "randf(0, 1) < 0.5", "wave"]),
        );
        rules.insert(
            2,
            rule_row(&[
                "maybe2",
                "guest",
                "idle",
                "randf(0, 1) < 0.5, seat(X)",
                "nod",
            ]),
        );
    });
    let (_, doc) = check_json(&path);
    assert!(!doc.to_string().contains("unexecutable-rule"), "{doc:#}");
}

// ---- the same checks on the native format: line and column, related locations ----

const RON_SCRIPT: &str = r#"Script(
    name: "t",
    initial_state: "idle",
    roles: [
        Role(name: "guest", min: "1", max: "2", flags: "dynamicJoin"),
    ],
    rules: [
        Rule(rule: "sit", role: "guest", state: "idle", precondition: "seat(X), not taken(X)", action: "sit", target: "X", add: "taken(X)", deferred_add: "resting(.me), since(.me, .now)", next_state: "resting"),
        Rule(rule: "leave", role: "guest", state: "resting", precondition: "resting(.me), since(.me, T), T + 60 < .now, taken(X)", action: "getup", delete: "resting(.me), since(.me, T)", deferred_delete: "taken(X)", terminate: "actor"),
    ],
)"#;

const RON_PLACE: &str = r#"SmartLocation(name: "bench", at: "Here", props: [(name: "seat1", kind: "seat")], scripts: [(script: "t")])"#;
const RON_WORLD: &str = r#"Locations(locations: [(name: "Here", x: 0.0, y: 0.0)])"#;
const RON_SCENE: &str = r#"Scene(name: "s", agents: [(name: "g", at: "Here", roles: ["guest"])])"#;

/// Edits the native script (or, with `place`, the smart location), and expects `code` at the
/// line and column of `at` in the edited script.
fn ron_defect(from: &str, to: &str, code: &str, at: &str) -> Value {
    ron_defect_in(false, from, to, code, at)
}

fn ron_defect_in(place: bool, from: &str, to: &str, code: &str, at: &str) -> Value {
    let (script, loc) = if place {
        (RON_SCRIPT.to_string(), RON_PLACE.replacen(from, to, 1))
    } else {
        (RON_SCRIPT.replacen(from, to, 1), RON_PLACE.to_string())
    };
    assert!(
        script != RON_SCRIPT || loc != RON_PLACE,
        "`{from}` is not in the sample"
    );
    let dir = project(&[
        ("t.script.ron", &script),
        ("bench.smartloc.ron", &loc),
        ("w.locations.ron", RON_WORLD),
        ("s.scene.ron", RON_SCENE),
    ]);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    let d = find(&doc, code).clone();
    assert_eq!(d["file"], "t.script.ron", "{d:#}");
    let (line, column) = line_col(&script, at);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{code}: {d:#}"
    );
    assert!(d["sheet"].is_null() && d["cell"].is_null());
    if d["severity"] == "error" {
        assert_eq!(exit, 1);
    }
    d
}

#[test]
fn the_defect_free_native_script_is_clean() {
    let dir = project(&[
        ("t.script.ron", RON_SCRIPT),
        ("bench.smartloc.ron", RON_PLACE),
        ("w.locations.ron", RON_WORLD),
        ("s.scene.ron", RON_SCENE),
    ]);
    let (code, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

#[test]
fn every_script_check_points_into_the_native_asset() {
    ron_defect(
        r#"role: "guest", state: "resting""#,
        r#"role: "guest", state: "dozing""#,
        "unreachable-state",
        r#""dozing""#,
    );
    ron_defect(
        r#"role: "guest", state: "idle""#,
        r#"role: "gest", state: "idle""#,
        "unknown-role",
        r#""gest""#,
    );
    ron_defect(
        r#"min: "1", max: "2""#,
        r#"min: "3", max: "2""#,
        "bad-cardinality",
        r#""2""#,
    );
    let d = ron_defect(
        r#"add: "taken(X)""#,
        r#"add: "taken(X, .me)""#,
        "arity-mismatch",
        "taken(X, .me)",
    );
    assert_eq!(d["related"][0]["message"], "first used here");
    let d = ron_defect(
        r#"precondition: "resting(.me), since"#,
        r#"precondition: "not busy(X), resting(.me), busy(X), since"#,
        "unsafe-negation",
        "not busy(X)",
    );
    assert_eq!(d["related"][0]["message"], "used here");
    ron_defect(
        r#"precondition: "seat(X), not taken(X)""#,
        r#"precondition: "chair(X), not taken(X)""#,
        "never-produced",
        "chair(X)",
    );
    // A deletion whose arguments are the wrong way round, with the rule that adds the fact.
    let d = ron_defect(
        r#"deferred_delete: "taken(X)""#,
        r#"deferred_delete: "taken(.me)""#,
        "deletion-never-matches",
        "taken(.me)",
    );
    let (line, column) = line_col(RON_SCRIPT, r#"taken(X)", deferred_add"#);
    assert_eq!(
        (
            d["related"][0]["line"].as_u64(),
            d["related"][0]["column"].as_u64()
        ),
        (Some(line), Some(column)),
        "{d:#}"
    );
}

#[test]
fn an_uninstantiated_variable_points_at_what_should_bind_it() {
    // Bound only after its use: the literal to move is the related location.
    let d = ron_defect(
        "resting(.me), since(.me, T), T + 60 < .now",
        "resting(.me), T + 60 < .now, since(.me, T)",
        "uninstantiated-variable",
        "T + 60",
    );
    assert!(
        d["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["message"] == "bound only here, after its use: move this literal before it"),
        "{d:#}"
    );
    // Mentioned only inside a negation, which does not bind.
    let d = ron_defect(
        r#"action: "sit", target: "X""#,
        r#"action: "sit", target: "Y""#,
        "uninstantiated-variable",
        r#"Y", add"#,
    );
    assert!(d["related"].as_array().unwrap().is_empty(), "{d:#}");
    let d = ron_defect(
        r#"precondition: "seat(X), not taken(X)", action: "sit", target: "X""#,
        r#"precondition: "seat(X), not taken(Y)", action: "sit", target: "Y""#,
        "uninstantiated-variable",
        r#"Y", add"#,
    );
    assert_eq!(
        d["related"][0]["message"], "only a negation mentions it, and a negation does not bind",
        "{d:#}"
    );
}

#[test]
fn a_specialisation_of_an_earlier_rule_is_unexecutable_in_any_literal_order() {
    // The later rule asks for more, in another order, with other variable names: the earlier
    // rule matches whenever it does (35.5.1, "specialization of rules of higher precedence").
    let extra = r#"
        Rule(rule: "picky", role: "guest", state: "idle", precondition: "sunny, seat(S), not taken(S)", action: "sit", target: "S"),"#;
    let d = ron_defect(
        r#"next_state: "resting"),"#,
        &format!(r#"next_state: "resting"),{extra}"#),
        "unexecutable-rule",
        r#""sunny, seat(S), not taken(S)""#,
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("rule sit comes first"),
        "{d:#}"
    );
    let (line, column) = line_col(RON_SCRIPT, r#""seat(X), not taken(X)""#);
    assert_eq!(
        (
            d["related"][0]["line"].as_u64(),
            d["related"][0]["column"].as_u64()
        ),
        (Some(line), Some(column))
    );
    // Not a specialisation: the earlier rule's negation is stronger than the later one's.
    let dir = project(&[
        (
            "t.script.ron",
            &RON_SCRIPT.replacen(
                r#"next_state: "resting"),"#,
                r#"next_state: "resting"),
        Rule(rule: "other", role: "guest", state: "idle", precondition: "seat(S), not taken(seat1)", add: "sunny"),"#,
                1,
            ),
        ),
        ("bench.smartloc.ron", RON_PLACE),
        ("w.locations.ron", RON_WORLD),
        ("s.scene.ron", RON_SCENE),
    ]);
    let (_, doc) = check_json(dir.path().to_str().unwrap());
    assert!(!doc.to_string().contains("unexecutable-rule"), "{doc:#}");
}

#[test]
fn comparisons_that_leave_no_value_are_unexecutable() {
    let d = ron_defect(
        "T + 60 < .now, taken(X)",
        "T + 60 < .now, taken(X), T < 5, T > 7",
        "unexecutable-rule",
        "T > 7",
    );
    assert!(d["message"].as_str().unwrap().contains("no value"), "{d:#}");
    ron_defect(
        r#"precondition: "seat(X), not taken(X)""#,
        r#"precondition: "seat(X), not taken(X), X = seat1, X = seat2""#,
        "unexecutable-rule",
        "X = seat2",
    );
    // A range with room is fine.
    let dir = project(&[
        (
            "t.script.ron",
            &RON_SCRIPT.replacen(
                "T + 60 < .now, taken(X)",
                "T + 60 < .now, taken(X), T >= 5, T <= 5",
                1,
            ),
        ),
        ("bench.smartloc.ron", RON_PLACE),
        ("w.locations.ron", RON_WORLD),
        ("s.scene.ron", RON_SCENE),
    ]);
    let (code, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(code, 0, "{doc:#}");
}

#[test]
fn a_negation_of_something_never_produced_is_a_warning() {
    let d = ron_defect(
        r#"precondition: "seat(X), not taken(X)""#,
        r#"precondition: "seat(X), not takn(X)""#,
        "never-produced",
        "not takn(X)",
    );
    assert_eq!(d["severity"], "warning");
    assert!(
        d["message"].as_str().unwrap().contains("always holds"),
        "{d:#}"
    );
}

#[test]
fn a_role_nobody_can_take_is_pointed_out() {
    let d = ron_defect(
        r#"Role(name: "guest", min: "1", max: "2", flags: "dynamicJoin"),"#,
        r#"Role(name: "guest", min: "1", max: "2", flags: "dynamicJoin"),
        Role(name: "host", min: "1", max: "1"),"#,
        "bad-cardinality",
        r#""host""#,
    );
    assert_eq!(d["severity"], "warning");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("never starts there"),
        "{d:#}"
    );
    assert_eq!(d["related"][0]["file"], "bench.smartloc.ron");
}

#[test]
fn the_new_checks_point_at_cells_in_workbooks() {
    let s = |t: &'static str| Some(C::S(t));
    // A specialisation of rule `sit`, in another literal order, one row below.
    let d = defect(
        |_, _, rules| {
            rules.push(rule_row(&[
                "sit2",
                "guest",
                "idle",
                "seat(S), not taken(S), seat(S)",
                "sit",
                "S",
            ]))
        },
        "unexecutable-rule",
        "Rules",
        "D4",
    );
    // The rule that shadows it is a related location, by sheet and cell.
    assert_eq!(
        (&d["related"][0]["sheet"], &d["related"][0]["cell"]),
        (&Value::from("Rules"), &Value::from("D2")),
        "{d:#}"
    );
    assert!(d["related"][0]["line"].is_null(), "{d:#}");
    defect(
        |_, _, rules| rules[2][3] = s("resting(.me), taken(X), X = a, X = b"),
        "unexecutable-rule",
        "Rules",
        "D3",
    );
    // Bound too late: the related location is the cell of the literal to move.
    let d = defect(
        |_, _, rules| rules[2][3] = s("X != .me, taken(X), resting(.me)"),
        "uninstantiated-variable",
        "Rules",
        "D3",
    );
    let related = &d["related"][0];
    assert!(
        related["message"]
            .as_str()
            .unwrap()
            .contains("bound only here"),
        "{d:#}"
    );
    assert_eq!(
        (&related["sheet"], &related["cell"]),
        (&Value::from("Rules"), &Value::from("D3"))
    );
    let d = defect(
        |_, _, rules| rules[1][3] = s("seat(X), not takn(X)"),
        "never-produced",
        "Rules",
        "D2",
    );
    assert_eq!(d["severity"], "warning");
}

/// A project of the native script `script` run by the bench location (props `seat1`, `seat2`
/// of kind `seat`); `check --format json` on it.
fn check_native(script: &str) -> (i32, Value) {
    let dir = project(&[
        ("t.script.ron", script),
        ("bench.smartloc.ron", RON_PLACE),
        ("w.locations.ron", RON_WORLD),
        ("s.scene.ron", RON_SCENE),
    ]);
    check_json(dir.path().to_str().unwrap())
}

/// Which sorts each predicate position holds is a fixpoint over the rules, however long the
/// chain that carries a prop from rule to rule: `seat1` reaches `p9` through nine rules (written
/// in the order that needs the most rounds), so deleting `p9(S)` for a seat matches.
#[test]
fn sorts_flow_through_chains_of_any_length() {
    let mut rules = Vec::new();
    // Participants reach every link at once.
    for k in 1..=8 {
        rules.push(format!(
            r#"Rule(rule: "own{k}", precondition: "not p{k}(.me)", add: "p{k}(.me)")"#
        ));
    }
    rules.push(r#"Rule(rule: "last", precondition: "p8(X)", add: "p9(X)")"#.to_string());
    for k in (2..=8).rev() {
        rules.push(format!(
            r#"Rule(rule: "link{k}", precondition: "p{}(X)", add: "p{k}(X)")"#,
            k - 1
        ));
    }
    rules.push(
        r#"Rule(rule: "clear", precondition: "seat(S), not p9(.me)", delete: "p9(S)")"#.to_string(),
    );
    rules.push(r#"Rule(rule: "link1", precondition: "seat(X)", add: "p1(X)")"#.to_string());
    let script = format!(
        r#"Script(name: "t", roles: [Role(name: "guest", min: "1", max: "2")], rules: [{}])"#,
        rules.join(",\n")
    );
    let (code, doc) = check_native(&script);
    assert!(
        !doc.to_string().contains("deletion-never-matches"),
        "{doc:#}"
    );
    assert_eq!(code, 0, "{doc:#}");
}

/// An earlier rule that uses a variable before binding it never holds (the literal fails at
/// run time), so it shadows nothing; nor does one that reads a variable a negation saw unbound.
#[test]
fn rules_that_bind_too_late_shadow_nothing() {
    for (early, later) in [
        (
            "T + 60 < .now, since(.me, T)",
            "since(.me, T), T + 60 < .now",
        ),
        ("not resting(X), .any(X)", ".any(X), not resting(X)"),
    ] {
        let script = RON_SCRIPT.replacen(
            r#"next_state: "resting"),"#,
            &format!(
                r#"next_state: "resting"),
        Rule(rule: "early", role: "guest", state: "resting", precondition: "{early}", action: "wave"),
        Rule(rule: "later", role: "guest", state: "resting", precondition: "{later}", action: "nod"),"#
            ),
            1,
        );
        let (_, doc) = check_native(&script);
        let shadowed: Vec<&Value> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["code"] == "unexecutable-rule"
                    && d["message"]
                        .as_str()
                        .unwrap()
                        .contains("rule early comes first")
            })
            .collect();
        assert!(shadowed.is_empty(), "{early} / {later}: {shadowed:#?}");
        // The earlier rule's own defect is what is reported.
        assert!(
            doc.to_string().contains("uninstantiated-variable")
                || doc.to_string().contains("unsafe-negation"),
            "{doc:#}"
        );
    }
}

/// A cell that cannot be read is reported once, at the cell: the rule is not checked as if the
/// cell were empty (an empty precondition would shadow every later rule, an empty addition
/// would leave what it adds "never produced").
#[test]
fn a_cell_that_cannot_be_read_causes_no_follow_up_errors() {
    for (from, to) in [
        (
            r#"precondition: "seat(X), not taken(X)""#,
            r#"precondition: "seat(X), not taken(X""#,
        ),
        (
            r#"deferred_add: "resting(.me), since(.me, .now)""#,
            r#"deferred_add: "resting(.me), since(.me, .now""#,
        ),
    ] {
        let (code, doc) = check_native(&RON_SCRIPT.replacen(from, to, 1));
        assert_eq!(code, 1);
        let codes: Vec<&str> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, ["syntax"], "{to}: {doc:#}");
    }
}

/// A failure rate outside 0..=1 is refused, not clamped (2 used to mean "always", NaN "never").
#[test]
fn a_failure_rate_that_is_not_a_probability_is_refused() {
    for bad in ["2", "-0.5", "nan", "often"] {
        let out = ensemble(&[
            "run",
            &repo_path("samples/bench"),
            "--scene",
            "bench",
            "--ticks",
            "10",
            &format!("--fail-rate={bad}"),
        ]);
        assert_eq!(out.code, 2, "{bad}: {}", out.stdout);
        assert!(
            out.stderr.contains("not a probability from 0 to 1"),
            "{bad}: {}",
            out.stderr
        );
    }
}
