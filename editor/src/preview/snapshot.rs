//! What the preview's views show of a running scene at one tick ([`Snapshot`]), and the
//! history of them that the timeline scrubs through ([`History`]).
//!
//! Snapshots hold names (`Arc<str>`, shared with the trace), never ids, so they stay readable
//! after a reload replaced the program. Consecutive snapshots share what did not change (the
//! agents when nobody moved, a blackboard whose tuple space kept its version, the beliefs), so
//! a tick where little happened costs a few pointers.
//!
//! **Invariants:** snapshots in a history are in tick order (a tick may be recorded twice: just
//! before and just after a reload); the history's estimated size stays
//! under its budget by thinning the oldest half (every other snapshot dropped), so the far past
//! stays reachable at a coarser grain while the recent past keeps every tick; events are kept
//! up to a count, oldest dropped first.

use ensemble_runtime::Program;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::simulation::{AgentView, Line, Participant, SceneKind};
use ensemble_sim::{RouteAhead, Simulation};
use std::collections::VecDeque;
use std::sync::Arc;

/// What does not change while a program runs: the map and the names of the belief chart.
/// A new one comes with every reload.
#[derive(Debug)]
pub struct WorldInfo {
    pub scene: String,
    pub kind: SceneKind,
    /// Seconds per tick.
    pub dt: f64,
    /// Named locations and where they are, metres.
    pub locations: Vec<(Arc<str>, [f64; 2])>,
    pub places: Vec<PlaceInfo>,
    /// HMM spaces and their states, in the order of [`Snapshot::beliefs`].
    pub spaces: Vec<SpaceInfo>,
    /// The navigation graph agents walk on, if the program has one small enough to draw.
    pub nav: NavInfo,
    /// The n-th program of this run (0 at start, bumped by each reload).
    pub program: u32,
}

/// The program's navigation graph as lines on the map: its edges, and its doors (in the
/// order of [`Snapshot::doors`]), in metres.
#[derive(Debug, Default)]
pub struct NavInfo {
    pub edges: Vec<Segment>,
    pub doors: Vec<(Arc<str>, Vec<Segment>)>,
}

/// A straight line between two points, metres.
pub type Segment = [[f64; 2]; 2];

/// Above this many nodes (a grid map) the graph is not drawn: its lines would hide the scene
/// and cost the frame more than the rest of the map.
pub const NAV_DRAWN_NODES: u32 = 4_000;

impl NavInfo {
    fn of(p: &ensemble_runtime::Program) -> NavInfo {
        let nav = &p.nav;
        let Some(data) = nav.data.as_ref() else {
            return NavInfo::default();
        };
        let graph = &data.graph;
        if graph.node_count() > NAV_DRAWN_NODES {
            return NavInfo::default();
        }
        let line = |u, v| Some([nav.world(u)?, nav.world(v)?]);
        let is_door = |u, v| {
            nav.doors
                .iter()
                .flat_map(|d| &d.edges)
                .any(|&(a, b, _)| (a, b) == (u, v) || (a, b) == (v, u))
        };
        let edges = (0..graph.node_count())
            .flat_map(|u| graph.neighbors(u).map(move |(v, _)| (u, v)))
            // Each undirected edge once; a one-way edge too.
            .filter(|&(u, v)| u < v || graph.edge_cost(v, u).is_none())
            .filter(|&(u, v)| !is_door(u, v))
            .filter_map(|(u, v)| line(u, v))
            .collect();
        let doors = nav
            .doors
            .iter()
            .map(|d| {
                let lines = d.edges.iter().filter_map(|&(u, v, _)| line(u, v)).collect();
                (p.shared_name(d.name), lines)
            })
            .collect();
        NavInfo { edges, doors }
    }
}

/// An HMM space: its name, its states, where its belief starts.
#[derive(Debug)]
pub struct SpaceInfo {
    pub name: Arc<str>,
    pub states: Vec<Arc<str>>,
    pub start: usize,
}

