//! The inspector over real loopback sockets against a small fake game, and its message reader
//! against any bytes.

use super::protocol::*;
use super::*;
use proptest::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Instant;

/// A game that records what the inspector did to it.
struct Game {
    program: Program,
    tick: u64,
    variables: BTreeMap<String, String>,
    reloads: u32,
    rejected: Vec<String>,
}

use std::collections::BTreeMap;

impl Game {
    fn new() -> Game {
        Game {
            program: crate::program::tests::sample(),
            tick: 0,
            variables: BTreeMap::new(),
            reloads: 0,
            rejected: Vec::new(),
        }
    }
}

impl Inspected for Game {
    fn program_name(&self) -> &str {
        "sample"
    }
    fn program(&self) -> &Program {
        &self.program
    }
    fn scene_name(&self) -> &str {
        "scene"
    }
    fn tick_count(&self) -> u64 {
        self.tick
    }
    fn agent_names(&self) -> Vec<String> {
        vec!["guard".into()]
    }
    fn snapshot(&self) -> Vec<AgentSnapshot> {
        vec![AgentSnapshot {
            name: "guard".into(),
            states: vec![ActiveState {
                machine: "Top".into(),
                state: "Watch".into(),
            }],
            variables: self.variables.clone(),
            ..AgentSnapshot::default()
        }]
    }
    fn reload(&mut self, program: Program) -> Result<ReloadReport, String> {
        self.program = program;
        self.reloads += 1;
        Ok(ReloadReport {
            kept: 1,
            fallbacks: Vec::new(),
        })
    }
    fn reject_reload(&mut self, reason: String) {
        self.rejected.push(reason);
    }
    fn set_variable(&mut self, agent: &str, variable: &str, value: &str) -> Result<(), String> {
        if agent != "guard" {
            return Err(format!("no agent `{agent}`"));
        }
        self.variables.insert(variable.into(), value.into());
        Ok(())
    }
}

fn event(tick: u64, kind: EventKind) -> TraceEvent {
    TraceEvent {
        tick,
        time: tick as f64 / 30.0,
        agent: Some(Arc::from("guard")),
        kind,
    }
}

fn enter(tick: u64, machine: &str, state: &str) -> TraceEvent {
    event(
        tick,
        EventKind::Enter {
            machine: Arc::from(machine),
            state: Arc::from(state),
            depth: 0,
        },
    )
}

