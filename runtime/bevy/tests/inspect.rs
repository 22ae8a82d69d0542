//! A tool attached to a headless Bevy game through [`InspectPlugin`]: it pauses the scene and
//! the ticks stop (the clock does not make up for the pause afterwards), steps it, looks at
//! the agents, sets a variable, pushes a program (which arrives as the asset hot reload's
//! message) and resumes. The game and the tool share the test's thread: the tool's socket is
//! non-blocking and the game runs frames while the tool waits for an answer.

use bevy::asset::{AssetPlugin, AssetServer};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use ensemble_bevy::{
    EnsembleInspector, EnsemblePlugin, EnsembleProgram, EnsembleScene, EnsembleSystems,
    InspectPlugin, MoveReport, ProgramReloaded, Walking,
};
use ensemble_runtime::inspect::protocol::{
    FromGame, GameMessage, Hello, PROTOCOL_VERSION, PauseReason, ToolMessage, base64,
    decode_from_game, encode,
};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

/// The scene's tick rate: one tick a frame.
const FPS: f64 = 30.0;

/// Reloads the game announced.
#[derive(Resource, Default)]
struct Reloaded(Vec<ProgramReloaded>);

fn record(mut messages: MessageReader<ProgramReloaded>, mut seen: ResMut<Reloaded>) {
    seen.0.extend(messages.read().cloned());
}

/// The test game's walking: there at once, so the agents get on with their machines.
fn teleport(mut walkers: Query<(&mut Transform, &mut Walking)>) {
    for (mut transform, mut walking) in &mut walkers {
        if walking.report.is_none() {
            transform.translation = walking.to.extend(transform.translation.z);
            walking.report = Some(MoveReport::Arrived);
        }
    }
}

fn assets() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// The ticket counter running headless, served on a free port, one tick a frame; returns the
/// scene's entity.
fn game() -> (App, Entity) {
    game_with(1, InspectPlugin::new("127.0.0.1:0"))
}

/// The same with `per_frame` ticks due each frame (long frames), served by `plugin`.
fn game_with(per_frame: u32, plugin: InspectPlugin) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets().to_string_lossy().into_owned(),
            ..default()
        },
        EnsemblePlugin::default(),
        plugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        f64::from(per_frame) / FPS,
    )))
    .init_resource::<Reloaded>()
    .add_systems(Update, teleport.before(EnsembleSystems))
    .add_systems(Last, record);
    let program = app
        .world()
        .resource::<AssetServer>()
        .load::<EnsembleProgram>("airport.ensb");
    let scene = app
        .world_mut()
        .spawn(EnsembleScene::new(program, "ticket-counter").with_seed(7))
        .id();
    for _ in 0..1000 {
        app.update();
        if ticks(&mut app, scene).is_some() {
            return (app, scene);
        }
    }
    panic!("the airport's program did not load in 1000 frames");
}

/// The scene's ticks so far (`None` before it starts).
fn ticks(app: &mut App, scene: Entity) -> Option<u64> {
    let mut config = app.world_mut().get_mut::<EnsembleScene>(scene)?;
    config.running_mut().map(|(s, _)| s.tick_count())
}

