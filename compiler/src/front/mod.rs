//! Frontends: one per source format. Each reads sources into the [`crate::ir`] and reports what
//! it cannot read or resolve. Frontends never emit programs.

pub mod pddl;
pub mod ron;
