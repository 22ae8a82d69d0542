//! A small simulated world: the implementation of the game-side seam ([`World`]) that
//! `ensemble run`, the editor preview and the samples run on.
//!
//! Agents are points on a plane. Agents that run machines walk along the navigation graph's
//! PPA* paths when the program has one (else straight); agents that smart locations drive walk
//! straight. Script actions take a time that depends on their name (`sit`, `talk`…) and may
//! fail at a seeded rate; a line takes time proportional to its words. All of that is this
//! world's own; the standard library and the smart locations only ask for it through the seam.
//!
//! [`Simulation`] runs a scene of a program in this world (or a conversation with a social
//! agent): the one runner `ensemble run`, its `--watch` mode and the editor preview share.

#[cfg(feature = "inspect")]
pub mod inspect;
pub mod simulation;
pub mod stand_in;
mod walk;

pub use ensemble_runtime::interactions::Interactions;
pub use ensemble_runtime::stdlib::PlanningWorld;
pub use simulation::Simulation;
pub use walk::{NavWorld, RouteAhead};

use ensemble_runtime::hsm::{AgentId, StateLibrary};
use ensemble_runtime::program::{Program, SceneId};
use ensemble_runtime::rng::{DrawKind, Rng};
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::stdlib::StandardState;
use ensemble_runtime::world::{
    ActionId, ActionRequest, Destination, Line, MoveEvent, World, WorldCx,
};
pub use simulation::draws::{Drawn, Draws, ForcedDraw};
use std::collections::BTreeMap;

/// Walking speed of every simulated agent, metres per second.
pub const WALK_SPEED: f64 = 1.4;
/// How close counts as arrived, metres.
pub const ARRIVAL_RADIUS: f64 = 0.05;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    pub x: f64,
    pub y: f64,
}

/// The simulated world: one body per agent, each agent's variables (the values `VARIABLE`
/// slots of sentence states are filled with), the navigation graph as the scene's doors leave
/// it, the moves, actions and lines under way, and the standard library's own state.
#[derive(Clone, Debug, Default)]
pub struct SimWorld {
    pub bodies: Vec<Body>,
    pub variables: Vec<BTreeMap<String, String>>,
    /// Who talks with whom, planning agents' worlds (`World::standard`).
    pub standard: StandardState,
    /// The navigation graph walks are planned on; `None` when the program has none (agents
    /// then walk straight).
    pub nav: Option<NavWorld>,
    /// The scene this world belongs to (its door events apply).
    scene: Option<SceneId>,
    /// Agents `0..machine_agents` run machines: their walks follow the navigation graph.
    /// The others (driven by smart locations) walk straight.
    machine_agents: usize,
    /// The move each agent is making (by agent index).
    moves: Vec<Option<walk::Move>>,
    /// The route each agent is walking (by agent index), for hosts to show; `None` while it
    /// does not walk. Only walks on the graph's terms (machine agents) show, and nothing in
    /// the simulation reads it.
    walks: Vec<Option<RouteAhead>>,
    /// Seconds each agent has left saying its line.
    speaking: Vec<f64>,
    /// Actions under way: when each ends, and whether it fails.
    actions: BTreeMap<ActionId, (f64, bool)>,
    /// Probability that an action fails (seeded).
    failure_rate: f64,
    /// Outcomes a content test forces (first match wins), before `failure_rate` applies.
    forced: Vec<ForcedOutcome>,
    /// Draws that pick a branch, counted, and the ones a content test forces.
    pub draws: Draws,
}

/// An action outcome a content test forces (docs/formats/test.md): every action whose name
/// (and target, when given) matches ends this way, with `probability` (seeded); otherwise the
/// world decides as usual.
#[derive(Clone, Debug, PartialEq)]
pub struct ForcedOutcome {
    /// The action's name; `*` matches any run of characters.
    pub action: String,
    /// Its target, if only actions on some targets are forced; `*` as in `action`.
    pub target: Option<String>,
    /// Succeeds (`true`) or fails.
    pub succeeds: bool,
    /// How often, 0 to 1 (1: always).
    pub probability: f64,
}

