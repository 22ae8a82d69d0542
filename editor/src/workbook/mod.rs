//! A workbook as the model reads and writes it: the compiler's calamine reader and workbook
//! writer ([`import`], [`export`]), the rule table's columns in the Excel contract's layout
//! ([`columns`]), and which script value a cell holds ([`path_of_cell`]).

pub mod columns;

use columns::Column;
use ensemble_compiler::diag::{Diagnostics, Severity};
use ensemble_compiler::formats::locate::PathSeg;
use ensemble_compiler::formats::scripts::ScriptAsset;
use ensemble_compiler::formats::scripts::to_asset;
use ensemble_compiler::source::{SourceFile, SourceMap};
use std::path::Path;

/// `D7` -> (`D`, 7).
pub fn split_cell(cell: &str) -> Option<(&str, usize)> {
    let at = cell.find(|c: char| c.is_ascii_digit())?;
    Some((&cell[..at], cell[at..].parse().ok()?))
}

/// The RON path of the script value a workbook cell holds (`Rules!D7` -> `rules[5].precondition`),
/// so a cell diagnostic reveals like one in a `.script.ron`. Row 2 is the first rule or role.
pub fn path_of_cell(sheet: &str, cell: &str) -> Vec<PathSeg> {
    let Some((letters, row)) = split_cell(cell) else {
        return Vec::new();
    };
    let Some(index) = row.checked_sub(2) else {
        return Vec::new();
    };
    match sheet {
        "Rules" => {
            let mut path = vec![PathSeg::Field("rules".into()), PathSeg::Index(index)];
            if let Some(c) = Column::of_letter(letters) {
                path.push(PathSeg::Field(c.ron_field().into()));
            }
            path
        }
        "Roles" => vec![PathSeg::Field("roles".into()), PathSeg::Index(index)],
        _ => Vec::new(),
    }
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
    let script = ensemble_compiler::formats::scripts::read_workbook(&sources, file, &mut diags);
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
    ensemble_compiler::formats::scripts::write_workbook(script, path).map_err(|e| e.to_string())
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
