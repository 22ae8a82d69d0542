//! A running scene: agents, their frame stacks, message delivery and the tick loop.

use super::context::{ChildRequest, Message, Outbox, StateCx};
use super::library::{LinkError, Links, StateCode, StateLibrary};
use super::{END_STATE_MACHINE, MAX_DEPTH, MAX_TRANSITIONS_PER_TICK, STATE_MACHINE_FAILED};
use crate::program::{MachineId, Modifier, NameId, Program, SceneId, StateId, Terminal};
use crate::rng::Rng;
use crate::trace::{EventKind, TraceEvent};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use thiserror::Error;

mod save;
pub use save::{RestoreReport, RosterChange};

/// An agent of a scene: its index in scene order.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct AgentId(pub u32);

impl AgentId {
    /// The agent's position in the scene's list of agents.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Whether an agent still runs, and how it stopped if not.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum AgentStatus {
    /// Its root machine is running.
    Running,
    /// Its root machine reached a terminal `End` state.
    Finished,
    /// Its root machine failed and nothing handled the failure.
    Failed,
    /// The runtime stopped it (a transition loop); the reason is in the trace.
    Halted(String),
}

/// What a hot reload did (also recorded as a `reload` trace event).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReloadReport {
    /// Active states carried across by name, over all agents and depths.
    pub kept: u32,
    /// What could not be mapped, and what was done instead, one line each.
    pub fallbacks: Vec<String>,
}

/// How one agent's frame stack maps onto a new program.
struct AgentMapping {
    /// New ids of the frames that carry over (a prefix of the stack).
    states: Vec<StateId>,
    /// A state at depth `states.len()` to enter afresh (its code changed), if any.
    reenter: Option<StateId>,
    /// Restart the root machine (by id in the new program) when nothing maps at depth 0.
    restart_root: Option<MachineId>,
    note: Option<String>,
    /// The old stack had a frame below the kept ones (a child that did not carry over).
    child_dropped: bool,
    /// The machine the deepest kept state hosted under the old program, by name.
    old_hosted: Option<String>,
}

/// Why a scene could not start or take a new program.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SceneError {
    /// The program has no scene of that name.
    #[error("the program has no scene `{name}` (scenes: {available})")]
    UnknownScene {
        /// The name asked for.
        name: String,
        /// The program's scenes, comma-separated.
        available: String,
    },
    /// The program does not link against the state library.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// The program does not translate into the locale asked for.
    #[error(transparent)]
    Locale(#[from] UnknownLocale),
}

pub use crate::locale::UnknownLocale;

/// Names created at run time (messages that no source mentions). Their ids continue after the
/// program's own names so one [`NameId`] space covers both.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    extra: Vec<Arc<str>>,
    index: HashMap<String, u32>,
}

impl Symbols {
    /// The id of `name`: the program's own if it has one, else a run-time id, made on first use.
    pub fn intern(&mut self, program: &Program, name: &str) -> NameId {
        if let Some(id) = program.name_id(name) {
            return id;
        }
        let base = program.names.len() as u32;
        if let Some(&i) = self.index.get(name) {
            return NameId(base + i);
        }
        let i = self.extra.len() as u32;
        self.extra.push(Arc::from(name));
        self.index.insert(name.to_string(), i);
        NameId(base + i)
    }

    /// The name of `id`; `"?"` for an id neither the program nor these symbols made.
    pub fn name<'a>(&'a self, program: &'a Program, id: NameId) -> &'a str {
        match id.index().checked_sub(program.names.len()) {
            None => program.name(id),
            Some(i) => self.extra.get(i).map(|s| &**s).unwrap_or("?"),
        }
    }

    /// The names made at run time, in the order they were made (interning them in this order
    /// again gives them the same ids: what a savegame relies on).
    pub fn run_time_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.extra.iter().map(|s| &**s)
    }

    /// [`Symbols::name`] as a shared string, for trace events that keep it.
    pub fn shared(&self, program: &Program, id: NameId) -> Arc<str> {
        match id.index().checked_sub(program.names.len()) {
            None => program.shared_name(id),
            Some(i) => self.extra.get(i).cloned().unwrap_or_else(|| Arc::from("?")),
        }
    }
}

struct Frame<G> {
    state: StateId,
    /// Unique per state instance; work addressed to a left instance is dropped.
    serial: u64,
    code: Box<dyn StateCode<G>>,
}

enum Work {
    Event {
        depth: usize,
        serial: u64,
        event: NameId,
    },
    Up {
        from_depth: usize,
        msg: Message,
    },
    ChildEnded {
        depth: usize,
        serial: u64,
        failed: bool,
    },
    /// State code at `depth` asked to start or stop its child machine.
    Child {
        depth: usize,
        serial: u64,
        request: ChildRequest,
    },
}

struct Agent<G> {
    /// Driven by something other than a machine (smart locations); reload leaves it alone.
    idle: bool,
    frames: Vec<Frame<G>>,
    inbox: Vec<Message>,
    rng: Rng,
    status: AgentStatus,
    queue: VecDeque<Work>,
    transitions_this_tick: u32,
}

/// The most a scene's tick count and state serials may be when it is restored (2^62): a
/// savegame past it is refused rather than left to wrap. Counted from 0 at 10,000 ticks a
/// second it takes 14 million years to reach.
pub const MAX_COUNT: u64 = 1 << 62;

