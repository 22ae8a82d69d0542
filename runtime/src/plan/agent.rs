//! The plan–act–observe loop of one agent, independent of any game: plan from what the agent
//! believes, perform the first action, observe the world, and go on or plan again.
//!
//! - Hewlett §2.4.1/§3.7/§5.3: agents are not omniscient; they plan on their current view and
//!   replan from their *believed* state when an action's machine fails or new information
//!   breaks the plan (the traveller who finds her gate closed).
//! - Lozano et al. §3: MinMin interleaves planning and execution — plan, execute the first
//!   operator, observe, plan again.
//! - Inampudi §3.1.1/§4.3: a partial-order plan is repaired in place (D-POP) when someone else
//!   acts, instead of planned again from scratch.
//!
//! The caller (a library state such as `stdlib::planning`'s `Plan`) performs the actions and owns
//! the world; it tells the executive when an action ends, what it now sees, and what it noticed
//! meanwhile. The executive never reads the world itself, so what it believes is exactly what it
//! was told.
//!
//! Rules:
//! - After an action succeeds, the agent expects its effects; if what it observes differs, the
//!   world changed behind its back and it replans from what it sees.
//! - After an action fails, it replans from what it sees. If it learned nothing (the world is
//!   as it believed), it will not try that action again during this plan, so a machine that
//!   always fails cannot loop forever.
//! - A change noticed while acting: a partial-order plan is repaired at once; a linear plan is
//!   planned again from the state after the current action, or, if the current action is no
//!   longer possible, the action is interrupted and the plan starts again from now.
//! - At most [`MAX_REPLANS`] replans per plan; then the agent gives up. MinMin's planning
//!   again after an action counts only when the new plan is no shorter than what was left.

use super::pop::{self, Achievers, PartialPlan, RepairOutcome, StepId, StepKind};
use super::search::{self, Limits, Outcome as SearchOutcome};
use super::section::{Planner, ProblemDef};
use super::state::State;
use super::task::{FactId, OpId, Operator, Task};
use super::validate;
use std::borrow::Cow;
use std::collections::VecDeque;

/// Replans one plan may take before the agent gives up.
pub const MAX_REPLANS: u32 = 64;

/// Something worth telling the world about (the `plan` and `replan` trace events).
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// A new plan, from the agent's belief.
    Plan {
        /// The actions, in order.
        actions: Vec<OpId>,
        /// Nodes the planning call visited.
        nodes: u64,
    },
    /// The plan changed; `actions` is what is left to do (the current action first, if it goes
    /// on).
    Replan {
        /// What is left to do.
        actions: Vec<OpId>,
        /// Why it changed, in words (`the gate closed`).
        reason: String,
        /// Nodes the new planning call visited.
        nodes: u64,
    },
}

/// What the agent does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// Start performing this action.
    Perform(OpId),
    /// Keep performing the current action.
    Continue,
    /// The goal holds.
    Succeeded,
    /// No plan reaches the goal from what the agent believes.
    Failed(String),
}

/// What the executive decided after being told something: the trace notes and the next step.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Plans and replans made while deciding, in order.
    pub notes: Vec<Note>,
    /// The current action was abandoned (a noticed change made it impossible).
    pub interrupted: bool,
    /// What the agent does now.
    pub next: Next,
}

impl Decision {
    fn new(next: Next) -> Self {
        Decision {
            notes: Vec::new(),
            interrupted: false,
            next,
        }
    }
}

#[derive(Clone, Debug)]
enum Plan {
    None,
    /// A sequence of actions still to do (the current one already taken off).
    Linear(VecDeque<OpId>),
    /// A partial-order plan and the step being performed.
    Partial {
        plan: Box<PartialPlan>,
        running: Option<StepId>,
    },
}