/// A tool connected to an inspector, reading its lines.
struct Tool {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Tool {
    fn connect(inspector: &Inspector) -> Tool {
        let stream = TcpStream::connect(inspector.address()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Tool { stream, reader }
    }

    fn send(&mut self, line: &str) {
        self.stream.write_all(line.as_bytes()).unwrap();
        if !line.ends_with('\n') {
            self.stream.write_all(b"\n").unwrap();
        }
    }

    fn hello(&mut self, trace: bool) {
        self.send(&encode(&ToolMessage::Hello {
            version: PROTOCOL_VERSION,
            token: None,
            trace,
        }));
    }

    /// The next line, framing the game meanwhile (up to two seconds).
    fn next(&mut self, inspector: &mut Inspector, game: &mut Game) -> Option<FromGame> {
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut line = Vec::new();
        while Instant::now() < deadline {
            inspector.frame(game, &[]);
            match self.reader.read_until(b'\n', &mut line) {
                Ok(0) => return None,
                Ok(_) if line.ends_with(b"\n") => {
                    return Some(decode_from_game(line.trim_ascii_end()).unwrap());
                }
                _ => {}
            }
        }
        None
    }

    fn message(&mut self, inspector: &mut Inspector, game: &mut Game) -> GameMessage {
        loop {
            match self.next(inspector, game) {
                Some(FromGame::Message(m)) => return m,
                Some(FromGame::Trace(_)) => continue,
                None => panic!("no message from the game"),
            }
        }
    }
}

fn serve() -> (Inspector, Game) {
    let inspector = Inspector::bind("127.0.0.1:0", InspectorOptions::default()).unwrap();
    (inspector, Game::new())
}

fn error_of(m: GameMessage) -> String {
    match m {
        GameMessage::Error { message } => message,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn hello_describes_the_game() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(true);
    let GameMessage::Hello(hello) = tool.message(&mut inspector, &mut game) else {
        panic!("expected hello");
    };
    assert_eq!(hello.version, PROTOCOL_VERSION);
    assert_eq!(hello.program, "sample");
    assert_eq!(hello.hash, format!("{:08x}", game.program.checksum()));
    assert_eq!(hello.agents, ["guard"]);
    assert!(!hello.paused);
}

#[test]
fn requests_before_hello_and_wrong_versions_are_refused() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.send(r#"{"type":"pause"}"#);
    assert!(error_of(tool.message(&mut inspector, &mut game)).contains("hello first"));
    assert!(!inspector.is_paused());
    tool.send(r#"{"type":"hello","version":99}"#);
    assert!(error_of(tool.message(&mut inspector, &mut game)).contains("version 99"));
    assert!(tool.next(&mut inspector, &mut game).is_none(), "closed");
}

#[test]
fn a_non_loopback_address_needs_a_token_and_the_token_is_checked() {
    let refused = Inspector::bind("0.0.0.0:0", InspectorOptions::default());
    assert_eq!(
        refused.err().map(|e| e.kind()),
        Some(io::ErrorKind::InvalidInput)
    );
    let options = InspectorOptions {
        token: Some(TOKEN.into()),
        hello_backoff: Duration::ZERO,
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let mut wrong = Tool::connect(&inspector);
    wrong.send(r#"{"type":"hello","version":1,"token":"guess"}"#);
    assert!(error_of(wrong.message(&mut inspector, &mut game)).starts_with("wrong token"));
    assert!(wrong.next(&mut inspector, &mut game).is_none(), "closed");
    let mut right = Tool::connect(&inspector);
    right.send(&hello_with(Some(TOKEN)));
    assert!(matches!(
        right.message(&mut inspector, &mut game),
        GameMessage::Hello(_)
    ));
}

/// Tool sets breakpoint `Top/S{i}`: `Ok` with the count set, or the error.
fn set_breakpoint(
    tool: &mut Tool,
    i: usize,
    inspector: &mut Inspector,
    game: &mut Game,
) -> Result<usize, String> {
    let breakpoint = Breakpoint::parse_state(&format!("Top/S{i}")).unwrap();
    tool.send(&encode(&ToolMessage::Break { breakpoint }));
    match tool.message(inspector, game) {
        GameMessage::Ok { breakpoints, .. } => Ok(breakpoints.len()),
        GameMessage::Error { message } => Err(message),
        other => panic!("expected ok or error, got {other:?}"),
    }
}

#[test]
fn breakpoints_past_the_cap_per_tool_and_in_all_are_refused_and_say_the_cap() {
    let options = InspectorOptions {
        max_breakpoints: 5,
        max_breakpoints_per_tool: 3,
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let mut a = Tool::connect(&inspector);
    a.hello(false);
    a.message(&mut inspector, &mut game);
    let mut b = Tool::connect(&inspector);
    b.hello(false);
    b.message(&mut inspector, &mut game);
    for i in 0..3 {
        assert_eq!(
            set_breakpoint(&mut a, i, &mut inspector, &mut game),
            Ok(i + 1)
        );
    }
    // Setting one already set is no new breakpoint.
    assert_eq!(set_breakpoint(&mut a, 0, &mut inspector, &mut game), Ok(3));
    let e = set_breakpoint(&mut a, 3, &mut inspector, &mut game).unwrap_err();
    assert!(
        e.contains("this tool has set 3 breakpoints already")
            && e.contains("max_breakpoints_per_tool"),
        "{e}"
    );
    for i in 10..12 {
        assert!(set_breakpoint(&mut b, i, &mut inspector, &mut game).is_ok());
    }
    let e = set_breakpoint(&mut b, 12, &mut inspector, &mut game).unwrap_err();
    assert!(
        e.contains("5 breakpoints are set already") && e.contains("max_breakpoints"),
        "{e}"
    );
    assert_eq!(inspector.breakpoints().len(), 5);
    // Cleared, one of its own gives a tool room again.
    let cleared = Breakpoint::parse_state("Top/S1").unwrap();
    a.send(&encode(&ToolMessage::Clear {
        breakpoint: Some(cleared),
    }));
    assert!(matches!(
        a.message(&mut inspector, &mut game),
        GameMessage::Ok { .. }
    ));
    assert_eq!(set_breakpoint(&mut a, 3, &mut inspector, &mut game), Ok(5));
}

#[test]
fn twenty_thousand_breakpoints_from_one_tool_stop_at_the_default_cap() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    let mut lines = String::new();
    for i in 0..20_000 {
        let breakpoint = Breakpoint::parse_state(&format!("Top/S{i}")).unwrap();
        lines.push_str(&encode(&ToolMessage::Break { breakpoint }));
    }
    // From a thread of its own: the game reads a bounded amount a frame, so a single thread
    // writing it all before framing would wait for ever.
    let mut writer = tool.stream.try_clone().unwrap();
    let sending = std::thread::spawn(move || writer.write_all(lines.as_bytes()).unwrap());
    let (mut ok, mut refused) = (0, 0);
    while ok + refused < 20_000 {
        match tool.message(&mut inspector, &mut game) {
            GameMessage::Ok { .. } => ok += 1,
            GameMessage::Error { message } => {
                assert!(message.contains("max_breakpoints_per_tool"), "{message}");
                refused += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    sending.join().unwrap();
    assert_eq!(ok, super::MAX_BREAKPOINTS_PER_TOOL);
    assert_eq!(
        inspector.breakpoints().len(),
        super::MAX_BREAKPOINTS_PER_TOOL
    );
}

#[test]
fn a_breakpoint_pauses_at_the_event_that_fires_it_and_step_runs_n_ticks() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(true);
    tool.message(&mut inspector, &mut game);
    let b = Breakpoint::parse_state("Top/Alarm").unwrap();
    tool.send(&encode(&ToolMessage::Break {
        breakpoint: b.clone(),
    }));
    let GameMessage::Ok { breakpoints, .. } = tool.message(&mut inspector, &mut game) else {
        panic!("expected ok");
    };
    assert_eq!(breakpoints, std::slice::from_ref(&b));
    // Another state of the machine, and another machine's state of that name: no pause.
    assert_eq!(
        inspector.frame(
            &mut game,
            &[enter(1, "Top", "Watch"), enter(1, "Other", "Alarm")]
        ),
        Flow::Tick
    );
    assert_eq!(
        inspector.frame(&mut game, &[enter(2, "Top", "Alarm")]),
        Flow::Hold
    );
    // The trace events come first (as they happened), then `paused`.
    let mut saw_enter = 0;
    let paused = loop {
        match tool.next(&mut inspector, &mut game) {
            Some(FromGame::Trace(t)) => saw_enter += usize::from(t["event"] == "enter"),
            Some(FromGame::Message(m)) => break m,
            None => panic!("no paused"),
        }
    };
    assert_eq!(saw_enter, 3);
    let GameMessage::Paused {
        tick,
        reason,
        breakpoint,
        event,
    } = paused
    else {
        panic!("expected paused, got {paused:?}");
    };
    assert_eq!((tick, reason), (2, PauseReason::Breakpoint));
    assert_eq!(breakpoint, Some(b));
    assert_eq!(event.unwrap()["state"], "Alarm");
    assert_eq!(inspector.frame(&mut game, &[]), Flow::Hold);

    tool.send(r#"{"type":"step","ticks":2}"#);
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut flow = Flow::Hold;
    while flow == Flow::Hold && Instant::now() < deadline {
        flow = inspector.frame(&mut game, &[]); // until the step arrives
    }
    let mut ticks = 0;
    while flow == Flow::Tick {
        ticks += 1;
        game.tick += 1;
        flow = inspector.frame(&mut game, &[]);
    }
    assert_eq!(ticks, 2);
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Paused {
            reason: PauseReason::Step,
            ..
        }
    ));
    tool.send(r#"{"type":"resume"}"#);
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Resumed { .. }
    ));
    assert_eq!(inspector.frame(&mut game, &[]), Flow::Tick);
}

#[test]
fn message_and_rule_breakpoints_match_their_events() {
    let message = Breakpoint::Message {
        name: "Alarm".into(),
        agent: Some("guard".into()),
    };
    let delivered = event(
        3,
        EventKind::Message {
            from: Arc::from("boss"),
            to: Arc::from("guard"),
            name: Arc::from("Alarm"),
            handled: true,
            up: false,
        },
    );
    assert!(fires(&message, &delivered));
    let rule = Breakpoint::Rule {
        action: "Sell".into(),
        agent: None,
    };
    let act = event(
        4,
        EventKind::Act {
            action: Arc::from("Sell"),
            target: None,
        },
    );
    assert!(fires(&rule, &act));
    assert!(!fires(&message, &act));
    let only_exit = Breakpoint::State {
        machine: "Top".into(),
        state: "Alarm".into(),
        when: When::Exit,
        agent: None,
    };
    assert!(!fires(&only_exit, &enter(1, "Top", "Alarm")));
}

#[test]
fn snapshot_set_and_reload() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    let plan = event(
        1,
        EventKind::Plan {
            problem: Arc::from("Patrol"),
            planner: "graph",
            actions: vec![Arc::from("Walk"), Arc::from("Look")],
            nodes: 3,
        },
    );
    inspector.frame(&mut game, &[plan]);
    tool.send(r#"{"type":"set","agent":"guard","variable":"Mood","value":"alert"}"#);
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Ok { .. }
    ));
    tool.send(r#"{"type":"set","agent":"nobody","variable":"Mood","value":"x"}"#);
    assert!(error_of(tool.message(&mut inspector, &mut game)).contains("nobody"));
    tool.send(r#"{"type":"snapshot"}"#);
    let GameMessage::Snapshot { agents, .. } = tool.message(&mut inspector, &mut game) else {
        panic!("expected snapshot");
    };
    assert_eq!(agents[0].variables["Mood"], "alert");
    assert_eq!(
        agents[0].plan.as_deref(),
        Some(&["Walk".into(), "Look".into()][..])
    );

    let bytes = game.program.to_bytes();
    tool.send(&encode(&ToolMessage::Reload {
        program: base64::encode(&bytes),
    }));
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Reload { kept: 1, .. }
    ));
    assert_eq!(game.reloads, 1);
    // Garbage: not base64, then base64 of bytes that are no program.
    for garbage in ["!!!!", &base64::encode(b"not a program at all")] {
        tool.send(&encode(&ToolMessage::Reload {
            program: garbage.to_string(),
        }));
        let GameMessage::ReloadRejected { reason } = tool.message(&mut inspector, &mut game) else {
            panic!("expected reload-rejected");
        };
        assert!(
            reason.starts_with("pushed program does not load"),
            "{reason}"
        );
    }
    assert_eq!(game.reloads, 1);
    assert_eq!(game.rejected.len(), 2);
}

#[test]
fn hostile_lines_get_an_error_and_the_connection_goes_on() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    tool.stream
        .write_all(b"\xff\xfe{\"type\":\"pause\"}\n")
        .unwrap();
    assert!(error_of(tool.message(&mut inspector, &mut game)).contains("UTF-8"));
    tool.send(r#"{"type":"launch-missiles"}"#);
    assert!(error_of(tool.message(&mut inspector, &mut game)).contains("not a message"));
    tool.send(r#"{"type":"step","ticks":-1}"#);
    error_of(tool.message(&mut inspector, &mut game));
    tool.send(r#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["#);
    error_of(tool.message(&mut inspector, &mut game));
    // Still served.
    tool.send(r#"{"type":"snapshot"}"#);
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Snapshot { .. }
    ));
}

#[test]
fn a_line_past_the_limit_is_refused_without_being_kept() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    let mut writer = tool.stream.try_clone().unwrap();
    let total = MAX_LINE + (1 << 20);
    let sender = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        let mut sent = 0;
        while sent < total {
            writer.write_all(&chunk).unwrap();
            sent += chunk.len();
        }
        writer.write_all(b"\n{\"type\":\"pause\"}\n").unwrap();
    });
    let message = loop {
        inspector.frame(&mut game, &[]);
        if let Some(FromGame::Message(m)) = tool.next(&mut inspector, &mut game) {
            break m;
        }
    };
    assert!(error_of(message).contains("longer than"));
    sender.join().unwrap();
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Paused {
            reason: PauseReason::Pause,
            ..
        }
    ));
    assert_eq!(inspector.clients(), 1);
}

