//! Smart locations beyond the script emitter, end to end: every defect in emitters, proxies
//! and scene events is reported with its code at the right line and column; scene events that
//! cannot happen at run time are `error` trace events while the scene goes on.

use ensemble_tests::{ensemble, line_col};
use serde_json::Value;
use std::collections::HashMap;

const LOCATIONS: &str = r#"Locations(locations: [
    (name: "Shop", x: 0.0, y: 0.0),
    (name: "Back", x: 0.0, y: 2.0),
    (name: "Street", x: -20.0, y: 0.0),
    (name: "Far", x: 100.0, y: 0.0),
])"#;

const SCRIPT: &str = r#"Script(
    name: "shop",
    initial_state: "open",
    roles: [
        Role(name: "keeper", min: "1", max: "1"),
        Role(name: "till", min: "1", max: "1"),
        Role(name: "customer", min: "0", max: "2", flags: "dynamicJoin"),
        Role(name: "buyer", min: "0", max: "1"),
    ],
    rules: [
        Rule(rule: "greet", role: "keeper", state: "open", precondition: "arrived(C), not greeted(C)", action: "say", target: "C", parameters: "line='Hello!'", add: "greeted(C)"),
        Rule(rule: "sold", role: "keeper", state: "open", precondition: "sale(C, I)", action: "wrap", target: "C", delete: "sale(C, I)", add: "bought(C, I)"),
        Rule(rule: "answer", role: "keeper", state: "open", precondition: "asks(C, T)", action: "say", target: "C", parameters: "line=T", delete: "asks(C, T)"),
        Rule(rule: "news", role: "keeper", state: "open", precondition: "special(I), not told(I)", action: "say", parameters: "line=I", add: "told(I)"),
        Rule(rule: "ring", role: "till", state: "open", precondition: "bought(C, I)", action: "ring_up", target: "C", delete: "bought(C, I)"),
        Rule(rule: "come", role: "customer", state: "open", precondition: "not arrived(.me)", add: "arrived(.me)"),
        Rule(rule: "in", role: "buyer", state: "open", precondition: "not arrived(.me)", add: "arrived(.me)"),
    ],
)"#;

const SMARTLOC: &str = r#"SmartLocation(
    name: "corner",
    at: "Shop",
    radius: 5.0,
    scripts: [(script: "shop")],
    proxies: [Proxy(name: "till", role: "till", actions: ["ring_up"], supplies: "sale/2")],
    spawns: [
        Spawn(name: "keeper", point: "Back", roles: ["keeper"]),
        Spawn(name: "walker", point: "Street", roles: ["customer"], route: ["Far"], every: 30.0),
    ],
    player: Player(role: "buyer", icon: "shop", supplies: "asks/2"),
    notifications: [Notification(name: "Sale", at: 5.0, radius: 30.0, lasts: 10.0, facts: "special(bread)")],
)"#;

const SCENE: &str = r#"Scene(
    name: "day",
    agents: [
        (name: "you", at: "Street", player: true, route: ["Shop"]),
    ],
    events: [
        Interact(at: 20.0, location: "corner"),
        Push(at: 22.0, proxy: "till", fact: "sale(you, bread)"),
        Input(at: 24.0, fact: "asks(.me, 'Open on Sundays?')"),
        Leave(at: 30.0),
    ],
)"#;

fn project(edit: impl FnOnce(&mut [(&str, String); 4])) -> tempfile::TempDir {
    let mut files = [
        ("w.locations.ron", LOCATIONS.to_string()),
        ("shop.script.ron", SCRIPT.to_string()),
        ("corner.smartloc.ron", SMARTLOC.to_string()),
        ("day.scene.ron", SCENE.to_string()),
    ];
    edit(&mut files);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Ensemble.ron"),
        "Project(name: \"corner\", libraries: [\"sim\"])",
    )
    .unwrap();
    for (name, text) in &files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// Runs the project's scene `day` for `ticks`: the trace's lines and its events.
fn run_day(dir: &tempfile::TempDir, ticks: u64) -> (String, Vec<Value>) {
    run_day_at(dir.path(), ticks)
}

fn run_day_at(dir: &std::path::Path, ticks: u64) -> (String, Vec<Value>) {
    let out = ensemble(&[
        "run",
        dir.to_str().unwrap(),
        "--scene",
        "day",
        "--ticks",
        &ticks.to_string(),
        "--trace",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let trace = ensemble_tests::json_lines(&out.stdout);
    (out.stdout, trace)
}

fn check(dir: &tempfile::TempDir) -> (i32, Value) {
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    let doc = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.stdout));
    (out.code, doc)
}

