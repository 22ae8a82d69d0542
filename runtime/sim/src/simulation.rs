//! One runner for every host that runs a scene of a program in the simulated world: the
//! `ensemble run` command, its `--watch` mode and the editor's preview all drive a
//! [`Simulation`], so what a designer previews is exactly what the command line runs.
//!
//! A simulation is either a scene of state-machine agents in the [`SimWorld`] with the smart
//! locations that drive its ambient NPCs ([`Interactions`]) — run by the same
//! [`Session`] a game drives, so setup, tick order, saves and reloads are written once — or a
//! conversation scene of a social agent ([`ChatScene`]). One [`Simulation::tick`] advances either by one tick of its
//! scene. Hot reload goes through [`Simulation::reload`] (live state carried across by name,
//! reported as a `reload` trace event) and [`Simulation::reject_reload`].
//!
//! Read access is by names (`Arc<str>` shared with the trace), so what a host keeps of it stays
//! meaningful after a reload replaces the program: [`Simulation::agents`] (positions, active
//! states at every depth, partners), [`Simulation::blackboards`] (each running script
//! instance, its participants and its tuple space), [`Simulation::beliefs`] (HMM spaces) and
//! [`Simulation::transcript`] (the lines said).
//!
//! **Invariant:** the trace of a simulation is the trace of its parts ticked in this order:
//! the scene (machines), the world's doors (navigation), then what a test makes the player
//! do ([`Simulation::act`]), the smart locations, then the scene's world events (planning);
//! nothing here draws random numbers, so the same program, scene and seed give the same trace
//! whoever hosts it.

use super::SimWorld;
use crate::stand_in::StandIn;
use ensemble_runtime::hpmm::chat::parse_player_line;
use ensemble_runtime::hpmm::{ChatError, ChatScene, Input};
use ensemble_runtime::hsm::{AgentId, AgentStatus, LinkError, ReloadReport, Scene, UnknownLocale};
use ensemble_runtime::interactions::{DrivenKind, Interactions, Presence};
use ensemble_runtime::program::Program;
use ensemble_runtime::script::ScriptInstance;
use ensemble_runtime::session::{Session, SessionError};
use ensemble_runtime::trace::{EventKind, TraceEvent};
use std::collections::VecDeque;
use std::sync::Arc;
use thiserror::Error;

pub mod draws;
mod save;

/// How many said lines [`Simulation::transcript`] keeps (the oldest go first).
pub const TRANSCRIPT_LINES: usize = 10_000;

/// What a simulation is started with besides its program, scene and seed.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Probability that a simulated script action fails (seeded), to exercise on-error paths.
    pub fail_rate: f64,
    /// What a content test changes before the scene starts (empty for a plain run).
    pub setup: Setup,
    /// The locale lines are spoken in (`None`: the source language).
    pub locale: Option<String>,
    /// How to stand in for some of the game's states, over what their statelib says
    /// (`ensemble run --stand-in`); every game state is stood in either way.
    pub stand_ins: Vec<crate::stand_in::Choice>,
}

/// A content test's mocks and setup (docs/formats/test.md), by name: applied when the scene
/// starts, before tick 0's events are collected.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// Forced action outcomes, first match wins.
    pub outcomes: Vec<super::ForcedOutcome>,
    /// `(agent, variable, value)`: set before the agents enter their first states.
    pub variables: Vec<(String, String, String)>,
    /// `(machine, state)`: no transition enters it ([`Scene::disable_state`]).
    pub disabled: Vec<(String, String)>,
    /// `(agent, state)`: the agent starts in this state of its root machine
    /// ([`Scene::set_root_state`]).
    pub start_in: Vec<(String, String)>,
    /// `(world event, at)`: the scene's world event may happen from `at` seconds instead of
    /// its own time, or never (`None`). Kept across a restore, like forced outcomes.
    pub world_events: Vec<(String, Option<f64>)>,
    /// Draws forced to an outcome (`Draw` setups). Kept across a restore, like forced
    /// outcomes.
    pub draws: Vec<draws::ForcedDraw>,
}

