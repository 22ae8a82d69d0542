//! Hot reload: the designers rebuild the project while the game runs, and the running scene
//! takes the new program without restarting — every agent keeps the states it is in. Run it
//! with `cargo run -p ensemble-runtime --example hot_reload`.
//!
//! It teaches `Session::reload`: live state carried across by name, a report of what carried
//! over and what fell back (also a `reload` trace event), and the refusal of a program that is
//! not a rebuild of the running project (the old program goes on). A game watches the built
//! file (`ensemble_runtime::watch::FileWatcher`, feature `watch`) and reloads when it changes.

use ensemble_runtime::session::Session;
use ensemble_runtime::{Program, stdlib, world::Greybox};
use std::error::Error;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn Error>> {
    for line in hot_reload()? {
        println!("{line}");
    }
    Ok(())
}

fn load(name: &str) -> Result<Arc<Program>, Box<dyn Error>> {
    let path = format!(
        "{}/examples/programs/{name}.ensb",
        env!("CARGO_MANIFEST_DIR")
    );
    Ok(Arc::new(Program::load(path.as_ref())?))
}

/// What a reload of the ticket counter carries and what a wrong program gets.
pub fn hot_reload() -> Result<Vec<String>, Box<dyn Error>> {
    let mut session = Session::start(
        load("airport")?,
        stdlib::library(),
        "ticket-counter",
        Greybox::default(),
        7,
    )?;
    let mut lines = Vec::new();
    while session.now() < 5.0 {
        session.tick();
    }
    // The watcher saw `airport.ensb` change: load it again and hand it over.
    let report = session.reload(load("airport")?)?;
    lines.push(format!(
        "reloaded at {:.1} s: {} active states carried over",
        session.now(),
        report.kept
    ));
    lines.extend(report.fallbacks.iter().map(|f| format!("  fell back: {f}")));
    // A build of another project is refused; the airport goes on.
    if let Err(refused) = session.reload(load("bench")?) {
        lines.push(format!("refused: {refused}"));
    }
    while session.now() < 10.0 {
        session.tick();
    }
    for agent in session.scene().agents() {
        let states = session.scene().active_states(agent);
        let program = session.program();
        let names: Vec<&str> = states
            .iter()
            .map(|&s| program.name(program.state(s).name))
            .collect();
        lines.push(format!(
            "{:>8}: {}",
            session.scene().agent_name(agent),
            names.join(" > ")
        ));
    }
    Ok(lines)
}
