//! Scenes: start one on the simulated world or on the host's world, tick it, read its trace,
//! send messages, hot-reload, save and restore.

use crate::handles::{self, EnsLibrary, EnsProgram, EnsScene, Object, SceneSlot};
use crate::library::HostLibrary;
use crate::status::{
    EnsStatus, Failure, Outcome, bytes_arg, give_bytes, give_string, out_arg, run, text_arg,
};
use crate::world::{Callbacks, EnsWorldCallbacks, HostWorld};
use ensemble_runtime::Program;
use ensemble_runtime::hsm::{AgentId, RestoreReport, RosterChange, Scene};
use ensemble_runtime::session::{Session, SessionError};
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_runtime::stdlib::StandardState;
use ensemble_runtime::trace::TraceEvent;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{self, SceneKind};
use std::collections::VecDeque;
use std::ffi::c_char;
use std::sync::Arc;

/// The section that marks a snapshot as a host-world scene's, with its scene and seed (the
/// session's own section, `session`, holds the same).
const HOST_SECTION: &str = "capi.host";

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedHost {
    scene: String,
    seed: u64,
}

/// A scene handle's object, with the name snapshots record its program under.
pub(crate) struct RunningScene {
    running: Running,
    program_name: String,
    /// Events recorded and not yet taken, the latest [`HOST_BACKLOG`] of them.
    backlog: VecDeque<TraceEvent>,
    /// The trace as two readers take it once an inspector serves the scene: the host and the
    /// inspector each get every event once, whichever takes first.
    #[cfg(feature = "inspect")]
    readers: Option<TraceReaders>,
    /// What the restore that made the scene did (`ens_scene_restore_report`), JSON lines.
    restored: String,
    /// Whether the host keeps the trace (`ens_scene_set_tracing`; on by default, as in Rust
    /// and Bevy).
    tracing: bool,
}

/// The most trace events a scene keeps for a host that has not taken them: a host that never
/// calls `ens_scene_take_trace_json` must not make its scenes grow without end (a scene records
/// events whether or not anyone reads them); past this, the oldest go.
const HOST_BACKLOG: usize = if cfg!(test) {
    100
} else {
    ensemble_runtime::session::TRACE_BACKLOG
};

/// The most events kept for an inspector that has not framed the scene since the host took them.
#[cfg(feature = "inspect")]
const INSPECTOR_BACKLOG: usize = 1 << 16;

/// Events one of the scene's two trace readers has taken and the other has not yet.
#[cfg(feature = "inspect")]
struct TraceReaders {
    /// The inspector's handle id: once it is freed, the readers go.
    by: u64,
    /// Waiting for the host's `ens_scene_take_trace_json`.
    host: Vec<TraceEvent>,
    /// Waiting for the inspector's next frame.
    inspector: Vec<TraceEvent>,
}

enum Running {
    /// The standard simulated world, as `ensemble run` runs it.
    Simulated(Simulation),
    /// The host's world: a session (the scene, its smart locations, the host's world).
    Host(Box<Session<HostWorld>>),
}

impl RunningScene {
    /// The game's states the simulated world stands in for, one note a line; none on the
    /// host's world, which runs the host's own states.
    fn stand_in_notes(&self) -> String {
        match &self.running {
            Running::Simulated(sim) => sim.stand_ins().iter().map(|s| format!("{s}\n")).collect(),
            Running::Host(_) => String::new(),
        }
    }

    fn program(&self) -> &Arc<Program> {
        match &self.running {
            Running::Simulated(sim) => sim.program(),
            Running::Host(h) => h.program(),
        }
    }

    fn tick(&mut self) {
        match &mut self.running {
            Running::Simulated(sim) => sim.tick(),
            // The order of `ensemble run` and docs/embedding.md: machines, smart locations,
            // the scene's planning world events.
            Running::Host(h) => h.tick(),
        }
        let new = self.take_from_scene();
        if !self.tracing {
            return;
        }
        self.backlog.extend(new);
        let over = self.backlog.len().saturating_sub(HOST_BACKLOG);
        self.backlog.drain(..over);
    }

