//! `ensemble export FILE.script.ron -o OUT.xlsx`: the counterpart of `import`, so a script kept
//! as text can go back to designers who work in Excel. The cells are carried as written; checking
//! them is `ensemble check`'s job (on the script or on the exported workbook, with the same
//! findings).

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use ensemble_compiler::script::source::ScriptAsset;
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
    if let Err(code) = crate::io::refuse_overwriting_inputs(&[path], &[out], io) {
        return code;
    }
    let (mut project, file) = match crate::io::load_single(path, io) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let asset: Option<ScriptAsset> = if project.diagnostics.has_errors() {
        None
    } else {
        ensemble_compiler::front::ron::parse(&project.sources, file, &mut project.diagnostics)
    };
    let Some(asset) = asset else {
        crate::io::report_read(project, io);
        return EXIT_ERRORS;
    };
    if let Err(e) = ensemble_compiler::script::xlsx_write::write(&asset, out) {
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
