//! One object a game drives: a [`Session`] runs one scene of a program in the game's world,
//! with everything that runs beside the agents' machines.
//!
//! ```no_run
//! use ensemble_runtime::session::Session;
//! use ensemble_runtime::{Program, stdlib, world::Greybox};
//! use std::sync::Arc;
//!
//! let program = Arc::new(Program::load("airport.ensb".as_ref())?);
//! let world = Greybox::default(); // your world: any `World`, set up by the session
//! let mut session = Session::start(program, stdlib::library(), "ticket-counter", world, 7)?;
//! // The trace is on (as in C and Bevy): take it each frame, or `set_tracing(false)`.
//! for _frame in 0..600 {
//!     session.tick();
//!     for event in session.take_events() {
//!         println!("{}", event.to_text());
//!     }
//! }
//! let savegame: Vec<u8> = session.save()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A session owns the scene (the agents, their machines and the game's world: [`Scene`]), the
//! smart locations and their interaction scripts ([`Interactions`]), the random streams (every
//! one derived from the seed it was started with) and the scene's identity: the program's
//! project and the scene's name, which its savegames carry and its restores and reloads check.
//! What it does not own is the game's: the world's own state (saved with
//! [`Session::save_with`], restored by the closure [`Session::restore`] takes) and the library
//! of state code.
//!
//! **Invariants** (each checked by the tests below):
//! - *Set up once, through the seam.* Starting a session sets the world up from the program with
//!   calls of [`World`] only, before any agent enters its first state: `standard_mut()` gets the
//!   scene's [`StandardState`], each of the scene's agents (machine agents, then the NPCs smart
//!   locations drive: the scene's [`AgentId`] order) is `place`d at its start location, and each
//!   variable the program gives an agent in this scene is `set_variable`d. A world that starts
//!   empty (`Default`) is therefore right; it never reads the program's tables itself.
//! - *One tick, one order.* [`Session::tick`] runs the machines (`Scene::tick`), then the smart
//!   locations (`Interactions::advance`), then the scene's planning world events
//!   (`stdlib::fire_world_events`): the order `ensemble run` uses, so the same program, scene,
//!   seed and inputs give the same trace.
//! - *A save never lies.* [`Session::save`] writes only what [`Session::restore`] can restore
//!   onto the same program: a state of affairs it cannot carry yet (a script action carried
//!   across a hot reload, still running) is refused with the reason, and nothing is written.
//! - *Identity is checked.* A savegame restores only onto a program of the project it was taken
//!   from (the very build: the next tick is the one after the save; a rebuild: mapped by name,
//!   each loss in the [`RestoreReport`]). A reload of another project's program, or of one
//!   without the session's scene, is refused and the running program goes on.
//! - *Tracing is on by default, and bounded*, as in the C ABI and the Bevy plugin: the trace
//!   starts at tick 0 (the agents' entries into their first states); at most
//!   [`TRACE_BACKLOG`] events wait to be taken, the oldest dropped past it
//!   ([`Session::dropped_events`] counts them), so a game that never reads the trace holds a
//!   bounded amount of it. [`Session::set_tracing`]`(false)` stops recording (and keeps none).

use crate::hsm::{
    AgentId, LinkError, ReloadReport, RestoreReport, Scene, SceneError, StateLibrary,
};
use crate::interactions::Interactions;
use crate::locale::UnknownLocale;
use crate::program::{Program, SceneId};
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use crate::stdlib::{self, StandardState};
use crate::trace::TraceEvent;
use crate::world::World;
use std::sync::Arc;
use thiserror::Error;

pub mod roster;

/// The most trace events a session keeps waiting for [`Session::take_events`] unless told
/// otherwise ([`Session::set_trace_backlog`]): a game that takes them each frame never comes
/// near it (a busy scene records hundreds a second).
pub const TRACE_BACKLOG: usize = 65_536;

/// The section a session saves its own identity into: the scene's name and the seed.
pub const SESSION_SECTION: &str = "session";

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedSession {
    scene: String,
    seed: u64,
}

