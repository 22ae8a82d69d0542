//! D-POP: repairing a plan in execution after someone else acts (Inampudi §4.3.2–4.3.3, Algs.
//! 2, 5, 6), with the digest's corrections:
//!
//! 1. The action joins the plan as a done step, and the start step becomes *a_now* (D1).
//! 2. **Over-consistency** (D5): a link whose producer has not started and whose condition the
//!    action produced is dropped; only that condition of its consumer is reopened.
//! 3. **Consistency propagation** (D7): a worklist removes every not-started step that no longer
//!    supports any link, then its own suppliers, never start, goal or started steps.
//! 4. **Under-consistency** (D6): every link from a started producer (done, running, or a_now)
//!    to a future consumer whose condition no longer holds is dropped and reopened — not only
//!    the running links.
//! 5. The reopened conditions are planned for with the backtracking planner (D2). If the
//!    repaired plan cannot be completed, D-POP searches from scratch, like POP ("exhaustive
//!    search just like POP", §6.1.2); if that fails too the repair fails.
//!
//! Over-consistency and propagation run before under-consistency (thesis line order), so a
//! producer made redundant is removed before its own now-false preconditions could be reopened
//! (digest T9).

use super::achiever::Achievers;
use super::partial::{GOAL, OpenCondition, PartialPlan, START, Status, StepId, StepKind};
use super::search::{PopConfig, PopOutcome, complete};
use crate::plan::state::State;
use crate::plan::task::{Operator, Task};

/// How a D-POP repair ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RepairOutcome {
    /// The existing plan was repaired locally.
    Repaired,
    /// Local repair failed; a new plan was found from scratch.
    Replanned,
    /// No plan from the current state (proven or within the limits).
    Failed(PopOutcome),
}

/// What a D-POP repair did, for the trace and the tests.
#[derive(Clone, Debug)]
pub struct RepairReport {
    /// Repaired, replanned or failed.
    pub outcome: RepairOutcome,
    /// Steps removed by consistency propagation.
    pub removed: Vec<StepId>,
    /// Links dropped because the action produced their condition (over-consistency).
    pub over_consistent: usize,
    /// Links dropped because their condition no longer holds (under-consistency).
    pub under_consistent: usize,
    /// Partial plans visited while completing the repair (and replanning, if needed).
    pub nodes: u64,
    /// The external action's step.
    pub action_step: StepId,
}

/// Applies `action` (performed by someone else, whatever its preconditions) to the plan in
/// execution and repairs the plan.
pub fn player_action(
    task: &Task,
    achievers: Achievers<'_>,
    plan: &mut PartialPlan,
    action: Operator,
    cfg: PopConfig,
) -> RepairReport {
    // 1. a_ui joins the plan as done; the world changes.
    action.apply_in_place(&mut plan.now);
    plan.external.push(action);
    let ext = (plan.external.len() - 1) as u32;
    let ui = plan.add_step(task, StepKind::External(ext));
    plan.agenda.retain(|c| c.consumer != ui); // its preconditions are not ours to plan for
    plan.begin(ui);
    plan.steps[ui as usize].status = Status::Done;
    repair_after_change(task, achievers, plan, ui, cfg)
}

/// Repairs a plan whose `now` has changed (an external action `ui` already recorded, or a
/// belief update with `ui` = START).
pub fn repair_after_change(
    task: &Task,
    achievers: Achievers<'_>,
    plan: &mut PartialPlan,
    ui: StepId,
    cfg: PopConfig,
) -> RepairReport {
    let effects: Vec<_> = match plan.step(ui).kind {
        StepKind::External(i) => plan.external[i as usize].effects().collect(),
        _ => Vec::new(),
    };
    // 2. Over-consistency: the action produced what a future producer was going to.
    let over =
        plan.take_links(|plan, l| plan_is_future_op(plan, l.producer) && effects.contains(&l.cond));
    let mut work: Vec<StepId> = Vec::new();
    for l in &over {
        plan.agenda.push(OpenCondition {
            cond: l.cond,
            consumer: l.consumer,
        });
        work.push(l.producer);
    }
    // 3. Consistency propagation (worklist; guards start, goal and started steps).
    let mut removed = Vec::new();
    while let Some(a) = work.pop() {
        if a == START || a == GOAL || plan.step(a).removed || plan.is_past(a) {
            continue;
        }
        if plan.links.iter().any(|l| l.producer == a) {
            continue;
        }
        for l in plan.links.iter().filter(|l| l.consumer == a) {
            work.push(l.producer);
        }
        plan.remove_step(a);
        removed.push(a);
    }
    // 4. Under-consistency: protected links from the past whose condition no longer holds.
    let now = plan.now.clone();
    let under = plan.take_links(|plan, l| {
        let past = plan.is_past(l.producer);
        let running = plan.step(l.producer).status == Status::Running;
        let broken = if running {
            effects.contains(&l.cond.negated())
        } else {
            !l.cond.holds(&now)
        };
        past && !plan.is_past(l.consumer) && broken
    });
    for l in &under {
        plan.agenda.push(OpenCondition {
            cond: l.cond,
            consumer: l.consumer,
        });
    }
    let mut report = RepairReport {
        outcome: RepairOutcome::Repaired,
        removed,
        over_consistent: over.len(),
        under_consistent: under.len(),
        nodes: 0,
        action_step: ui,
    };
    // 5. Complete the repaired plan; fall back to planning from scratch.
    let r = complete(task, achievers, plan.clone(), cfg);
    report.nodes += r.nodes;
    if let Some(p) = r.plan {
        *plan = p;
        return report;
    }
    let fresh = PartialPlan::new(task, plan.now.clone());
    let r2 = complete(task, achievers, fresh, cfg);
    report.nodes += r2.nodes;
    match r2.plan {
        Some(p) => {
            *plan = p;
            report.outcome = RepairOutcome::Replanned;
        }
        None => {
            // Only the search from scratch can prove that no plan exists.
            report.outcome = RepairOutcome::Failed(r2.outcome);
        }
    }
    report
}

fn plan_is_future_op(plan: &PartialPlan, s: StepId) -> bool {
    matches!(plan.step(s).kind, StepKind::Op(_)) && !plan.is_past(s)
}

/// The state the plan believes holds now.
pub fn now(plan: &PartialPlan) -> &State {
    &plan.now
}