impl Setup {
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
            && self.variables.is_empty()
            && self.disabled.is_empty()
            && self.start_in.is_empty()
            && self.world_events.is_empty()
            && self.draws.is_empty()
    }

    /// Moves the scene's world events in `world` as the setup says.
    pub(crate) fn move_world_events(
        &self,
        program: &Program,
        world: &mut SimWorld,
    ) -> Result<(), String> {
        for (name, at) in &self.world_events {
            if !world.standard.planning.reschedule(program, name, *at) {
                return Err(format!("the scene has no world event `{name}`"));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Error, PartialEq)]
pub enum StartError {
    #[error("no scene `{name}` (scenes: {})", list(.available))]
    UnknownScene {
        name: String,
        /// Machine scenes, then conversation scenes.
        available: Vec<String>,
    },
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error(transparent)]
    Chat(#[from] ChatError),
    /// A test's setup names something the scene does not have.
    #[error("setup: {0}")]
    Setup(String),
    #[error(transparent)]
    Locale(#[from] UnknownLocale),
    /// A stand-in asked for does not fit the program ([`Options::stand_ins`]).
    #[error("{0}")]
    StandIn(String),
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Why a new program was refused (also recorded as a `reload-rejected` event).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ReloadError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error(transparent)]
    Chat(#[from] ChatError),
    #[error("{0}")]
    StandIn(String),
    /// The session refused the program (another project's, or one without the scene).
    #[error("{0}")]
    Refused(String),
}

impl From<SessionError> for ReloadError {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Link(e) => ReloadError::Link(e),
            SessionError::Reload(why) => ReloadError::Refused(why),
            other => ReloadError::Refused(other.to_string()),
        }
    }
}

/// What kind of scene runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    /// State-machine agents in the simulated world, with smart locations.
    Machines,
    /// A conversation with a social agent (HMM spaces); the player speaks through
    /// [`Simulation::hear`].
    Chat,
}

enum Running {
    /// The session the game's hosts use too: its setup, tick order, saves and reloads.
    Machines(Box<Session<SimWorld>>),
    Chat(Box<ChatScene>),
}

/// Who an agent is in the scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// Runs a state machine.
    Machine,
    /// An NPC of the scene without a machine, moved by smart locations.
    Ambient,
    /// Brought in by a spawn emitter.
    Spawned,
    /// A smart location's proxy object (stands at its location).
    Proxy,
    /// The player.
    Player,
    /// The social agent of a conversation scene.
    Social,
}

impl From<DrivenKind> for AgentKind {
    fn from(kind: DrivenKind) -> Self {
        match kind {
            DrivenKind::Ambient => AgentKind::Ambient,
            DrivenKind::Spawned => AgentKind::Spawned,
            DrivenKind::Proxy => AgentKind::Proxy,
            DrivenKind::Player => AgentKind::Player,
        }
    }
}

/// One active state of an agent's frame stack.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveState {
    pub machine: Arc<str>,
    pub state: Arc<str>,
}

/// An agent as a view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentView {
    pub id: AgentId,
    pub name: Arc<str>,
    pub kind: AgentKind,
    /// Where it stands, metres; `None` while it is not in the world (not arrived yet, left).
    pub at: Option<[f64; 2]>,
    pub status: AgentStatus,
    /// Active states, root first.
    pub states: Vec<ActiveState>,
    /// Whom it is in a conversation with.
    pub partner: Option<AgentId>,
}

/// A participant of a running script instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Participant {
    pub agent: AgentId,
    pub name: Arc<str>,
    pub role: Arc<str>,
    /// Its state in the script.
    pub state: Arc<str>,
}

