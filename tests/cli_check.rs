//! `ensemble check`: exit codes, the JSON document of DESIGN.md, and the seed's broken example.

use ensemble_tests::{copy_dir, edit, ensemble, repo_path, root};
use serde_json::Value;
use std::path::Path;

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn diagnostics(doc: &Value) -> &Vec<Value> {
    doc["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
}

/// The innkeeper copied, one file edited as `edit` does, checked: the JSON document, after
/// asserting the run failed and that exactly one error came of it, which is returned too.
fn innkeeper_with_one_error(file: &str, from: &str, to: &str) -> (Value, Value) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("samples/innkeeper"), dir.path());
    edit(dir.path(), file, from, to);
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1);
    let doc = json(&out.stdout);
    let errors: Vec<&Value> = diagnostics(&doc)
        .iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let error = errors[0].clone();
    (doc, error)
}

#[test]
fn airport_sample_is_clean() {
    let out = ensemble(&["check", &repo_path("samples/airport"), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc = json(&out.stdout);
    assert_eq!(doc["summary"]["errors"], 0);
    assert_eq!(doc["summary"]["warnings"], 0, "{}", out.stdout);
}

#[test]
fn figure_3_6_as_printed_is_rejected_with_both_problems_located() {
    let out = ensemble(&[
        "check",
        &repo_path("samples/airport/broken"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc = json(&out.stdout);
    let ds = diagnostics(&doc);
    let unknown = ds
        .iter()
        .find(|d| d["code"] == "unknown-reference")
        .expect("an unknown-reference diagnostic");
    assert_eq!(unknown["severity"], "error");
    assert_eq!(unknown["file"], "BuyTicket.machine.ron");
    assert_eq!(unknown["line"], 12);
    assert!(unknown["message"].as_str().unwrap().contains("LeaveAtX"));
    let unreachable = ds
        .iter()
        .find(|d| {
            d["code"] == "unreachable-state" && d["message"].as_str().unwrap().contains("LeaveAtY")
        })
        .expect("LeaveAtY reported unreachable");
    assert_eq!(unreachable["file"], "BuyTicket.machine.ron");
    assert_eq!(unreachable["line"], 13);
    assert_eq!(unreachable["column"], 16);
    // Every diagnostic has the fields DESIGN.md fixes.
    for d in ds {
        for key in [
            "severity", "code", "message", "file", "line", "column", "sheet", "cell", "related",
        ] {
            assert!(d.get(key).is_some(), "missing `{key}` in {d}");
        }
    }
    assert_eq!(doc["summary"]["errors"], 1);
}

#[test]
fn human_output_shows_the_source_line_and_a_suggestion() {
    let out = ensemble(&["check", &repo_path("samples/airport/broken")]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("error[unknown-reference]"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("BuyTicket.machine.ron:12:"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `LeaveAtY`?"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("airport-broken: 1 error, 2 warnings"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_single_machine_file_can_be_checked() {
    // A self-contained machine (the airport's now speak sentence states defined elsewhere).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Greet.machine.ron");
    std::fs::write(
        &file,
        r#"Machine(name: "Greet", states: [(name: "Start", on: [("Empty", "Salutation")]), (name: "Salutation", on: [("FinishStatement", "Finish")]), (name: "Finish")])"#,
    )
    .unwrap();
    let out = ensemble(&["check", file.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    // The sentence states of the sample check on their own too.
    let out = ensemble(&[
        "check",
        &repo_path("samples/airport/airport.sentences.ron"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn missing_paths_and_non_projects_cannot_run() {
    let out = ensemble(&["check", "/definitely/not/here"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no such file or directory"),
        "{}",
        out.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let out = ensemble(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not an Ensemble project"),
        "{}",
        out.stderr
    );
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    let out = ensemble(&["check", txt.to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not an Ensemble source file"),
        "{}",
        out.stderr
    );
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(ensemble(&["check"]).code, 2);
    assert_eq!(ensemble(&["frobnicate"]).code, 2);
    assert_eq!(ensemble(&["check", ".", "--format", "xml"]).code, 2);
    assert_eq!(ensemble(&["--help"]).code, 0);
}

/// Writes a project with the given files into a temporary directory.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Ensemble.ron"), "Project(name: \"t\")").unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn check_json(dir: &tempfile::TempDir) -> (i32, Value) {
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    (out.code, json(&out.stdout))
}

fn codes(doc: &Value) -> Vec<String> {
    diagnostics(doc)
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn malformed_ron_is_a_located_syntax_error() {
    let dir = project(&[(
        "m.machine.ron",
        "Machine(\n    name: \"M\",\n    states: [\n        (name: \"Start\" on: []),\n    ],\n)\n",
    )]);
    let (code, doc) = check_json(&dir);
    assert_eq!(code, 1);
    let d = &diagnostics(&doc)[0];
    assert_eq!(d["code"], "syntax");
    assert_eq!(d["file"], "m.machine.ron");
    assert_eq!(d["line"], 4);
}

#[test]
fn misspelt_field_names_are_reported() {
    let dir = project(&[(
        "m.machine.ron",
        "Machine(name: \"M\", states: [(name: \"Start\", onn: [])])",
    )]);
    let (code, doc) = check_json(&dir);
    assert_eq!(code, 1);
    let d = &diagnostics(&doc)[0];
    assert_eq!(d["code"], "syntax");
    assert!(d["message"].as_str().unwrap().contains("onn"), "{d}");
}

#[test]
fn every_problem_is_reported_at_once() {
    let machine = r#"Machine(
    name: "M",
    states: [
        (name: "Start", on: [("Empty", "Goto1"), ("Empty", "Wait1")]),
        (name: "Goto1", modifier: "Nowhere", on: [("ReachedLocaton", "Start")]),
        (name: "Goto1", modifier: "Home"),
        (name: "Wait1"),
        (name: "Dance1", on: [("Done", "Start")]),
        (name: "TalkStateMachine", on: [("EndStateMachine", "Start")]),
    ],
)"#;
    let noinit =
        r#"Machine(name: "N", states: [(name: "Idle", code: "Listen", on: [("Go", "Idle")])])"#;
    let cycle_a = r#"Machine(name: "A", states: [(name: "Start", on: [("Empty", "TalkStateMachine")]), (name: "TalkStateMachine", modifier: "B")])"#;
    let cycle_b = r#"Machine(name: "B", states: [(name: "TalkStateMachine", modifier: "A")])"#;
    let places = r#"Locations(locations: [(name: "Home", x: 0.0, y: 0.0)])"#;
    let scene = r#"Scene(name: "s", agents: [(name: "a", machine: "Mm", at: "Home"), (name: "a", machine: "M", at: "Away")])"#;
    let dir = project(&[
        ("m.machine.ron", machine),
        ("n.machine.ron", noinit),
        ("a.machine.ron", cycle_a),
        ("b.machine.ron", cycle_b),
        ("p.locations.ron", places),
        ("s.scene.ron", scene),
        ("notes.ron", "()"),
    ]);
    let (code, doc) = check_json(&dir);
    assert_eq!(code, 1);
    let codes = codes(&doc);
    for expected in [
        "duplicate-name",
        "unknown-reference",
        "unreachable-state",
        "no-initial-state",
        "dead-end-state",
        "recursive-machine",
        "modifier-mismatch",
        "unknown-event",
        "unknown-asset",
    ] {
        assert!(
            codes.iter().any(|c| c == expected),
            "missing {expected} in {codes:?}"
        );
    }
    // `Dance1` names no library state; the unknown location, the misspelt machine and start
    // location are all reported separately.
    let messages: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    for needle in ["`Dance`", "`Nowhere`", "`Mm`", "`Away`", "ReachedLocaton"] {
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "nothing mentions {needle}: {messages:#?}"
        );
    }
}

#[test]
fn agent_modifiers_must_name_agents_of_the_scene() {
    let machine = r#"Machine(name: "M", states: [(name: "Start", on: [("Empty", "RequestConversation")]), (name: "RequestConversation", modifier: "sellr", on: [("ConversationCoupled", "Finish")]), (name: "Finish")])"#;
    let places = r#"Locations(locations: [(name: "Home", x: 0.0, y: 0.0)])"#;
    let scene = r#"Scene(name: "s", agents: [(name: "seller", machine: "M", at: "Home")])"#;
    let dir = project(&[
        ("m.machine.ron", machine),
        ("p.locations.ron", places),
        ("s.scene.ron", scene),
    ]);
    let (code, doc) = check_json(&dir);
    assert_eq!(code, 1);
    let d = diagnostics(&doc)
        .iter()
        .find(|d| d["code"] == "unknown-reference")
        .unwrap();
    assert!(d["message"].as_str().unwrap().contains("sellr"), "{d}");
    assert_eq!(d["related"][0]["file"], "s.scene.ron");
}

#[test]
fn non_utf8_sources_are_reported_not_panicked_on() {
    let dir = project(&[]);
    std::fs::write(dir.path().join("x.machine.ron"), [0xff, 0xfe, b'(', b')']).unwrap();
    let (code, doc) = check_json(&dir);
    assert_eq!(code, 1);
    assert!(codes(&doc).iter().all(|c| c == "syntax"));
}

/// A single-file workbook whose Rules sheet lacks required columns: diagnostics located by
/// sheet and cell rather than by line.
fn workbook_missing_columns(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("half.xlsx");
    let mut wb = rust_xlsxwriter::Workbook::new();
    let script = wb.add_worksheet();
    script.set_name("Script").unwrap();
    script.write_string(0, 0, "Key").unwrap();
    script.write_string(0, 1, "Value").unwrap();
    script.write_string(1, 0, "name").unwrap();
    script.write_string(1, 1, "half").unwrap();
    let rules = wb.add_worksheet();
    rules.set_name("Rules").unwrap();
    rules.write_string(0, 0, "Rule").unwrap();
    wb.save(&path).unwrap();
    path
}

/// The official SARIF 2.1.0 schema (OASIS, errata 01), vendored.
fn sarif_validator() -> jsonschema::Validator {
    let text =
        std::fs::read_to_string(repo_path("tests/fixtures/sarif-schema-2.1.0.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft4::new(&schema).expect("the SARIF schema compiles")
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let validator = sarif_validator();
    let dir = tempfile::tempdir().unwrap();
    let workbook = workbook_missing_columns(dir.path());
    let inputs = [
        (repo_path("samples/airport/broken"), 1),
        (repo_path("samples/airport"), 0),
        (workbook.to_string_lossy().into_owned(), 1),
    ];
    for (path, code) in inputs {
        let out = ensemble(&["check", &path, "--format", "sarif"]);
        assert_eq!(out.code, code, "{path}: {}", out.stderr);
        let log = json(&out.stdout);
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{path}: {errors:#?}\n{:#}", log);
        assert_eq!(log["version"], "2.1.0");
        let results = log["runs"][0]["results"].as_array().unwrap();
        if code == 1 {
            assert!(results.iter().any(|r| r["level"] == "error"), "{log:#}");
        }
        // Every result's rule is among the driver's rules, at its index.
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        for r in results {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], r["ruleId"]);
        }
    }
    // The broken airport's error is where `check --format json` says it is.
    let out = ensemble(&[
        "check",
        &repo_path("samples/airport/broken"),
        "--format",
        "sarif",
    ]);
    let log = json(&out.stdout);
    let error = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "unknown-reference")
        .unwrap()
        .clone();
    let doc = json(
        &ensemble(&[
            "check",
            &repo_path("samples/airport/broken"),
            "--format",
            "json",
        ])
        .stdout,
    );
    let d = diagnostics(&doc)
        .iter()
        .find(|d| d["code"] == "unknown-reference")
        .unwrap();
    let at = &error["locations"][0]["physicalLocation"];
    assert!(
        at["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with(&format!(
                "samples/airport/broken/{}",
                d["file"].as_str().unwrap()
            ))
    );
    assert_eq!(at["region"]["startLine"], d["line"]);
    assert_eq!(at["region"]["startColumn"], d["column"]);
    // A schema check that cannot fail proves nothing: a log without `version` is refused.
    let mut broken = log.clone();
    broken.as_object_mut().unwrap().remove("version");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn github_annotations_name_file_line_column_and_the_cell_of_a_workbook() {
    let broken = repo_path("samples/airport/broken");
    let out = ensemble(&["check", &broken, "--format", "github"]);
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(
            l.starts_with("::error ") || l.starts_with("::warning ") || l.starts_with("::notice "),
            "{l}"
        );
    }
    let doc = json(&ensemble(&["check", &broken, "--format", "json"]).stdout);
    let d = diagnostics(&doc)
        .iter()
        .find(|d| d["code"] == "unknown-reference")
        .unwrap();
    let expected = format!(
        "::error file={broken}/{},line={},col={},",
        d["file"].as_str().unwrap(),
        d["line"],
        d["column"]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&expected) && l.contains("title=unknown-reference::")),
        "{expected}\n{}",
        out.stdout
    );
    assert_eq!(lines.len(), diagnostics(&doc).len());

    let dir = tempfile::tempdir().unwrap();
    let workbook = workbook_missing_columns(dir.path());
    let out = ensemble(&["check", workbook.to_str().unwrap(), "--format", "github"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("::error file=") && l.contains("title=missing-column (Rules!")),
        "{}",
        out.stdout
    );
    // A clean project annotates nothing.
    let clean = ensemble(&["check", &repo_path("samples/bench"), "--format", "github"]);
    assert_eq!(clean.code, 0);
    assert!(
        clean.stdout.lines().all(|l| !l.starts_with("::error")),
        "{}",
        clean.stdout
    );
}

#[test]
fn an_unreadable_file_is_one_error_not_one_per_name_it_defines() {
    // The innkeeper with one parenthesis missing in its evidence file: every estimator its
    // spaces name would be "unknown" (hundreds of errors); the read error stands alone and
    // says how many unknown references it left out.
    let (doc, error) = innkeeper_with_one_error(
        "innkeeper.evidence.ron",
        "(name: \"player\", is: Speaker(Player)),",
        "(name: \"player\", is: Speaker(Player),",
    );
    assert_eq!(error["code"], "syntax");
    assert_eq!(error["file"], "innkeeper.evidence.ron");
    let notes = error["notes"].to_string();
    assert!(
        notes.contains("unknown references are not listed"),
        "{notes}"
    );
    // Nor is a warning that needs the unread names: with no estimator known, every action
    // state looked unheard (593 `repeating-action` warnings under the one error).
    let repeating = diagnostics(&doc)
        .iter()
        .filter(|d| d["code"] == "repeating-action")
        .count();
    assert_eq!(repeating, 0);
}

#[test]
fn an_unreadable_concepts_file_is_not_buried_under_its_translations() {
    // One parenthesis missing in the innkeeper's concepts file: every concept property its French
    // table translates looked like a line the project no longer has (1,063 warnings under the
    // one error). They are left out like unknown references, and the read error counts them.
    let (doc, error) = innkeeper_with_one_error(
        "innkeeper.concepts.ron",
        "(name: \"item\", is: [\"thing\"]),",
        "(name: \"item\", is: [\"thing\"],",
    );
    let unknown_lines = diagnostics(&doc)
        .iter()
        .filter(|d| d["code"] == "unknown-line")
        .count();
    assert_eq!(unknown_lines, 0);
    assert_eq!(error["file"], "innkeeper.concepts.ron");
    let notes = error["notes"].to_string();
    assert!(
        notes.contains("translations of lines not found are not listed"),
        "{notes}"
    );
}

// Savegames across a content patch (issue 31): the airport as shipped, then patched — a state
// renamed with a migration, an agent removed, one added. `check --against` reports what a
// savegame would lose and what it is carried through; a savegame made on the shipped build
// restores onto the patched one and goes on: the renamed state carried, the new agent started,
// the removed one retired.

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

/// The airport patched: `Goto1` renamed `WalkToCounter` (a migration declared for it unless
/// `migrate` is false), `buyer2` removed, `buyer3` added.
fn patched_airport(dir: &Path, migrate: bool) -> std::path::PathBuf {
    let patched = dir.join(if migrate {
        "airport"
    } else {
        "airport-no-migration"
    });
    copy_dir(Path::new(&repo_path("samples/airport")), &patched);
    edit(
        &patched,
        "machines/BuyTicketAtCounter.machine.ron",
        "\"Goto1\"",
        "\"WalkToCounter\"",
    );
    // The renamed state keeps its code (a name without a numeric suffix would name another).
    edit(
        &patched,
        "machines/BuyTicketAtCounter.machine.ron",
        "(name: \"WalkToCounter\",",
        "(name: \"WalkToCounter\", code: \"Goto\",",
    );
    edit(
        &patched,
        "ticket-counter.scene.ron",
        "        (name: \"buyer2\", machine: \"BuyTicketAtCounter\", at: \"SideEntrance\", variables: {\"CityName\": \"San Francisco\", \"Time\": \"noon\"}),\n",
        "        (name: \"buyer3\", machine: \"BuyTicketAtCounter\", at: \"SideEntrance\", variables: {\"CityName\": \"Chicago\", \"Time\": \"nine\"}),\n",
    );
    // Its tests name buyer2 (they would be errors of their own).
    std::fs::remove_file(patched.join("ticket-counter.test.ron")).unwrap();
    if migrate {
        edit(
            &patched,
            "Ensemble.ron",
            "locales: [\"fr\"],",
            "locales: [\"fr\"],\n    migrations: (\n        states: [(\"BuyTicketAtCounter/Goto1\", \"BuyTicketAtCounter/WalkToCounter\")],\n    ),",
        );
    }
    patched
}

/// Whether the text trace has `agent` entering `state` (`Machine/State`).
fn entered(trace: &str, agent: &str, state: &str) -> bool {
    trace.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.get(2..5) == Some(&[agent, "enter", state][..])
    })
}

/// `ensemble run PROGRAM --scene ticket-counter --ticks TICKS --restore SNAPSHOT`.
fn run_restored(program: &Path, snapshot: &Path, ticks: &str) -> ensemble_tests::Output {
    let args = [
        "run",
        s(program),
        "--scene",
        "ticket-counter",
        "--ticks",
        ticks,
    ];
    ensemble(&[&args[..], &["--restore", s(snapshot)]].concat())
}

fn build(project: &Path, out: &Path) -> std::path::PathBuf {
    let built = ensemble(&["build", s(project), "-o", s(out)]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    out.join("airport.ensb")
}

#[test]
fn a_patched_airport_reports_its_losses_migrates_a_renamed_state_and_a_savegame_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = build(
        Path::new(&repo_path("samples/airport")),
        &dir.path().join("shipped"),
    );
    let patched = patched_airport(dir.path(), true);

    // The report: the removal is a loss (exit 1); the rename and the addition are carried.
    let out = ensemble(&["check", s(&patched), "--against", s(&shipped)]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    for line in [
        "agent `buyer2` removed from scene `ticket-counter`: retired on restore",
        "carried through (no loss):",
        "state `BuyTicketAtCounter/Goto1` renamed `BuyTicketAtCounter/WalkToCounter`: carried on by the project's migration",
        "agent `buyer3` added to scene `ticket-counter`: started on restore",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    assert!(
        !out.stdout
            .contains("state `BuyTicketAtCounter/Goto1` removed"),
        "{}",
        out.stdout
    );
    let json = ensemble(&[
        "check",
        s(&patched),
        "--against",
        s(&shipped),
        "--format",
        "json",
    ]);
    let last: Value = serde_json::from_str(json.stdout.lines().last().unwrap()).unwrap();
    // The removal, and the planning agents' worlds (carried onto the very build only).
    assert_eq!(last["losses"].as_array().unwrap().len(), 2, "{last}");
    assert_eq!(last["carried"].as_array().unwrap().len(), 2, "{last}");

    // Without the migration the rename is a loss too.
    let unmigrated = patched_airport(dir.path(), false);
    let out = ensemble(&["check", s(&unmigrated), "--against", s(&shipped)]);
    assert!(
        out.stdout.contains(
            "state `BuyTicketAtCounter/Goto1` removed: an agent in it starts its machine again"
        ),
        "{}",
        out.stdout
    );

    // A savegame made on the shipped build one second in: both buyers walk to the counter.
    let snap = dir.path().join("one-second.snap");
    let saved = ensemble(&[
        "run",
        s(&shipped),
        "--scene",
        "ticket-counter",
        "--ticks",
        "30",
        "--save",
        s(&snap),
    ]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert!(
        entered(&saved.stdout, "buyer1", "BuyTicketAtCounter/Goto1"),
        "{}",
        saved.stdout
    );

    // Restored onto the patched build, it goes on.
    let new = build(&patched, &dir.path().join("new"));
    let out = run_restored(&new, &snap, "600");
    assert_eq!(out.code, 0, "{}", out.stderr);
    for note in [
        "note: the scene's agents changed: buyer3: added by the patch, started as agent #3",
        "note: the scene's agents changed: buyer2: removed by the patch, agent #2 retired",
    ] {
        assert!(out.stderr.contains(note), "{note}\n{}", out.stderr);
    }
    // buyer1 was in Goto1: carried on in WalkToCounter, not restarted.
    assert!(!out.stderr.contains("no longer exists"), "{}", out.stderr);
    let trace = &out.stdout;
    assert!(
        !entered(trace, "buyer1", "BuyTicketAtCounter/Start"),
        "{trace}"
    );
    assert!(
        entered(trace, "buyer1", "BuyTicketAtCounter/RequestConversation"),
        "buyer1 reached the counter from the carried state\n{trace}"
    );
    // The new buyer starts as the scene starts it, and walks up to the counter too.
    assert!(
        entered(trace, "buyer3", "BuyTicketAtCounter/WalkToCounter"),
        "{trace}"
    );
    assert!(
        entered(trace, "buyer3", "BuyTicketAtCounter/RequestConversation"),
        "{trace}"
    );
    // The removed one stops where it was and never acts again.
    let after_retire = trace
        .lines()
        .skip_while(|l| !(l.contains("buyer2") && l.contains("error")))
        .skip(1)
        .filter(|l| l.contains("buyer2 "))
        .count();
    assert!(trace.contains("buyer2"), "{trace}");
    assert_eq!(after_retire, 0, "{trace}");

    // Without the migration, the same savegame restarts buyer1's machine (and says so).
    let unmigrated_build = build(&unmigrated, &dir.path().join("unmigrated"));
    let out = run_restored(&unmigrated_build, &snap, "1");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("state BuyTicketAtCounter/Goto1 no longer exists"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_migration_to_a_name_the_project_lacks_or_of_a_name_it_still_has_is_an_error_where_written() {
    let dir = tempfile::tempdir().unwrap();
    let patched = patched_airport(dir.path(), true);
    edit(
        &patched,
        "Ensemble.ron",
        "\"BuyTicketAtCounter/WalkToCounter\")",
        "\"BuyTicketAtCounter/WalkToCountr\"), (\"BuyTicketAtCounter/Finish\", \"BuyTicketAtCounter/Goto2\")",
    );
    edit(
        &patched,
        "Ensemble.ron",
        "migrations: (",
        "migrations: (\n        agents: [(\"buyer2\", \"buyer3\"), (\"buyer2\", \"buyer3\")],",
    );
    let out = ensemble(&["check", s(&patched)]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    for message in [
        "the migration renames to `BuyTicketAtCounter/WalkToCountr`, which the project has no state of",
        "did you mean `BuyTicketAtCounter/WalkToCounter`",
        "the project still has the state `BuyTicketAtCounter/Finish`, which this migration renames",
        "the agent `buyer2` is migrated twice",
        "Ensemble.ron:",
    ] {
        assert!(
            out.stdout.contains(message) || out.stderr.contains(message),
            "{message}\n{}{}",
            out.stdout,
            out.stderr
        );
    }
}

#[test]
fn check_against_a_missing_shipped_build_cannot_run() {
    let missing = ensemble(&[
        "check",
        &repo_path("samples/airport"),
        "--against",
        "/nope.ensb",
    ]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("--against"), "{}", missing.stderr);
    let same_dir = tempfile::tempdir().unwrap();
    let shipped = build(Path::new(&repo_path("samples/airport")), same_dir.path());
    let same = ensemble(&[
        "check",
        &repo_path("samples/airport"),
        "--against",
        s(&shipped),
    ]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert!(
        same.stdout.contains("nothing a savegame holds is lost"),
        "{}",
        same.stdout
    );
}
