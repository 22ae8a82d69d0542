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
//!
//! Where a game starts, each with a runnable example:
//!
//! - one object to drive: [`session::Session`] starts a scene of a program in the game's world
//!   (setting the world up from the program), ticks it, saves, restores and hot-reloads it;
//!   `runtime/examples/` has a small complete file for each of these;
//! - loading: [`Program::load`] and [`Program::from_bytes`]; a file that is not a program, was
//!   built for another format version, is truncated or corrupt is refused with a [`LoadError`]
//!   that says which, never a panic;
//! - behaviour: [`hsm`] runs agents' state machines; the game registers the code of its library
//!   states under the names the program asks for, beside the standard ones ([`stdlib`]);
//! - the world: the game implements [`world::World`], the seam everything below runs against;
//! - paths: [`nav::NavData::find_path`] on the program's navigation graph (`Program::nav`);
//! - plans: [`plan`] (STRIPS tasks, A*, MinMin, partial-order plans) and the plan–act–observe
//!   loop of [`plan::agent::Executive`];
//! - conversations: [`hpmm::chat::ChatScene`] runs an HMM social agent against player input;
//! - interaction scripts at smart locations: [`interactions`] orchestrates them over
//!   [`script::ScriptInstance`];
//! - dialog lines of sentence states: [`speech::SpeechTable`];
//! - attaching tools to the running game (feature `inspect`): `inspect::Inspector`.
//!
//! The runtime is deterministic: every random draw comes from an [`rng::Rng`] stream derived
//! from a scene's seed, so the same program, seed and inputs give the same trace.

#![warn(missing_docs)]

pub mod fs;
pub mod hpmm;
pub mod hsm;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod interactions;
pub mod locale;
pub mod nav;
pub mod plan;
pub mod program;
pub mod rng;
pub mod script;
pub mod session;
pub mod snapshot;
pub mod speech;
pub mod stdlib;
pub mod trace;
#[cfg(feature = "watch")]
pub mod watch;
pub mod world;

pub use program::{LoadError, Program, ProgramParts};