    fn take_events(&mut self) -> Vec<TraceEvent> {
        let new = self.take_recorded();
        if !self.tracing {
            return Vec::new();
        }
        #[cfg(feature = "inspect")]
        if let Some(readers) = self
            .readers
            .take_if(|r| !handles::is_live(r.by, "inspector"))
        {
            // Its inspector was freed: the host is the only reader again.
            let mut all = readers.host;
            all.extend(new);
            return all;
        }
        #[cfg(feature = "inspect")]
        if let Some(readers) = &mut self.readers {
            readers.inspector.extend(new.iter().cloned());
            // An inspector no longer framed must not make the scene grow: it keeps the latest
            // events only.
            let over = readers.inspector.len().saturating_sub(INSPECTOR_BACKLOG);
            readers.inspector.drain(..over);
            let mut all = std::mem::take(&mut readers.host);
            all.extend(new);
            return all;
        }
        new
    }

    /// The events recorded since they were last taken (the latest [`HOST_BACKLOG`] of those
    /// recorded by ticks).
    fn take_recorded(&mut self) -> Vec<TraceEvent> {
        let mut all: Vec<TraceEvent> = self.backlog.drain(..).collect();
        all.extend(self.take_from_scene());
        all
    }

    fn take_from_scene(&mut self) -> Vec<TraceEvent> {
        match &mut self.running {
            Running::Simulated(sim) => sim.take_events(),
            Running::Host(h) => h.take_events(),
        }
    }

    /// One frame of `inspector` over the scene, with the events recorded since its last frame
    /// (the host's `ens_scene_take_trace_json` still gets them).
    #[cfg(feature = "inspect")]
    pub(crate) fn inspect(
        &mut self,
        by: u64,
        inspector: &mut ensemble_runtime::inspect::Inspector,
    ) -> ensemble_runtime::inspect::Flow {
        let new = self.take_recorded();
        let readers = self.readers.get_or_insert_with(|| TraceReaders {
            by,
            host: Vec::new(),
            inspector: Vec::new(),
        });
        readers.by = by;
        if self.tracing {
            readers.host.extend(new.iter().cloned());
        }
        let over = readers.host.len().saturating_sub(HOST_BACKLOG);
        readers.host.drain(..over);
        readers.inspector.extend(new);
        let events = std::mem::take(&mut readers.inspector);
        let program_name = self.program_name.as_str();
        match &mut self.running {
            Running::Simulated(sim) => {
                let mut game = ensemble_sim::inspect::InspectedSimulation { sim, program_name };
                inspector.frame(&mut game, &events)
            }
            Running::Host(h) => {
                let scene_name = h.scene_name().to_string();
                let (scene, interactions) = h.parts_mut();
                let mut game = ensemble_runtime::inspect::InspectedScene {
                    program_name,
                    scene_name: &scene_name,
                    scene,
                    interactions,
                };
                inspector.frame(&mut game, &events)
            }
        }
    }

    /// What `f` makes of the machine scene (a conversation scene has none).
    fn with_machines<T>(&mut self, f: impl MachineScene<T>) -> Outcome<T> {
        match &mut self.running {
            Running::Simulated(sim) => match sim.scene_mut() {
                Some((scene, _)) => f.run(scene),
                None => Err(Failure::new(
                    EnsStatus::Unsupported,
                    format!(
                        "`{}` is a conversation scene: it has no machine agents",
                        sim.name()
                    ),
                )),
            },
            Running::Host(h) => f.run(h.parts_mut().0),
        }
    }
}

/// Something done to a machine scene of either world.
trait MachineScene<T> {
    fn run<W: ensemble_runtime::world::World + 'static>(self, scene: &mut Scene<W>) -> Outcome<T>;
}

/// `agent` of `scene`, checked.
fn agent_of<W: 'static>(scene: &Scene<W>, agent: u32, what: &str) -> Outcome<AgentId> {
    let count = scene.agents().count();
    if (agent as usize) < count {
        Ok(AgentId(agent))
    } else {
        Err(Failure::new(
            EnsStatus::InvalidArgument,
            format!("{what} {agent} is not an agent of the scene (it has {count})"),
        ))
    }
}

struct AgentCount;
impl MachineScene<u32> for AgentCount {
    fn run<W: ensemble_runtime::world::World + 'static>(
        self,
        scene: &mut Scene<W>,
    ) -> Outcome<u32> {
        Ok(scene.agents().count() as u32)
    }
}

