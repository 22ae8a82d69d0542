//! `ensemble reach`: on every sample with deep content, targets reached well after the first
//! ticks, each written as a test that `ensemble test` passes; the innkeeper's replies reached
//! through player lines; a target whose only way in was removed is never reported reached;
//! exit codes and the refusal to replace a file `reach` did not write.

use ensemble_tests::{copy_dir, ensemble, repo_path};
use std::path::Path;

/// Reaches `target` in a copy of `sample` at `dir`, writes it as `NAME.test.ron` there, and
/// checks that the play goes past `deeper_than` ticks and that `ensemble test` passes it.
fn reach_and_pass(dir: &Path, name: &str, deeper_than: u64, args: &[&str]) -> String {
    let file = dir.join(format!("{name}.test.ron"));
    let project = dir.to_str().unwrap();
    let mut argv = vec!["reach", project];
    argv.extend_from_slice(args);
    argv.extend_from_slice(&["-o", file.to_str().unwrap(), "--time-limit", "120"]);
    let out = ensemble(&argv);
    assert_eq!(out.code, 0, "{args:?}:\n{}\n{}", out.stdout, out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("reached "))
        .unwrap_or_else(|| panic!("{args:?}: no result line:\n{}", out.stdout));
    assert!(
        out.stdout.contains("<- the target"),
        "a story: {}",
        out.stdout
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("// Written by `ensemble reach`"), "{text}");
    let tick: u64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("ticks: "))
        .and_then(|t| t.trim_end_matches(',').parse().ok())
        .unwrap_or_else(|| panic!("no ticks in {text}"));
    assert!(
        tick > deeper_than,
        "{args:?}: reached at tick {tick}: {line}"
    );
    let test = ensemble(&["test", project, "--filter", &format!("{name}.test.ron")]);
    assert_eq!(
        test.code, 0,
        "{args:?}: the written test fails:\n{text}\n{}",
        test.stdout
    );
    assert!(test.stdout.contains("1 tests passed"), "{}", test.stdout);
    text
}

fn copy(sample: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        Path::new(&repo_path(&format!("samples/{sample}"))),
        dir.path(),
    );
    dir
}