/// A smart location on the map.
#[derive(Debug)]
pub struct PlaceInfo {
    pub name: Arc<str>,
    pub at: [f64; 2],
    pub radius: f64,
    /// Props: (name, kind).
    pub props: Vec<(Arc<str>, Arc<str>)>,
}

impl WorldInfo {
    pub fn of(sim: &Simulation, program: u32) -> WorldInfo {
        let p = sim.program();
        let locations = p
            .locations
            .iter()
            .map(|l| (p.shared_name(l.name), [l.x, l.y]))
            .collect();
        let places = p
            .smart_locations
            .iter()
            .map(|s| {
                let at = &p.locations[s.at.index()];
                PlaceInfo {
                    name: p.shared_name(s.name),
                    at: [at.x, at.y],
                    radius: s.radius,
                    props: s
                        .props
                        .iter()
                        .map(|(n, k)| (p.shared_name(*n), p.shared_name(*k)))
                        .collect(),
                }
            })
            .collect();
        let spaces = sim
            .beliefs()
            .into_iter()
            .map(|b| SpaceInfo {
                name: b.space,
                states: b.states.into_iter().map(|(n, _)| n).collect(),
                start: b.start,
            })
            .collect();
        WorldInfo {
            scene: sim.name().to_string(),
            kind: sim.kind(),
            dt: sim.dt(),
            locations,
            places,
            spaces,
            nav: NavInfo::of(p),
            program,
        }
    }

    /// The states of every space, flattened: what [`Snapshot::beliefs`] indexes.
    pub fn belief_len(&self) -> usize {
        self.spaces.iter().map(|s| s.states.len()).sum()
    }
}

/// A running script instance as the blackboard view shows it.
#[derive(Debug, PartialEq)]
pub struct Board {
    pub location: Arc<str>,
    pub script: Arc<str>,
    pub instance: u64,
    pub version: u64,
    pub participants: Vec<Participant>,
    /// Its tuple space, sorted.
    pub facts: Arc<[String]>,
}

/// The state of a scene at one tick, as the views show it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub tick: u64,
    pub time: f64,
    pub world: Arc<WorldInfo>,
    pub agents: Arc<[AgentView]>,
    pub boards: Arc<[Arc<Board>]>,
    /// b(state) of every space's states, in [`WorldInfo::spaces`] order (empty for scenes of
    /// machine agents).
    pub beliefs: Arc<[f32]>,
    /// A conversation's situational variables that hold something: (variable, what it holds).
    pub situation: Arc<[(String, String)]>,
    /// A conversation waits for the player's line.
    pub awaits_player: bool,
    /// Which doors of [`NavInfo::doors`] are closed.
    pub doors: Arc<[bool]>,
    /// The route each agent of `agents` (in its order) is walking; `None` while it does not
    /// walk. The points are shared with the simulation's plan, so a tick costs an index.
    pub routes: Arc<[Option<RouteAhead>]>,
}

impl Snapshot {
    pub fn agent(&self, name: &str) -> Option<&AgentView> {
        self.agents.iter().find(|a| &*a.name == name)
    }

    /// What `agent` still has to walk, its destination last; empty while it does not walk.
    pub fn route_ahead(&self, agent: &str) -> &[[f64; 2]] {
        self.agents
            .iter()
            .position(|a| &*a.name == agent)
            .and_then(|i| self.routes.get(i))
            .and_then(Option::as_ref)
            .map_or(&[], RouteAhead::ahead)
    }

    /// The script instance `agent` takes part in, and its participant entry.
    pub fn board_of(&self, agent: &str) -> Option<(&Board, &Participant)> {
        self.boards.iter().find_map(|b| {
            b.participants
                .iter()
                .find(|p| &*p.name == agent)
                .map(|p| (&**b, p))
        })
    }
}

/// Rough heap bytes of values, for the history's budget.
fn names_bytes<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.map(|n| n.len() + 16).sum()
}

pub(super) fn agents_bytes(agents: &[AgentView]) -> usize {
    agents
        .iter()
        .map(|a| {
            std::mem::size_of::<AgentView>()
                + a.states.len() * std::mem::size_of::<ensemble_sim::simulation::ActiveState>()
        })
        .sum()
}