/// Why a session could not start, save, restore or reload. Each message says what to do.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SessionError {
    /// The program has no scene of that name.
    #[error(
        "the program has no scene `{name}` (its scenes: {available}): start one of those, or \
         load the program built from the project that has it"
    )]
    UnknownScene {
        /// The name asked for.
        name: String,
        /// The program's scenes, comma-separated.
        available: String,
    },
    /// The program does not link against the library the session was given (the error says
    /// which state and how to fix it).
    #[error(transparent)]
    Link(#[from] LinkError),
    /// The locale asked for is not one the program translates into.
    #[error(transparent)]
    Locale(#[from] UnknownLocale),
    /// The session cannot be saved now (nothing was written); save again a frame later.
    #[error("cannot save the session now: {0}; nothing was written, save again a frame later")]
    Save(String),
    /// The savegame cannot be restored onto this program (what is wrong with it, and what to do).
    #[error("cannot restore the savegame: {0}{hint}", hint = restore_hint(.0))]
    Restore(SnapshotError),
    /// The game's `prepare` (of [`Session::start_with`] or [`Session::restore_with`]) refused
    /// the world it was given.
    #[error("the game could not prepare its world: {0}")]
    Prepare(String),
    /// The game's closure could not restore its world from the savegame.
    #[error("cannot restore the game's world from the savegame: {0}")]
    World(String),
    /// A reload was refused (also recorded as a `reload-rejected` trace event); the running
    /// program goes on.
    #[error("the new program was refused, the running one goes on: {0}")]
    Reload(String),
}

/// What to do about a savegame that does not restore, after what is wrong with it.
fn restore_hint(e: &SnapshotError) -> String {
    match e {
        SnapshotError::WrongProgram { snapshot, .. } => {
            format!("; restore it with a build of project `{snapshot}`")
        }
        SnapshotError::MissingSection(section) if section == SESSION_SECTION => {
            "; it was not saved by a session (`Session::save`)".to_string()
        }
        SnapshotError::Io(_) | SnapshotError::Unsupported(_) | SnapshotError::Link(_) => {
            String::new()
        }
        SnapshotError::UnsupportedVersion { .. } => {
            "; restore it with the runtime that wrote it, or start afresh".to_string()
        }
        _ => "; the file is damaged or not this game's savegame: load another, or start afresh"
            .to_string(),
    }
}

impl From<SceneError> for SessionError {
    fn from(e: SceneError) -> Self {
        match e {
            SceneError::UnknownScene { name, available } => {
                SessionError::UnknownScene { name, available }
            }
            SceneError::Link(e) => SessionError::Link(e),
            SceneError::Locale(e) => SessionError::Locale(e),
        }
    }
}

/// One scene of a program running in the game's world `W`: start it, [`tick`](Session::tick)
/// it once a frame, [`save`](Session::save) and [`restore`](Session::restore) it,
/// [`reload`](Session::reload) a rebuilt program into it. See the [module](self) for what it
/// guarantees.
pub struct Session<W> {
    scene: Scene<W>,
    interactions: Interactions,
    /// The scene's name (its id may change with a reload).
    name: String,
    seed: u64,
    /// Whether the host keeps the trace ([`Session::set_tracing`]; on by default).
    tracing: bool,
    /// Trace events dropped, oldest first, past the backlog.
    dropped: u64,
    /// The most events kept waiting ([`TRACE_BACKLOG`] by default).
    backlog: usize,
}

impl<W: World + 'static> Session<W> {
    /// Starts scene `scene` of `program` in `world`, with the state code of `library`
    /// (`stdlib::library()` and the game's own states), its random streams derived from
    /// `seed`. The world is set up through the seam first (see the [module](self)), then every
    /// agent enters its first state.
    pub fn start(
        program: Arc<Program>,
        library: StateLibrary<W>,
        scene: &str,
        world: W,
        seed: u64,
    ) -> Result<Session<W>, SessionError> {
        Self::start_with(program, library, scene, world, seed, None, |_| Ok(()))
    }

    /// [`Session::start`], speaking in `locale` from the first line on (`None`: the source
    /// language), with the game's last word on the world: `prepare` runs after the world is
    /// set up from the program and before any agent enters its first state (a test's
    /// starting variables, a world event moved); its error is [`SessionError::Prepare`].
    pub fn start_with(
        program: Arc<Program>,
        library: StateLibrary<W>,
        scene: &str,
        mut world: W,
        seed: u64,
        locale: Option<&str>,
        prepare: impl FnOnce(&mut W) -> Result<(), String>,
    ) -> Result<Session<W>, SessionError> {
        let id = scene_id(&program, scene)?;
        set_up(&program, id, &mut world);
        prepare(&mut world).map_err(SessionError::Prepare)?;
        let started = Scene::new_traced_in(program.clone(), library, scene, world, seed, locale)?;
        Ok(Session {
            scene: started,
            interactions: Interactions::new(&program, id, seed),
            name: scene.to_string(),
            seed,
            tracing: true,
            dropped: 0,
            backlog: TRACE_BACKLOG,
        })
    }

    /// Advances the scene by one tick of its own time (`1 / tick_rate` seconds): the machines,
    /// the smart locations, the planning world events, in that order.
    pub fn tick(&mut self) {
        self.tick_with(|_, _| {});
    }

    /// [`Session::tick`] with the game's own step of the frame between the machines and the
    /// smart locations — its world's own events, what the player did at a smart location
    /// (`interactions.interact`, `player_input`) — so the scripts hear of it in the same
    /// tick, as `ensemble run` and the content tests order it.
    pub fn tick_with(&mut self, between: impl FnOnce(&mut Scene<W>, &mut Interactions)) {
        self.scene.tick();
        between(&mut self.scene, &mut self.interactions);
        self.interactions.advance(&mut self.scene);
        stdlib::fire_world_events(&mut self.scene);
        if self.scene.events_waiting() > self.backlog {
            // Down to half the backlog at once: dropping is then rare, not a shift every tick.
            self.dropped += self.scene.discard_oldest_events(self.backlog / 2) as u64;
        }
    }

    /// Trace events dropped (oldest first) because more than the backlog waited to be taken.
    pub fn dropped_events(&self) -> u64 {
        self.dropped
    }

    /// Keeps at most `events` trace events waiting to be taken ([`TRACE_BACKLOG`] by default);
    /// past it, the oldest half are dropped at the end of a tick.
    pub fn set_trace_backlog(&mut self, events: usize) {
        self.backlog = events.max(1);
    }

    /// Records the trace (on, the default) or stops (off, dropping what was not taken). A
    /// session starts and restores with it on: its trace starts at tick 0 (the agents'
    /// entries into their first states), or with the states a restore entered afresh.
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
        self.scene.set_tracing(on);
    }

    /// Speaks every line from now on in `locale` (`None`: the source language); lines
    /// already said keep their words.
    pub fn set_locale(&mut self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        self.scene.set_locale(locale)
    }

    /// Whether the trace is kept for [`Session::take_events`].
    pub fn is_tracing(&self) -> bool {
        self.tracing
    }

    /// The trace events recorded since the last call, oldest first (none while tracing is off).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        if !self.tracing {
            return Vec::new();
        }
        self.scene.take_events()
    }

    /// The game's world, as the runtime left it after the last tick.
    pub fn world(&self) -> &W {
        &self.scene.game
    }

    /// The game's world, to change between ticks (the runtime sees the change next tick).
    pub fn world_mut(&mut self) -> &mut W {
        &mut self.scene.game
    }

    /// The scene: its agents, their names, statuses and active states, messages to send.
    pub fn scene(&self) -> &Scene<W> {
        &self.scene
    }

    /// The scene and its smart locations, for what the game does to them directly (send a
    /// message, `interactions.interact(scene, "hearth")`, player input).
    pub fn parts_mut(&mut self) -> (&mut Scene<W>, &mut Interactions) {
        (&mut self.scene, &mut self.interactions)
    }

    /// The smart locations and their running scripts.
    pub fn interactions(&self) -> &Interactions {
        &self.interactions
    }

    /// The program running (the new one after a reload).
    pub fn program(&self) -> &Arc<Program> {
        self.scene.program()
    }

    /// The scene's name.
    pub fn scene_name(&self) -> &str {
        &self.name
    }

    /// The seed the random streams derive from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The agent of the scene called `name`, if there is one.
    pub fn agent(&self, name: &str) -> Option<AgentId> {
        self.scene
            .agents()
            .find(|&a| self.scene.agent_name(a) == name)
    }

    /// Seconds of scene time so far.
    pub fn now(&self) -> f64 {
        self.scene.now()
    }

    /// Why [`Session::save`] would refuse now, if it would.
    pub fn unsaved_parts(&self) -> Option<String> {
        self.interactions
            .has_carried_actions()
            .then(|| crate::interactions::CARRIED_ACTION.to_string())
    }

    /// A savegame of the session between two frames, as bytes to keep: the scene, the standard
    /// library's state, the smart locations and the session's identity. A world that keeps
    /// state of its own (positions, requests under way) saves it with [`Session::save_with`].
    /// Refused, with nothing written, when [`Session::unsaved_parts`] names something.
    pub fn save(&self) -> Result<Vec<u8>, SessionError> {
        self.save_with(|_, _| {})
    }

    /// [`Session::save`], with the game's world adding its own sections
    /// ([`SnapshotWriter::put`], under names of the game's, e.g. `"mygame.world"`).
    pub fn save_with(
        &self,
        world: impl FnOnce(&W, &mut SnapshotWriter),
    ) -> Result<Vec<u8>, SessionError> {
        let program = self.scene.program();
        let mut snapshot = SnapshotWriter::new(program, &program.project);
        self.save_into(&mut snapshot, world)?;
        Ok(snapshot.to_bytes())
    }

    /// [`Session::save_with`] into a snapshot the host made (a tool's own program name in
    /// it, more sections of its own beside); nothing is written when it is refused.
    pub fn save_into(
        &self,
        snapshot: &mut SnapshotWriter,
        world: impl FnOnce(&W, &mut SnapshotWriter),
    ) -> Result<(), SessionError> {
        if let Some(why) = self.unsaved_parts() {
            return Err(SessionError::Save(why));
        }
        let program = self.scene.program();
        let id = scene_id(program, &self.name).map_err(|e| SessionError::Save(e.to_string()))?;
        // Written apart and put in whole: a refusal leaves the host's snapshot as it was.
        let mut own = SnapshotWriter::new(program, "");
        self.scene.save(&mut own);
        self.scene.game.standard().save(&mut own);
        (self.interactions)
            .save(program, id, &mut own)
            .map_err(|e| SessionError::Save(e.to_string()))?;
        own.put(
            SESSION_SECTION,
            &SavedSession {
                scene: self.name.clone(),
                seed: self.seed,
            },
        );
        world(&self.scene.game, &mut own);
        snapshot.extend(own);
        Ok(())
    }

    /// Restores a savegame made by [`Session::save`] onto `program` with the game's `library`;
    /// `world` builds the game's world from the snapshot (its own sections:
    /// `|_| Ok(MyWorld::default())` for a world that saves none). The session's own parts come
    /// back into it: the standard library's state, then the scene, then the smart locations.
    ///
    /// Onto the very build it was saved from, the session goes on as the uninterrupted one
    /// would: the next tick is the one after the save. Onto a rebuild of the same project,
    /// states are mapped by name and the [`RestoreReport`] lists what fell back (and the scene's
    /// new tick rate). Tracing is on, as after [`Session::start`].
    pub fn restore(
        program: Arc<Program>,
        library: StateLibrary<W>,
        bytes: &[u8],
        world: impl FnOnce(&SnapshotReader) -> Result<W, String>,
    ) -> Result<(Session<W>, RestoreReport), SessionError> {
        let snapshot = SnapshotReader::from_bytes(bytes).map_err(SessionError::Restore)?;
        snapshot
            .check_program(&program, &program.project)
            .map_err(SessionError::Restore)?;
        Self::restore_with(program, library, &snapshot, world, |_| Ok(()))
    }

    /// [`Session::restore`] from a snapshot the host has read and checked (its own sections
    /// beside, the program's name in it the host's: [`SnapshotReader::check_program`]), with
    /// the game's last word on the world: `prepare` runs once the world and the standard
    /// library's state are back and before the scene's agents are restored (a test's world
    /// event moved again); its error is [`SessionError::Prepare`].
    pub fn restore_with(
        program: Arc<Program>,
        library: StateLibrary<W>,
        snapshot: &SnapshotReader,
        world: impl FnOnce(&SnapshotReader) -> Result<W, String>,
        prepare: impl FnOnce(&mut W) -> Result<(), String>,
    ) -> Result<(Session<W>, RestoreReport), SessionError> {
        let saved: SavedSession = snapshot
            .get(SESSION_SECTION)
            .map_err(SessionError::Restore)?;
        Self::restore_as(
            program,
            library,
            snapshot,
            (saved.scene, saved.seed),
            world,
            prepare,
        )
    }

    /// [`Session::restore_with`] of a snapshot whose identity — the scene's name and the seed
    /// — the host read from a section of its own (a savegame written before sessions saved
    /// theirs).
    pub fn restore_as(
        program: Arc<Program>,
        library: StateLibrary<W>,
        snapshot: &SnapshotReader,
        (scene, seed): (String, u64),
        world: impl FnOnce(&SnapshotReader) -> Result<W, String>,
        prepare: impl FnOnce(&mut W) -> Result<(), String>,
    ) -> Result<(Session<W>, RestoreReport), SessionError> {
        let saved = SavedSession { scene, seed };
        let id = scene_id(&program, &saved.scene).map_err(|_| {
            SessionError::Restore(SnapshotError::Unsupported(format!(
                "the program has no scene `{}` any more: restore it onto a build that has it, \
                 or start a scene afresh",
                saved.scene
            )))
        })?;
        let mut world = world(snapshot).map_err(SessionError::World)?;
        // Before the scene: a `Plan` state entered afresh as the scene is restored plans in it.
        let (standard, planning_note) =
            StandardState::restore(&program, id, snapshot).map_err(SessionError::Restore)?;
        *world.standard_mut() = standard;
        prepare(&mut world).map_err(SessionError::Prepare)?;
        let (mut scene, mut report) =
            Scene::restore_traced(program.clone(), library, world, snapshot)
                .map_err(SessionError::Restore)?;
        report.fallbacks.extend(planning_note);
        // A patched program's tick rate holds from here on, the scene's time kept.
        report
            .fallbacks
            .extend(scene.set_tick_rate(program.scenes[id.index()].tick_rate));
        let agents = scene.agents().count();
        (scene.game.standard())
            .check_agents(agents)
            .map_err(SessionError::Restore)?;
        report.roster = roster::patch(&program, id, &mut scene).map_err(SessionError::Restore)?;
        let agents = scene.agents().count();
        let own = scene.roster().unwrap_or_default().to_vec();
        let (interactions, note) =
            Interactions::restore(&program, id, saved.seed, snapshot, agents, &own)
                .map_err(SessionError::Restore)?;
        report.fallbacks.extend(note);
        let session = Session {
            scene,
            interactions,
            name: saved.scene,
            seed: saved.seed,
            tracing: true,
            dropped: 0,
            backlog: TRACE_BACKLOG,
        };
        Ok((session, report))
    }

    /// Hot reload: runs `program` (a rebuild of the running project) from now on, carrying live
    /// state across by name — each agent's active states, running script instances with their
    /// tuple spaces, planning agents' plans. The report (also a `reload` trace event) says what
    /// carried over and what fell back. A program of another project, without the session's
    /// scene or that does not link is refused (`reload-rejected` in the trace) and the running
    /// one goes on.
    pub fn reload(&mut self, program: Arc<Program>) -> Result<ReloadReport, SessionError> {
        self.reload_because(program, "reloaded by the game")
    }

    /// [`Session::reload`], giving the `reload` trace event's reason (`"sources changed"`,
    /// `"pushed by a tool"`).
    pub fn reload_because(
        &mut self,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<ReloadReport, SessionError> {
        // Another project's program is refused as such by the scene (`LinkError::OtherProject`).
        let running = &self.scene.program().project;
        let same_project =
            program.project.is_empty() || running.is_empty() || program.project == *running;
        if same_project && program.scene_by_name(&self.name).is_none() {
            let why = format!(
                "it has no scene `{}` (its scenes: {}): reload a rebuild of the running project",
                self.name,
                program.scene_names().collect::<Vec<_>>().join(", ")
            );
            self.scene.reject_reload(why.clone());
            return Err(SessionError::Reload(why));
        }
        (self.interactions)
            .reload(&mut self.scene, program, reason)
            .map_err(|e| SessionError::Reload(e.to_string()))
    }

    /// Records that a new program was refused before it got here (it did not build or load);
    /// the running one goes on.
    pub fn reject_reload(&mut self, reason: impl Into<String>) {
        self.scene.reject_reload(reason);
    }
}