/// A running scene. `G` is the game world the state code acts on.
///
/// A scene is `Send` when its world is: it can move to another thread with its library and
/// world, and independent scenes (each with its own world) can tick in parallel, one thread
/// each. Scenes share nothing mutable; the program is an `Arc` they only read.
///
/// A game's own state, a scene that runs it, ticks and a message from the game (the program is
/// built in code here; a game loads the one the compiler built):
///
/// ```
/// # use ensemble_runtime::hsm::{Inert, Scene, StateCode, StateCx, StateLibrary, StateSpec};
/// # use ensemble_runtime::program::*;
/// # use std::sync::Arc;
/// #
/// # /// The game's own state: waits its number modifier in seconds, then raises `Done`.
/// # #[derive(Default)]
/// # struct Wait {
/// #     elapsed: f64,
/// # }
/// #
/// # impl StateCode<Vec<String>> for Wait {
/// #     fn update(&mut self, cx: &mut StateCx<'_, Vec<String>>, dt: f64) {
/// #         self.elapsed += dt;
/// #         if self.elapsed + 1e-9 >= cx.number().unwrap_or(0.0) {
/// #             cx.game.push(format!("{} waited", cx.agent_name(cx.agent)));
/// #             cx.raise("Done");
/// #         }
/// #     }
/// #     // A savegame keeps the time waited so far.
/// #     fn save(&self, _program: &Program) -> Vec<u8> {
/// #         ensemble_runtime::snapshot::encode(&self.elapsed)
/// #     }
/// #     fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
/// #         self.elapsed = ensemble_runtime::snapshot::decode(data)?;
/// #         Ok(())
/// #     }
/// # }
/// #
/// # fn library() -> StateLibrary<Vec<String>> {
/// #     let mut library = StateLibrary::new();
/// #     library
/// #         .register("Wait", StateSpec::new(ModifierKind::Number).raises(["Done"]), || {
/// #             Box::new(Wait::default())
/// #         })
/// #         .register("Idle", StateSpec::new(ModifierKind::None), || Box::new(Inert));
/// #     library
/// # }
/// #
/// # /// Scene `night`: `guard` runs `Patrol` — `Watching` (waits `seconds`), then `Resting` on
/// # /// `Done`, or `Alarmed` on the message `Alarm`. Ten ticks a second.
/// # fn program(seconds: f64) -> Arc<Program> {
/// #     program_using("Wait", seconds)
/// # }
/// #
/// # /// [`program`], asking for its waiting state's code under the name `code`.
/// # fn program_using(code: &str, seconds: f64) -> Arc<Program> {
/// #     let names = [code, "Idle", "Patrol", "Watching", "Resting", "Alarmed", "Done", "Alarm",
/// #         "night", "guard", "gate"];
/// #     let library = vec![
/// #         LibraryState { name: NameId(0), modifier: ModifierKind::Number, terminal: Terminal::No },
/// #         LibraryState { name: NameId(1), modifier: ModifierKind::None, terminal: Terminal::No },
/// #     ];
/// #     let machines = vec![MachineDef {
/// #         name: NameId(2), initial: StateId(0), first_state: 0, state_count: 3,
/// #     }];
/// #     let state = |name, code, modifier, first_transition, transition_count| StateDef {
/// #         name: NameId(name), machine: MachineId(0), code: LibraryId(code), modifier,
/// #         first_transition, transition_count,
/// #     };
/// #     let states = vec![
/// #         state(3, 0, Modifier::Number(seconds), 0, 2),
/// #         state(4, 1, Modifier::None, 2, 0),
/// #         state(5, 1, Modifier::None, 2, 0),
/// #     ];
/// #     let transitions = vec![
/// #         TransitionDef { event: NameId(6), target: StateId(1) },
/// #         TransitionDef { event: NameId(7), target: StateId(2) },
/// #     ];
/// #     let locations = vec![LocationDef { name: NameId(10), x: 0.0, y: 0.0 }];
/// #     let scenes = vec![SceneDef {
/// #         name: NameId(8), tick_rate: 10, ambient: vec![],
/// #         agents: vec![AgentDef { name: NameId(9), machine: MachineId(0), start: LocationId(0) }],
/// #     }];
/// #     let names = names.iter().map(|n| n.to_string()).collect();
/// #     Arc::new(Program::new(names, library, machines, states, transitions, locations, scenes).unwrap())
/// # }
/// #
/// # /// The name of the agent's current root state.
/// # fn current(scene: &Scene<Vec<String>>, agent: ensemble_runtime::hsm::AgentId) -> &str {
/// #     let program = scene.program();
/// #     program.name(program.state(scene.active_states(agent)[0]).name)
/// # }
/// #
/// use ensemble_runtime::hsm::{LinkError, SceneError};
///
/// // The game registers its code under the names the program asks for.
/// let mut scene = Scene::new(program(1.0), library(), "night", Vec::new(), 7)?;
/// let guard = scene.agents().next().unwrap();
/// assert_eq!(scene.agent_name(guard), "guard");
/// assert_eq!(scene.dt(), 0.1); // the scene's tick rate is 10
/// assert_eq!(current(&scene, guard), "Watching");
///
/// // Each tick updates every active state with the tick's length.
/// for _ in 0..10 {
///     scene.tick();
/// }
/// assert_eq!(scene.tick_count(), 10);
/// assert_eq!(current(&scene, guard), "Resting");
/// assert_eq!(scene.game, ["guard waited"]);
///
/// // A message from the game reaches the agent at the start of the next tick.
/// let mut scene = Scene::new(program(1.0), library(), "night", Vec::new(), 7)?;
/// scene.tick();
/// scene.send(guard, guard, "Alarm");
/// assert_eq!(current(&scene, guard), "Watching");
/// scene.tick();
/// assert_eq!(current(&scene, guard), "Alarmed");
/// assert!(scene.game.is_empty());
///
/// // A program asking for code the game did not register does not start.
/// let refused = Scene::new(program_using("Sleep", 1.0), library(), "night", Vec::new(), 7);
/// assert!(matches!(refused, Err(SceneError::Link(LinkError::Missing { name, .. })) if name == "Sleep"));
/// # Ok::<(), SceneError>(())
/// ```
pub struct Scene<G> {
    program: Arc<Program>,
    library: StateLibrary<G>,
    links: Links<G>,
    /// The game world, shared by all agents' state code.
    pub game: G,
    agents: Vec<Agent<G>>,
    agent_names: Vec<NameId>,
    agent_labels: Vec<Arc<str>>,
    symbols: Symbols,
    seed: u64,
    tick: u64,
    dt: f64,
    next_serial: u64,
    pending: Vec<(AgentId, Message)>,
    /// Recording is opt-in: see [`Scene::set_tracing`].
    tracing: bool,
    /// Recorded since the last [`Scene::take_events`]; stays empty (no allocation) while
    /// tracing is off.
    events: Vec<TraceEvent>,
    /// States no transition enters ([`Scene::disable_state`]); empty in a game.
    disabled: Vec<StateId>,
    /// The locale lines are spoken in, by name (kept across reloads); `None`: the source
    /// language.
    locale: Option<String>,
    /// The scene's own agents (machine agents, then ambient NPCs) in the order the program
    /// lists them, by id. Ids never move: a restore onto a program that added agents gives them
    /// new ids after every other, one that removed some retires theirs, so this is the map
    /// from the program's order to ids. `None` after restoring a snapshot written before it
    /// was saved (its agents are then the program's in order, or the restore refuses it).
    roster: Option<Vec<AgentId>>,
}

