//! The planning section of a program: its types and their verification are the program's
//! (`crate::program::planning`), re-exported here; this adds each planner's configuration.

pub use crate::program::planning::{
    ActionDef, Planner, Planning, ProblemDef, WorldChange, WorldEventDef,
};

use super::minmin::MinMinConfig;
use super::pop::PopConfig;

impl Planner {
    /// MinMin's configuration, with the problem's node budget.
    pub fn minmin_config(self, max_nodes: u64) -> Option<MinMinConfig> {
        match self {
            Planner::MinMin {
                horizon,
                depth_bound,
                second_bound,
                heuristic,
            } => Some(MinMinConfig {
                horizon,
                depth_bound,
                second_bound,
                heuristic,
                transpositions: true,
                max_nodes: Some(max_nodes),
            }),
            _ => None,
        }
    }

    /// POP's configuration with the problem's node budget.
    pub fn pop_config(max_nodes: u64) -> PopConfig {
        PopConfig {
            max_nodes,
            ..PopConfig::default()
        }
    }
}
