//! `ensemble run`: compile (or load) a program and run one of its scenes headless in the
//! simulated world, printing the trace. With `--watch`, the scene runs in real time and hot
//! reloads whenever the sources (or the `.ensb`) change.

use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, report};
use crate::diag::Severity;
use ensemble_runtime::Program;
use ensemble_runtime::hsm::{AgentStatus, Scene};
use ensemble_runtime::sim::{self, Interactions, SimWorld};
use ensemble_runtime::watch::{Change, FileWatcher};
use std::path::Path;
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
}

fn is_program(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ensb")
}

/// Why a (re)load produced no program.
pub(super) enum LoadFailure {
    /// Could not run at all (exit 2).
    CannotRun(String),
    /// The input has errors (exit 1); diagnostics were printed.
    Errors(String),
}

/// Loads a built program, or compiles a project or source file in memory, printing diagnostics.
pub(super) fn load(path: &Path, io: &mut Io<'_>) -> Result<Program, LoadFailure> {
    if is_program(path) {
        return Program::load(path)
            .map_err(|e| LoadFailure::Errors(format!("cannot load {}: {e}", path.display())));
    }
    let c = crate::compile_path(path).map_err(|e| LoadFailure::CannotRun(e.to_string()))?;
    if !c.diagnostics.is_empty() {
        report(&c, Format::Human, io);
    }
    match c.output {
        Some((program, _)) => Ok(program),
        None => {
            // A file that does not parse is the root cause of the errors it leaves behind
            // (everything that referred to what it defined), so it comes first.
            let errors: Vec<_> = c
                .diagnostics
                .sorted(&c.sources)
                .into_iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            let first = errors
                .iter()
                .find(|d| d.code == crate::diag::Code::Syntax)
                .or(errors.first())
                .copied();
            let summary = match first.and_then(|d| d.primary.as_ref().map(|l| (d, l))) {
                Some((d, l)) => {
                    let (line, col) = c.sources.line_col(l.span);
                    format!(
                        "{}:{line}:{col}: {} [{}] ({})",
                        c.sources.get(l.span.file).name,
                        d.message,
                        d.code.as_str(),
                        c.diagnostics.summary()
                    )
                }
                None => c.diagnostics.summary(),
            };
            Err(LoadFailure::Errors(summary))
        }
    }
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
fn flush_events(scene: &mut Scene<SimWorld>, options: &Options, io: &mut Io<'_>) -> bool {
    write_trace(scene.take_events(), options, options.watch, io)
}

pub fn run(path: &Path, options: &Options, io: &mut Io<'_>) -> i32 {
    // Watch before the first load, so a save made while it compiles is not missed.
    let mut watcher = if options.watch {
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
    let program = match load(path, io) {
        Ok(p) => Arc::new(p),
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
    if program
        .hpmm
        .chats
        .iter()
        .any(|c| program.name(c.name) == options.scene)
    {
        return super::run_chat::run(program, path, watcher, options, io);
    }
    if options.input.is_some() {
        let _ = writeln!(
            io.err,
            "error: --input feeds conversation scenes; `{}` is not one",
            options.scene
        );
        return EXIT_CANNOT_RUN;
    }
    let Some(scene_id) = program.scene_by_name(&options.scene) else {
        let scenes: Vec<&str> = program
            .scene_names()
            .chain(program.hpmm.chats.iter().map(|c| program.name(c.name)))
            .collect();
        let list = if scenes.is_empty() {
            "none".to_string()
        } else {
            scenes.join(", ")
        };
        let _ = writeln!(
            io.err,
            "error: no scene `{}` in {} (scenes: {list})",
            options.scene,
            path.display()
        );
        return EXIT_CANNOT_RUN;
    };
    let world = SimWorld::for_scene(&program, scene_id);
    let mut scene = match Scene::new(
        program.clone(),
        sim::library(),
        &options.scene,
        world,
        options.seed,
    ) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot start scene `{}`: {e}", options.scene);
            return EXIT_ERRORS;
        }
    };
    // Smart locations and the ambient NPCs they run scripts with.
    let mut interactions =
        Interactions::new(&program, scene_id, options.seed).with_failure_rate(options.fail_rate);
    let started = Instant::now();
    let speed = if options.speed > 0.0 {
        options.speed
    } else {
        1.0
    };
    for tick in 0..=options.ticks {
        if tick > 0 {
            if let Some(w) = watcher.as_mut() {
                // Real time: wait for the tick's moment, reloading on every change meanwhile.
                let due = started + Duration::from_secs_f64(tick as f64 * scene.dt() / speed);
                while let Some(change) = w.wait_until(due) {
                    match load(path, io) {
                        Ok(p) => {
                            // Agents keep their states, smart locations their script instances
                            // (docs/formats/script.md, "Hot reload"); a refused program is reported.
                            let _ = interactions.reload(
                                &mut scene,
                                Arc::new(p),
                                &reload_reason(&change),
                            );
                        }
                        Err(LoadFailure::CannotRun(m) | LoadFailure::Errors(m)) => {
                            scene.reject_reload(m)
                        }
                    }
                    if !flush_events(&mut scene, options, io) {
                        return EXIT_OK;
                    }
                }
            }
            scene.tick();
            // The world's own events (doors of the navigation graph), then smart locations.
            let (program, now) = (scene.program().clone(), scene.now());
            let mut doors = Vec::new();
            scene.game.advance(&program, now, &mut doors);
            for (agent, kind) in doors {
                scene.record_external(agent, kind);
            }
            interactions.advance(&mut scene);
            // World events for planning agents (docs/formats/scene.md).
            sim::planning::fire_world_events(&mut scene);
        }
        if !flush_events(&mut scene, options, io) {
            return EXIT_OK; // reader went away (e.g. `| head`)
        }
    }
    if !options.json {
        let _ = writeln!(
            io.err,
            "ran {} ticks ({:.1} s of scene time)",
            options.ticks,
            scene.now()
        );
        let program = scene.program().clone();
        for a in scene.agents() {
            let states: Vec<&str> = scene
                .active_states(a)
                .iter()
                .map(|s| program.name(program.state(*s).name))
                .collect();
            let what = if states.is_empty() && *scene.status(a) == AgentStatus::Running {
                "(no machine: driven by smart locations)".to_string()
            } else {
                format!("{:?} in {}", scene.status(a), states.join(" > "))
            };
            let _ = writeln!(io.err, "  {:<10} {what}", scene.agent_name(a));
        }
    }
    EXIT_OK
}