impl<G: 'static> Scene<G> {
    /// Starts the program's scene `name`: links the library, creates its agents and enters each
    /// root machine's initial state (tick 0). The scene records no trace (see
    /// [`Scene::set_tracing`]); [`Scene::new_traced`] starts one that does.
    pub fn new(
        program: Arc<Program>,
        library: StateLibrary<G>,
        name: &str,
        game: G,
        seed: u64,
    ) -> Result<Self, SceneError> {
        Self::start(program, library, name, game, seed, false, None)
    }

    /// [`Scene::new`] with trace recording on from the start, so that the trace also has the
    /// tick-0 entries into the initial states (turning recording on after [`Scene::new`] would
    /// miss them). The events wait for [`Scene::take_events`].
    pub fn new_traced(
        program: Arc<Program>,
        library: StateLibrary<G>,
        name: &str,
        game: G,
        seed: u64,
    ) -> Result<Self, SceneError> {
        Self::start(program, library, name, game, seed, true, None)
    }

    /// [`Scene::new_traced`] speaking in `locale` from the first line on (see
    /// [`Scene::set_locale`]).
    pub fn new_traced_in(
        program: Arc<Program>,
        library: StateLibrary<G>,
        name: &str,
        game: G,
        seed: u64,
        locale: Option<&str>,
    ) -> Result<Self, SceneError> {
        Self::start(program, library, name, game, seed, true, locale)
    }

    fn start(
        program: Arc<Program>,
        library: StateLibrary<G>,
        name: &str,
        game: G,
        seed: u64,
        tracing: bool,
        locale: Option<&str>,
    ) -> Result<Self, SceneError> {
        let id = program
            .scene_by_name(name)
            .ok_or_else(|| SceneError::UnknownScene {
                name: name.to_string(),
                available: program.scene_names().collect::<Vec<_>>().join(", "),
            })?;
        let tick_rate = program.scenes[id.index()].tick_rate;
        let mut scene = Self::empty(program, library, game, seed, tick_rate)?;
        scene.tracing = tracing;
        scene.set_locale(locale)?;
        scene.spawn_scene_agents(id);
        Ok(scene)
    }

    /// A scene with no agents; add them with [`Scene::spawn`]. Call [`Scene::set_tracing`]
    /// first to record their entries.
    pub fn empty(
        program: Arc<Program>,
        library: StateLibrary<G>,
        game: G,
        seed: u64,
        tick_rate: u32,
    ) -> Result<Self, SceneError> {
        let links = library.link(&program)?;
        Ok(Scene {
            program,
            library,
            links,
            game,
            agents: Vec::new(),
            agent_names: Vec::new(),
            agent_labels: Vec::new(),
            symbols: Symbols::default(),
            seed,
            tick: 0,
            dt: 1.0 / tick_rate.max(1) as f64,
            next_serial: 0,
            pending: Vec::new(),
            tracing: false,
            events: Vec::new(),
            disabled: Vec::new(),
            locale: None,
            roster: Some(Vec::new()),
        })
    }

    fn spawn_scene_agents(&mut self, id: SceneId) {
        let program = self.program.clone();
        let mut roster = Vec::new();
        for a in &program.scenes[id.index()].agents {
            let name = program.name(a.name).to_string();
            roster.push(self.spawn(&name, a.machine));
        }
        for a in &program.scenes[id.index()].ambient {
            let name = program.name(a.name).to_string();
            roster.push(self.spawn_idle(&name));
        }
        self.roster = Some(roster);
    }

    /// The scene's own agents in the order the program lists them (machine agents, then
    /// ambient NPCs), by id; agents spawned later (smart locations' waves, the game's) are not
    /// in it. `None` only for a scene restored from a snapshot that predates the roster.
    pub fn roster(&self) -> Option<&[AgentId]> {
        self.roster.as_deref()
    }

    /// Sets the roster after a restore has matched the snapshot's agents to a patched
    /// program's (`crate::session::roster`).
    pub(crate) fn set_roster(&mut self, roster: Vec<AgentId>) {
        self.roster = Some(roster);
    }

    /// Whether the agent runs a machine (an ambient NPC does not). Panics if `id` is not one of
    /// this scene's agents.
    pub fn runs_machine(&self, id: AgentId) -> bool {
        !self.agents[id.index()].idle
    }

    /// Takes `agent` out of the scene for good, as a restore onto a patched program that no
    /// longer lists it does: its states are left (their cleanup runs; `exit` events), messages
    /// to it are dropped, and it is halted with `reason` (an `error` event). Its id stays taken
    /// — ids never move, so the game's own per-agent state keeps its meaning — and it never
    /// runs again.
    pub fn retire(&mut self, agent: AgentId, reason: String) {
        if agent.index() >= self.agents.len() {
            return;
        }
        let (mut runner, agents) = self.runner();
        let a = &mut agents[agent.index()];
        runner.exit_from(a, agent, 0);
        a.inbox.clear();
        runner.halt(a, agent, reason);
        self.pending.retain(|(to, _)| *to != agent);
    }

    /// Gives `agent` the name a migration renamed it to (`crate::session::roster`).
    pub(crate) fn rename_agent(&mut self, agent: AgentId, name: &str) {
        if agent.index() >= self.agents.len() {
            return;
        }
        self.agent_labels[agent.index()] = Arc::from(name);
        self.agent_names[agent.index()] = self.symbols.intern(&self.program, name);
    }

    /// Adds an agent that runs no machine (an ambient NPC moved by smart locations); it has an
    /// id and a name in the trace.
    pub fn spawn_idle(&mut self, name: &str) -> AgentId {
        self.push_agent(name, true)
    }

    /// Registers an agent (name, random stream) with no active state yet.
    fn push_agent(&mut self, name: &str, idle: bool) -> AgentId {
        let id = AgentId(self.agents.len() as u32);
        self.agent_labels.push(Arc::from(name));
        let name = self.symbols.intern(&self.program, name);
        self.agent_names.push(name);
        self.agents.push(Agent {
            idle,
            frames: Vec::new(),
            inbox: Vec::new(),
            rng: Rng::new(self.seed, id.0 as u64),
            status: AgentStatus::Running,
            queue: VecDeque::new(),
            transitions_this_tick: 0,
        });
        id
    }

    /// Records an event produced outside the interpreter (smart locations, the game) into
    /// this scene's trace, stamped with the current tick.
    pub fn record_external(&mut self, agent: Option<AgentId>, kind: EventKind) {
        self.record(agent, kind);
    }

    /// Adds an agent running `machine` and enters its initial state.
    pub fn spawn(&mut self, name: &str, machine: MachineId) -> AgentId {
        let id = self.push_agent(name, false);
        let initial = self.program.machine(machine).initial;
        let (mut runner, agents) = self.runner();
        let agent = &mut agents[id.index()];
        runner.enter(agent, id, 0, initial);
        runner.drain(agent, id);
        id
    }

    /// Speaks every line from now on in `locale` (a locale the program translates into, or
    /// [`crate::locale::PSEUDO`]); `None` returns to the source language. Lines already said
    /// keep their words; a line the locale does not translate is said in the source language.
    /// A hot reload keeps the locale by name. Refuses a locale the program does not know, with
    /// the ones it does.
    pub fn set_locale(&mut self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        self.program.strings.check_locale(locale)?;
        self.locale = locale.map(str::to_string);
        Ok(())
    }

    /// The locale lines are spoken in (`None`: the source language).
    pub fn locale(&self) -> Option<&str> {
        self.locale.as_deref()
    }

    /// Turns trace recording on or off. **Off by default**, so a game that only calls
    /// [`Scene::tick`] never grows memory and builds no events nobody reads (an event for every
    /// state entered or left and every message: 10,000 busy agents record some 800 a frame,
    /// 93 KB, see docs/benchmarks/runtime.md).
    ///
    /// Recording is opt-in rather than capped because a cap would still pay that cost every
    /// tick and would still hold the cap's worth of events that nobody reads; and a host that
    /// reads the trace (a log, a debugger, `ensemble run`, the editor's timeline) needs every
    /// event, which a cap that drops some would not give it.
    ///
    /// On, every event is kept until [`Scene::take_events`] takes it: a host that records takes
    /// the events regularly (each tick or frame). Turning recording off drops the events not yet
    /// taken and frees their memory.
    ///
    /// ```
    /// # use ensemble_runtime::hsm::{Scene, StateLibrary};
    /// # use ensemble_runtime::program::Program;
    /// # use std::sync::Arc;
    /// # fn host(program: Arc<Program>, library: StateLibrary<()>) {
    /// // Recording from tick 0 (`set_tracing(true)` after `Scene::new` would miss the
    /// // entries into the initial states).
    /// let mut scene = Scene::new_traced(program, library, "market", (), 7).unwrap();
    /// for _ in 0..60 {
    ///     scene.tick();
    ///     for event in scene.take_events() {
    ///         println!("{}", event.to_text());
    ///     }
    /// }
    /// # }
    /// ```
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
        if !on {
            self.events = Vec::new();
        }
    }

    /// Whether trace events are being recorded (see [`Scene::set_tracing`]).
    pub fn is_tracing(&self) -> bool {
        self.tracing
    }

    /// Takes the trace events recorded since the last call, oldest first (none while tracing
    /// is off: see [`Scene::set_tracing`]).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.events)
    }

    /// How many events are recorded and not yet taken.
    pub fn events_waiting(&self) -> usize {
        self.events.len()
    }

    /// Drops the oldest recorded events that were not taken, keeping the newest `keep`;
    /// returns how many were dropped.
    pub fn discard_oldest_events(&mut self, keep: usize) -> usize {
        let extra = self.events.len().saturating_sub(keep);
        self.events.drain(..extra);
        extra
    }

    /// The memory the recorded events hold, in events (the buffer's capacity): proves that a
    /// scene that does not record holds none.
    #[cfg(test)]
    pub(crate) fn trace_capacity(&self) -> usize {
        self.events.capacity()
    }

    /// The program the scene runs (the new one after a hot reload).
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The scene's state library, to register states a program about to be hot-reloaded
    /// needs (a simulated world stands in for new game states so). Running states keep the
    /// code they were entered with; the library is linked again at the next reload.
    pub fn library_mut(&mut self) -> &mut StateLibrary<G> {
        &mut self.library
    }

    /// Ticks run so far (0 before the first [`Scene::tick`]).
    pub fn tick_count(&self) -> u64 {
        self.tick
    }

    /// Seconds per tick.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Takes `tick_rate` (ticks a second) after a restore onto a program whose scene changed
    /// it: the scene's time stays where it was (the tick count is rescaled, rounded), so every
    /// timer keeps its seconds. A note of what changed, or `None` when the rate is the same.
    pub fn set_tick_rate(&mut self, tick_rate: u32) -> Option<String> {
        let dt = 1.0 / f64::from(tick_rate.max(1));
        if (dt - self.dt).abs() < 1e-12 {
            return None;
        }
        let (old_rate, now) = ((1.0 / self.dt).round(), self.now());
        self.tick = (now / dt).round() as u64;
        self.dt = dt;
        Some(format!(
            "the scene's tick rate changed from {old_rate} to {tick_rate} a second: {now:.2} s is \
             now tick {}",
            self.tick
        ))
    }

    /// Seconds of scene time so far: ticks run times [`Scene::dt`].
    pub fn now(&self) -> f64 {
        self.tick as f64 * self.dt
    }

    /// Every agent of the scene, in spawn order.
    pub fn agents(&self) -> impl Iterator<Item = AgentId> + '_ {
        (0..self.agents.len()).map(|i| AgentId(i as u32))
    }

    /// The agent's name. Panics if `id` is not one of this scene's agents.
    pub fn agent_name(&self, id: AgentId) -> &str {
        &self.agent_labels[id.index()]
    }

    /// Whether the agent still runs. Panics if `id` is not one of this scene's agents.
    pub fn status(&self, id: AgentId) -> &AgentStatus {
        &self.agents[id.index()].status
    }

    /// The agent's active states, root first.
    pub fn active_states(&self, id: AgentId) -> Vec<StateId> {
        self.agents[id.index()]
            .frames
            .iter()
            .map(|f| f.state)
            .collect()
    }

    /// Disables `state` for a test (a content test's setup, docs/formats/test.md): no
    /// transition or message enters it from now on — the event is not handled, so the agent
    /// stays where it is. A machine still starts in its initial state.
    pub fn disable_state(&mut self, state: StateId) {
        if !self.disabled.contains(&state) {
            self.disabled.push(state);
        }
    }

    /// Puts `agent` in `state` of its root machine at once, as a test's setup does (a content
    /// test starting an agent in a given state): the states it is in are left (their cleanup
    /// runs; `exit` events), then `state` is entered at depth 0 with its child machine.
    pub fn set_root_state(&mut self, agent: AgentId, state: StateId) {
        if agent.index() >= self.agents.len() || state.index() >= self.program.states.len() {
            return;
        }
        let (mut runner, agents) = self.runner();
        let a = &mut agents[agent.index()];
        runner.exit_from(a, agent, 0);
        a.status = AgentStatus::Running;
        runner.enter(a, agent, 0, state);
        runner.drain(a, agent);
    }

    /// Sends a message from outside (the game, the player) to an agent; delivered next tick.
    pub fn send(&mut self, to: AgentId, from: AgentId, name: &str) {
        let name = self.symbols.intern(&self.program, name);
        self.pending.push((to, Message { name, from }));
    }

    /// Advances the scene by one tick of `dt` seconds.
    pub fn tick(&mut self) {
        // Never wraps: a restored scene counts from at most [`MAX_COUNT`], which no game ticks
        // past; should one, the count stays at `u64::MAX` rather than going back to 0.
        self.tick = self.tick.saturating_add(1);
        let mut pending = std::mem::take(&mut self.pending);
        for (to, msg) in pending.drain(..) {
            match self.agents.get_mut(to.index()) {
                Some(a) => a.inbox.push(msg),
                None => self.record(
                    None,
                    EventKind::Error {
                        message: format!("message sent to agent #{} which does not exist", to.0),
                    },
                ),
            }
        }
        self.pending = pending;
        let first_serial_this_tick = self.next_serial;
        let dt = self.dt;
        let (mut runner, agents) = self.runner();
        for (i, agent) in agents.iter_mut().enumerate() {
            let id = AgentId(i as u32);
            agent.transitions_this_tick = 0;
            let inbox = std::mem::take(&mut agent.inbox);
            for msg in inbox {
                runner.dispatch_down(agent, id, msg);
            }
            let mut depth = 0;
            while agent.status == AgentStatus::Running && depth < agent.frames.len() {
                // A state entered during this tick is first updated on the next one.
                if agent.frames[depth].serial < first_serial_this_tick {
                    runner.call(agent, id, depth, |code, cx| code.update(cx, dt));
                    runner.drain(agent, id);
                }
                depth += 1;
            }
        }
    }

    /// Records that a new program was refused (it did not compile or load); the running one
    /// goes on.
    pub fn reject_reload(&mut self, reason: impl Into<String>) {
        self.record(
            None,
            EventKind::ReloadRejected {
                reason: reason.into(),
            },
        );
    }

    /// Replaces the running program while agents run, carrying live state across by name.
    ///
    /// Each agent's active states are matched level by level: the root machine by name, then
    /// each active state by name within its machine, then each child by the machine its host
    /// now hosts. State code instances of matched states are kept (a walk in progress goes on).
    /// Where matching stops, the rest of the stack is left (cleanup runs under the old program)
    /// and the fallback rule applies:
    /// - a state whose library code changed is entered afresh;
    /// - a state that no longer exists restarts its machine at the initial state;
    /// - a root machine that no longer exists halts the agent.
    ///
    /// A program that does not link against the library is refused: the old one keeps running
    /// and a `reload-rejected` event says why. Agents added to a scene appear on restart.
    ///
    /// ```
    /// # use ensemble_runtime::hsm::{Inert, Scene, StateCode, StateCx, StateLibrary, StateSpec};
    /// # use ensemble_runtime::program::*;
    /// # use std::sync::Arc;
    /// #
    /// # /// The game's own state: waits its number modifier in seconds, then raises `Done`.
    /// # #[derive(Default)]
    /// # struct Wait {
    /// #     elapsed: f64,
    /// # }
    /// #
    /// # impl StateCode<Vec<String>> for Wait {
    /// #     fn update(&mut self, cx: &mut StateCx<'_, Vec<String>>, dt: f64) {
    /// #         self.elapsed += dt;
    /// #         if self.elapsed + 1e-9 >= cx.number().unwrap_or(0.0) {
    /// #             cx.game.push(format!("{} waited", cx.agent_name(cx.agent)));
    /// #             cx.raise("Done");
    /// #         }
    /// #     }
    /// #     // A savegame keeps the time waited so far.
    /// #     fn save(&self, _program: &Program) -> Vec<u8> {
    /// #         ensemble_runtime::snapshot::encode(&self.elapsed)
    /// #     }
    /// #     fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
    /// #         self.elapsed = ensemble_runtime::snapshot::decode(data)?;
    /// #         Ok(())
    /// #     }
    /// # }
    /// #
    /// # fn library() -> StateLibrary<Vec<String>> {
    /// #     let mut library = StateLibrary::new();
    /// #     library
    /// #         .register("Wait", StateSpec::new(ModifierKind::Number).raises(["Done"]), || {
    /// #             Box::new(Wait::default())
    /// #         })
    /// #         .register("Idle", StateSpec::new(ModifierKind::None), || Box::new(Inert));
    /// #     library
    /// # }
    /// #
    /// # /// Scene `night`: `guard` runs `Patrol` — `Watching` (waits `seconds`), then `Resting` on
    /// # /// `Done`, or `Alarmed` on the message `Alarm`. Ten ticks a second.
    /// # fn program(seconds: f64) -> Arc<Program> {
    /// #     program_using("Wait", seconds)
    /// # }
    /// #
    /// # /// [`program`], asking for its waiting state's code under the name `code`.
    /// # fn program_using(code: &str, seconds: f64) -> Arc<Program> {
    /// #     let names = [code, "Idle", "Patrol", "Watching", "Resting", "Alarmed", "Done", "Alarm",
    /// #         "night", "guard", "gate"];
    /// #     let library = vec![
    /// #         LibraryState { name: NameId(0), modifier: ModifierKind::Number, terminal: Terminal::No },
    /// #         LibraryState { name: NameId(1), modifier: ModifierKind::None, terminal: Terminal::No },
    /// #     ];
    /// #     let machines = vec![MachineDef {
    /// #         name: NameId(2), initial: StateId(0), first_state: 0, state_count: 3,
    /// #     }];
    /// #     let state = |name, code, modifier, first_transition, transition_count| StateDef {
    /// #         name: NameId(name), machine: MachineId(0), code: LibraryId(code), modifier,
    /// #         first_transition, transition_count,
    /// #     };
    /// #     let states = vec![
    /// #         state(3, 0, Modifier::Number(seconds), 0, 2),
    /// #         state(4, 1, Modifier::None, 2, 0),
    /// #         state(5, 1, Modifier::None, 2, 0),
    /// #     ];
    /// #     let transitions = vec![
    /// #         TransitionDef { event: NameId(6), target: StateId(1) },
    /// #         TransitionDef { event: NameId(7), target: StateId(2) },
    /// #     ];
    /// #     let locations = vec![LocationDef { name: NameId(10), x: 0.0, y: 0.0 }];
    /// #     let scenes = vec![SceneDef {
    /// #         name: NameId(8), tick_rate: 10, ambient: vec![],
    /// #         agents: vec![AgentDef { name: NameId(9), machine: MachineId(0), start: LocationId(0) }],
    /// #     }];
    /// #     let names = names.iter().map(|n| n.to_string()).collect();
    /// #     Arc::new(Program::new(names, library, machines, states, transitions, locations, scenes).unwrap())
    /// # }
    /// #
    /// # /// The name of the agent's current root state.
    /// # fn current(scene: &Scene<Vec<String>>, agent: ensemble_runtime::hsm::AgentId) -> &str {
    /// #     let program = scene.program();
    /// #     program.name(program.state(scene.active_states(agent)[0]).name)
    /// # }
    /// #
    /// let mut scene = Scene::new(program(1.0), library(), "night", Vec::new(), 7)?;
    /// let guard = scene.agents().next().unwrap();
    /// for _ in 0..5 {
    ///     scene.tick();
    /// }
    /// // The designer makes the watch last 2 seconds: `Watching` carries across by name, and its
    /// // code instance with it (half a second already waited).
    /// let report = scene.reload(program(2.0), "sources changed")?;
    /// assert_eq!(report.kept, 1);
    /// assert!(report.fallbacks.is_empty());
    /// for _ in 0..14 {
    ///     scene.tick();
    /// }
    /// assert_eq!(current(&scene, guard), "Watching");
    /// scene.tick();
    /// assert_eq!(current(&scene, guard), "Resting");
    ///
    /// // A program that does not link is refused; the running one goes on.
    /// let refused = scene.reload(program_using("Sleep", 1.0), "sources changed");
    /// assert!(refused.is_err());
    /// assert_eq!(scene.program().name(scene.program().library[0].name), "Wait");
    /// # Ok::<(), ensemble_runtime::hsm::SceneError>(())
    /// ```
    pub fn reload(
        &mut self,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<ReloadReport, LinkError> {
        self.reload_with(program, reason, |_, _, _| ReloadReport::default())
    }

    /// [`Scene::reload`], with what other systems carry across at the same moment (a game's
    /// smart locations and their script instances, planning agents' worlds): once the new
    /// program has linked, and before any state code hears of the reload, `carry` gets the old
    /// and the new program and the game world, and what it reports joins the `reload` event
    /// (`kept` added, `fallbacks` appended). If the program is refused, `carry` is never called.
    pub fn reload_with(
        &mut self,
        program: Arc<Program>,
        reason: &str,
        carry: impl FnOnce(&Program, &Program, &mut G) -> ReloadReport,
    ) -> Result<ReloadReport, LinkError> {
        // Another project's program shares no names with the running one: every agent would
        // lose its states. (A program without a project name, put together by hand, is let in.)
        let (running, offered) = (&self.program.project, &program.project);
        if !running.is_empty() && !offered.is_empty() && running != offered {
            let e = LinkError::OtherProject {
                running: running.clone(),
                offered: offered.clone(),
            };
            self.reject_reload(e.to_string());
            return Err(e);
        }
        let links = match self.library.link(&program) {
            Ok(l) => l,
            Err(e) => {
                self.reject_reload(e.to_string());
                return Err(e);
            }
        };
        let carried = carry(&self.program, &program, &mut self.game);
        let mappings: Vec<AgentMapping> = self
            .agents
            .iter()
            .map(|a| {
                let frames: Vec<FrameNames<'_>> = a
                    .frames
                    .iter()
                    .map(|f| FrameNames::of(&self.program, f.state))
                    .collect();
                map_frames(&program, &frames)
            })
            .collect();
        // Leave what does not carry over while the old program is still in force.
        {
            let (mut runner, agents) = self.runner();
            for (i, (agent, m)) in agents.iter_mut().zip(&mappings).enumerate() {
                if m.states.len() < agent.frames.len() {
                    runner.exit_from(agent, AgentId(i as u32), m.states.len());
                }
                // Effects aimed at states that are gone are dropped; messages to other
                // agents (already in `pending`) still go out.
                agent.queue.clear();
            }
        }
        // Swap the program and re-intern every name the scene holds.
        let old = std::mem::replace(&mut self.program, program);
        let old_symbols = std::mem::take(&mut self.symbols);
        let remap = |symbols: &mut Symbols, id: NameId| {
            symbols.intern(&self.program, old_symbols.name(&old, id))
        };
        for n in &mut self.agent_names {
            *n = remap(&mut self.symbols, *n);
        }
        for (_, msg) in &mut self.pending {
            msg.name = remap(&mut self.symbols, msg.name);
        }
        for agent in &mut self.agents {
            for msg in &mut agent.inbox {
                msg.name = remap(&mut self.symbols, msg.name);
            }
        }
        self.links = links;
        let mut report = ReloadReport::default();
        let (mut runner, agents) = self.runner();
        for (i, (agent, m)) in agents.iter_mut().zip(mappings).enumerate() {
            let id = AgentId(i as u32);
            for (frame, state) in agent.frames.iter_mut().zip(&m.states) {
                frame.state = *state;
            }
            let kept = m.states.len();
            report.kept += kept as u32;
            if let Some(note) = &m.note {
                report
                    .fallbacks
                    .push(format!("{}: {note}", runner.agent_labels[i]));
            }
            if agent.idle
                || (agent.status != AgentStatus::Running && agent.status != AgentStatus::Finished)
            {
                continue;
            }
            // The frames that carried over, by serial: state code that reacts to the reload
            // may leave some of them (a `Plan` state stopping its action's machine, then
            // transitioning away) or start fresh ones in their place, which did not live
            // under the old program.
            let carried: Vec<u64> = agent.frames[..kept].iter().map(|f| f.serial).collect();
            let depth = agent.frames.len();
            let next = resume_point(runner.program, agent, &m);
            if let Some(state) = next {
                agent.status = AgentStatus::Running;
                runner.enter(agent, id, depth, state);
                runner.drain(agent, id);
            }
            // Kept state code carries its own live data across (a plan in progress).
            for (d, &serial) in carried.iter().enumerate() {
                if agent.status != AgentStatus::Running {
                    break;
                }
                if !Runner::alive(agent, d, serial) {
                    continue;
                }
                if let Some(note) = runner.call(agent, id, d, |code, cx| code.on_reload(cx, &old)) {
                    report
                        .fallbacks
                        .push(format!("{}: {note}", runner.agent_labels[i]));
                }
                runner.drain(agent, id);
            }
        }
        report.kept += carried.kept;
        report.fallbacks.extend(carried.fallbacks);
        self.record(
            None,
            EventKind::Reload {
                reason: reason.to_string(),
                kept: report.kept,
                fallbacks: report.fallbacks.clone(),
            },
        );
        Ok(report)
    }

    fn record(&mut self, agent: Option<AgentId>, kind: EventKind) {
        if self.tracing {
            self.events.push(TraceEvent {
                tick: self.tick,
                time: self.now(),
                agent: agent.map(|a| self.agent_labels[a.index()].clone()),
                kind,
            });
        }
    }

    fn runner(&mut self) -> (Runner<'_, G>, &mut Vec<Agent<G>>) {
        let now = self.now();
        (
            Runner {
                program: &self.program,
                links: &self.links,
                game: &mut self.game,
                agent_names: &self.agent_names,
                agent_labels: &self.agent_labels,
                symbols: &mut self.symbols,
                pending: &mut self.pending,
                events: if self.tracing {
                    Some(&mut self.events)
                } else {
                    None
                },
                next_serial: &mut self.next_serial,
                disabled: &self.disabled,
                tick: self.tick,
                now,
                locale: self
                    .locale
                    .as_deref()
                    .and_then(|l| self.program.strings.locale(l))
                    .unwrap_or_default(),
            },
            &mut self.agents,
        )
    }
}