fn board_bytes(b: &Board, facts_new: bool) -> usize {
    let facts = if facts_new {
        names_bytes(b.facts.iter().map(String::as_str))
    } else {
        0
    };
    std::mem::size_of::<Board>() + b.participants.len() * std::mem::size_of::<Participant>() + facts
}

/// Makes snapshots of a simulation, sharing with the previous one what did not change.
#[derive(Default)]
pub struct Recorder {
    last: Option<Snapshot>,
}

impl Recorder {
    /// A snapshot of `sim` now, and the bytes it adds to what the last one held.
    pub fn record(&mut self, sim: &Simulation, world: &Arc<WorldInfo>) -> (Snapshot, usize) {
        let mut bytes = std::mem::size_of::<Snapshot>();
        let last = self.last.as_ref().filter(|l| Arc::ptr_eq(&l.world, world));

        let agents = sim.agents();
        let agents: Arc<[AgentView]> = match last {
            Some(l) if *l.agents == *agents => l.agents.clone(),
            _ => {
                bytes += agents_bytes(&agents);
                agents.into()
            }
        };

        let boards: Vec<Arc<Board>> = sim
            .blackboards()
            .into_iter()
            .map(|b| {
                let before = last.and_then(|l| {
                    l.boards
                        .iter()
                        .find(|o| o.location == b.location && o.instance == b.instance)
                });
                let same_facts = before.filter(|o| o.version == b.version && o.script == b.script);
                let facts = match same_facts {
                    Some(o) => o.facts.clone(),
                    None => b.facts().into(),
                };
                let board = Board {
                    location: b.location,
                    script: b.script,
                    instance: b.instance,
                    version: b.version,
                    participants: b.participants,
                    facts,
                };
                match before {
                    Some(o) if **o == board => o.clone(),
                    _ => {
                        bytes += board_bytes(&board, same_facts.is_none());
                        Arc::new(board)
                    }
                }
            })
            .collect();
        let boards: Arc<[Arc<Board>]> = match last {
            Some(l)
                if l.boards.len() == boards.len()
                    && l.boards.iter().zip(&boards).all(|(a, b)| Arc::ptr_eq(a, b)) =>
            {
                l.boards.clone()
            }
            _ => boards.into(),
        };

        let beliefs: Vec<f32> = sim
            .beliefs()
            .iter()
            .flat_map(|b| b.states.iter().map(|(_, p)| *p as f32))
            .collect();
        let beliefs: Arc<[f32]> = match last {
            Some(l) if *l.beliefs == *beliefs => l.beliefs.clone(),
            _ => {
                bytes += beliefs.len() * 4;
                beliefs.into()
            }
        };

        let situation = sim.situation();
        let situation: Arc<[(String, String)]> = match last {
            Some(l) if *l.situation == *situation => l.situation.clone(),
            _ => {
                bytes += situation
                    .iter()
                    .map(|(v, h)| v.len() + h.len())
                    .sum::<usize>();
                situation.into()
            }
        };

        let doors: Vec<bool> = (0..world.nav.doors.len())
            .map(|i| {
                sim.scene()
                    .and_then(|s| s.game.nav.as_ref())
                    .is_some_and(|n| n.is_closed(i))
            })
            .collect();
        let doors: Arc<[bool]> = match last {
            Some(l) if *l.doors == *doors => l.doors.clone(),
            _ => {
                bytes += doors.len();
                doors.into()
            }
        };

        let routes: Vec<Option<RouteAhead>> = agents
            .iter()
            .map(|a| sim.scene().and_then(|s| s.game.walk(a.id)).cloned())
            .collect();
        let routes: Arc<[Option<RouteAhead>]> = match last {
            Some(l) if *l.routes == *routes => l.routes.clone(),
            _ => {
                // A new plan's points are new; the rest shares them.
                let fresh = routes.iter().flatten().filter(|r| {
                    last.is_none_or(|l| {
                        !l.routes
                            .iter()
                            .flatten()
                            .any(|o| Arc::ptr_eq(&o.points, &r.points))
                    })
                });
                bytes += routes.len() * std::mem::size_of::<Option<RouteAhead>>()
                    + fresh.map(|r| r.points.len() * 16).sum::<usize>();
                routes.into()
            }
        };

        let snapshot = Snapshot {
            tick: sim.tick_count(),
            time: sim.now(),
            world: world.clone(),
            agents,
            boards,
            beliefs,
            situation,
            awaits_player: sim.awaits_player(),
            doors,
            routes,
        };
        self.last = Some(snapshot.clone());
        (snapshot, bytes)
    }
}

