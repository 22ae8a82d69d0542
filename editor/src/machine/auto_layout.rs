//! Auto-layout for content without a layout (imported, hand-written, or asked for): the
//! layered layout every graph uses ([`crate::graph::layered`]).

pub use crate::graph::layered::positions;