/// One agent's plan in progress on one problem.
///
/// # Example
///
/// A traveller plans to board at gate B; while she walks there the gate closes, so she finds
/// the world not as expected, plans again from what she sees and boards at gate A.
///
/// ```
/// use ensemble_runtime::plan::agent::{Executive, Next, Note};
/// use ensemble_runtime::plan::section::{ActionDef, Planner, ProblemDef};
/// use ensemble_runtime::plan::{Heuristic, Task};
/// use ensemble_runtime::program::NameId;
///
/// let task = Task::builder()
///     .op("walk-to-a", &["in-hall", "a-open"], &["at-a"], &["in-hall"])
///     .op("walk-to-b", &["in-hall", "b-open"], &["at-b"], &["in-hall"])
///     .op("board-at-a", &["at-a", "a-open"], &["boarded"], &[])
///     .op("board-at-b", &["at-b", "b-open"], &["boarded"], &[])
///     .op("back-to-hall", &["at-b"], &["in-hall"], &["at-b"])
///     .init(&["in-hall", "a-open", "b-open"])
///     .goal(&["boarded"])
///     .build();
/// let problem = ProblemDef {
///     name: NameId(0),
///     actions: vec![ActionDef { machine: None }; task.operators.len()],
///     external: vec![],
///     planner: Planner::AStar(Heuristic::Max),
///     max_nodes: 10_000,
///     graph: None,
///     achievers: None,
///     task,
/// };
/// let task = &problem.task;
///
/// // The game owns the world; the executive only hears what the traveller sees.
/// let mut world = task.initial_state();
/// let mut traveller = Executive::new(world.clone());
/// let mut decision = traveller.start(&problem);
/// assert!(matches!(&decision.notes[0], Note::Plan { actions, .. }
///     if task.plan_names(actions) == ["walk-to-b", "board-at-b"]));
/// let (mut done, mut replans) = (Vec::new(), Vec::new());
/// while let Next::Perform(op) = decision.next {
///     task.op(op).apply_in_place(&mut world);
///     done.push(task.op(op).name.clone());
///     if done.len() == 1 {
///         world.remove(task.fact_id("b-open").unwrap()); // gate B closes meanwhile
///     }
///     decision = traveller.action_ended(&problem, true, &world);
///     for note in &decision.notes {
///         if let Note::Replan { reason, .. } = note {
///             replans.push(reason.clone());
///         }
///     }
/// }
/// assert_eq!(decision.next, Next::Succeeded);
/// assert_eq!(done, ["walk-to-b", "back-to-hall", "walk-to-a", "board-at-a"]);
/// assert_eq!(replans.len(), 1);
/// assert!(replans[0].starts_with("after walk-to-b the world is not as expected"));
/// ```
#[derive(Clone, Debug)]
pub struct Executive {
    belief: State,
    plan: Plan,
    current: Option<OpId>,
    banned: Vec<OpId>,
    replans: u32,
}

/// Why planning produced nothing.
struct NoPlan(String);

/// An executive as a savegame holds it: what the agent believes, the actions of its linear plan
/// still to do or its partial-order plan with the step being performed, the current action, the
/// actions it gave up on, replans so far.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SavedExecutive {
    belief: State,
    /// `None`: no linear plan (none yet, or a partial-order one).
    linear: Option<Vec<OpId>>,
    /// A partial-order plan and the step being performed.
    partial: Option<(PartialPlan, Option<StepId>)>,
    current: Option<OpId>,
    banned: Vec<OpId>,
    replans: u32,
}

impl Executive {
    /// Its savegame form.
    pub fn to_saved(&self) -> SavedExecutive {
        let (linear, partial) = match &self.plan {
            Plan::None => (None, None),
            Plan::Linear(ops) => (Some(ops.iter().copied().collect()), None),
            Plan::Partial { plan, running } => (None, Some(((**plan).clone(), *running))),
        };
        SavedExecutive {
            belief: self.belief.clone(),
            linear,
            partial,
            current: self.current,
            banned: self.banned.clone(),
            replans: self.replans,
        }
    }