/// Replaces `from` by `to` in file `k`, and expects `code` in the same file, at the line and
/// column where `at` is written in the edited text.
fn defect(k: usize, from: &str, to: &str, code: &str, at: &str) -> Value {
    defect_in(k, from, to, code, k, at)
}

/// The same, with the diagnostic expected in file `j`.
fn defect_in(k: usize, from: &str, to: &str, code: &str, j: usize, at: &str) -> Value {
    let mut text = String::new();
    let dir = project(|files| {
        assert!(files[k].1.contains(from), "{from}");
        files[k].1 = files[k].1.replacen(from, to, 1);
        text = files[j].1.clone();
    });
    let (exit, doc) = check(&dir);
    let file = [
        "w.locations.ron",
        "shop.script.ron",
        "corner.smartloc.ron",
        "day.scene.ron",
    ][j];
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code && d["file"] == file)
        .unwrap_or_else(|| panic!("no `{code}` in {file}: {doc:#}"))
        .clone();
    let (line, column) = line_col(&text, at);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{code}: {d:#}"
    );
    if d["severity"] == "error" {
        assert_eq!(exit, 1);
    }
    d
}

#[test]
fn the_defect_free_project_is_clean_and_runs() {
    let dir = project(|_| {});
    let (code, doc) = check(&dir);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
    let (stdout, trace) = run_day(&dir, 1200);
    assert!(!trace.iter().any(|e| e["event"] == "error"), "{stdout}");
    for (agent, event) in [
        ("you", "join"),
        ("till", "join"),
        ("keeper", "join"),
        ("you", "leave"),
    ] {
        assert!(
            trace
                .iter()
                .any(|e| e["agent"] == agent && e["event"] == event),
            "{agent} {event}"
        );
    }
    // The player's question is a quoted constant; the keeper says it back.
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "add" && e["fact"] == "asks(you,'Open on Sundays?')")
    );
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "say" && e["text"] == "Open on Sundays?")
    );
    // Spawned walkers are numbered.
    assert!(trace.iter().any(|e| e["agent"] == "walker2"));
}

#[test]
fn proxy_defects() {
    // A rule of the proxy's role does something the proxy does not offer.
    let d = defect(
        1,
        r#"action: "ring_up""#,
        r#"action: "ring_upp""#,
        "unknown-reference",
        r#""ring_upp""#,
    );
    assert!(
        d["message"].as_str().unwrap().contains("proxy `till`"),
        "{d:#}"
    );
    assert!(
        d["notes"].to_string().contains("did you mean `ring_up`"),
        "{d:#}"
    );
    assert_eq!(d["related"][0]["message"], "the proxy");
    // A proxy taking a role no script has never takes part.
    let d = defect(
        2,
        r#"role: "till", actions"#,
        r#"role: "tiller", actions"#,
        "unknown-role",
        r#""tiller""#,
    );
    assert_eq!(d["severity"], "warning");
    // Two proxies of one name.
    defect(
        2,
        r#"proxies: [Proxy(name: "till", role: "till", actions: ["ring_up"], supplies: "sale/2")]"#,
        r#"proxies: [Proxy(name: "till", role: "till", actions: ["ring_up"]), Proxy(name: "till", role: "till")]"#,
        "duplicate-name",
        r#""till", role: "till")]"#,
    );
    // What a proxy supplies must be written predicate/arity.
    defect(
        2,
        r#"supplies: "sale/2""#,
        r#"supplies: "sale""#,
        "syntax",
        r#""sale""#,
    );
    // A proxy's report that it does not declare.
    let d = defect(
        3,
        r#"fact: "sale(you, bread)""#,
        r#"fact: "refund(you, bread)""#,
        "unknown-reference",
        "refund(you, bread)",
    );
    assert!(d["message"].as_str().unwrap().contains("refund/2"), "{d:#}");
}

