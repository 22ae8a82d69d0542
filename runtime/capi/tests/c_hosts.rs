//! The two C hosts, built with the system C compiler against the static library and run.
//!
//! Host 1 (`examples/airport.c`): the airport's ticket-counter scene run through the C ABI on
//! the standard world prints the very trace `ensemble run` prints. Host 2 (`examples/forge.c`):
//! a world and a library state written in C run a machine, a conversation and an interaction
//! script (the fixture project `tests/forge`), through a savegame and a hot reload. The C++
//! RAII wrapper (`include/ensemble.hpp`) runs host 1 again (`examples/airport.cpp`).

mod support;

use support::{Language, Link};

#[test]
fn c_host_trace_equals_the_cli_trace_byte_for_byte() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let (seed, ticks) = ("7", "600");

    let cli = support::airport_cli_trace("ticket-counter", seed, ticks);
    assert!(
        cli.lines().count() > 50 && cli.contains("\"say\""),
        "the scene says something in {ticks} ticks"
    );

    // The C host linked statically and with the shared library, and the C++ host through the
    // RAII wrapper (with a savegame halfway): the same bytes each time — and the C host
    // serving tools with none attached, exactly as before.
    let none: &[&str] = &[];
    let hosts = [
        ("the C host", Language::C, Link::Static, "static", none),
        (
            "the C host (shared library)",
            Language::C,
            Link::Shared,
            "shared",
            none,
        ),
        ("the C++ host", Language::Cpp, Link::Static, "cpp", none),
        (
            "the C host serving tools",
            Language::C,
            Link::Static,
            "served",
            &["127.0.0.1:0"],
        ),
        (
            "the C++ host serving tools",
            Language::Cpp,
            Link::Static,
            "served-cpp",
            &["127.0.0.1:0"],
        ),
    ];
    for (what, language, link, folder, extra) in hosts {
        let exe = support::compile_host("airport", language, link, &dir.path().join(folder));
        let program = program.to_str().expect("UTF-8 path");
        let mut args = vec![program, "ticket-counter", seed, ticks];
        args.extend(extra);
        let out = support::run_host(&exe, &args);
        assert_eq!(out.code, 0, "{what} failed: {}", out.stderr);
        assert!(
            out.stdout == cli,
            "{what}'s trace differs from `ensemble run`'s at {}",
            support::first_difference(&cli, &out.stdout)
        );
    }
}

/// A tool attached to the C host (started waiting for it) sets a breakpoint on the seller's
/// `TalkStateMachine`, resumes, sees the host pause at the tick the trace says the seller
/// enters it, looks at the agents, and resumes: the host's trace is the CLI's all the same.
#[test]
fn a_tool_pauses_the_c_host_at_a_breakpoint_and_the_trace_stays_the_clis() {
    use ensemble_runtime::inspect::protocol::{Breakpoint, GameMessage, PauseReason, ToolMessage};
    use std::io::BufRead;
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let exe = support::compile_host("airport", Language::C, Link::Static, dir.path());
    let (seed, ticks) = ("7", "600");
    let cli = support::airport_cli_trace("ticket-counter", seed, ticks);
    let expected_tick = cli
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .find(|e| {
            e["event"] == "enter"
                && e["machine"] == "StandSellTicket"
                && e["state"] == "TalkStateMachine"
        })
        .expect("the seller talks within the run")["tick"]
        .as_u64()
        .expect("a tick");

    let mut host = Command::new(&exe)
        .args([
            program.to_str().expect("UTF-8 path"),
            "ticket-counter",
            seed,
            ticks,
            "127.0.0.1:0",
            "wait",
        ])
        .env_remove("LD_LIBRARY_PATH")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the host runs");
    let mut stderr = std::io::BufReader::new(host.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("the host says where");
    let address = first
        .trim()
        .strip_prefix("inspecting on ")
        .unwrap_or_else(|| panic!("not an address line: {first}"))
        .to_string();
    // The host prints its trace while the tool talks to it: read it meanwhile.
    let mut stdout = host.stdout.take().expect("stdout");
    let printed = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).expect("UTF-8 trace");
        text
    });

    let (mut tool, hello) = support::Tool::connect(&address);
    assert!(hello.paused, "the host waits for a tool");
    assert_eq!(hello.scene, "ticket-counter");
    let breakpoint = Breakpoint::parse_state("StandSellTicket/TalkStateMachine").expect("valid");
    assert!(matches!(
        tool.ask(&ToolMessage::Break { breakpoint }),
        GameMessage::Ok { .. }
    ));
    assert!(matches!(
        tool.ask(&ToolMessage::Resume),
        GameMessage::Resumed { tick: 0 }
    ));
    match tool.message() {
        GameMessage::Paused {
            tick,
            reason: PauseReason::Breakpoint,
            ..
        } => assert_eq!(tick, expected_tick, "paused at the tick the trace predicts"),
        other => panic!("expected the breakpoint's pause, got {other:?}"),
    }
    let GameMessage::Snapshot { tick, agents } = tool.ask(&ToolMessage::Snapshot) else {
        panic!("expected a snapshot");
    };
    assert_eq!(tick, expected_tick, "no tick ran while paused");
    assert!(
        agents
            .iter()
            .any(|a| a.states.iter().any(|s| s.state == "TalkStateMachine")),
        "an agent is in TalkStateMachine: {agents:?}"
    );
    assert!(matches!(
        tool.ask(&ToolMessage::Clear { breakpoint: None }),
        GameMessage::Ok { .. }
    ));
    tool.send(&ToolMessage::Resume);
    let status = host.wait().expect("the host ends");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    assert!(status.success(), "the host failed: {rest}");
    let printed = printed.join().expect("the reader thread");
    assert!(
        printed == cli,
        "the paused host's trace differs from `ensemble run`'s at {}",
        support::first_difference(&cli, &printed)
    );
}

