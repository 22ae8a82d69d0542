//! Ensemble's C ABI: what an engine written in C, C++ or C# (Unreal, Unity, Godot's
//! GDExtension) calls to run designers' behaviour.
//!
//! The header `include/ensemble.h` is generated from this crate by cbindgen (the test
//! `header` fails when it is out of date; `ENSEMBLE_BLESS=1` rewrites it). Everything a host
//! needs is here:
//!
//! - **Programs** ([`program`]): load a built `.ensb` from a path or from bytes.
//! - **Libraries** ([`library`]): the standard states plus states whose code is C callbacks
//!   (init, update, cleanup, message) with their declared, typed parameters; state code reads
//!   them and acts through an [`cx::EnsStateCx`].
//! - **Worlds** ([`world`]): the game-side seam as a struct of C callbacks and a user-data
//!   pointer — or the standard simulated world of `ensemble run`.
//! - **Scenes** ([`scene`]): start, tick, read the trace as the JSON lines `ensemble run
//!   --trace json` prints, send messages, hot-reload a new program, save to bytes and restore.
//! - **Inspectors** ([`inspect`], the `inspect` feature, on by default): tools attach to the
//!   running game — `ensemble attach`, `ensemble push`, the editor.
//!
//! **Errors.** Every function returns an [`EnsStatus`]; on failure
//! [`ens_last_error_message`] says what and where in words. No Rust panic crosses the
//! boundary: every function catches them (an internal error is `ENS_STATUS_PANIC`).
//!
//! **Handles** are small structs holding a number, not pointers: the library keeps the objects
//! in a table and checks each handle's slot, kind and generation, so a freed (stale) handle, a
//! handle of another kind and a number it never gave out are all reported, never followed.

pub mod cx;
pub mod handles;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod library;
pub mod program;
pub mod scene;
pub mod status;
pub mod world;

pub use status::{EnsStatus, ens_bytes_free, ens_last_error_message, ens_string_free, ens_version};
