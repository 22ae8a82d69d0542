//! The scene's part of a savegame (`crate::snapshot`, section [`SCENE_SECTION`]).
//!
//! Saved by name, never by id: agents, machines, states, library code, messages. Restoring
//! maps each agent's stack onto the running program with the mapping hot reload uses
//! (`map_frames`, `resume_point`), so a snapshot restores onto a rebuilt program the way a
//! reload would have carried the same scene across.
//!
//! A scene is saved between ticks: every public call of [`Scene`] drains each agent's work
//! queue before it returns, so no queued work is lost by saving only frames, inboxes and
//! pending messages.

use super::{
    Agent, AgentId, AgentStatus, Frame, FrameNames, Message, Scene, map_frames, resume_point,
};
use crate::hsm::MAX_DEPTH;
use crate::hsm::library::StateLibrary;
use crate::program::Program;
use crate::program::{MAX_TICK_RATE, MIN_TICK_RATE};
use crate::rng::Rng;
use crate::snapshot::{
    ROSTER_SECTION, SCENE_SECTION, SnapshotError, SnapshotReader, SnapshotWriter,
};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// What restoring a snapshot did: like a reload's report, what carried over and what could
/// not (a state that no longer exists, data its code could not take back).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestoreReport {
    /// Active states restored, over all agents and depths.
    pub kept: u32,
    /// What could not be carried, and what was done instead, one line each (`agent: ...`).
    pub fallbacks: Vec<String>,
    /// How the scene's agents changed with a patched program: added ones started, removed
    /// ones retired, renamed ones carried (`crate::session::roster`). Empty onto the build the
    /// snapshot was taken from.
    pub roster: Vec<RosterChange>,
}

/// One change to a scene's agents that a restore onto a patched program applied.
#[derive(Clone, Debug, PartialEq)]
pub enum RosterChange {
    /// The program lists an agent the savegame lacks: it started as the scene starts it (at its
    /// start location, with its variables), under a new id after every other.
    Added {
        /// Its name.
        name: String,
        /// Its id.
        agent: AgentId,
    },
    /// The savegame has an agent the program no longer lists: its states were left and it was
    /// halted; its id stays taken and it never runs again (despawn it in the game).
    Removed {
        /// Its name.
        name: String,
        /// Its id.
        agent: AgentId,
    },
    /// The project's migrations renamed the agent: it carried on under the new name.
    Renamed {
        /// The name in the savegame.
        from: String,
        /// The name in the program.
        to: String,
        /// Its id (unchanged).
        agent: AgentId,
    },
}

impl std::fmt::Display for RosterChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RosterChange::Added { name, agent } => {
                write!(
                    f,
                    "{name}: added by the patch, started as agent #{}",
                    agent.0
                )
            }
            RosterChange::Removed { name, agent } => write!(
                f,
                "{name}: removed by the patch, agent #{} retired (despawn it)",
                agent.0
            ),
            RosterChange::Renamed { from, to, .. } => {
                write!(f, "{from}: renamed `{to}` by a migration, carried on")
            }
        }
    }
}

/// The shortest tick a scene has (at [`MAX_TICK_RATE`] ticks a second), in seconds.
const MIN_TICK_LENGTH: f64 = 1.0 / MAX_TICK_RATE as f64;
/// The longest (at [`MIN_TICK_RATE`]).
const MAX_TICK_LENGTH: f64 = 1.0 / MIN_TICK_RATE as f64;

/// Names are written once, in [`SavedScene::names`]; everything else refers to them by index
/// there (a snapshot's own numbering, not the program's ids).
#[derive(Serialize, Deserialize)]
struct SavedScene {
    names: Vec<String>,
    seed: u64,
    tick: u64,
    dt: f64,
    next_serial: u64,
    /// Run-time names ([`super::Symbols`]), in the order they were made.
    symbols: Vec<String>,
    agents: Vec<SavedAgent>,
    /// Messages between agents, delivered at the start of the next tick.
    pending: Vec<SavedMessage>,
}

#[derive(Serialize, Deserialize)]
struct SavedAgent {
    name: u32,
    idle: bool,
    status: AgentStatus,
    rng: Rng,
    /// Root first.
    frames: Vec<SavedFrame>,
    inbox: Vec<SavedMessage>,
}

