//! `ensemble run`: compile (or load) a program and run one of its scenes headless in the
//! simulated world, printing the trace. With `--watch`, the scene runs in real time and hot
//! reloads whenever the sources (or the `.ensb`) change. With `--save`, the scene is saved
//! after the last tick (refused, exit 1, while a script action carried across a hot reload
//! still runs); with `--restore`, it goes on from a saved one (tick numbers go on from the
//! snapshot's; `ensemble_runtime::snapshot`). A conversation scene runs in [`chat`].

mod chat;

use crate::io::{
    EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io, LoadFailure, is_program, load, load_with_inputs,
};
use ensemble_runtime::Program;
use ensemble_runtime::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use ensemble_runtime::watch::{Change, FileWatcher};
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{self, SceneKind, StartError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Options {
    pub scene: String,
    pub ticks: u64,
    pub seed: u64,
    pub json: bool,
    pub watch: bool,
    /// Scene seconds per wall-clock second when watching.
    pub speed: f64,
    /// Player lines for a conversation scene (`-`: stdin).
    pub input: Option<std::path::PathBuf>,
    /// Probability that a simulated script action fails.
    pub fail_rate: f64,
    /// Write a snapshot of the scene here after the last tick.
    pub save: Option<std::path::PathBuf>,
    /// Go on from this snapshot instead of starting the scene.
    pub restore: Option<std::path::PathBuf>,
    /// Speak in this locale (`None`: the source language).
    pub locale: Option<String>,
    /// How to stand in for some of the game's states (`--stand-in`).
    pub stand_ins: Vec<ensemble_sim::stand_in::Choice>,
    /// Serve the inspection protocol while running.
    pub serve: super::inspect::ServeArgs,
}

/// The `reason` of a `reload` event: the files that changed.
pub(super) fn reload_reason(change: &Change) -> String {
    let what = change
        .paths
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(", ");
    format!("changed: {what}")
}

/// `seconds` after `from`, or as late as can be said (a run of billions of ticks): never a
/// panic, whatever the tick count.
pub(super) fn later(from: Instant, seconds: f64) -> Instant {
    const FAR: Duration = Duration::from_secs(100 * 365 * 86_400);
    let wait = Duration::try_from_secs_f64(seconds).map_or(FAR, |d| d.min(FAR));
    from.checked_add(wait).unwrap_or(from)
}

/// Writes trace events as JSON lines or text, flushing when asked (watching, interactive);
/// `false` if the reader went away.
pub(super) fn write_trace(
    events: Vec<ensemble_runtime::trace::TraceEvent>,
    options: &Options,
    flush: bool,
    io: &mut Io<'_>,
) -> bool {
    for e in events {
        let line = if options.json {
            e.to_json()
        } else {
            e.to_text()
        };
        if writeln!(io.out, "{line}").is_err() {
            return false;
        }
    }
    !flush || io.out.flush().is_ok()
}

/// Writes the events recorded since the last call; `false` if the reader went away.
fn flush_events(sim: &mut Simulation, options: &Options, io: &mut Io<'_>) -> bool {
    write_trace(sim.take_events(), options, options.watch, io)
}

pub fn run(path: &Path, options: &Options, io: &mut Io<'_>) -> i32 {
    // Watch before the first load, so a save made while it compiles is not missed.
    let watcher = if options.watch {
        match FileWatcher::new(path) {
            Ok(w) => Some(w),
            Err(e) => {
                let _ = writeln!(io.err, "error: {e}");
                return EXIT_CANNOT_RUN;
            }
        }
    } else {
        None
    };
    let (program, program_name) = match load_with_inputs(path, io) {
        Ok((p, name, inputs)) => {
            // The snapshot is written after the run: refused now rather than after it, so a
            // mistyped --save never costs a source file (or the program) nor the run's time.
            if let Some(file) = &options.save {
                let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
                if let Err(code) =
                    crate::io::refuse_overwriting_inputs(&inputs, &[file.as_path()], io)
                {
                    return code;
                }
            }
            (Arc::new(p), name)
        }
        Err(LoadFailure::CannotRun(message)) => {
            let _ = writeln!(io.err, "error: {message}");
            return EXIT_CANNOT_RUN;
        }
        Err(LoadFailure::Errors(message)) => {
            if is_program(path) {
                let _ = writeln!(io.err, "error: {message}");
            }
            return EXIT_ERRORS;
        }
    };
    let is_chat = program
        .hpmm
        .chats
        .iter()
        .any(|c| program.name(c.name) == options.scene);
    if !is_chat && options.input.is_some() {
        let _ = writeln!(
            io.err,
            "error: --input feeds conversation scenes; `{}` is not one",
            options.scene
        );
        return EXIT_CANNOT_RUN;
    }
    if is_chat && options.serve.inspect.is_some() {
        let _ = writeln!(
            io.err,
            "error: --inspect serves scenes of machine agents; `{}` is a conversation",
            options.scene
        );
        return EXIT_CANNOT_RUN;
    }
    let start = simulation::Options {
        fail_rate: options.fail_rate,
        locale: options.locale.clone(),
        stand_ins: options.stand_ins.clone(),
        ..Default::default()
    };
    if let Some(file) = &options.restore {
        return match restore(program, &program_name, file, &start, options, io) {
            Ok((sim, skip)) if sim.kind() == SceneKind::Chat => {
                chat::run(sim, path, &program_name, skip, watcher, options, io)
            }
            Ok((sim, _)) => {
                say_stand_ins(&sim, 0, io);
                run_ticks(sim, path, &program_name, watcher, options, io)
            }
            Err(message) => {
                let _ = writeln!(
                    io.err,
                    "error: cannot restore {}: {message}",
                    file.display()
                );
                EXIT_ERRORS
            }
        };
    }
    let sim = match Simulation::start(program, &options.scene, options.seed, &start) {
        Ok(s) => s,
        Err(StartError::UnknownScene { available, .. }) => {
            let list = if available.is_empty() {
                "none".to_string()
            } else {
                available.join(", ")
            };
            let _ = writeln!(
                io.err,
                "error: no scene `{}` in {} (scenes: {list})",
                options.scene,
                path.display()
            );
            return EXIT_CANNOT_RUN;
        }
        Err(e @ (StartError::Chat(_) | StartError::Setup(_))) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_ERRORS;
        }
        Err(StartError::Link(e)) => {
            let _ = writeln!(io.err, "error: cannot start scene `{}`: {e}", options.scene);
            return EXIT_ERRORS;
        }
        Err(StartError::Locale(e)) => {
            let _ = writeln!(io.err, "error: --locale: {e}");
            return EXIT_CANNOT_RUN;
        }
        Err(StartError::StandIn(e)) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    if sim.kind() == SceneKind::Chat {
        return chat::run(sim, path, &program_name, 0, watcher, options, io);
    }
    say_stand_ins(&sim, 0, io);
    run_ticks(sim, path, &program_name, watcher, options, io)
}

/// Says on stderr, once each, which of the game's states the simulated world stands in for
/// (those from the `from`-th on: a reload says only the new ones).
fn say_stand_ins(sim: &Simulation, from: usize, io: &mut Io<'_>) {
    for s in sim.stand_ins().iter().skip(from) {
        let _ = writeln!(io.err, "note: {s}");
    }
}

/// Reads a snapshot and restores the simulation it holds onto `program`; a rebuilt program is
/// mapped by name, and what fell back is said on stderr. Also returns the input lines a
/// conversation had consumed (0 for other scenes). `Err`: why not, in one line.
fn restore(
    program: Arc<Program>,
    program_name: &str,
    file: &Path,
    start: &simulation::Options,
    options: &Options,
    io: &mut Io<'_>,
) -> Result<(Simulation, u64), String> {
    let snapshot = SnapshotReader::load(file).map_err(|e| e.to_string())?;
    let same = snapshot
        .check_program(&program, program_name)
        .map_err(|e| e.to_string())?;
    if !same {
        let _ = writeln!(
            io.err,
            "warning: {program_name} changed since the snapshot was taken; restoring by name"
        );
    }
    let (mut sim, report) =
        Simulation::restore(program, &snapshot, start).map_err(|e| e.to_string())?;
    // A snapshot keeps no locale: the one asked for now applies from the first tick on.
    sim.set_locale(options.locale.as_deref())
        .map_err(|e| format!("--locale: {e}"))?;
    if sim.name() != options.scene {
        let e = SnapshotError::WrongScene {
            snapshot: sim.name().to_string(),
            asked: options.scene.clone(),
        };
        return Err(e.to_string());
    }
    for change in &report.roster {
        let _ = writeln!(io.err, "note: the scene's agents changed: {change}");
    }
    for line in &report.fallbacks {
        let _ = writeln!(io.err, "warning: not restored as saved: {line}");
    }
    let skip = ensemble_compiler::run::consumed_lines(&snapshot)?;
    Ok((sim, skip))
}

/// Prints the events recorded so far (the start's at tick 0, or a restore's), then ticks the
/// scene `options.ticks` times printing the trace, then saves it if asked.
fn run_ticks(
    mut sim: Simulation,
    path: &Path,
    program_name: &str,
    mut watcher: Option<FileWatcher>,
    options: &Options,
    io: &mut Io<'_>,
) -> i32 {
    let mut inspector = match super::inspect::serve(&options.serve, io) {
        Ok(i) => i,
        Err(code) => return code,
    };
    let started = Instant::now();
    let mut last_tick = started;
    let speed = options.speed; // within MIN_SPEED..=MAX_SPEED (the parser's)
    let mut reader_left = false;
    'run: for tick in 0..=options.ticks {
        if tick > 0 {
            if watcher.is_none() && inspector.is_some() {
                // Served runs go in real time too, so tools can follow; a pause moves the
                // clock on rather than making up for lost ticks.
                let due = later(last_tick, sim.dt() / speed);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                last_tick = Instant::now();
            } else if let Some(w) = watcher.as_mut() {
                // Real time: wait for the tick's moment, reloading on every change meanwhile.
                let due = later(started, tick as f64 * sim.dt() / speed);
                while let Some(change) = w.wait_until(due) {
                    reload(&mut sim, path, &change, io);
                    if !flush_events(&mut sim, options, io) {
                        reader_left = true;
                        break 'run;
                    }
                }
            }
            sim.tick();
        }
        let printed = match inspector.as_mut() {
            Some(inspector) => {
                let events = sim.take_events();
                let mut print = |events| write_trace(events, options, true, io);
                super::inspect::frame(inspector, &mut sim, program_name, events, &mut print)
            }
            None => flush_events(&mut sim, options, io),
        };
        if !printed {
            reader_left = true; // reader went away (e.g. `| head`)
            break;
        }
    }
    if let Some(file) = &options.save {
        // Only a hot reload while the scene ran (`--watch`, a tool's push) can leave something
        // a snapshot cannot carry, so this is checked here and not before the run. Refused: a
        // snapshot that restores wrongly is worse than none.
        if let Some(what) = sim.unsaved_parts() {
            let _ = writeln!(
                io.err,
                "error: --save {}: scene `{}` cannot be saved after tick {}: {what}; nothing written",
                file.display(),
                sim.name(),
                sim.tick_count()
            );
            return EXIT_ERRORS;
        }
        let mut snapshot = SnapshotWriter::new(sim.program(), program_name);
        if let Err(e) = sim.save(&mut snapshot) {
            let _ = writeln!(io.err, "error: cannot save the scene: {e}");
            return EXIT_ERRORS;
        }
        if let Err(code) = write_snapshot(&snapshot, file, sim.tick_count(), options.json, io) {
            return code;
        }
    }
    if reader_left {
        return EXIT_OK;
    }
    if !options.json {
        for line in ensemble_compiler::run::summary(&sim, options.ticks) {
            let _ = writeln!(io.err, "{line}");
        }
    }
    EXIT_OK
}

