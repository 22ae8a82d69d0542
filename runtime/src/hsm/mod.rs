//! Hierarchical state machines (Hewlett 2013, ch. 2): the interpreter.
//!
//! An agent runs one root machine. Its active states form a stack of frames: depth 0 is the
//! root machine's current state; a state whose modifier is a machine hosts that child machine at
//! the next depth. Every tick each frame is updated, root first, with the elapsed time.
//!
//! Events are names. A state's code raises them, a message with the same name raises them, and a
//! child machine ending raises `EndStateMachine` (or `StateMachineFailed`) in its host. An event
//! takes the current state's transition of that name, if it has one; otherwise it is ignored.
//!
//! Messages travel up an agent's hierarchy (child -> host -> ... -> agent) until a state handles
//! them, travel between agents (delivered at the start of the next tick), and inside the
//! receiving agent are dispatched top-down until a state handles them. Machines of different
//! agents never talk directly.
//!
//! Invariants:
//! - frames\[d + 1\] exists only if frames\[d\]'s state hosts a machine — its modifier's, or one
//!   its code started with `StateCx::start_machine` — and runs that machine;
//! - leaving a state cleans up its children first, deepest first;
//! - work raised by a state instance that has since been left is dropped (frame serials).

mod context;
mod library;
mod scene;

pub use context::{Message, StateCx};
pub use library::{
    EventKey, EventName, Inert, LibraryDecl, LinkError, Names, ParamKey, ParamName, StateCode,
    StateLibrary, StateSpec,
};
pub use scene::{
    AgentId, AgentStatus, ReloadReport, RestoreReport, RosterChange, Scene, SceneError, Symbols,
    UnknownLocale,
};

/// Raised in a host when its child machine reaches a terminal `End` state.
pub const END_STATE_MACHINE: &str = "EndStateMachine";
/// Raised in a host when its child machine reaches a terminal `Failure` state.
pub const STATE_MACHINE_FAILED: &str = "StateMachineFailed";
/// The most transitions one agent may take in one tick before the runtime calls it a loop.
pub const MAX_TRANSITIONS_PER_TICK: u32 = 64;
/// The deepest an agent's stack of machines may grow (defined with the program's limits, which
/// a trace is read against too).
pub use crate::program::MAX_DEPTH;

#[cfg(test)]
mod tests;