#[derive(Serialize, Deserialize)]
struct SavedFrame {
    machine: u32,
    state: u32,
    code: u32,
    hosts: Option<u32>,
    serial: u64,
    /// What the state's code saved ([`crate::hsm::StateCode::save`]).
    #[serde(with = "crate::snapshot::byte_buf")]
    data: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
struct SavedMessage {
    to: u32,
    from: u32,
    name: u32,
}

/// The names a scene's snapshot writes, each once.
#[derive(Default)]
struct NameTable<'a> {
    names: Vec<&'a str>,
    index: HashMap<&'a str, u32>,
}

impl<'a> NameTable<'a> {
    fn put(&mut self, name: &'a str) -> u32 {
        *self.index.entry(name).or_insert_with(|| {
            self.names.push(name);
            self.names.len() as u32 - 1
        })
    }
}

impl SavedScene {
    /// The name at `i` of the snapshot's table (checked in range by [`SavedScene::check`]).
    fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// Refuses what would make the interpreter index out of range or reuse a serial.
    fn check(&self) -> Result<(), SnapshotError> {
        let invalid = |m: String| Err(SnapshotError::Invalid(m));
        for (what, count) in [
            ("tick count", self.tick),
            ("state serial", self.next_serial),
        ] {
            if count > super::MAX_COUNT {
                return invalid(format!(
                    "the {what} {count} is past {}, the most a scene counts to (a hand-edited \
                     savegame? counted from 0 it takes billions of years)",
                    super::MAX_COUNT
                ));
            }
        }
        if !(MIN_TICK_LENGTH..=MAX_TICK_LENGTH).contains(&self.dt) {
            return invalid(format!(
                "the tick length {} s is out of range: a scene ticks {MIN_TICK_RATE} to \
                 {MAX_TICK_RATE} times a second, so a tick lasts {MIN_TICK_LENGTH} to \
                 {MAX_TICK_LENGTH} s",
                self.dt
            ));
        }
        if !(self.tick as f64 * self.dt).is_finite() {
            return invalid(format!("tick {} is out of range", self.tick));
        }
        let names = self.names.len() as u64;
        let named = |i: u32| (i as u64) < names;
        let agents = self.agents.len() as u64;
        let known = |m: &SavedMessage| (m.to as u64) < agents && (m.from as u64) < agents;
        if let Some(m) = self.pending.iter().find(|m| !known(m) || !named(m.name)) {
            return invalid(format!(
                "a message between agents #{} and #{} (of {agents}), named #{} (of {names})",
                m.from, m.to, m.name
            ));
        }
        for (i, a) in self.agents.iter().enumerate() {
            if !named(a.name) {
                return invalid(format!("agent #{i} is named #{} (of {names})", a.name));
            }
            let agent = self.name(a.name);
            if a.frames.len() > MAX_DEPTH {
                return invalid(format!(
                    "agent {agent} has {} active states, more than {MAX_DEPTH}",
                    a.frames.len()
                ));
            }
            if let Some(m) = a.inbox.iter().find(|m| !known(m) || !named(m.name)) {
                return invalid(format!(
                    "agent {agent} holds a message from agent #{} (of {agents}), named #{} (of {names})",
                    m.from, m.name
                ));
            }
            for f in &a.frames {
                let all_named = [f.machine, f.state, f.code]
                    .into_iter()
                    .chain(f.hosts)
                    .all(named);
                if !all_named {
                    return invalid(format!(
                        "agent {agent} has a state whose names are not in the snapshot"
                    ));
                }
                if f.serial >= self.next_serial {
                    return invalid(format!(
                        "agent {agent}'s state {}/{} has serial {}, not below {}",
                        self.name(f.machine),
                        self.name(f.state),
                        f.serial,
                        self.next_serial
                    ));
                }
            }
        }
        Ok(())
    }
}

