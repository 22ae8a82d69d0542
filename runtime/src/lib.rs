//! Ensemble's runtime: what a game embeds to run compiled behaviour.
//!
//! The runtime stands alone. It knows the compiled [`program`] format (it defines it), loads and
//! verifies programs, and runs agents whose behaviour is hierarchical state machines ([`hsm`]).
//! It knows nothing about source files, RON, diagnostics or the editor: the compiler produces
//! programs, the runtime executes them.
//!
//! [`sim`] is a small 2D world with a standard state library. The `ensemble run` command and the
//! editor preview use it; a game registers its own library states instead.

pub mod fs;
pub mod hpmm;
pub mod hsm;
pub mod nav;
pub mod plan;
pub mod program;
pub mod rng;
pub mod script;
pub mod sim;
pub mod snapshot;
pub mod speech;
pub mod trace;
#[cfg(feature = "watch")]
pub mod watch;

pub use program::{LoadError, Program};
