//! Compiler-side planning: Hewlett's action lists over named variables ([`action_list`]), the
//! planning graph with its state limit and state-explosion report ([`graph`]), and the static
//! checks on action lists ([`check`]). PDDL lives in `front::pddl`; the planners themselves are
//! in the runtime (`ensemble_runtime::plan`).

pub mod action_list;
/// The asset kinds' serde shapes are the RON frontend's (`front::ron::planning`).
pub use crate::front::ron::planning as assets;
pub mod check;
pub mod fixtures;
pub mod from_action_list;
pub mod from_strips;
pub mod graph;
pub mod literal;
pub mod mutex;
pub mod native;
pub mod plan_file;
pub mod project;

// The surface a tool previews planning with (lib.rs): the planning graph and its report.
pub use graph::{ExplosionReport, PlanningGraph};

#[cfg(test)]
mod tests;
