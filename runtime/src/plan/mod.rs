//! Planning for NPCs: grounded STRIPS tasks and the planners that run in the game.
//!
//! - [`task`], [`state`]: the grounded task (serde) and states as bitsets.
//! - [`heuristic`]: HSP's delete relaxation — `h_add`, `h_max`, the relaxed plan (`h_ff`).
//! - [`search`]: complete best-first search for offline plans — greedy best-first and A*.
//! - [`minmin`]: Lozano et al.'s MinMin real-time search (horizon, dynamic depth bound, second
//!   bound) and the loop that interleaves planning and execution.
//! - [`pop`]: partial-order planning — POP, A-POP (achiever index) and D-POP repair after a
//!   player action, with the corrected algorithms of the research digest.
//! - [`validate`]: replays any plan step by step and says where it breaks.
//! - [`graph`]: Hewlett's planning graph, precomputed and shared by every agent of a problem.
//! - [`section`]: the planning section of a compiled program (problems, world events).
//! - [`agent`]: the plan–act–observe loop an agent runs (game-agnostic; `stdlib::planning` runs it
//!   as the `Plan` library state).
//! - [`fixtures`]: the seeds' own examples (dinner date, funny dinner date, shop scene).
//!
//! The compiler produces tasks (from PDDL or action lists); nothing here parses text.

pub mod agent;
pub mod fixtures;
pub mod graph;
pub mod heuristic;
pub mod minmin;
pub mod pop;
pub mod search;
pub mod section;
pub mod state;
pub mod task;
pub mod validate;

pub use heuristic::Heuristic;
pub use search::{Limits, Outcome, SearchResult, Stats};
pub use state::State;
pub use task::{FactId, Lit, OpId, Operator, Task, TaskError};
pub use validate::{PlanError, validate};

#[cfg(test)]
mod tests;
