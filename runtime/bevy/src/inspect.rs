//! Attaching tools to the running game: [`InspectPlugin`] serves the inspection protocol
//! (docs/formats/inspect.md) for a running scene, so that `ensemble attach`, `ensemble push`
//! and the editor's Attach see and steer it.

use crate::scene::{self, EnsembleScene, EnsembleTrace, Pace, ProgramReloaded, ReloadRejected};
use crate::{EcsWorld, EnsembleSystems};
use bevy::app::{App, Plugin, Update};
use bevy::ecs::prelude::*;
use bevy::ecs::schedule::IntoScheduleConfigs;
use ensemble_runtime::Program;
use ensemble_runtime::hsm::ReloadReport;
use ensemble_runtime::inspect::protocol::AgentSnapshot;
use ensemble_runtime::inspect::{Flow, Inspected, InspectedScene, Inspector, InspectorOptions};
use std::net::SocketAddr;
use std::sync::Arc;

/// Serves the inspection protocol on an address while the game runs: tools stream the trace,
/// set breakpoints, pause and step the scene (its agents really stop: the scene does not
/// tick), look at the agents, set variables and push programs, which hot-reload as a changed
/// program asset does ([`ProgramReloaded`], [`ReloadRejected`]).
///
/// It serves one scene: the one with the [`Inspect`] marker, else the first to start. Add it
/// after [`EnsemblePlugin`](crate::EnsemblePlugin):
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use ensemble_bevy::{EnsemblePlugin, InspectPlugin};
/// App::new()
///     .add_plugins((MinimalPlugins, EnsemblePlugin::default()))
///     .add_plugins(InspectPlugin::new("127.0.0.1:7878"));
/// ```
///
/// Whether it listens, and where, is in the [`EnsembleInspector`] resource.
#[derive(Clone, Debug)]
pub struct InspectPlugin {
    /// Where to listen (`127.0.0.1:0` lets the system choose a port).
    pub address: String,
    /// The token tools must say; required for a non-loopback address.
    pub token: Option<String>,
    /// Start paused until a tool says `resume` or `step` (so it can set breakpoints first).
    pub wait: bool,
}

impl InspectPlugin {
    /// Serves on `address`, without a token, running from the start.
    pub fn new(address: impl Into<String>) -> Self {
        InspectPlugin {
            address: address.into(),
            token: None,
            wait: false,
        }
    }

    /// The same, requiring `token` from tools.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The same, paused until a tool resumes the game.
    pub fn waiting(mut self) -> Self {
        self.wait = true;
        self
    }
}

/// Marks the scene an [`InspectPlugin`] serves, in a game that runs several.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Inspect;

/// The inspector [`InspectPlugin`] made: where it listens, or why it does not.
#[derive(Resource)]
pub struct EnsembleInspector {
    inspector: Result<Inspector, String>,
    /// The scene served, once one has started.
    scene: Option<Entity>,
}

impl EnsembleInspector {
    /// The address it listens on (the port the system chose for port 0); `Err`: why it could
    /// not listen (the game runs without it).
    pub fn address(&self) -> Result<SocketAddr, &str> {
        match &self.inspector {
            Ok(inspector) => Ok(inspector.address()),
            Err(e) => Err(e),
        }
    }

    /// Tools connected now.
    pub fn tools(&self) -> usize {
        self.inspector.as_ref().map_or(0, Inspector::clients)
    }

    /// The scene it serves.
    pub fn scene(&self) -> Option<Entity> {
        self.scene
    }
}

impl Plugin for InspectPlugin {
    fn build(&self, app: &mut App) {
        let options = InspectorOptions {
            token: self.token.clone(),
            start_paused: self.wait,
            ..InspectorOptions::default()
        };
        // A game must not fail to start because its debugging port is taken: the error is
        // kept for the game to show, and the game runs without tools.
        let inspector = Inspector::bind(self.address.as_str(), options)
            .map_err(|e| format!("cannot serve tools on {}: {e}", self.address));
        app.insert_resource(EnsembleInspector {
            inspector,
            scene: None,
        })
        .add_systems(
            Update,
            serve
                .in_set(EnsembleSystems)
                .after(scene::start_scenes)
                .before(scene::tick_scenes),
        );
    }
}