    /// An executive taken back from a savegame, checked against `task`: the belief over its
    /// facts, every action one of its operators.
    pub fn from_saved(saved: SavedExecutive, task: &Task) -> Result<Executive, String> {
        let ops = task.operators.len();
        let known = |o: &OpId| (*o as usize) < ops;
        let ok = saved.belief.fits(task.facts.len())
            && saved.linear.iter().flatten().all(known)
            && saved.current.iter().all(known)
            && saved.banned.iter().all(known);
        if !ok {
            return Err("the saved plan does not fit the problem".into());
        }
        let plan = match (saved.linear, saved.partial) {
            (Some(_), Some(_)) => return Err("a saved plan both linear and partial-order".into()),
            (Some(l), None) => Plan::Linear(l.into()),
            (None, Some((plan, running))) => {
                plan.check(task)?;
                if running.is_some_and(|r| r as usize >= plan.steps.len()) {
                    return Err("the step being performed is not in the saved plan".into());
                }
                Plan::Partial {
                    plan: Box::new(plan),
                    running,
                }
            }
            (None, None) => Plan::None,
        };
        Ok(Executive {
            belief: saved.belief,
            plan,
            current: saved.current,
            banned: saved.banned,
            replans: saved.replans,
        })
    }

    /// An executive that believes `belief` (the problem's initial state, or what the agent
    /// learned before).
    pub fn new(belief: State) -> Self {
        Executive {
            belief,
            plan: Plan::None,
            current: None,
            banned: Vec::new(),
            replans: 0,
        }
    }

    /// What the agent believes holds, as far as it has been told.
    pub fn belief(&self) -> &State {
        &self.belief
    }

    /// The action being performed.
    pub fn current(&self) -> Option<OpId> {
        self.current
    }

    /// Actions still planned after the current one, in the order they will be tried.
    pub fn remaining(&self) -> Vec<OpId> {
        match &self.plan {
            Plan::None => Vec::new(),
            Plan::Linear(v) => v.iter().copied().collect(),
            Plan::Partial { plan, .. } => plan.linear_plan(),
        }
    }

    /// Plans from the belief and picks the first action.
    pub fn start(&mut self, def: &ProblemDef) -> Decision {
        if def.task.is_goal(&self.belief) {
            return Decision::new(Next::Succeeded);
        }
        match self.solve(def, &self.belief.clone()) {
            Ok((plan, nodes)) => {
                let actions = self.adopt(plan);
                let mut d = Decision::new(Next::Continue);
                d.notes.push(Note::Plan { actions, nodes });
                d.next = self.advance(def, &mut d.notes);
                d
            }
            Err(NoPlan(why)) => Decision::new(Next::Failed(why)),
        }
    }

    /// The current action ended (`succeeded` or not); `observed` is the world as the agent
    /// now sees it.
    pub fn action_ended(
        &mut self,
        def: &ProblemDef,
        succeeded: bool,
        observed: &State,
    ) -> Decision {
        let Some(op) = self.current.take() else {
            return Decision::new(Next::Continue);
        };
        let task = &def.task;
        let name = &task.op(op).name;
        if !succeeded {
            let learned = *observed != self.belief;
            let mut reason = format!("{name} failed");
            if learned {
                let change = difference(&self.belief, observed);
                reason.push_str(&format!("; {}", describe(task, &change)));
            } else if !self.banned.contains(&op) {
                self.banned.push(op);
                reason.push_str("; nothing new was learned, so it will not be tried again");
            }
            self.belief = observed.clone();
            // A failed step leaves a partial plan inconsistent: plan again from scratch.
            if let Plan::Partial { .. } = self.plan {
                self.plan = Plan::None;
            }
            return self.replan(def, reason);
        }
        let expected = task.op(op).apply(&self.belief);
        if let Plan::Partial { plan, running } = &mut self.plan
            && let Some(step) = running.take()
        {
            plan.finish(task, step);
        }
        self.belief = observed.clone();
        if *observed != expected {
            let change = difference(&expected, observed);
            let reason = format!(
                "after {name} the world is not as expected: {}",
                describe(task, &change)
            );
            if let Plan::Partial { .. } = self.plan {
                return self.repair(def, change, &reason, &expected);
            }
            return self.replan(def, reason);
        }
        if matches!(def.planner, Planner::MinMin { .. }) && !def.task.is_goal(&self.belief) {
            // Planning again after every action is MinMin's way, not a surprise: it counts
            // towards MAX_REPLANS only when the new plan is no shorter than what was left
            // (each plan that is shorter is progress, so this cannot go on forever).
            let left = self.remaining().len();
            let d = self.replan(def, format!("planning again after {name} (MinMin)"));
            if let Some(Note::Replan { actions, .. }) = d.notes.first()
                && actions.len() <= left
            {
                self.replans -= 1;
            }
            return d;
        }
        let mut d = Decision::new(Next::Continue);
        d.next = self.advance(def, &mut d.notes);
        d
    }

