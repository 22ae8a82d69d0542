//! Back ends: lower a validated IR into output. Back ends never parse and never report user
//! errors; they run only when validation found none.

mod nav;
pub mod plan;
pub mod program;
mod script;
pub mod speech;
