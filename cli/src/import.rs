//! `ensemble import FILE.xlsx -o OUT.script.ron`: turn an Excel interaction script into the
//! native format, so it can be diffed, merged and edited as text.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use std::path::Path;

pub fn import(path: &Path, out: &Path, io: &mut Io<'_>) -> i32 {
    if !path.to_string_lossy().ends_with(".xlsx") {
        let _ = writeln!(
            io.err,
            "error: {}: `import` reads Excel workbooks (.xlsx)",
            path.display()
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
    let script =
        ensemble_compiler::script::xlsx::read(&project.sources, file, &mut project.diagnostics);
    let failed = project.diagnostics.has_errors() || script.is_none();
    if !project.diagnostics.is_empty() || failed {
        crate::io::report_read(project, io);
    }
    let Some(script) = script.filter(|_| !failed) else {
        return EXIT_ERRORS;
    };
    let text = ensemble_compiler::front::ron::to_canonical_string(
        &ensemble_compiler::script::lower::to_asset(&script),
    );
    if let Err(e) = ensemble_runtime::fs::write_atomic(out, text.as_bytes()) {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
        return EXIT_CANNOT_RUN;
    }
    if !out.to_string_lossy().ends_with(".script.ron") {
        let _ = writeln!(
            io.err,
            "warning: {} does not end in .script.ron, so projects will not pick it up",
            out.display()
        );
    }
    let _ = writeln!(
        io.err,
        "imported {} rules and {} roles into {}",
        script.rules.len(),
        script.roles.len(),
        out.display()
    );
    EXIT_OK
}
