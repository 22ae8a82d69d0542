//! The serde shapes of `*.nav.ron` live with the other native asset shapes in the RON frontend
//! (`front::ron::nav`), so the frontend needs nothing from this module; they are re-exported
//! here under their old path.

pub use crate::front::ron::nav::*;
