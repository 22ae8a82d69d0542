//! `ensemble strings export PATH -o FILE` and `ensemble strings import PATH FILE --locale L`:
//! every line a player can see or hear out to translators (CSV, Excel, gettext PO, by the
//! output's extension) and their translations back into the project's `strings/L.strings.ron`
//! (docs/formats/strings.md).

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io};
use clap::Subcommand;
use ensemble_compiler::l10n::round_trip::{self, FileFormat, Project};
use ensemble_compiler::l10n::{self, exchange};
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

fn format_of(path: &Path, io: &mut Io<'_>) -> Result<FileFormat, i32> {
    FileFormat::of(path).map_err(|e| {
        let _ = writeln!(io.err, "error: {e}");
        EXIT_CANNOT_RUN
    })
}

/// Compiles the project for its lines; the exit code when there is no project to read.
fn compile(path: &Path, io: &mut Io<'_>) -> Result<ensemble_compiler::Compilation, i32> {
    if !path.is_dir() {
        let _ = writeln!(
            io.err,
            "error: {}: `strings` works on a project directory (with Ensemble.ron)",
            path.display()
        );
        return Err(EXIT_CANNOT_RUN);
    }
    ensemble_compiler::compile_path(path).map_err(|e| crate::io::cannot_run(io, &e))
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
        crate::io::report(&c, Format::Human, io);
        return EXIT_ERRORS;
    }
    if let Err(code) = crate::io::refuse_overwriting_sources(&c, &[out], io) {
        return code;
    }
    let project = Project::new(&c.name, &c.module, &c.sources);
    let lines = project.lines.len();
    let (bytes, notes) = match round_trip::export(&project, format, &locales) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    for note in notes {
        let _ = writeln!(io.err, "note: {note}");
    }
    let locales = if locales.is_empty() {
        (c.module.strings.declared.iter())
            .map(|d| d.text.clone())
            .collect()
    } else {
        locales
    };
    if let Err(e) = ensemble_runtime::fs::write_atomic(out, &bytes) {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
        return EXIT_CANNOT_RUN;
    }
    let _ = writeln!(
        io.err,
        "wrote {} ({} lines{})",
        out.display(),
        lines,
        if locales.is_empty() {
            String::new()
        } else {
            format!("; {}", locales.join(", "))
        }
    );
    EXIT_OK
}

fn import(path: &Path, file: &Path, locale: &str, io: &mut Io<'_>) -> i32 {
    if let Err(e) = round_trip::check_locale(locale) {
        let _ = writeln!(io.err, "error: {e}");
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
    let read = std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|bytes| round_trip::read(bytes, format, locale));
    let imported = match read {
        Ok(rows) => rows,
        Err(e) => {
            let _ = writeln!(io.err, "error: {}: {e}", file.display());
            return EXIT_ERRORS;
        }
    };
    let project = Project::new(&c.name, &c.module, &c.sources);
    let lines = &project.lines;
    let target = round_trip::table_file(path, &round_trip::table_path(&project, locale));
    if let Err(code) = crate::io::refuse_overwriting_inputs(&[file], &[&target], io) {
        return code;
    }
    let merged = round_trip::merge(&project, locale, imported);
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