struct AgentName(u32);
impl MachineScene<String> for AgentName {
    fn run<W: ensemble_runtime::world::World + 'static>(
        self,
        scene: &mut Scene<W>,
    ) -> Outcome<String> {
        let id = agent_of(scene, self.0, "agent")?;
        Ok(scene.agent_name(id).to_string())
    }
}

struct ActiveStates(u32);
impl MachineScene<String> for ActiveStates {
    fn run<W: ensemble_runtime::world::World + 'static>(
        self,
        scene: &mut Scene<W>,
    ) -> Outcome<String> {
        let id = agent_of(scene, self.0, "agent")?;
        let program = scene.program().clone();
        let names: Vec<&str> = scene
            .active_states(id)
            .iter()
            .map(|s| program.name(program.state(*s).name))
            .collect();
        Ok(names.join(" > "))
    }
}

struct SendMessage<'a> {
    to: u32,
    from: u32,
    name: &'a str,
}
impl MachineScene<()> for SendMessage<'_> {
    fn run<W: ensemble_runtime::world::World + 'static>(self, scene: &mut Scene<W>) -> Outcome {
        let to = agent_of(scene, self.to, "receiver")?;
        let from = agent_of(scene, self.from, "sender")?;
        scene.send(to, from, self.name);
        Ok(())
    }
}

fn insert_scene(running: Running, program_name: String) -> EnsScene {
    insert_restored(running, program_name, &RestoreReport::default())
}

/// [`insert_scene`] for a scene a restore made, keeping what the restore did.
fn insert_restored(running: Running, program_name: String, report: &RestoreReport) -> EnsScene {
    let mut restored = String::new();
    for change in &report.roster {
        let (change, agent, name, to) = match change {
            RosterChange::Added { name, agent } => ("added", agent, name, None),
            RosterChange::Removed { name, agent } => ("removed", agent, name, None),
            RosterChange::Renamed { from, to, agent } => ("renamed", agent, from, Some(to)),
        };
        let mut line = serde_json::json!({"change": change, "agent": agent.0, "name": name});
        if let Some(to) = to {
            line["to"] = serde_json::json!(to);
        }
        restored.push_str(&format!("{line}\n"));
    }
    for fallback in &report.fallbacks {
        let line = serde_json::json!({"change": "fallback", "what": fallback});
        restored.push_str(&format!("{line}\n"));
    }
    let scene = RunningScene {
        running,
        program_name,
        backlog: VecDeque::new(),
        #[cfg(feature = "inspect")]
        readers: None,
        restored,
        tracing: true,
    };
    EnsScene {
        id: handles::insert(Object::Scene(SceneSlot::Here(Box::new(scene)))),
    }
}

fn scene_error(e: SessionError) -> Failure {
    Failure::new(EnsStatus::Scene, e.to_string())
}

/// Starts scene `name` of `program` on the standard simulated world — the world `ensemble run`
/// and the editor's preview use, with the standard library — seeded with `seed`: its agents
/// enter their initial states (tick 0, recorded in the trace). A conversation scene of that
/// name runs too (the player speaks with `ens_scene_player_says`).
///
/// The program's game states (declared in its `*.statelib.ron`, their code the game's) are
/// stood in: each waits its declared time and raises one of its declared events
/// (`ens_scene_stand_ins` says which, once, for the host to show).
///
/// `*out` is a new handle the host frees with `ens_scene_free`. An unknown scene (the message
/// lists the program's scenes) or a program that does not link is `ENS_STATUS_SCENE`.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_start_simulated(
    program: EnsProgram,
    name: *const c_char,
    seed: u64,
    out: *mut EnsScene,
) -> EnsStatus {
    run("ens_scene_start_simulated", || {
        // SAFETY: as the caller promises.
        let (name, out) = unsafe { (text_arg(name, "name")?, out_arg(out, "out")?) };
        let loaded = handles::program(program.id)?;
        let sim = Simulation::start(
            loaded.program.clone(),
            name,
            seed,
            &simulation::Options::default(),
        )
        .map_err(|e| {
            Failure::new(
                EnsStatus::Scene,
                format!("cannot start scene `{name}`: {e}"),
            )
        })?;
        *out = insert_scene(Running::Simulated(sim), loaded.name.clone());
        Ok(())
    })
}

