//! Attaching to a running game end to end: `ensemble run --inspect` serves the ticket sale,
//! `ensemble attach` sets a breakpoint on the seller's `TalkStateMachine` and sees the game
//! pause at the tick the plain trace predicts, `ensemble push` hot-reloads an edited copy of the
//! project and refuses a broken one, and hostile requests leave the game running.

use ensemble_runtime::inspect::protocol::{
    FromGame, GameMessage, PROTOCOL_VERSION, PauseReason, ToolMessage, base64,
};
use ensemble_tests::{
    Running, Tool, copy_dir, ensemble, json_lines, next, repo_path, run_trace, serve, spawn,
};
use std::io::Write;
use std::time::{Duration, Instant};

const TICKS: u64 = 1500;
const BREAKPOINT: &str = "StandSellTicket/TalkStateMachine";

/// `ensemble run samples/airport --scene ticket-sale --inspect 127.0.0.1:0 --inspect-wait
/// EXTRA…` on a thread: the running game and the address it serves.
fn serve_ticket_sale(extra: &[&str]) -> (Running, String) {
    let mut args: Vec<String> = [
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-sale",
        "--inspect",
        "127.0.0.1:0",
        "--inspect-wait",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    serve(args)
}

/// The airport project copied to a temporary folder with `edit` applied to SellTicket.
fn edited_airport(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &std::path::PathBuf::from(repo_path("samples/airport")),
        dir.path(),
    );
    let machine = dir.path().join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changes the machine");
    std::fs::write(machine, edited).unwrap();
    dir
}