// Whatever the world, a scene and its library move between threads with it: checked for every
// `G` here, where a field that is not `Send` would be added.
const _: () = {
    const fn assert_send<T: Send>() {}
    const fn scene_is_send<G: Send + 'static>() {
        assert_send::<Scene<G>>();
        assert_send::<StateLibrary<G>>();
    }
    scene_is_send::<()>();
};

/// The scene's fields minus its agents, borrowed for processing one agent at a time.
struct Runner<'a, G> {
    program: &'a Program,
    links: &'a Links<G>,
    game: &'a mut G,
    agent_names: &'a [NameId],
    agent_labels: &'a [Arc<str>],
    symbols: &'a mut Symbols,
    pending: &'a mut Vec<(AgentId, Message)>,
    events: Option<&'a mut Vec<TraceEvent>>,
    next_serial: &'a mut u64,
    disabled: &'a [StateId],
    tick: u64,
    now: f64,
    locale: crate::locale::Locale,
}

impl<G: 'static> Runner<'_, G> {
    fn tracing(&self) -> bool {
        self.events.is_some()
    }

    fn record(&mut self, agent: AgentId, kind: EventKind) {
        let label = self.agent_labels[agent.index()].clone();
        if let Some(events) = self.events.as_deref_mut() {
            events.push(TraceEvent {
                tick: self.tick,
                time: self.now,
                agent: Some(label),
                kind,
            });
        }
    }