#[test]
fn a_tool_that_stops_reading_is_dropped_and_others_go_on() {
    let options = InspectorOptions {
        max_queued: 64 << 10,
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let mut sleeper = Tool::connect(&inspector);
    sleeper.hello(true);
    let mut reader = Tool::connect(&inspector);
    reader.hello(false);
    assert!(matches!(
        reader.message(&mut inspector, &mut game),
        GameMessage::Hello(_)
    ));
    let burst: Vec<TraceEvent> = (0..1000).map(|t| enter(t, "Top", "Watch")).collect();
    for _ in 0..200 {
        inspector.frame(&mut game, &burst);
        if inspector.clients() == 1 {
            break;
        }
    }
    assert_eq!(inspector.clients(), 1, "the sleeping tool is dropped");
    assert_eq!(inspector.dropped(), 1);
    reader.send(r#"{"type":"snapshot"}"#);
    assert!(matches!(
        reader.message(&mut inspector, &mut game),
        GameMessage::Snapshot { .. }
    ));
}

#[test]
fn tools_past_the_limit_are_told_and_closed() {
    let options = InspectorOptions {
        max_clients: 1,
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let _first = Tool::connect(&inspector);
    inspector.frame(&mut game, &[]);
    let mut second = Tool::connect(&inspector);
    assert!(error_of(second.message(&mut inspector, &mut game)).contains("attached already"));
}

#[test]
fn base64_round_trips_and_refuses_what_is_not_base64() {
    for len in 0..10 {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 200) as u8).collect();
        let text = base64::encode(&bytes);
        assert_eq!(base64::decode(&text).unwrap(), bytes);
    }
    assert_eq!(base64::encode(b"Man"), "TWFu");
    assert_eq!(base64::encode(b"Ma"), "TWE=");
    assert!(base64::decode("TWE").is_err());
    assert!(base64::decode("T===").is_err());
    assert!(base64::decode("TW*u").is_err());
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9_ é\"\\\\]{0,12}"
}

fn breakpoint() -> impl Strategy<Value = Breakpoint> {
    let when = prop_oneof![Just(When::Enter), Just(When::Exit), Just(When::Both)];
    prop_oneof![
        (name(), name(), when, proptest::option::of(name())).prop_map(
            |(machine, state, when, agent)| Breakpoint::State {
                machine,
                state,
                when,
                agent
            }
        ),
        (name(), proptest::option::of(name()))
            .prop_map(|(action, agent)| Breakpoint::Rule { action, agent }),
        (name(), proptest::option::of(name()))
            .prop_map(|(name, agent)| Breakpoint::Message { name, agent }),
    ]
}

fn tool_message() -> impl Strategy<Value = ToolMessage> {
    prop_oneof![
        (any::<u32>(), proptest::option::of(name()), any::<bool>()).prop_map(
            |(version, token, trace)| ToolMessage::Hello {
                version,
                token,
                trace
            }
        ),
        proptest::collection::vec(any::<u8>(), 0..64).prop_map(|b| ToolMessage::Reload {
            program: base64::encode(&b)
        }),
        Just(ToolMessage::Pause),
        Just(ToolMessage::Resume),
        any::<u64>().prop_map(|ticks| ToolMessage::Step { ticks }),
        breakpoint().prop_map(|breakpoint| ToolMessage::Break { breakpoint }),
        proptest::option::of(breakpoint()).prop_map(|breakpoint| ToolMessage::Clear { breakpoint }),
        Just(ToolMessage::Snapshot),
        (name(), name(), name()).prop_map(|(agent, variable, value)| ToolMessage::Set {
            agent,
            variable,
            value
        }),
    ]
}

/// Probabilities as a game reports them: binary fractions, which JSON carries exactly.
fn probability() -> impl Strategy<Value = f64> {
    (0u32..=1024).prop_map(|n| f64::from(n) / 1024.0)
}

fn game_message() -> impl Strategy<Value = GameMessage> {
    let agent = (
        name(),
        proptest::collection::vec((name(), name()), 0..3),
        proptest::collection::btree_map(name(), name(), 0..3),
        proptest::collection::vec(
            (
                name(),
                name(),
                name(),
                proptest::collection::vec(name(), 0..3),
            ),
            0..2,
        ),
        proptest::collection::vec(
            (
                name(),
                proptest::collection::vec((name(), probability()), 0..3),
            ),
            0..2,
        ),
        proptest::option::of(proptest::collection::vec(name(), 0..3)),
        proptest::option::of((probability(), probability()).prop_map(|(x, y)| [x * 100.0, y])),
    )
        .prop_map(
            |(name, states, variables, scripts, beliefs, plan, position)| AgentSnapshot {
                name,
                states: states
                    .into_iter()
                    .map(|(machine, state)| ActiveState { machine, state })
                    .collect(),
                variables,
                scripts: scripts
                    .into_iter()
                    .map(|(script, location, role, facts)| ScriptFacts {
                        script,
                        location,
                        role,
                        facts,
                    })
                    .collect(),
                beliefs: beliefs
                    .into_iter()
                    .map(|(space, states)| SpaceBelief { space, states })
                    .collect(),
                plan,
                position,
            },
        );
    let reason = prop_oneof![
        Just(PauseReason::Breakpoint),
        Just(PauseReason::Step),
        Just(PauseReason::Pause)
    ];
    prop_oneof![
        (
            name(),
            name(),
            proptest::collection::vec(name(), 0..3),
            any::<u64>(),
            any::<bool>(),
            proptest::collection::vec(breakpoint(), 0..2)
        )
            .prop_map(|(program, scene, agents, tick, paused, breakpoints)| {
                GameMessage::Hello(Hello {
                    version: PROTOCOL_VERSION,
                    program,
                    hash: "0badf00d".into(),
                    scene,
                    agents,
                    tick,
                    paused,
                    breakpoints,
                })
            }),
        (any::<u64>(), proptest::collection::vec(agent, 0..3))
            .prop_map(|(tick, agents)| GameMessage::Snapshot { tick, agents }),
        (
            any::<u64>(),
            reason,
            proptest::option::of(breakpoint()),
            proptest::option::of(name())
        )
            .prop_map(|(tick, reason, breakpoint, state)| GameMessage::Paused {
                tick,
                reason,
                breakpoint,
                event: state
                    .map(|s| serde_json::json!({"tick": tick, "event": "enter", "state": s})),
            }),
        any::<u64>().prop_map(|tick| GameMessage::Resumed { tick }),
        (
            any::<u64>(),
            any::<u32>(),
            proptest::collection::vec(name(), 0..3)
        )
            .prop_map(|(tick, kept, fallbacks)| GameMessage::Reload {
                tick,
                kept,
                fallbacks
            }),
        name().prop_map(|reason| GameMessage::ReloadRejected { reason }),
        (name(), proptest::collection::vec(breakpoint(), 0..3)).prop_map(
            |(request, breakpoints)| GameMessage::Ok {
                request,
                breakpoints
            }
        ),
        name().prop_map(|message| GameMessage::Error { message }),
    ]
}

proptest! {
    #[test]
    fn any_bytes_are_a_message_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode(&bytes);
        let _ = decode_from_game(&bytes);
    }

    #[test]
    fn json_shaped_noise_never_panics(text in r#"\{("type"|"on"|"ticks"|"breakpoint"|"version"|[a-z]{1,6}|:|,|\[|\]|\{|\}|"[a-z-]{0,8}"|-?[0-9]{1,22}|null|true){0,24}"#) {
        let _ = decode(text.as_bytes());
    }

    #[test]
    fn every_tool_message_round_trips(m in tool_message()) {
        let line = encode(&m);
        prop_assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
        prop_assert_eq!(decode(line.trim_end().as_bytes()).unwrap(), m);
    }

    #[test]
    fn every_game_message_round_trips(m in game_message()) {
        let line = encode(&m);
        prop_assert!(!line[..line.len() - 1].contains('\n'));
        prop_assert_eq!(decode_from_game(line.trim_end().as_bytes()).unwrap(), FromGame::Message(m));
    }

    #[test]
    fn base64_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        prop_assert_eq!(base64::decode(&base64::encode(&bytes)).unwrap(), bytes);
    }

    #[test]
    fn base64_decode_never_panics(text in ".{0,40}") {
        let _ = base64::decode(&text);
    }
}