/// A running script instance at a smart location: its blackboard (tuple space) and who takes
/// part. Facts are rendered on demand ([`Blackboard::facts`]); `version` changes whenever the
/// tuple space does, so a host can keep the last rendering while it does not.
pub struct Blackboard<'a> {
    pub location: Arc<str>,
    pub script: Arc<str>,
    /// Which instance this is at its location (the n-th started there): with `version`, what
    /// identifies the facts.
    pub instance: u64,
    pub version: u64,
    pub participants: Vec<Participant>,
    inner: &'a ScriptInstance,
    interactions: &'a Interactions,
    program: &'a Program,
}

impl Blackboard<'_> {
    /// The facts of its tuple space as written in a cell (`reserved(seat1,tourist1)`), sorted.
    pub fn facts(&self) -> Vec<String> {
        let mut facts: Vec<String> = self
            .inner
            .space
            .all()
            .iter()
            .map(|f| self.interactions.spell_fact(self.program, f))
            .collect();
        facts.sort();
        facts
    }
}

/// The belief over the states of one HMM space.
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceBelief {
    pub space: Arc<str>,
    /// State names and b(state), in the space's order.
    pub states: Vec<(Arc<str>, f64)>,
    /// Where its belief starts (its disable state, else its initial state): the space is
    /// engaged while belief has moved away from it.
    pub start: usize,
}

/// What a transcript line is.
#[derive(Clone, Debug, PartialEq)]
pub enum LineKind {
    /// Said by an agent (a dialog or one-off state, a script action with a line).
    Said,
    /// The player's input to a social agent (`emote`: `says`, `nods`...), with what the agent
    /// understood of it (`Understood::summary`: the words that counted and the evidence; empty:
    /// nothing counted), when the trace says.
    Player {
        emote: Arc<str>,
        understood: Option<String>,
    },
    /// A social agent's output.
    Output { emote: Arc<str> },
}

/// One line of the transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub tick: u64,
    pub time: f64,
    pub speaker: Arc<str>,
    pub text: String,
    /// The sentence state it realises, if any.
    pub sentence: Option<Arc<str>>,
    pub kind: LineKind,
}

impl Line {
    /// The line a trace event says, if it says one (`say`, `input`, `output`).
    pub fn of(e: &TraceEvent) -> Option<Line> {
        let speaker = e.agent.clone().unwrap_or_else(|| Arc::from("?"));
        let (text, sentence, kind) = match &e.kind {
            EventKind::Say { text, sentence, .. } => (text, sentence.clone(), LineKind::Said),
            EventKind::Input {
                speaker: who,
                emote,
                text,
                understood,
            } => {
                return Some(Line {
                    tick: e.tick,
                    time: e.time,
                    speaker: who.clone(),
                    text: text.clone(),
                    sentence: None,
                    kind: LineKind::Player {
                        emote: emote.clone(),
                        understood: understood.as_ref().map(|u| u.summary()),
                    },
                });
            }
            EventKind::Output { emote, text, .. } => (
                text,
                None,
                LineKind::Output {
                    emote: emote.clone(),
                },
            ),
            _ => return None,
        };
        Some(Line {
            tick: e.tick,
            time: e.time,
            speaker,
            text: text.clone(),
            sentence,
            kind,
        })
    }
}

/// A scene of a program, running. It records the trace (what `ensemble run` prints and the
/// editor shows) from tick 0: take the events regularly with [`Simulation::take_events`].
pub struct Simulation {
    running: Running,
    name: String,
    seed: u64,
    /// The game's states stood in so far (said once each), and the choices they were made
    /// with, for the programs a reload brings.
    stand_ins: Vec<StandIn>,
    choices: Vec<crate::stand_in::Choice>,
    /// Events recorded since the last [`Simulation::take_events`].
    events: Vec<TraceEvent>,
    /// How many of `events` the transcript has seen.
    noted: usize,
    transcript: VecDeque<Line>,
    /// What the player and proxies do during the next tick ([`Simulation::act`]).
    acts: Vec<PlayerAct>,
    /// Why the smart locations refused what was done during the last tick.
    refused: Vec<String>,
}