    /// Someone else changed the world while the agent acted and the agent saw it happen:
    /// `change` is what happened, `observed` the world now.
    pub fn noticed(&mut self, def: &ProblemDef, change: &Operator, observed: &State) -> Decision {
        let Some(op) = self.current else {
            self.belief = observed.clone();
            return Decision::new(Next::Continue);
        };
        let before = std::mem::replace(&mut self.belief, observed.clone());
        if let Plan::Partial { .. } = self.plan {
            let reason = format!("{} happened", change.name);
            return self.repair(def, change.clone(), &reason, &before);
        }
        let task = &def.task;
        let name = task.op(op).name.clone();
        if task.op(op).is_applicable(&self.belief) {
            let reason = format!("{} happened while {name} was under way", change.name);
            self.replans += 1;
            return self.plan_rest(def, op, reason);
        }
        self.current = None;
        let reason = format!(
            "{} happened: {name} is no longer possible, so it was interrupted",
            change.name
        );
        let mut d = self.replan(def, reason);
        d.interrupted = true;
        d
    }

    /// Carries the plan over to a new version of the problem (a hot reload), by action and fact
    /// names. `Err` says why it cannot: the plan is then dropped (the action under way is kept
    /// if it still exists) and the caller plans again with [`Executive::replan_after_reload`].
    pub fn remap(&mut self, old: &ProblemDef, new: &ProblemDef) -> Result<(), String> {
        let (ot, nt) = (&old.task, &new.task);
        let fact = |f: FactId| nt.fact_id(&ot.facts[f as usize]);
        let op = |o: OpId| nt.op_id(&ot.op(o).name);
        self.belief = remap_state(ot, nt, &self.belief);
        self.banned = self.banned.iter().filter_map(|&o| op(o)).collect();
        let missing = |o: OpId| format!("action {} no longer exists", ot.op(o).name);
        let current = self.current.map(|c| op(c).ok_or_else(|| missing(c)));
        self.current = current.clone().and_then(Result::ok);
        let plan = match std::mem::replace(&mut self.plan, Plan::None) {
            Plan::None => Ok(Plan::None),
            Plan::Linear(v) => v
                .iter()
                .map(|&o| op(o).ok_or_else(|| missing(o)))
                .collect::<Result<_, _>>()
                .map(Plan::Linear),
            Plan::Partial { plan, running } => {
                let now = remap_state(ot, nt, &plan.now);
                plan.remap(op, fact, now)
                    .map(|p| Plan::Partial {
                        plan: Box::new(p),
                        running,
                    })
                    .ok_or_else(|| {
                        "the partial plan uses facts or actions that no longer exist".to_string()
                    })
            }
        };
        if let Some(Err(e)) = current {
            return Err(e);
        }
        self.plan = plan?;
        // The carried plan must still reach the goal from the belief.
        let mut rest: Vec<OpId> = self.current.into_iter().collect();
        rest.extend(self.remaining());
        if let Err(e) = validate::validate(nt, &self.belief, &rest) {
            self.plan = Plan::None;
            return Err(format!(
                "the plan no longer reaches the goal ({})",
                e.describe(nt)
            ));
        }
        Ok(())
    }

    /// Abandons the plan in progress (the caller replans after a failed [`Executive::remap`]).
    pub fn reset(&mut self) {
        self.plan = Plan::None;
        self.current = None;
    }