/// Starts scene `name` of `program` in the host's world: its seam is `world`'s callbacks and
/// its states are `library`'s (the standard ones and the host's), seeded with `seed`.
///
/// Before the agents enter their initial states, the world is set up as the simulated one
/// is: `place` for each of the scene's agents at its start location, and `set_variable` for
/// each variable the program gives them in this scene. The callbacks table is copied;
/// `world->user_data` is kept and must stay valid until the scene is freed. The host promises
/// that its callbacks may run on whichever thread it calls the API from.
///
/// `*out` is a new handle the host frees with `ens_scene_free`. A missing callback is
/// `ENS_STATUS_NULL_ARGUMENT`; an unknown scene or a library state the program needs that the
/// library lacks or declares otherwise is `ENS_STATUS_SCENE`, naming it.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `world` is NULL or valid; `out` is NULL or
/// valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_start(
    program: EnsProgram,
    library: EnsLibrary,
    name: *const c_char,
    seed: u64,
    world: *const EnsWorldCallbacks,
    out: *mut EnsScene,
) -> EnsStatus {
    run("ens_scene_start", || {
        // SAFETY: as the caller promises.
        let (name, world, out) = unsafe {
            (
                text_arg(name, "name")?,
                world
                    .as_ref()
                    .ok_or_else(|| Failure::new(EnsStatus::NullArgument, "`world` is NULL"))?,
                out_arg(out, "out")?,
            )
        };
        let loaded = handles::program(program.id)?;
        let library = handles::with_library(library.id, |l| Ok(l.clone()))?;
        let callbacks = Callbacks::check(world)?;
        let program = loaded.program.clone();
        // The session sets the host's world up through its callbacks (`place`, `set_variable`).
        let world = HostWorld::new(callbacks, StandardState::default());
        let session = Session::start(program, library.state_library(), name, world, seed)
            .map_err(scene_error)?;
        *out = insert_scene(Running::Host(Box::new(session)), loaded.name.clone());
        Ok(())
    })
}

/// Advances the scene by one tick of its scene time (`1 / tick_rate` seconds): the machines,
/// the smart locations, the planning world events — the order `ensemble run` uses, so the
/// same program, scene and seed give the same trace. The host world's callbacks run inside.
#[unsafe(no_mangle)]
pub extern "C" fn ens_scene_tick(scene: EnsScene) -> EnsStatus {
    run("ens_scene_tick", || {
        handles::with_scene(scene.id, |s| {
            s.tick();
            Ok(())
        })
    })
}

/// The ticks run so far (`*out_ticks`) and the scene's time in seconds (`*out_now`); either
/// pointer may be NULL.
///
/// # Safety
/// Each pointer is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_clock(
    scene: EnsScene,
    out_ticks: *mut u64,
    out_now: *mut f64,
) -> EnsStatus {
    run("ens_scene_clock", || {
        let (ticks, now) = handles::with_scene(scene.id, |s| {
            Ok(match &s.running {
                Running::Simulated(sim) => (sim.tick_count(), sim.now()),
                Running::Host(h) => (h.scene().tick_count(), h.now()),
            })
        })?;
        // SAFETY: as the caller promises.
        unsafe {
            if let Some(o) = out_ticks.as_mut() {
                *o = ticks;
            }
            if let Some(o) = out_now.as_mut() {
                *o = now;
            }
        }
        Ok(())
    })
}

/// Takes the trace events recorded since the last call as JSON lines — each event one line
/// ending in `\n`, exactly as `ensemble run --trace json` prints them (docs/formats/trace.md)
/// — into `*out`, a NUL-terminated string the host frees with `ens_string_free` (an empty
/// string when nothing happened). The first call after starting gives tick 0's events. A
/// scene keeps at most the latest 65,536 events for this call, so a host that never reads its
/// trace does not make the scene grow.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_take_trace_json(
    scene: EnsScene,
    out: *mut *mut c_char,
) -> EnsStatus {
    run("ens_scene_take_trace_json", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let events = handles::with_scene(scene.id, |s| Ok(s.take_events()))?;
        let mut text = String::new();
        for e in events {
            text.push_str(&e.to_json());
            text.push('\n');
        }
        *out = give_string(&text);
        Ok(())
    })
}