/// How much history the preview keeps by default.
pub const HISTORY_BYTES: usize = 64 << 20;
pub const HISTORY_EVENTS: usize = 200_000;

/// The recorded past of a run: snapshots (every tick while the budget allows, thinned beyond),
/// trace events and the transcript.
pub struct History {
    snapshots: VecDeque<(Snapshot, usize)>,
    bytes: usize,
    budget: usize,
    events: VecDeque<TraceEvent>,
    /// Events dropped from the front so far: event `i` of the run is `events[i - dropped]`.
    dropped: usize,
    event_cap: usize,
    transcript: VecDeque<Line>,
    /// Ticks of reloads (`true`) and refused reloads (`false`), for the scrubber's marks.
    pub reloads: Vec<(u64, bool)>,
}

impl Default for History {
    fn default() -> Self {
        History::new(HISTORY_BYTES, HISTORY_EVENTS)
    }
}

impl History {
    pub fn new(budget: usize, event_cap: usize) -> History {
        History {
            snapshots: VecDeque::new(),
            bytes: 0,
            budget,
            events: VecDeque::new(),
            dropped: 0,
            event_cap: event_cap.max(1),
            transcript: VecDeque::new(),
            reloads: Vec::new(),
        }
    }

    /// Adds the snapshot of a tick and the events that led to it.
    pub fn push(&mut self, snapshot: Snapshot, bytes: usize, events: Vec<TraceEvent>) {
        for e in events {
            match &e.kind {
                EventKind::Reload { .. } => self.reloads.push((e.tick, true)),
                EventKind::ReloadRejected { .. } => self.reloads.push((e.tick, false)),
                _ => {}
            }
            if let Some(line) = Line::of(&e) {
                if self.transcript.len() == ensemble_sim::simulation::TRANSCRIPT_LINES {
                    self.transcript.pop_front();
                }
                self.transcript.push_back(line);
            }
            if self.events.len() == self.event_cap {
                self.events.pop_front();
                self.dropped += 1;
            }
            self.events.push_back(e);
        }
        // A tick can be recorded twice (a reload between ticks: before and after it); both
        // stay, and the later one answers for the tick.
        self.bytes += bytes;
        self.snapshots.push_back((snapshot, bytes));
        while self.bytes > self.budget && self.snapshots.len() > 2 {
            self.thin();
        }
    }

    /// Drops every other snapshot of the oldest half (the first one stays).
    fn thin(&mut self) {
        let half = self.snapshots.len() / 2;
        let mut kept = VecDeque::with_capacity(self.snapshots.len());
        for (i, entry) in std::mem::take(&mut self.snapshots).into_iter().enumerate() {
            if i < half && i % 2 == 1 {
                self.bytes -= entry.1;
            } else {
                kept.push_back(entry);
            }
        }
        self.snapshots = kept;
    }

    pub fn latest(&self) -> Option<&Snapshot> {
        self.snapshots.back().map(|(s, _)| s)
    }

    pub fn first_tick(&self) -> Option<u64> {
        self.snapshots.front().map(|(s, _)| s.tick)
    }

    /// The state as it was at `tick`: the last snapshot recorded at or before it.
    pub fn at(&self, tick: u64) -> Option<&Snapshot> {
        let i = self.snapshots.partition_point(|(s, _)| s.tick <= tick);
        i.checked_sub(1).map(|i| &self.snapshots[i].0)
    }