    /// `machine/state` names of a state, for enter/exit/fail events.
    fn state_names(&self, state: StateId) -> (Arc<str>, Arc<str>) {
        let def = self.program.state(state);
        (
            self.program
                .shared_name(self.program.machine(def.machine).name),
            self.program.shared_name(def.name),
        )
    }

    fn record_message(&mut self, to: AgentId, msg: &Message, handled: bool, up: bool) {
        if !self.tracing() {
            return;
        }
        let kind = EventKind::Message {
            from: self.agent_labels[msg.from.index()].clone(),
            to: self.agent_labels[to.index()].clone(),
            name: self.symbols.shared(self.program, msg.name),
            handled,
            up,
        };
        self.record(to, kind);
    }

    /// Calls into the code of frame `depth` and queues what it asked for.
    fn call<R>(
        &mut self,
        agent: &mut Agent<G>,
        id: AgentId,
        depth: usize,
        f: impl FnOnce(&mut dyn StateCode<G>, &mut StateCx<'_, G>) -> R,
    ) -> R {
        let mut out = Outbox::default();
        let Agent { frames, rng, .. } = &mut *agent;
        let child = frames.get(depth + 1).map(|f| f.state);
        let frame = &mut frames[depth];
        let serial = frame.serial;
        let mut cx = StateCx {
            game: &mut *self.game,
            agent: id,
            rng,
            now: self.now,
            program: self.program,
            agent_names: self.agent_names,
            symbols: &mut *self.symbols,
            state: frame.state,
            child,
            out: &mut out,
            locale: self.locale,
        };
        let r = f(frame.code.as_mut(), &mut cx);
        if !out.is_empty() {
            self.apply(agent, id, depth, serial, out);
        }
        r
    }

    fn apply(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize, serial: u64, out: Outbox) {
        for said in out.said {
            let sentence = said.sentence.map(|n| self.program.shared_name(n));
            let candidate = said.candidate;
            self.record(
                id,
                EventKind::Say {
                    text: said.text,
                    sentence,
                    candidate,
                },
            );
        }
        for message in out.errors {
            self.record(id, EventKind::Error { message });
        }
        for kind in out.events {
            self.record(id, kind);
        }
        for (add, machine, fact) in out.facts {
            let script = self
                .program
                .shared_name(self.program.machines[machine.index()].name);
            let kind = if add {
                EventKind::Add { script, fact }
            } else {
                EventKind::Del { script, fact }
            };
            self.record(id, kind);
        }
        for event in out.raised {
            agent.queue.push_back(Work::Event {
                depth,
                serial,
                event,
            });
        }
        for name in out.up {
            agent.queue.push_back(Work::Up {
                from_depth: depth,
                msg: Message { name, from: id },
            });
        }
        for (to, name) in out.to_agents {
            self.pending.push((to, Message { name, from: id }));
        }
        if let Some(request) = out.child {
            agent.queue.push_back(Work::Child {
                depth,
                serial,
                request,
            });
        }
    }

    fn transition_on(&self, state: StateId, event: NameId) -> Option<StateId> {
        self.program
            .transitions_of(state)
            .iter()
            .find(|t| t.event == event)
            .map(|t| t.target)
            .filter(|target| !self.disabled.contains(target))
    }

    /// Offers a message to frame `depth`: its code first, then a transition of the same name.
    fn offer(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize, msg: &Message) -> bool {
        if self.call(agent, id, depth, |code, cx| code.on_message(cx, msg)) {
            return true;
        }
        let frame = &agent.frames[depth];
        if self.transition_on(frame.state, msg.name).is_some() {
            agent.queue.push_back(Work::Event {
                depth,
                serial: frame.serial,
                event: msg.name,
            });
            return true;
        }
        false
    }

    /// Dispatches a message from another agent top-down until a state handles it.
    fn dispatch_down(&mut self, agent: &mut Agent<G>, id: AgentId, msg: Message) {
        let mut handled = false;
        let mut depth = 0;
        while !handled && depth < agent.frames.len() {
            handled = self.offer(agent, id, depth, &msg);
            depth += 1;
        }
        self.record_message(id, &msg, handled, false);
        self.drain(agent, id);
    }

    fn alive(agent: &Agent<G>, depth: usize, serial: u64) -> bool {
        agent.frames.get(depth).is_some_and(|f| f.serial == serial)
    }

    /// Processes queued work until none is left.
    fn drain(&mut self, agent: &mut Agent<G>, id: AgentId) {
        while let Some(work) = agent.queue.pop_front() {
            if agent.status != AgentStatus::Running {
                agent.queue.clear();
                return;
            }
            match work {
                Work::Event {
                    depth,
                    serial,
                    event,
                } => {
                    if !Self::alive(agent, depth, serial) {
                        continue;
                    }
                    if let Some(target) = self.transition_on(agent.frames[depth].state, event) {
                        self.transition(agent, id, depth, target);
                    }
                }
                Work::Up { from_depth, msg } => {
                    let mut handled = false;
                    let mut depth = from_depth.min(agent.frames.len());
                    while !handled && depth > 0 {
                        depth -= 1;
                        handled = self.offer(agent, id, depth, &msg);
                    }
                    self.record_message(id, &msg, handled, true);
                }
                Work::ChildEnded {
                    depth,
                    serial,
                    failed,
                } => {
                    if !Self::alive(agent, depth, serial) {
                        continue;
                    }
                    self.exit_from(agent, id, depth);
                    let host = depth - 1;
                    if self.call(agent, id, host, |code, cx| code.on_child_ended(cx, failed)) {
                        continue;
                    }
                    let name = if failed {
                        STATE_MACHINE_FAILED
                    } else {
                        END_STATE_MACHINE
                    };
                    let event = self.symbols.intern(self.program, name);
                    match self.transition_on(agent.frames[host].state, event) {
                        Some(target) => self.transition(agent, id, host, target),
                        // A failure nobody handles fails the host's machine too; an end with
                        // no transition leaves the host running, childless.
                        None if failed => self.fail_machine(agent, id, host),
                        None => {}
                    }
                }
                Work::Child {
                    depth,
                    serial,
                    request,
                } => {
                    if !Self::alive(agent, depth, serial) {
                        continue;
                    }
                    self.exit_from(agent, id, depth + 1);
                    let ChildRequest::Start(machine) = request else {
                        continue;
                    };
                    if depth + 1 >= MAX_DEPTH {
                        self.halt(
                            agent,
                            id,
                            format!(
                                "machines nested more than {MAX_DEPTH} deep (a machine that starts itself again?): the agent is stopped"
                            ),
                        );
                        return;
                    }
                    let initial = self.program.machine(machine).initial;
                    self.enter(agent, id, depth + 1, initial);
                }
            }
        }
    }

    /// Stops an agent and says why in the trace.
    fn halt(&mut self, agent: &mut Agent<G>, id: AgentId, reason: String) {
        self.record(
            id,
            EventKind::Error {
                message: reason.clone(),
            },
        );
        agent.status = AgentStatus::Halted(reason);
        agent.queue.clear();
    }

    /// The machine whose current state is at `depth` has failed.
    fn fail_machine(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize) {
        if depth == 0 {
            let (machine, state) = self.state_names(agent.frames[0].state);
            self.exit_from(agent, id, 0);
            self.record(id, EventKind::Fail { machine, state });
            agent.status = AgentStatus::Failed;
        } else {
            agent.queue.push_front(Work::ChildEnded {
                depth,
                serial: agent.frames[depth].serial,
                failed: true,
            });
        }
    }

    fn transition(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize, target: StateId) {
        agent.transitions_this_tick += 1;
        if agent.transitions_this_tick > MAX_TRANSITIONS_PER_TICK {
            let state = agent.frames[depth].state;
            let machine = self.program.machine(self.program.state(state).machine);
            let reason = format!(
                "more than {MAX_TRANSITIONS_PER_TICK} transitions in one tick in machine `{}` (last at state `{}`): the agent is stopped",
                self.program.name(machine.name),
                self.program.name(self.program.state(state).name),
            );
            self.halt(agent, id, reason);
            return;
        }
        self.exit_from(agent, id, depth);
        self.enter(agent, id, depth, target);
    }

    /// Leaves every state at `depth` and below, deepest first.
    fn exit_from(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize) {
        while agent.frames.len() > depth {
            let d = agent.frames.len() - 1;
            self.call(agent, id, d, |code, cx| code.cleanup(cx));
            if self.tracing() {
                let (machine, state) = self.state_names(agent.frames[d].state);
                self.record(
                    id,
                    EventKind::Exit {
                        machine,
                        state,
                        depth: d as u32,
                    },
                );
            }
            agent.frames.pop();
        }
    }

    /// Enters `state` at `depth` (frames above it stay), then its child machine if it hosts one.
    fn enter(&mut self, agent: &mut Agent<G>, id: AgentId, depth: usize, state: StateId) {
        debug_assert_eq!(agent.frames.len(), depth);
        let def = self.program.state(state);
        let serial = *self.next_serial;
        // As the tick count: bounded on restore by [`MAX_COUNT`], saturating, never wrapping.
        *self.next_serial = self.next_serial.saturating_add(1);
        let code = self.links.instantiate(def.code);
        agent.frames.push(Frame {
            state,
            serial,
            code,
        });
        if self.tracing() {
            let (machine, name) = self.state_names(state);
            self.record(
                id,
                EventKind::Enter {
                    machine,
                    state: name,
                    depth: depth as u32,
                },
            );
        }
        self.call(agent, id, depth, |code, cx| code.init(cx));
        match self.program.library[def.code.index()].terminal {
            Terminal::End if depth == 0 => agent.status = AgentStatus::Finished,
            Terminal::Failure if depth == 0 => self.fail_machine(agent, id, 0),
            Terminal::End | Terminal::Failure => agent.queue.push_back(Work::ChildEnded {
                depth,
                serial,
                failed: self.program.library[def.code.index()].terminal == Terminal::Failure,
            }),
            Terminal::No => {
                if let Modifier::Machine(child) = def.modifier {
                    let initial = self.program.machine(child).initial;
                    self.enter(agent, id, depth + 1, initial);
                }
            }
        }
    }
}

/// One active state by the names a mapping goes by: its machine, itself, its library code and
/// the machine its modifier hosts. A reload takes them from the old program, a restore from the
/// snapshot.
pub(super) struct FrameNames<'a> {
    pub machine: &'a str,
    pub state: &'a str,
    pub code: &'a str,
    pub hosts: Option<&'a str>,
}