/// The id of scene `name` in `program`, or the error that lists its scenes.
fn scene_id(program: &Program, name: &str) -> Result<SceneId, SessionError> {
    program
        .scene_by_name(name)
        .ok_or_else(|| SessionError::UnknownScene {
            name: name.to_string(),
            available: program.scene_names().collect::<Vec<_>>().join(", "),
        })
}

/// Sets `world` up for scene `id` of `program` as it starts, through the seam only: the
/// standard library's state for the scene, every agent of the scene at its start location
/// (machine agents, then the NPCs smart locations drive), the variables the program gives them.
pub fn set_up<W: World>(program: &Program, id: SceneId, world: &mut W) {
    let def = &program.scenes[id.index()];
    *world.standard_mut() = StandardState::for_scene(program, id);
    let starts = (def.agents.iter().map(|a| a.start)).chain(def.ambient.iter().map(|a| a.start));
    for (i, start) in starts.enumerate() {
        if let Some(l) = program.locations.get(start.index()) {
            world.place(AgentId(i as u32), [l.x, l.y]);
        }
    }
    for b in program.speech.bindings.iter().filter(|b| b.scene == id) {
        world.set_variable(AgentId(b.agent), program.name(b.variable), &b.value);
    }
}

#[cfg(test)]
mod tests;
