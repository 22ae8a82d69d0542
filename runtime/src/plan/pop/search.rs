//! Plan-space search: POP (achievers by scanning the action space) and A-POP (achievers from the
//! index), both with the corrections of the digest — reuse only consistent producers (D1),
//! backtrack over achiever and threat-resolution choices (D2), deterministic order (D8).
//!
//! The first descent of the depth-first search is the thesis's greedy algorithm; backtracking
//! and iterative deepening on the number of steps make it complete. A goal that is unreachable
//! even with deletes relaxed is reported as proven unsolvable without searching.

use super::achiever::Achievers;
use super::partial::{GOAL, OpenCondition, PartialPlan, StepId, StepKind};
use crate::plan::heuristic::{self, Heuristic, RelaxedExploration};
use crate::plan::state::State;
use crate::plan::task::Task;

/// Bounds of a POP search.
#[derive(Clone, Copy, Debug)]
pub struct PopConfig {
    /// Most operator steps a plan may have (the deepening stops there).
    pub max_steps: u32,
    /// Most partial plans visited in total.
    pub max_nodes: u64,
}

impl Default for PopConfig {
    fn default() -> Self {
        PopConfig {
            max_steps: 40,
            max_nodes: 2_000_000,
        }
    }
}

/// How a POP search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PopOutcome {
    /// A complete plan (no open conditions, no threats).
    Found,
    /// No plan exists: relaxed-unreachable goal, or the whole space was searched.
    Unsolvable,
    /// Stopped by `max_steps` or `max_nodes` without a plan.
    LimitReached,
}

/// The outcome of a POP search.
#[derive(Clone, Debug)]
pub struct PopResult {
    /// Found, unsolvable or limited.
    pub outcome: PopOutcome,
    /// The complete plan, when one was found.
    pub plan: Option<PartialPlan>,
    /// Partial plans visited.
    pub nodes: u64,
}

struct Refiner<'a> {
    task: &'a Task,
    achievers: Achievers<'a>,
    bound: usize,
    max_nodes: u64,
    nodes: u64,
    /// Whether some branch was cut by the step bound in this iteration.
    cut: bool,
}

impl Refiner<'_> {
    fn refine(&mut self, plan: PartialPlan) -> Option<PartialPlan> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return None;
        }
        if let Some(t) = plan.first_threat(self.task) {
            if plan.is_past(t.step) {
                // A running step cannot be moved: the link it threatens must go.
                return None;
            }
            // Demotion (t ≺ producer), then promotion (consumer ≺ t).
            for (a, b) in [(t.step, t.link.producer), (t.link.consumer, t.step)] {
                let mut next = plan.clone();
                if next.add_order(a, b)
                    && let Some(p) = self.refine(next)
                {
                    return Some(p);
                }
            }
            return None;
        }
        let mut plan = plan;
        let Some(oc) = plan.agenda.pop() else {
            return Some(plan);
        };
        // Reuse a step already in the plan: past steps most recent first (a_now last), then
        // future steps in insertion order; never the consumer itself or a step after it.
        for s in reuse_candidates(&plan) {
            if s == oc.consumer
                || !plan.supplies(self.task, s, oc.cond)
                || plan.precedes(oc.consumer, s)
            {
                continue;
            }
            let mut next = plan.clone();
            if next.add_link(s, oc.cond, oc.consumer)
                && let Some(p) = self.refine(next)
            {
                return Some(p);
            }
            if self.nodes > self.max_nodes {
                return None;
            }
        }
        let ops = self.achievers.of(oc.cond);
        if ops.is_empty() {
            return None;
        }
        if plan.len() >= self.bound {
            self.cut = true;
            return None;
        }
        for o in ops {
            let mut next = plan.clone();
            let s = next.add_step(self.task, StepKind::Op(o));
            if next.add_link(s, oc.cond, oc.consumer)
                && let Some(p) = self.refine(next)
            {
                return Some(p);
            }
            if self.nodes > self.max_nodes {
                return None;
            }
        }
        None
    }
}

fn reuse_candidates(plan: &PartialPlan) -> Vec<StepId> {
    let mut past: Vec<StepId> = plan
        .live()
        .filter(|&s| plan.is_past(s) && s != super::partial::START)
        .collect();
    past.sort_by_key(|&s| std::cmp::Reverse(plan.step(s).started_at));
    past.push(super::partial::START);
    past.extend(plan.live().filter(|&s| !plan.is_past(s) && s != GOAL));
    past
}

/// Whether the open conditions of `plan` are reachable from its `now` with deletes relaxed.
fn relaxed_possible(task: &Task, plan: &PartialPlan) -> bool {
    let reach = RelaxedExploration::new(task).reachable_facts(task, &plan.now);
    plan.agenda
        .iter()
        .all(|c| !c.cond.positive || reach.contains(c.cond.fact))
}

/// Completes a partial plan by iterative deepening on its number of steps.
pub fn complete(
    task: &Task,
    achievers: Achievers<'_>,
    plan: PartialPlan,
    cfg: PopConfig,
) -> PopResult {
    let bound = plan.len();
    deepen(task, achievers, plan, cfg, bound)
}

/// Iterative deepening from `first_bound` steps: no bound below the length of the shortest
/// completion may be skipped, or a plan longer than necessary could be found first.
fn deepen(
    task: &Task,
    achievers: Achievers<'_>,
    plan: PartialPlan,
    cfg: PopConfig,
    first_bound: usize,
) -> PopResult {
    if !relaxed_possible(task, &plan) {
        return PopResult {
            outcome: PopOutcome::Unsolvable,
            plan: None,
            nodes: 0,
        };
    }
    let mut r = Refiner {
        task,
        achievers,
        bound: first_bound,
        max_nodes: cfg.max_nodes,
        nodes: 0,
        cut: false,
    };
    let most = cfg.max_steps as usize;
    loop {
        r.cut = false;
        if let Some(p) = r.refine(plan.clone()) {
            return PopResult {
                outcome: PopOutcome::Found,
                plan: Some(p),
                nodes: r.nodes,
            };
        }
        if r.nodes > r.max_nodes {
            break;
        }
        if !r.cut {
            // Nothing was cut by the bound: the space of refinements is exhausted.
            return PopResult {
                outcome: PopOutcome::Unsolvable,
                plan: None,
                nodes: r.nodes,
            };
        }
        if r.bound >= most {
            break;
        }
        r.bound += 1;
    }
    PopResult {
        outcome: PopOutcome::LimitReached,
        plan: None,
        nodes: r.nodes,
    }
}

/// Plans from `from` to the task's goal. The deepening starts at LM-cut's estimate, not at 0:
/// every partial-order plan linearises to a sequential plan with as many steps, and LM-cut is
/// admissible for those, so every shallower bound could only be searched in vain (a cost
/// quadratic in the plan's length). The plan found is the one deepening from 0 would find.
pub fn plan(task: &Task, achievers: Achievers<'_>, from: &State, cfg: PopConfig) -> PopResult {
    let at_least = heuristic::evaluate(task, from, Heuristic::LmCut).unwrap_or(0);
    let at_least = (at_least as usize).min(cfg.max_steps as usize);
    deepen(
        task,
        achievers,
        PartialPlan::new(task, from.clone()),
        cfg,
        at_least,
    )
}

/// Pops and returns the agenda in the order the planner would handle it (tests).
pub fn agenda_order(plan: &PartialPlan) -> Vec<OpenCondition> {
    plan.agenda.iter().rev().copied().collect()
}