/// Keeps the trace (`on` true, the default: every scene starts and restores with it on,
/// from tick 0) or stops keeping it (`on` false: `ens_scene_take_trace_json` gives nothing and
/// what was waiting is dropped). On the host's world the scene then records nothing at all, an
/// attached inspector's timeline included; the simulated world goes on recording for its own
/// views and drops the events each tick. The same switch as `Session::set_tracing` in Rust.
#[unsafe(no_mangle)]
pub extern "C" fn ens_scene_set_tracing(scene: EnsScene, on: bool) -> EnsStatus {
    run("ens_scene_set_tracing", || {
        handles::with_scene(scene.id, |s| {
            s.tracing = on;
            if !s.tracing {
                s.backlog.clear();
                drop(s.take_from_scene());
                // What an inspector's reading kept for the host goes too.
                #[cfg(feature = "inspect")]
                if let Some(readers) = &mut s.readers {
                    readers.host.clear();
                }
            }
            if let Running::Host(h) = &mut s.running {
                h.set_tracing(on);
            }
            Ok(())
        })
    })
}

/// What the simulated world stands in for: a scene started or restored with
/// `ens_scene_start_simulated` / `ens_scene_restore_simulated` runs the program's game states
/// (those of its `*.statelib.ron`) without their code, each waiting its declared time (1 s by
/// default) and raising one of its declared events. `*out` gets one note a line ("`Hammer` is
/// the game's; standing it in: 1 s, then raises `Done`"), an empty string when nothing is
/// stood in (always for a scene on the host's world: it runs the host's states or none). The
/// host frees it with `ens_string_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_stand_ins(scene: EnsScene, out: *mut *mut c_char) -> EnsStatus {
    run("ens_scene_stand_ins", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let notes = handles::with_scene(scene.id, |s| Ok(s.stand_in_notes()))?;
        *out = give_string(&notes);
        Ok(())
    })
}

/// How many agents the scene has (its machine agents, then its ambient NPCs, then those the
/// runtime created): agent ids are `0 .. *out - 1`. A conversation scene has none
/// (`ENS_STATUS_UNSUPPORTED`).
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_agent_count(scene: EnsScene, out: *mut u32) -> EnsStatus {
    run("ens_scene_agent_count", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        *out = handles::with_scene(scene.id, |s| s.with_machines(AgentCount))?;
        Ok(())
    })
}

/// The name of `agent` into `*out`, a string the host frees with `ens_string_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_agent_name(
    scene: EnsScene,
    agent: u32,
    out: *mut *mut c_char,
) -> EnsStatus {
    run("ens_scene_agent_name", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let name = handles::with_scene(scene.id, |s| s.with_machines(AgentName(agent)))?;
        *out = give_string(&name);
        Ok(())
    })
}

/// `agent`'s active states from its top machine down, joined by `" > "` (`Main > Queue >
/// Goto1`; empty for an agent without a machine), into `*out`, a string the host frees with
/// `ens_string_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_active_states(
    scene: EnsScene,
    agent: u32,
    out: *mut *mut c_char,
) -> EnsStatus {
    run("ens_scene_active_states", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let states = handles::with_scene(scene.id, |s| s.with_machines(ActiveStates(agent)))?;
        *out = give_string(&states);
        Ok(())
    })
}

/// Sends message `name` to agent `to` from agent `from` (the game speaking for someone, or
/// the receiver itself); delivered at the start of the next tick.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_send(
    scene: EnsScene,
    to: u32,
    from: u32,
    name: *const c_char,
) -> EnsStatus {
    run("ens_scene_send", || {
        // SAFETY: as the caller promises.
        let name = unsafe { text_arg(name, "name")? };
        handles::with_scene(scene.id, |s| {
            s.with_machines(SendMessage { to, from, name })
        })
    })
}

/// Conversation scenes of the simulated world: the player says `line` (`/nods` is an emote,
/// an empty line silence), heard at the next tick. Other scenes: `ENS_STATUS_UNSUPPORTED`.
///
/// # Safety
/// `line` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_player_says(scene: EnsScene, line: *const c_char) -> EnsStatus {
    run("ens_scene_player_says", || {
        // SAFETY: as the caller promises.
        let line = unsafe { text_arg(line, "line")? };
        handles::with_scene(scene.id, |s| match &mut s.running {
            Running::Simulated(sim) if sim.kind() == SceneKind::Chat => {
                sim.say(line);
                Ok(())
            }
            _ => Err(Failure::new(
                EnsStatus::Unsupported,
                "only a conversation scene hears the player (send machine agents messages)",
            )),
        })
    })
}

