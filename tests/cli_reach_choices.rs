//! Issue 35's last two choice points: what a player does at smart locations (`Interact`,
//! `Input`, `Push`, `Leave` in a content test, and `ensemble reach` offering them) and random
//! draws forced one by one (`Draw` setups). Each target here is reached only through the new
//! choice (without it the same budget does not reach it), and the written test passes; bad
//! player events and draws are errors at their line; a restored run keeps its forced draws.

use ensemble_tests::{copy_dir, ensemble, repo_path};
use std::path::Path;

fn copy(sample: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        Path::new(&repo_path(&format!("samples/{sample}"))),
        dir.path(),
    );
    dir
}

/// The shops with a scene `quiet`: the market's agents, without the events that make the
/// player go in, buy and ask — what the player does is up to the test (or the search).
fn quiet_shops() -> tempfile::TempDir {
    let dir = copy("shops");
    let market = std::fs::read_to_string(dir.path().join("market.scene.ron")).unwrap();
    let cut = market.find("    events: [").unwrap();
    let quiet = format!("{})\n", &market[..cut]).replace(r#"name: "market""#, r#"name: "quiet""#);
    std::fs::write(dir.path().join("quiet.scene.ron"), quiet).unwrap();
    dir
}

/// `ensemble reach PROJECT ARGS -o FILE`: its output, and the file's text if it was written.
fn reach(project: &Path, file: &str, args: &[&str]) -> (ensemble_tests::Output, Option<String>) {
    let out_file = project.join(file);
    let mut argv = vec!["reach", project.to_str().unwrap()];
    argv.extend_from_slice(args);
    argv.extend_from_slice(&["-o", out_file.to_str().unwrap(), "--time-limit", "120"]);
    let out = ensemble(&argv);
    (out, std::fs::read_to_string(&out_file).ok())
}

fn passes(project: &Path, file: &str) {
    let test = ensemble(&["test", project.to_str().unwrap(), "--filter", file]);
    assert_eq!(test.code, 0, "{file}:\n{}", test.stdout);
    assert!(test.stdout.contains("1 tests passed"), "{}", test.stdout);
}

#[test]
fn a_reply_only_the_players_question_brings_is_reached_through_player_inputs() {
    let dir = quiet_shops();
    let d = dir.path();
    let target = r#"(event: "say", agent: "baker", text: "*weather*")"#;
    let args = [
        "--scene", "quiet", "--event", target, "--seeds", "1", "--step", "150",
    ];
    // Without inputs the baker never talks about the weather: nobody asks him.
    let mut none = args.to_vec();
    none.extend_from_slice(&["--inputs", "0"]);
    let (out, _) = reach(d, "none.test.ron", &none);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("not reached"), "{}", out.stdout);
    // With two: the player goes in at the bakery and asks.
    let mut two = args.to_vec();
    two.extend_from_slice(&["--inputs", "2"]);
    let (out, text) = reach(d, "weather.test.ron", &two);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("player inputs at smart locations"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("the player inputs `asks(player, weather)`"),
        "{}",
        out.stdout
    );
    let text = text.unwrap();
    assert!(
        text.contains(r#"Interact(tick: "#) && text.contains(r#"location: "bakery")"#),
        "{text}"
    );
    assert!(text.contains(r#"fact: "asks(player, weather)")"#), "{text}");
    passes(d, "weather.test.ron");
}

#[test]
fn a_test_plays_the_player_and_the_till_through_the_shop() {
    let dir = quiet_shops();
    let d = dir.path();
    let test = |events: &str| {
        format!(
            r#"Tests(tests: [Test(
    name: "the player buys a cake and asks about the weather",
    scene: "quiet",
    seeds: Range(0, 2),
    ticks: 1500,
    events: [{events}],
    expect: [
        Happens(what: (event: "join", agent: "player", script: "baker", role: "buyer")),
        Happens(what: (event: "act", agent: "baker", action: "hand_over", target: "player")),
        Happens(what: (event: "say", agent: "baker", text: "*weather*")),
        Happens(what: (event: "leave", agent: "player", script: "baker")),
    ],
)])
"#
        )
    };
    let events = r#"
        Interact(tick: 750, location: "bakery"),
        Push(tick: 800, proxy: "bakery_till", fact: "sale(player, cake)"),
        Input(tick: 850, fact: "asks(.me, weather)"),
        Leave(tick: 1400),
    "#;
    std::fs::write(d.join("play.test.ron"), test(events)).unwrap();
    passes(d, "play.test.ron");
    // Too early, the player is out of the icon's reach: an error event, and nothing follows.
    let early = events.replace("tick: 750", "tick: 10");
    std::fs::write(d.join("play.test.ron"), test(&early)).unwrap();
    let out = ensemble(&["test", d.to_str().unwrap(), "--filter", "play.test.ron"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("never happened"), "{}", out.stdout);
    let errors = r#"Tests(tests: [Test(
    name: "too early",
    scene: "quiet",
    seeds: List([0]),
    ticks: 20,
    events: [Interact(tick: 10, location: "bakery")],
    expect: [Within(ticks: 10, what: (event: "error", agent: "player"))],
)])
"#;
    // The refusal is an error event of the player, at the tick the test names.
    std::fs::write(d.join("play.test.ron"), errors).unwrap();
    passes(d, "play.test.ron");
}