    /// Plans again from the belief after a reload; the current action, if it is still
    /// possible, goes on.
    pub fn replan_after_reload(&mut self, def: &ProblemDef, why: &str) -> Decision {
        self.plan = Plan::None;
        let reason = format!("reloaded: {why}");
        match self.current {
            Some(op) if def.task.op(op).is_applicable(&self.belief) => {
                self.plan_rest(def, op, reason)
            }
            Some(_) => {
                self.current = None;
                let mut d = self.replan(def, reason);
                d.interrupted = true;
                d
            }
            None => self.replan(def, reason),
        }
    }

    /// Plans the rest from where the current action `op` will leave the agent; the action goes
    /// on.
    fn plan_rest(&mut self, def: &ProblemDef, op: OpId, reason: String) -> Decision {
        let after = def.task.op(op).apply(&self.belief);
        match self.solve(def, &after) {
            Ok((plan, nodes)) => {
                let mut actions = vec![op];
                actions.extend(self.adopt(plan));
                let mut d = Decision::new(Next::Continue);
                d.notes.push(Note::Replan {
                    actions,
                    reason,
                    nodes,
                });
                d
            }
            Err(NoPlan(why)) => {
                self.current = None;
                let mut d = Decision::new(Next::Failed(format!("{reason}; {why}")));
                d.interrupted = true;
                d
            }
        }
    }

    /// Installs a fresh plan; returns its actions (for the note).
    fn adopt(&mut self, plan: Fresh) -> Vec<OpId> {
        match plan {
            Fresh::Linear(v) => {
                let actions = v.clone();
                self.plan = Plan::Linear(v.into());
                actions
            }
            Fresh::Partial(p) => {
                let actions = p.linear_plan();
                self.plan = Plan::Partial {
                    plan: p,
                    running: None,
                };
                actions
            }
        }
    }

    /// Takes the next action of the plan, or reports success.
    fn advance(&mut self, def: &ProblemDef, notes: &mut Vec<Note>) -> Next {
        let task = &def.task;
        if task.is_goal(&self.belief) {
            self.plan = Plan::None;
            return Next::Succeeded;
        }
        let next = match &mut self.plan {
            Plan::None => None,
            Plan::Linear(v) => v.pop_front(),
            Plan::Partial { plan, running } => plan.linearize().first().copied().and_then(|s| {
                plan.begin(s);
                *running = Some(s);
                match plan.step(s).kind {
                    StepKind::Op(o) => Some(o),
                    _ => None,
                }
            }),
        };
        match next {
            Some(op) if task.op(op).is_applicable(&self.belief) => {
                self.current = Some(op);
                Next::Perform(op)
            }
            Some(op) => {
                let d = self.replan(
                    def,
                    format!("{} is not possible from here", task.op(op).name),
                );
                notes.extend(d.notes);
                d.next
            }
            None => {
                let d = self.replan(def, "the plan ended before the goal".into());
                notes.extend(d.notes);
                d.next
            }
        }
    }

    /// Plans from the belief, reports it, and takes the first action.
    fn replan(&mut self, def: &ProblemDef, reason: String) -> Decision {
        self.current = None;
        self.replans += 1;
        if self.replans > MAX_REPLANS {
            self.plan = Plan::None;
            return Decision::new(Next::Failed(format!(
                "{reason}; gave up after {MAX_REPLANS} replans"
            )));
        }
        if def.task.is_goal(&self.belief) {
            self.plan = Plan::None;
            return Decision::new(Next::Succeeded);
        }
        match self.solve(def, &self.belief.clone()) {
            Ok((plan, nodes)) => {
                let actions = self.adopt(plan);
                let mut d = Decision::new(Next::Continue);
                d.notes.push(Note::Replan {
                    actions,
                    reason,
                    nodes,
                });
                d.next = self.advance(def, &mut d.notes);
                d
            }
            Err(NoPlan(why)) => {
                self.plan = Plan::None;
                Decision::new(Next::Failed(format!("{reason}; {why}")))
            }
        }
    }