#[test]
fn attach_break_push_and_hostile_requests_against_a_running_game() {
    // What the plain run predicts: the tick the seller enters TalkStateMachine.
    let (plain, events) = run_trace("samples/airport", "ticket-sale", TICKS, 0, "0");
    let predicted = events
        .iter()
        .find(|e| {
            e["agent"] == "seller"
                && e["event"] == "enter"
                && e["machine"] == "StandSellTicket"
                && e["state"] == "TalkStateMachine"
        })
        .expect("the seller talks")["tick"]
        .as_u64()
        .unwrap();
    assert!(
        predicted > 0,
        "entered after the start, so a breakpoint can catch it"
    );

    let ticks = TICKS.to_string();
    let (game, address) =
        serve_ticket_sale(&["--ticks", &ticks, "--trace", "json", "--speed", "10"]);

    let attach = spawn(
        [
            "attach", &address, "--trace", "json", "--break", BREAKPOINT, "--resume",
        ]
        .map(String::from)
        .to_vec(),
    );
    let hello: serde_json::Value = serde_json::from_str(&next(&attach.out, "hello")).unwrap();
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["version"], PROTOCOL_VERSION);
    assert_eq!(hello["program"], "airport");
    assert_eq!(hello["scene"], "ticket-sale");
    assert_eq!(hello["tick"], 0);
    assert_eq!(hello["paused"], true, "--inspect-wait holds the first tick");
    assert_eq!(
        hello["agents"],
        serde_json::json!(["seller", "customer", "traveler"])
    );

    // Every line up to the pause: the trace exactly as the plain run wrote it, then `paused`.
    let mut streamed = Vec::new();
    let paused = loop {
        let line = next(&attach.out, "paused");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "paused" {
            break v;
        } else if v.get("type").is_none() {
            streamed.push(line);
        }
    };
    assert_eq!(paused["tick"], predicted, "{paused}");
    assert_eq!(paused["reason"], "breakpoint");
    assert_eq!(paused["breakpoint"]["machine"], "StandSellTicket");
    assert_eq!(paused["event"]["state"], "TalkStateMachine");
    assert_eq!(paused["event"]["agent"], "seller");
    // Tick 0 ran before the tool attached (the scene starts, then waits for a tool).
    let expected: Vec<&str> = plain
        .lines()
        .filter(|l| (1..=predicted).contains(&json_lines(l)[0]["tick"].as_u64().unwrap()))
        .collect();
    assert_eq!(streamed, expected, "the attached trace is the plain trace");

    // Paused: a snapshot shows the seller in the state the breakpoint named.
    let mut tool = Tool::connect(&address);
    tool.send(&ToolMessage::Snapshot);
    let GameMessage::Snapshot { tick, agents } = tool.message() else {
        panic!("expected a snapshot");
    };
    assert_eq!(tick, predicted);
    let seller = agents.iter().find(|a| a.name == "seller").unwrap();
    assert_eq!(seller.states[0].state, "TalkStateMachine");
    assert!(
        seller.position.is_some(),
        "the simulated world reports positions"
    );
    let customer = agents.iter().find(|a| a.name == "customer").unwrap();
    assert_eq!(customer.variables["CityName"], "Boston");

    // Push an edited copy: the game reloads it, live states kept by name.
    let edited = edited_airport(|t| t.replace("\"OK.|Sure.\"", "\"Right.|Fine.\""));
    let pushed = ensemble(&["push", &address, edited.path().to_str().unwrap()]);
    assert_eq!(pushed.code, 0, "{}", pushed.stderr);
    let answer: serde_json::Value = serde_json::from_str(pushed.stdout.trim()).unwrap();
    assert_eq!(answer["type"], "reload", "{answer}");
    assert!(answer["kept"].as_u64().unwrap() > 0);

    // A broken copy does not compile: not pushed, exit 1, the game untouched.
    let broken = edited_airport(|t| t.replace("\"WhenTravel\")", "\"WhenTravle\")"));
    let refused = ensemble(&["push", &address, broken.path().to_str().unwrap()]);
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("not pushed"), "{}", refused.stderr);
    assert!(refused.stderr.contains("WhenTravle"), "{}", refused.stderr);

    // Hostile requests: a reload of garbage, invalid UTF-8, a 100 MB line. Each gets its answer
    // and the game goes on answering.
    tool.send(&ToolMessage::Reload {
        program: base64::encode(b"ENSB but not really a program"),
    });
    let GameMessage::ReloadRejected { reason } = tool.message() else {
        panic!("expected reload-rejected");
    };
    assert!(reason.contains("does not load"), "{reason}");
    tool.stream.write_all(b"\xc3\x28\xff\n").unwrap();
    assert!(matches!(tool.message(), GameMessage::Error { message } if message.contains("UTF-8")));
    let mut flood = tool.stream.try_clone().unwrap();
    let flooding = std::thread::spawn(move || {
        let chunk = vec![b'{'; 1 << 20];
        for _ in 0..100 {
            flood.write_all(&chunk).unwrap();
        }
        flood.write_all(b"\n").unwrap();
    });
    assert!(
        matches!(tool.message(), GameMessage::Error { message } if message.contains("longer than"))
    );
    flooding.join().unwrap();
    tool.send(&ToolMessage::Snapshot);
    assert!(matches!(tool.message(), GameMessage::Snapshot { tick, .. } if tick == predicted));

    // Resume: the game runs on under the new program and keeps streaming ticks.
    tool.send(&ToolMessage::Clear { breakpoint: None });
    assert!(matches!(tool.message(), GameMessage::Ok { .. }));
    tool.send(&ToolMessage::Resume);
    assert!(matches!(tool.message(), GameMessage::Resumed { .. }));
    let started = Instant::now();
    let mut reload_seen = false;
    let mut last_tick = 0;
    while let Ok(line) = attach.out.recv_timeout(Duration::from_secs(60)) {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        reload_seen |= v["event"] == "reload";
        if let Some(t) = v["tick"].as_u64() {
            last_tick = last_tick.max(t);
        }
    }
    assert!(reload_seen, "the trace stream carries the reload");
    assert!(last_tick > predicted, "ticks go on after the pause");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(
        attach.done.join().unwrap(),
        0,
        "attach ends when the game does"
    );
    assert_eq!(game.done.join().unwrap(), 0);
    let run_out: Vec<String> = game.out.try_iter().collect();
    let said: Vec<&String> = run_out
        .iter()
        .filter(|l| l.contains("\"event\":\"say\"") && l.contains("\"seller\""))
        .collect();
    assert!(
        said.iter()
            .any(|l| l.contains("Right.") || l.contains("Fine.")),
        "the pushed program's line is said: {said:?}"
    );
    assert!(
        run_out
            .iter()
            .any(|l| l.contains("\"event\":\"reload-rejected\""))
    );
}

#[test]
fn a_step_runs_that_many_ticks_then_pauses() {
    let (game, address) = serve_ticket_sale(&["--ticks", "200", "--speed", "20"]);
    let mut tool = Tool::connect(&address);
    tool.send(&ToolMessage::Step { ticks: 5 });
    let GameMessage::Paused { tick, reason, .. } = tool.message() else {
        panic!("expected paused");
    };
    assert_eq!((tick, reason), (5, PauseReason::Step));
    tool.send(&ToolMessage::Set {
        agent: "customer".into(),
        variable: "CityName".into(),
        value: "Denver".into(),
    });
    assert!(matches!(tool.message(), GameMessage::Ok { .. }));
    tool.send(&ToolMessage::Snapshot);
    let GameMessage::Snapshot { agents, .. } = tool.message() else {
        panic!("expected a snapshot");
    };
    assert_eq!(agents[1].variables["CityName"], "Denver");
    tool.send(&ToolMessage::Resume);
    assert!(matches!(tool.message(), GameMessage::Resumed { tick: 5 }));
    assert_eq!(game.done.join().unwrap(), 0);
}

