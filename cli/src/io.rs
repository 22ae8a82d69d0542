//! What every command reads and writes through: the output streams ([`Io`]), the exit codes,
//! diagnostics reported as `check` does, the refusal to write an output over an input, and the
//! parsers of the flags several commands share, and the program a command runs (built, or
//! compiled from a project). Every command module imports it; it imports
//! none of them.

use clap::ValueEnum;
use ensemble_compiler::Compilation;
use ensemble_compiler::project::ProjectError;
use ensemble_runtime::Program;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const EXIT_OK: i32 = 0;
pub const EXIT_ERRORS: i32 = 1;
pub const EXIT_CANNOT_RUN: i32 = 2;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
}

/// Where the command writes. `color` adds ANSI colours to human diagnostics.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub color: bool,
}

pub(crate) fn cannot_run(io: &mut Io<'_>, e: &ProjectError) -> i32 {
    let _ = writeln!(io.err, "error: {e}");
    EXIT_CANNOT_RUN
}

/// Refuses (exit 2, with a message) to write any of `outputs` over one of `inputs`: a command
/// told `-o` its own input would replace the only copy of the source with its product. Paths
/// that name one file through different spellings, symbolic links or hard links count as the
/// same. An output that does not exist yet cannot be an input.
pub(crate) fn refuse_overwriting_inputs(
    inputs: &[&Path],
    outputs: &[&Path],
    io: &mut Io<'_>,
) -> Result<(), i32> {
    for out in outputs {
        let Ok(out_meta) = std::fs::metadata(out) else {
            continue;
        };
        for input in inputs {
            if same_file(input, out, &out_meta) {
                let _ = writeln!(
                    io.err,
                    "error: {} is also an input ({}); refusing to overwrite it — choose another output path",
                    out.display(),
                    input.display()
                );
                return Err(EXIT_CANNOT_RUN);
            }
        }
    }
    Ok(())
}

/// Whether `input` is the file `out` (whose metadata is `out_meta`).
fn same_file(input: &Path, out: &Path, out_meta: &std::fs::Metadata) -> bool {
    let Ok(in_meta) = std::fs::metadata(input) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = out;
        in_meta.dev() == out_meta.dev() && in_meta.ino() == out_meta.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (in_meta, out_meta);
        matches!(
            (std::fs::canonicalize(input), std::fs::canonicalize(out)),
            (Ok(a), Ok(b)) if a == b
        )
    }
}

/// Loads the single source file at `path` (`import`, `export`); the exit code when it cannot be.
pub(crate) fn load_single(
    path: &Path,
    io: &mut Io<'_>,
) -> Result<
    (
        ensemble_compiler::project::Project,
        ensemble_compiler::source::FileId,
    ),
    i32,
> {
    let project = ensemble_compiler::project::load(path).map_err(|e| cannot_run(io, &e))?;
    let first = project.sources.iter().next().map(|(file, _)| file);
    match first {
        Some(file) => Ok((project, file)),
        None => {
            let _ = writeln!(io.err, "error: {}: no source file here", path.display());
            Err(EXIT_CANNOT_RUN)
        }
    }
}

/// Reports what a reader found in a file that was not compiled (`import`, `export`), as
/// `check` would.
pub(crate) fn report_read(project: ensemble_compiler::project::Project, io: &mut Io<'_>) {
    let c = Compilation {
        name: project.name,
        sources: project.sources,
        module: Default::default(),
        diagnostics: project.diagnostics,
        output: None,
    };
    report(&c, Format::Human, io);
}

/// Reports a compilation's diagnostics in the requested format.
pub(crate) fn report(c: &Compilation, format: Format, io: &mut Io<'_>) {
    match format {
        Format::Json => {
            let _ = writeln!(io.out, "{}", c.diagnostics.to_json(&c.sources));
        }
        Format::Human => {
            let _ = write!(io.err, "{}", c.diagnostics.render(&c.sources, io.color));
            let _ = writeln!(io.err, "{}: {}", c.name, c.diagnostics.summary());
        }
    }
}

