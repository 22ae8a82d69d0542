//! Interaction scripts (Skubch, *Ambient Interactions*, Game AI Pro 3 ch. 35): STRIPS-like rules
//! over a tuple space, run by smart locations for several participants at once.
//!
//! A script is roles and rules. Each participant holds one role and one state; every update
//! (35.4) shuffles the participants, applies the deferred effects of finished actions (or the
//! on-error facts of failed ones), lets each idle participant fire the first rule of its state
//! whose precondition holds, removes participants that terminated, and ends the script when a
//! role's minimum can no longer be met.
//!
//! - [`def`]: the compiled form (part of the program): roles, rules grouped by state, literals,
//!   expressions, all names interned.
//! - [`space`]: the tuple space, a closed-world multimap keyed by predicate and arity.
//! - [`eval`]: unification and backtracking; each literal is asked for its n-th solution.
//! - [`instance`]: a running script and its update.
//! - [`allocate`]: Monte-Carlo greedy role allocation (35.4.1) and joining late (35.4.2).
//!
//! Invariants: a script definition in a verified program has every name id in range, variable
//! indices below its rule's `variables`, and each state's rules contiguous, so an update
//! indexes without checks; an instance is updated only with its own definition. Updates are
//! deterministic: an instance draws its shuffles and `randf`/`randi` from its own seeded
//! stream, so the same seed, joins and action outcomes give the same events. Nothing here knows
//! a world: the caller supplies time and distances and performs the actions (see
//! [`ScriptInstance`] for a runnable example).

pub mod allocate;
/// The compiled form of scripts, which the program owns (`crate::program::script`).
pub use crate::program::script as def;
pub mod eval;
pub mod instance;
pub mod space;

pub use def::*;
pub use instance::{ActionOutcome, ActionRequest, ScriptEvent, ScriptInstance};
pub use space::{Fact, TupleSpace, Value};