#[test]
fn a_variable_set_from_a_tool_is_checked_and_changes_what_the_agent_says() {
    let (game, address) = serve_ticket_sale(&["--ticks", "1500", "--speed", "50"]);
    let mut tool = Tool::connect_with(&address, true);
    let set = |tool: &mut Tool, agent: &str, variable: &str, value: &str| {
        tool.send(&ToolMessage::Set {
            agent: agent.into(),
            variable: variable.into(),
            value: value.into(),
        });
        tool.message()
    };
    let refused = |m: GameMessage| match m {
        GameMessage::Error { message } => message,
        other => panic!("expected an error, got {other:?}"),
    };
    assert_eq!(
        refused(set(&mut tool, "nobody", "CityName", "Denver")),
        "set: no agent `nobody` in the scene"
    );
    // A misspelt name is refused, with the names the game knows: the scene's (CityName,
    // Time), the sentences' slots (GateNumber) and the Transaction's (Ticket).
    let misspelt = refused(set(&mut tool, "customer", "CityNmae", "Denver"));
    assert!(
        misspelt.starts_with("set: `CityNmae` is not a variable of this game (it knows ")
            && ["CityName", "GateNumber", "Ticket", "Time"]
                .iter()
                .all(|n| misspelt.contains(n)),
        "{misspelt}"
    );
    assert_eq!(
        refused(set(&mut tool, "customer", " ", "x")),
        "set: the variable has no name"
    );
    // The game goes on serving after each refusal; a known name is set.
    assert!(matches!(
        set(&mut tool, "customer", "CityName", "Denver"),
        GameMessage::Ok { .. }
    ));
    // Set before the first tick: the customer asks for a ticket to Denver, never Boston.
    tool.send(&ToolMessage::Resume);
    let mut said = Vec::new();
    while let Some(line) = tool.line() {
        if let FromGame::Trace(e) = line
            && e["event"] == "say"
            && e["agent"] == "customer"
        {
            said.push(e["text"].as_str().unwrap_or_default().to_string());
        }
    }
    assert!(said.iter().any(|t| t.contains("Denver")), "{said:?}");
    assert!(!said.iter().any(|t| t.contains("Boston")), "{said:?}");
    assert_eq!(game.done.join().unwrap(), 0);
}

#[test]
fn attach_refused_by_a_token_and_push_without_a_game() {
    let (game, address) = serve_ticket_sale(&[
        "--ticks",
        "100",
        "--speed",
        "10",
        "--inspect-token",
        "c0ffee15c0ffee15",
    ]);
    let wrong = ensemble(&["attach", &address, "--token", "guess"]);
    assert_eq!(wrong.code, 1);
    assert!(wrong.stdout.contains("wrong token"), "{}", wrong.stdout);
    // A wrong token is backed off: the next hello from here is heard after half a second.
    std::thread::sleep(std::time::Duration::from_millis(600));
    let right = ensemble(&[
        "attach",
        &address,
        "--token",
        "c0ffee15c0ffee15",
        "--resume",
    ]);
    assert_eq!(right.code, 0, "{}", right.stderr);
    assert!(right.stdout.starts_with("{\"type\":\"hello\""));
    assert_eq!(game.done.join().unwrap(), 0);

    // Nobody listens there any more.
    let gone = ensemble(&["push", &address, &repo_path("samples/airport")]);
    assert_eq!(gone.code, 2);
    assert!(gone.stderr.contains("cannot connect"), "{}", gone.stderr);
    // A non-loopback address without a token is refused before the scene starts.
    let open = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-sale",
        "--inspect",
        "0.0.0.0:0",
    ]);
    assert_eq!(open.code, 2);
    assert!(open.stderr.contains("needs a token"), "{}", open.stderr);
}

#[test]
fn bad_arguments_are_refused_before_anything_runs() {
    let chat = ensemble(&[
        "run",
        &repo_path("samples/innkeeper"),
        "--scene",
        "chat",
        "--inspect",
        "127.0.0.1:0",
    ]);
    assert_eq!(chat.code, 2);
    assert!(chat.stderr.contains("is a conversation"), "{}", chat.stderr);
    let no_state = ensemble(&["attach", "127.0.0.1:1", "--break", "StandSellTicket"]);
    assert_eq!(no_state.code, 2);
    assert!(
        no_state.stderr.contains("MACHINE/STATE"),
        "{}",
        no_state.stderr
    );
    let broken = ensemble(&["push", "127.0.0.1:1", &repo_path("samples/airport/broken")]);
    assert_eq!(broken.code, 1, "errors are found before connecting");
    assert!(broken.stderr.contains("not pushed"), "{}", broken.stderr);
}