/// `build/` inside the project (or beside a single source file).
pub(crate) fn default_out_dir(path: &Path) -> PathBuf {
    let base = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    base.join("build")
}

/// [`refuse_overwriting_inputs`] with a compilation's source files as the inputs.
pub(crate) fn refuse_overwriting_sources(
    c: &Compilation,
    outputs: &[&Path],
    io: &mut Io<'_>,
) -> Result<(), i32> {
    let inputs: Vec<&Path> = c.sources.iter().map(|(_, f)| f.path.as_path()).collect();
    refuse_overwriting_inputs(&inputs, outputs, io)
}

/// The slowest `--speed`: a tick of the slowest scene (1 s) waits 100 s.
pub const MIN_SPEED: f64 = 0.01;
/// The fastest `--speed`.
pub const MAX_SPEED: f64 = 1000.0;

/// A `--speed`: scene seconds per wall-clock second, from [`MIN_SPEED`] to [`MAX_SPEED`].
pub(crate) fn speed(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (MIN_SPEED..=MAX_SPEED).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a speed from {MIN_SPEED} to {MAX_SPEED} (scene seconds per second)"
        )),
    }
}

/// The longest wait a flag can ask for (`--timeout`, `--deadline`): a day.
pub const MAX_SECONDS: f64 = 86_400.0;

/// A number of seconds above 0 and up to [`MAX_SECONDS`] (`--timeout`, `--deadline`).
pub(crate) fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= MAX_SECONDS => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds above 0 and up to {MAX_SECONDS}"
        )),
    }
}

/// A probability argument: a number from 0 to 1 (`--fail-rate 2` or `nan` is a mistake, not a
/// rate to clamp).
pub(crate) fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("`{text}` is not a probability from 0 to 1")),
    }
}

/// Whether `path` names a built program.
pub(crate) fn is_program(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ensb")
}

/// Why a (re)load produced no program.
pub(crate) enum LoadFailure {
    /// Could not run at all (exit 2).
    CannotRun(String),
    /// The input has errors (exit 1); diagnostics were printed.
    Errors(String),
}

/// Loads a built program, or compiles a project or source file in memory, printing diagnostics.
pub(crate) fn load(path: &Path, io: &mut Io<'_>) -> Result<Program, LoadFailure> {
    load_named(path, io).map(|(program, _)| program)
}

/// [`load`], with the program's name: the project's, or a built program's file name (`ensemble
/// build` names it after the project). Snapshots record it.
fn load_named(path: &Path, io: &mut Io<'_>) -> Result<(Program, String), LoadFailure> {
    load_with_inputs(path, io).map(|(program, name, _)| (program, name))
}

/// [`load_named`], with the files it read: the `.ensb`, or the project's source files.
pub(crate) fn load_with_inputs(
    path: &Path,
    io: &mut Io<'_>,
) -> Result<(Program, String, Vec<PathBuf>), LoadFailure> {
    if is_program(path) {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let program = Program::load(path)
            .map_err(|e| LoadFailure::Errors(format!("cannot load {}: {e}", path.display())))?;
        // Symbols from another build (one killed between its two renames) would point at the
        // wrong lines: said, and not used.
        if let Some(Err(e)) = ensemble_runtime::program::debug::DebugInfo::beside(path, &program) {
            let _ = writeln!(
                io.err,
                "warning: {}: {e}; ignored",
                path.with_extension("ensdbg").display()
            );
        }
        return Ok((program, name, vec![path.to_path_buf()]));
    }
    let c =
        ensemble_compiler::compile_path(path).map_err(|e| LoadFailure::CannotRun(e.to_string()))?;
    if !c.diagnostics.is_empty() {
        report(&c, Format::Human, io);
    }
    let inputs = c.sources.iter().map(|(_, f)| f.path.clone()).collect();
    match c.output {
        Some((program, _)) => Ok((program, c.name, inputs)),
        None => Err(LoadFailure::Errors(ensemble_compiler::run::error_summary(
            &c,
        ))),
    }
}