impl<G: 'static> Scene<G> {
    /// Saves the scene's own part into `snapshot` (section [`SCENE_SECTION`]): every agent's
    /// machine stack with each state's data, inboxes and pending messages, random streams,
    /// the clock and tick count, and run-time names. The game world is not saved here: its
    /// owner puts it as a section of its own.
    ///
    /// A savegame mid-behaviour, restored: the restored scene goes on exactly as the saved one.
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
    /// use ensemble_runtime::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
    ///
    /// let mut scene = Scene::new_traced(program(1.0), library(), "night", Vec::new(), 7).unwrap();
    /// let guard = scene.agents().next().unwrap();
    /// for _ in 0..4 {
    ///     scene.tick();
    /// }
    /// let mut snapshot = SnapshotWriter::new(scene.program(), "guard-demo");
    /// scene.save(&mut snapshot); // the game's world would add a section of its own
    /// let bytes = snapshot.to_bytes();
    /// scene.take_events(); // the trace up to the save
    ///
    /// let reader = SnapshotReader::from_bytes(&bytes)?;
    /// assert!(reader.check_program(&program(1.0), "guard-demo")?); // the very same build
    /// let (mut restored, report) = Scene::restore_traced(program(1.0), library(), Vec::new(), &reader)?;
    /// assert_eq!(report.kept, 1);
    /// assert_eq!(restored.tick_count(), 4);
    ///
    /// // 0.4 s were waited before the save: six more ticks end the watch in both.
    /// for _ in 0..6 {
    ///     scene.tick();
    ///     restored.tick();
    /// }
    /// assert_eq!(current(&restored, guard), "Resting");
    /// assert_eq!(restored.take_events(), scene.take_events());
    ///
    /// // A damaged snapshot is refused with a reason, never a panic.
    /// let cut = SnapshotReader::from_bytes(&bytes[..bytes.len() - 1]);
    /// assert!(matches!(cut, Err(SnapshotError::Truncated { .. })));
    /// assert_eq!(SnapshotReader::from_bytes(b"").err(), Some(SnapshotError::Empty));
    /// # Ok::<(), SnapshotError>(())
    /// ```
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        let program = &*self.program;
        let mut table = NameTable::default();
        let symbols = &self.symbols;
        fn message<'a>(
            table: &mut NameTable<'a>,
            (program, symbols): (&'a Program, &'a super::Symbols),
            to: AgentId,
            m: &Message,
        ) -> SavedMessage {
            SavedMessage {
                to: to.0,
                from: m.from.0,
                name: table.put(symbols.name(program, m.name)),
            }
        }
        let mut agents = Vec::with_capacity(self.agents.len());
        for (i, a) in self.agents.iter().enumerate() {
            let frames = a
                .frames
                .iter()
                .map(|f| {
                    let names = FrameNames::of(program, f.state);
                    SavedFrame {
                        machine: table.put(names.machine),
                        state: table.put(names.state),
                        code: table.put(names.code),
                        hosts: names.hosts.map(|h| table.put(h)),
                        serial: f.serial,
                        data: f.code.save(program),
                    }
                })
                .collect();
            let inbox = a
                .inbox
                .iter()
                .map(|m| message(&mut table, (program, symbols), AgentId(i as u32), m))
                .collect();
            agents.push(SavedAgent {
                name: table.put(&self.agent_labels[i]),
                idle: a.idle,
                status: a.status.clone(),
                rng: a.rng.clone(),
                frames,
                inbox,
            });
        }
        let pending = self
            .pending
            .iter()
            .map(|(to, m)| message(&mut table, (program, symbols), *to, m))
            .collect();
        let saved = SavedScene {
            names: table.names.iter().map(|n| n.to_string()).collect(),
            seed: self.seed,
            tick: self.tick,
            dt: self.dt,
            next_serial: self.next_serial,
            symbols: self.symbols.extra.iter().map(|s| s.to_string()).collect(),
            agents,
            pending,
        };
        snapshot.put(SCENE_SECTION, &saved);
        if let Some(roster) = &self.roster {
            let ids: Vec<u32> = roster.iter().map(|a| a.0).collect();
            snapshot.put(ROSTER_SECTION, &ids);
        }
    }

    /// Restores a scene saved by [`Scene::save`] onto `program` with the game's `library` and
    /// its world `game` (restored by its owner first, from its own section). Every agent's
    /// stack is mapped by name, as [`Scene::reload`] maps it; each kept state's code takes its
    /// data back ([`crate::hsm::StateCode::restore`]). What does not map falls back as in a
    /// reload (a state that no longer exists restarts its machine, code that changed or
    /// could not take its data back is entered afresh, a root machine that no longer exists
    /// halts the agent) and is listed in the report. Onto the program it was taken from, the
    /// scene goes on exactly as it would have: the next tick is the one after the save.
    ///
    /// Trace recording is off, as after [`Scene::new`]; [`Scene::restore_traced`] records from
    /// the restore on.
    pub fn restore(
        program: Arc<Program>,
        library: StateLibrary<G>,
        game: G,
        snapshot: &SnapshotReader,
    ) -> Result<(Self, RestoreReport), SnapshotError> {
        Self::restore_with(program, library, game, snapshot, false)
    }

    /// [`Scene::restore`] with trace recording on, so that the trace also has the entries of
    /// states entered afresh as the scene is restored (turning recording on afterwards would
    /// miss them), as [`Scene::new_traced`] has the tick-0 entries.
    pub fn restore_traced(
        program: Arc<Program>,
        library: StateLibrary<G>,
        game: G,
        snapshot: &SnapshotReader,
    ) -> Result<(Self, RestoreReport), SnapshotError> {
        Self::restore_with(program, library, game, snapshot, true)
    }

    fn restore_with(
        program: Arc<Program>,
        library: StateLibrary<G>,
        game: G,
        snapshot: &SnapshotReader,
        tracing: bool,
    ) -> Result<(Self, RestoreReport), SnapshotError> {
        let saved: SavedScene = snapshot.get(SCENE_SECTION)?;
        saved.check()?;
        let roster = if snapshot.has(ROSTER_SECTION) {
            let ids: Vec<u32> = snapshot.get(ROSTER_SECTION)?;
            let mut seen = vec![false; saved.agents.len()];
            for &i in &ids {
                match seen.get_mut(i as usize) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return Err(SnapshotError::BadSection {
                            section: ROSTER_SECTION.to_string(),
                            message: format!(
                                "agent #{i} is listed twice or is not one of the snapshot's {} agents",
                                saved.agents.len()
                            ),
                        });
                    }
                }
            }
            Some(ids.into_iter().map(AgentId).collect())
        } else {
            None
        };
        let mut scene = Scene::empty(program.clone(), library, game, saved.seed, 1)
            .map_err(|e| SnapshotError::Link(e.to_string()))?;
        scene.tracing = tracing;
        scene.roster = roster;
        scene.dt = saved.dt;
        scene.tick = saved.tick;
        scene.next_serial = saved.next_serial;
        for name in &saved.symbols {
            scene.symbols.intern(&program, name);
        }
        for a in &saved.agents {
            scene.agent_labels.push(Arc::from(saved.name(a.name)));
            let name = scene.symbols.intern(&program, saved.name(a.name));
            scene.agent_names.push(name);
            let inbox = a
                .inbox
                .iter()
                .map(|m| Message {
                    name: scene.symbols.intern(&program, saved.name(m.name)),
                    from: AgentId(m.from),
                })
                .collect();
            scene.agents.push(Agent {
                idle: a.idle,
                frames: Vec::new(),
                inbox,
                rng: a.rng.clone(),
                status: a.status.clone(),
                queue: VecDeque::new(),
                transitions_this_tick: 0,
            });
        }
        for m in &saved.pending {
            let name = scene.symbols.intern(&program, saved.name(m.name));
            let msg = Message {
                name,
                from: AgentId(m.from),
            };
            scene.pending.push((AgentId(m.to), msg));
        }
        let mut report = RestoreReport::default();
        let (mut runner, agents) = scene.runner();
        for (i, (agent, saved_agent)) in agents.iter_mut().zip(&saved.agents).enumerate() {
            if saved_agent.frames.is_empty() {
                continue;
            }
            let id = AgentId(i as u32);
            let labels = runner.agent_labels;
            let label = &labels[i];
            let names: Vec<FrameNames<'_>> = saved_agent
                .frames
                .iter()
                .map(|f| FrameNames {
                    machine: saved.name(f.machine),
                    state: saved.name(f.state),
                    code: saved.name(f.code),
                    hosts: f.hosts.map(|h| saved.name(h)),
                })
                .collect();
            let mut m = map_frames(&program, &names);
            let mut failed = None;
            for (d, (&state, (frame, names))) in m
                .states
                .iter()
                .zip(saved_agent.frames.iter().zip(&names))
                .enumerate()
            {
                let mut code = runner.links.instantiate(program.state(state).code);
                if let Err(e) = code.restore(&program, &frame.data) {
                    report.fallbacks.push(format!(
                        "{label}: state {}/{} could not take back its data ({e}); entered it afresh",
                        names.machine, names.state
                    ));
                    failed = Some((d, state));
                    break;
                }
                agent.frames.push(Frame {
                    state,
                    serial: frame.serial,
                    code,
                });
            }
            if let Some((d, state)) = failed {
                m.states.truncate(d);
                m.reenter = Some(state);
                m.note = None;
            }
            report.kept += agent.frames.len() as u32;
            if let Some(note) = &m.note {
                report.fallbacks.push(format!("{label}: {note}"));
            }
            if agent.idle
                || (agent.status != AgentStatus::Running && agent.status != AgentStatus::Finished)
            {
                continue;
            }
            if let Some(state) = resume_point(&program, agent, &m) {
                let depth = agent.frames.len();
                agent.status = AgentStatus::Running;
                runner.enter(agent, id, depth, state);
                runner.drain(agent, id);
            }
        }
        Ok((scene, report))
    }
}