impl ForcedOutcome {
    fn applies(&self, action: &str, target: Option<&str>) -> bool {
        wildcard(&self.action, action)
            && match (&self.target, target) {
                (None, _) => true,
                (Some(p), Some(t)) => wildcard(p, t),
                (Some(_), None) => false,
            }
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters (none
/// included) and everything else for itself.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Greedy with one backtrack point: linear for patterns with one `*`, quadratic at worst.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == t[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

impl SimWorld {
    /// The world of a program's scene as it starts: each agent at its start location, with
    /// the variables the program gives it — set up through the seam as every session does
    /// ([`ensemble_runtime::session::set_up`]).
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        let mut world = SimWorld::of_scene(program, scene);
        ensemble_runtime::session::set_up(program, scene, &mut world);
        world
    }

    /// The world of a program's scene before a session sets it up: its navigation view and
    /// room for its agents, none placed yet.
    pub fn of_scene(program: &Program, scene: SceneId) -> Self {
        let def = &program.scenes[scene.index()];
        let agents = def.agents.len() + def.ambient.len();
        SimWorld {
            bodies: vec![Body::default(); agents],
            variables: vec![BTreeMap::new(); agents],
            nav: NavWorld::new(program, scene, 0.0),
            scene: Some(scene),
            machine_agents: def.agents.len(),
            ..SimWorld::default()
        }
    }

    /// Makes each action fail with probability `p` (seeded), to exercise on-error paths.
    pub fn with_failure_rate(mut self, p: f64) -> Self {
        self.failure_rate = p.clamp(0.0, 1.0);
        self
    }

    /// Forces the outcome of the draws a content test names (`Draw` setups).
    pub fn with_forced_draws(mut self, forced: Vec<ForcedDraw>) -> Self {
        self.draws = Draws::new(forced);
        self
    }

    /// Forces the outcome of matching actions (a content test's mocks), checked in order
    /// before the failure rate.
    pub fn with_forced_outcomes(mut self, forced: Vec<ForcedOutcome>) -> Self {
        self.forced = forced;
        self
    }

    /// The outcome a content test forces on an action, if one does (the first matching mock,
    /// drawn from `rng` when it has a probability): `Some(true)` succeeds.
    /// A chance, `Chance` draw that may be forced.
    fn forced_outcome(
        &mut self,
        action: &str,
        target: Option<&str>,
        rng: &mut Rng,
    ) -> Option<bool> {
        let f = self.forced.iter().find(|f| f.applies(action, target))?;
        let (probability, succeeds) = (f.probability, f.succeeds);
        (probability >= 1.0 || self.chance(rng, probability)).then_some(succeeds)
    }

    /// Whether a chance of `p` comes true: drawn from `rng`, as the `Chance` draws decide.
    fn chance(&mut self, rng: &mut Rng, p: f64) -> bool {
        let natural = usize::from(rng.unit() < p);
        self.draws.decide(DrawKind::Chance, 2, natural) == 1
    }

    /// An agent's variable.
    pub fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.variables
            .get(agent.index())
            .and_then(|v| v.get(name))
            .map(String::as_str)
    }

    pub fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        let i = agent.index();
        if i >= self.variables.len() {
            self.variables.resize(i + 1, BTreeMap::new());
        }
        self.variables[i].insert(name.to_string(), value.to_string());
    }

    /// Removes one of an agent's variables, returning its value.
    pub fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        self.variables.get_mut(agent.index())?.remove(name)
    }

    pub fn body(&mut self, agent: AgentId) -> &mut Body {
        let i = agent.index();
        if i >= self.bodies.len() {
            self.bodies.resize(i + 1, Body::default());
        }
        &mut self.bodies[i]
    }

    /// The route `agent` is walking, if it walks.
    pub fn walk(&self, agent: AgentId) -> Option<&RouteAhead> {
        self.walks.get(agent.index()).and_then(Option::as_ref)
    }

    pub(crate) fn set_walk(&mut self, agent: AgentId, walk: Option<RouteAhead>) {
        let i = agent.index();
        if i >= self.walks.len() {
            if walk.is_none() {
                return;
            }
            self.walks.resize(i + 1, None);
        }
        self.walks[i] = walk;
    }

    /// Where `agent` stands, `[x, y]`.
    pub fn body_at(&self, agent: AgentId) -> [f64; 2] {
        self.bodies
            .get(agent.index())
            .map_or([0.0, 0.0], |b| [b.x, b.y])
    }

    /// Whom `agent` is in a conversation with.
    pub fn partner(&self, agent: AgentId) -> Option<AgentId> {
        self.standard.partner(agent)
    }

    /// How long an action takes here, seconds: what the simulator knows of actions.
    fn duration(rng: &mut Rng, action: &str, line: Option<&str>, proxy: bool) -> f64 {
        if proxy {
            // A game system (a shop page opening) answers quickly.
            return rng.range_f64(0.3, 0.6);
        }
        if let Some(line) = line {
            let words = line.split_whitespace().count() as f64;
            return (0.4 * words).max(1.0) + rng.range_f64(0.0, 0.5);
        }
        match action {
            "sit" | "getup" => rng.range_f64(1.2, 1.8),
            "talk" => rng.range_f64(2.0, 4.0),
            "listen" => rng.range_f64(1.5, 3.0),
            _ => rng.range_f64(1.5, 2.5),
        }
    }
}