/// Once a frame, before the scenes tick: streams the trace of the last frame's ticks to the
/// tools, answers them, and sets whether the served scene ticks this frame.
fn serve(
    mut served: ResMut<EnsembleInspector>,
    mut scenes: Query<(Entity, &mut EnsembleScene, Has<Inspect>)>,
    mut trace: MessageReader<EnsembleTrace>,
    mut reloaded: MessageWriter<ProgramReloaded>,
    mut rejected: MessageWriter<ReloadRejected>,
) {
    let served = &mut *served;
    let Ok(inspector) = &mut served.inspector else {
        return;
    };
    if served.scene.is_none_or(|e| !scenes.contains(e)) {
        served.scene = scenes
            .iter()
            .filter(|(_, s, _)| s.is_running())
            .max_by_key(|(e, _, marked)| (*marked, std::cmp::Reverse(*e)))
            .map(|(e, _, _)| e);
    }
    let Some(entity) = served.scene else {
        trace.clear();
        return;
    };
    let events: Vec<_> = trace
        .read()
        .filter(|t| t.scene == entity)
        .map(|t| t.event.clone())
        .collect();
    let Ok((_, mut config, _)) = scenes.get_mut(entity) else {
        return;
    };
    let program_name = program_name(&config);
    let scene_name = config.name.clone();
    let Some((scene, interactions)) = config.running_mut() else {
        return;
    };
    let mut game = Served {
        inner: InspectedScene {
            program_name: &program_name,
            scene_name: &scene_name,
            scene,
            interactions,
        },
        reloads: Vec::new(),
    };
    let flow = inspector.frame(&mut game, &events);
    for outcome in game.reloads {
        scene::announce(entity, outcome, &mut reloaded, &mut rejected);
    }
    config.pace = match flow {
        Flow::Hold => Pace::Hold,
        Flow::Tick if inspector.is_stepping() => Pace::One,
        Flow::Tick => Pace::Free,
    };
    if config.breakpoints != inspector.breakpoints() {
        config.breakpoints = inspector.breakpoints().to_vec();
    }
}

/// The program's name as `hello` says it: its asset's file name without `.ensb`.
fn program_name(scene: &EnsembleScene) -> String {
    scene
        .program
        .path()
        .and_then(|p| {
            p.path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "program".to_string())
}

/// The served scene as tools see it: the runtime's view of a scene and its smart locations,
/// with reloads going the way a changed program asset goes.
struct Served<'a> {
    inner: InspectedScene<'a, EcsWorld>,
    /// The frame's reloads and refusals, announced as messages after it.
    reloads: Vec<Result<ReloadReport, String>>,
}

impl Inspected for Served<'_> {
    fn program_name(&self) -> &str {
        self.inner.program_name()
    }

    fn program(&self) -> &Program {
        self.inner.program()
    }

    fn scene_name(&self) -> &str {
        self.inner.scene_name()
    }

    fn tick_count(&self) -> u64 {
        self.inner.tick_count()
    }

    fn agent_names(&self) -> Vec<String> {
        self.inner.agent_names()
    }

    fn snapshot(&self) -> Vec<AgentSnapshot> {
        let mut snapshot = self.inner.snapshot();
        // The ECS world keeps every variable, named by the program or not: show them all.
        let world = &self.inner.scene.game;
        for (i, agent) in snapshot.iter_mut().enumerate() {
            if let Some(variables) = world.variables(i) {
                agent.variables.clone_from(variables);
            }
        }
        snapshot
    }

    fn reload(&mut self, program: Program) -> Result<ReloadReport, String> {
        let scene = (&mut *self.inner.scene, &mut *self.inner.interactions);
        let outcome = scene::reload(scene, Arc::new(program), "pushed by a tool");
        self.reloads.push(outcome.clone());
        outcome
    }

    fn reject_reload(&mut self, reason: String) {
        self.reloads.push(Err(reason.clone()));
        self.inner.reject_reload(reason);
    }

    fn set_variable(&mut self, agent: &str, variable: &str, value: &str) -> Result<(), String> {
        self.inner.set_variable(agent, variable, value)
    }
}
