//! The plugin in a headless app (no window, no renderer: `MinimalPlugins` and the asset
//! plugin): the airport's ticket counter runs from its `.ensb` asset on entities, with a tiny
//! game of its own carrying out the moves, actions and lines, and the trace arrives as
//! messages. Hot reload goes through the asset server.

use bevy::asset::{AssetPlugin, AssetServer};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use ensemble_bevy::{
    Actions, Agent, EnsemblePlugin, EnsembleProgram, EnsembleScene, EnsembleSystems, EnsembleTrace,
    MoveReport, ProgramReloaded, ReloadRejected, SceneFailed, Speaking, Variables, Walking,
};
use ensemble_runtime::Program;
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The airport's program, as `ensemble build samples/airport` writes it.
fn airport_assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// Frames per second of the test's fixed clock: the scene's own tick rate, so that each frame
/// runs one tick.
const FPS: f64 = 30.0;
/// The test game's walking speed, metres per second.
const SPEED: f32 = 1.4;

/// What the test game saw: the trace and the plugin's other messages, and the lines it showed.
#[derive(Resource, Default)]
struct Seen {
    trace: Vec<TraceEvent>,
    reloaded: Vec<ProgramReloaded>,
    rejected: Vec<ReloadRejected>,
    failed: Vec<SceneFailed>,
    shown: Vec<(String, String)>,
    /// The actions the game performed: who, what, on what.
    performed: Vec<(String, String, Option<String>)>,
    /// Frames in which a `Walking` component was added or changed, over all agents.
    walking_changes: usize,
}

/// A game with one tick per frame, whose people walk straight, take a second per action and
/// show each line for a second.
fn app(assets: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            ..default()
        },
        EnsemblePlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / FPS,
    )))
    .init_resource::<Seen>()
    .add_systems(Update, (walk, perform, speak).before(EnsembleSystems))
    .add_systems(Update, record.after(EnsembleSystems));
    app
}

fn walk(time: Res<Time>, mut walkers: Query<(&mut Transform, &mut Walking)>) {
    for (mut transform, mut walking) in &mut walkers {
        if walking.report.is_some() {
            continue;
        }
        let at = transform.translation.truncate();
        let step = SPEED * time.delta_secs();
        let to = walking.to;
        if at.distance(to) <= step {
            transform.translation = to.extend(transform.translation.z);
            walking.report = Some(MoveReport::Arrived);
        } else {
            let next = at + (to - at).normalize() * step;
            transform.translation = next.extend(transform.translation.z);
        }
    }
}

fn perform(time: Res<Time>, mut performers: Query<(&Agent, &mut Actions)>, mut seen: ResMut<Seen>) {
    for (agent, mut actions) in &mut performers {
        for action in &mut actions.0 {
            if action.outcome.is_none() && time.elapsed_secs_f64() >= action.started + 1.0 {
                action.outcome = Some(ActionOutcome::Succeeded);
                let done = (
                    agent.name.clone(),
                    action.name.clone(),
                    action.target.clone(),
                );
                seen.performed.push(done);
            }
        }
    }
}

fn speak(time: Res<Time>, mut speakers: Query<(&Agent, &mut Speaking)>, mut seen: ResMut<Seen>) {
    for (agent, mut speaking) in &mut speakers {
        if speaking.is_added() {
            seen.shown.push((agent.name.clone(), speaking.text.clone()));
        }
        if !speaking.finished && time.elapsed_secs_f64() >= speaking.since + 1.0 {
            speaking.finished = true;
        }
    }
}

fn record(
    mut trace: MessageReader<EnsembleTrace>,
    mut reloaded: MessageReader<ProgramReloaded>,
    mut rejected: MessageReader<ReloadRejected>,
    mut failed: MessageReader<SceneFailed>,
    walking_changed: Query<(), Changed<Walking>>,
    mut seen: ResMut<Seen>,
) {
    seen.walking_changes += walking_changed.iter().count();
    seen.trace.extend(trace.read().map(|t| t.event.clone()));
    seen.reloaded.extend(reloaded.read().cloned());
    seen.rejected.extend(rejected.read().cloned());
    seen.failed.extend(failed.read().cloned());
}