/// By agent index, growing the vector as agents appear.
fn slot<T: Clone>(v: &mut Vec<T>, agent: AgentId, empty: T) -> &mut T {
    let i = agent.index();
    if i >= v.len() {
        v.resize(i + 1, empty);
    }
    &mut v[i]
}

impl World for SimWorld {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.bodies.get(agent.index()).map(|b| [b.x, b.y])
    }

    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        let body = self.body(agent);
        (body.x, body.y) = (at[0], at[1]);
    }

    fn move_to(&mut self, agent: AgentId, to: Destination, _cx: &mut WorldCx<'_>) {
        let on_graph = agent.index() < self.machine_agents;
        *slot(&mut self.moves, agent, None) = Some(walk::Move::new(to, on_graph));
    }

    fn follow_move(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        let mut m = self.moves.get_mut(agent.index())?.take()?;
        let event = self.step(agent, &mut m, cx);
        self.moves[agent.index()] = Some(m);
        event
    }

    fn stop_move(&mut self, agent: AgentId) {
        if let Some(m) = self.moves.get_mut(agent.index()) {
            *m = None;
        }
        self.set_walk(agent, None);
    }

    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>) {
        let d = Self::duration(cx.rng, request.action, request.line, request.proxy);
        let fails = match self.forced_outcome(request.action, request.target, cx.rng) {
            Some(succeeds) => !succeeds,
            None => self.failure_rate > 0.0 && self.chance(cx.rng, self.failure_rate),
        };
        self.actions.insert(request.id, (cx.now + d, fails));
    }

    fn action_outcome(&mut self, id: ActionId, cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        let &(ends_at, fails) = self.actions.get(&id)?;
        if ends_at > cx.now {
            return None;
        }
        self.actions.remove(&id);
        Some(if fails {
            ActionOutcome::Failed
        } else {
            ActionOutcome::Succeeded
        })
    }

    fn cancel_action(&mut self, id: ActionId) {
        self.actions.remove(&id);
    }

    fn planning_outcome(&mut self, _agent: AgentId, action: &str, rng: &mut Rng) -> Option<bool> {
        self.forced_outcome(action, None, rng)
    }

    fn decide(&mut self, kind: DrawKind, outcomes: usize, natural: usize) -> usize {
        self.draws.decide(kind, outcomes, natural)
    }

    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        SimWorld::variable(self, agent, name)
    }

    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        SimWorld::set_variable(self, agent, name, value);
    }

    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        SimWorld::remove_variable(self, agent, name)
    }

    fn say(&mut self, agent: AgentId, line: &Line<'_>, cx: &mut WorldCx<'_>) {
        // Saying takes time: a little to start, and some for every word.
        let words = line.text.split_whitespace().count() as f64;
        *slot(&mut self.speaking, agent, 0.0) = (0.4 + 0.3 * words) * cx.rng.range_f64(0.9, 1.1);
    }

    fn still_speaking(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> bool {
        let left = slot(&mut self.speaking, agent, 0.0);
        *left -= cx.dt;
        *left > 0.0
    }

    fn standard(&self) -> &StandardState {
        &self.standard
    }

    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}

/// The standard library in the simulated world, ready to link (declared in
/// [`ensemble_runtime::stdlib::DECLARATIONS`]).
pub fn library() -> StateLibrary<SimWorld> {
    ensemble_runtime::stdlib::library()
}

#[cfg(test)]
mod tests;
