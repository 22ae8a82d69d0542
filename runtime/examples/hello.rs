//! Hello scene: load a compiled program, start one of its scenes, tick it once a frame and print
//! what the agents do. Run it with `cargo run -p ensemble-runtime --example hello`.
//!
//! It teaches the loop every other example builds on: a `Session` is the one object a game
//! drives. It sets the world up from the program (each agent at its start location, with its
//! starting variables) and each `tick` runs the machines, the smart locations and the planning
//! world events in their order. `Greybox` stands in for the game's world until yours exists
//! (see `own_world.rs`).

use ensemble_runtime::session::Session;
use ensemble_runtime::{Program, stdlib, world::Greybox};
use std::error::Error;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn Error>> {
    for line in hello(20.0)? {
        println!("{line}");
    }
    Ok(())
}

/// The trace of the airport's ticket counter over its first `seconds`, one line an event.
pub fn hello(seconds: f64) -> Result<Vec<String>, Box<dyn Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/programs/airport.ensb"
    );
    let program = Arc::new(Program::load(path.as_ref())?);
    let world = Greybox::default();
    let mut session = Session::start(program, stdlib::library(), "ticket-counter", world, 7)?;
    // The trace is on from tick 0 (bounded; `set_tracing(false)` for none).
    let mut lines = Vec::new();
    while session.now() < seconds {
        session.tick(); // once a frame, at the scene's tick rate
        for event in session.take_events() {
            lines.push(event.to_text()); // a game would draw it, log it or show it in a debugger
        }
    }
    Ok(lines)
}
