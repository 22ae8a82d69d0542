//! The planning section of a compiled program (`Program::planning`, docs/formats/program.md):
//! every planning problem a `Plan` state can name, grounded, with the machine that performs each
//! action, the planner it asks for, and the world events scenes script.
//!
//! Everything here is checked by the program verifier when a program is loaded, so the planners
//! and the agents that run them index these tables without further checks.

//!
//! The section's data — the grounded tasks (facts, operators, literals), precomputed planning
//! graphs and achiever indexes, heuristics named by planners — and its verification; the
//! planners themselves are `crate::plan`'s.

use super::{MachineId, NameId, ProgramParts, SceneId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A fact: index into [`Task::facts`].
pub type FactId = u32;

/// An operator: index into [`Task::operators`].
pub type OpId = u32;

/// A fact or its negation: a precondition, a goal condition or an effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Lit {
    /// The fact it speaks of.
    pub fact: FactId,
    /// True for the fact itself, false for its negation.
    pub positive: bool,
}

/// A ground operator (action).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operator {
    /// Display name, e.g. `(stack a b)` or `Go_To_Gate`.
    pub name: String,
    /// Facts that must hold before it applies.
    pub pre: Vec<FactId>,
    /// Facts that must not hold before it applies.
    #[serde(default)]
    pub pre_neg: Vec<FactId>,
    /// Facts it makes true (applied after `del`).
    pub add: Vec<FactId>,
    /// Facts it makes false; disjoint from `add` after [`Task::new`].
    #[serde(default)]
    pub del: Vec<FactId>,
}

/// A grounded planning task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Fact names, e.g. `(on a b)`; a fact's id is its index.
    pub facts: Vec<String>,
    /// The ground operators; an operator's id is its index.
    pub operators: Vec<Operator>,
    /// Facts true in the initial state; every other fact is false.
    pub init: Vec<FactId>,
    /// Facts the goal needs true.
    pub goal: Vec<FactId>,
    /// Facts the goal needs false.
    #[serde(default)]
    pub goal_neg: Vec<FactId>,
    /// Groups of facts of which at most one holds in any state reachable from `init` (found
    /// by the compiler's h² analysis; empty when not analysed). Searches from `init` store
    /// each group in a few bits ([`crate::plan::state::Packing`]). Not part of a program: a
    /// task read from one has none.
    #[serde(skip)]
    pub mutex_groups: Vec<Vec<FactId>>,
}

/// Which estimate to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Heuristic {
    /// Always 0 (uninformed search).
    Blind,
    /// `h_max`: the costliest goal fact (admissible).
    Max,
    /// `h_add`: the sum of the goal facts' costs (informative, not admissible).
    Add,
    /// Size of the relaxed plan.
    Ff,
    /// Landmark cut (Helmert & Domshlak 2009): admissible, at least `h_max`, usually far above.
    LmCut,
}

/// Hewlett's precomputed planning graph of one problem: every state reachable from the seed
/// states, with the operators between them, shared read-only by every agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanGraph {
    /// Each node's true facts, ascending; nodes in ascending lexicographic order.
    pub nodes: Vec<Vec<FactId>>,
    /// Edges of node `n`: `edges[first_edge[n] .. first_edge[n + 1]]`, in declaration order.
    pub first_edge: Vec<u32>,
    /// `(operator, target node)`.
    pub edges: Vec<(OpId, u32)>,
}

impl PlanGraph {
    /// Checks every id against the task, node order and edge rows (the loader's verifier).
    pub fn verify(&self, task: &Task) -> Result<(), String> {
        let facts = task.facts.len() as FactId;
        let ops = task.operators.len() as OpId;
        for (i, node) in self.nodes.iter().enumerate() {
            if node.windows(2).any(|w| w[0] >= w[1]) || node.iter().any(|&f| f >= facts) {
                return Err(format!("planning graph node #{i} is malformed"));
            }
            if i > 0 && self.nodes[i - 1] >= *node {
                return Err("planning graph nodes are not in order".into());
            }
        }
        if self.first_edge.len() != self.nodes.len() + 1
            || self.first_edge.first().is_some_and(|&e| e != 0)
            || self.first_edge.windows(2).any(|w| w[0] > w[1])
            || self.first_edge.last().map(|&e| e as usize) != Some(self.edges.len())
        {
            return Err("planning graph edge rows are malformed".into());
        }
        let n = self.nodes.len() as u32;
        if self.edges.iter().any(|&(o, t)| o >= ops || t >= n) {
            return Err("a planning graph edge refers to something that does not exist".into());
        }
        Ok(())
    }
}

