//! An example game embedding Ensemble's core with its own world: `cargo run -p
//! ensemble-runtime --example tavern`. See `game.rs` for the world and the game's own state
//! code, `project/` for the authored content and docs/embedding.md for the walk-through.
//!
//! `tavern.ensb` is `project/` compiled (`ensemble build runtime/examples/tavern/project -o
//! runtime/examples/tavern`); a test of the workspace keeps it current.

mod game;

use ensemble_runtime::Program;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tavern/tavern.ensb");
    let program = match Program::load(&path) {
        Ok(p) => Arc::new(p),
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    // Half the evening, a savegame between two frames, and the rest of the evening from it:
    // the lines are those of the evening played in one go.
    let evening = game::run(program.clone(), 30.0).and_then(|first| {
        for line in &first.lines {
            println!("{line}");
        }
        let mut rest = game::Evening::restore(program, &first.save()?)?;
        rest.play(60.0);
        Ok(rest)
    });
    match evening {
        Ok(evening) => {
            for line in &evening.lines {
                println!("{line}");
            }
            let scene = evening.session.scene();
            for agent in scene.agents() {
                println!("{}: {:?}", scene.agent_name(agent), scene.status(agent));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
