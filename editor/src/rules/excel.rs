//! "Import from Excel" and "Export to .xlsx" as the rule table asks for them: the file dialog,
//! behind [`FilePicker`] so tests (and a host with its own dialogs) can answer it. Reading and
//! writing the workbook is the model's ([`crate::workbook`]).

use crate::file_dialog::{Answer, Ask, Pick};
pub use crate::workbook::{Message, export, import, suggested_name};

/// What the panel asks the user for.
#[derive(Clone, Debug, PartialEq)]
pub enum FileRequest {
    /// A workbook to import.
    Import,
    /// Where to export; `suggested` is a file name.
    Export { suggested: String },
}

/// Answers a [`FileRequest`] with a path, a cancel, or that there is no dialog to ask with.
pub type FilePicker = Box<dyn FnMut(&FileRequest) -> Answer>;

impl FileRequest {
    /// The question as the editor's dialogs ask it.
    pub fn ask(&self) -> Ask {
        let ask = match self {
            FileRequest::Import => Ask::new("Import from Excel", Pick::File),
            FileRequest::Export { suggested } => {
                Ask::new("Export to .xlsx", Pick::Save).suggested(suggested.clone())
            }
        };
        ask.filter("Excel workbook", &["xlsx"])
    }
}

/// The system's file dialogs ([`crate::file_dialog::native`]).
pub fn native_picker() -> FilePicker {
    let mut dialogs = crate::file_dialog::native();
    Box::new(move |request| dialogs(&request.ask()))
}
