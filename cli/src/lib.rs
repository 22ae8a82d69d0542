//! The `ensemble` command line. [`run`] takes the arguments and the output streams, so tests
//! drive the real command in-process; `src/main.rs` (the `ensemble` binary) is a thin wrapper
//! around it.
//!
//! A crate of its own so that the compiler library carries none of a command line's
//! dependencies (clap, ctrlc, the progress bar, the file watcher) into the tools built on it,
//! the editor first. Work other tools need too (running a scene, checking a plan file, a failed
//! build in one line) is a function of `ensemble_compiler` that this crate calls.
//!
//! Exit codes (DESIGN.md): 0 success (warnings allowed), 1 errors found in the input, 2 could not
//! run (bad arguments, unreadable path).

mod against;
mod export;
mod import;
mod inspect;
mod io;
mod nav;
mod ngram;
mod plan;
mod reach;
mod run;
mod strings;
mod test;
mod watch;

use clap::{Parser, Subcommand, ValueEnum};
use ensemble_compiler::Compilation;
pub use io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io, MAX_SECONDS, MAX_SPEED, MIN_SPEED};
use io::{
    Format, cannot_run, default_out_dir, probability, refuse_overwriting_sources, report, speed,
};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "ensemble", version, about = "Compile, check and run Ensemble NPC behaviour.", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How `check` reports: besides human and JSON, for CI tools (SARIF 2.1.0 for code scanning,
/// GitHub workflow annotations).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CheckFormat {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TraceFormat {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check a project (directory with Ensemble.ron) or a single source file; report every problem.
    Check {
        path: PathBuf,
        #[arg(long, value_enum, default_value = "human")]
        format: CheckFormat,
        /// A shipped program (NAME.ensb): also list what a savegame made on it would lose under
        /// this build (states, agents, variables, roles, plan steps); exit 1 on any loss.
        #[arg(long, value_name = "SHIPPED.ensb")]
        against: Option<PathBuf>,
    },
    /// Check, then write NAME.ensb and NAME.ensdbg.
    Build {
        path: PathBuf,
        /// Output directory (default: `build/` inside the project).
        #[arg(short = 'o', long = "out")]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Also write the sentence candidates as a CSV string table (localisation, voice recording).
        #[arg(long, value_name = "FILE.csv")]
        strings: Option<PathBuf>,
    },
    /// Run a scene headless and print its trace.
    Run {
        /// A project directory, a source file, or a built `.ensb` program.
        path: PathBuf,
        #[arg(long)]
        scene: String,
        #[arg(long, default_value_t = 1000)]
        ticks: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, value_enum, default_value = "text")]
        trace: TraceFormat,
        /// Run in real time and hot-reload whenever the sources (or the .ensb) change.
        #[arg(long)]
        watch: bool,
        /// With --watch or --inspect: scene seconds per wall-clock second, from 0.01 to 1000.
        #[arg(long, default_value_t = 1.0, value_parser = speed)]
        speed: f64,
        /// Conversation scenes: player lines, one per line (`-`: standard input).
        #[arg(long)]
        input: Option<PathBuf>,
        /// Make each simulated script action fail with this probability (seeded), to exercise
        /// On Error paths.
        #[arg(long, default_value_t = 0.0, value_parser = probability)]
        fail_rate: f64,
        /// Write a snapshot of the scene (a savegame) to FILE after the last tick.
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Go on from the snapshot in FILE for --ticks more ticks (tick numbers go on from
        /// the snapshot's; --seed is the snapshot's). A conversation skips the --input lines
        /// the snapshot had consumed, so give it the same --input.
        #[arg(long, value_name = "FILE")]
        restore: Option<PathBuf>,
        /// Speak in this locale (one the project translates into, or `qps`, the pseudo-locale).
        #[arg(long)]
        locale: Option<String>,
        /// How to stand in for one of the game's own states: STATE=SECONDS,EVENT (either may
        /// be left out: `Hammer=2s,Done`, `Attack=Missed`). Repeatable. Every game state is
        /// stood in anyway, as its statelib says (docs/formats/statelib.md, "Stand-ins").
        #[arg(long = "stand-in", value_name = "STATE=SECONDS,EVENT", value_parser = ensemble_sim::stand_in::Choice::parse)]
        stand_in: Vec<ensemble_sim::stand_in::Choice>,
        #[command(flatten)]
        serve: inspect::ServeArgs,
    },
    /// Localisation: export every line for translators, import their translations.
    Strings {
        #[command(subcommand)]
        command: strings::StringsCommand,
    },
    /// Attach to a game serving the inspection protocol; print every message as a JSON line.
    Attach(inspect::AttachArgs),
    /// Compile PATH and hot-reload it into a game serving the inspection protocol.
    Push(inspect::PushArgs),
    /// Turn an Excel interaction script into the native format.
    Import {
        path: PathBuf,
        /// The `.script.ron` file to write.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
    },
    /// Turn a native interaction script into an Excel workbook (the inverse of `import`).
    Export {
        path: PathBuf,
        /// The `.xlsx` workbook to write.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
    },
    /// Build, inspect and query n-gram databases; rank a project's sentence states.
    Ngram {
        #[command(subcommand)]
        command: ngram::NgramCommand,
    },
    /// Recompile on every save, print diagnostics, and keep the last good build.
    Watch {
        path: PathBuf,
        /// Output directory (default: `build/` inside the project).
        #[arg(short = 'o', long = "out")]
        out: Option<PathBuf>,
        /// `json`: one compact diagnostics document per line, one line per rebuild.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Navigation (PPA*): `build` precomputes a map, `query` answers scenario queries.
    Nav {
        #[command(subcommand)]
        command: nav::NavCommand,
    },
    /// Plan on a STRIPS domain and problem (PDDL or native), validate the plan, print it.
    Plan(plan::PlanArgs),
    /// Run the project's content tests (`*.test.ron`): every test with every seed.
    Test(test::TestArgs),
    /// Find a play that reaches a state, line, rule or reply; print it and write it as a test.
    Reach(reach::ReachArgs),
}

