//! Ensemble's runtime: what a game embeds to run compiled behaviour.
//!
//! The runtime stands alone. It knows the compiled [`program`] format (it defines it), loads and
//! verifies programs, and runs agents whose behaviour is hierarchical state machines ([`hsm`]).
//! It knows nothing about source files, RON, diagnostics or the editor: the compiler produces
//! programs, the runtime executes them.
//!
//! Everything a designer authors runs against the game-side seam ([`world::World`]): the
//! standard library states ([`stdlib`]), interaction scripts at smart locations
//! ([`interactions`]), speech and planning. [`sim`] is a small 2D world implementing that seam;
//! the `ensemble run` command and the editor preview use it, a game supplies its own world.

pub mod fs;
pub mod hpmm;
pub mod hsm;
pub mod interactions;
pub mod nav;
pub mod plan;
pub mod program;
pub mod rng;
pub mod script;
pub mod sim;
pub mod speech;
pub mod stdlib;
pub mod trace;
#[cfg(feature = "watch")]
pub mod watch;
pub mod world;

pub use program::{LoadError, Program};
