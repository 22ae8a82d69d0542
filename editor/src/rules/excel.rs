//! "Import from Excel" and "Export to .xlsx": the compiler's calamine reader and workbook writer,
//! plus the file dialog. The dialog is behind [`FilePicker`] so tests (and a host with its own
//! dialogs) can answer it.

use crate::file_dialog::{Answer, Ask, Pick};
use ensemble_compiler::diag::{Diagnostics, Severity};
use ensemble_compiler::script::lower::to_asset;
use ensemble_compiler::script::source::ScriptAsset;
use ensemble_compiler::source::{SourceFile, SourceMap};
use std::path::Path;

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

/// One line of an import or export report.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub severity: Severity,
    pub text: String,
    pub notes: Vec<String>,
}

fn messages(diags: &Diagnostics) -> Vec<Message> {
    diags
        .iter()
        .map(|d| {
            let at = match (&d.sheet, &d.cell) {
                (Some(s), Some(c)) => format!("sheet `{s}`, cell {c}: "),
                _ => String::new(),
            };
            Message {
                severity: d.severity,
                text: format!("{at}{}", d.message),
                notes: d.notes.clone(),
            }
        })
        .collect()
}

/// Reads a workbook into a script. `Ok` carries the warnings (unknown columns, keys); `Err`
/// every problem that stopped the import, each with its sheet and cell.
pub fn import(path: &Path) -> Result<(ScriptAsset, Vec<Message>), Vec<Message>> {
    let mut sources = SourceMap::default();
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let file = sources.add(SourceFile::new(name, path.to_path_buf(), String::new()));
    let mut diags = Diagnostics::default();
    let script = ensemble_compiler::script::xlsx::read(&sources, file, &mut diags);
    match script {
        Some(s) if !diags.has_errors() => Ok((to_asset(&s), messages(&diags))),
        _ => {
            let mut m = messages(&diags);
            if m.is_empty() {
                m.push(Message {
                    severity: Severity::Error,
                    text: "the workbook holds no script".into(),
                    notes: Vec::new(),
                });
            }
            Err(m)
        }
    }
}

/// Writes the workbook atomically (a failed export leaves no file and no half-written one).
pub fn export(script: &ScriptAsset, path: &Path) -> Result<(), String> {
    ensemble_compiler::script::xlsx_write::write(script, path).map_err(|e| e.to_string())
}

/// `NAME.xlsx` for a script.
pub fn suggested_name(script: &ScriptAsset) -> String {
    let stem: String = script
        .name
        .trim()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{}.xlsx", if stem.is_empty() { "script" } else { &stem })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bench() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/bench/bench.xlsx")
    }

    #[test]
    fn the_bench_imports_exports_and_imports_again() {
        let (script, warnings) = import(&bench()).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(script.name, "bench");
        assert_eq!(script.rules.len(), 8);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join(suggested_name(&script));
        export(&script, &out).unwrap();
        assert_eq!(import(&out).unwrap().0, script);
    }

    #[test]
    fn broken_workbooks_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake.xlsx");
        std::fs::write(&fake, "Key,Value\n").unwrap();
        let e = import(&fake).unwrap_err();
        assert!(e[0].text.contains("not a readable Excel workbook"), "{e:?}");
        let missing = import(&dir.path().join("none.xlsx")).unwrap_err();
        assert!(missing[0].text.contains("cannot read"), "{missing:?}");
        let e = export(&ScriptAsset::default(), &dir.path().join("no/dir/x.xlsx")).unwrap_err();
        assert!(!e.is_empty());
        assert_eq!(suggested_name(&ScriptAsset::default()), "script.xlsx");
    }
}
