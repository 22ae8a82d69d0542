//! Hardened inputs (issue 23): every reproducer the fuzzer found, as a test. Writers never
//! replace their own input; input that controls a size meets a limit with a located diagnostic
//! instead of an abort; checks stay near-linear; the same input gives the same bytes.

use ensemble_tests::{ensemble, repo_path};
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

/// A command told to write over its input is refused with exit 2, and the input is intact.
fn assert_refused(args: &[&str], input: &Path) {
    let before = std::fs::read(input).unwrap();
    let r = ensemble(args);
    assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    assert!(
        r.stderr.contains("is also an input") && r.stderr.contains("refusing to overwrite"),
        "{args:?}: {}",
        r.stderr
    );
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn import_refuses_to_overwrite_its_workbook_by_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::copy(repo_path("samples/bench/bench.xlsx"), &xlsx).unwrap();
    assert_refused(&["import", s(&xlsx), "-o", s(&xlsx)], &xlsx);
    // Another spelling of the same path, and a hard link to the same file.
    let dotted = dir.path().join(".").join("bench.xlsx");
    assert_refused(&["import", s(&xlsx), "-o", s(&dotted)], &xlsx);
    let linked = dir.path().join("linked.xlsx");
    std::fs::hard_link(&xlsx, &linked).unwrap();
    assert_refused(&["import", s(&xlsx), "-o", s(&linked)], &xlsx);
}

#[test]
fn export_refuses_to_overwrite_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("bench.script.ron");
    std::fs::copy(repo_path("samples/bench/bench.script.ron"), &ron).unwrap();
    // A workbook name that is a hard link to the script itself.
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::hard_link(&ron, &xlsx).unwrap();
    assert_refused(&["export", s(&ron), "-o", s(&xlsx)], &ron);
}

#[test]
fn nav_build_refuses_its_map_and_says_cannot_write_when_writing_fails() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("yard.map");
    std::fs::copy(repo_path("tests/fixtures/nav-grid/yard.map"), &map).unwrap();
    assert_refused(&["nav", "build", s(&map), "-o", s(&map)], &map);
    let missing = dir.path().join("no-such-folder").join("yard.ensnav");
    let r = ensemble(&["nav", "build", s(&map), "-o", s(&missing)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert!(!r.stderr.contains("cannot read"), "{}", r.stderr);
}

#[test]
fn ngram_build_refuses_its_corpus_and_writes_ordinary_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "The cat sat on the mat. The dog sat on the log.\n").unwrap();
    assert_refused(&["ngram", "build", s(&corpus), "-o", s(&corpus)], &corpus);
    let db = dir.path().join("corpus.ngr");
    let r = ensemble(&["ngram", "build", s(&corpus), "-o", s(&db)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // The mode a plain `File::create` gets under this process's umask (0644 under 022).
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        assert_eq!(mode(&db), mode(&plain));
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "no temporary left behind: {names:?}"
    );
}

#[test]
fn build_refuses_a_string_table_over_a_source_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("bench");
    std::fs::create_dir(&project).unwrap();
    for entry in std::fs::read_dir(repo_path("samples/bench")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), project.join(entry.file_name())).unwrap();
        }
    }
    let script = project.join("bench.script.ron");
    assert_refused(&["build", s(&project), "--strings", s(&script)], &script);
}

