//! The search: best-first over snapshots of the scene. A node is the scene saved between ticks
//! with the play that led there; an edge restores it and takes one choice — go on, send a
//! message, say a player line, do what a player does at a smart location, or go on with one
//! of the draws going on made forced to another outcome — then runs to the next choice point
//! (`step` ticks, or until a conversation's agent waits for the player again). Roots are the
//! seeds, each alone or with one setup (an action mocked to fail, a world event moved, a
//! variable set). Nodes are ordered by the distance heuristic, then by how many
//! inputs their play has, then later ticks first (so a run goes on while it gets no farther from
//! the target); a snapshot seen before is not searched twice.
//!
//! A play that shows the target is run again from tick 0 as `ensemble test` runs it; only a
//! play that passes there is reported, shortened by dropping each input it can do without.

use super::graph::{Distances, FAR, ScriptDistances, SpaceDistances};
use super::{Choices, Play, Target};
use crate::content_test::asset::{DrawKind, EventPattern, SetupAsset, TestEvent};
use crate::content_test::expect::Recorded;
use crate::content_test::run::{Deadline, drive_until, setup_of};
use ensemble_runtime::Program;
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_runtime::trace::TraceEvent;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::Options;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How far a search may go.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Ticks a run lasts at most (a conversation: iterations).
    pub ticks: u64,
    /// Inputs a play has at most: messages, mocked failures, player lines.
    pub inputs: usize,
    /// Seeds tried: 0 to `seeds - 1`.
    pub seeds: u64,
    /// Wall time for the whole search.
    pub time: Duration,
    /// Ticks between two choice points of a machine scene.
    pub step: u64,
}

impl Budget {
    /// As reports print it.
    pub fn describe(&self, chat: bool) -> String {
        let unit = if chat { "iterations" } else { "ticks" };
        let step = if chat {
            String::new()
        } else {
            format!(", a choice every {} ticks", self.step)
        };
        format!(
            "{} {unit} a run, {} inputs, seeds 0-{}, {} s{step}",
            self.ticks,
            self.inputs,
            self.seeds.saturating_sub(1),
            self.time.as_secs_f64()
        )
    }
}

/// What a search did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Choice points searched (snapshots taken).
    pub nodes: usize,
    /// Snapshots restored.
    pub restores: usize,
    /// Ticks simulated.
    pub ticks: u64,
    /// Snapshots seen before, not searched again.
    pub duplicates: usize,
    /// Plays that showed the target but did not pass as a test from tick 0.
    pub unverified: usize,
    pub seconds: f64,
    /// The smallest distance to the target any node had.
    pub best: u32,
}

/// A running search's figures, read from another thread (the editor's progress line), and
/// the flag that stops it there. A stopped search ends as the budget running out.
#[derive(Debug)]
pub struct Progress {
    pub nodes: AtomicUsize,
    pub ticks: AtomicU64,
    /// The smallest distance to the target any node had ([`FAR`] before the first).
    pub best: AtomicU32,
    pub cancel: AtomicBool,
}

impl Default for Progress {
    fn default() -> Progress {
        Progress {
            nodes: AtomicUsize::new(0),
            ticks: AtomicU64::new(0),
            best: AtomicU32::new(FAR),
            cancel: AtomicBool::new(false),
        }
    }
}

