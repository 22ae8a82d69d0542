//! `ensemble run`: compile (or load) a program and run one of its scenes headless in the
//! simulated world, printing the trace.

use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, cannot_run, report};
use ensemble_runtime::Program;
use ensemble_runtime::hsm::Scene;
use ensemble_runtime::sim::{self, SimWorld};
use std::path::Path;
use std::sync::Arc;

pub struct Options {
    pub scene: String,
    pub ticks: u64,
    pub seed: u64,
    pub json: bool,
}

/// Loads a built program, or compiles a project or source file in memory.
fn program_for(path: &Path, io: &mut Io<'_>) -> Result<Program, i32> {
    if path.extension().is_some_and(|e| e == "ensb") {
        return Program::load(path).map_err(|e| {
            let _ = writeln!(io.err, "error: cannot load {}: {e}", path.display());
            EXIT_ERRORS
        });
    }
    let c = crate::compile_path(path).map_err(|e| cannot_run(io, &e))?;
    if !c.diagnostics.is_empty() {
        report(&c, Format::Human, io);
    }
    match c.output {
        Some((program, _)) => Ok(program),
        None => Err(EXIT_ERRORS),
    }
}

pub fn run(path: &Path, options: &Options, io: &mut Io<'_>) -> i32 {
    let program = match program_for(path, io) {
        Ok(p) => Arc::new(p),
        Err(code) => return code,
    };
    let Some(scene_id) = program.scene_by_name(&options.scene) else {
        let scenes: Vec<&str> = program.scene_names().collect();
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
    for tick in 0..=options.ticks {
        if tick > 0 {
            scene.tick();
        }
        let events = scene.take_events();
        let names = scene.names();
        for e in &events {
            let line = if options.json {
                names.to_json(e)
            } else {
                names.to_text(e)
            };
            if writeln!(io.out, "{line}").is_err() {
                return EXIT_OK; // reader went away (e.g. `| head`)
            }
        }
    }
    if !options.json {
        let _ = writeln!(
            io.err,
            "ran {} ticks ({:.1} s of scene time)",
            options.ticks,
            scene.now()
        );
        for a in scene.agents() {
            let states: Vec<String> = scene
                .active_states(a)
                .iter()
                .map(|s| program.name(program.state(*s).name).to_string())
                .collect();
            let _ = writeln!(
                io.err,
                "  {:<10} {:?} in {}",
                scene.agent_name(a),
                scene.status(a),
                states.join(" > ")
            );
        }
    }
    EXIT_OK
}
