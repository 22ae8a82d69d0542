//! Running scenes: the [`EnsembleScene`] component, the systems that start, tick and hot-reload
//! scenes, and the messages they send.

use crate::asset::EnsembleProgram;
use crate::world::{
    Actions, Agent, Change, EcsWorld, EntityChanges, EntityNow, EntityView, Speaking, Variables,
    Walking,
};
use bevy::asset::{AssetEvent, AssetId, AssetLoadFailedEvent, Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::platform::cell::SyncCell;
use bevy::time::Time;
use bevy::transform::components::Transform;
use ensemble_runtime::Program;
use ensemble_runtime::hsm::{AgentId, AgentStatus, ReloadReport, Scene, StateLibrary};
use ensemble_runtime::interactions::Interactions;
use ensemble_runtime::session::Session;
use ensemble_runtime::trace::TraceEvent;
use std::sync::Arc;

/// A scene of a program, run by the plugin. Spawn an entity with it; once the program asset
/// has loaded, the plugin starts the scene and spawns one child entity per agent ([`Agent`]),
/// then ticks the scene with the frame time at the scene's own tick rate.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use ensemble_bevy::EnsembleScene;
/// fn setup(mut commands: Commands, assets: Res<AssetServer>) {
///     commands.spawn(
///         EnsembleScene::new(assets.load("airport.ensb"), "ticket-counter")
///             .with_seed(7)
///             .with_units_per_metre(24.0),
///     );
/// }
/// ```
#[derive(Component)]
#[require(Transform)]
pub struct EnsembleScene {
    /// The program the scene comes from; when the asset changes, the scene hot-reloads.
    pub program: Handle<EnsembleProgram>,
    /// The scene's name in the program.
    pub name: String,
    /// The seed of the scene's random streams: the same program, seed and game reports give
    /// the same trace.
    pub seed: u64,
    /// `Transform` units per world metre (agents' translations are metres times this).
    pub units_per_metre: f32,
    /// At most this many ticks per frame: after a long frame the scene falls behind rather
    /// than stalling the game.
    pub max_ticks_per_frame: u32,
    running: Option<SyncCell<Running>>,
    /// Scene seconds the frames have asked for so far.
    clock: f64,
    error: Option<String>,
    /// How a tool attached through the inspection protocol lets the scene tick this frame.
    pub(crate) pace: Pace,
    /// The tools' breakpoints: a frame stops ticking right after a tick that fires one, so
    /// the scene pauses there even when a long frame has several ticks due.
    #[cfg(feature = "inspect")]
    pub(crate) breakpoints: Vec<ensemble_runtime::inspect::protocol::Breakpoint>,
}

/// How many ticks a frame may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Pace {
    /// As many as the frame's time asks for.
    #[default]
    Free,
    /// Exactly one (a tool's `step`, one tick at a time).
    #[cfg_attr(not(feature = "inspect"), allow(dead_code))]
    One,
    /// None: a tool paused the scene; its clock stands still.
    #[cfg_attr(not(feature = "inspect"), allow(dead_code))]
    Hold,
}

/// A started scene and what belongs to it: the session (the scene, its smart locations, the
/// ECS world) and the agents' entities.
struct Running {
    session: Session<EcsWorld>,
    /// Each agent's entity, by agent index.
    agents: Vec<Entity>,
}

impl EnsembleScene {
    /// Scene `name` of `program`, seed 0, one unit per metre.
    pub fn new(program: Handle<EnsembleProgram>, name: impl Into<String>) -> Self {
        EnsembleScene {
            program,
            name: name.into(),
            seed: 0,
            units_per_metre: 1.0,
            max_ticks_per_frame: 8,
            running: None,
            clock: 0.0,
            error: None,
            pace: Pace::Free,
            #[cfg(feature = "inspect")]
            breakpoints: Vec::new(),
        }
    }

    /// The same scene with another seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same scene drawn at another scale.
    pub fn with_units_per_metre(mut self, units: f32) -> Self {
        self.units_per_metre = units;
        self
    }

    /// Whether the scene has started (its program loaded and linked).
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Why the scene could not start, if it could not (also sent as [`SceneFailed`]).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The running scene, for what a game does to it directly (send a message, save), and
    /// its smart locations (`interact`, `player_input`, `notify`). `None` until it starts.
    pub fn running_mut(&mut self) -> Option<(&mut Scene<EcsWorld>, &mut Interactions)> {
        Some(self.session_mut()?.parts_mut())
    }