    /// D-POP: the world changed by `change` (an action someone else performed, or the
    /// difference between what the agent expected and what it saw); `before` is what the
    /// partial plan assumed held until then.
    fn repair(
        &mut self,
        def: &ProblemDef,
        change: Operator,
        reason: &str,
        before: &State,
    ) -> Decision {
        if !matches!(self.plan, Plan::Partial { .. }) {
            return self.replan(def, reason.to_string());
        }
        self.replans += 1;
        let task = without(def, &self.banned);
        let task = task.as_ref();
        let mut built = None;
        let achievers = achievers(def, task, !self.banned.is_empty(), &mut built);
        let Plan::Partial { plan, running } = &mut self.plan else {
            unreachable!("checked above");
        };
        plan.now = before.clone();
        let planned_before = plan.linear_plan();
        let report = pop::player_action(
            task,
            achievers,
            plan,
            change,
            Planner::pop_config(def.max_nodes),
        );
        plan.now = self.belief.clone();
        let removed: Vec<String> = report
            .removed
            .iter()
            .map(|&s| plan.step_name(task, s))
            .collect();
        let mut actions: Vec<OpId> = self.current.into_iter().collect();
        let mut d = Decision::new(Next::Continue);
        if report.outcome == RepairOutcome::Repaired
            && report.over_consistent == 0
            && report.under_consistent == 0
            && plan.linear_plan() == planned_before
        {
            // The change touched nothing the plan relies on.
            if self.current.is_none() {
                d.next = self.advance(def, &mut d.notes);
            }
            return d;
        }
        let reason = match report.outcome {
            RepairOutcome::Repaired if removed.is_empty() => {
                format!("{reason}; the plan was repaired (D-POP)")
            }
            RepairOutcome::Repaired => format!(
                "{reason}; the plan was repaired (D-POP): {} no longer needed",
                removed.join(", ")
            ),
            RepairOutcome::Replanned => {
                format!("{reason}; repair failed, planned again from scratch")
            }
            RepairOutcome::Failed(_) => {
                self.current = None;
                self.plan = Plan::None;
                d.interrupted = true;
                d.next = Next::Failed(format!(
                    "{reason}; the plan cannot be repaired and no other plan exists"
                ));
                return d;
            }
        };
        if report.outcome == RepairOutcome::Replanned {
            // A plan from scratch does not contain the step being performed.
            *running = None;
            if self.current.take().is_some() {
                d.interrupted = true;
                actions.clear();
            }
        }
        actions.extend(plan.linear_plan());
        d.notes.push(Note::Replan {
            actions,
            reason,
            nodes: report.nodes,
        });
        if self.current.is_none() {
            d.next = self.advance(def, &mut d.notes);
        }
        d
    }

