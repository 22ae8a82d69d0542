//! The serde shapes of the native planning assets (docs/formats/planning.md):
//! `*.actionlist.ron` (Hewlett's action lists), `*.domain.ron` and `*.problem.ron` (STRIPS), and
//! the `events` of a scene. Unknown fields are errors, as in every native asset.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Hewlett's action lists (§2.2) as written: named variables, values, constraints, effects and
/// actions (`plan::action_list` compiles them).
// Serde names ending in `Asset` are written bare by the canonical printer: `(name: ...)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "VariableAsset")]
pub struct Variable {
    pub name: String,
    /// Value names, for an enumerated variable (value `i` is `values[i]`); `None` = integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

/// A value: a number or one of the variable's value names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Name(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Condition {
    Eq(String, Value),
    Ne(String, Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Effect {
    Set(String, Value),
    /// `var += n` (only integer variables).
    Add(String, i64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "ActionAsset")]
pub struct Action {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<Condition>,
    pub effects: Vec<Effect>,
    /// The state machine that performs it (run as a child of the agent's `Plan` state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

/// How an agent plans: the same choices as `ensemble plan --search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SearchAsset {
    /// Breadth-first over the precomputed planning graph (action lists; Hewlett §2.5, §4.5).
    Graph,
    AStar,
    Gbfs,
    /// Lozano et al.'s MinMin, interleaving planning and execution.
    MinMin,
    /// Partial-order planning with D-POP repair (Inampudi).
    Pop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum HeuristicAsset {
    HMax,
    HAdd,
    HFf,
    Blind,
}

/// The planner settings a problem may give (all optional).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannerAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchAsset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heuristic: Option<HeuristicAsset>,
    /// MinMin's lookahead horizon (1–16, default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<u32>,
    /// MinMin's first depth bound (default: the number of actions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_bound: Option<u32>,
    /// MinMin's second bound (prune successors that add no new fact; default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_bound: Option<bool>,
    /// Most nodes one planning call may visit (default 100,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<u64>,
}

impl PlannerAsset {
    pub fn is_default(&self) -> bool {
        *self == PlannerAsset::default()
    }
}

/// `*.actionlist.ron`: one of Hewlett's action lists with its seed states and goal; it is one
/// planning problem, named `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "ActionList")]
pub struct ActionListAsset {
    pub name: String,
    pub variables: Vec<Variable>,
    pub actions: Vec<Action>,
    /// Seed states of the planning graph; the first is where agents start.
    pub seeds: Vec<Vec<(String, Value)>>,
    pub goal: Vec<Condition>,
    /// Most states the planning graph may have (default 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_limit: Option<usize>,
    #[serde(default, skip_serializing_if = "PlannerAsset::is_default")]
    pub planner: PlannerAsset,
}

/// `*.domain.ron`: a STRIPS domain. Literals use the cell syntax of interaction scripts:
/// `atShop(Who)`, `not doorOpen`, `Who != npc`; variables start upper-case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Domain")]
pub struct DomainAsset {
    pub name: String,
    /// Types and their parent (`{"npc": "agent", "agent": "object"}`); `object` is the root.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, String>,
    /// Objects every problem of the domain has, with their type.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub constants: BTreeMap<String, String>,
    /// `doorOpen`, `inside(agent)`: names with their argument types.
    pub predicates: Vec<String>,
    pub actions: Vec<OperatorAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorAsset {
    pub name: String,
    /// `[("Who", "agent")]`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<(String, String)>,
    /// The parameter that performs the action (Inampudi's affordant). Problems plan only with
    /// the instances their `actor` performs; the others are actions of someone else (a player)
    /// that world events can perform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub del: Vec<String>,
    /// The state machine that performs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

/// `*.problem.ron`: a STRIPS problem over a native or PDDL domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Problem")]
pub struct ProblemAsset {
    pub name: String,
    /// The domain's name (a `*.domain.ron`, or a PDDL `(define (domain NAME))`).
    pub domain: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub objects: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init: Vec<String>,
    pub goal: Vec<String>,
    /// The object that plans (see `OperatorAsset::actor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Machines for actions, by action name (for PDDL domains, or to override the domain's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub machines: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "PlannerAsset::is_default")]
    pub planner: PlannerAsset,
}

/// A world event as written; the IR holds it until the planning stage resolves it.
pub use crate::ir::plan::WrittenWorldEvent as WorldEventAsset;

impl WorldEventAsset {
    /// The world event a scene event is, if it is one.
    pub fn of(e: &crate::front::ron::SceneEventAsset) -> Option<WorldEventAsset> {
        match e {
            crate::front::ron::SceneEventAsset::World {
                name,
                problem,
                agent,
                at,
                when,
                set,
                perform,
                seen,
            } => Some(WorldEventAsset {
                name: name.clone(),
                problem: problem.clone(),
                agent: agent.clone(),
                at: *at,
                when: when.clone(),
                set: set.clone(),
                perform: perform.clone(),
                seen: *seen,
            }),
            _ => None,
        }
    }
}
