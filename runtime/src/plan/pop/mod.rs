//! Partial-order planning (Inampudi 2017): POP with causal links, threats and ordering
//! constraints; A-POP with the achiever index; D-POP repair after a player action. The
//! corrections to the thesis's pseudo-code (digest §1.8, D1–D8) are noted where they apply.
//!
//! - [`partial`]: the plan itself — steps, orderings, causal links, the agenda.
//! - [`achiever`]: which operators achieve a literal, by scan (POP) or index (A-POP).
//! - [`search`]: completing a plan by backtracking with iterative deepening.
//! - [`repair`]: D-POP, repairing a plan in execution after someone else acted.
//!
//! Invariants of a [`PartialPlan`]: step ids are stable (a removed step stays as a tombstone),
//! the start step is 0 and the goal step 1, and the ordering is kept acyclic with its
//! transitive closure up to date ([`PartialPlan::add_order`] refuses a cycle), so asking
//! whether one step precedes another is one bit test.

pub mod achiever;
pub mod partial;
pub mod repair;
pub mod search;

pub use achiever::{AchieverIndex, Achievers};
pub use partial::{CausalLink, OpenCondition, PartialPlan, Status, StepId, StepKind, Threat};
pub use repair::{RepairOutcome, RepairReport, player_action};
pub use search::{PopConfig, PopOutcome, PopResult, complete, plan};

#[cfg(test)]
mod tests;