    /// The session running the scene (`ensemble_runtime::session`): to save it between two
    /// frames (`save`), read its agents, or hot-reload a program of the game's choosing.
    /// `None` until it starts.
    pub fn session_mut(&mut self) -> Option<&mut Session<EcsWorld>> {
        Some(&mut self.running.as_mut()?.get().session)
    }
}

/// A trace event of a scene (docs/formats/trace.md): states entered and left, lines said,
/// messages, script actions, reloads. Sent in order, after the frame's ticks.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct EnsembleTrace {
    /// The scene's entity.
    pub scene: Entity,
    /// The event (`event.to_json()` renders it as `ensemble run --trace json` does).
    pub event: TraceEvent,
}

/// A scene took a changed program (hot reload): live state carried across by name.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct ProgramReloaded {
    /// The scene's entity.
    pub scene: Entity,
    /// What carried over and what fell back (also in the trace as a `reload` event).
    pub report: ReloadReport,
}

/// A changed program was refused (it did not load, or does not link with the game's states):
/// the scene goes on with the one it had. Also in the trace as `reload-rejected`.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct ReloadRejected {
    /// The scene's entity.
    pub scene: Entity,
    /// Why, in words.
    pub reason: String,
}

/// A scene could not start: its program did not load, has no scene of that name, or does not
/// link with the game's states.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct SceneFailed {
    /// The scene's entity.
    pub scene: Entity,
    /// Why, in words.
    pub reason: String,
}

/// Makes the state library each scene links against: the standard states and the game's own.
#[derive(Resource, Clone)]
pub struct EnsembleLibrary(pub Arc<dyn Fn() -> StateLibrary<EcsWorld> + Send + Sync>);

impl Default for EnsembleLibrary {
    fn default() -> Self {
        EnsembleLibrary(Arc::new(ensemble_runtime::stdlib::library::<EcsWorld>))
    }
}

/// Starts the scenes whose program has loaded.
pub(crate) fn start_scenes(
    mut commands: Commands,
    mut scenes: Query<(Entity, &mut EnsembleScene)>,
    programs: Res<Assets<EnsembleProgram>>,
    library: Res<EnsembleLibrary>,
    mut failed: MessageWriter<SceneFailed>,
) {
    for (entity, mut scene) in &mut scenes {
        if scene.running.is_some() || scene.error.is_some() {
            continue;
        }
        let Some(asset) = programs.get(&scene.program) else {
            continue;
        };
        match start(
            &mut commands,
            entity,
            &scene,
            asset.program.clone(),
            &library,
        ) {
            Ok(running) => {
                scene.running = Some(SyncCell::new(running));
                scene.clock = 0.0;
            }
            Err(reason) => {
                scene.error = Some(reason.clone());
                failed.write(SceneFailed {
                    scene: entity,
                    reason,
                });
            }
        }
    }
}

fn start(
    commands: &mut Commands,
    entity: Entity,
    scene: &EnsembleScene,
    program: Arc<Program>,
    library: &EnsembleLibrary,
) -> Result<Running, String> {
    // The session places the agents and sets their starting variables through the seam.
    let world = EcsWorld::new(scene.units_per_metre);
    let session = Session::start(program, (library.0)(), &scene.name, world, scene.seed)
        .map_err(|e| e.to_string())?;
    let mut running = Running {
        session,
        agents: Vec::new(),
    };
    spawn_new_agents(commands, entity, &mut running);
    Ok(running)
}

/// Spawns an entity for each agent that has none yet: the scene's at the start, then those
/// the runtime creates (spawned NPCs, proxy objects).
fn spawn_new_agents(commands: &mut Commands, scene_entity: Entity, running: &mut Running) {
    let session = &mut running.session;
    for i in running.agents.len()..session.scene().agents().count() {
        let id = AgentId(i as u32);
        let name = session.scene().agent_name(id).to_string();
        let translation = session.world().translation(id).extend(0.0);
        let mut agent = Agent {
            scene: scene_entity,
            id,
            name,
            states: Vec::new(),
            running: true,
        };
        describe(session.scene(), &mut agent);
        let mut entity = commands.spawn((
            agent,
            Transform::from_translation(translation),
            ChildOf(scene_entity),
        ));
        apply(
            &mut entity,
            session.world_mut().changes(id, EntityNow::default()),
        );
        running.agents.push(entity.id());
    }
}

