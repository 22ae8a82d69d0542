//! Ensemble's desktop editor: designers author state machines and conversation machines as
//! graphs, every other asset kind in its panel, see the compiler's diagnostics as they edit,
//! and save files that diff and merge well.
//!
//! The host ([`app`]) owns the documents ([`document`]), undo ([`history`]), saving and
//! autosave ([`recovery`]), and the background compile ([`analysis`]); editors of one asset
//! kind plug in through the panel contract ([`panel`]). The graph editor of machines is
//! [`machine`]; the rule table of interaction scripts is [`rules`], the sentence-state editor
//! [`sentences`], the navigation view [`nav_view`] (their shared helpers: [`marks`]). The live
//! [`preview`] runs a scene of the project beside the editor and hot-reloads it on every save.
//!
//! The modules stand in layers — model, operations across documents, the panel contract,
//! shared widgets, panels, the host — and import only down them (docs/ARCHITECTURE.md;
//! `compiler/tests/import_circles.rs` checks it).

pub mod analysis;
pub mod app;
pub mod diagnostics_panel;
pub mod document;
pub mod file_dialog;
pub mod find;
pub mod form_widgets;
pub mod graph;
pub mod history;
pub mod live;
pub mod localisation;
pub mod machine;
pub mod maps;
pub mod marks;
pub mod names;
pub mod nav_view;
pub mod panel;
pub mod pddl;
pub mod planning;
pub mod preview;
pub mod project_ops;
pub mod project_panel;
pub mod quick_fix;
pub mod reach;
pub mod recent;
pub mod record_forms;
pub mod recovery;
pub mod rename;
pub mod rules;
pub mod sentences;
pub mod sidecar;
pub mod space;
pub mod templates;
pub mod tests_panel;
pub mod text_view;
pub mod theme;
pub mod watch;
pub mod workbook;

pub use app::EditorApp;
