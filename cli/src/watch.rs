//! `ensemble watch`: recompile on every save, print the diagnostics, and write the program only
//! when it compiled cleanly, so the last good build is always on disk.

use crate::io::{EXIT_CANNOT_RUN, Format, Io, cannot_run, default_out_dir, report};
use ensemble_runtime::watch::FileWatcher;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Compiles once; returns false if the path cannot be compiled at all.
fn rebuild(path: &Path, out: &Path, format: Format, io: &mut Io<'_>) -> bool {
    let started = Instant::now();
    let c = match ensemble_compiler::compile_path(path) {
        Ok(c) => c,
        Err(e) => {
            cannot_run(io, &e);
            return false;
        }
    };
    match format {
        Format::Json => {
            let _ = writeln!(io.out, "{}", c.diagnostics.to_json_compact(&c.sources));
        }
        Format::Human => report(&c, format, io),
    }
    let millis = started.elapsed().as_secs_f64() * 1e3;
    let (ensb, ensdbg) = ensemble_compiler::back::program::paths(out, &c.name);
    if crate::io::refuse_overwriting_sources(&c, &[&ensb, &ensdbg], io).is_err() {
        return false;
    }
    match &c.output {
        Some((program, debug)) => {
            match ensemble_compiler::back::program::write(out, &c.name, program, debug) {
                Ok((ensb, _)) => {
                    let _ = writeln!(io.err, "built {} in {millis:.1} ms", ensb.display());
                }
                Err(e) => {
                    let _ = writeln!(io.err, "error: cannot write to {}: {e}", out.display());
                }
            }
        }
        None => {
            let _ = writeln!(
                io.err,
                "not written: fix the errors above (the last good build stays in {})",
                out.display()
            );
        }
    }
    let _ = io.out.flush();
    let _ = io.err.flush();
    true
}

pub fn watch(path: &Path, out: Option<PathBuf>, format: Format, io: &mut Io<'_>) -> i32 {
    let out = out.unwrap_or_else(|| default_out_dir(path));
    // Watch before the first build, so a save made while it runs is not missed.
    let mut watcher = match FileWatcher::new(path) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    if !rebuild(path, &out, format, io) {
        return EXIT_CANNOT_RUN;
    }
    let _ = writeln!(io.err, "watching {} (Ctrl-C to stop)", path.display());
    loop {
        if watcher
            .wait_until(Instant::now() + Duration::from_secs(3600))
            .is_some()
        {
            // A path that vanished for good (the project was deleted) ends the watch.
            if !rebuild(path, &out, format, io) && !path.exists() {
                return EXIT_CANNOT_RUN;
            }
        }
    }
}
