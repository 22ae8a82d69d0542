//! `ensemble strings export PATH -o FILE` and `ensemble strings import PATH FILE --locale L`:
//! every line a player can see or hear out to translators (CSV, Excel, gettext PO, by the
//! output's extension) and their translations back into the project's `strings/L.strings.ron`
//! (docs/formats/strings.md).

use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io};
use crate::l10n::{self, exchange};
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum StringsCommand {
    /// Write every line with its id, source, translation, context and status (.csv, .xlsx, .po).
    Export {
        /// The project.
        path: PathBuf,
        /// The file to write; its extension picks the format.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// The locale(s) to export (default: those `Ensemble.ron` declares). CSV and PO hold
        /// one; a workbook has a sheet per locale.
        #[arg(long)]
        locale: Vec<String>,
        /// Replace FILE even if it exists and was not written by `strings export` (an export
        /// is only ever replaced by another without it).
        #[arg(long)]
        force: bool,
    },
    /// Read translations (.csv, .xlsx, .po) into the project's table for a locale.
    Import {
        /// The project.
        path: PathBuf,
        /// The translator's file.
        file: PathBuf,
        #[arg(long)]
        locale: String,
    },
}

pub fn run(command: StringsCommand, io: &mut Io<'_>) -> i32 {
    match command {
        StringsCommand::Export {
            path,
            out,
            locale,
            force,
        } => export(&path, &out, locale, force, io),
        StringsCommand::Import { path, file, locale } => import(&path, &file, &locale, io),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum FileFormat {
    Csv,
    Xlsx,
    Po,
}

fn format_of(path: &Path, io: &mut Io<'_>) -> Result<FileFormat, i32> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" => Ok(FileFormat::Csv),
        "xlsx" => Ok(FileFormat::Xlsx),
        "po" | "pot" => Ok(FileFormat::Po),
        _ => {
            let _ = writeln!(
                io.err,
                "error: {}: a string table is a .csv, .xlsx or .po file",
                path.display()
            );
            Err(EXIT_CANNOT_RUN)
        }
    }
}

/// Compiles the project for its lines; the exit code when there is no project to read.
fn compile(path: &Path, io: &mut Io<'_>) -> Result<crate::Compilation, i32> {
    if !path.is_dir() {
        let _ = writeln!(
            io.err,
            "error: {}: `strings` works on a project directory (with Ensemble.ron)",
            path.display()
        );
        return Err(EXIT_CANNOT_RUN);
    }
    crate::compile_path(path).map_err(|e| super::cannot_run(io, &e))
}

fn export(path: &Path, out: &Path, locales: Vec<String>, force: bool, io: &mut Io<'_>) -> i32 {
    let format = match format_of(out, io) {
        Ok(f) => f,
        Err(code) => return code,
    };
    // Someone's own file under the export's name (the designers' workbook) is never replaced
    // unasked: only an earlier export is.
    if !force && out.exists() && !exchange::written_by_export(out) {
        let _ = writeln!(
            io.err,
            "error: {} exists and was not written by `ensemble strings export`; refusing to \
             replace it — choose another output path, or add --force to replace it",
            out.display()
        );
        return EXIT_CANNOT_RUN;
    }
    let c = match compile(path, io) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if c.diagnostics.has_errors() {
        // Lines of a project that does not compile may be incomplete (no candidates ranked).
        super::report(&c, Format::Human, io);
        return EXIT_ERRORS;
    }
    if let Err(code) = super::refuse_overwriting_sources(&c, &[out], io) {
        return code;
    }
    let strings = &c.module.strings;
    let lines = l10n::lines(&c.module, &mut Default::default());
    let locales = if locales.is_empty() {
        strings.declared.iter().map(|d| d.text.clone()).collect()
    } else {
        locales
    };
    for l in &locales {
        if exchange::table(strings, l).is_none() && !strings.declared.iter().any(|d| &d.text == l) {
            let _ = writeln!(
                io.err,
                "note: locale `{l}` has no table and is not declared in Ensemble.ron: every line is missing"
            );
        }
    }
    let bytes = match format {
        FileFormat::Csv | FileFormat::Po => {
            if locales.len() > 1 {
                let _ = writeln!(
                    io.err,
                    "error: a {} file holds one locale; choose one with --locale ({})",
                    if format == FileFormat::Csv {
                        "CSV"
                    } else {
                        "PO"
                    },
                    locales.join(", ")
                );
                return EXIT_CANNOT_RUN;
            }
            let locale = locales.first().map(String::as_str);
            let rows = exchange::rows(&lines, strings, locale);
            if format == FileFormat::Csv {
                exchange::to_csv(&rows).into_bytes()
            } else {
                exchange::to_po(&rows, &c.sources, &c.name, &strings.language, locale).into_bytes()
            }
        }
        FileFormat::Xlsx => {
            let names: Vec<String> = if locales.is_empty() {
                vec!["translation".to_string()]
            } else {
                locales.clone()
            };
            let sheets: Vec<(String, Vec<exchange::Row<'_>>)> = names
                .iter()
                .map(|n| {
                    let locale = (!locales.is_empty()).then_some(n.as_str());
                    (n.clone(), exchange::rows(&lines, strings, locale))
                })
                .collect();
            match exchange::to_xlsx(&sheets) {
                Ok(b) => b,
                Err(e) => {
                    let _ = writeln!(io.err, "error: cannot write the workbook: {e}");
                    return EXIT_CANNOT_RUN;
                }
            }
        }
    };
    if let Err(e) = ensemble_runtime::fs::write_atomic(out, &bytes) {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
        return EXIT_CANNOT_RUN;
    }
    let _ = writeln!(
        io.err,
        "wrote {} ({} lines{})",
        out.display(),
        lines.len(),
        if locales.is_empty() {
            String::new()
        } else {
            format!("; {}", locales.join(", "))
        }
    );
    EXIT_OK
}

/// A locale name a file can be named after: letters, digits, `-` and `_` (`fr`, `pt-BR`).
fn valid_locale(locale: &str) -> bool {
    !locale.is_empty()
        && locale
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn import(path: &Path, file: &Path, locale: &str, io: &mut Io<'_>) -> i32 {
    if !valid_locale(locale) || locale == ensemble_runtime::locale::PSEUDO {
        let _ = writeln!(
            io.err,
            "error: `{locale}` is not a locale name to translate into (letters, digits, `-`, `_`; `{}` is the pseudo-locale)",
            ensemble_runtime::locale::PSEUDO
        );
        return EXIT_CANNOT_RUN;
    }
    let format = match format_of(file, io) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let c = match compile(path, io) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let read = match format {
        FileFormat::Xlsx => std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| exchange::read_xlsx(bytes, locale)),
        FileFormat::Csv | FileFormat::Po => std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|_| "the file is not UTF-8".to_string()))
            .and_then(|text| {
                if format == FileFormat::Csv {
                    exchange::read_csv(&text)
                } else {
                    exchange::read_po(&text)
                }
            }),
    };
    let imported = match read {
        Ok(rows) => rows,
        Err(e) => {
            let _ = writeln!(io.err, "error: {}: {e}", file.display());
            return EXIT_ERRORS;
        }
    };
    let lines = l10n::lines(&c.module, &mut Default::default());
    let existing = exchange::table(&c.module.strings, locale);
    let target = match existing {
        Some(t) => c.sources.get(t.file).path.clone(),
        None => path.join("strings").join(format!("{locale}.strings.ron")),
    };
    if let Err(code) = super::refuse_overwriting_inputs(&[file], &[&target], io) {
        return code;
    }
    let merged = exchange::merge(&lines, existing, locale, imported);
    for unknown in &merged.unknown {
        let _ = writeln!(
            io.err,
            "warning: {}: no line `{unknown}` in the project; skipped",
            file.display()
        );
    }
    let Some(table) = &merged.table else {
        return EXIT_OK;
    };
    let text = l10n::write_table(table);
    if let Some(dir) = target.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        let _ = writeln!(io.err, "error: cannot create {}: {e}", dir.display());
        return EXIT_CANNOT_RUN;
    }
    if let Err(e) = ensemble_runtime::fs::write_atomic(&target, text.as_bytes()) {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", target.display());
        return EXIT_CANNOT_RUN;
    }
    let _ = writeln!(
        io.err,
        "imported {locale} into {}: {} added, {} changed, {} unchanged; {} of {} lines translated",
        target.display(),
        merged.added,
        merged.changed,
        merged.unchanged,
        table
            .lines
            .iter()
            .filter(|t| lines.iter().any(|l| l.id == t.id))
            .count(),
        lines.len()
    );
    if !c.module.strings.declared.iter().any(|d| d.text == locale) {
        let _ = writeln!(
            io.err,
            "note: declare the locale in Ensemble.ron (`locales: [\"{locale}\"]`) so that `check` reports its missing lines"
        );
    }
    EXIT_OK
}