#[test]
fn airport_targets_are_reached_and_pass_as_tests() {
    let dir = copy("airport");
    let d = dir.path();
    reach_and_pass(
        d,
        "buyer2-finish",
        300,
        &[
            "--scene",
            "ticket-counter",
            "--state",
            "BuyTicketAtCounter/Finish",
            "--agent",
            "buyer2",
        ],
    );
    reach_and_pass(
        d,
        "confirm",
        300,
        &["--scene", "ticket-counter", "--line", "ConfirmFlightX"],
    );
    // Only another city in buyer1's variables makes him say it: the play sets it.
    let text = reach_and_pass(
        d,
        "city",
        300,
        &[
            "--scene",
            "ticket-counter",
            "--event",
            r#"(event: "say", agent: "buyer1", text: "*San Francisco*")"#,
        ],
    );
    assert!(
        text.contains(r#"Variable(agent: "buyer1", name: "CityName", value: "San Francisco")"#),
        "{text}"
    );
    // The traveller's replan after the gate change.
    reach_and_pass(
        d,
        "replan",
        300,
        &[
            "--scene",
            "traveller",
            "--event",
            r#"(event: "replan", agent: "traveller")"#,
        ],
    );
}

#[test]
fn bench_targets_are_reached_and_pass_as_tests() {
    let dir = copy("bench");
    let d = dir.path();
    // The late tourist joining.
    reach_and_pass(
        d,
        "late",
        300,
        &[
            "--scene",
            "bench",
            "--event",
            r#"(event: "join", agent: "tourist2")"#,
        ],
    );
    reach_and_pass(d, "talk", 300, &["--scene", "bench", "--action", "talk"]);
    // A rule only a failed sit fires: the play mocks it.
    let text = reach_and_pass(
        d,
        "fell",
        100,
        &["--scene", "bench", "--rule", "bench/fell"],
    );
    assert!(
        text.contains(r#"Action(action: "sit", outcome: Fails)"#),
        "{text}"
    );
}

#[test]
fn shops_targets_are_reached_and_pass_as_tests() {
    let dir = copy("shops");
    let d = dir.path();
    // The player buying through the till.
    reach_and_pass(
        d,
        "sale",
        300,
        &[
            "--scene",
            "market",
            "--event",
            r#"(event: "add", agent: "bakery_till", fact: "sale(player,cake)")"#,
        ],
    );
    reach_and_pass(
        d,
        "hand-over",
        300,
        &["--scene", "market", "--action", "hand_over"],
    );
    reach_and_pass(
        d,
        "weather",
        300,
        &[
            "--scene",
            "market",
            "--event",
            r#"(event: "say", agent: "baker", text: "*weather*")"#,
        ],
    );
}

#[test]
fn street_vendor_targets_are_reached_and_pass_as_tests() {
    let dir = copy("street-vendor");
    let d = dir.path();
    reach_and_pass(
        d,
        "hand-over",
        300,
        &["--scene", "street", "--action", "hand_over"],
    );
    reach_and_pass(
        d,
        "fresh",
        300,
        &[
            "--scene",
            "street",
            "--event",
            r#"(event: "message", name: "FreshBatch", to: "friend")"#,
        ],
    );
    reach_and_pass(
        d,
        "friend-says",
        300,
        &["--scene", "street", "--state", "Friend/Say"],
    );
}

#[test]
fn weapon_shop_and_dinner_date_targets_are_reached_and_pass_as_tests() {
    let dir = copy("weapon-shop");
    let d = dir.path();
    reach_and_pass(
        d,
        "pleased",
        100,
        &["--scene", "shop", "--state", "Customer/Pleased"],
    );
    reach_and_pass(
        d,
        "disappointed",
        50,
        &["--scene", "shop", "--state", "Customer/Disappointed"],
    );
    // The customer opens the door itself only if the player never does: the search takes the
    // scene's world event out.
    let text = reach_and_pass(
        d,
        "own-door",
        50,
        &[
            "--scene",
            "shop",
            "--event",
            r#"(event: "act", agent: "npc", action: "Open(npc, shopdoor)")"#,
        ],
    );
    assert!(
        text.contains(r#"World(name: "PlayerOpensTheDoor")"#),
        "{text}"
    );
    reach_and_pass(
        d,
        "repair",
        10,
        &[
            "--scene",
            "shop-sold-out",
            "--event",
            r#"(event: "replan", agent: "npc")"#,
        ],
    );
    let dir = copy("dinner-date");
    let d = dir.path();
    reach_and_pass(
        d,
        "finish",
        100,
        &["--scene", "date", "--state", "Host/Finish"],
    );
    reach_and_pass(
        d,
        "replan",
        100,
        &[
            "--scene",
            "date",
            "--event",
            r#"(event: "replan", agent: "host")"#,
        ],
    );
    reach_and_pass(d, "dolly", 100, &["--scene", "date", "--action", "dolly"]);
}

#[test]
fn innkeeper_replies_are_reached_through_player_lines() {
    let dir = copy("innkeeper");
    let d = dir.path();
    // A haggle met halfway, a price told (one line can name the thing and ask its price: "what
    // do you charge to stable a mule for a night").
    let text = reach_and_pass(
        d,
        "halfway",
        0,
        &["--scene", "chat", "--action", "meet-halfway"],
    );
    assert!(text.contains("chat: ["), "{text}");
    let text = reach_and_pass(
        d,
        "price",
        0,
        &["--scene", "chat", "--action", "tell-price"],
    );
    assert!(text.contains("chat: ["), "{text}");
    // A deal struck: an item asked for, its price, a counter-offer — three lines deep, found by
    // the distance in the haggle space's graph. And the haggle space believing the deal is
    // done (an HMM state most believed, as coverage counts it).
    let text = reach_and_pass(d, "deal", 3, &["--scene", "chat", "--action", "deal"]);
    let chat = text
        .lines()
        .find(|l| l.contains("chat: ["))
        .unwrap_or_default();
    assert_eq!(chat.matches("\", \"").count() + 1, 3, "three lines: {text}");
    let text = reach_and_pass(
        d,
        "dealt",
        3,
        &["--scene", "chat", "--hmm-state", "haggle/dealt"],
    );
    assert!(text.contains("reaches HMM state haggle/dealt"), "{text}");
}

#[test]
fn a_conversation_without_transcripts_is_searched_with_lines_from_its_evidence() {
    let dir = copy("innkeeper");
    let d = dir.path();
    std::fs::remove_dir_all(d.join("transcripts")).unwrap();
    std::fs::remove_file(d.join("chat.test.ron")).unwrap();
    let text = reach_and_pass(
        d,
        "halfway",
        0,
        &["--scene", "chat", "--action", "meet-halfway"],
    );
    // A line made from a bargaining pattern, in the designer's words (not stems).
    assert!(text.contains("chat: [\"how about one\"]"), "{text}");
}

#[test]
fn a_target_whose_only_way_in_is_removed_is_never_reached() {
    let dir = copy("airport");
    let file = dir.path().join("machines/BuyTicketAtCounter.machine.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    let way_in = r#"(name: "Goto2", modifier: "Gate", on: [("ReachedLocation", "Finish")]),"#;
    assert!(text.contains(way_in), "the sample changed");
    std::fs::write(
        &file,
        text.replace(
            way_in,
            r#"(name: "Goto2", modifier: "Gate", on: [("ReachedLocation", "Goto2")]),"#,
        ),
    )
    .unwrap();
    let project = dir.path().to_str().unwrap();
    let out_file = dir.path().join("never.test.ron");
    let out = ensemble(&[
        "reach",
        project,
        "--scene",
        "ticket-counter",
        "--state",
        "BuyTicketAtCounter/Finish",
        "--time-limit",
        "20",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("unreachable: search space exhausted"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("\nreached "), "{}", out.stdout);
    assert!(!out_file.exists());
    // Reachable in the graph but not within a tiny budget: the budget is what it says.
    let out = ensemble(&[
        "reach",
        project,
        "--scene",
        "ticket-counter",
        "--state",
        "SellTicket/HandOverTicket",
        "--ticks",
        "50",
        "--seeds",
        "1",
        "--inputs",
        "0",
    ]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("not reached within the budget"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("50 ticks a run"), "{}", out.stdout);
}

#[test]
fn exit_codes_and_did_you_mean() {
    let airport = repo_path("samples/airport");
    // A misspelt state, scene or machine: exit 2 with the name meant.
    for (scene, state, meant) in [
        ("ticket-counter", "BuyTicketAtCounter/Finsh", "Finish"),
        (
            "ticket-countr",
            "BuyTicketAtCounter/Finish",
            "ticket-counter",
        ),
        (
            "ticket-counter",
            "BuyTicketAtCountr/Finish",
            "BuyTicketAtCounter",
        ),
    ] {
        let out = ensemble(&["reach", &airport, "--scene", scene, "--state", state]);
        assert_eq!(out.code, 2);
        assert!(
            out.stderr.contains(&format!("did you mean `{meant}`")),
            "{}",
            out.stderr
        );
    }
    let out = ensemble(&[
        "reach",
        "/no/such/project",
        "--scene",
        "x",
        "--state",
        "A/B",
    ]);
    assert_eq!(out.code, 2);
    // The budget's default time is in --help.
    let out = ensemble(&["reach", "--help"]);
    assert!(
        out.stdout.contains("--time-limit") && out.stdout.contains("default: 60"),
        "{}",
        out.stdout
    );
    // A file reach did not write is never replaced unasked.
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.test.ron");
    std::fs::write(&mine, "// my own tests\nTests(tests: [])\n").unwrap();
    let out = ensemble(&[
        "reach",
        &airport,
        "--scene",
        "ticket-counter",
        "--state",
        "BuyTicketAtCounter/Finish",
        "-o",
        mine.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("was not written by `ensemble reach`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "// my own tests\nTests(tests: [])\n"
    );
    // Nor, even with --force, one of the project's sources.
    let dir = copy("airport");
    let machine = dir.path().join("machines/SellTicket.machine.ron");
    let before = std::fs::read(&machine).unwrap();
    let project = dir.path().to_str().unwrap();
    let out = ensemble(&[
        "reach",
        project,
        "--scene",
        "ticket-counter",
        "--state",
        "BuyTicketAtCounter/Finish",
        "--force",
        "-o",
        machine.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is also an input"), "{}", out.stderr);
    assert_eq!(std::fs::read(&machine).unwrap(), before);
}

#[test]
fn uncovered_content_is_tried_and_each_reached_item_written_as_a_passing_test() {
    let dir = copy("dinner-date");
    let project = dir.path().to_str().unwrap();
    let out_dir = dir.path().join("reached");
    let out = ensemble(&[
        "reach",
        project,
        "--uncovered",
        "--time-limit",
        "3",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    // Some planning actions of a problem no scene plans for stay out of reach.
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("never reached by the project's tests"),
        "{}",
        out.stdout
    );
    for state in ["Host/GiveUp", "Host/Fail"] {
        assert!(
            out.stdout
                .lines()
                .any(|l| l.trim_start().starts_with("reached") && l.contains(state)),
            "{state}:\n{}",
            out.stdout
        );
    }
    assert!(out.stdout.contains("not reached"), "{}", out.stdout);
    let written = std::fs::read_dir(&out_dir).unwrap().count();
    assert!(written >= 2, "{written} files");
    let test = ensemble(&["test", project, "--filter", "reached/"]);
    assert_eq!(test.code, 0, "{}", test.stdout);
    assert!(
        test.stdout.contains(&format!("{written} tests passed")),
        "{}",
        test.stdout
    );
}

/// The search branches by restoring snapshots: a run saved and restored under a content test's
/// mock goes on exactly as the run that was never interrupted (the mock is an option of the
/// run, kept across the restore).
#[test]
fn a_restored_run_keeps_its_mocks_and_goes_on_as_the_uninterrupted_one() {
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    use ensemble_sim::simulation::{Options, Setup};
    use ensemble_sim::{ForcedOutcome, Simulation};
    let c = ensemble_compiler::compile_path(Path::new(&repo_path("samples/bench"))).unwrap();
    let program = std::sync::Arc::new(c.output.unwrap().0);
    let options = Options {
        setup: Setup {
            outcomes: vec![ForcedOutcome {
                action: "sit".into(),
                target: None,
                succeeds: false,
                probability: 1.0,
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
    let mut whole = Simulation::start(program.clone(), "bench", 0, &options).unwrap();
    run(&mut whole, 60);
    let mut saved = SnapshotWriter::new(&program, "bench");
    whole.save(&mut saved).unwrap();
    let reader = SnapshotReader::from_bytes(&saved.to_bytes()).unwrap();
    let (mut restored, _) = Simulation::restore(program.clone(), &reader, &options).unwrap();
    restored.take_events();
    let (a, b) = (run(&mut whole, 400), run(&mut restored, 400));
    assert!(
        a.iter()
            .any(|l| l.contains(r#""event":"fail""#) && l.contains("sit")),
        "sitting fails: {a:?}"
    );
    assert_eq!(a, b);
}