/// Loads the changed sources and hot-reloads them into `sim`: agents keep their states, smart
/// locations their script instances, social agents their beliefs (docs/formats/script.md,
/// "Hot reload"); a program that does not load or link is recorded as `reload-rejected`.
/// Writes a finished snapshot to `file` (atomically, through `SnapshotWriter::save`) and says so
/// on stderr unless the output is JSON; `Err` carries the exit code when it cannot be written.
/// `run` and a chat's run share it.
pub(super) fn write_snapshot(
    snapshot: &SnapshotWriter,
    file: &Path,
    tick: u64,
    json: bool,
    io: &mut Io<'_>,
) -> Result<(), i32> {
    match snapshot.save(file) {
        Ok(size) => {
            if !json {
                let _ = writeln!(
                    io.err,
                    "saved {} ({size} bytes) after tick {tick}",
                    file.display()
                );
            }
            Ok(())
        }
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot write {}: {e}", file.display());
            Err(EXIT_CANNOT_RUN)
        }
    }
}

pub(super) fn reload(sim: &mut Simulation, path: &Path, change: &Change, io: &mut Io<'_>) {
    match load(path, io) {
        Ok(p) => {
            // A refused program is recorded by the simulation.
            let said = sim.stand_ins().len();
            let _ = sim.reload(Arc::new(p), &reload_reason(change));
            say_stand_ins(sim, said, io);
        }
        Err(LoadFailure::CannotRun(m) | LoadFailure::Errors(m)) => sim.reject_reload(m),
    }
}
