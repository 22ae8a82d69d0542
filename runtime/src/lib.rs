//! Ensemble's runtime: what a game embeds to run compiled behaviour.
//!
//! The runtime stands alone. It knows the compiled [`program`] format (it defines it), loads and
//! verifies programs, and runs agents whose behaviour is hierarchical state machines ([`hsm`]).
//! It knows nothing about source files, RON, diagnostics or the editor: the compiler produces
//! programs, the runtime executes them.
//!
//! Everything a designer authors runs against the game-side seam ([`world::World`]): the
//! standard library states ([`stdlib`]), interaction scripts at smart locations
//! ([`interactions`]), speech and planning. The core knows no world of its own and no
//! simulator: a game supplies its world; the command line and the editor preview run on a
//! simulated world that implements the same seam, in a crate of its own.

pub mod fs;
pub mod hpmm;
pub mod hsm;
pub mod interactions;
pub mod nav;
pub mod plan;
pub mod program;
pub mod rng;
pub mod script;
pub mod speech;
pub mod stdlib;
pub mod trace;
#[cfg(feature = "watch")]
pub mod watch;
pub mod world;

pub use program::{LoadError, Program};
