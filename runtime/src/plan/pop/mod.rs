//! Partial-order planning (Inampudi 2017): POP with causal links, threats and ordering
//! constraints; A-POP with the achiever index; D-POP repair after a player action. The
//! corrections to the thesis's pseudo-code (digest §1.8, D1–D8) are noted where they apply.

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