/// Spawns scene `name` of the airport's program, seed 7.
fn spawn_airport_scene(app: &mut App, name: &str) -> Entity {
    spawn_scene(app, "airport.ensb", name)
}

/// Spawns scene `name` of the program in asset `file`, seed 7.
fn spawn_scene(app: &mut App, file: &str, name: &str) -> Entity {
    let program = app
        .world()
        .resource::<AssetServer>()
        .load::<EnsembleProgram>(file.to_string());
    app.world_mut()
        .spawn(EnsembleScene::new(program, name).with_seed(7))
        .id()
}

/// Spawns the ticket counter and runs frames until it has started.
fn start_ticket_counter(app: &mut App) -> Entity {
    let scene = spawn_airport_scene(app, "ticket-counter");
    for _ in 0..1000 {
        app.update();
        if app
            .world()
            .get::<EnsembleScene>(scene)
            .unwrap()
            .is_running()
        {
            return scene;
        }
        let failed = &app.world().resource::<Seen>().failed;
        assert!(failed.is_empty(), "the scene did not start: {failed:?}");
    }
    panic!("the airport's program did not load in 1000 frames");
}

fn frames(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

fn agent(app: &mut App, name: &str) -> Entity {
    let mut agents = app.world_mut().query::<(Entity, &Agent)>();
    agents
        .iter(app.world())
        .find(|(_, a)| a.name == name)
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("no agent entity named {name}"))
}

fn entered(trace: &[TraceEvent], who: &str, state: &str) -> Option<f64> {
    trace
        .iter()
        .find(|e| {
            e.agent.as_deref() == Some(who)
                && matches!(&e.kind, EventKind::Enter { state: s, .. } if &**s == state)
        })
        .map(|e| e.time)
}

#[test]
fn the_ticket_counter_runs_on_entities_and_its_trace_arrives_as_messages() {
    let mut app = app(&airport_assets());
    let scene = start_ticket_counter(&mut app);
    frames(&mut app, 60 * FPS as usize);

    // One entity per agent, children of the scene's entity.
    let seller = agent(&mut app, "seller");
    let buyer1 = agent(&mut app, "buyer1");
    let buyer2 = agent(&mut app, "buyer2");
    assert_eq!(
        app.world().get::<ChildOf>(buyer1).map(ChildOf::parent),
        Some(scene)
    );

    let seen = app.world().resource::<Seen>();
    // The seller walks to the counter, waits, and serves buyer1 through the conversation.
    let at_counter = entered(&seen.trace, "seller", "WaitForConversation").expect("seller waits");
    let talking = entered(&seen.trace, "seller", "TalkStateMachine").expect("seller talks");
    let handed = entered(&seen.trace, "seller", "HandOverTicket").expect("ticket handed over");
    assert!(
        at_counter < talking && talking < handed,
        "{at_counter} {talking} {handed}"
    );
    // The seller walked 6 m at the test game's pace: the runtime waited for the game's report.
    assert!(
        (at_counter - 6.0 / f64::from(SPEED)).abs() < 0.2,
        "{at_counter}"
    );

    // Lines: in the trace with the buyer's variables filled in, and shown by the game.
    let said: Vec<&str> = seen
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Say { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        said.contains(&"I would like to buy a ticket to Boston."),
        "{said:?}"
    );
    // The confirmation's wording is drawn from its candidates; the city is buyer1's.
    assert!(
        said.iter().any(|l| l.ends_with("the flight to Boston.")),
        "{said:?}"
    );
    assert!(
        seen.shown.contains(&(
            "buyer1".to_string(),
            "I would like to leave at seven.".to_string()
        )),
        "{:?}",
        seen.shown
    );
    assert!(seen.failed.is_empty() && seen.rejected.is_empty());
    // A walk changes its component when it is asked for and when the game reports, not in
    // every frame the runtime looks at it: the game's change detection stays meaningful.
    let walks = seen
        .trace
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Enter { state, .. } if state.starts_with("Goto")))
        .count();
    assert!(walks >= 5, "{walks}");
    assert!(
        seen.walking_changes <= 3 * walks,
        "{} changes for {walks} walks",
        seen.walking_changes
    );

    // The ticket changed hands in the ECS: the transaction wrote buyer1's variables.
    let variables = app.world().get::<Variables>(buyer1).unwrap();
    assert_eq!(
        variables.0.get("Ticket").map(String::as_str),
        Some("ticket to Boston")
    );
    assert_eq!(
        variables.0.get("CityName").map(String::as_str),
        Some("Boston")
    );
    // Then buyer2's turn came.
    let variables = app.world().get::<Variables>(buyer2).unwrap();
    assert_eq!(
        variables.0.get("Ticket").map(String::as_str),
        Some("ticket to San Francisco")
    );

    // With the ticket, buyer1 walked to the gate (30, -10) and its machine finished there.
    let at = app.world().get::<Transform>(buyer1).unwrap().translation;
    assert!(
        at.truncate().distance(Vec2::new(30.0, -10.0)) < 0.01,
        "{at}"
    );
    let buyer1_agent = app.world().get::<Agent>(buyer1).unwrap();
    assert!(!buyer1_agent.running, "{buyer1_agent:?}");
    assert!(app.world().get::<Walking>(buyer1).is_none());
    // The seller's current state is on its entity.
    let seller_agent = app.world().get::<Agent>(seller).unwrap();
    assert!(seller_agent.running);
    assert!(
        seller_agent.states[0].starts_with("StandSellTicket/"),
        "{:?}",
        seller_agent.states
    );
}