/// What a player does at a smart location, or a proxy reports, as a content test makes it
/// happen: applied during the next tick, where the scene's own events are (after the machines,
/// before the smart locations go on), so it is recorded at that tick.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerAct {
    /// The player reacts to the icon of smart location `location`.
    Interact { location: String },
    /// The player's input, for the blackboard of the script it takes part in.
    Input {
        fact: ensemble_runtime::script::Fact,
    },
    /// Proxy `proxy` reports a fact into its location's running script.
    Push {
        proxy: String,
        fact: ensemble_runtime::script::Fact,
    },
    /// The player walks away from its script.
    Leave,
}

impl Simulation {
    /// Starts scene `name` of `program` (a scene of machine agents, or a conversation scene):
    /// its agents enter their initial states (tick 0, recorded as events). The game's own
    /// states are stood in ([`crate::stand_in`]; said by [`Simulation::stand_ins`]).
    pub fn start(
        program: Arc<Program>,
        name: &str,
        seed: u64,
        options: &Options,
    ) -> Result<Simulation, StartError> {
        let mut stand_ins = Vec::new();
        // A conversation of that name first, as `ensemble run` always has.
        let running = if program
            .hpmm
            .chats
            .iter()
            .any(|c| program.name(c.name) == name)
        {
            if !options.setup.is_empty() {
                return Err(StartError::Setup(format!(
                    "`{name}` is a conversation: it has no agents, machines or actions to set up"
                )));
            }
            let mut chat = ChatScene::new(program.clone(), name, seed)?;
            chat.set_tracing(true);
            Running::Chat(Box::new(chat))
        } else if let Some(id) = program.scene_by_name(name) {
            let world = SimWorld::of_scene(&program, id)
                .with_failure_rate(options.fail_rate)
                .with_forced_outcomes(options.setup.outcomes.clone())
                .with_forced_draws(options.setup.draws.clone());
            let def = &program.scenes[id.index()];
            let agent_names: Vec<&str> = def
                .agents
                .iter()
                .map(|a| program.name(a.name))
                .chain(def.ambient.iter().map(|a| program.name(a.name)))
                .collect();
            let agent = |agent: &str| {
                agent_names
                    .iter()
                    .position(|a| *a == agent)
                    .map(|i| AgentId(i as u32))
                    .ok_or_else(|| StartError::Setup(format!("no agent `{agent}` in `{name}`")))
            };
            let variables = (options.setup.variables.iter())
                .map(|(who, variable, value)| Ok((agent(who)?, variable, value)))
                .collect::<Result<Vec<_>, StartError>>()?;
            // The game's own states are stood in: the simulated world has not their code.
            let (library, stood_in) = crate::stand_in::library_for(&program, &options.stand_ins)
                .map_err(StartError::StandIn)?;
            stand_ins = stood_in;
            // Set up as a game's session is; a test's variables and world events before the
            // agents enter their first states. The trace is what the CLI prints and the
            // editor shows: recorded from tick 0.
            let locale = options.locale.as_deref();
            let prepare = |world: &mut SimWorld| {
                for (a, variable, value) in &variables {
                    world.set_variable(*a, variable, value);
                }
                options.setup.move_world_events(&program, world)
            };
            let mut session =
                Session::start_with(program.clone(), library, name, world, seed, locale, prepare)
                    .map_err(|e| match e {
                    SessionError::Link(e) => StartError::Link(e),
                    SessionError::Locale(e) => StartError::Locale(e),
                    SessionError::Prepare(why) => StartError::Setup(why),
                    other => StartError::Setup(other.to_string()),
                })?;
            let (scene, _) = session.parts_mut();
            for (machine, state) in &options.setup.disabled {
                let state = program
                    .machine_by_name(machine)
                    .and_then(|m| program.state_by_name(m, state))
                    .ok_or_else(|| StartError::Setup(format!("no state `{machine}/{state}`")))?;
                scene.disable_state(state);
            }
            for (who, state) in &options.setup.start_in {
                let a = agent(who)?;
                let root = def
                    .agents
                    .get(a.index())
                    .map(|d| d.machine)
                    .ok_or_else(|| {
                        StartError::Setup(format!("`{who}` runs no machine to start in `{state}`"))
                    })?;
                let s = program.state_by_name(root, state).ok_or_else(|| {
                    StartError::Setup(format!(
                        "no state `{state}` in `{}`, the machine `{who}` runs",
                        program.name(program.machine(root).name)
                    ))
                })?;
                scene.set_root_state(a, s);
            }
            Running::Machines(Box::new(session))
        } else {
            return Err(StartError::UnknownScene {
                name: name.to_string(),
                available: scene_names(&program),
            });
        };
        let mut sim = Simulation {
            running,
            name: name.to_string(),
            seed,
            stand_ins,
            choices: options.stand_ins.clone(),
            events: Vec::new(),
            noted: 0,
            transcript: VecDeque::new(),
            acts: Vec::new(),
            refused: Vec::new(),
        };
        // A conversation scene checks the locale here (a machine scene did as it started).
        sim.set_locale(options.locale.as_deref())?;
        sim.collect();
        Ok(sim)
    }