impl<'a> FrameNames<'a> {
    pub(super) fn of(program: &'a Program, state: StateId) -> Self {
        let s = program.state(state);
        FrameNames {
            machine: program.name(program.machine(s.machine).name),
            state: program.name(s.name),
            code: program.name(program.library[s.code.index()].name),
            hosts: match s.modifier {
                Modifier::Machine(h) => Some(program.name(program.machine(h).name)),
                _ => None,
            },
        }
    }
}

/// Matches a stack of active states (root first), given by names, against `new`.
fn map_frames(new: &Program, frames: &[FrameNames<'_>]) -> AgentMapping {
    let mut m = AgentMapping {
        states: Vec::new(),
        reenter: None,
        restart_root: None,
        note: None,
        child_dropped: false,
        old_hosted: None,
    };
    // What the state above hosts in the new program: a machine named by its modifier, or
    // whatever its code starts at run time (carried by the running machine's name).
    let mut hosted: Option<MachineId> = None;
    let mut dynamic = false;
    let finish = |mut m: AgentMapping| {
        let kept = m.states.len();
        m.child_dropped = frames.len() > kept;
        m.old_hosted = kept
            .checked_sub(1)
            .and_then(|d| frames[d].hosts.map(str::to_string));
        m
    };
    for (depth, frame) in frames.iter().enumerate() {
        // A state the project's migrations renamed carries on under its new name.
        let (machine_name, state_name) = (new.migrations)
            .state(frame.machine, frame.state)
            .unwrap_or((frame.machine, frame.state));
        let machine = if depth == 0 || dynamic {
            new.machine_by_name(machine_name)
        } else {
            hosted.filter(|h| new.name(new.machine(*h).name) == machine_name)
        };
        let Some(machine) = machine else {
            m.note = Some(if depth == 0 {
                format!("machine {machine_name} no longer exists; the agent stops")
            } else if dynamic {
                format!("machine {machine_name} no longer exists; left it")
            } else {
                format!("{machine_name} is no longer hosted here; left it")
            });
            return finish(m);
        };
        let Some(ns) = new.state_by_name(machine, state_name) else {
            m.note = Some(format!(
                "state {machine_name}/{state_name} no longer exists; {machine_name} restarts at its initial state"
            ));
            // Below the root, the kept host re-enters its child's initial state (see `reload`).
            if depth == 0 {
                m.restart_root = Some(machine);
            }
            return finish(m);
        };
        let old_code = frame.code;
        let new_code = new.name(new.library[new.state(ns).code.index()].name);
        if old_code != new_code {
            m.note = Some(format!(
                "state {machine_name}/{state_name} now runs {new_code} instead of {old_code}; entered it afresh"
            ));
            m.reenter = Some(ns);
            return finish(m);
        }
        m.states.push(ns);
        (hosted, dynamic) = match new.state(ns).modifier {
            Modifier::Machine(child) => (Some(child), false),
            _ => (None, true),
        };
    }
    finish(m)
}

/// Where an agent goes on after its mapped frames were kept (`agent.frames`): the state to
/// enter at the depth below them, if any. A root machine that no longer exists halts it.
fn resume_point<G>(program: &Program, agent: &mut Agent<G>, m: &AgentMapping) -> Option<StateId> {
    let depth = agent.frames.len();
    match (m.reenter, m.restart_root) {
        (Some(state), _) => Some(state),
        (None, Some(root)) => Some(program.machine(root).initial),
        (None, None) if depth == 0 => {
            agent.status = AgentStatus::Halted("its root machine no longer exists".into());
            None
        }
        // The deepest kept state hosts a machine: enter it if its child did not carry
        // over or it now hosts a different machine. A host whose child had already
        // ended (and that chose to stay) stays childless.
        (None, None) => match program.state(agent.frames[depth - 1].state).modifier {
            Modifier::Machine(child) => {
                let name = program.name(program.machine(child).name);
                let changed = m.old_hosted.as_deref() != Some(name);
                (m.child_dropped || changed).then(|| program.machine(child).initial)
            }
            _ => None,
        },
    }
}