/// Hot reload: replaces the scene's program with `program` (a rebuild of the project),
/// carrying live state across by name — every agent's active states, running script
/// instances, plans — and records a `reload` trace event saying what carried over and what
/// fell back. `reason` (NULL: "reloaded by the host") goes into that event. A program the
/// scene cannot run (a state it needs is missing) is refused: `ENS_STATUS_RELOAD`, recorded
/// as `reload-rejected`, and the old program goes on. On the simulated world, the game's own
/// states of a rebuild that still has the scene are stood in (`ens_scene_stand_ins`). The scene keeps its own reference to
/// the new program; the handle stays the host's.
///
/// # Safety
/// `reason` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_reload(
    scene: EnsScene,
    program: EnsProgram,
    reason: *const c_char,
) -> EnsStatus {
    run("ens_scene_reload", || {
        // SAFETY: as the caller promises.
        let reason = unsafe { crate::status::optional_text_arg(reason, "reason")? }
            .unwrap_or("reloaded by the host");
        let new = handles::program(program.id)?.program.clone();
        let refused = |e: String| {
            Failure::new(
                EnsStatus::Reload,
                format!("the new program was refused: {e}"),
            )
        };
        handles::with_scene(scene.id, |s| match &mut s.running {
            Running::Simulated(sim) => sim
                .reload(new, reason)
                .map(drop)
                .map_err(|e| refused(e.to_string())),
            Running::Host(h) => h
                .reload_because(new, reason)
                .map(drop)
                .map_err(|e| refused(e.to_string())),
        })
    })
}

/// Saves the scene (between two ticks) as a snapshot: bytes the host writes where it keeps
/// savegames. `*out` and `*out_len` receive a buffer the host frees with
/// `ens_bytes_free(*out, *out_len)`.
///
/// A simulated scene saves everything (`ensemble run --restore` reads the same bytes). A scene
/// in the host's world saves the scene, the standard library's state and the smart locations;
/// what the host's world holds (positions, moves and actions under way) is the host's to save
/// beside it; host states' visit data goes through their `save` callbacks. A part that cannot be saved yet is
/// `ENS_STATUS_SNAPSHOT` with what it is.
///
/// # Safety
/// `out` and `out_len` are NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_save(
    scene: EnsScene,
    out: *mut *mut u8,
    out_len: *mut usize,
) -> EnsStatus {
    run("ens_scene_save", || {
        // SAFETY: as the caller promises.
        let (out, out_len) = unsafe { (out_arg(out, "out")?, out_arg(out_len, "out_len")?) };
        let cannot =
            |e: String| Failure::new(EnsStatus::Snapshot, format!("cannot save the scene: {e}"));
        let bytes = handles::with_scene(scene.id, |s| match &s.running {
            Running::Simulated(sim) => {
                let mut snapshot = SnapshotWriter::new(s.program(), &s.program_name);
                sim.save(&mut snapshot).map_err(|e| cannot(e.to_string()))?;
                Ok(snapshot.to_bytes())
            }
            // The session's sections, and the mark of a scene in the host's world.
            Running::Host(h) => h
                .save_with(|_, snapshot| {
                    let saved = SavedHost {
                        scene: h.scene_name().to_string(),
                        seed: h.seed(),
                    };
                    snapshot.put(HOST_SECTION, &saved);
                })
                .map_err(|e| cannot(e.to_string())),
        })?;
        give_bytes(bytes, out, out_len);
        Ok(())
    })
}

fn snapshot_error(e: impl std::fmt::Display) -> Failure {
    Failure::new(EnsStatus::Snapshot, format!("cannot restore: {e}"))
}

