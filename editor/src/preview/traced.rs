//! A scene known only from its trace: a recorded `.jsonl` file (`ensemble run --trace json`), or
//! the trace stream of a game the editor is attached to. There is no simulation to ask, so the
//! snapshots are folded from the events: who is in the scene (every agent the trace names),
//! each agent's stack of active states (from `enter` / `exit` and their depth), and whether its
//! root machine failed. Positions and blackboards are not in the trace: a recorded trace has no
//! map, while an attached game's `snapshot` answers give them ([`TracedScene::take_snapshot`]).

use super::snapshot::{Board, History, NavInfo, Snapshot, WorldInfo, agents_bytes};
use ensemble_runtime::hsm::{AgentId, AgentStatus};
use ensemble_runtime::inspect::protocol::AgentSnapshot;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::simulation::{ActiveState, AgentKind, AgentView, Participant, SceneKind};
use std::sync::Arc;

/// Folds trace events, tick by tick, into the snapshots the views draw.
pub struct TracedScene {
    world: Arc<WorldInfo>,
    agents: Vec<AgentView>,
    /// The snapshot's agents, shared until an event changes one.
    shared: Arc<[AgentView]>,
    changed: bool,
    /// The blackboards of the last snapshot a game sent.
    boards: Arc<[Arc<Board>]>,
}

impl TracedScene {
    /// A scene called `scene` (the file's or the game's name for it); `dt`: seconds per tick.
    pub fn new(scene: &str, dt: f64) -> TracedScene {
        TracedScene::with_world(Arc::new(WorldInfo {
            scene: scene.to_string(),
            kind: SceneKind::Machines,
            dt,
            locations: Vec::new(),
            places: Vec::new(),
            spaces: Vec::new(),
            nav: NavInfo::default(),
            program: 0,
        }))
    }

    /// A scene drawn on `world`'s map (an attached game's scene, as the editor's program has
    /// it).
    pub fn with_world(world: Arc<WorldInfo>) -> TracedScene {
        TracedScene {
            world,
            agents: Vec::new(),
            shared: Arc::from(Vec::new()),
            changed: false,
            boards: Arc::from(Vec::new()),
        }
    }

    fn agent(&mut self, name: &Arc<str>) -> &mut AgentView {
        let i = match self.agents.iter().position(|a| a.name == *name) {
            Some(i) => i,
            None => {
                self.agents.push(AgentView {
                    id: AgentId(self.agents.len() as u32),
                    name: name.clone(),
                    kind: AgentKind::Machine,
                    at: None,
                    status: AgentStatus::Running,
                    states: Vec::new(),
                    partner: None,
                });
                self.agents.len() - 1
            }
        };
        self.changed = true;
        &mut self.agents[i]
    }

    pub fn world(&self) -> Arc<WorldInfo> {
        self.world.clone()
    }

    /// An agent the game names (in its `hello`), before any event about it.
    pub fn join(&mut self, name: &str) {
        self.agent(&Arc::from(name));
    }

    /// What a game's `snapshot` says: each agent's stack (root first) and where it stands,
    /// and the blackboards of the scripts they take part in (one per script and location).
    pub fn take_snapshot(&mut self, agents: &[AgentSnapshot]) {
        let mut boards: Vec<Board> = Vec::new();
        for a in agents {
            let states = a
                .states
                .iter()
                .map(|s| ActiveState {
                    machine: s.machine.as_str().into(),
                    state: s.state.as_str().into(),
                })
                .collect();
            let view = self.agent(&Arc::from(a.name.as_str()));
            view.states = states;
            view.at = a.position;
            let (id, name) = (view.id, view.name.clone());
            for s in &a.scripts {
                let participant = Participant {
                    agent: id,
                    name: name.clone(),
                    role: s.role.as_str().into(),
                    // The protocol does not say a participant's script state.
                    state: "".into(),
                };
                let same = |b: &&mut Board| *b.location == *s.location && *b.script == *s.script;
                match boards.iter_mut().find(same) {
                    Some(b) => b.participants.push(participant),
                    None => {
                        let mut facts = s.facts.clone();
                        facts.sort();
                        boards.push(Board {
                            location: s.location.as_str().into(),
                            script: s.script.as_str().into(),
                            instance: 0,
                            version: 0,
                            participants: vec![participant],
                            facts: facts.into(),
                        });
                    }
                }
            }
        }
        // Facts that did not change keep their allocation: the blackboard view marks as new
        // only what a shared list does not hold.
        let boards: Vec<Arc<Board>> = boards
            .into_iter()
            .map(|mut b| {
                let before = self.boards.iter().find(|o| {
                    o.location == b.location && o.script == b.script && o.facts == b.facts
                });
                if let Some(before) = before {
                    b.facts = before.facts.clone();
                }
                Arc::new(b)
            })
            .collect();
        self.boards = boards.into();
    }

