//! Hierarchical parallel Markov models (Zubek): social agents made of many small HMMs
//! ("spaces") that all run on every iteration, coupled by inspecting each other's beliefs.
//!
//! - [`model`]: the compiled tables (the `hpmm` section of a [`Program`](crate::Program)).
//! - [`text`]: preprocessing (words, Porter2 stems, lexicon categories as bitmasks).
//! - [`pattern`], [`evidence`]: evidence estimation e(y), inspection of b_{t-1}, variable tests.
//! - [`concepts`]: situational variables and their trackers.
//! - [`belief`]: the forward step b = η·q·(b_{t-1}×p), and what happens when all mass vanishes.
//! - [`arbitration`], [`output`]: local policies, accumulator networks, templates.
//! - [`agent`]: one iteration of the whole pipeline; hot reload carrying beliefs by name.
//! - [`chat`]: a conversation scene with `input`/`output` trace events.
//!
//! Invariant: every id in a verified program's `hpmm` section is in range, rows of p sum to 1,
//! evidence and accumulators are in evaluation order; the code here indexes without checks.

pub mod agent;
pub mod arbitration;
pub mod belief;
pub mod chat;
pub mod compose;
pub mod concepts;
pub mod evidence;
/// The compiled HPMM section, which the program owns (`crate::program::hpmm`).
pub use crate::program::hpmm as model;
pub mod output;
pub mod pattern;
pub mod text;

pub use agent::{ChatError, Input, Output, SocialAgent};
pub use chat::ChatScene;
pub use model::Model;

#[cfg(test)]
mod tests;
