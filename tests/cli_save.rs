//! Savegames end to end: `ensemble run ... --save FILE`, then `--restore FILE --ticks M`, gives
//! the uninterrupted run's trace after the save, line for line; a corrupt, truncated or foreign
//! snapshot exits 1 with a message; a scene whose parts cannot be saved yet (a script action
//! carried across a hot reload) is refused.
//! Conversation scenes too: the snapshot records the input lines consumed, and `--restore`
//! with the same `--input` goes on after them.

use ensemble_runtime::Program;
use ensemble_runtime::inspect::protocol::{GameMessage, ToolMessage};
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_sim::Simulation;
use ensemble_sim::simulation::Options;
use ensemble_tests::{Tool, copy_dir, ensemble, next, repo_path, root, run_trace, spawn};
use std::path::Path;
use std::sync::Arc;

/// A copy of `sample` in a temporary folder, saved after `ticks` ticks of `scene` (with `extra`
/// arguments): the folder (the caller keeps it alive), the project's path and the snapshot's.
fn saved_copy(
    sample: &str,
    scene: &str,
    ticks: u64,
    extra: &[&str],
) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(sample);
    copy_dir(&root().join("samples").join(sample), &project);
    let project = project.to_str().unwrap().to_string();
    let snap = dir.path().join("s.snap").to_str().unwrap().to_string();
    let mut args = extra.to_vec();
    args.extend(["--save", snap.as_str()]);
    let out = run(&project, scene, ticks, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (dir, project, snap)
}

fn run(path: &str, scene: &str, ticks: u64, extra: &[&str]) -> ensemble_tests::Output {
    let ticks = ticks.to_string();
    let mut args = vec![
        "run", path, "--scene", scene, "--ticks", &ticks, "--trace", "json",
    ];
    args.extend_from_slice(extra);
    ensemble(&args)
}

/// The lines of a JSON trace whose tick is after `tick`.
fn after(trace: &str, tick: u64) -> Vec<&str> {
    trace
        .lines()
        .filter(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            e["tick"].as_u64().unwrap() > tick
        })
        .collect()
}