#[test]
fn emitter_defects() {
    // A spawn point that is not a location.
    let d = defect(
        2,
        r#"point: "Back""#,
        r#"point: "Bak""#,
        "unknown-reference",
        r#""Bak""#,
    );
    assert!(
        d["notes"].to_string().contains("did you mean `Back`"),
        "{d:#}"
    );
    // A spawned NPC's role no script of the location has.
    let d = defect(
        2,
        r#"roles: ["customer"]"#,
        r#"roles: ["costumer"]"#,
        "unknown-role",
        r#""costumer""#,
    );
    assert_eq!(d["severity"], "warning");
    // A negative period.
    defect(2, "every: 30.0", "every: -30.0", "invalid-value", "-30.0");
    defect(
        2,
        r#"roles: ["keeper"])"#,
        r#"roles: ["keeper"], size: 0)"#,
        "invalid-value",
        "0)",
    );
    // The player emitter's role must be one the scripts have.
    defect(
        2,
        r#"Player(role: "buyer""#,
        r#"Player(role: "byer""#,
        "unknown-role",
        r#""byer""#,
    );
    // Notification facts are ground, and `.me` means nobody there.
    let d = defect(
        2,
        r#"facts: "special(bread)""#,
        r#"facts: "special(X)""#,
        "uninstantiated-variable",
        "X)",
    );
    assert!(d["message"].as_str().unwrap().contains("ground"), "{d:#}");
    defect(
        2,
        r#"facts: "special(bread)""#,
        r#"facts: "special(.me)""#,
        "invalid-value",
        "special(.me)",
    );
    // A cell that stops too early: pointed at the parenthesis it never closes.
    defect(
        2,
        r#"facts: "special(bread)""#,
        r#"facts: "special(bread""#,
        "syntax",
        "(bread\"",
    );
    // A spawned NPC named like an agent of a scene.
    defect(
        3,
        r#"(name: "you", at"#,
        r#"(name: "walker7", at: "Street", roles: ["customer"]), (name: "you", at"#,
        "duplicate-name",
        r#""walker7""#,
    );
    // What the notification supplies counts as produced; without it the rule reads nothing.
    let d = defect_in(
        2,
        r#"facts: "special(bread)""#,
        r#"facts: "sales(bread)""#,
        "never-produced",
        1,
        "special(I)",
    );
    assert!(
        d["message"].as_str().unwrap().contains("rule news"),
        "{d:#}"
    );
}

#[test]
fn scene_event_defects() {
    defect(
        3,
        r#"location: "corner""#,
        r#"location: "coner""#,
        "unknown-reference",
        r#""coner""#,
    );
    defect(
        3,
        r#"proxy: "till""#,
        r#"proxy: "tilll""#,
        "unknown-reference",
        r#""tilll""#,
    );
    let d = defect(
        3,
        r#"fact: "asks(.me, 'Open on Sundays?')""#,
        r#"fact: "wonders(.me, sundays)""#,
        "unknown-reference",
        "wonders(.me, sundays)",
    );
    assert!(
        d["message"].as_str().unwrap().contains("wonders/2"),
        "{d:#}"
    );
    defect(
        3,
        r#"fact: "asks(.me, 'Open on Sundays?')""#,
        r#"fact: "asks(.me, Day)""#,
        "uninstantiated-variable",
        "Day)",
    );
    defect(
        3,
        r#"fact: "sale(you, bread)""#,
        r#"fact: "sale(you, bread), sale(you, cake)""#,
        "syntax",
        r#""sale(you, bread), sale(you, cake)""#,
    );
    defect(
        3,
        "Leave(at: 30.0)",
        "Leave(at: -1.0)",
        "invalid-value",
        "-1.0",
    );
    // The player does things, so the scene needs one, and only one, without a machine.
    defect(
        3,
        "player: true, ",
        "roles: [\"customer\"], ",
        "unknown-reference",
        "Interact(",
    );
    defect(
        3,
        r#"(name: "you", at"#,
        r#"(name: "me", at: "Street", player: true), (name: "you", at"#,
        "invalid-value",
        r#""you", at"#,
    );
    // Reacting to a location without a player emitter.
    let d = defect_in(
        2,
        r#"    player: Player(role: "buyer", icon: "shop", supplies: "asks/2"),
"#,
        "",
        "unknown-reference",
        3,
        "Interact(",
    );
    assert_eq!(d["related"][0]["file"], "corner.smartloc.ron");
}