// Issue 33, memory: what one tool can make the game hold.

/// An inspector that holds at most `max_queued` bytes for a tool.
fn serve_queueing(max_queued: usize) -> (Inspector, Game) {
    let options = InspectorOptions {
        max_queued,
        ..InspectorOptions::default()
    };
    (
        Inspector::bind("127.0.0.1:0", options).unwrap(),
        Game::new(),
    )
}

#[test]
fn set_refuses_a_value_larger_than_the_variable_limit() {
    let (mut inspector, mut game) = serve();
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    let big = "x".repeat(MAX_VALUE + 1);
    tool.send(&encode(&ToolMessage::Set {
        agent: "guard".into(),
        variable: "Mood".into(),
        value: big,
    }));
    let message = error_of(tool.message(&mut inspector, &mut game));
    assert!(
        message.contains(&format!("{MAX_VALUE} bytes"))
            && message.contains("InspectorOptions::max_value"),
        "{message}"
    );
    assert!(game.variables.is_empty(), "nothing was set");
    // At the limit it is set.
    tool.send(&encode(&ToolMessage::Set {
        agent: "guard".into(),
        variable: "Mood".into(),
        value: "y".repeat(MAX_VALUE),
    }));
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Ok { .. }
    ));
}

#[test]
fn a_reply_larger_than_the_queue_limit_is_refused_with_a_message_not_queued() {
    let (mut inspector, mut game) = serve_queueing(4 << 10);
    let mut tool = Tool::connect(&inspector);
    tool.hello(false);
    tool.message(&mut inspector, &mut game);
    for i in 0..4 {
        game.variables.insert(format!("V{i}"), "z".repeat(2 << 10));
    }
    tool.send(r#"{"type":"snapshot"}"#);
    let message = error_of(tool.message(&mut inspector, &mut game));
    assert!(
        message.contains("snapshot") && message.contains("InspectorOptions::max_queued"),
        "{message}"
    );
    // Still served: a small request is answered.
    game.variables.clear();
    tool.send(r#"{"type":"snapshot"}"#);
    assert!(matches!(
        tool.message(&mut inspector, &mut game),
        GameMessage::Snapshot { .. }
    ));
}

#[test]
fn the_queue_limit_counts_the_message_about_to_be_queued() {
    let (mut inspector, mut game) = serve_queueing(64 << 10);
    for i in 0..12 {
        game.variables.insert(format!("V{i}"), "z".repeat(5 << 10));
    }
    // A tool that asks for snapshots (each under the limit) and never reads: the backlog
    // plus the next reply passes the limit, and the tool is dropped before that reply is
    // queued — the game never holds more than the limit for it.
    let mut sleeper = Tool::connect(&inspector);
    sleeper.hello(false);
    let mut dropped = false;
    for _ in 0..2000 {
        sleeper.send(r#"{"type":"snapshot"}"#);
        inspector.frame(&mut game, &[]);
        for c in &inspector.clients {
            assert!(c.backlog() <= 64 << 10, "backlog {}", c.backlog());
        }
        if inspector.clients() == 0 {
            dropped = true;
            break;
        }
    }
    assert!(dropped, "the tool that does not read is dropped");
}

// Issue 33, the protocol's security.

/// A token strong enough to serve with.
const TOKEN: &str = "7f3a9c01d4e85b26";

fn hello_with(token: Option<&str>) -> String {
    encode(&ToolMessage::Hello {
        version: PROTOCOL_VERSION,
        token: token.map(str::to_string),
        trace: false,
    })
}

#[test]
fn a_weak_token_is_refused_with_how_to_make_one() {
    for (token, why) in [
        ("sesame", "6 bytes long, fewer than 16"),
        (" ", "1 bytes long"),
        ("aaaaaaaaaaaaaaaaaaaa", "one character repeated"),
        ("correct horse battery", "whitespace"),
        ("                    ", "whitespace"),
    ] {
        let options = InspectorOptions {
            token: Some(token.into()),
            ..InspectorOptions::default()
        };
        let e = Inspector::bind("127.0.0.1:0", options).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let e = e.to_string();
        assert!(
            e.contains(why) && e.contains("openssl rand -hex 16"),
            "{token:?}: {e}"
        );
    }
    assert!(weak_token(TOKEN).is_none());
}

#[test]
fn tokens_are_compared_whole_whatever_byte_differs() {
    assert!(tokens_equal(TOKEN, TOKEN));
    for other in [
        "8f3a9c01d4e85b26",
        "7f3a9c01d4e85b27",
        "7f3a9c01d4e85b2",
        "7f3a9c01d4e85b266",
        "",
    ] {
        assert!(!tokens_equal(other, TOKEN), "{other}");
        assert!(!tokens_equal(TOKEN, other), "{other}");
    }
}

#[test]
fn failed_hellos_are_backed_off_per_address_growing_and_bounded() {
    let options = InspectorOptions {
        token: Some(TOKEN.into()),
        hello_backoff: Duration::from_millis(100),
        hello_backoff_max: Duration::from_millis(300),
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let mut hello = |token: &str, inspector: &mut Inspector| {
        let mut tool = Tool::connect(inspector);
        tool.send(&hello_with(Some(token)));
        tool.message(inspector, &mut game)
    };
    // Each wrong token doubles the wait, up to the bound.
    for (attempt, wait) in [(1, "0.1"), (2, "0.2"), (3, "0.3"), (4, "0.3")] {
        let e = error_of(hello("0000000000000000", &mut inspector));
        assert_eq!(
            e,
            format!("wrong token; hellos from 127.0.0.1 are refused unheard for {wait} s"),
            "attempt {attempt}"
        );
        // Meanwhile even the right token is not heard: a guess costs the wait.
        let e = error_of(hello(TOKEN, &mut inspector));
        assert!(
            e.starts_with(&format!("{attempt} wrong token"))
                && e.contains(" from 127.0.0.1: its next hello is heard in"),
            "{e}"
        );
        std::thread::sleep(Duration::from_millis(320));
    }
    assert!(matches!(
        hello(TOKEN, &mut inspector),
        GameMessage::Hello(_)
    ));
    // The right token forgot the failures: the next wrong one waits the shortest again.
    let e = error_of(hello("1111111111111112", &mut inspector));
    assert!(e.ends_with("for 0.1 s"), "{e}");
}

#[test]
fn an_idle_tool_is_closed_and_ping_keeps_a_tool_attached() {
    let options = InspectorOptions {
        idle_timeout: Duration::from_millis(300),
        ..InspectorOptions::default()
    };
    let mut inspector = Inspector::bind("127.0.0.1:0", options).unwrap();
    let mut game = Game::new();
    let mut idle = Tool::connect(&inspector);
    idle.hello(false);
    idle.message(&mut inspector, &mut game);
    let mut pinging = Tool::connect(&inspector);
    pinging.hello(false);
    pinging.message(&mut inspector, &mut game);
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(600) {
        pinging.send(&encode(&ToolMessage::Ping));
        for _ in 0..10 {
            inspector.frame(&mut game, &[]);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let e = error_of(idle.message(&mut inspector, &mut game));
    assert!(
        e.starts_with(
            "closed: nothing heard from this tool in 0.3 s (InspectorOptions::idle_timeout)"
        ),
        "{e}"
    );
    assert!(idle.next(&mut inspector, &mut game).is_none(), "closed");
    assert_eq!(inspector.clients(), 1);
    // A ping is not answered; the tool is still served.
    pinging.send(r#"{"type":"snapshot"}"#);
    assert!(matches!(
        pinging.message(&mut inspector, &mut game),
        GameMessage::Snapshot { .. }
    ));
}

#[test]
fn the_game_can_list_and_kick_a_tool() {
    let (mut inspector, mut game) = serve();
    let mut first = Tool::connect(&inspector);
    first.hello(false);
    first.message(&mut inspector, &mut game);
    let mut second = Tool::connect(&inspector);
    second.hello(false);
    second.message(&mut inspector, &mut game);
    let tools = inspector.tools();
    assert_eq!(tools.len(), 2);
    assert!(
        tools
            .iter()
            .all(|t| t.said_hello && t.peer.ip().is_loopback())
    );
    assert!(inspector.kick(tools[0].id, "the level is reloading"));
    assert_eq!(
        error_of(first.message(&mut inspector, &mut game)),
        "closed by the game: the level is reloading"
    );
    assert!(first.next(&mut inspector, &mut game).is_none(), "closed");
    assert!(!inspector.kick(tools[0].id, "again"), "gone already");
    assert_eq!(inspector.tools().len(), 1);
    second.send(r#"{"type":"snapshot"}"#);
    assert!(matches!(
        second.message(&mut inspector, &mut game),
        GameMessage::Snapshot { .. }
    ));
}