/// Runs the command line; returns the exit code.
pub fn run<I, T>(args: I, io: &mut Io<'_>) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let to_out = matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            let text = e.render().to_string();
            if to_out && e.kind() != ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = write!(io.out, "{text}");
                return EXIT_OK;
            }
            let _ = write!(io.err, "{text}");
            return EXIT_CANNOT_RUN;
        }
    };
    match cli.command {
        Command::Check {
            path,
            format,
            against: Some(shipped),
        } => check_against(&path, &shipped, format, io),
        Command::Check { path, format, .. } => match format {
            CheckFormat::Human => check(&path, Format::Human, false, io).0,
            CheckFormat::Json => check(&path, Format::Json, false, io).0,
            CheckFormat::Sarif | CheckFormat::Github => check_for_ci(&path, format, io),
        },
        Command::Build {
            path,
            out,
            format,
            strings,
        } => build(&path, out, format, strings, io),
        Command::Ngram { command } => ngram::run(command, io),
        Command::Run {
            path,
            scene,
            ticks,
            seed,
            trace,
            watch,
            speed,
            input,
            fail_rate,
            save,
            restore,
            locale,
            stand_in,
            serve,
        } => run::run(
            &path,
            &run::Options {
                scene,
                ticks,
                seed,
                json: matches!(trace, TraceFormat::Json),
                watch,
                speed,
                input,
                fail_rate,
                save,
                restore,
                locale,
                stand_ins: stand_in,
                serve,
            },
            io,
        ),
        Command::Strings { command } => strings::run(command, io),
        Command::Attach(args) => inspect::attach(args, io),
        Command::Push(args) => inspect::push(args, io),
        Command::Watch { path, out, format } => watch::watch(&path, out, format, io),
        Command::Nav { command } => nav::run(command, io),
        Command::Plan(args) => plan::run(args, io),
        Command::Test(args) => test::run(args, io),
        Command::Reach(args) => reach::run(args, io),
        Command::Import { path, out } => import::import(&path, &out, io),
        Command::Export { path, out } => export::export(&path, &out, io),
    }
}

/// Compiles and reports. `progress` draws a bar for long precomputations (`build` on a
/// terminal).
fn check(
    path: &Path,
    format: Format,
    progress: bool,
    io: &mut Io<'_>,
) -> (i32, Option<Compilation>) {
    let c = match ensemble_compiler::compile_path_with_options(
        path,
        ensemble_compiler::CompileOptions { progress },
    ) {
        Ok(c) => c,
        Err(e) => return (cannot_run(io, &e), None),
    };
    report(&c, format, io);
    let code = if c.diagnostics.has_errors() {
        EXIT_ERRORS
    } else {
        EXIT_OK
    };
    (code, Some(c))
}