/// Brings an agent's description (active states, whether it runs) up to date; `false` when
/// nothing changed.
fn describe(scene: &Scene<EcsWorld>, agent: &mut Agent) -> bool {
    let program = scene.program();
    let states: Vec<String> = scene
        .active_states(agent.id)
        .into_iter()
        .map(|s| {
            let state = program.state(s);
            format!(
                "{}/{}",
                program.name(program.machine(state.machine).name),
                program.name(state.name)
            )
        })
        .collect();
    let running = *scene.status(agent.id) == AgentStatus::Running;
    if states == agent.states && running == agent.running {
        return false;
    }
    agent.states = states;
    agent.running = running;
    true
}

fn apply(entity: &mut EntityCommands<'_>, changes: EntityChanges) {
    apply_change(entity, changes.walking);
    apply_change(entity, changes.speaking);
    apply_change(entity, changes.actions);
    if let Some(v) = changes.variables {
        entity.insert(v);
    }
}

fn apply_change<T: Component>(entity: &mut EntityCommands<'_>, change: Change<T>) {
    match change {
        Change::Set(component) => {
            entity.insert(component);
        }
        Change::Remove => {
            entity.remove::<T>();
        }
        Change::Keep => {}
    }
}

/// What the tick system reads and writes of each agent's entity.
type AgentEntity<'a> = (
    &'a mut Agent,
    &'a Transform,
    Option<&'a mut Walking>,
    Option<&'a Speaking>,
    Option<&'a Actions>,
    Ref<'a, Variables>,
);

/// Ticks every running scene by the frame's time: reads its agents' entities, runs the ticks
/// due (machines, smart locations, planning world events, as `ensemble run` orders them),
/// sends the trace as messages and writes the runtime's requests back to the entities.
pub(crate) fn tick_scenes(
    mut commands: Commands,
    time: Res<Time>,
    mut scenes: Query<(Entity, &mut EnsembleScene)>,
    mut agents: Query<AgentEntity<'_>>,
    mut trace: MessageWriter<EnsembleTrace>,
) {
    let delta = time.delta_secs_f64();
    for (scene_entity, mut config) in &mut scenes {
        let config = &mut *config;
        let max_ticks = config.max_ticks_per_frame.max(1);
        let mut clock = config.clock + delta;
        let pace = config.pace;
        let Some(running) = config.running.as_mut().map(SyncCell::get) else {
            continue;
        };
        let dt = running.session.scene().dt();
        // Scene time runs on whole ticks; the remainder waits for the next frame.
        let now = running.session.now();
        let mut due = ((clock - now) / dt + 1e-6).floor().max(0.0) as u32;
        if due > max_ticks {
            clock = now + f64::from(max_ticks) * dt;
        }
        match pace {
            Pace::Free => {}
            // Held or stepped, the clock does not make up for the time afterwards.
            Pace::Hold => (due, clock) = (0, now),
            Pace::One => (due, clock) = (1, now + dt),
        }
        // Every frame, so that what the game changed in a frame without a tick is not lost.
        for (i, &entity) in running.agents.iter().enumerate() {
            let Ok((_, transform, walking, speaking, actions, variables)) = agents.get_mut(entity)
            else {
                continue;
            };
            let view = EntityView {
                transform,
                walking,
                speaking,
                actions,
                variables: &variables,
            };
            (running.session.world_mut()).read_entity(
                AgentId(i as u32),
                view,
                variables.is_changed(),
            );
        }
        let mut events = Vec::new();
        let mut ran = 0;
        while ran < due.min(max_ticks) {
            // The machines, the smart locations, the planning world events.
            running.session.tick();
            ran += 1;
            let new = running.session.take_events();
            #[cfg(feature = "inspect")]
            let fired = new.iter().any(|e| {
                config
                    .breakpoints
                    .iter()
                    .any(|b| ensemble_runtime::inspect::fires(b, e))
            });
            #[cfg(not(feature = "inspect"))]
            let fired = false;
            events.extend(new);
            if fired {
                // The rest waits: the inspector pauses the scene next frame, at this tick.
                clock = running.session.now();
                break;
            }
        }
        // What happened between frames (a reload) too.
        events.extend(running.session.take_events());
        trace.write_batch(events.into_iter().map(|event| EnsembleTrace {
            scene: scene_entity,
            event,
        }));
        spawn_new_agents(&mut commands, scene_entity, running);
        for (i, &entity) in running.agents.iter().enumerate() {
            let Ok((mut agent, _, walking, speaking, actions, _)) = agents.get_mut(entity) else {
                continue;
            };
            let now = EntityNow {
                walking: walking.as_deref(),
                speaking,
                actions,
            };
            let changes = running.session.world_mut().changes(AgentId(i as u32), now);
            apply(&mut commands.entity(entity), changes);
            // States change only in ticks.
            if ran > 0 && describe(running.session.scene(), agent.bypass_change_detection()) {
                agent.set_changed();
            }
        }
        config.clock = clock;
    }
}