/// Restores a simulated scene saved by `ens_scene_save` onto `program` (the build it was
/// taken from — its next tick is the one after the save — or a rebuild, mapped by name as a
/// hot reload maps it). The bytes are read, not kept. `*out` is a new scene handle; corrupt
/// bytes, another program's snapshot or a host-world snapshot are `ENS_STATUS_SNAPSHOT`.
///
/// # Safety
/// `bytes` is NULL or valid for reads of `len` bytes; `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_restore_simulated(
    program: EnsProgram,
    bytes: *const u8,
    len: usize,
    out: *mut EnsScene,
) -> EnsStatus {
    run("ens_scene_restore_simulated", || {
        // SAFETY: as the caller promises.
        let (bytes, out) = unsafe { (bytes_arg(bytes, len, "bytes")?, out_arg(out, "out")?) };
        let loaded = handles::program(program.id)?;
        let snapshot = SnapshotReader::from_bytes(bytes).map_err(snapshot_error)?;
        if snapshot.has(HOST_SECTION) {
            return Err(snapshot_error(
                "the snapshot is of a scene in the host's world (use ens_scene_restore)",
            ));
        }
        (snapshot.check_program(&loaded.program, &loaded.name)).map_err(snapshot_error)?;
        let (sim, report) = Simulation::restore(
            loaded.program.clone(),
            &snapshot,
            &simulation::Options::default(),
        )
        .map_err(snapshot_error)?;
        *out = insert_restored(Running::Simulated(sim), loaded.name.clone(), &report);
        Ok(())
    })
}

/// Restores a scene of the host's world saved by `ens_scene_save` onto `program`, with
/// `library`'s states and `world`'s callbacks (as `ens_scene_start`, but the world is not set
/// up: the host restores its own world's state before calling this). The trace goes on from
/// the restore. `*out` is a new scene handle; corrupt bytes, another program's snapshot or a
/// simulated scene's are `ENS_STATUS_SNAPSHOT`.
///
/// # Safety
/// `bytes` is NULL or valid for reads of `len` bytes; `world` is NULL or valid; `out` is NULL
/// or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_restore(
    program: EnsProgram,
    library: EnsLibrary,
    bytes: *const u8,
    len: usize,
    world: *const EnsWorldCallbacks,
    out: *mut EnsScene,
) -> EnsStatus {
    run("ens_scene_restore", || {
        // SAFETY: as the caller promises.
        let (bytes, world, out) = unsafe {
            (
                bytes_arg(bytes, len, "bytes")?,
                world
                    .as_ref()
                    .ok_or_else(|| Failure::new(EnsStatus::NullArgument, "`world` is NULL"))?,
                out_arg(out, "out")?,
            )
        };
        let loaded = handles::program(program.id)?;
        let library: HostLibrary = handles::with_library(library.id, |l| Ok(l.clone()))?;
        let callbacks = Callbacks::check(world)?;
        let snapshot = SnapshotReader::from_bytes(bytes).map_err(snapshot_error)?;
        if !snapshot.has(HOST_SECTION) {
            return Err(snapshot_error(
                "the snapshot is not of a scene in the host's world (use ens_scene_restore_simulated)",
            ));
        }
        // The host restored its own world's state before this call: the world comes back
        // empty of the runtime's, and the session restores the rest into it.
        let world = |_: &SnapshotReader| Ok(HostWorld::new(callbacks, StandardState::default()));
        let program = loaded.program.clone();
        let (session, report) = Session::restore(program, library.state_library(), bytes, world)
            .map_err(|e| match e {
                SessionError::Restore(e) => snapshot_error(e),
                e => snapshot_error(e),
            })?;
        *out = insert_restored(
            Running::Host(Box::new(session)),
            loaded.name.clone(),
            &report,
        );
        Ok(())
    })
}

/// What the restore that made `scene` did, as JSON lines into `*out` (the host frees it with
/// `ens_string_free`; an empty string for a scene started afresh or restored onto the very
/// build it was saved from). Onto a patched program: `{"change":"added","agent":3,"name":
/// "buyer3"}` for an agent the patch added (started; spawn it in your game),
/// `{"change":"removed","agent":2,"name":"buyer2"}` for one it removed (halted; despawn it),
/// `{"change":"renamed","agent":1,"name":"buyer1","to":"first_buyer"}` for a migration, and
/// `{"change":"fallback","what":"…"}` for what the rebuild could not carry. Agent numbers never
/// move: the others keep theirs.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_scene_restore_report(
    scene: EnsScene,
    out: *mut *mut c_char,
) -> EnsStatus {
    run("ens_scene_restore_report", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let text = handles::with_scene(scene.id, |s| Ok(s.restored.clone()))?;
        *out = give_string(&text);
        Ok(())
    })
}

