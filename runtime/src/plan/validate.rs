//! The plan validator: replays a plan step by step from a state and says exactly where it
//! breaks — which step, which operator, which preconditions do not hold — or which goal
//! conditions are still unmet at the end.

use super::state::State;
use super::task::{Lit, OpId, Task};

/// Why a plan is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// Step `step` (0-based) names no operator of the task.
    UnknownOperator {
        /// The step's position, 0-based.
        step: usize,
        /// The name or id it gave.
        name: String,
    },
    /// Step `step` applies `op`, but these preconditions do not hold before it.
    NotApplicable {
        /// The step's position, 0-based.
        step: usize,
        /// The operator applied.
        op: OpId,
        /// Its preconditions that do not hold before it.
        unmet: Vec<Lit>,
    },
    /// Every step applied, but these goal conditions do not hold at the end.
    GoalNotReached {
        /// The goal conditions that fail in the final state.
        unmet: Vec<Lit>,
    },
}

impl PlanError {
    /// A sentence for people, using the task's names.
    pub fn describe(&self, task: &Task) -> String {
        let lits = |v: &[Lit]| {
            v.iter()
                .map(|&l| task.lit_name(l))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            PlanError::UnknownOperator { step, name } => {
                format!(
                    "step {}: `{name}` is not an operator of this task",
                    step + 1
                )
            }
            PlanError::NotApplicable { step, op, unmet } => format!(
                "step {}: {} is not applicable: {} does not hold",
                step + 1,
                task.op(*op).name,
                lits(unmet)
            ),
            PlanError::GoalNotReached { unmet } => {
                format!(
                    "the plan ends without reaching the goal: {} does not hold",
                    lits(unmet)
                )
            }
        }
    }
}

/// Replays `plan` from `from`; returns the final state, or where the plan breaks.
pub fn validate(task: &Task, from: &State, plan: &[OpId]) -> Result<State, PlanError> {
    let mut s = from.clone();
    for (step, &o) in plan.iter().enumerate() {
        let Some(op) = task.operators.get(o as usize) else {
            return Err(PlanError::UnknownOperator {
                step,
                name: format!("#{o}"),
            });
        };
        let unmet = op.unmet(&s);
        if !unmet.is_empty() {
            return Err(PlanError::NotApplicable { step, op: o, unmet });
        }
        op.apply_in_place(&mut s);
    }
    let unmet: Vec<Lit> = task.goal_lits().filter(|l| !l.holds(&s)).collect();
    if unmet.is_empty() {
        Ok(s)
    } else {
        Err(PlanError::GoalNotReached { unmet })
    }
}

/// Like [`validate`] for a plan given by operator names (an external planner's output).
pub fn validate_names(task: &Task, from: &State, plan: &[&str]) -> Result<State, PlanError> {
    let mut ids = Vec::with_capacity(plan.len());
    for (step, name) in plan.iter().enumerate() {
        match task.op_id(name) {
            Some(o) => ids.push(o),
            None => {
                return Err(PlanError::UnknownOperator {
                    step,
                    name: name.to_string(),
                });
            }
        }
    }
    validate(task, from, &ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;

    #[test]
    fn says_where_a_plan_breaks() {
        let t = fixtures::dinner_date();
        let s0 = t.initial_state();
        // carry destroys cleanHands, so cook cannot follow it.
        let e = validate_names(&t, &s0, &["wrap", "carry", "cook"]).unwrap_err();
        assert_eq!(
            e.describe(&t),
            "step 3: cook is not applicable: cleanHands does not hold"
        );
        let e = validate_names(&t, &s0, &["wrap", "cook"]).unwrap_err();
        assert!(matches!(e, PlanError::GoalNotReached { .. }));
        assert!(e.describe(&t).contains("garbOut"));
        let e = validate_names(&t, &s0, &["wrap", "fly"]).unwrap_err();
        assert_eq!(
            e,
            PlanError::UnknownOperator {
                step: 1,
                name: "fly".into()
            }
        );
        assert!(validate_names(&t, &s0, &["cook", "wrap", "carry"]).is_ok());
        assert!(validate(&t, &s0, &[99]).is_err());
    }

    #[test]
    fn negative_preconditions_are_checked() {
        let (t, _) = fixtures::shop();
        let s0 = t.initial_state();
        let e = validate_names(&t, &s0, &["Open(NPC, Door)", "Open(NPC, Door)"]).unwrap_err();
        assert!(
            e.describe(&t).contains("(not doorOpen)"),
            "{}",
            e.describe(&t)
        );
    }
}