/// Hot-reloads `program` into `scene`, whether it came as a changed asset or was pushed by a
/// tool; `Err`: why it was refused (the scene goes on). [`announce`] says so.
pub(crate) fn reload(
    (scene, interactions): (&mut Scene<EcsWorld>, &mut Interactions),
    program: Arc<Program>,
    reason: &str,
) -> Result<ReloadReport, String> {
    interactions
        .reload(scene, program, reason)
        .map_err(|e| e.to_string())
}

/// Sends the message of a reload of the scene of `entity`.
pub(crate) fn announce(
    entity: Entity,
    outcome: Result<ReloadReport, String>,
    reloaded: &mut MessageWriter<ProgramReloaded>,
    rejected: &mut MessageWriter<ReloadRejected>,
) {
    match outcome {
        Ok(report) => {
            reloaded.write(ProgramReloaded {
                scene: entity,
                report,
            });
        }
        Err(reason) => {
            rejected.write(ReloadRejected {
                scene: entity,
                reason,
            });
        }
    }
}

/// Hands a changed program asset to the scenes running it (hot reload through the asset
/// server: Bevy's file watching, or `AssetServer::reload`); a program that fails to load is
/// recorded as refused and the scene goes on.
pub(crate) fn reload_scenes(
    mut changed: MessageReader<AssetEvent<EnsembleProgram>>,
    mut failed_loads: MessageReader<AssetLoadFailedEvent<EnsembleProgram>>,
    programs: Res<Assets<EnsembleProgram>>,
    mut scenes: Query<(Entity, &mut EnsembleScene)>,
    mut reloaded: MessageWriter<ProgramReloaded>,
    mut rejected: MessageWriter<ReloadRejected>,
    mut failed: MessageWriter<SceneFailed>,
) {
    let modified: Vec<AssetId<EnsembleProgram>> = changed
        .read()
        .filter_map(|e| match e {
            AssetEvent::Modified { id } => Some(*id),
            _ => None,
        })
        .collect();
    for id in modified {
        let Some(asset) = programs.get(id) else {
            continue;
        };
        for (entity, mut config) in &mut scenes {
            if config.program.id() != id {
                continue;
            }
            let Some(running) = config.running.as_mut().map(SyncCell::get) else {
                continue;
            };
            if Arc::ptr_eq(running.session.program(), &asset.program) {
                continue;
            }
            let reason = "the program asset changed";
            let outcome = reload(running.session.parts_mut(), asset.program.clone(), reason);
            announce(entity, outcome, &mut reloaded, &mut rejected);
        }
    }
    for failure in failed_loads.read() {
        // Bevy's error text may carry a backtrace after its first line; the trace keeps the
        // sentence.
        let error = failure.error.to_string();
        let reason = format!(
            "{}: {}",
            failure.path,
            error.lines().next().unwrap_or_default()
        );
        for (entity, mut config) in &mut scenes {
            if config.program.id() != failure.id {
                continue;
            }
            let config = &mut *config;
            match config.running.as_mut().map(SyncCell::get) {
                Some(running) => {
                    running.session.reject_reload(reason.clone());
                    rejected.write(ReloadRejected {
                        scene: entity,
                        reason: reason.clone(),
                    });
                }
                None if config.error.is_none() => {
                    config.error = Some(reason.clone());
                    failed.write(SceneFailed {
                        scene: entity,
                        reason: reason.clone(),
                    });
                }
                None => {}
            }
        }
    }
}