#[test]
fn the_bench_runs_its_interaction_script_through_the_games_actions() {
    let mut app = app(&airport_assets());
    spawn_scene(&mut app, "bench.ensb", "bench");
    frames(&mut app, 40 * FPS as usize);
    let seen = app.world().resource::<Seen>();
    assert!(seen.failed.is_empty(), "{:?}", seen.failed);

    // The smart location drove the elder and the first tourist to the bench (moves the game
    // carried out) and had them sit: the game performed each action and reported it.
    let sat = |who: &str, seat: &str| {
        let action = ("sit".to_string(), Some(seat.to_string()));
        seen.performed
            .iter()
            .any(|(w, a, t)| w == who && (a.clone(), t.clone()) == action)
    };
    assert!(
        sat("elder", "seat1") && sat("tourist1", "seat2"),
        "{:?}",
        seen.performed
    );
    // The script heard the outcomes: its deferred effects applied, the conversation began.
    let done: Vec<(String, String)> = seen
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Done { action, .. } => {
                Some((e.agent.as_deref()?.into(), action.to_string()))
            }
            _ => None,
        })
        .collect();
    for expected in [
        ("elder", "sit"),
        ("tourist1", "sit"),
        ("elder", "talk"),
        ("tourist1", "listen"),
    ] {
        let expected = (expected.0.to_string(), expected.1.to_string());
        assert!(done.contains(&expected), "{expected:?} not in {done:?}");
    }
    // Both stand at the bench (0, 0), within its radius.
    let elder = agent(&mut app, "elder");
    let at = app.world().get::<Transform>(elder).unwrap().translation;
    assert!(at.truncate().length() < 4.0, "{at}");
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let run = || {
        let mut app = app(&airport_assets());
        start_ticket_counter(&mut app);
        frames(&mut app, 30 * FPS as usize);
        let trace = &app.world().resource::<Seen>().trace;
        trace.iter().map(TraceEvent::to_json).collect::<Vec<_>>()
    };
    let first = run();
    assert!(first.len() > 50, "{}", first.len());
    assert_eq!(first, run());
}