impl Progress {
    /// Asks the search to stop at its next choice point.
    pub fn stop(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// How a search ended.
// One a search, moved once: boxing the found play would only add a step to every use.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The play, its verified trace up to the target, and what the written test expects.
    Reached {
        play: Play,
        trace: Vec<TraceEvent>,
        pattern: EventPattern,
    },
    /// No play can reach it, whatever the choices: why.
    Unreachable { why: String },
    /// Not found: the budget ran out (`exhausted_budget` false) or every play within it was tried.
    NotReached { every_play_tried: bool },
    /// The scene could not start.
    CannotRun(String),
}

/// One choice at a node.
#[derive(Clone, Debug)]
enum Choice {
    /// A seed, with its setup: none, one of `Choices::setups`, draws forced.
    Start {
        seed: u64,
        setup: Vec<SetupAsset>,
    },
    Continue,
    Send(usize),
    Say(usize),
    /// What the player does (an index into `Choices::player`).
    Player(usize),
    /// Go on with these draws forced (`Draw` setups), where going on drew otherwise.
    Force(Vec<SetupAsset>),
}

/// The most draws of one step a search forces, and the most other outcomes of each.
const MAX_FORCED_DRAWS: usize = 8;
const MAX_OTHER_OUTCOMES: usize = 4;

struct Node {
    snapshot: Arc<Vec<u8>>,
    play: Play,
    /// Its distance to the target.
    h: u32,
}

/// (distance, inputs, later tick first, order of creation): smallest first.
type Key = (u32, usize, Reverse<u64>, u64);

struct Searcher<'a> {
    program: &'a Arc<Program>,
    scene: &'a str,
    target: &'a Target,
    choices: &'a Choices,
    budget: &'a Budget,
    chat: bool,
    distances: Option<Distances>,
    /// For a rule: distances in its script's state graph.
    script: Option<ScriptDistances>,
    /// Distances in the HMM spaces to the states proposing the target reply (or the target
    /// HMM state).
    spaces: SpaceDistances,
    stats: Stats,
    started: Instant,
    nodes: Vec<Node>,
    heap: BinaryHeap<Reverse<(Key, usize, Option<usize>)>>,
    edges: Vec<Choice>,
    seen: HashSet<u64>,
    order: u64,
    progress: &'a Progress,
    /// The draws the last step made (that picked a branch: lines, chances).
    drawn: Vec<ensemble_sim::Drawn>,
}

/// Searches scene `scene` for a play reaching `target`.
pub fn search(
    program: &Arc<Program>,
    scene: &str,
    target: &Target,
    choices: &Choices,
    budget: &Budget,
) -> (Outcome, Stats) {
    search_watched(
        program,
        scene,
        target,
        choices,
        budget,
        &Progress::default(),
    )
}

/// [`search`], reporting into `progress` as it goes and stopping when it is told to.
pub fn search_watched(
    program: &Arc<Program>,
    scene: &str,
    target: &Target,
    choices: &Choices,
    budget: &Budget,
    progress: &Progress,
) -> (Outcome, Stats) {
    let chat = program
        .hpmm
        .chats
        .iter()
        .any(|c| program.name(c.name) == scene);
    // The proof: a target state no transition path leads to from its machine's initial state.
    for &s in &target.states {
        if !super::graph::enterable(program, s) {
            let st = program.state(s);
            let why = format!(
                "no path of transitions leads from `{}`'s initial state to `{}`: no seed, input \
                 or setup enters it",
                program.name(program.machine(st.machine).name),
                program.name(st.name)
            );
            return (Outcome::Unreachable { why }, Stats::default());
        }
    }
    let distances = (!target.states.is_empty()).then(|| Distances::to(program, &target.states));
    let mut proposing = target
        .hmm_action
        .as_deref()
        .map(|a| proposing(program, a))
        .unwrap_or_default();
    proposing.extend(target.hmm_state.clone());
    let mut s = Searcher {
        program,
        scene,
        target,
        choices,
        budget,
        chat,
        distances,
        script: target
            .rule
            .and_then(|(script, rule)| ScriptDistances::to(program, script, rule)),
        spaces: SpaceDistances::to(program, &proposing),
        stats: Stats {
            best: FAR,
            ..Stats::default()
        },
        started: Instant::now(),
        nodes: Vec::new(),
        heap: BinaryHeap::new(),
        edges: Vec::new(),
        seen: HashSet::new(),
        order: 0,
        progress,
        drawn: Vec::new(),
    };
    let outcome = s.run();
    s.stats.seconds = s.started.elapsed().as_secs_f64();
    (outcome, s.stats)
}

/// The HMM states proposing reply action `action`: (space, state).
fn proposing(program: &Program, action: &str) -> Vec<(String, String)> {
    let m = &program.hpmm;
    let mut out = Vec::new();
    for st in &m.states {
        let Some(a) = st.action else { continue };
        if m.actions
            .get(a.0 as usize)
            .is_some_and(|a| program.name(a.name) == action)
        {
            let space = &m.spaces[st.space.0 as usize];
            out.push((
                program.name(space.name).to_string(),
                program.name(st.name).to_string(),
            ));
        }
    }
    out
}

