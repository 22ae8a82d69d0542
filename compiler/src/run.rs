//! Running a scene headless, as `ensemble run`, the editor's headless demo and the tests do: a
//! scene of a compiled program ticked on the simulated world ([`scene`]), its trace handed over
//! event by event, what every agent is doing at the end ([`summary`]), and why a project gave no
//! program, in one line ([`error_summary`]).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use ensemble_compiler::run;
//! let c = ensemble_compiler::compile_path("samples/airport".as_ref())?;
//! let Some((program, _)) = c.output else {
//!     return Err(run::error_summary(&c).into());
//! };
//! let scene = run::Scene::new("Departures", 100);
//! let sim = run::scene(program.into(), &scene, |event| {
//!     println!("{}", event.to_text());
//!     true
//! })?;
//! eprintln!("{}", run::summary(&sim, scene.ticks).join("\n"));
//! # Ok(())
//! # }
//! ```

use crate::Compilation;
use crate::diag::{Code, Severity};
use ensemble_runtime::Program;
use ensemble_runtime::hsm::AgentStatus;
use ensemble_runtime::snapshot::SnapshotReader;
use ensemble_runtime::trace::TraceEvent;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{Options, StartError};
use std::sync::Arc;

/// A scene to run: which, for how many ticks, with which seed, and how the simulated world
/// plays it (failure rate, locale, stand-ins).
#[derive(Clone, Debug)]
pub struct Scene {
    pub name: String,
    pub ticks: u64,
    pub seed: u64,
    pub world: Options,
}

impl Scene {
    /// Scene `name` for `ticks` ticks, seed 0, the simulated world's defaults.
    pub fn new(name: impl Into<String>, ticks: u64) -> Scene {
        Scene {
            name: name.into(),
            ticks,
            seed: 0,
            world: Options::default(),
        }
    }
}

/// Starts `scene` on `program` and ticks it `scene.ticks` times, handing every trace event to
/// `each` in order (tick 0's first); stops early when `each` returns `false` (its reader went
/// away). Returns the simulation where it stopped, for [`summary`] or more ticks. A conversation
/// scene runs here without player lines (`ensemble run --input` feeds them).
pub fn scene(
    program: Arc<Program>,
    scene: &Scene,
    mut each: impl FnMut(TraceEvent) -> bool,
) -> Result<Simulation, StartError> {
    let mut sim = Simulation::start(program, &scene.name, scene.seed, &scene.world)?;
    for tick in 0..=scene.ticks {
        if tick > 0 {
            sim.tick();
        }
        for event in sim.take_events() {
            if !each(event) {
                return Ok(sim);
            }
        }
    }
    Ok(sim)
}

/// What a run of `ticks` ticks of machine agents came to, as `ensemble run` says it on stderr:
/// `ran N ticks (S s of scene time)`, then a line per agent with its status and active states.
/// Empty for a conversation scene.
pub fn summary(sim: &Simulation, ticks: u64) -> Vec<String> {
    let Some(scene) = sim.scene() else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "ran {ticks} ticks ({:.1} s of scene time)",
        scene.now()
    )];
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
        lines.push(format!("  {:<10} {what}", scene.agent_name(a)));
    }
    lines
}

/// Why a project did not compile, in one line (a `reload-rejected` event's reason): the first
/// error as `file:line:column: message [code]`, and the count of all of them.
pub fn error_summary(c: &Compilation) -> String {
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
        .find(|d| d.code == Code::Syntax)
        .or(errors.first())
        .copied();
    match first.and_then(|d| d.primary.as_ref().map(|l| (d, l))) {
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
    }
}

/// The section a host feeding a conversation player lines from a file (`ensemble run --input`)
/// adds to the conversation's snapshot: how many of those lines the scene had consumed (a
/// `u64`).
pub const INPUT_SECTION: &str = "cli.chat-input";

/// The input lines a restored conversation skips: the count its snapshot recorded in
/// [`INPUT_SECTION`] (none for a snapshot without it, e.g. one a game wrote).
pub fn consumed_lines(snapshot: &SnapshotReader) -> Result<u64, String> {
    if !snapshot.has(INPUT_SECTION) {
        return Ok(0);
    }
    snapshot.get(INPUT_SECTION).map_err(|e| e.to_string())
}
