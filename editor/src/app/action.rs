//! What the user asks for during a frame ([`Action`]), carried out after the frame is drawn
//! (`actions.rs`), and an edit of one document ([`DocEdit`]).

use crate::analysis::Located;
use crate::document::{Content, DocId};
use crate::file_dialog::{Ask, Pick};
use crate::find::Hit;
use crate::machine::Edit;
use crate::project_ops;
use std::path::PathBuf;

/// An edit of one document.
pub enum DocEdit {
    /// Graph and inspector edits of a machine, applied in order.
    Machine(Vec<Edit>),
    /// An asset panel's edit.
    Value(Box<ValueEdit>),
}

/// An asset panel's edit: the document's new content and layout sidecar.
pub struct ValueEdit {
    pub content: Content,
    pub layout: crate::sidecar::Layout,
    /// The widget it came from, so typing in one field is one undo step.
    pub gesture: String,
    /// What the undo menu calls it (`edit <file>` when `None`).
    pub label: Option<String>,
}

/// Something the user asked for during a frame.
pub enum Action {
    OpenDoc(DocId),
    /// Open the machine named so, entering it from the shown one (breadcrumbs grow).
    EnterMachine(String),
    /// Back up to the machine at this breadcrumb.
    Crumb(usize),
    Reveal(Box<Located>),
    /// A Problems panel quick fix on this diagnostic's source.
    QuickFix(Box<Located>, crate::quick_fix::QuickFix),
    Jump(Hit),
    /// Edit a document: every change the user makes to a document, from the graph, the
    /// inspector or an asset panel, comes here and is applied after the frame, recorded for
    /// undo in the one history.
    Edit(DocId, DocEdit),
    RenameMachine(DocId, String),
    NewAsset(project_ops::Starter),
    AskRename(DocId),
    AskDelete(DocId),
    Save,
    Undo,
    Redo,
    Find,
    OpenDialog,
    NewProjectDialog,
    OpenProject(PathBuf),
    Copy,
    Paste,
    DeleteSelection,
    /// Select every state of the open machine (true) or none.
    Select(bool),
    /// Arrange the open machine with the layered layout (every state moves, one undo step).
    Arrange,
    /// Show this stack of machines (the preview follows an agent): root first.
    Follow(Vec<String>),
    /// Rename an item and every reference to it ([`crate::rename`]).
    Rename(crate::rename::Named, String, String),
    /// Add an Excel workbook to the project (asks which).
    ImportWorkbook,
    /// Import the workbook at this path.
    ImportWorkbookFrom(PathBuf),
    /// Ask for a file with the system's dialog, or by a typed path when there is none.
    AskFile(PathFor),
    /// Show the navigation map at this path (relative to the project, or absolute).
    OpenMap(String),
    /// Load a recorded JSON trace into the preview's timeline.
    OpenTrace(std::path::PathBuf),
    /// Show the judging pass over every sentence state ([`crate::sentences::judge`]).
    JudgeLines,
    /// "How do I get here?": search for a play reaching this ([`crate::reach`]).
    Reach(crate::reach::Asked),
    /// Write every line for the Localisation view's locale to this translators' file.
    ExportStringsTo(PathBuf),
    /// Read this translators' file into the Localisation view's locale's table.
    ImportStringsFrom(PathBuf),
    /// Translate a line in place (the Localisation view).
    Translate {
        locale: String,
        id: String,
        text: String,
    },
}

/// What a file asked for is for: the action it becomes once given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathFor {
    Map,
    Trace,
    Workbook,
    /// A translators' file to write (the Localisation view's Export…).
    StringsExport,
    /// A translators' file to read (Import…).
    StringsImport,
}

impl PathFor {
    pub fn ask(self) -> Ask {
        match self {
            PathFor::Map => crate::nav_view::map_ask(),
            PathFor::Trace => Ask::new("Open a recorded trace", Pick::File)
                .filter("JSON trace", &["jsonl", "json"]),
            PathFor::Workbook => crate::rules::FileRequest::Import.ask(),
            PathFor::StringsExport => Ask::new("Export lines for translators", Pick::Save)
                .filter("String table", &["csv", "xlsx", "po"])
                .suggested("translation.csv"),
            PathFor::StringsImport => Ask::new("Import translations", Pick::File)
                .filter("String table", &["csv", "xlsx", "po"]),
        }
    }

    pub fn then(self, path: PathBuf) -> Action {
        match self {
            PathFor::Map => Action::OpenMap(path.display().to_string()),
            PathFor::Trace => Action::OpenTrace(path),
            PathFor::Workbook => Action::ImportWorkbookFrom(path),
            PathFor::StringsExport => Action::ExportStringsTo(path),
            PathFor::StringsImport => Action::ImportStringsFrom(path),
        }
    }
}