    /// The snapshot recorded before `snapshot` (what "changed in the last tick" compares with).
    pub fn before(&self, snapshot: &Snapshot) -> Option<&Snapshot> {
        let i = self
            .snapshots
            .partition_point(|(s, _)| s.tick < snapshot.tick);
        i.checked_sub(1).map(|i| &self.snapshots[i].0)
    }

    /// Snapshots with ticks in `from..=to`, oldest first.
    pub fn range(&self, from: u64, to: u64) -> impl Iterator<Item = &Snapshot> {
        let start = self.snapshots.partition_point(|(s, _)| s.tick < from);
        self.snapshots
            .range(start..)
            .map(|(s, _)| s)
            .take_while(move |s| s.tick <= to)
    }

    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }

    /// Estimated bytes the snapshots hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Events kept, oldest first, with their index in the run.
    pub fn events(
        &self,
    ) -> impl DoubleEndedIterator<Item = (usize, &TraceEvent)> + ExactSizeIterator {
        self.events
            .iter()
            .enumerate()
            .map(move |(i, e)| (i + self.dropped, e))
    }

    /// Event `index` of the run, if still kept.
    pub fn event(&self, index: usize) -> Option<&TraceEvent> {
        self.events.get(index.checked_sub(self.dropped)?)
    }

    /// How many events the run has recorded (kept or dropped).
    pub fn event_total(&self) -> usize {
        self.dropped + self.events.len()
    }

    /// Events dropped to keep the count bounded.
    pub fn events_dropped(&self) -> usize {
        self.dropped
    }

    /// Lines said up to `tick`, oldest first.
    pub fn transcript_until(&self, tick: u64) -> impl DoubleEndedIterator<Item = &Line> {
        let end = self.transcript.partition_point(|l| l.tick <= tick);
        self.transcript.range(..end)
    }
}

