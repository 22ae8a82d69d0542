//! Ensemble's desktop editor. This first version is a read-only viewer: it compiles a project
//! with the real compiler and shows its assets, each machine as a diagram, and every diagnostic,
//! reloading when the sources change on disk.
//!
//! The window lives in [`app`]; everything below the panels is split so the parts that decide
//! what a diagram looks like ([`layout`], [`diagram`], [`machine_graph`]) are plain functions,
//! tested without a window.

pub mod app;
pub mod diagnostics_panel;
pub mod diagram;
pub mod graph_view;
pub mod layout;
pub mod machine_graph;
pub mod nav_view;
pub mod panel_cx;
pub mod project_panel;
pub mod rules;
pub mod sentences;
pub mod spans;
pub mod theme;
pub mod watch;

pub use app::EditorApp;