/// For every literal, the operators that achieve it (Inampudi's ActionRelationMap).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AchieverIndex {
    /// By literal, its achievers in declaration order.
    pub(crate) map: BTreeMap<Lit, Vec<OpId>>,
}

impl AchieverIndex {
    /// Checks that every literal and operator id exists in `task` (the loader's verifier).
    pub fn verify(&self, task: &Task) -> Result<(), String> {
        let (facts, ops) = (task.facts.len(), task.operators.len());
        for (l, v) in &self.map {
            if l.fact as usize >= facts || v.iter().any(|&o| o as usize >= ops) {
                return Err("the achiever index refers to something that does not exist".into());
            }
        }
        Ok(())
    }
}

/// The planning problems of a program and the world events of its scenes; empty when none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Planning {
    /// Problems, by the index `Plan` states and world events refer to.
    pub problems: Vec<ProblemDef>,
    /// World events of every scene.
    pub events: Vec<WorldEventDef>,
}

/// Which planner an agent runs on a problem.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Planner {
    /// Hewlett: breadth-first over the precomputed planning graph (`ProblemDef::graph`), falling
    /// back to A* with `h_max` from a state the graph does not have.
    Graph,
    /// A* (optimal with an admissible heuristic).
    AStar(Heuristic),
    /// Greedy best-first search.
    Gbfs(Heuristic),
    /// Lozano et al.'s MinMin, re-planning after every executed action.
    MinMin {
        /// Lookahead depth `H` of the minimin scoring.
        horizon: u32,
        /// Initial depth bound; `None` = the number of operators.
        depth_bound: Option<u32>,
        /// Prune successors that add no new atom (the second bound).
        second_bound: bool,
        /// The estimate at the lookahead's frontier.
        heuristic: Heuristic,
    },
    /// Partial-order planning with the achiever index; D-POP repair when the world changes.
    Pop,
}

impl Planner {
    /// The planner's name in traces and the CLI (`graph`, `astar`, `gbfs`, `minmin`, `pop`).
    pub fn name(self) -> &'static str {
        match self {
            Planner::Graph => "graph",
            Planner::AStar(_) => "astar",
            Planner::Gbfs(_) => "gbfs",
            Planner::MinMin { .. } => "minmin",
            Planner::Pop => "pop",
        }
    }
}

/// An action of a problem: what performs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionDef {
    /// The state machine that performs it (run as a child of the `Plan` state); `None` = it
    /// takes no time (bookkeeping).
    pub machine: Option<MachineId>,
}

/// One planning problem: a grounded task over the agent's world, and how to run it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProblemDef {
    /// The problem's name, as `Plan` states name it.
    pub name: NameId,
    /// The agent's own actions, the initial state (the agent's first belief and its world's
    /// first truth) and the goal.
    pub task: Task,
    /// One per operator of `task`.
    pub actions: Vec<ActionDef>,
    /// Ground actions others perform (the player), over the same facts; world events name them.
    pub external: Vec<Operator>,
    /// The planner agents run on it.
    pub planner: Planner,
    /// Most nodes one planning call may visit before it gives up.
    pub max_nodes: u64,
    /// The precomputed planning graph (`Planner::Graph`).
    pub graph: Option<PlanGraph>,
    /// The achiever index (`Planner::Pop`), built once by the compiler.
    pub achievers: Option<AchieverIndex>,
}

/// What a world event does to an agent's world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WorldChange {
    /// Facts become true or false (`add`, `del` of the operator; its name is the event's).
    Set(Operator),
    /// Someone else performs one of the problem's external actions (index into `external`).
    Perform(u32),
}