#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::copy(repo_path("samples/bench/bench.xlsx"), &xlsx).unwrap();
    // What `kill -9` during a write leaves: a temporary of ours whose process is gone.
    let leftover = dir.path().join(".ensemble-4294967294-Ab12Cd.tmp");
    std::fs::write(&leftover, "half a file").unwrap();
    let out = dir.path().join("bench.script.ron");
    let r = ensemble(&["import", s(&xlsx), "-o", s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    if Path::new("/proc/self").exists() {
        assert!(!leftover.exists(), "the stale temporary file is cleaned");
    }
}

/// A small valid workbook script, with one value far out in cell XFD100000 of its Script sheet.
fn far_cell_workbook(path: &Path) {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheets: [(&str, &[&[&str]]); 3] = [
        (
            "Script",
            &[&["Key", "Value"], &["Name", "far"], &["Initial State", "s"]],
        ),
        ("Roles", &[&["Role", "Min", "Max"], &["r", "0", "1"]]),
        (
            "Rules",
            &[
                &[
                    "Rule",
                    "Role",
                    "State",
                    "Precondition",
                    "Action",
                    "Target",
                    "Parameters",
                    "Add",
                ],
                &["1", "r", "s", "not done(.me)", "", "", "", "done(.me)"],
            ],
        ),
    ];
    for (name, rows) in sheets {
        let ws = wb.add_worksheet();
        ws.set_name(name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, text) in row.iter().enumerate() {
                if !text.is_empty() {
                    ws.write_string(r as u32, c as u16, *text).unwrap();
                }
            }
        }
        if name == "Script" {
            // XFD100000: the last column, row 100,000.
            ws.write_string(99_999, 16_383, "far away").unwrap();
        }
    }
    wb.save(path).unwrap();
}