#[test]
fn a_scene_the_program_does_not_have_is_reported() {
    let mut app = app(&airport_assets());
    let scene = spawn_airport_scene(&mut app, "no-such-scene");
    for _ in 0..1000 {
        app.update();
        if !app.world().resource::<Seen>().failed.is_empty() {
            break;
        }
    }
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.failed.len(), 1);
    assert_eq!(seen.failed[0].scene, scene);
    assert!(
        seen.failed[0].reason.contains("no scene `no-such-scene`")
            && seen.failed[0].reason.contains("ticket-counter"),
        "{}",
        seen.failed[0].reason
    );
    assert!(
        !app.world()
            .get::<EnsembleScene>(scene)
            .unwrap()
            .is_running()
    );
}

/// Reloads the program file through the asset server (what Bevy's file watching does when
/// the file changes) and runs frames until the scene has heard of it.
fn reload_until(app: &mut App, heard: impl Fn(&Seen) -> bool) {
    app.world().resource::<AssetServer>().reload("airport.ensb");
    for _ in 0..1000 {
        app.update();
        if heard(app.world().resource::<Seen>()) {
            return;
        }
    }
    panic!("the reload did not reach the scene in 1000 frames");
}

#[test]
fn a_changed_program_asset_reloads_into_the_running_scene() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("airport.ensb");
    std::fs::copy(airport_assets().join("airport.ensb"), &file).unwrap();
    let mut app = app(dir.path());
    start_ticket_counter(&mut app);
    frames(&mut app, 5 * FPS as usize);

    // The designer moves the gate 6 m east and rebuilds.
    let program = Program::load(&file).unwrap();
    let gate = program
        .locations
        .iter()
        .position(|l| program.name(l.name) == "Gate")
        .unwrap();
    // A verified program is read-only: edit its parts and verify them again.
    let mut parts = program.into_parts();
    parts.locations[gate].x += 6.0;
    let program = parts.verify().unwrap();
    std::fs::write(&file, program.to_bytes()).unwrap();
    reload_until(&mut app, |seen| !seen.reloaded.is_empty());

    let seen = app.world().resource::<Seen>();
    let report = &seen.reloaded[0].report;
    assert!(report.kept >= 3, "{report:?}");
    assert!(report.fallbacks.is_empty(), "{report:?}");
    let reloads = seen
        .trace
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Reload { .. }))
        .count();
    assert_eq!(reloads, 1);
    // Live state carried across: nobody's machine started over.
    let restarts: Vec<_> = seen
        .trace
        .iter()
        .filter(|e| e.time > 0.0)
        .filter(|e| matches!(&e.kind, EventKind::Enter { state, .. } if &**state == "Start"))
        .collect();
    assert!(restarts.is_empty(), "{restarts:?}");

    // The scene runs the new program: buyer1, served, walks to the moved gate.
    frames(&mut app, 55 * FPS as usize);
    let buyer1 = agent(&mut app, "buyer1");
    let at = app.world().get::<Transform>(buyer1).unwrap().translation;
    assert!(
        at.truncate().distance(Vec2::new(36.0, -10.0)) < 0.01,
        "{at}"
    );

    // A broken build is refused; the scene goes on with the program it has.
    std::fs::write(&file, b"not a program").unwrap();
    reload_until(&mut app, |seen| !seen.rejected.is_empty());
    let seen = app.world().resource::<Seen>();
    let reason = &seen.rejected[0].reason;
    assert!(
        reason.starts_with("airport.ensb: ")
            && reason.contains("not an Ensemble program")
            && !reason.contains('\n'),
        "{reason}"
    );
    assert!(
        seen.trace
            .iter()
            .any(|e| matches!(e.kind, EventKind::ReloadRejected { .. }))
    );
    let ticks = |app: &mut App| {
        let mut scenes = app.world_mut().query::<&mut EnsembleScene>();
        let mut scene = scenes.single_mut(app.world_mut()).unwrap();
        let (scene, _) = scene.running_mut().unwrap();
        (scene.tick_count(), scene.program().locations[gate].x)
    };
    let (before, gate_x) = ticks(&mut app);
    frames(&mut app, FPS as usize);
    assert_eq!(ticks(&mut app), (before + FPS as u64, gate_x));
    assert_eq!(gate_x, 36.0);
}