fn frames(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

/// A tool on a non-blocking socket, so the game can run frames while it waits.
struct Tool {
    stream: TcpStream,
    received: Vec<u8>,
}

impl Tool {
    /// Connects to the game's inspector and says hello (`trace`: with the trace streamed);
    /// returns the game's hello.
    fn attach(app: &mut App, trace: bool) -> (Tool, Hello) {
        let address = app
            .world()
            .resource::<EnsembleInspector>()
            .address()
            .expect("it listens");
        let stream = TcpStream::connect(address).expect("the game listens");
        stream.set_nonblocking(true).expect("non-blocking");
        let mut tool = Tool {
            stream,
            received: Vec::new(),
        };
        let hello = ToolMessage::Hello {
            version: PROTOCOL_VERSION,
            token: None,
            trace,
        };
        match tool.ask(app, &hello) {
            GameMessage::Hello(hello) => (tool, hello),
            other => panic!("expected hello, got {other:?}"),
        }
    }

    fn send(&mut self, message: &ToolMessage) {
        // One short line: the socket's buffer takes it whole.
        self.stream
            .write_all(encode(message).as_bytes())
            .expect("the game reads");
    }

    /// The game's next message (trace events skipped), running frames until it comes.
    fn answer(&mut self, app: &mut App) -> GameMessage {
        for _ in 0..1000 {
            while let Some(end) = self.received.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.received.drain(..=end).collect();
                match decode_from_game(line.trim_ascii_end()).expect("a line of the protocol") {
                    FromGame::Message(m) => return m,
                    FromGame::Trace(_) => {}
                }
            }
            app.update();
            let mut buffer = [0u8; 4096];
            loop {
                match self.stream.read(&mut buffer) {
                    Ok(0) => panic!("the game closed the connection"),
                    Ok(n) => self.received.extend_from_slice(&buffer[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("reading from the game: {e}"),
                }
            }
        }
        panic!("no answer in 1000 frames");
    }

    fn ask(&mut self, app: &mut App, message: &ToolMessage) -> GameMessage {
        self.send(message);
        self.answer(app)
    }
}

#[test]
fn a_tool_pauses_steps_inspects_pushes_to_and_resumes_a_bevy_scene() {
    let (mut app, scene) = game();
    let (mut tool, hello) = Tool::attach(&mut app, true);
    assert_eq!(
        (hello.program.as_str(), hello.scene.as_str()),
        ("airport", "ticket-counter")
    );
    assert!(hello.agents.iter().any(|a| a == "seller"), "{hello:?}");
    assert!(!hello.paused);
    assert_eq!(
        app.world().resource::<EnsembleInspector>().scene(),
        Some(scene)
    );

    // Running: a tick a frame.
    let before = ticks(&mut app, scene).expect("running");
    frames(&mut app, 30);
    assert_eq!(ticks(&mut app, scene), Some(before + 30));

    // Paused: the frames go on, the ticks do not.
    let GameMessage::Paused {
        tick,
        reason: PauseReason::Pause,
        ..
    } = tool.ask(&mut app, &ToolMessage::Pause)
    else {
        panic!("expected the pause");
    };
    let paused_at = ticks(&mut app, scene).expect("running");
    assert_eq!(tick, paused_at);
    frames(&mut app, 60);
    assert_eq!(
        ticks(&mut app, scene),
        Some(paused_at),
        "no tick while paused"
    );

    let GameMessage::Snapshot { tick, agents } = tool.ask(&mut app, &ToolMessage::Snapshot) else {
        panic!("expected a snapshot");
    };
    assert_eq!(tick, paused_at);
    let seller = agents
        .iter()
        .find(|a| a.name == "seller")
        .expect("the seller");
    assert!(
        !seller.states.is_empty() && seller.position.is_some(),
        "{seller:?}"
    );

    // Two steps: two ticks exactly, then paused again.
    let GameMessage::Paused {
        tick,
        reason: PauseReason::Step,
        ..
    } = tool.ask(&mut app, &ToolMessage::Step { ticks: 2 })
    else {
        panic!("expected the step's pause");
    };
    assert_eq!(tick, paused_at + 2);
    frames(&mut app, 10);
    assert_eq!(ticks(&mut app, scene), Some(paused_at + 2));

    // A variable the game does not know is refused.
    let GameMessage::Error { message } = tool.ask(
        &mut app,
        &ToolMessage::Set {
            agent: "seller".into(),
            variable: "NoSuchVariable".into(),
            value: "1".into(),
        },
    ) else {
        panic!("an unknown variable is refused");
    };
    assert!(message.contains("not a variable"), "{message}");

    // Pushed: the program reloads as a changed asset does, with its message.
    let bytes = std::fs::read(assets().join("airport.ensb")).expect("the program");
    let push = ToolMessage::Reload {
        program: base64::encode(&bytes),
    };
    let GameMessage::Reload { kept, .. } = tool.ask(&mut app, &push) else {
        panic!("the program reloads");
    };
    assert!(kept > 0);
    frames(&mut app, 2);
    let reloaded = &app.world().resource::<Reloaded>().0;
    assert_eq!(reloaded.len(), 1, "announced as ProgramReloaded");
    assert_eq!(reloaded[0].scene, scene);

    // Resumed: ticking again, without making up for the pause.
    assert!(matches!(
        tool.ask(&mut app, &ToolMessage::Resume),
        GameMessage::Resumed { .. }
    ));
    let resumed_at = ticks(&mut app, scene).expect("running");
    frames(&mut app, 10);
    assert_eq!(ticks(&mut app, scene), Some(resumed_at + 10));
}

/// Every trace event the scene sent, as JSON.
#[derive(Resource, Default)]
struct Traced(Vec<serde_json::Value>);

fn trace(mut messages: MessageReader<ensemble_bevy::EnsembleTrace>, mut seen: ResMut<Traced>) {
    seen.0.extend(
        messages
            .read()
            .map(|m| serde_json::from_str(&m.event.to_json()).expect("a JSON event")),
    );
}

#[test]
fn a_breakpoint_stops_a_long_frame_right_after_the_tick_that_fires_it() {
    // Where the plain run first enters a state after the start.
    let (mut plain, _) = game();
    plain.init_resource::<Traced>().add_systems(Last, trace);
    frames(&mut plain, 120);
    let first = plain
        .world()
        .resource::<Traced>()
        .0
        .iter()
        .find(|e| e["event"] == "enter" && e["tick"].as_u64().is_some_and(|t| t > 0 && t % 3 != 0))
        .cloned()
        .expect("an agent enters a state mid-frame within 120 ticks");
    let tick = first["tick"].as_u64().expect("a tick");

    // Three ticks a frame: the breakpoint's tick is not a frame's last. Paused until the
    // breakpoint is set.
    let (mut app, scene) = game_with(3, InspectPlugin::new("127.0.0.1:0").waiting());
    let (mut tool, hello) = Tool::attach(&mut app, false);
    assert!(hello.paused, "waiting for the tool");
    let breakpoint = ensemble_runtime::inspect::protocol::Breakpoint::State {
        machine: first["machine"].as_str().expect("a machine").into(),
        state: first["state"].as_str().expect("a state").into(),
        when: ensemble_runtime::inspect::protocol::When::Enter,
        agent: first["agent"].as_str().map(str::to_string),
    };
    assert!(matches!(
        tool.ask(&mut app, &ToolMessage::Break { breakpoint }),
        GameMessage::Ok { .. }
    ));
    assert!(matches!(
        tool.ask(&mut app, &ToolMessage::Resume),
        GameMessage::Resumed { tick: 0 }
    ));
    let GameMessage::Paused {
        tick: paused,
        reason: PauseReason::Breakpoint,
        ..
    } = tool.answer(&mut app)
    else {
        panic!("expected the breakpoint's pause");
    };
    assert_eq!(paused, tick, "{first}");
    assert_eq!(
        ticks(&mut app, scene),
        Some(tick),
        "no tick ran after the one that fired"
    );
}

#[test]
fn a_taken_address_leaves_the_game_running_without_tools() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("its address").to_string();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        EnsemblePlugin::default(),
        InspectPlugin::new(address.clone()),
    ));
    app.update();
    let inspector = app.world().resource::<EnsembleInspector>();
    let error = inspector.address().expect_err("the port is taken");
    assert!(error.contains(&address), "{error}");
    assert_eq!(inspector.tools(), 0);
}