/// Frees a scene. Host states still active are not cleaned up (their `cleanup` does not
/// run): free their visit data yourself if the scene ends mid-visit. The handle is stale
/// afterwards. Freeing a scene from one of its own callbacks is `ENS_STATUS_BUSY`.
#[unsafe(no_mangle)]
pub extern "C" fn ens_scene_free(scene: EnsScene) -> EnsStatus {
    run("ens_scene_free", || {
        handles::remove(scene.id, "scene").map(drop)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{ens_program_free, ens_program_load_file};
    use crate::status::ens_string_free;
    use std::ffi::{CStr, CString};

    fn program(dir: &std::path::Path) -> EnsProgram {
        let project =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/street-vendor");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut io = ensemble_cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        let args = [
            "ensemble",
            "build",
            project.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
        ];
        assert_eq!(
            ensemble_cli::run(args, &mut io),
            0,
            "{}",
            String::from_utf8_lossy(&err)
        );
        let path = CString::new(dir.join("street-vendor.ensb").to_str().unwrap()).unwrap();
        let mut program = EnsProgram::default();
        // SAFETY: valid string and out-pointer.
        assert_eq!(
            unsafe { ens_program_load_file(path.as_ptr(), &mut program) },
            EnsStatus::Ok
        );
        program
    }

    fn start(program: EnsProgram) -> EnsScene {
        let (name, mut scene) = (CString::new("street").unwrap(), EnsScene::default());
        // SAFETY: valid string and out-pointer.
        let status = unsafe { ens_scene_start_simulated(program, name.as_ptr(), 7, &mut scene) };
        assert_eq!(status, EnsStatus::Ok);
        scene
    }

    fn take(scene: EnsScene) -> String {
        let mut text = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the string is freed below.
        unsafe {
            assert_eq!(ens_scene_take_trace_json(scene, &mut text), EnsStatus::Ok);
            let copy = CStr::from_ptr(text).to_string_lossy().into_owned();
            ens_string_free(text);
            copy
        }
    }

    /// A host that turns the trace off gets nothing, and nothing waits for it; turned on
    /// again, the trace goes on from there.
    #[test]
    fn a_trace_turned_off_keeps_nothing_and_goes_on_when_turned_on() {
        let dir = tempfile::tempdir().unwrap();
        let program = program(dir.path());
        let scene = start(program);
        assert_eq!(ens_scene_set_tracing(scene, false), EnsStatus::Ok);
        for _ in 0..200 {
            assert_eq!(ens_scene_tick(scene), EnsStatus::Ok);
        }
        assert_eq!(take(scene), "", "tick 0's events were dropped too");
        assert_eq!(ens_scene_set_tracing(scene, true), EnsStatus::Ok);
        let mut after = String::new();
        for _ in 0..200 {
            assert_eq!(ens_scene_tick(scene), EnsStatus::Ok);
            after += &take(scene);
        }
        assert!(after.lines().count() > 0, "the trace goes on once on again");
        assert!(!after.contains("\"tick\":0,"), "{after}");
        assert_eq!(
            ens_scene_set_tracing(EnsScene::default(), true),
            EnsStatus::NullHandle
        );
        assert_eq!(ens_scene_free(scene), EnsStatus::Ok);
        assert_eq!(ens_program_free(program), EnsStatus::Ok);
    }

    /// A host that never takes its trace: the scene keeps the latest events only, and they are
    /// exactly the latest of the trace a host taking it every tick gets.
    #[test]
    fn a_trace_nobody_takes_keeps_only_its_latest_events() {
        let dir = tempfile::tempdir().unwrap();
        let program = program(dir.path());
        let (taken, untaken) = (start(program), start(program));
        let mut whole = take(taken);
        for _ in 0..5_000 {
            assert_eq!(ens_scene_tick(taken), EnsStatus::Ok);
            assert_eq!(ens_scene_tick(untaken), EnsStatus::Ok);
            whole += &take(taken);
        }
        let whole: Vec<&str> = whole.lines().collect();
        assert!(whole.len() > 3 * HOST_BACKLOG, "{} events", whole.len());
        let late = take(untaken);
        let late: Vec<&str> = late.lines().collect();
        assert_eq!(late.len(), HOST_BACKLOG);
        assert_eq!(late, whole[whole.len() - HOST_BACKLOG..]);
        for handle in [
            ens_scene_free(taken),
            ens_scene_free(untaken),
            ens_program_free(program),
        ] {
            assert_eq!(handle, EnsStatus::Ok);
        }
    }
}