/// A scripted change of the world in a scene (docs/formats/scene.md, "World events").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldEventDef {
    /// The event's name, as the trace shows it.
    pub name: NameId,
    /// The scene that scripts it.
    pub scene: SceneId,
    /// Index into `Planning::problems`: whose vocabulary the change is written in.
    pub problem: u32,
    /// Index into the scene's machine-driven agents: whose world changes.
    pub agent: u32,
    /// Seconds after the scene starts before it may happen.
    pub after: f64,
    /// Conditions on that world that must hold too (a performed action's preconditions
    /// included); the event happens the first tick they all do.
    pub when: Vec<Lit>,
    /// What it changes.
    pub change: WorldChange,
    /// The agent notices at once (otherwise when its current action ends).
    pub seen: bool,
}

impl WorldEventDef {
    /// The change as an operator over the problem's facts.
    pub fn operator<'a>(&'a self, problem: &'a ProblemDef) -> &'a Operator {
        match &self.change {
            WorldChange::Set(op) => op,
            WorldChange::Perform(i) => &problem.external[*i as usize],
        }
    }
}

impl Planning {
    /// Whether the program has no planning content.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty() && self.events.is_empty()
    }

    /// A problem by name.
    pub fn problem_by_name(&self, name: NameId) -> Option<u32> {
        self.problems
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as u32)
    }
}

fn facts_ok(ids: &[FactId], n: usize) -> bool {
    ids.iter().all(|&f| (f as usize) < n)
}

fn operator_ok(op: &Operator, n: usize) -> bool {
    facts_ok(&op.pre, n) && facts_ok(&op.pre_neg, n) && facts_ok(&op.add, n) && facts_ok(&op.del, n)
}

/// Checks every id of the planning section against the program and against each task.
pub(crate) fn verify(p: &ProgramParts) -> Result<(), String> {
    let names = p.names.len();
    for (i, prob) in p.planning.problems.iter().enumerate() {
        let bad = |what: &str| Err(format!("planning problem #{i}: {what}"));
        if prob.name.index() >= names {
            return bad("its name does not exist");
        }
        let t = &prob.task;
        let n = t.facts.len();
        if !t.operators.iter().all(|o| operator_ok(o, n))
            || !prob.external.iter().all(|o| operator_ok(o, n))
            || !facts_ok(&t.init, n)
            || !facts_ok(&t.goal, n)
            || !facts_ok(&t.goal_neg, n)
        {
            return bad("a fact id is out of range");
        }
        if prob.actions.len() != t.operators.len() {
            return bad("actions and operators differ in number");
        }
        if prob
            .actions
            .iter()
            .any(|a| a.machine.is_some_and(|m| m.index() >= p.machines.len()))
        {
            return bad("an action names a machine that does not exist");
        }
        if prob.max_nodes == 0 {
            return bad("its node budget is zero");
        }
        match prob.planner {
            Planner::MinMin { horizon, .. } if !(1..=16).contains(&horizon) => {
                return bad("its MinMin horizon is not between 1 and 16");
            }
            Planner::Graph if prob.graph.is_none() => return bad("its planning graph is missing"),
            Planner::Pop if prob.achievers.is_none() => {
                return bad("its achiever index is missing");
            }
            _ => {}
        }
        if let Some(g) = &prob.graph {
            g.verify(t)
                .map_err(|e| format!("planning problem #{i}: {e}"))?;
        }
        if let Some(a) = &prob.achievers {
            a.verify(t)
                .map_err(|e| format!("planning problem #{i}: {e}"))?;
        }
    }
    for (i, e) in p.planning.events.iter().enumerate() {
        let bad = |what: &str| Err(format!("world event #{i}: {what}"));
        if e.name.index() >= names {
            return bad("its name does not exist");
        }
        let Some(scene) = p.scenes.get(e.scene.index()) else {
            return bad("its scene does not exist");
        };
        let Some(prob) = p.planning.problems.get(e.problem as usize) else {
            return bad("its problem does not exist");
        };
        if e.agent as usize >= scene.agents.len() {
            return bad("its agent is not in the scene");
        }
        if !(e.after.is_finite() && e.after >= 0.0) {
            return bad("its time is invalid");
        }
        let n = prob.task.facts.len();
        if !e.when.iter().all(|l| (l.fact as usize) < n) {
            return bad("a condition's fact id is out of range");
        }
        match &e.change {
            WorldChange::Set(op) if !operator_ok(op, n) => {
                return bad("a fact id is out of range");
            }
            WorldChange::Perform(a) if *a as usize >= prob.external.len() => {
                return bad("the action it performs does not exist");
            }
            _ => {}
        }
    }
    Ok(())
}
