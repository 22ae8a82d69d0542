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
use crate::hsm::library::{StateLibrary, entry_of};
use crate::program::Program;
use crate::rng::Rng;
use crate::snapshot::{SCENE_SECTION, SnapshotError, SnapshotReader, SnapshotWriter};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// What restoring a snapshot did: like a reload's report, what carried over and what could
/// not (a state that no longer exists, data its code could not take back).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestoreReport {
    /// Active states restored, over all agents and depths.
    pub kept: u32,
    /// What could not be carried, and what was done instead, one line each (`agent: ...`).
    pub fallbacks: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct SavedScene {
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
    name: String,
    idle: bool,
    status: AgentStatus,
    rng: Rng,
    /// Root first.
    frames: Vec<SavedFrame>,
    inbox: Vec<SavedMessage>,
}

#[derive(Serialize, Deserialize)]
struct SavedFrame {
    machine: String,
    state: String,
    code: String,
    hosts: Option<String>,
    serial: u64,
    /// What the state's code saved ([`crate::hsm::StateCode::save`]).
    data: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
struct SavedMessage {
    to: u32,
    from: u32,
    name: String,
}

impl SavedScene {
    /// Refuses what would make the interpreter index out of range or reuse a serial.
    fn check(&self) -> Result<(), SnapshotError> {
        let invalid = |m: String| Err(SnapshotError::Invalid(m));
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return invalid(format!(
                "the tick length {} is not a positive time",
                self.dt
            ));
        }
        if !(self.tick as f64 * self.dt).is_finite() {
            return invalid(format!("tick {} is out of range", self.tick));
        }
        let agents = self.agents.len() as u64;
        let known = |m: &SavedMessage| (m.to as u64) < agents && (m.from as u64) < agents;
        if let Some(m) = self.pending.iter().find(|m| !known(m)) {
            return invalid(format!(
                "message `{}` between agents #{} and #{}, of {agents}",
                m.name, m.from, m.to
            ));
        }
        for a in &self.agents {
            if a.frames.len() > MAX_DEPTH {
                return invalid(format!(
                    "agent {} has {} active states, more than {MAX_DEPTH}",
                    a.name,
                    a.frames.len()
                ));
            }
            if let Some(m) = a.inbox.iter().find(|m| !known(m)) {
                return invalid(format!(
                    "agent {} holds message `{}` from agent #{}, of {agents}",
                    a.name, m.name, m.from
                ));
            }
            if let Some(f) = a.frames.iter().find(|f| f.serial >= self.next_serial) {
                return invalid(format!(
                    "agent {}'s state {}/{} has serial {}, not below {}",
                    a.name, f.machine, f.state, f.serial, self.next_serial
                ));
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
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        let program = &*self.program;
        let name = |id| self.symbols.name(program, id).to_string();
        let message = |to: AgentId, m: &Message| SavedMessage {
            to: to.0,
            from: m.from.0,
            name: name(m.name),
        };
        let agents = self
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| SavedAgent {
                name: self.agent_labels[i].to_string(),
                idle: a.idle,
                status: a.status.clone(),
                rng: a.rng.clone(),
                frames: a
                    .frames
                    .iter()
                    .map(|f| {
                        let names = FrameNames::of(program, f.state);
                        SavedFrame {
                            machine: names.machine.to_string(),
                            state: names.state.to_string(),
                            code: names.code.to_string(),
                            hosts: names.hosts.map(str::to_string),
                            serial: f.serial,
                            data: f.code.save(program),
                        }
                    })
                    .collect(),
                inbox: a
                    .inbox
                    .iter()
                    .map(|m| message(AgentId(i as u32), m))
                    .collect(),
            })
            .collect();
        let saved = SavedScene {
            seed: self.seed,
            tick: self.tick,
            dt: self.dt,
            next_serial: self.next_serial,
            symbols: self.symbols.extra.iter().map(|s| s.to_string()).collect(),
            agents,
            pending: self.pending.iter().map(|(to, m)| message(*to, m)).collect(),
        };
        snapshot.put(SCENE_SECTION, &saved);
    }

    /// Restores a scene saved by [`Scene::save`] onto `program` with the game's `library` and
    /// its world `game` (restored by its owner first, from its own section). Every agent's
    /// stack is mapped by name, as [`Scene::reload`] maps it; each kept state's code takes its
    /// data back ([`crate::hsm::StateCode::restore`]). What does not map falls back as in a
    /// reload (a state that no longer exists restarts its machine, code that changed or
    /// could not take its data back is entered afresh, a root machine that no longer exists
    /// halts the agent) and is listed in the report. Onto the program it was taken from, the
    /// scene goes on exactly as it would have: the next tick is the one after the save.
    pub fn restore(
        program: Arc<Program>,
        library: StateLibrary<G>,
        game: G,
        snapshot: &SnapshotReader,
    ) -> Result<(Self, RestoreReport), SnapshotError> {
        let saved: SavedScene = snapshot.get(SCENE_SECTION)?;
        saved.check()?;
        let mut scene = Scene::empty(program.clone(), library, game, saved.seed, 1)
            .map_err(|e| SnapshotError::Link(e.to_string()))?;
        scene.dt = saved.dt;
        scene.tick = saved.tick;
        scene.next_serial = saved.next_serial;
        for name in &saved.symbols {
            scene.symbols.intern(&program, name);
        }
        for a in &saved.agents {
            scene.agent_labels.push(Arc::from(a.name.as_str()));
            let name = scene.symbols.intern(&program, &a.name);
            scene.agent_names.push(name);
            let inbox = a
                .inbox
                .iter()
                .map(|m| Message {
                    name: scene.symbols.intern(&program, &m.name),
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
            let name = scene.symbols.intern(&program, &m.name);
            let msg = Message {
                name,
                from: AgentId(m.from),
            };
            scene.pending.push((AgentId(m.to), msg));
        }
        let mut report = RestoreReport::default();
        let (mut runner, agents) = scene.runner();
        for (i, (agent, saved)) in agents.iter_mut().zip(&saved.agents).enumerate() {
            if saved.frames.is_empty() {
                continue;
            }
            let id = AgentId(i as u32);
            let labels = runner.agent_labels;
            let label = &labels[i];
            let names: Vec<FrameNames<'_>> = saved
                .frames
                .iter()
                .map(|f| FrameNames {
                    machine: &f.machine,
                    state: &f.state,
                    code: &f.code,
                    hosts: f.hosts.as_deref(),
                })
                .collect();
            let mut m = map_frames(&program, &names);
            for d in 0..m.states.len() {
                let state = m.states[d];
                let entry = entry_of(runner.links, program.state(state).code);
                let mut code = runner.library.instantiate(entry);
                if let Err(e) = code.restore(&program, &saved.frames[d].data) {
                    let f = &saved.frames[d];
                    report.fallbacks.push(format!(
                        "{label}: state {}/{} could not take back its data ({e}); entered it afresh",
                        f.machine, f.state
                    ));
                    m.states.truncate(d);
                    m.reenter = Some(state);
                    m.note = None;
                    break;
                }
                agent.frames.push(Frame {
                    state,
                    serial: saved.frames[d].serial,
                    code,
                });
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