#[test]
fn a_line_only_a_forced_draw_says_is_reached_with_one_seed() {
    let dir = copy("airport");
    let d = dir.path();
    // Both of ConfirmFlightX's best lines spoken (by the weighted draw), not only the best.
    let file = d.join("airport.sentences.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    let confirm = r#"nouns: "you, flight, VARIABLE CityName")"#;
    assert!(text.contains(confirm));
    let text = text.replace(
        confirm,
        r#"nouns: "you, flight, VARIABLE CityName", score_margin: inf)"#,
    );
    std::fs::write(&file, text).unwrap();
    // "You are booked at the flight to …": seed 0 draws the other line for both buyers.
    let args = [
        "--scene",
        "ticket-counter",
        "--line",
        "3edbbfc1",
        "--seeds",
        "1",
    ];
    let mut none = args.to_vec();
    none.extend_from_slice(&["--inputs", "0"]);
    let (out, _) = reach(d, "none.test.ron", &none);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let mut one = args.to_vec();
    one.extend_from_slice(&["--inputs", "1"]);
    let (out, text) = reach(d, "forced.test.ron", &one);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("line draw #"), "{}", out.stdout);
    let text = text.unwrap();
    assert!(text.contains("Draw(kind: Line, n: "), "{text}");
    assert!(text.contains("seeds: List([0])"), "{text}");
    passes(d, "forced.test.ron");
}

#[test]
fn a_forced_chance_decides_a_mocked_probability_and_a_draw_that_does_not_fit_fails() {
    let dir = copy("bench");
    let d = dir.path();
    let test = |draw: &str| {
        format!(
            r#"Tests(tests: [Test(
    name: "the elder's first sit",
    scene: "bench",
    seeds: Range(0, 9),
    ticks: 1500,
    setup: [Action(action: "sit", outcome: Fails, probability: 0.5), {draw}],
    expect: [Happens(what: (event: "fail", agent: "elder", action: "sit"))],
)])
"#
        )
    };
    let run = |draw: &str| {
        std::fs::write(d.join("draw.test.ron"), test(draw)).unwrap();
        ensemble(&["test", d.to_str().unwrap(), "--filter", "draw.test.ron"])
    };
    // The first chance drawn is the elder's sit (he is the first to sit): forced to come true,
    // his sit fails under every seed.
    let out = run("Draw(kind: Chance, n: 0, value: 1)");
    assert_eq!(out.code, 0, "{}", out.stdout);
    // Forced not to, it does not fail under any (the elder sits once).
    let out = run("Draw(kind: Chance, n: 0, value: 0)");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("10 failing runs"), "{}", out.stdout);
    // A value no draw of that kind has, and a draw the run never makes: the run says so.
    let out = run("Draw(kind: Line, n: 0, value: 7)");
    assert_eq!(out.code, 1, "{}", out.stdout);
    let out = run("Draw(kind: Chance, n: 90000, value: 1)");
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("so it was never forced"),
        "{}",
        out.stdout
    );
}

#[test]
fn bad_player_events_and_draws_are_errors_at_their_line() {
    let dir = quiet_shops();
    let d = dir.path();
    std::fs::write(
        d.join("bad.test.ron"),
        r#"Tests(tests: [Test(
    name: "bad",
    scene: "quiet",
    seeds: List([0]),
    ticks: 100,
    events: [
        Interact(tick: 1, location: "bakrey"),
        Input(tick: 2, fact: "asks(.me, wether)"),
        Input(tick: 3, fact: "ask(.me, weather)"),
        Push(tick: 4, proxy: "bakery_til", fact: "sale(player, cake)"),
    ],
    setup: [Draw(kind: Chance, n: 5000000, value: 3)],
    expect: [Happens(what: (event: "say"))],
)])
"#,
    )
    .unwrap();
    let out = ensemble(&["check", d.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let found: Vec<(String, String, u64, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["notes"][0].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expect = [
        (
            "unknown-reference",
            "unknown smart location `bakrey`",
            7,
            "did you mean `bakery`?",
        ),
        (
            "unknown-reference",
            "unknown name `wether`",
            8,
            "did you mean `weather`?",
        ),
        (
            "unknown-reference",
            "unknown fact `ask/2`",
            9,
            "did you mean `asks`?",
        ),
        (
            "unknown-reference",
            "unknown proxy `bakery_til`",
            10,
            "did you mean `bakery_till`?",
        ),
        ("invalid-value", "draw 5000000", 12, ""),
        ("invalid-value", "`3`: a chance comes true", 12, ""),
    ];
    assert_eq!(found.len(), expect.len(), "{found:?}");
    for (code, message, line, note) in expect {
        assert!(
            found
                .iter()
                .any(|(c, m, l, n)| c == code && m.starts_with(message) && *l == line && n == note),
            "{message} at line {line}: {found:?}"
        );
    }
    // A fact that does not read: a syntax error at the parenthesis, never a panic.
    std::fs::write(
        d.join("bad.test.ron"),
        r#"Tests(tests: [Test(
    name: "bad",
    scene: "quiet",
    seeds: List([0]),
    ticks: 100,
    events: [Input(tick: 2, fact: "asks(.me, weather")],
    expect: [Happens(what: (event: "say"))],
)])
"#,
    )
    .unwrap();
    let out = ensemble(&["check", d.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("bad.test.ron:6:40") && said.contains("never closed"),
        "{said}"
    );
    let out = ensemble(&["test", d.to_str().unwrap()]);
    assert_eq!(out.code, 1);
}