/// What one edge led to.
// Made and matched at once, never stored.
#[allow(clippy::large_enum_variant)]
enum Step {
    /// The target showed at this play (its `ticks` the tick it happened).
    Hit(Play, Option<EventPattern>),
    /// A new choice point.
    Node(Simulation, Play),
    /// Nothing more to choose: the run ended.
    Leaf,
    Failed(String),
}

impl Searcher<'_> {
    fn options(&self, setup: &[SetupAsset]) -> Options {
        let test = Play {
            setup: setup.to_vec(),
            ..Play::default()
        }
        .test("", self.scene, &self.target.pattern);
        Options {
            setup: setup_of(&test),
            ..Options::default()
        }
    }

    fn push(&mut self, h: u32, inputs: usize, tick: u64, node: Option<usize>, choice: Choice) {
        self.order += 1;
        let e = self.edges.len();
        self.edges.push(choice);
        let key = (h, inputs, Reverse(tick), self.order);
        self.heap.push(Reverse((key, e, node)));
    }

    fn run(&mut self) -> Outcome {
        let h0 = FAR.min(self.initial_distance());
        for seed in 0..self.budget.seeds {
            let setup = Vec::new();
            self.push(h0, 0, 0, None, Choice::Start { seed, setup });
            if self.budget.inputs > 0 && !self.chat {
                for f in 0..self.choices.setups.len() {
                    let setup = vec![self.choices.setups[f].clone()];
                    self.push(h0, 1, 0, None, Choice::Start { seed, setup });
                }
            }
        }
        let mut live: Option<(usize, Simulation)> = None;
        let mut timed_out = false;
        while let Some(Reverse((_, edge, node))) = self.heap.pop() {
            if self.started.elapsed() >= self.budget.time || self.progress.stopped() {
                timed_out = true;
                break;
            }
            let choice = self.edges[edge].clone();
            let reuse = match (&live, node) {
                (Some((n, _)), Some(m)) if *n == m => live.take().map(|(_, s)| s),
                _ => None,
            };
            let step = self.take(node, choice.clone(), reuse);
            if !matches!(step, Step::Hit(..) | Step::Failed(_)) {
                self.force(node, &choice, h0);
            }
            match step {
                Step::Hit(play, pattern) => {
                    let pattern = pattern.unwrap_or_else(|| self.target.pattern.clone());
                    if let Some((play, trace)) = self.verify(play, &pattern) {
                        let play = self.shorten(play, &pattern);
                        let trace = self.verify(play.clone(), &pattern).map_or(trace, |v| v.1);
                        return Outcome::Reached {
                            play,
                            trace,
                            pattern,
                        };
                    }
                    self.stats.unverified += 1;
                }
                Step::Node(sim, play) => {
                    if let Some(id) = self.add_node(&sim, play) {
                        live = Some((id, sim));
                    }
                }
                Step::Leaf => {}
                Step::Failed(why) => {
                    if self.stats.nodes == 0 {
                        return Outcome::CannotRun(why);
                    }
                }
            }
        }
        Outcome::NotReached {
            every_play_tried: !timed_out,
        }
    }

    /// Queues, from the node `choice` was taken at, the same step with one more of its draws
    /// forced to another outcome (each draw a choice, one input).
    fn force(&mut self, node: Option<usize>, choice: &Choice, h0: u32) {
        let drawn = std::mem::take(&mut self.drawn);
        let (inputs, h, tick) = match node {
            Some(n) => {
                let node = &self.nodes[n];
                (node.play.inputs(), node.h, node.play.ticks)
            }
            None => (0, h0, 0),
        };
        let (already, seed) = match choice {
            Choice::Start { seed, setup } => (setup.clone(), Some(*seed)),
            Choice::Force(v) => (v.clone(), None),
            Choice::Continue => (Vec::new(), None),
            _ => return,
        };
        let inputs = inputs + already.len();
        if inputs + 1 > self.budget.inputs {
            return;
        }
        for d in drawn.iter().take(MAX_FORCED_DRAWS) {
            let kind = match d.kind {
                ensemble_runtime::rng::DrawKind::Line => DrawKind::Line,
                ensemble_runtime::rng::DrawKind::Chance => DrawKind::Chance,
            };
            let others = (0..d.outcomes).filter(|o| *o != d.happened);
            for value in others.take(MAX_OTHER_OUTCOMES) {
                let mut setup = already.clone();
                setup.push(SetupAsset::Draw {
                    kind,
                    n: d.n,
                    value: value as u32,
                });
                let next = match seed {
                    Some(seed) => Choice::Start { seed, setup },
                    None => Choice::Force(setup),
                };
                self.push(h, inputs + 1, tick, node, next);
            }
        }
    }

    /// The distance at the start: from the initial states of the agents' root machines.
    fn initial_distance(&self) -> u32 {
        let Some(d) = &self.distances else { return 0 };
        let Some(id) = self.program.scene_by_name(self.scene) else {
            return 0;
        };
        let def = &self.program.scenes[id.index()];
        def.agents
            .iter()
            .filter(|a| {
                self.target
                    .agent
                    .as_deref()
                    .is_none_or(|n| self.program.name(a.name) == n)
            })
            .map(|a| d.from(self.program.machine(a.machine).initial))
            .min()
            .unwrap_or(FAR)
    }

    /// Restores `node` (or takes the live simulation, already there), applies `choice`, and
    /// runs to the next choice point.
    fn take(&mut self, node: Option<usize>, choice: Choice, reuse: Option<Simulation>) -> Step {
        self.drawn.clear();
        // A player's event refused (out of the icon's reach, no script to join) leads nowhere.
        let mut acted = false;
        let (mut sim, mut play) = match (node, &choice) {
            (None, Choice::Start { seed, setup }) => {
                let play = Play {
                    seed: *seed,
                    setup: setup.clone(),
                    ..Play::default()
                };
                let options = self.options(&play.setup);
                let mut sim =
                    match Simulation::start(self.program.clone(), self.scene, *seed, &options) {
                        Ok(s) => s,
                        Err(e) => {
                            return Step::Failed(format!("cannot start `{}`: {e}", self.scene));
                        }
                    };
                let events = sim.take_events();
                self.drawn.extend(sim.take_draws());
                if let Some(hit) = self.hit(&sim, &events, &play) {
                    return hit;
                }
                if !self.chat || sim.awaits_player() {
                    return Step::Node(sim, play);
                }
                (sim, play)
            }
            (Some(n), _) => {
                let mut play = self.nodes[n].play.clone();
                // Forced draws are options of the run: the node is restored under them.
                let reuse = match &choice {
                    Choice::Force(v) => {
                        play.setup.extend(v.iter().cloned());
                        None
                    }
                    _ => reuse,
                };
                let mut sim = match reuse {
                    Some(sim) => sim,
                    None => {
                        self.stats.restores += 1;
                        let options = self.options(&play.setup);
                        let reader = match SnapshotReader::from_bytes(&self.nodes[n].snapshot) {
                            Ok(r) => r,
                            Err(e) => return Step::Failed(format!("snapshot: {e}")),
                        };
                        match Simulation::restore(self.program.clone(), &reader, &options) {
                            Ok((mut sim, _)) => {
                                // Whatever a restore records is not part of the play.
                                let _ = sim.take_events();
                                sim
                            }
                            Err(e) => return Step::Failed(format!("restore: {e}")),
                        }
                    }
                };
                // What the node's own step drew is not this step's.
                let _ = sim.take_draws();
                (sim, play)
            }
            (None, _) => return Step::Leaf,
        };
        match choice {
            Choice::Send(m) => {
                let (to, message) = &self.choices.messages[m];
                let tick = sim.tick_count() + 1;
                if send(&mut sim, to, message).is_err() {
                    return Step::Leaf;
                }
                play.events.push(TestEvent::Send {
                    tick,
                    to: to.clone(),
                    message: message.clone(),
                    from: None,
                });
            }
            Choice::Say(l) => {
                let line = self.choices.lines[l].clone();
                sim.say(&line);
                play.chat.push(line);
            }
            Choice::Player(i) => {
                let event = super::player::at(&self.choices.player[i], sim.tick_count() + 1);
                if crate::content_test::player::apply(&mut sim, &event).is_err() {
                    return Step::Leaf;
                }
                play.events.push(event);
                acted = true;
            }
            Choice::Start { .. } | Choice::Continue | Choice::Force(_) => {}
        }
        // Run to the next choice point.
        let mut ran = 0;
        loop {
            if sim.tick_count() >= self.budget.ticks {
                return Step::Leaf;
            }
            sim.tick();
            self.stats.ticks += 1;
            self.progress.ticks.fetch_add(1, Ordering::Relaxed);
            ran += 1;
            if std::mem::take(&mut acted) && !sim.refused().is_empty() {
                return Step::Leaf;
            }
            let events = sim.take_events();
            self.drawn.extend(sim.take_draws());
            play.ticks = sim.tick_count();
            if let Some(hit) = self.hit(&sim, &events, &play) {
                return hit;
            }
            if self.chat {
                if sim.awaits_player() {
                    break;
                }
            } else if ran >= self.budget.step {
                break;
            }
        }
        Step::Node(sim, play)
    }

    /// Whether `events` (just recorded), the smart locations or the beliefs show the target.
    fn hit(&self, sim: &Simulation, events: &[TraceEvent], play: &Play) -> Option<Step> {
        let mut play = play.clone();
        play.ticks = sim.tick_count();
        if let Some((space, state)) = &self.target.hmm_state {
            if !most_believed(sim, space, state) {
                return None;
            }
            let shown = events.first().map(|e| pattern_of(&Recorded::of(e)));
            return Some(Step::Hit(play, shown));
        }
        if let Some((script, rule)) = self.target.rule {
            let fired = sim
                .interactions()
                .is_some_and(|i| i.fired_rules().contains(&(script, rule)));
            if !fired {
                return None;
            }
            let name = self
                .program
                .name(self.program.scripts[script as usize].name);
            let recorded: Vec<Recorded> = events.iter().map(Recorded::of).collect();
            let shown = recorded
                .iter()
                .find(|r| r.json.get("script").and_then(|s| s.as_str()) == Some(name))
                .or_else(|| {
                    recorded.iter().find(|r| {
                        matches!(
                            r.json.get("event").and_then(|s| s.as_str()),
                            Some("act" | "done" | "fail" | "say")
                        )
                    })
                })
                .or(recorded.first());
            return Some(Step::Hit(play, shown.map(pattern_of)));
        }
        events
            .iter()
            .any(|e| Recorded::of(e).matches(&self.target.pattern))
            .then(|| Step::Hit(play, None))
    }

    /// Saves `sim` as a new node (unless seen before) and queues its choices.
    fn add_node(&mut self, sim: &Simulation, play: Play) -> Option<usize> {
        let mut writer = SnapshotWriter::new(self.program, "reach");
        if sim.save(&mut writer).is_err() {
            return None;
        }
        let bytes = writer.to_bytes();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        // The mocks are options of the run, not part of the snapshot: the same scene under
        // another mock goes on differently.
        format!("{:?}", play.setup).hash(&mut hasher);
        if !self.seen.insert(hasher.finish()) {
            self.stats.duplicates += 1;
            return None;
        }
        let h = self.distance(sim);
        self.stats.best = self.stats.best.min(h);
        self.stats.nodes += 1;
        self.progress.nodes.fetch_add(1, Ordering::Relaxed);
        self.progress.best.fetch_min(h, Ordering::Relaxed);
        let tick = sim.tick_count();
        let inputs = play.inputs();
        let id = self.nodes.len();
        self.nodes.push(Node {
            snapshot: Arc::new(bytes),
            play,
            h,
        });
        let more = inputs < self.budget.inputs;
        if self.chat {
            if more {
                for l in 0..self.choices.lines.len() {
                    self.push(h, inputs + 1, tick, Some(id), Choice::Say(l));
                }
            }
        } else {
            self.push(h, inputs, tick, Some(id), Choice::Continue);
            if more {
                for m in 0..self.choices.messages.len() {
                    self.push(h, inputs + 1, tick, Some(id), Choice::Send(m));
                }
                for p in 0..self.choices.player.len() {
                    self.push(h, inputs + 1, tick, Some(id), Choice::Player(p));
                }
            }
        }
        Some(id)
    }

    /// The heuristic: transitions from the nearest agent's active states to the target state;
    /// for a rule, rules to fire from the nearest participant's script state to the rule's;
    /// in a conversation, 1000 × the expected transitions of the nearest space's belief to the
    /// states proposing the reply (or the target HMM state).
    fn distance(&self, sim: &Simulation) -> u32 {
        if self.chat {
            if self.spaces.is_empty() {
                return 0;
            }
            let beliefs = sim.beliefs();
            return self
                .spaces
                .of(beliefs.iter().map(|b| (&*b.space, b.states.as_slice())));
        }
        if let Some(sd) = &self.script {
            let boards = sim.blackboards();
            let states = boards
                .iter()
                .flat_map(|b| b.participants.iter().map(move |p| (&*b.script, &*p.state)));
            return sd.nearest(self.program, states);
        }
        let (Some(d), Some(scene)) = (&self.distances, sim.scene()) else {
            return 0;
        };
        scene
            .agents()
            .filter(|a| {
                self.target
                    .agent
                    .as_deref()
                    .is_none_or(|n| scene.agent_name(*a) == n)
            })
            .map(|a| d.nearest(&scene.active_states(a)))
            .min()
            .unwrap_or(FAR)
    }

    /// Runs `play` from tick 0 as `ensemble test` would; `Some` with its trace when the test
    /// expecting `pattern` passes (the play's `ticks` then end at the first match).
    fn verify(&self, mut play: Play, pattern: &EventPattern) -> Option<(Play, Vec<TraceEvent>)> {
        let test = play.test("reach", self.scene, pattern);
        let left = self
            .budget
            .time
            .saturating_sub(self.started.elapsed())
            .max(Duration::from_secs(5));
        let run = drive_until(
            self.program,
            &test,
            play.seed,
            Some(Deadline::after(left)),
            |_, _| {},
        )
        .ok()?;
        if run.timed_out {
            return None;
        }
        // A rule or an HMM state shows by an event of the tick it happened, or before it (an
        // iteration may record none): the play runs to that tick, and its coverage decides.
        let at = if self.target.rule.is_some() || self.target.hmm_state.is_some() {
            run.trace
                .iter()
                .rposition(|e| e.tick <= play.ticks && Recorded::of(e).matches(pattern))?
        } else {
            let at = run
                .trace
                .iter()
                .position(|e| Recorded::of(e).matches(pattern))?;
            play.ticks = run.trace[at].tick.max(1);
            at
        };
        let mut trace = run.trace;
        trace.truncate(at + 1);
        // The run as written must pass, judged as `ensemble test` judges it, and reach the
        // target where no trace event shows it (a rule, an HMM state) as coverage counts it.
        let rerun = play.test("reach", self.scene, pattern);
        let judged =
            crate::content_test::run::run_one(self.program, 0, &rerun, play.seed, Some(left));
        (judged.passed() && reached_in(self.target, &judged.reached)).then_some((play, trace))
    }

    /// Drops every input the play reaches the target without, one at a time.
    fn shorten(&self, play: Play, pattern: &EventPattern) -> Play {
        let mut best = play;
        let mut i = 0;
        loop {
            let n = best.events.len() + best.setup.len();
            if i >= n || self.started.elapsed() >= self.budget.time || self.progress.stopped() {
                break;
            }
            let mut fewer = best.clone();
            if i < fewer.events.len() {
                fewer.events.remove(i);
            } else {
                fewer.setup.remove(i - best.events.len());
            }
            match self.verify(fewer, pattern) {
                Some((p, _)) if p.ticks <= best.ticks || p.inputs() < best.inputs() => best = p,
                _ => i += 1,
            }
        }
        best
    }
}