/// Runs `test` with `seed` from tick 0 as `ensemble test` does (its setup, messages and player
/// lines), recording a snapshot per tick: a content test's run, or a play `reach` found, for
/// the timeline. Blocks: call it off the UI thread.
pub fn replay(
    program: &Arc<Program>,
    test: &ensemble_compiler::formats::tests::TestAsset,
    seed: u64,
) -> Result<History, String> {
    let mut history = History::default();
    let mut recorder = Recorder::default();
    let mut world: Option<Arc<WorldInfo>> = None;
    ensemble_compiler::content_test::drive(program, test, seed, |sim, events| {
        let world = world.get_or_insert_with(|| Arc::new(WorldInfo::of(sim, 0)));
        let (snapshot, bytes) = recorder.record(sim, world);
        history.push(snapshot, bytes, events.to_vec());
    })?;
    Ok(history)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_runtime::hsm::{AgentId, AgentStatus};
    use ensemble_sim::simulation::AgentKind;

    fn world() -> Arc<WorldInfo> {
        Arc::new(WorldInfo {
            scene: "s".into(),
            kind: SceneKind::Machines,
            dt: 0.1,
            locations: Vec::new(),
            places: Vec::new(),
            spaces: Vec::new(),
            nav: NavInfo::default(),
            program: 0,
        })
    }

    fn snapshot(tick: u64, x: f64) -> Snapshot {
        Snapshot {
            tick,
            time: tick as f64 * 0.1,
            world: world(),
            agents: vec![AgentView {
                id: AgentId(0),
                name: "a".into(),
                kind: AgentKind::Machine,
                at: Some([x, 0.0]),
                status: AgentStatus::Running,
                states: Vec::new(),
                partner: None,
            }]
            .into(),
            boards: Vec::new().into(),
            beliefs: Vec::new().into(),
            situation: Vec::new().into(),
            awaits_player: false,
            doors: Vec::new().into(),
            routes: Vec::new().into(),
        }
    }

    fn say(tick: u64, text: &str) -> TraceEvent {
        TraceEvent {
            tick,
            time: tick as f64,
            agent: Some("a".into()),
            kind: EventKind::Say {
                text: text.into(),
                sentence: None,
                candidate: None,
            },
        }
    }

    /// The airport's terminal graph is on the map, and its door closes at 29 s and opens at
    /// 45 s in the snapshots as in the scene.
    #[test]
    fn the_map_has_the_navigation_graph_and_its_doors_as_they_stand() {
        use ensemble_sim::simulation::Options;
        let program = crate::preview::worker::tests::sample("airport");
        let mut sim = Simulation::start(program, "lane-closed", 7, &Options::default()).unwrap();
        let world = Arc::new(WorldInfo::of(&sim, 0));
        // terminal.nav.ron: 26 edges, one of them the door's.
        assert_eq!(world.nav.edges.len(), 25);
        let names: Vec<&str> = world.nav.doors.iter().map(|d| &*d.0).collect();
        assert_eq!(names, ["SecurityLaneA"]);
        assert_eq!(world.nav.doors[0].1, [[[19.0, -6.0], [21.0, -6.0]]]);
        let mut recorder = Recorder::default();
        let mut closed = Vec::new();
        for _ in 0..1500 {
            sim.tick();
            let (s, _) = recorder.record(&sim, &world);
            closed.push((s.time, s.doors[0]));
        }
        let shut: Vec<f64> = closed.iter().filter(|c| c.1).map(|c| c.0).collect();
        assert!(
            (shut[0] - 29.0).abs() < 0.05 && (shut[shut.len() - 1] - 45.0).abs() < 0.05,
            "closed from {} to {}",
            shut[0],
            shut[shut.len() - 1]
        );
        // A program without a graph has nothing to draw.
        let bench = crate::preview::worker::tests::sample("bench");
        let sim = Simulation::start(bench, "bench", 11, &Options::default()).unwrap();
        let nav = &WorldInfo::of(&sim, 0).nav;
        assert!(nav.edges.is_empty() && nav.doors.is_empty());
    }
    /// buyer1 of lane-closed heads for the gate through lane A; the lane shuts at 29 s (tick
    /// 871, the golden trace's re-route) and its route turns to lane B. The history keeps the
    /// route of every tick, so scrubbing back shows lane A again.
    #[test]
    fn the_route_ahead_is_recorded_and_changes_when_a_door_shuts() {
        use ensemble_sim::simulation::Options;
        let program = crate::preview::worker::tests::sample("airport");
        let mut sim = Simulation::start(program, "lane-closed", 7, &Options::default()).unwrap();
        let world = Arc::new(WorldInfo::of(&sim, 0));
        let (lane_a, lane_b) = ([19.0, -6.0], [19.0, 5.0]);
        let gate = world.locations.iter().find(|l| &*l.0 == "Gate").unwrap().1;
        let mut recorder = Recorder::default();
        let mut history = History::new(HISTORY_BYTES, HISTORY_EVENTS);
        let mut rerouted = None;
        for _ in 0..1100 {
            sim.tick();
            let events = sim.take_events();
            if rerouted.is_none()
                && events.iter().any(|e| {
                    e.agent.as_deref() == Some("buyer1")
                        && matches!(e.kind, EventKind::Path { reroute: true, .. })
                })
            {
                rerouted = Some(sim.tick_count());
            }
            let (s, bytes) = recorder.record(&sim, &world);
            history.push(s, bytes, events);
        }
        let rerouted = rerouted.expect("buyer1 re-routes when lane A shuts");
        assert_eq!(rerouted, 871, "the golden trace's tick");
        let route = |tick| history.at(tick).unwrap().route_ahead("buyer1").to_vec();
        let before = route(rerouted - 1);
        let after = route(rerouted);
        assert!(
            before.contains(&lane_a) && !before.contains(&lane_b),
            "{before:?}"
        );
        assert!(
            after.contains(&lane_b) && !after.contains(&lane_a),
            "{after:?}"
        );
        assert_eq!(before.last(), Some(&gate));
        assert_eq!(after.last(), Some(&gate));
        // Scrubbing back to where the first walk to the gate was planned shows it whole.
        let planned = route(800);
        assert!(planned.contains(&lane_a), "{planned:?}");
        // Points passed drop out: by tick 1050 buyer1 is past the east corridor.
        let later = route(1050);
        assert!(
            after.contains(&[18.5, 0.0]) && !later.contains(&[18.5, 0.0]),
            "{later:?}"
        );
        assert!(later.contains(&lane_b) && later.len() < after.len());
        // At the counter buyer1 stood still: no route.
        assert!(route(700).is_empty());
        // The seller walked only at the start.
        assert!(!history.at(2).unwrap().route_ahead("seller").is_empty());
        assert!(history.latest().unwrap().route_ahead("seller").is_empty());
    }

    #[test]
    fn scrubbing_finds_the_state_as_it_was() {
        let mut h = History::new(1 << 20, 100);
        for t in 0..50 {
            h.push(
                snapshot(t, t as f64),
                100,
                vec![say(t, &format!("line {t}"))],
            );
        }
        assert_eq!(h.at(20).unwrap().agents[0].at, Some([20.0, 0.0]));
        assert_eq!(h.before(h.at(20).unwrap()).unwrap().tick, 19);
        assert_eq!(h.latest().unwrap().tick, 49);
        assert_eq!(
            h.range(10, 12).map(|s| s.tick).collect::<Vec<_>>(),
            [10, 11, 12]
        );
        assert_eq!(h.transcript_until(4).count(), 5);
        assert_eq!(h.transcript_until(4).last().unwrap().text, "line 4");
        assert!(h.at(100).is_some());
    }

    #[test]
    fn the_budget_thins_the_far_past_and_keeps_the_recent_past_whole() {
        let budget = 100 * 64;
        let mut h = History::new(budget, 1000);
        for t in 0..10_000 {
            h.push(snapshot(t, t as f64), 100, Vec::new());
            assert!(h.bytes() <= budget, "tick {t}: {} bytes", h.bytes());
        }
        // The first tick and the last ones stay; ticks stay in order.
        assert_eq!(h.first_tick(), Some(0));
        let ticks: Vec<u64> = h.range(0, u64::MAX).map(|s| s.tick).collect();
        assert!(ticks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*ticks.last().unwrap(), 9_999);
        assert!(
            ticks
                .iter()
                .rev()
                .take(8)
                .zip((9_992..10_000).rev())
                .all(|(a, b)| *a == b)
        );
        // Any tick is answered by the closest snapshot at or before it.
        let s = h.at(5_000).unwrap();
        assert!(s.tick <= 5_000);
        assert!(h.snapshot_count() <= 64);
    }

    #[test]
    fn events_are_bounded_oldest_first() {
        let mut h = History::new(1 << 20, 10);
        for t in 0..25 {
            h.push(snapshot(t, 0.0), 10, vec![say(t, "x")]);
        }
        assert_eq!(h.event_total(), 25);
        assert_eq!(h.events_dropped(), 15);
        let (first, e) = h.events().next().unwrap();
        assert_eq!((first, e.tick), (15, 15));
        assert!(h.event(3).is_none());
        assert_eq!(h.event(20).unwrap().tick, 20);
        // The transcript keeps its own, longer memory.
        assert_eq!(h.transcript_until(100).count(), 25);
    }

    #[test]
    fn a_tick_recorded_twice_keeps_both_and_answers_with_the_later() {
        let mut h = History::new(1 << 20, 100);
        h.push(snapshot(0, 0.0), 10, Vec::new());
        h.push(snapshot(1, 1.0), 10, Vec::new());
        h.push(snapshot(1, 5.0), 10, Vec::new());
        h.push(snapshot(2, 6.0), 10, Vec::new());
        assert_eq!(h.snapshot_count(), 4);
        assert_eq!(h.at(1).unwrap().agents[0].at, Some([5.0, 0.0]));
        let both: Vec<_> = h.range(1, 1).map(|s| s.agents[0].at).collect();
        assert_eq!(both, [Some([1.0, 0.0]), Some([5.0, 0.0])]);
        assert_eq!(
            h.before(h.at(2).unwrap()).unwrap().agents[0].at,
            Some([5.0, 0.0])
        );
    }
}