    /// Runs the problem's planner from `from`.
    fn solve(&self, def: &ProblemDef, from: &State) -> Result<(Fresh, u64), NoPlan> {
        let task = without(def, &self.banned);
        let task = task.as_ref();
        let limits = Limits {
            max_expansions: Some(def.max_nodes),
            ..Limits::default()
        };
        let searched = |r: search::SearchResult| match r.outcome {
            SearchOutcome::Plan(p) => Ok((Fresh::Linear(p), r.stats.expanded)),
            SearchOutcome::Unsolvable => Err(NoPlan("no plan reaches the goal".into())),
            SearchOutcome::LimitReached => Err(NoPlan(format!(
                "no plan found within {} nodes",
                def.max_nodes
            ))),
        };
        match def.planner {
            Planner::Graph => {
                let graph = def.graph.as_ref();
                match graph.and_then(|g| g.plan(task, from, &self.banned)) {
                    Some((Some(p), visited)) => Ok((Fresh::Linear(p), visited)),
                    Some((None, _)) => Err(NoPlan("no plan reaches the goal".into())),
                    // A state the graph does not have (only a world event leads there).
                    None => searched(search::astar_from(
                        task,
                        from,
                        super::Heuristic::Max,
                        limits,
                    )),
                }
            }
            Planner::AStar(h) => searched(search::astar_from(task, from, h, limits)),
            Planner::Gbfs(h) => searched(search::gbfs_from(task, from, h, limits)),
            Planner::MinMin { .. } => {
                let cfg = def
                    .planner
                    .minmin_config(def.max_nodes)
                    .expect("a MinMin planner");
                let r = super::minmin::minmin(task, from, cfg);
                match r.plan {
                    Some(p) => Ok((Fresh::Linear(p), r.nodes)),
                    None if r.truncated => Err(NoPlan(format!(
                        "MinMin found no plan within {} nodes",
                        def.max_nodes
                    ))),
                    None => Err(NoPlan("MinMin found no plan within its depth bound".into())),
                }
            }
            Planner::Pop => {
                let mut built = None;
                let achievers = achievers(def, task, !self.banned.is_empty(), &mut built);
                let cfg = Planner::pop_config(def.max_nodes);
                let r = pop::plan(task, achievers, from, cfg);
                match r.plan {
                    Some(p) => Ok((Fresh::Partial(Box::new(p)), r.nodes)),
                    None if r.outcome == pop::PopOutcome::Unsolvable => {
                        Err(NoPlan("no plan reaches the goal".into()))
                    }
                    None if r.nodes > def.max_nodes => Err(NoPlan(format!(
                        "no partial-order plan found within {} nodes",
                        def.max_nodes
                    ))),
                    // The iterative deepening stopped at its bound, not the node budget.
                    None => Err(NoPlan(format!(
                        "no partial-order plan of at most {} steps",
                        cfg.max_steps
                    ))),
                }
            }
        }
    }
}

/// The problem's task with `banned` actions made impossible.
fn without<'a>(def: &'a ProblemDef, banned: &[OpId]) -> Cow<'a, Task> {
    if banned.is_empty() || def.task.facts.is_empty() {
        return Cow::Borrowed(&def.task);
    }
    let mut t = def.task.clone();
    for &o in banned {
        // `f` and `not f` together: never applicable, still a valid task.
        let op = &mut t.operators[o as usize];
        op.pre.push(0);
        op.pre_neg.push(0);
    }
    Cow::Owned(t)
}

/// The problem's achiever index, or one built for `task` when banned actions changed it.
fn achievers<'a>(
    def: &'a ProblemDef,
    task: &Task,
    banned: bool,
    built: &'a mut Option<pop::AchieverIndex>,
) -> Achievers<'a> {
    match &def.achievers {
        Some(a) if !banned => Achievers::Index(a),
        _ => Achievers::Index(built.insert(pop::AchieverIndex::build(task))),
    }
}

enum Fresh {
    Linear(Vec<OpId>),
    Partial(Box<PartialPlan>),
}

/// What changed from `from` to `to`, as an operator named `world` (adds and deletes).
fn difference(from: &State, to: &State) -> Operator {
    let mut op = Operator::new("world");
    op.add = to.facts().filter(|&f| !from.contains(f)).collect();
    op.del = from.facts().filter(|&f| !to.contains(f)).collect();
    op
}

/// `+A, -B` with fact names.
pub fn describe(task: &Task, change: &Operator) -> String {
    let parts: Vec<String> = change
        .add
        .iter()
        .map(|&f| format!("{} now holds", task.facts[f as usize]))
        .chain(
            change
                .del
                .iter()
                .map(|&f| format!("{} no longer holds", task.facts[f as usize])),
        )
        .collect();
    parts.join(", ")
}

/// A state of `old` over the facts of `new`, by fact name; facts `old` did not have take their
/// value from `new`'s initial state.
pub fn remap_state(old: &Task, new: &Task, s: &State) -> State {
    let mut out = State::empty(new.facts.len());
    for (f, name) in new.facts.iter().enumerate() {
        let holds = match old.fact_id(name) {
            Some(of) => s.contains(of),
            None => new.init.contains(&(f as FactId)),
        };
        if holds {
            out.insert(f as FactId);
        }
    }
    out
}

#[cfg(test)]
mod tests;