/// Runs `n` ticks and saves, restores and runs `m` more: the restored run's stdout.
fn save_then_restore(path: &str, scene: &str, seed: u64, n: u64, m: u64) -> String {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("s.snap");
    let snap = snap.to_str().unwrap();
    let seed = seed.to_string();
    let first = run(path, scene, n, &["--seed", &seed, "--save", snap]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(path, scene, m, &["--restore", snap]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    second.stdout
}

#[test]
fn the_ticket_counter_restored_after_1200_ticks_prints_the_rest_of_the_2400_tick_run() {
    let airport = repo_path("samples/airport");
    let whole = run(&airport, "ticket-counter", 2400, &["--seed", "3"]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let restored = save_then_restore(&airport, "ticket-counter", 3, 1200, 1200);
    let expected = after(&whole.stdout, 1200);
    assert!(!expected.is_empty());
    assert_eq!(restored.lines().collect::<Vec<_>>(), expected);
}

/// A built program, so the many runs below do not compile the airport each time.
fn built_airport(dir: &Path) -> String {
    let out = ensemble(&[
        "build",
        &repo_path("samples/airport"),
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    dir.join("airport.ensb").to_string_lossy().into_owned()
}

#[test]
fn scenes_of_smart_locations_go_on_from_a_save_mid_script() {
    // The bench (an elder and two tourists, one joining late), the market (templated scripts,
    // proxies, the player's scene events), the street (spawned passers-by, notifications).
    for (sample, scene, n) in [
        ("samples/bench", "bench", 700),
        ("samples/shops", "market", 1200),
        ("samples/street-vendor", "street", 1500),
    ] {
        let path = repo_path(sample);
        let whole = run(&path, scene, n + 2000, &["--seed", "5"]);
        assert_eq!(whole.code, 0, "{}", whole.stderr);
        let restored = save_then_restore(&path, scene, 5, n, 2000);
        let expected = after(&whole.stdout, n);
        assert!(expected.len() > 20, "{scene}: {}", expected.len());
        assert_eq!(restored.lines().collect::<Vec<_>>(), expected, "{scene}");
    }
}

#[test]
fn planning_scenes_go_on_from_a_save_mid_plan() {
    // The traveller saved before the gate changes (she replans after the restore) and after;
    // Lozano's dinner dates (A*, MinMin) mid-plan; Inampudi's weapon shop (a partial-order
    // plan, D-POP) before the player acts, after the repair, and sold out.
    for (sample, scene, n, m) in [
        ("samples/weapon-shop", "shop", 10, 300),
        ("samples/weapon-shop", "shop", 50, 300),
        ("samples/weapon-shop", "shop", 120, 300),
        ("samples/weapon-shop", "shop-sold-out", 20, 300),
        ("samples/airport", "traveller", 300, 1200),
        ("samples/airport", "traveller", 800, 700),
        ("samples/dinner-date", "date", 8, 600),
        ("samples/dinner-date", "funny-evening", 15, 600),
    ] {
        let path = repo_path(sample);
        let whole = run(&path, scene, n + m, &["--seed", "2"]);
        assert_eq!(whole.code, 0, "{}", whole.stderr);
        let restored = save_then_restore(&path, scene, 2, n, m);
        let expected = after(&whole.stdout, n);
        assert!(!expected.is_empty(), "{scene}");
        assert_eq!(
            restored.lines().collect::<Vec<_>>(),
            expected,
            "{scene} saved after tick {n}"
        );
    }
}

#[test]
fn every_airport_scene_goes_on_from_a_save_mid_walk_mid_conversation_and_after_a_door() {
    let dir = tempfile::tempdir().unwrap();
    let program = built_airport(dir.path());
    // Walking (30), in the conversation (250, 400), after lane-closed's door event (700).
    for scene in ["ticket-counter", "ticket-sale", "lane-closed"] {
        let whole = run(&program, scene, 1500, &["--seed", "11"]);
        assert_eq!(whole.code, 0, "{}", whole.stderr);
        for n in [0, 30, 250, 400, 700] {
            let restored = save_then_restore(&program, scene, 11, n, 1500 - n);
            assert_eq!(
                restored.lines().collect::<Vec<_>>(),
                after(&whole.stdout, n),
                "{scene} saved after tick {n}"
            );
        }
    }
}

/// A snapshot of the airport's ticket counter after 100 ticks, and the built program.
fn airport_snapshot(dir: &Path) -> (String, Vec<u8>) {
    let program = built_airport(dir);
    let snap = dir.join("s.snap");
    let out = run(
        &program,
        "ticket-counter",
        100,
        &["--save", snap.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    (program, std::fs::read(&snap).unwrap())
}

/// Restores the ticket counter from `bytes`: it must exit 1 and say why on stderr.
fn refused(program: &str, dir: &Path, bytes: &[u8], scene: &str) -> String {
    let bad = dir.join("bad.snap");
    std::fs::write(&bad, bytes).unwrap();
    let out = run(program, scene, 10, &["--restore", bad.to_str().unwrap()]);
    assert_eq!(out.code, 1, "accepted: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.starts_with("error: cannot restore "),
        "{}",
        out.stderr
    );
    out.stderr
}

#[test]
fn corrupt_truncated_and_foreign_snapshots_exit_1_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let (program, bytes) = airport_snapshot(dir.path());
    let d = dir.path();
    let e = refused(&program, d, &bytes[..bytes.len() / 2], "ticket-counter");
    assert!(e.contains("the snapshot is truncated"), "{e}");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x20;
    let e = refused(&program, d, &flipped, "ticket-counter");
    assert!(e.contains("checksum mismatch"), "{e}");
    let e = refused(
        &program,
        d,
        &std::fs::read(&program).unwrap(),
        "ticket-counter",
    );
    assert!(
        e.contains("this is an Ensemble program (.ensb), not a snapshot"),
        "{e}"
    );
    let e = refused(&program, d, b"just some text\n", "ticket-counter");
    assert!(e.contains("not an Ensemble snapshot"), "{e}");
    let e = refused(&program, d, &[], "ticket-counter");
    assert!(e.contains("the snapshot is empty"), "{e}");
    let mut future = bytes.clone();
    future[8] += 1;
    let e = refused(&program, d, &future, "ticket-counter");
    assert!(e.contains("written by a newer runtime"), "{e}");
    // Another scene of the same program, and another program.
    let e = refused(&program, d, &bytes, "ticket-sale");
    assert!(
        e.contains("taken in scene `ticket-counter`, not `ticket-sale`"),
        "{e}"
    );
    let bench = repo_path("samples/bench");
    let bad = d.join("bad.snap");
    std::fs::write(&bad, &bytes).unwrap();
    let out = run(&bench, "bench", 10, &["--restore", bad.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("taken from program `airport`, not `bench`"),
        "{}",
        out.stderr
    );
}

/// `ensemble run samples/bench --scene bench --ticks TICKS --save FILE`, served to tools and
/// held at tick 0; a tool steps it to `pause_at`, optionally pushes the project again (a hot
/// reload of the same program, which carries every action in flight across), then resumes it.
/// The run's exit code, its stderr, and whether the snapshot was written.
fn bench_saved_after_a_push(
    dir: &Path,
    ticks: u64,
    pause_at: u64,
    push: bool,
) -> (i32, String, bool) {
    let bench = repo_path("samples/bench");
    let snap = dir.join(format!("{ticks}-{push}.snap"));
    let args = [
        "run",
        &bench,
        "--scene",
        "bench",
        "--ticks",
        &ticks.to_string(),
        "--trace",
        "json",
        "--speed",
        "1000",
        "--save",
        snap.to_str().unwrap(),
        "--inspect",
        "127.0.0.1:0",
        "--inspect-wait",
    ];
    let game = spawn(args.iter().map(|a| a.to_string()).collect());
    let announced = next(&game.err, "address on stderr");
    let address = announced
        .strip_prefix("inspecting on ")
        .unwrap_or_else(|| panic!("stderr says where: {announced}"));
    let mut tool = Tool::connect(address);
    tool.send(&ToolMessage::Step { ticks: pause_at });
    match tool.message() {
        GameMessage::Paused { tick, .. } => assert_eq!(tick, pause_at),
        other => panic!("expected paused, got {other:?}"),
    }
    if push {
        let pushed = ensemble(&["push", address, &bench]);
        assert_eq!(pushed.code, 0, "{}", pushed.stderr);
        assert!(
            pushed.stdout.contains("\"type\":\"reload\""),
            "{}",
            pushed.stdout
        );
    }
    tool.send(&ToolMessage::Resume);
    let code = game.done.join().unwrap();
    let stderr: Vec<String> = game.err.try_iter().collect();
    (code, stderr.join("\n"), snap.exists())
}

/// A script action carried across a hot reload ends with the rule of the program that started
/// it, which a snapshot cannot hold yet (docs/formats/snapshot.md): `--save` refuses while one
/// still runs — exit 1, the reason, nothing written — and saves once it has ended. The reload
/// is a tool's push while the elder walks to her seat.
#[test]
fn save_is_refused_while_a_script_action_carried_across_a_reload_still_runs() {
    let (_, events) = run_trace("samples/bench", "bench", 600, 0, "0");
    let tick_of = |event: &str| {
        events
            .iter()
            .find(|e| e["agent"] == "elder" && e["event"] == event && e["action"] == "sit")
            .unwrap_or_else(|| panic!("the elder's sit has no `{event}`"))["tick"]
            .as_u64()
            .unwrap()
    };
    let (sits, seated) = (tick_of("act"), tick_of("done"));
    assert!(
        seated > sits + 20,
        "the sit takes a while: {sits}..{seated}"
    );
    let dir = tempfile::tempdir().unwrap();
    let (pause_at, save_at) = (sits + 5, sits + 10);

    let (code, stderr, written) = bench_saved_after_a_push(dir.path(), save_at, pause_at, true);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "scene `bench` cannot be saved after tick {save_at}: a script action carried across \
             a hot reload is still running"
        )),
        "{stderr}"
    );
    assert!(!written, "nothing written");

    // Without the push the same run saves; with it, a run that ends after the sit saves too.
    let (code, stderr, written) = bench_saved_after_a_push(dir.path(), save_at, pause_at, false);
    assert_eq!((code, written), (0, true), "{stderr}");
    let (code, stderr, written) = bench_saved_after_a_push(dir.path(), seated + 5, pause_at, true);
    assert_eq!((code, written), (0, true), "{stderr}");
}

#[test]
fn a_conversation_goes_on_from_a_save_with_the_rest_of_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("s.snap");
    let snap = snap.to_str().unwrap();
    let inn = repo_path("samples/innkeeper");
    let input = repo_path("samples/innkeeper/transcripts/xenos.txt");
    let whole = run(&inn, "chat", 200, &["--input", &input]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    for n in [0, 1, 7, 8, 20] {
        let first = run(&inn, "chat", n, &["--input", &input, "--save", snap]);
        assert_eq!(first.code, 0, "{}", first.stderr);
        assert!(Path::new(snap).exists());
        let second = run(&inn, "chat", 200, &["--input", &input, "--restore", snap]);
        assert_eq!(second.code, 0, "{}", second.stderr);
        let expected = after(&whole.stdout, n);
        assert!(!expected.is_empty());
        assert_eq!(
            second.stdout.lines().collect::<Vec<_>>(),
            expected,
            "saved at {n}"
        );
        // The saved run and the restored one make the whole trace.
        assert_eq!(format!("{}{}", first.stdout, second.stdout), whole.stdout);
    }
    // In text mode the save is reported.
    let out = ensemble(&[
        "run", &inn, "--scene", "chat", "--ticks", "5", "--input", &input, "--save", snap,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("saved ") && out.stderr.contains("after tick 5"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_truncated_conversation_snapshot_is_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("s.snap");
    let snap = snap.to_str().unwrap();
    let inn = repo_path("samples/innkeeper");
    let out = run(&inn, "chat", 3, &["--save", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut bytes = std::fs::read(snap).unwrap();
    let n = bytes.len();
    bytes.truncate(n - 5);
    let cut = dir.path().join("cut.snap");
    std::fs::write(&cut, &bytes).unwrap();
    let out = run(&inn, "chat", 3, &["--restore", cut.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("the snapshot is truncated"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn restoring_onto_an_edited_project_maps_by_name_and_says_what_fell_back() {
    // At tick 30 the buyers walk to the counter in Goto1.
    let (_dir, project, snap) = saved_copy("airport", "ticket-counter", 30, &[]);
    let snap = snap.as_str();
    let machine = Path::new(&project).join("machines/BuyTicketAtCounter.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    std::fs::write(&machine, text.replace("Goto1", "Goto3")).unwrap();
    let out = run(&project, "ticket-counter", 600, &["--restore", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: airport changed since the snapshot was taken; restoring by name"),
        "{}",
        out.stderr
    );
    for buyer in ["buyer1", "buyer2"] {
        assert!(
            out.stderr.contains(&format!(
                "warning: not restored as saved: {buyer}: state BuyTicketAtCounter/Goto1 no longer exists; BuyTicketAtCounter restarts at its initial state"
            )),
            "{}",
            out.stderr
        );
    }
    // The seller kept its place; the buyers start over and still buy their tickets.
    let trace = ensemble_tests::json_lines(&out.stdout);
    assert_eq!(trace[0]["tick"], 30);
    assert!(
        trace
            .iter()
            .any(|e| e["agent"] == "buyer1" && e["state"] == "Goto3"),
        "{}",
        out.stdout
    );
    assert!(trace.iter().all(|e| e["tick"].as_u64().unwrap() <= 630));
}

/// The scenes of the samples whose behaviour a snapshot carries whole: state machines walking
/// and talking on a graph with doors, smart locations with ambient, spawned and proxy agents,
/// notifications, the player's scene events.
const SCENES: [(&str, &str); 11] = [
    ("samples/airport", "ticket-counter"),
    ("samples/airport", "ticket-sale"),
    ("samples/airport", "lane-closed"),
    ("samples/airport", "traveller"),
    ("samples/dinner-date", "date"),
    ("samples/dinner-date", "funny-evening"),
    ("samples/bench", "bench"),
    ("samples/shops", "market"),
    ("samples/street-vendor", "street"),
    ("samples/weapon-shop", "shop"),
    ("samples/weapon-shop", "shop-sold-out"),
];

/// A sample compiled once per test binary.
fn compiled(sample: &str) -> Arc<Program> {
    static PROGRAMS: std::sync::Mutex<Vec<(String, Arc<Program>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut programs = PROGRAMS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = programs.iter().find(|(s, _)| s == sample) {
        return p.clone();
    }
    let c = ensemble_compiler::compile_path(&root().join(sample)).unwrap();
    let p = Arc::new(c.output.expect("the sample compiles").0);
    programs.push((sample.to_string(), p.clone()));
    p
}

fn lines(sim: &mut Simulation) -> Vec<String> {
    sim.take_events().iter().map(|e| e.to_json()).collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// Over the scenes and many seeds: run N ticks, save, restore, run M more — the trace equals
    /// the uninterrupted N+M run's events after tick N, line for line.
    #[test]
    fn save_restore_equals_the_uninterrupted_run(
        (sample, scene) in proptest::sample::select(SCENES.to_vec()),
        seed in 0u64..10_000,
        n in 0u64..3000,
        m in 0u64..1500,
        fail_rate in proptest::sample::select(vec![0.0, 0.25]),
    ) {
        let program = compiled(sample);
        let options = Options {
            fail_rate,
            ..Options::default()
        };
        let mut whole = Simulation::start(program.clone(), scene, seed, &options).unwrap();
        for _ in 0..n {
            whole.tick();
        }
        lines(&mut whole);
        let mut w = SnapshotWriter::new(&program, sample);
        whole.save(&mut w).unwrap();
        let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
        for _ in 0..m {
            whole.tick();
        }
        let (mut restored, report) = Simulation::restore(program, &snapshot, &options).unwrap();
        proptest::prop_assert!(report.fallbacks.is_empty(), "{:?}", report);
        for _ in 0..m {
            restored.tick();
        }
        proptest::prop_assert_eq!(lines(&mut restored), lines(&mut whole));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// The snapshot reader fuzzed through the simulated world: a real snapshot's sections
    /// edited in a few bytes (the container is re-made, so the sections' decoders and checks
    /// must catch it) restore or are refused, and a restored scene runs — never a panic.
    #[test]
    fn edited_sections_are_restored_or_refused_never_a_panic(
        (sample, scene, ticks) in proptest::sample::select(vec![
            ("samples/airport", "lane-closed", 300),
            ("samples/bench", "bench", 900),
            ("samples/street-vendor", "street", 1500),
            ("samples/airport", "traveller", 400),
            ("samples/innkeeper", "chat", 30),
        ]),
        section in 0usize..6,
        edits in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 1..5),
    ) {
        let program = compiled(sample);
        let options = Options::default();
        let mut sim = Simulation::start(program.clone(), scene, 5, &options).unwrap();
        for _ in 0..ticks {
            sim.tick();
        }
        let mut w = SnapshotWriter::new(&program, sample);
        sim.save(&mut w).unwrap();
        let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
        let names: Vec<String> = snapshot.sections().map(str::to_string).collect();
        let mut edited = SnapshotWriter::new(&program, sample);
        for (i, name) in names.iter().enumerate() {
            let mut bytes = snapshot.bytes(name).unwrap().to_vec();
            if i == section {
                for (at, value) in &edits {
                    let j = at.index(bytes.len());
                    bytes[j] = *value;
                }
            }
            edited.put_bytes(name, bytes);
        }
        let edited = SnapshotReader::from_bytes(&edited.to_bytes()).unwrap();
        if let Ok((mut restored, _)) = Simulation::restore(program, &edited, &options) {
            for _ in 0..60 {
                restored.tick();
            }
        }
    }
}

#[test]
fn a_snapshot_that_cannot_be_written_fails_the_run_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("missing").join("s.snap");
    let airport = repo_path("samples/airport");
    let out = run(
        &airport,
        "ticket-counter",
        5,
        &["--save", snap.to_str().unwrap()],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("error: cannot write "),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn restored_onto_another_navigation_graph_walks_plan_again_from_where_they_stand() {
    // At tick 30 both buyers walk to the counter on the terminal graph.
    let (_dir, project_arg, snap) = saved_copy("airport", "ticket-counter", 30, &[]);
    let snap = snap.as_str();
    let project = Path::new(&project_arg);
    let nav = project.join("terminal.nav.ron");
    let text = std::fs::read_to_string(&nav).unwrap();
    let moved = text.replace(
        "(name: \"KioskEnd\", x: 4.0, y: -2.5)",
        "(name: \"KioskEnd\", x: 4.5, y: -2.0)",
    );
    assert_ne!(moved, text);
    std::fs::write(&nav, moved).unwrap();
    let out = run(&project_arg, "ticket-counter", 10, &["--restore", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let trace = ensemble_tests::json_lines(&out.stdout);
    for buyer in ["buyer1", "buyer2"] {
        assert!(
            trace.iter().any(|e| e["agent"] == buyer
                && e["event"] == "path"
                && e["reroute"] == true
                && e["tick"] == 31),
            "{buyer} did not plan again: {}",
            out.stdout
        );
    }
}

#[test]
fn smart_locations_restored_onto_a_rebuilt_project_start_afresh_and_say_so() {
    let (_dir, project_arg, snap) = saved_copy("bench", "bench", 700, &[]);
    let snap = snap.as_str();
    let project = Path::new(&project_arg);
    let locations = project.join("bench.locations.ron");
    let text = std::fs::read_to_string(&locations).unwrap();
    std::fs::write(
        &locations,
        text.replace("x: 0.0, y: 15.0", "x: 1.0, y: 15.0"),
    )
    .unwrap();
    let out = run(&project_arg, "bench", 100, &["--restore", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "warning: not restored as saved: the smart locations start afresh: the program was rebuilt since the snapshot"
        ),
        "{}",
        out.stderr
    );
    // Unchanged, the same snapshot restores without a word.
    std::fs::write(&locations, text).unwrap();
    let out = run(&project_arg, "bench", 100, &["--restore", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

#[test]
fn a_plan_restored_onto_a_changed_problem_plans_afresh_and_says_so() {
    let (_dir, project_arg, snap) = saved_copy("airport", "traveller", 300, &[]);
    let snap = snap.as_str();
    let project = Path::new(&project_arg);
    let actions = project.join("traveller/traveller.actionlist.ron");
    // The traveller's content tests name the action this test renames.
    std::fs::remove_file(project.join("traveller/traveller.test.ron")).unwrap();
    let text = std::fs::read_to_string(&actions).unwrap();
    std::fs::write(
        &actions,
        text.replace("\"Check_Gate\"", "\"Check_The_Gate\""),
    )
    .unwrap();
    let out = run(&project_arg, "traveller", 100, &["--restore", snap]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "could not take back its data (planning problem `CatchFlight` changed since the save); entered it afresh"
        ),
        "{}",
        out.stderr
    );
    let trace = ensemble_tests::json_lines(&out.stdout);
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "plan" && e["tick"] == 300),
        "{}",
        out.stdout
    );
}

/// The innkeeper's transcript lines, and a few of the player's own.
fn player_lines() -> Vec<String> {
    let text =
        std::fs::read_to_string(root().join("samples/innkeeper/transcripts/xenos.txt")).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(str::to_string)
        .collect();
    lines.extend(["", "/waves", "/nods hello", "how much is the sword", "bye"].map(String::from));
    lines
}

/// Drives a conversation as `ensemble run` does: one tick each step, the player saying the next
/// of `said` whenever it is their turn; `at` counts the lines said.
fn converse(sim: &mut Simulation, said: &[String], at: &mut usize, ticks: u64) {
    for _ in 0..ticks {
        if sim.awaits_player()
            && let Some(line) = said.get(*at)
        {
            *at += 1;
            sim.say(line);
        }
        sim.tick();
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The conversation scene over many seeds and player inputs: run N ticks, save, restore,
    /// run M more — the trace equals the uninterrupted run's after tick N, line for line,
    /// including a player line queued but not yet heard when the save is made.
    #[test]
    fn a_conversation_restored_equals_the_uninterrupted_one(
        seed in 0u64..10_000,
        picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..40),
        n in 0u64..60,
        m in 0u64..80,
        queued in proptest::prelude::any::<bool>(),
    ) {
        let all = player_lines();
        let said: Vec<String> = picks.iter().map(|i| i.get(&all).clone()).collect();
        let program = compiled("samples/innkeeper");
        let options = Options::default();
        let mut whole = Simulation::start(program.clone(), "chat", seed, &options).unwrap();
        let mut at = 0;
        converse(&mut whole, &said, &mut at, n);
        if queued && let Some(line) = said.get(at) {
            at += 1;
            whole.say(line);
        }
        lines(&mut whole);
        let mut w = SnapshotWriter::new(&program, "innkeeper");
        whole.save(&mut w).unwrap();
        let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
        let resume = at;
        converse(&mut whole, &said, &mut at, m);
        let (mut restored, report) = Simulation::restore(program, &snapshot, &options).unwrap();
        proptest::prop_assert!(report.fallbacks.is_empty(), "{:?}", report);
        proptest::prop_assert_eq!(restored.tick_count(), n);
        let mut at = resume;
        converse(&mut restored, &said, &mut at, m);
        proptest::prop_assert_eq!(lines(&mut restored), lines(&mut whole));
    }
}

#[test]
fn a_conversation_restored_onto_an_edited_project_maps_by_name_and_says_what_fell_back() {
    let input = repo_path("samples/innkeeper/transcripts/xenos.txt");
    // Tick 1 greets, tick 2 hears the greeting: the greeting space is then at `replied`.
    let (_dir, project, snap) = saved_copy("innkeeper", "chat", 2, &["--input", &input]);
    let snap = snap.as_str();
    // The greeting's `replied` state is renamed: the belief it held has nowhere to go.
    let space = Path::new(&project).join("spaces/greeting.space.ron");
    let text = std::fs::read_to_string(&space).unwrap();
    std::fs::write(&space, text.replace("\"replied\"", "\"answered\"")).unwrap();
    let reader = Path::new(&project).join("spaces/whats-up.space.ron");
    let text = std::fs::read_to_string(&reader).unwrap();
    std::fs::write(
        &reader,
        text.replace("greeting.replied", "greeting.answered"),
    )
    .unwrap();
    let out = run(
        &project,
        "chat",
        200,
        &["--input", &input, "--restore", snap],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: innkeeper changed since the snapshot was taken; restoring by name"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("warning: not restored as saved: space `greeting`: "),
        "{}",
        out.stderr
    );
    // It goes on talking after tick 2 with the rest of the input.
    let trace = ensemble_tests::json_lines(&out.stdout);
    assert_eq!(trace[0]["tick"], 3, "{}", out.stdout);
    assert_eq!(trace[0]["text"], "what's up", "{}", out.stdout);
    assert!(
        trace.iter().any(|e| e["event"] == "output"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_snapshot_restored_onto_a_patched_tick_rate_keeps_its_scene_time_and_runs_at_the_new_rate() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(&repo_path("samples/airport")), dir.path());
    let build = |dir: &Path| {
        let c = ensemble_compiler::compile_path(dir).unwrap();
        Arc::new(c.output.expect("the airport builds").0)
    };
    let shipped = build(dir.path());
    let mut sim =
        Simulation::start(shipped.clone(), "ticket-counter", 5, &Options::default()).unwrap();
    for _ in 0..300 {
        sim.tick();
    }
    let mut w = SnapshotWriter::new(&shipped, "airport");
    sim.save(&mut w).unwrap();
    // The patch runs the ticket counter at 60 ticks a second instead of 30.
    let scene = dir.path().join("ticket-counter.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    assert!(text.contains("tick_rate: 30"));
    std::fs::write(&scene, text.replace("tick_rate: 30", "tick_rate: 60")).unwrap();
    let patched = build(dir.path());
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let (mut restored, report) =
        Simulation::restore(patched, &snapshot, &Options::default()).unwrap();
    assert!(
        report
            .fallbacks
            .iter()
            .any(|f| f.contains("tick rate changed from 30 to 60") && f.contains("tick 600")),
        "{:?}",
        report.fallbacks
    );
    assert!((restored.dt() - 1.0 / 60.0).abs() < 1e-12);
    assert_eq!(restored.tick_count(), 600, "10 s of scene time kept");
    for _ in 0..600 {
        restored.tick();
    }
    assert!((restored.now() - 20.0).abs() < 1e-6, "{}", restored.now());
}