/// `check --against SHIPPED.ensb`: the check, then what a savegame made on the shipped program
/// would lose under this build ([`against::losses`]). Exit 1 on errors or on any loss.
fn check_against(path: &Path, shipped: &Path, format: CheckFormat, io: &mut Io<'_>) -> i32 {
    let old = match ensemble_runtime::Program::load(shipped) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(io.err, "error: --against: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let format = match format {
        CheckFormat::Json => Format::Json,
        CheckFormat::Human => Format::Human,
        CheckFormat::Sarif | CheckFormat::Github => {
            let _ = writeln!(
                io.err,
                "error: --against prints its own report: use --format human or json"
            );
            return EXIT_CANNOT_RUN;
        }
    };
    let (code, compilation) = check(path, format, false, io);
    let Some((new, _)) = compilation.and_then(|c| c.output) else {
        // The check printed why there is no program to compare.
        return code.max(EXIT_ERRORS);
    };
    let against::Patch { losses, carried } = against::losses(&old, &new);
    if !old.project.is_empty() && old.project != new.project {
        let _ = writeln!(
            io.err,
            "warning: {} was built from project `{}`, this is `{}`: its savegames do not restore here",
            shipped.display(),
            old.project,
            new.project
        );
    }
    match format {
        Format::Json => {
            let rows: Vec<_> = (losses.iter())
                .map(|l| serde_json::json!({"lost": l.what, "then": l.then}))
                .collect();
            let kept: Vec<_> = (carried.iter())
                .map(|l| serde_json::json!({"change": l.what, "then": l.then}))
                .collect();
            let _ = writeln!(
                io.out,
                "{}",
                serde_json::json!({
                    "against": shipped.display().to_string(),
                    "losses": rows,
                    "carried": kept,
                })
            );
        }
        Format::Human => {
            if losses.is_empty() {
                let _ = writeln!(
                    io.out,
                    "against {}: nothing a savegame holds is lost",
                    shipped.display()
                );
            } else {
                let _ = writeln!(
                    io.out,
                    "against {}: {} change{} a savegame made on it would lose by:",
                    shipped.display(),
                    losses.len(),
                    if losses.len() == 1 { "" } else { "s" }
                );
                for l in &losses {
                    let _ = writeln!(io.out, "  {}: {}", l.what, l.then);
                }
            }
            if !carried.is_empty() {
                let _ = writeln!(io.out, "carried through (no loss):");
                for l in &carried {
                    let _ = writeln!(io.out, "  {}: {}", l.what, l.then);
                }
            }
        }
    }
    if losses.is_empty() {
        code
    } else {
        code.max(EXIT_ERRORS)
    }
}

/// `check --format sarif|github`: the diagnostics on stdout in the CI tool's format, paths
/// joined to `path` as given (a single file's folder for a file).
fn check_for_ci(path: &Path, format: CheckFormat, io: &mut Io<'_>) -> i32 {
    let c = match ensemble_compiler::compile_path(path) {
        Ok(c) => c,
        Err(e) => return cannot_run(io, &e),
    };
    let prefix = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let prefix = prefix.to_string_lossy();
    let text = match format {
        CheckFormat::Sarif => {
            c.diagnostics
                .to_sarif(&c.sources, &prefix, env!("CARGO_PKG_VERSION"))
        }
        _ => c.diagnostics.to_github(&c.sources, &prefix),
    };
    let _ = write!(io.out, "{text}");
    if c.diagnostics.has_errors() {
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

fn build(
    path: &Path,
    out: Option<PathBuf>,
    format: Format,
    strings: Option<PathBuf>,
    io: &mut Io<'_>,
) -> i32 {
    // `color` is set only when stderr is a terminal (and NO_COLOR is unset): the progress bar
    // of a long PPA* precomputation goes there too, never into a log or a pipe.
    let (code, c) = check(path, format, io.color, io);
    let Some(c) = c else { return code };
    let Some((program, debug)) = &c.output else {
        return code;
    };
    if let Some(csv) = strings {
        if let Err(code) = refuse_overwriting_sources(&c, &[&csv], io) {
            return code;
        }
        let table = ensemble_compiler::back::speech::string_table(&c.module);
        if let Err(e) = ensemble_runtime::fs::write_atomic(&csv, table.as_bytes()) {
            let _ = writeln!(io.err, "error: cannot write {}: {e}", csv.display());
            return EXIT_CANNOT_RUN;
        }
        let _ = writeln!(
            io.err,
            "wrote {} ({} lines)",
            csv.display(),
            table.lines().count() - 1
        );
    }
    let dir = out.unwrap_or_else(|| default_out_dir(path));
    let (ensb, ensdbg) = ensemble_compiler::back::program::paths(&dir, &c.name);
    if let Err(code) = refuse_overwriting_sources(&c, &[&ensb, &ensdbg], io) {
        return code;
    }
    match ensemble_compiler::back::program::write(&dir, &c.name, program, debug) {
        Ok((ensb, ensdbg)) => {
            let size = std::fs::metadata(&ensb).map(|m| m.len()).unwrap_or(0);
            let _ = writeln!(
                io.err,
                "wrote {} ({size} bytes) and {}",
                ensb.display(),
                ensdbg.display()
            );
            code
        }
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot write to {}: {e}", dir.display());
            EXIT_CANNOT_RUN
        }
    }
}