    /// Speaks every line from now on in `locale` (`None`: the source language); lines
    /// already said keep their words. A conversation scene's agent understands and chooses
    /// as in the source language; only its words change.
    pub fn set_locale(&mut self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        match &mut self.running {
            Running::Machines(session) => session.set_locale(locale),
            Running::Chat(chat) => chat.set_locale(locale),
        }
    }

    /// The scene's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The game's states the simulated world stands in for, in the order they were first
    /// needed (at the start, then by reloads): say each once ([`StandIn`]'s `Display`).
    pub fn stand_ins(&self) -> &[StandIn] {
        &self.stand_ins
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn kind(&self) -> SceneKind {
        match self.running {
            Running::Machines(_) => SceneKind::Machines,
            Running::Chat(_) => SceneKind::Chat,
        }
    }

    pub fn program(&self) -> &Arc<Program> {
        match &self.running {
            Running::Machines(session) => session.program(),
            Running::Chat(chat) => chat.agent().program(),
        }
    }

    /// The scene of machine agents (`None` for a conversation).
    pub fn scene(&self) -> Option<&Scene<SimWorld>> {
        match &self.running {
            Running::Machines(session) => Some(session.scene()),
            Running::Chat(_) => None,
        }
    }

    /// The scene and its smart locations, for a game's calls (the player, proxies).
    pub fn scene_mut(&mut self) -> Option<(&mut Scene<SimWorld>, &mut Interactions)> {
        match &mut self.running {
            Running::Machines(session) => Some(session.parts_mut()),
            Running::Chat(_) => None,
        }
    }

    pub fn interactions(&self) -> Option<&Interactions> {
        match &self.running {
            Running::Machines(session) => Some(session.interactions()),
            Running::Chat(_) => None,
        }
    }

    /// The conversation (`None` for a scene of machine agents).
    pub fn chat(&self) -> Option<&ChatScene> {
        match &self.running {
            Running::Chat(chat) => Some(chat),
            Running::Machines(_) => None,
        }
    }

    /// Ticks so far.
    pub fn tick_count(&self) -> u64 {
        match &self.running {
            Running::Machines(session) => session.scene().tick_count(),
            Running::Chat(chat) => chat.tick_count(),
        }
    }

    /// Seconds of scene time so far.
    pub fn now(&self) -> f64 {
        match &self.running {
            Running::Machines(session) => session.now(),
            Running::Chat(chat) => chat.now(),
        }
    }

    /// Seconds of scene time per tick.
    pub fn dt(&self) -> f64 {
        match &self.running {
            Running::Machines(session) => session.scene().dt(),
            Running::Chat(chat) => chat.dt(),
        }
    }

    /// Advances the scene by one tick: the machines, the world's own events (doors of the
    /// navigation graph), the smart locations, then the planning world events (or one
    /// iteration of the conversation).
    pub fn tick(&mut self) {
        match &mut self.running {
            Running::Machines(session) => {
                let (acts, refused) = (std::mem::take(&mut self.acts), &mut self.refused);
                refused.clear();
                // The session's tick (machines, smart locations, planning world events) with
                // the simulated world's own step between: its doors, what the player did.
                session.tick_with(|scene, interactions| {
                    let (program, now) = (scene.program().clone(), scene.now());
                    let mut doors = Vec::new();
                    scene.game.advance(&program, now, &mut doors);
                    for (agent, kind) in doors {
                        scene.record_external(agent, kind);
                    }
                    for act in acts {
                        if let Err(message) = apply(scene, interactions, &act) {
                            refused.push(message.clone());
                            let who = match &act {
                                PlayerAct::Push { proxy, .. } => scene
                                    .agents()
                                    .find(|a| scene.agent_name(*a) == proxy.as_str()),
                                _ => interactions.player_agent(),
                            };
                            scene.record_external(who, EventKind::Error { message });
                        }
                    }
                });
            }
            Running::Chat(chat) => chat.step(),
        }
        self.collect();
    }

    /// Queues what the player does at a smart location (or a proxy reports) for the next
    /// tick. Returns false (and does nothing) for a conversation.
    pub fn act(&mut self, act: PlayerAct) -> bool {
        match self.running {
            Running::Machines(_) => {
                self.acts.push(act);
                true
            }
            Running::Chat(_) => false,
        }
    }

    /// Why the smart locations refused what the player or a proxy did during the last tick
    /// (also recorded as `error` events): the player out of the icon's reach, no script to
    /// hear an input.
    pub fn refused(&self) -> &[String] {
        &self.refused
    }

    /// Conversation scenes: true when the next iteration would hear nothing, so the player
    /// has a turn (always false for scenes of machine agents).
    pub fn awaits_player(&self) -> bool {
        match &self.running {
            Running::Chat(chat) => chat.awaits_player(),
            Running::Machines(_) => false,
        }
    }

    /// Conversation scenes: queues a player input (`None`: a silent iteration). Returns false
    /// (and does nothing) for scenes of machine agents.
    pub fn hear(&mut self, input: Option<Input>) -> bool {
        match &mut self.running {
            Running::Chat(chat) => {
                chat.hear(input);
                true
            }
            Running::Machines(_) => false,
        }
    }

    /// Conversation scenes: the player says `line` (`/nods` is an emote, an empty line
    /// silence; see [`parse_player_line`]).
    pub fn say(&mut self, line: &str) -> bool {
        self.hear(parse_player_line(line))
    }

    /// Replaces the running program, carrying live state across by name (agents' active
    /// states, script instances with their tuple spaces, HMM beliefs); recorded as a `reload`
    /// event with what carried over and what fell back. A program that cannot run this scene
    /// is refused and recorded as `reload-rejected`; the old one goes on.
    pub fn reload(
        &mut self,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<ReloadReport, ReloadError> {
        let result = match &mut self.running {
            Running::Machines(session) => {
                // Game states the new program needs are stood in as at the start, those
                // stood in already afresh (their declarations may have changed). A choice
                // naming a state the new program lacks is no reason to refuse it.
                let choices: Vec<_> = (self.choices.iter())
                    .filter(|c| {
                        program
                            .library
                            .iter()
                            .any(|l| program.name(l.name) == c.state)
                    })
                    .cloned()
                    .collect();
                let library = session.parts_mut().0.library_mut();
                // A program without the running scene is not a rebuild of it (perhaps another
                // project's): it gets no stand-ins, and the session refuses it.
                let stood_in = if program.scene_by_name(&self.name).is_some() {
                    crate::stand_in::complete(library, &program, &choices, &self.stand_ins)
                } else {
                    Ok(Vec::new())
                };
                match stood_in {
                    Ok(now) => {
                        // Said once each: a state already said keeps its place, with its
                        // stand-in as it is now.
                        for s in now {
                            match self.stand_ins.iter_mut().find(|x| x.state == s.state) {
                                Some(x) => *x = s,
                                None => self.stand_ins.push(s),
                            }
                        }
                        session
                            .reload_because(program, reason)
                            .map_err(ReloadError::from)
                    }
                    Err(message) => {
                        session.reject_reload(message.clone());
                        Err(ReloadError::StandIn(message))
                    }
                }
            }
            Running::Chat(chat) => chat
                .reload(program, reason)
                .map(|r| ReloadReport {
                    kept: r.kept,
                    fallbacks: r.fallbacks,
                })
                .map_err(ReloadError::from),
        };
        self.collect();
        result
    }

    /// Records that a new program was refused before it got here (it did not compile or load);
    /// the running one goes on.
    pub fn reject_reload(&mut self, reason: impl Into<String>) {
        match &mut self.running {
            Running::Machines(session) => session.reject_reload(reason),
            Running::Chat(chat) => chat.reject_reload(reason),
        }
        self.collect();
    }

    /// The draws that picked a branch (lines said, chances) since the last call; none in a
    /// conversation.
    pub fn take_draws(&mut self) -> Vec<draws::Drawn> {
        match &mut self.running {
            Running::Machines(session) => session.world_mut().draws.take_log(),
            Running::Chat(_) => Vec::new(),
        }
    }

    /// Draws of `kind` made so far (a conversation: none).
    pub fn draw_count(&self, kind: ensemble_runtime::rng::DrawKind) -> u64 {
        match &self.running {
            Running::Machines(session) => session.world().draws.count(kind),
            Running::Chat(_) => 0,
        }
    }

    /// What went wrong with the forced draws so far (a value that does not fit its draw, a
    /// draw not made yet): a content test's run ends with these as its error.
    pub fn draw_problems(&self) -> Vec<String> {
        match &self.running {
            Running::Machines(session) => session.world().draws.problems(),
            Running::Chat(_) => Vec::new(),
        }
    }

    /// Takes the trace events recorded since the last call.
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        self.collect();
        self.noted = 0;
        std::mem::take(&mut self.events)
    }

    /// The lines said so far (at most [`TRANSCRIPT_LINES`], the latest).
    pub fn transcript(&self) -> impl ExactSizeIterator<Item = &Line> {
        self.transcript.iter()
    }

    /// Moves the parts' new events here and notes the lines said.
    fn collect(&mut self) {
        match &mut self.running {
            Running::Machines(session) => self.events.extend(session.take_events()),
            Running::Chat(chat) => self.events.extend(chat.take_events()),
        }
        for e in &self.events[self.noted..] {
            if let Some(line) = Line::of(e) {
                if self.transcript.len() == TRANSCRIPT_LINES {
                    self.transcript.pop_front();
                }
                self.transcript.push_back(line);
            }
        }
        self.noted = self.events.len();
    }

    /// Every agent: where it is, what it runs, whom it talks with.
    pub fn agents(&self) -> Vec<AgentView> {
        match &self.running {
            Running::Machines(session) => {
                let (scene, interactions) = (session.scene(), session.interactions());
                let program = scene.program();
                let now = scene.now();
                scene
                    .agents()
                    .map(|id| {
                        let world = &scene.game;
                        let body = world.bodies.get(id.index());
                        let (kind, at) = match interactions.presence(program, world, id, now) {
                            None => (AgentKind::Machine, body.map(|b| [b.x, b.y])),
                            Some(Presence { kind, at }) => (kind.into(), at),
                        };
                        AgentView {
                            id,
                            name: Arc::from(scene.agent_name(id)),
                            kind,
                            at,
                            status: scene.status(id).clone(),
                            states: scene
                                .active_states(id)
                                .into_iter()
                                .map(|s| {
                                    let def = program.state(s);
                                    ActiveState {
                                        machine: program
                                            .shared_name(program.machine(def.machine).name),
                                        state: program.shared_name(def.name),
                                    }
                                })
                                .collect(),
                            partner: world.partner(id),
                        }
                    })
                    .collect()
            }
            Running::Chat(chat) => {
                let program = chat.agent().program();
                let c = &program.hpmm.chats[chat.agent().chat().index()];
                vec![AgentView {
                    id: AgentId(0),
                    name: program.shared_name(c.agent),
                    kind: AgentKind::Social,
                    at: None,
                    status: AgentStatus::Running,
                    states: Vec::new(),
                    partner: None,
                }]
            }
        }
    }

    /// The running script instances, one per smart location that runs one, in the program's
    /// order of smart locations.
    pub fn blackboards(&self) -> Vec<Blackboard<'_>> {
        let Running::Machines(session) = &self.running else {
            return Vec::new();
        };
        let (scene, interactions) = (session.scene(), session.interactions());
        let program: &Program = scene.program();
        interactions
            .instances()
            .map(|(p, instance, inner)| {
                let def = &program.scripts[inner.script as usize];
                let participants = inner
                    .states()
                    .map(|(actor, role, state)| {
                        let agent = AgentId(actor);
                        Participant {
                            agent,
                            name: Arc::from(scene.agent_name(agent)),
                            role: program.shared_name(def.roles[role as usize].name),
                            state: program.shared_name(def.states[state as usize].name),
                        }
                    })
                    .collect();
                Blackboard {
                    location: program.shared_name(program.smart_locations[p].name),
                    script: program.shared_name(def.name),
                    instance,
                    version: inner.space.version(),
                    participants,
                    inner,
                    interactions,
                    program,
                }
            })
            .collect()
    }