#[test]
fn scene_events_that_cannot_happen_are_trace_errors_and_the_scene_goes_on() {
    // The player reacts before it is in reach, then talks and leaves without a script; a proxy
    // reports while nothing runs (the keeper only arrives later).
    let dir = project(|files| {
        files[3].1 = files[3].1.replace("Interact(at: 20.0", "Interact(at: 2.0");
        files[2].1 = files[2].1.replace(
            r#"point: "Back", roles: ["keeper"])"#,
            r#"point: "Back", roles: ["keeper"], at: 40.0)"#,
        );
    });
    let (_, trace) = run_day(&dir, 1500);
    let errors: Vec<(&str, &str)> = trace
        .iter()
        .filter(|e| e["event"] == "error")
        .map(|e| {
            (
                e["agent"].as_str().unwrap_or("-"),
                e["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert_eq!(errors[0].0, "you");
    assert!(
        errors[0].1.contains("beyond its reach of 5 m"),
        "{errors:?}"
    );
    assert_eq!(errors[1].0, "till");
    assert!(errors[1].1.contains("runs no script"), "{errors:?}");
    assert!(
        errors[2].1.contains("takes part in no script"),
        "{errors:?}"
    );
    assert!(
        errors[3].1.contains("takes part in no script"),
        "{errors:?}"
    );
    // The scene went on: the keeper arrives at 40 s and the shop opens.
    assert!(trace.iter().any(|e| e["event"] == "join"
        && e["agent"] == "keeper"
        && e["time"].as_f64().unwrap() >= 40.0));
}

/// What proxies and the player report is only declared by predicate and arity: any value may
/// sit in any position (the player's own name, a number), so no deletion of such a fact is
/// "never matching"; a notification's ground facts say exactly what they hold.
#[test]
fn deletions_of_reported_facts_are_not_judged_by_a_guessed_sort() {
    // The keeper's and buyer's `rules` before rule `in`; the notification also says `price`.
    let with = |rules: &str| {
        project(|files| {
            files[1].1 = files[1].1.replacen(
                r#"Rule(rule: "in","#,
                &format!("{rules}\n        Rule(rule: \"in\","),
                1,
            );
            files[2].1 = files[2].1.replacen(
                r#"facts: "special(bread)""#,
                r#"facts: "special(bread), price(bread, 3)""#,
                1,
            );
        })
    };
    let dir = with(
        r#"Rule(rule: "forget", role: "buyer", state: "open", precondition: "asks(.me, T)", delete: "asks(.me, T)"),
        Rule(rule: "cheap", role: "keeper", state: "open", precondition: "price(I, 3)", delete: "price(I, 3)"),"#,
    );
    let (code, doc) = check(&dir);
    assert_eq!(code, 0, "{doc:#}");
    // The player's question is deleted at run time by the rule the check doubted.
    let (_, trace) = run_day(&dir, 1200);
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "del" && e["fact"] == "asks(you,'Open on Sundays?')"),
        "the player's fact is deleted"
    );
    // A notification's numbers are numbers: deleting one with another number never matches.
    let dir = with(
        r#"Rule(rule: "cheap", role: "keeper", state: "open", precondition: "special(I)", delete: "price(I, cheap)"),"#,
    );
    let (code, doc) = check(&dir);
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc.to_string().contains("deletion-never-matches"),
        "{doc:#}"
    );
}

/// Runs `day` for `ticks` on another thread; `None` if it has not finished within a minute
/// (a hang is a failure, not a test that never ends).
fn run_day_within_a_minute(dir: &tempfile::TempDir, ticks: u64) -> Option<(String, Vec<Value>)> {
    use std::sync::mpsc::RecvTimeoutError;
    let path = dir.path().to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_day_at(&path, ticks));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(run) => Some(run),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => panic!("the run failed (see its panic above)"),
    }
}

/// A period far below a step (or below what a float adds to the clock) fires once per step; it
/// neither hangs the scene nor floods it.
#[test]
fn emitters_with_periods_below_a_step_fire_once_per_step() {
    let dir = project(|files| {
        files[2].1 = files[2]
            .1
            .replacen("every: 30.0", "every: 1e-300, waves: 0", 1)
            .replacen("lasts: 10.0,", "lasts: 10.0, every: 1e-300,", 1);
    });
    let (code, doc) = check(&dir);
    assert_eq!(code, 0, "{doc:#}");
    let (_, trace) = run_day_within_a_minute(&dir, 400).expect("the scene hangs");
    let ticks: std::collections::BTreeSet<u64> = trace
        .iter()
        .filter(|e| e["event"] == "message" && e["name"] == "spawned")
        .map(|e| e["tick"].as_u64().unwrap())
        .collect();
    let spawned = trace
        .iter()
        .filter(|e| {
            e["event"] == "message"
                && e["name"] == "spawned"
                && e["agent"].as_str().unwrap().starts_with("walker")
        })
        .count();
    assert!(
        spawned > 0 && spawned <= ticks.len(),
        "{spawned} walkers in {} ticks",
        ticks.len()
    );
    // The notification (from 5 s on) is heard at most once per step by each agent in reach.
    let mut heard: HashMap<(u64, String), u32> = HashMap::new();
    for e in trace
        .iter()
        .filter(|e| e["event"] == "message" && e["name"] == "Sale")
    {
        *heard
            .entry((
                e["tick"].as_u64().unwrap(),
                e["agent"].as_str().unwrap().to_string(),
            ))
            .or_default() += 1;
    }
    assert!(heard.values().all(|n| *n == 1), "{heard:?}");
}