/// Whether `state` is the most believed state of `space` now.
fn most_believed(sim: &Simulation, space: &str, state: &str) -> bool {
    sim.beliefs().iter().any(|b| {
        *b.space == *space
            && b.states
                .iter()
                .max_by(|x, y| x.1.total_cmp(&y.1))
                .is_some_and(|(s, _)| **s == *state)
    })
}

/// Whether a run that reached `reached` reached the target's rule or HMM state, if it has one.
fn reached_in(target: &Target, reached: &crate::content_test::coverage::Reached) -> bool {
    let rule = target.rule.is_none_or(|r| reached.rules.contains(&r));
    let hmm = target.hmm_state.as_ref().is_none_or(|(sp, st)| {
        reached
            .hmm_states
            .iter()
            .any(|(a, b)| **a == **sp && **b == **st)
    });
    rule && hmm
}

/// A message from outside to agent `to` (from itself, as a test's `Send` without `from`).
fn send(sim: &mut Simulation, to: &str, message: &str) -> Result<(), ()> {
    let Some((scene, _)) = sim.scene_mut() else {
        return Err(());
    };
    let id = scene
        .agents()
        .find(|a| scene.agent_name(*a) == to)
        .ok_or(())?;
    scene.send(id, id, message);
    Ok(())
}