#[test]
fn c_host_reports_an_unknown_scene_with_the_scenes_there_are() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let host = support::compile_host("airport", Language::C, Link::Static, dir.path());
    let c = support::run_host(
        &host,
        &[
            program.to_str().expect("UTF-8 path"),
            "no-such-scene",
            "7",
            "1",
        ],
    );
    assert_eq!(c.code, 1);
    assert!(
        c.stderr.contains("ens_scene_start_simulated failed (9)")
            && c.stderr.contains("no scene `no-such-scene`")
            && c.stderr.contains("ticket-counter"),
        "{}",
        c.stderr
    );
}

/// The positions of `needles` in `text`, each searched after the previous one: they occur in
/// this order.
fn assert_in_order(text: &str, needles: &[&str]) {
    let mut from = 0;
    for needle in needles {
        match text[from..].find(needle) {
            Some(i) => from += i + needle.len(),
            None => panic!("`{needle}` is missing (or out of order) after byte {from} of:\n{text}"),
        }
    }
}

#[test]
fn c_world_runs_a_machine_a_conversation_and_a_script_through_a_savegame_and_a_reload() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("runtime/capi/tests/forge", dir.path(), "forge");
    let host = support::compile_host("forge", Language::C, Link::Static, dir.path());
    let trace_path = dir.path().join("forge.jsonl");
    let out = support::run_host(
        &host,
        &[
            program.to_str().expect("UTF-8 path"),
            "100",
            trace_path.to_str().expect("UTF-8 path"),
        ],
    );
    assert_eq!(out.code, 0, "the C host failed: {}", out.stderr);
    let log = out.stdout;

    // The world set up as the simulated one is: bodies at their start locations, variables.
    assert_in_order(
        &log,
        &[
            "place agent 0 at (6.0, 0.0)",
            "place agent 1 at (0.0, 0.0)",
            ".Coal = plenty",
        ],
    );
    // The customer's machine: a walk that takes 3 s at 2 m/s, the conversation, the check of
    // what changed hands, the walk out.
    assert_in_order(
        &log,
        &[
            "0.0 move (new agent) to Anvil (6.0, 0.0)",
            "3.0 arrive customer at Anvil",
            // Each line with the key its voice-over is found under (the string table's id).
            "say customer: \"One horseshoe, please.\" [written] voice Order/Ask",
            "hammer smith: 3 strikes on bronze (coal: plenty)",
            "hammer restored after 1 of 3 strikes",
            "saved ",
            "reloaded",
            "hammer done after 3 strikes",
            "set customer.Horseshoe = a bronze horseshoe",
            "say smith: \"Here is your horseshoe.\" [written] voice Forge/Reply",
            "say customer: \"Thank you kindly.\" [written]",
            "move customer to Door (0.0, 0.0)",
            "7.8 arrive customer at Door",
            "end smith: [Finish]",
            "end customer: [Finish] horseshoe: a bronze horseshoe",
        ],
    );
    // The interaction script at the bellows: two actions of the world, each taking a second.
    assert_in_order(
        &log,
        &[
            "move apprentice to Bellows (0.0, 4.0)",
            "1.6 action 1: apprentice pump",
            "2.6 action 1 done: apprentice pump",
            "2.6 action 2: apprentice stoke line='The fire is hot' saying \"The fire is hot\"",
            "3.6 action 2 done: apprentice stoke",
        ],
    );
    // The handle of the scene freed for the restore is refused, not followed.
    assert!(
        log.contains("the old handle: status 5 (ens_scene_tick: the scene handle was freed)"),
        "{log}"
    );

    // The trace: JSON lines, in tick order; the host state's lines go on across the savegame
    // with the visit's count carried (one strike a tick, numbered on), and the reload is there.
    let trace = std::fs::read_to_string(&trace_path).expect("the host wrote its trace");
    let events: Vec<serde_json::Value> = trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let ticks: Vec<u64> = events
        .iter()
        .map(|e| e["tick"].as_u64().expect("a tick"))
        .collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "ticks go forward");
    assert_eq!(
        ticks.last(),
        Some(&78),
        "the customer's last arrival is the last event"
    );
    let clangs: Vec<(u64, &str)> = events
        .iter()
        .filter(|e| e["event"] == "say" && e["agent"] == "smith")
        .filter_map(|e| Some((e["tick"].as_u64()?, e["text"].as_str()?)))
        .filter(|(_, text)| text.starts_with("Clang"))
        .collect();
    assert_eq!(
        clangs,
        [
            (37, "Clang 1 on the bronze!"),
            (38, "Clang 2 on the bronze!"),
            (39, "Clang 3 on the bronze!")
        ]
    );
    let reloads: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["event"] == "reload").collect();
    assert_eq!(reloads.len(), 1, "one reload");
    assert_eq!(reloads[0]["reason"], "forge.ensb changed");
    assert_eq!(
        reloads[0]["fallbacks"],
        serde_json::json!([]),
        "everything carried across"
    );
}
