//! Planning for NPCs: grounded STRIPS tasks and the planners that run in the game.
//!
//! - [`task`], [`state`]: the grounded task (serde) and states as bitsets.
//! - [`heuristic`]: HSP's delete relaxation — `h_add`, `h_max`, the relaxed plan (`h_ff`).
//! - [`search`]: complete best-first search for offline plans — greedy best-first and A*.
//! - [`minmin`]: Lozano et al.'s MinMin real-time search (horizon, dynamic depth bound, second
//!   bound) and the loop that interleaves planning and execution.
//! - [`pop`]: partial-order planning — POP, A-POP (achiever index) and D-POP repair after a
//!   player action, with the corrected algorithms of the research digest.
//! - [`validate`](mod@validate): replays any plan step by step and says where it breaks.
//! - [`graph`]: Hewlett's planning graph, precomputed and shared by every agent of a problem.
//! - [`section`]: the planning section of a compiled program (problems, world events).
//! - [`agent`]: the plan–act–observe loop an agent runs (game-agnostic; `stdlib::planning` runs it
//!   as the `Plan` library state).
//! - [`fixtures`]: the seeds' own examples (dinner date, funny dinner date, shop scene).
//!
//! The compiler produces tasks (from PDDL or action lists); nothing here parses text.
//!
//! Invariant: every [`Task`] has passed [`Task::new`], so its fact ids are in range and each
//! operator's add and delete lists are disjoint; planners index facts without checks.
//!
//! # Example
//!
//! An NPC fetching a key to open a door, planned optimally with A* and `h_max`, then
//! replayed by the validator:
//!
//! ```
//! use ensemble_runtime::plan::{Heuristic, Limits, Outcome, PlanError, search, validate};
//! use ensemble_runtime::plan::Task;
//!
//! let task = Task::builder()
//!     .op("take-key", &["at-desk", "!has-key"], &["has-key"], &[])
//!     .op("walk-to-door", &["at-desk"], &["at-door"], &["at-desk"])
//!     .op("walk-to-desk", &["at-door"], &["at-desk"], &["at-door"])
//!     .op("unlock", &["at-door", "has-key"], &["door-open"], &[])
//!     .init(&["at-door"])
//!     .goal(&["door-open"])
//!     .build();
//!
//! let result = search::astar(&task, Heuristic::Max, Limits::default());
//! let plan = result.plan().expect("the door can be opened");
//! assert_eq!(
//!     task.plan_names(plan),
//!     ["walk-to-desk", "take-key", "walk-to-door", "unlock"]
//! );
//! assert!(task.is_goal(&validate(&task, &task.initial_state(), plan)?));
//!
//! // Skipping the key breaks the plan at its second step, and the validator says why.
//! let skip = [task.op_id("walk-to-desk").unwrap(), task.op_id("walk-to-door").unwrap(),
//!             task.op_id("unlock").unwrap()];
//! let err = validate(&task, &task.initial_state(), &skip).unwrap_err();
//! assert!(matches!(err, PlanError::NotApplicable { step: 2, .. }));
//! assert_eq!(err.describe(&task), "step 3: unlock is not applicable: has-key does not hold");
//!
//! // A goal nothing achieves is proven unsolvable rather than searched forever.
//! let stuck = Task::builder().op("wait", &[], &[], &[]).goal(&["door-open"]).build();
//! let none = search::astar(&stuck, Heuristic::Max, Limits::default());
//! assert_eq!(none.outcome, Outcome::Unsolvable);
//! # Ok::<(), PlanError>(())
//! ```

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
