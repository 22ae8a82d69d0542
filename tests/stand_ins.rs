//! A project whose game adds its own states runs without the game: `ensemble run` (and content
//! tests) stand in for them as the statelib or `--stand-in` says, and say so once
//! (docs/formats/statelib.md, "Stand-ins"). The forge of the C ABI's tests has the game's
//! `Hammer` (runtime/capi/tests/forge/forge.statelib.ron: typed parameters, raises `Done`).

use ensemble_tests::{copy_dir, ensemble, json_lines, line_col, repo_path};
use serde_json::Value;
use std::path::Path;

const FORGE: &str = "runtime/capi/tests/forge";

fn run(project: &str, extra: &[&str]) -> (i32, Vec<Value>, String) {
    let mut args = vec!["run", project, "--scene", "morning", "--ticks", "200"];
    args.extend_from_slice(&["--trace", "json"]);
    args.extend_from_slice(extra);
    let out = ensemble(&args);
    let events = if out.code == 0 {
        json_lines(&out.stdout)
    } else {
        Vec::new()
    };
    (out.code, events, out.stderr)
}

/// The tick at which the smith entered (`"enter"`) or left (`"exit"`) the forge's state.
fn tick(events: &[Value], event: &str, state: &str) -> Option<u64> {
    events
        .iter()
        .find(|e| e["event"] == event && e["machine"] == "Forge" && e["state"] == state)
        .and_then(|e| e["tick"].as_u64())
}

/// How many ticks the smith spent in `Hammer`.
fn hammer_lasts(events: &[Value]) -> Option<u64> {
    let entered = tick(events, "enter", "Hammer")?;
    Some(tick(events, "exit", "Hammer")? - entered)
}

#[test]
fn the_forge_runs_without_its_game_standing_in_for_the_hammer() {
    let (code, events, stderr) = run(&repo_path(FORGE), &[]);
    assert_eq!(code, 0, "{stderr}");
    let note = "note: `Hammer` is the game's; standing it in: 1 s, then raises `Done`";
    assert_eq!(stderr.matches(note).count(), 1, "{stderr}");
    assert_eq!(stderr.matches("note:").count(), 1, "{stderr}");
    // One second of scene time at 10 ticks a second, then `Done` takes the smith on.
    assert_eq!(hammer_lasts(&events), Some(10), "{events:#?}");
    assert_eq!(
        tick(&events, "enter", "Hand"),
        tick(&events, "exit", "Hammer")
    );
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "add" && e["fact"] == "Horseshoe(customer) = a bronze horseshoe"),
        "the handed-over shoe"
    );
    // The customer got its shoe and went home.
    assert!(
        events.iter().any(|e| e["agent"] == "customer"
            && e["event"] == "enter"
            && e["machine"] == "Customer"
            && e["state"] == "Finish"),
        "the customer did not finish"
    );
}

#[test]
fn a_flag_chooses_how_long_and_a_wrong_one_is_refused() {
    let (code, events, stderr) = run(&repo_path(FORGE), &["--stand-in", "Hammer=2.5s,Done"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: `Hammer` is the game's; standing it in: 2.5 s, then raises `Done`"),
        "{stderr}"
    );
    assert_eq!(hammer_lasts(&events), Some(25));
    for (flag, says) in [
        (
            "Hamer=1",
            "error: --stand-in: `Hamer` is not a game state of the program (it uses `Hammer`)",
        ),
        (
            "Hammer=Dne",
            "error: --stand-in: `Hammer` does not raise `Dne` (it raises `Done`)",
        ),
    ] {
        let (code, _, stderr) = run(&repo_path(FORGE), &["--stand-in", flag]);
        assert_eq!(code, 2, "{flag}: {stderr}");
        assert!(stderr.contains(says), "{flag}: {stderr}");
    }
    let (code, _, stderr) = run(&repo_path(FORGE), &["--stand-in", "Hammer"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("STATE=SECONDS,EVENT"), "{stderr}");
}

/// The forge copied with its statelib's `Hammer` declaration edited.
fn forge_with(hammer_tail: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(&repo_path(FORGE)), dir.path());
    let path = dir.path().join("forge.statelib.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        r#"], raises: ["Done"], doc:"#,
        &format!(r#"], raises: ["Done"], {hammer_tail} doc:"#),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    (dir, edited)
}

#[test]
fn the_statelib_declares_the_stand_in_and_a_built_program_keeps_it() {
    let (dir, _) = forge_with(r#"stand_in: (seconds: 3.0, raises: "Done"),"#);
    let project = dir.path().to_str().unwrap();
    let (code, events, stderr) = run(project, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("standing it in: 3 s, then raises `Done`"),
        "{stderr}"
    );
    assert_eq!(hammer_lasts(&events), Some(30));
    // Built, the program carries the stand-in: a `.ensb` runs the same.
    let out = dir.path().join("out");
    let built = ensemble(&["build", project, "-o", out.to_str().unwrap()]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let program = out.join("forge.ensb");
    let (code, from_program, stderr) = run(program.to_str().unwrap(), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("standing it in: 3 s"), "{stderr}");
    assert_eq!(from_program, events);
}

#[test]
fn a_stand_in_raising_an_undeclared_event_is_an_error_where_it_is_written() {
    let (dir, text) = forge_with(r#"stand_in: (seconds: 2.0, raises: "Dnoe"),"#);
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let (line, column) = line_col(&text, r#""Dnoe""#);
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "unknown-reference")
        .unwrap_or_else(|| panic!("no unknown-reference in {doc:#}"));
    assert_eq!(d["severity"], "error", "{d:#}");
    assert_eq!(d["file"], "forge.statelib.ron");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d:#}"
    );
    assert!(
        d["notes"].to_string().contains("did you mean `Done`"),
        "{d:#}"
    );
    // A time below zero is refused at its value too.
    let (dir, text) = forge_with("stand_in: (seconds: -1.0),");
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let (line, column) = line_col(&text, "-1.0");
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "invalid-value"
                && (d["line"].as_u64(), d["column"].as_u64()) == (Some(line), Some(column))),
        "{doc:#}"
    );
}

#[test]
fn content_tests_run_against_stand_ins() {
    let (dir, _) = forge_with("");
    std::fs::write(
        dir.path().join("hammer.test.ron"),
        r#"Tests(
    tests: [
        Test(
            name: "the smith hands over a shoe",
            scene: "morning",
            seeds: List([1, 7]),
            ticks: 200,
            expect: [
                Before(first: (event: "exit", agent: "smith", state: "Hammer"), then: (event: "enter", agent: "smith", state: "Hand")),
                Happens(what: (event: "enter", agent: "customer", machine: "Customer", state: "Finish")),
            ],
        ),
    ],
)
"#,
    )
    .unwrap();
    let out = ensemble(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("1 tests passed"), "{}", out.stdout);
    assert_eq!(
        out.stderr,
        "note: `Hammer` is the game's; standing it in: 1 s, then raises `Done` (the tests run against the stand-in)\n"
    );
}