/// The search branches by restoring snapshots: a run saved and restored under a forced draw
/// numbers its draws as the run that was never interrupted, so the same draw is forced.
#[test]
fn a_restored_run_keeps_its_draw_count_and_its_forced_draws() {
    use ensemble_runtime::rng::DrawKind;
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    use ensemble_sim::simulation::{Options, Setup};
    use ensemble_sim::{ForcedDraw, ForcedOutcome, Simulation};
    let c = ensemble_compiler::compile_path(Path::new(&repo_path("samples/bench"))).unwrap();
    let program = std::sync::Arc::new(c.output.unwrap().0);
    let options = |value| Options {
        setup: Setup {
            outcomes: vec![ForcedOutcome {
                action: "sit".into(),
                target: None,
                succeeds: false,
                probability: 0.5,
            }],
            draws: vec![ForcedDraw {
                kind: DrawKind::Chance,
                n: 1,
                value,
            }],
            ..Setup::default()
        },
        ..Options::default()
    };
    let run = |sim: &mut Simulation, ticks: u64| {
        let mut lines = Vec::new();
        for _ in 0..ticks {
            sim.tick();
            lines.extend(sim.take_events().iter().map(|e| e.to_json()));
        }
        lines
    };
    let mut traces = Vec::new();
    for value in [0, 1] {
        let mut whole = Simulation::start(program.clone(), "bench", 0, &options(value)).unwrap();
        // Past the elder's sit (draw 0), before the tourist's (draw 1).
        run(&mut whole, 300);
        assert_eq!(whole.draw_count(DrawKind::Chance), 1);
        let mut saved = SnapshotWriter::new(&program, "bench");
        whole.save(&mut saved).unwrap();
        let reader = SnapshotReader::from_bytes(&saved.to_bytes()).unwrap();
        let (mut restored, _) =
            Simulation::restore(program.clone(), &reader, &options(value)).unwrap();
        restored.take_events();
        assert_eq!(restored.draw_count(DrawKind::Chance), 1);
        let (a, b) = (run(&mut whole, 900), run(&mut restored, 900));
        assert_eq!(a, b);
        assert!(
            restored.draw_problems().is_empty(),
            "{:?}",
            restored.draw_problems()
        );
        traces.push(a);
    }
    // The forced draw decided the tourist's sit: the runs differ.
    assert_ne!(traces[0], traces[1]);
}

/// A player's event is done during the next tick, recorded at that tick; a save in between
/// is refused rather than losing it.
#[test]
fn a_player_event_is_done_in_the_next_tick_and_a_save_waits_for_it() {
    use ensemble_runtime::snapshot::SnapshotWriter;
    use ensemble_sim::Simulation;
    use ensemble_sim::simulation::{Options, PlayerAct};
    let dir = quiet_shops();
    let c = ensemble_compiler::compile_path(dir.path()).unwrap();
    let program = std::sync::Arc::new(c.output.unwrap().0);
    let mut sim = Simulation::start(program.clone(), "quiet", 0, &Options::default()).unwrap();
    for _ in 0..749 {
        sim.tick();
    }
    sim.take_events();
    assert!(sim.act(PlayerAct::Interact {
        location: "bakery".into()
    }));
    let mut saved = SnapshotWriter::new(&program, "quiet");
    assert!(sim.save(&mut saved).is_err(), "a queued event is not saved");
    sim.tick();
    assert!(sim.refused().is_empty(), "{:?}", sim.refused());
    let events = sim.take_events();
    let join = events
        .iter()
        .map(|e| e.to_json())
        .find(|l| l.contains(r#""event":"join""#) && l.contains(r#""agent":"player""#))
        .unwrap_or_else(|| panic!("the player joins: {events:?}"));
    assert!(join.contains(r#""tick":750"#), "{join}");
    let mut saved = SnapshotWriter::new(&program, "quiet");
    sim.save(&mut saved).unwrap();
}