/// The pattern matching exactly the event `r` (its kind and every field a pattern can name).
pub fn pattern_of(r: &Recorded) -> EventPattern {
    let get = |k: &str| r.json.get(k).and_then(|v| v.as_str()).map(str::to_string);
    EventPattern {
        event: get("event").unwrap_or_else(|| "*".into()),
        agent: get("agent"),
        machine: get("machine"),
        state: get("state"),
        fact: get("fact"),
        text: get("text"),
        sentence: get("sentence"),
        action: get("action"),
        target: get("target"),
        script: get("script"),
        role: get("role"),
        name: get("name"),
        from: get("from"),
        to: get("to"),
        problem: get("problem"),
        world: get("world"),
        emote: get("emote"),
        door: get("door"),
    }
}

/// The baseline a search is measured against: plays seeds 0, 1, 2, … with no inputs (a
/// conversation: `budget.inputs` player lines drawn from the seed) from tick 0 until the target
/// happens or the time runs out. Nothing is verified again: each run is already a test's run.
pub fn random_play(
    program: &Arc<Program>,
    scene: &str,
    target: &Target,
    choices: &Choices,
    budget: &Budget,
) -> (Outcome, Stats) {
    let started = Instant::now();
    let mut stats = Stats {
        best: FAR,
        ..Stats::default()
    };
    let mut seed = 0u64;
    let outcome = loop {
        let left = budget.time.saturating_sub(started.elapsed());
        if left.is_zero() {
            break Outcome::NotReached {
                every_play_tried: false,
            };
        }
        let mut play = Play {
            seed,
            ticks: budget.ticks,
            ..Play::default()
        };
        let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
        for _ in 0..budget.inputs.max(1) {
            if choices.lines.is_empty() {
                break;
            }
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            play.chat
                .push(choices.lines[(x >> 33) as usize % choices.lines.len()].clone());
        }
        let test = play.test("random", scene, &target.pattern);
        let run = match drive_until(program, &test, seed, Some(Deadline::after(left)), |_, _| {}) {
            Ok(run) => run,
            Err(why) => break Outcome::CannotRun(why),
        };
        stats.nodes += 1;
        stats.ticks += run.ticks;
        let hit = match (target.rule, &target.hmm_state) {
            (Some(_), _) | (_, Some(_)) => {
                reached_in(target, &run.reached).then_some(run.trace.len())
            }
            (None, None) => run
                .trace
                .iter()
                .position(|e| Recorded::of(e).matches(&target.pattern))
                .map(|i| i + 1),
        };
        if let Some(end) = hit {
            let mut trace = run.trace;
            trace.truncate(end);
            play.ticks = trace.last().map_or(run.ticks, |e| e.tick.max(1));
            break Outcome::Reached {
                play,
                trace,
                pattern: target.pattern.clone(),
            };
        }
        seed += 1;
    };
    stats.seconds = started.elapsed().as_secs_f64();
    (outcome, stats)
}
