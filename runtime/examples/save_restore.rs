//! Save and restore: a savegame between two frames, restored later (or in another run of the
//! game), goes on exactly as if the game had never stopped. Run it with
//! `cargo run -p ensemble-runtime --example save_restore`.
//!
//! It teaches `Session::save_with` (the session saves the scene, the standard library's state,
//! the smart locations and its identity; the world adds its own section) and
//! `Session::restore` (the world comes back from its section, the session from its own; the
//! report lists anything a rebuilt program could not carry). A save the session could not
//! restore — a script action carried across a hot reload, still running — is refused.

use ensemble_runtime::session::Session;
use ensemble_runtime::{Program, stdlib, world::Greybox};
use std::error::Error;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn Error>> {
    for line in save_restore(20.0, 60.0)? {
        println!("{line}");
    }
    Ok(())
}

/// The bench's trace to `end` seconds, saved at `save_at` and restored from the bytes.
pub fn save_restore(save_at: f64, end: f64) -> Result<Vec<String>, Box<dyn Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/programs/bench.ensb");
    let program = Arc::new(Program::load(path.as_ref())?);
    let mut session = Session::start(
        program.clone(),
        stdlib::library(),
        "bench",
        Greybox::default(),
        7,
    )?;
    let mut lines = Vec::new();
    while session.now() < save_at {
        session.tick();
        lines.extend(session.take_events().iter().map(|e| e.to_text()));
    }
    let savegame: Vec<u8> = session.save_with(Greybox::save)?; // write it where saves are kept
    drop(session); // the game quits
    lines.push(format!(
        "-- saved at {save_at} s: {} bytes; the game quits and loads it --",
        savegame.len()
    ));

    let (mut session, report) =
        Session::restore(program, stdlib::library(), &savegame, Greybox::restore)?;
    for lost in &report.fallbacks {
        lines.push(format!("-- not carried: {lost}"));
    }
    while session.now() < end {
        session.tick();
        lines.extend(session.take_events().iter().map(|e| e.to_text()));
    }
    Ok(lines)
}