    /// Sends the snapshot of `tick` (at `time` seconds) with its events as the worker's
    /// report; false if the editor has gone.
    pub fn send_tick(
        &mut self,
        (tick, time): (u64, f64),
        events: Vec<TraceEvent>,
        out: &std::sync::mpsc::SyncSender<super::worker::Report>,
    ) -> bool {
        for e in &events {
            self.apply(e);
        }
        let (snapshot, bytes) = self.snapshot(tick, time);
        out.send(super::worker::Report::Tick {
            snapshot,
            bytes,
            events,
        })
        .is_ok()
    }

    /// Applies one event to the agents.
    pub fn apply(&mut self, e: &TraceEvent) {
        let Some(name) = &e.agent else {
            return;
        };
        match &e.kind {
            EventKind::Enter {
                machine,
                state,
                depth,
            } => {
                let a = self.agent(name);
                a.states.truncate(*depth as usize);
                a.states.push(ActiveState {
                    machine: machine.clone(),
                    state: state.clone(),
                });
                a.status = AgentStatus::Running;
            }
            EventKind::Exit { depth, .. } => {
                self.agent(name).states.truncate(*depth as usize);
            }
            EventKind::Fail { .. } => self.agent(name).status = AgentStatus::Failed,
            _ => {
                // Every agent the trace names is in the scene, even one without a machine.
                if !self.agents.iter().any(|a| a.name == *name) {
                    self.agent(name);
                }
            }
        }
    }

    /// The snapshot at the end of tick `tick` (at `time` seconds), after its events.
    pub fn snapshot(&mut self, tick: u64, time: f64) -> (Snapshot, usize) {
        let mut bytes = std::mem::size_of::<Snapshot>();
        if std::mem::take(&mut self.changed) {
            self.shared = Arc::from(self.agents.clone());
            bytes += agents_bytes(&self.shared);
        }
        let snapshot = Snapshot {
            tick,
            time,
            world: self.world.clone(),
            agents: self.shared.clone(),
            boards: self.boards.clone(),
            beliefs: Arc::from(Vec::new()),
            situation: Arc::from(Vec::new()),
            awaits_player: false,
            doors: Arc::from(Vec::new()),
            routes: Arc::from(vec![None; self.shared.len()]),
        };
        (snapshot, bytes)
    }

    /// Applies the events of one tick and records its snapshot in `history`.
    pub fn record(&mut self, history: &mut History, tick: u64, time: f64, events: Vec<TraceEvent>) {
        for e in &events {
            self.apply(e);
        }
        let (snapshot, bytes) = self.snapshot(tick, time);
        history.push(snapshot, bytes, events);
    }
}