/// Issue 23: one far cell made `check`, `import` and `run` allocate a dense 52 GB grid and
/// abort. The sheet is now read cell by cell.
#[test]
fn a_far_workbook_cell_is_read_without_a_dense_grid() {
    let dir = tempfile::tempdir().unwrap();
    let xlsx = dir.path().join("far.xlsx");
    far_cell_workbook(&xlsx);
    let r = ensemble(&["check", s(&xlsx)]);
    assert!(r.code <= 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("far:"),
        "the script was read: {}",
        r.stderr
    );
    let out = dir.path().join("far.script.ron");
    let r = ensemble(&["import", s(&xlsx), "-o", s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("name: \"far\""), "{text}");
}

/// A one-rule script whose precondition and supplies are given.
fn one_rule_script(dir: &Path, precondition: &str, supplies: &str) -> String {
    let path = dir.join("big.script.ron");
    std::fs::write(
        &path,
        format!(
            r#"Script(
    name: "big",
    initial_state: "s",
    supplies: "{supplies}",
    roles: [Role(name: "r", min: "0", max: "1")],
    rules: [
        Rule(rule: "1", state: "s", precondition: "{precondition}", add: "done(.me)"),
    ],
)
"#
        ),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

/// The single diagnostic of `code` in a JSON report, with its line and column.
fn located(stdout: &str, code: &str) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_str(stdout).expect("JSON diagnostics");
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {stdout}"))
        .clone();
    assert!(
        d["line"].as_u64().is_some() && d["column"].as_u64().is_some(),
        "{d}"
    );
    d
}

/// Issue 23: 20,000 distinct variables in one rule passed `check`, then `run` allocated 9.6 GB;
/// 70,000 literals gave an internal error with no location. Both are located `check` errors.
#[test]
fn rules_past_the_variable_and_literal_limits_are_located_check_errors() {
    let dir = tempfile::tempdir().unwrap();
    let vars: Vec<String> = (0..20_000).map(|i| format!("V{i}")).collect();
    let script = one_rule_script(dir.path(), &format!("p({})", vars.join(", ")), "p/1");
    let r = ensemble(&["check", &script, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = located(&r.stdout, "limit-exceeded");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("`V256` is one too many"),
        "{d}"
    );
    assert_eq!(d["line"], 7);
    let literals: Vec<String> = (0..70_000).map(|i| format!("p(V{i})")).collect();
    let script = one_rule_script(dir.path(), &literals.join(", "), "p/1");
    let r = ensemble(&["check", &script, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = located(&r.stdout, "limit-exceeded");
    assert!(
        d["message"].as_str().unwrap().contains("70000 literals"),
        "{d}"
    );
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["code"] != "internal"),
        "{}",
        r.stdout
    );
}

/// Issue 23: `supplies: "asks/18446744073709551615"` ran 30 s to 3.9 GB; it is a located error.
#[test]
fn an_unbounded_supplied_arity_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let script = one_rule_script(dir.path(), "asks(X)", "asks/18446744073709551615");
    let r = ensemble(&["check", &script, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = located(&r.stdout, "syntax");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("asks/18446744073709551615"),
        "{d}"
    );
    assert!(d["notes"].to_string().contains("up to 64"), "{d}");
}

/// Issue 23: one state with 30,000 transitions on one 600 KB line gave 30,000 diagnostics each
/// quoting the line. The human report is now capped per file and code and quotes no such line.
#[test]
fn thirty_thousand_diagnostics_on_one_line_render_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let transitions = vec![r#"("Empty", "Finish")"#; 30_000].join(", ");
    let path = dir.path().join("Big.machine.ron");
    std::fs::write(
        &path,
        format!("Machine(\n    name: \"Big\",\n    states: [\n        (name: \"Start\", on: [{transitions}]),\n        (name: \"Finish\"),\n    ],\n)\n"),
    )
    .unwrap();
    let r = ensemble(&["check", s(&path)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.len() < 20_000,
        "{} bytes of report",
        r.stderr.len()
    );
    assert!(
        r.stderr
            .contains("and 29979 more [duplicate-name] diagnostics"),
        "{}",
        &r.stderr[r.stderr.len() - 500..]
    );
    assert!(r.stderr.contains("not quoted"), "the long line is elided");
    assert!(
        r.stderr.contains("29999 errors"),
        "the summary still counts them all"
    );
    // The JSON report still lists every one.
    let r = ensemble(&["check", s(&path), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 29_999);
}

/// Issue 23: 10,000 unclosed `(` in a PDDL file printed 151 MB.
#[test]
fn ten_thousand_unclosed_parentheses_print_a_bounded_report() {
    let dir = tempfile::tempdir().unwrap();
    let domain = dir.path().join("d.pddl");
    std::fs::write(&domain, "(".repeat(10_000)).unwrap();
    let problem = dir.path().join("p.pddl");
    std::fs::write(
        &problem,
        "(define (problem x) (:domain d) (:init) (:goal (p)))",
    )
    .unwrap();
    let r = ensemble(&["plan", s(&domain), s(&problem)]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.len() < 20_000,
        "{} bytes of report",
        r.stderr.len()
    );
    assert!(
        r.stderr.contains("nest more than 256 levels"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("more [syntax] diagnostics in"),
        "{}",
        r.stderr
    );
}

/// Writes a task whose grounding explodes: `n` objects and a three-parameter action with no
/// precondition give n^3 ground actions. The domain and problem files.
fn exploding_task(dir: &std::path::Path, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let domain = dir.join("d.pddl");
    std::fs::write(&domain, "(define (domain d) (:predicates (p ?a ?b ?c))\n(:action a :parameters (?a ?b ?c) :precondition () :effect (p ?a ?b ?c)))").unwrap();
    let objects: String = (0..n).map(|i| format!("o{i} ")).collect();
    let problem = dir.join("p.pddl");
    std::fs::write(
        &problem,
        format!(
            "(define (problem x) (:domain d) (:objects {objects}) (:init) (:goal (p o0 o0 o0)))"
        ),
    )
    .unwrap();
    (domain, problem)
}

/// Issue 23: `--time-limit` stops grounding (100,000 objects never finished).
#[test]
fn plan_time_limit_stops_grounding() {
    let dir = tempfile::tempdir().unwrap();
    let (domain, problem) = exploding_task(dir.path(), 100_000);
    let r = ensemble(&["plan", s(&domain), s(&problem), "--time-limit", "0.5"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("grounding stopped by the time limit"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("d.pddl:2:"),
        "located at the action: {}",
        r.stderr
    );
}

/// Issue 21: `--memory-limit` stops grounding too, with a clean JSON error naming the limit.
#[test]
fn plan_memory_limit_stops_grounding() {
    let dir = tempfile::tempdir().unwrap();
    let (domain, problem) = exploding_task(dir.path(), 1000);
    let r = ensemble(&[
        "plan",
        s(&domain),
        s(&problem),
        "--memory-limit",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let j: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stdout);
    let d = j["diagnostics"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["code"] == "limit-exceeded"))
        .unwrap_or_else(|| panic!("{j}"));
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("memory limit of 2.0 MiB") && message.contains("ground actions"),
        "{message}"
    );
    assert_eq!(d["line"], 2, "located at the action: {d}");
}

/// Issue 23: `check` grew with the square of a scene's agents (20,000 agents: 38.5 s).
#[test]
fn a_scene_with_twenty_thousand_agents_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("bench");
    std::fs::create_dir(&project).unwrap();
    for name in [
        "Ensemble.ron",
        "bench.locations.ron",
        "bench.script.ron",
        "bench.smartloc.ron",
    ] {
        std::fs::copy(
            repo_path(&format!("samples/bench/{name}")),
            project.join(name),
        )
        .unwrap();
    }
    let agents: Vec<String> = (0..20_000)
        .map(|i| {
            format!(r#"(name: "a{i}", at: "WestGate", roles: ["tourist"], route: ["EastGate"])"#)
        })
        .collect();
    std::fs::write(
        project.join("bench.scene.ron"),
        format!(
            "Scene(name: \"bench\", tick_rate: 30, agents: [\n{}\n])\n",
            agents.join(",\n")
        ),
    )
    .unwrap();
    let r = ensemble(&["check", s(&project)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("bench: 0 errors, 0 warnings"),
        "{}",
        r.stderr
    );
    // A duplicate among them is still found, at the second one, naming the first.
    let text = std::fs::read_to_string(project.join("bench.scene.ron")).unwrap();
    std::fs::write(
        project.join("bench.scene.ron"),
        text.replace(r#"name: "a19999""#, r#"name: "a7""#),
    )
    .unwrap();
    let r = ensemble(&["check", s(&project), "--format", "json"]);
    assert_eq!(r.code, 1);
    let d = located(&r.stdout, "duplicate-name");
    assert_eq!(d["line"], 20_001, "{d}");
    assert_eq!(d["related"][0]["line"], 9, "{d}");
}

/// Issue 23: 250,000 duplicate states took over 120 s to check.
#[test]
fn a_machine_with_a_quarter_million_duplicate_states_checks_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let n = 250_000;
    let states = vec![r#"        (name: "S", on: [("Empty", "S")])"#; n].join(",\n");
    let path = dir.path().join("Dup.machine.ron");
    std::fs::write(
        &path,
        format!("Machine(\n    name: \"Dup\",\n    states: [\n        (name: \"Start\", on: [(\"Empty\", \"S\")]),\n{states}\n    ],\n)\n"),
    )
    .unwrap();
    let r = ensemble(&["check", s(&path)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains(&format!("and {} more [duplicate-name]", n - 1 - 20)),
        "{}",
        &r.stderr[r.stderr.len().saturating_sub(800)..]
    );
}

/// Issue 23: the same input gives the same bytes. Build, export and import twice (a second
/// apart, so a timestamp would differ) and compare.
#[test]
fn build_export_and_import_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let bench = repo_path("samples/bench");
    let script = repo_path("samples/bench/bench.script.ron");
    let run = |n: u32| -> Vec<Vec<u8>> {
        let out = dir.path().join(format!("run{n}"));
        std::fs::create_dir(&out).unwrap();
        let r = ensemble(&["build", &bench, "-o", s(&out)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let xlsx = out.join("bench.xlsx");
        let r = ensemble(&["export", &script, "-o", s(&xlsx)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let ron = out.join("bench.script.ron");
        let r = ensemble(&["import", s(&xlsx), "-o", s(&ron)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        [
            "bench.ensb",
            "bench.ensdbg",
            "bench.xlsx",
            "bench.script.ron",
        ]
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect()
    };
    let first = run(1);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = run(2);
    for (i, (a, b)) in first.iter().zip(&second).enumerate() {
        assert!(a == b, "output {i} differs between two runs");
    }
}
