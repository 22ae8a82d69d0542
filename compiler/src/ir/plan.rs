//! Planning in the IR: grounded planning problems and the world events scenes script. Filled by
//! `crate::plan::project` after the RON frontend; lowered by `crate::back::plan`.

use super::{Handle, Machine, Name, Scene};
use crate::source::Span;
use ensemble_runtime::plan::graph::PlanGraph;
use ensemble_runtime::plan::section::{Planner, WorldChange};
use ensemble_runtime::plan::{Lit, Operator, Task};

/// Where a problem was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemSource {
    /// `*.actionlist.ron`.
    ActionList,
    /// `*.problem.ron`.
    Native,
    /// A PDDL `(define (problem ...))`.
    Pddl,
}

/// A planning problem, grounded and checked.
#[derive(Clone, Debug)]
pub struct Problem {
    pub name: Name,
    pub source: ProblemSource,
    pub task: Task,
    /// The machine that performs each operator of `task`.
    pub machines: Vec<Option<Handle<Machine>>>,
    /// Ground actions of others (players), for world events.
    pub external: Vec<Operator>,
    pub planner: Planner,
    pub max_nodes: u64,
    pub graph: Option<PlanGraph>,
    /// The whole asset.
    pub span: Span,
}

/// A world event of a scene, resolved against its problem.
#[derive(Clone, Debug)]
pub struct WorldEvent {
    pub name: Name,
    pub scene: Handle<Scene>,
    pub problem: Handle<Problem>,
    /// Index among the scene's machine-driven agents.
    pub agent: u32,
    pub after: f64,
    pub when: Vec<Lit>,
    pub change: WorldChange,
    pub seen: bool,
}

/// A world event as written in a scene (`World(...)` in a scene's `events`, read by the RON
/// frontend as a `SceneEventAsset`).
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenWorldEvent {
    pub name: String,
    /// The planning problem whose facts it changes.
    pub problem: String,
    /// Whose world (default: the scene's only agent that plans on the problem).
    pub agent: Option<String>,
    /// Seconds after the scene starts before it may happen.
    pub at: f64,
    /// Conditions on that world that must also hold.
    pub when: Vec<String>,
    /// Facts that become true (`doorOpen`, `Location = WrongGate`) or false (`not doorOpen`).
    pub set: Vec<String>,
    /// An action someone else performs (a ground action of the problem, `Open(player)`); it
    /// happens once its preconditions hold.
    pub perform: Option<String>,
    /// The agent sees it happen (otherwise it finds out when its current action ends).
    pub seen: bool,
}

/// A world event as written in a scene, with where; resolved by the planning stage.
#[derive(Clone, Debug)]
pub struct EventSource {
    pub asset: WrittenWorldEvent,
    /// The whole event.
    pub span: Span,
    /// Field spans: `problem`, `agent`, `perform`, and each `when` and `set` string.
    pub problem_span: Span,
    pub agent_span: Span,
    pub perform_span: Span,
    pub when_spans: Vec<Span>,
    pub set_spans: Vec<Span>,
}