    /// Conversation scenes: what the agent's situational variables hold, by name
    /// (`SocialAgent::situation`; empty for scenes of machine agents).
    pub fn situation(&self) -> Vec<(String, String)> {
        let Running::Chat(chat) = &self.running else {
            return Vec::new();
        };
        (chat.agent().situation().into_iter())
            .map(|(v, held)| (v.to_string(), held))
            .collect()
    }

    /// Conversation scenes: the belief of every HMM space (empty for scenes of machine agents).
    pub fn beliefs(&self) -> Vec<SpaceBelief> {
        let Running::Chat(chat) = &self.running else {
            return Vec::new();
        };
        let agent = chat.agent();
        let program = agent.program();
        let model = &program.hpmm;
        model
            .spaces
            .iter()
            .enumerate()
            .map(|(i, space)| {
                let b = agent.space_belief(ensemble_runtime::hpmm::model::SpaceId(i as u32));
                SpaceBelief {
                    start: space.start().index() - space.first_state as usize,
                    space: program.shared_name(space.name),
                    states: space
                        .states()
                        .zip(b)
                        .map(|(s, p)| (program.shared_name(model.states[s].name), *p))
                        .collect(),
                }
            })
            .collect()
    }
}

/// Does `act` through the smart locations' game API.
fn apply(
    scene: &mut Scene<SimWorld>,
    interactions: &mut Interactions,
    act: &PlayerAct,
) -> Result<(), String> {
    match act {
        PlayerAct::Interact { location } => interactions.interact(scene, location),
        PlayerAct::Input { fact } => interactions.player_input(scene, fact.clone()),
        PlayerAct::Push { proxy, fact } => interactions.proxy_push(scene, proxy, fact.clone()),
        PlayerAct::Leave => interactions.player_leave(scene),
    }
}

/// The scenes a simulation can start in `program`: machine scenes, then conversations.
pub fn scene_names(program: &Program) -> Vec<String> {
    program
        .scene_names()
        .map(str::to_string)
        .chain(
            program
                .hpmm
                .chats
                .iter()
                .map(|c| program.name(c.name).to_string()),
        )
        .collect()
}

// A simulation, its scene, the scene's library and world move to another thread whole (the
// editor's preview thread, a game's worker): a field that is not `Send` fails this build rather
// than a game's.
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Scene<SimWorld>>();
    assert_send::<ensemble_runtime::hsm::StateLibrary<SimWorld>>();
    assert_send::<Simulation>();
    assert_send::<ChatScene>();
};