/// A recorded trace read into a history, or the first line that is not a trace event.
pub fn read_trace(scene: &str, text: &str) -> Result<History, String> {
    let events = ensemble_runtime::trace::read_events(text)?;
    if events.is_empty() {
        return Err("the file holds no trace events".into());
    }
    // Seconds per tick, for the views that convert: from the last event that tells.
    let dt = events
        .iter()
        .rev()
        .find(|e| e.tick > 0)
        .map_or(0.0, |e| e.time / e.tick as f64);
    let mut scene = TracedScene::new(scene, dt);
    let mut history = History::default();
    let mut rest = events.as_slice();
    while let Some(first) = rest.first() {
        let (tick, time) = (first.tick, first.time);
        let end = rest.partition_point(|e| e.tick == tick);
        scene.record(&mut history, tick, time, rest[..end].to_vec());
        rest = &rest[end..];
    }
    Ok(history)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = r#"{"tick":0,"time":0.0,"agent":"seller","event":"enter","machine":"Sell","state":"Start","depth":0}
{"tick":3,"time":0.1,"agent":"seller","event":"exit","machine":"Sell","state":"Start","depth":0}
{"tick":3,"time":0.1,"agent":"seller","event":"enter","machine":"Sell","state":"Talk","depth":0}
{"tick":3,"time":0.1,"agent":"seller","event":"enter","machine":"Talk","state":"Greet","depth":1}
{"tick":5,"time":0.166667,"agent":"seller","event":"say","text":"Hello","sentence":null}
{"tick":6,"time":0.2,"agent":"seller","event":"exit","machine":"Talk","state":"Greet","depth":1}
"#;

    fn states(h: &History, tick: u64) -> Vec<String> {
        h.at(tick).unwrap().agents[0]
            .states
            .iter()
            .map(|s| format!("{}/{}", s.machine, s.state))
            .collect()
    }

    #[test]
    fn scrubbing_a_trace_finds_each_agents_stack_as_it_was() {
        let h = read_trace("t", TRACE).unwrap();
        assert_eq!(h.first_tick(), Some(0));
        assert_eq!(h.latest().unwrap().tick, 6);
        assert_eq!(states(&h, 0), ["Sell/Start"]);
        assert_eq!(states(&h, 2), ["Sell/Start"]);
        assert_eq!(states(&h, 4), ["Sell/Talk", "Talk/Greet"]);
        assert_eq!(states(&h, 6), ["Sell/Talk"]);
        assert_eq!(h.transcript_until(4).count(), 0);
        assert_eq!(h.transcript_until(5).next().unwrap().text, "Hello");
        assert_eq!(h.event_total(), 6);
    }

    #[test]
    fn a_games_snapshot_gives_positions_and_one_blackboard_per_script_instance() {
        use ensemble_runtime::inspect::protocol::{ActiveState as State, ScriptFacts};
        let agent = |name: &str, role: &str, facts: &[&str], at| AgentSnapshot {
            name: name.into(),
            states: vec![State {
                machine: "Shop".into(),
                state: "Serve".into(),
            }],
            scripts: vec![ScriptFacts {
                script: "baker".into(),
                location: "bakery".into(),
                role: role.into(),
                facts: facts.iter().map(|f| f.to_string()).collect(),
            }],
            position: at,
            ..AgentSnapshot::default()
        };
        let facts = ["stocked", "counter(counter)"];
        let mut scene = TracedScene::new("market", 0.0);
        scene.take_snapshot(&[
            agent("baker", "keeper", &facts, Some([1.0, 2.0])),
            agent("till", "till", &facts, None),
        ]);
        let (first, _) = scene.snapshot(10, 0.3);
        assert_eq!(first.agent("baker").unwrap().at, Some([1.0, 2.0]));
        assert_eq!(first.agent("till").unwrap().at, None);
        assert_eq!(&*first.agent("till").unwrap().states[0].state, "Serve");
        let [board] = &*first.boards else {
            panic!("one instance: {:?}", first.boards)
        };
        assert_eq!((&*board.location, &*board.script), ("bakery", "baker"));
        let roles: Vec<_> = board.participants.iter().map(|p| &*p.role).collect();
        assert_eq!(roles, ["keeper", "till"]);
        assert_eq!(&*board.facts, ["counter(counter)", "stocked"]);
        // The same facts again keep their list (nothing is marked new); a change does not.
        scene.take_snapshot(&[agent("baker", "keeper", &facts, Some([1.5, 2.0]))]);
        let (again, _) = scene.snapshot(11, 0.33);
        assert!(Arc::ptr_eq(&again.boards[0].facts, &board.facts));
        scene.take_snapshot(&[agent("baker", "keeper", &["stocked"], None)]);
        let (changed, _) = scene.snapshot(12, 0.4);
        assert_eq!(&*changed.boards[0].facts, ["stocked"]);
    }

    fn refusal(text: &str) -> String {
        read_trace("t", text).err().expect("the trace is refused")
    }

    #[test]
    fn a_malformed_line_is_reported_with_its_number() {
        let broken = TRACE.replace(r#""state":"Talk","depth":0"#, r#""depth":0"#);
        assert_eq!(refusal(&broken), "line 3: no `state`");
        let garbage = format!("{TRACE}not json\n");
        assert!(refusal(&garbage).starts_with("line 7: "));
        assert_eq!(refusal("\n"), "the file holds no trace events");
        let backwards = TRACE.replace(r#""tick":5"#, r#""tick":1"#);
        assert!(refusal(&backwards).starts_with("line 5: tick 1 comes after tick 3"));
    }
}
