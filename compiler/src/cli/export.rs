//! `ensemble export FILE.script.ron -o OUT.xlsx`: the counterpart of `import`, so a script kept
//! as text can go back to designers who work in Excel. The cells are carried as written; checking
//! them is `ensemble check`'s job (on the script or on the exported workbook, with the same
//! findings).

use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, cannot_run, report};
use crate::Compilation;
use crate::script::source::ScriptAsset;
use std::path::Path;

pub fn export(path: &Path, out: &Path, io: &mut Io<'_>) -> i32 {
    if !path.to_string_lossy().ends_with(".ron") {
        let _ = writeln!(
            io.err,
            "error: {}: `export` reads a native interaction script (.script.ron); a workbook is already Excel",
            path.display()
        );
        return EXIT_CANNOT_RUN;
    }
    if !out.to_string_lossy().to_lowercase().ends_with(".xlsx") {
        let _ = writeln!(
            io.err,
            "error: {}: the output must be an Excel workbook ending in .xlsx",
            out.display()
        );
        return EXIT_CANNOT_RUN;
    }
    let project = match crate::project::load(path) {
        Ok(p) => p,
        Err(e) => return cannot_run(io, &e),
    };
    let crate::project::Project {
        name,
        sources,
        mut diagnostics,
        ..
    } = project;
    let Some((file, _)) = sources.iter().next() else {
        let _ = writeln!(io.err, "error: {}: nothing to export", path.display());
        return EXIT_CANNOT_RUN;
    };
    let asset: Option<ScriptAsset> = if diagnostics.has_errors() {
        None
    } else {
        crate::front::ron::parse(&sources, file, &mut diagnostics)
    };
    let Some(asset) = asset else {
        let c = Compilation {
            name,
            sources,
            module: Default::default(),
            diagnostics,
            output: None,
        };
        report(&c, Format::Human, io);
        return EXIT_ERRORS;
    };
    if let Err(e) = crate::script::xlsx_write::write(&asset, out) {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
        return EXIT_CANNOT_RUN;
    }
    let _ = writeln!(
        io.err,
        "exported {} rules and {} roles into {}",
        asset.rules.len(),
        asset.roles.len(),
        out.display()
    );
    EXIT_OK
}
