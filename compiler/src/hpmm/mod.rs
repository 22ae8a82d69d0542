//! HMM spaces (Zubek's hierarchical parallel Markov models) in the compiler: the assets
//! (`*.space.ron`, `*.lexicon.ron`, `*.evidence.ron`, `*.concepts.ron`, `*.actions.ron`,
//! `*.chat.ron`), their lowering into the IR, the checks that need the whole module, and the
//! back end that produces the runtime's `hpmm` section.
//!
//! ```text
//! front::ron::lower ─► hpmm::lower ─► ir::hpmm items ─► hpmm::valid ─► hpmm::back ─► Program::hpmm
//!                      (patterns,       (spans, refs)     (rows, cycles,   (bitmasks, shared
//!                       templates)                         reachability)    evidence, order)
//! ```

/// The asset kinds' serde shapes are the RON frontend's (`front::ron::hpmm`).
pub use crate::front::ron::hpmm as assets;
pub mod back;
mod lower;
pub mod pattern;
pub mod template;
pub mod valid;

pub use lower::lower;
pub use valid::validate;
