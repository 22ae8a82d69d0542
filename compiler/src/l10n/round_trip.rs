//! The translators' round trip as a library, for the CLI (`ensemble strings export|import`) and
//! the editor's Localisation view alike: every line out to a file by its extension (CSV,
//! Excel, gettext PO), translations back into the locale's table. Nothing here writes a file:
//! the caller does (atomically), after its own checks.

use super::exchange::{self, Imported, Merged};
use crate::front::ron::StringsAsset;
use crate::ir::Module;
use crate::source::SourceMap;
use std::path::{Path, PathBuf};

/// A translators' file format, by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Csv,
    Xlsx,
    Po,
}

impl FileFormat {
    /// The format of `path` (`.csv`, `.xlsx`, `.po` or `.pot`), or why it has none.
    pub fn of(path: &Path) -> Result<FileFormat, String> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "csv" => Ok(FileFormat::Csv),
            "xlsx" => Ok(FileFormat::Xlsx),
            "po" | "pot" => Ok(FileFormat::Po),
            _ => Err(format!(
                "{}: a string table is a .csv, .xlsx or .po file",
                path.display()
            )),
        }
    }
}

/// A project as compiled, as the round trip reads it, with its lines (collected once).
pub struct Project<'a> {
    /// The project's name (a PO file's header names it).
    pub name: &'a str,
    pub module: &'a Module,
    pub sources: &'a SourceMap,
    /// Every line a player can see or hear, in export order ([`super::lines`]).
    pub lines: Vec<super::Line>,
}

impl<'a> Project<'a> {
    pub fn new(name: &'a str, module: &'a Module, sources: &'a SourceMap) -> Self {
        let lines = super::lines(module, &mut Default::default());
        Project {
            name,
            module,
            sources,
            lines,
        }
    }
}

/// The bytes of a file holding every line of `project` with its translation into each of
/// `locales` (none: the declared ones), and notes for locales with no table. CSV and PO hold one
/// locale; a workbook has a sheet per locale.
pub fn export(
    project: &Project<'_>,
    format: FileFormat,
    locales: &[String],
) -> Result<(Vec<u8>, Vec<String>), String> {
    let strings = &project.module.strings;
    let lines = &project.lines;
    let locales: Vec<String> = if locales.is_empty() {
        strings.declared.iter().map(|d| d.text.clone()).collect()
    } else {
        locales.to_vec()
    };
    let notes = (locales.iter())
        .filter(|l| {
            exchange::table(strings, l).is_none() && !strings.declared.iter().any(|d| &d.text == *l)
        })
        .map(|l| {
            format!("locale `{l}` has no table and is not declared in Ensemble.ron: every line is missing")
        })
        .collect();
    let bytes = match format {
        FileFormat::Csv | FileFormat::Po => {
            if locales.len() > 1 {
                return Err(format!(
                    "a {} file holds one locale; choose one ({})",
                    if format == FileFormat::Csv {
                        "CSV"
                    } else {
                        "PO"
                    },
                    locales.join(", ")
                ));
            }
            let locale = locales.first().map(String::as_str);
            let rows = exchange::rows(lines, strings, locale);
            if format == FileFormat::Csv {
                exchange::to_csv(&rows).into_bytes()
            } else {
                let language = &strings.language;
                exchange::to_po(&rows, project.sources, project.name, language, locale).into_bytes()
            }
        }
        FileFormat::Xlsx => {
            let names: Vec<String> = if locales.is_empty() {
                vec!["translation".to_string()]
            } else {
                locales.clone()
            };
            let sheets: Vec<(String, Vec<exchange::Row<'_>>)> = (names.iter())
                .map(|n| {
                    let locale = (!locales.is_empty()).then_some(n.as_str());
                    (n.clone(), exchange::rows(lines, strings, locale))
                })
                .collect();
            exchange::to_xlsx(&sheets).map_err(|e| format!("cannot write the workbook: {e}"))?
        }
    };
    Ok((bytes, notes))
}

/// A locale name a file can be named after: letters, digits, `-` and `_` (`fr`, `pt-BR`), and
/// not the pseudo-locale.
pub fn check_locale(locale: &str) -> Result<(), String> {
    let ok = !locale.is_empty()
        && locale != ensemble_runtime::locale::PSEUDO
        && (locale.chars()).all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{locale}` is not a locale name to translate into (letters, digits, `-`, `_`; `{}` is the pseudo-locale)",
            ensemble_runtime::locale::PSEUDO
        ))
    }
}

/// Reads a translators' file (`bytes`, of `format`) for `locale`.
pub fn read(bytes: Vec<u8>, format: FileFormat, locale: &str) -> Result<Vec<Imported>, String> {
    match format {
        FileFormat::Xlsx => exchange::read_xlsx(bytes, locale),
        FileFormat::Csv | FileFormat::Po => {
            let text = String::from_utf8(bytes).map_err(|_| "the file is not UTF-8".to_string())?;
            if format == FileFormat::Csv {
                exchange::read_csv(&text)
            } else {
                exchange::read_po(&text)
            }
        }
    }
}

/// Where `locale`'s table is (relative to the project root, `/`-separated): the file the
/// project has for it, else `strings/LOCALE.strings.ron`.
pub fn table_path(project: &Project<'_>, locale: &str) -> String {
    match exchange::table(&project.module.strings, locale) {
        Some(t) => project.sources.get(t.file).name.clone(),
        None => format!("strings/{locale}.strings.ron"),
    }
}

/// `imported` merged into `locale`'s table of `project` ([`exchange::merge`]).
pub fn merge(project: &Project<'_>, locale: &str, imported: Vec<Imported>) -> Merged {
    let existing = exchange::table(&project.module.strings, locale);
    exchange::merge(&project.lines, existing, locale, imported)
}

/// `project`'s table for `locale` with line `id` translated as `text` (the translation made
/// from the line's current source), or why not: an unknown line.
pub fn translate(
    project: &Project<'_>,
    locale: &str,
    id: &str,
    text: &str,
) -> Result<StringsAsset, String> {
    check_locale(locale)?;
    if text.trim().is_empty() {
        // Cleared: the line is untranslated again.
        let mut table = merge(project, locale, Vec::new())
            .table
            .unwrap_or(StringsAsset {
                locale: locale.to_string(),
                lines: Vec::new(),
            });
        table.lines.retain(|l| l.id != id);
        return Ok(table);
    }
    let row = Imported {
        id: id.to_string(),
        source: None,
        translation: text.to_string(),
        unreviewed: false,
        at: "the Localisation view".to_string(),
    };
    let merged = merge(project, locale, vec![row]);
    if !merged.unknown.is_empty() {
        return Err(format!("the project has no line `{id}`"));
    }
    merged
        .table
        .ok_or_else(|| format!("no table for `{locale}` came of it"))
}

/// The absolute path of a table at `relative` (`/`-separated) in the project at `root`.
pub fn table_file(root: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .fold(root.to_path_buf(), |p, s| p.join(s))
}
