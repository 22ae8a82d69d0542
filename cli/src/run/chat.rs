//! `ensemble run --scene CHAT [--input FILE]`: a conversation scene. One iteration per tick; the
//! player speaks (the next line of `--input`, `-` for stdin) whenever the agent has nothing of
//! its own to hear. The run ends when the input is exhausted and the agent has fallen silent,
//! or after `--ticks` iterations.
//!
//! With `--watch` the scene runs in real time (its tick rate times `--speed`) until `--ticks`,
//! the player's lines are read on a thread so that a silent player never stops the clock, and
//! every save recompiles and hot-reloads the program: HMM beliefs carry across by space and
//! state name (`reload`), a program that does not compile is refused (`reload-rejected`) and the
//! agent goes on with the old one.
//!
//! Input lines: `hi there` (says), `/nods` or `/waves hi` (an emote), an empty line (the player
//! stays silent for one iteration), `# ...` (a comment, skipped).
//!
//! Savegames: `--save FILE` saves the conversation after the last iteration, with how many
//! input lines (comments included) the scene has consumed ([`ensemble_compiler::run::INPUT_SECTION`]). `--restore FILE`
//! goes on from it and, given the same `--input`, skips those lines first, so the restored run
//! prints exactly the events the uninterrupted run has after the save.

use super::{Options, reload, write_snapshot, write_trace};
use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use ensemble_runtime::snapshot::SnapshotWriter;
use ensemble_runtime::watch::FileWatcher;
use ensemble_sim::Simulation;
use std::io::BufRead;
use std::path::Path;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

type Lines = Box<dyn Iterator<Item = std::io::Result<String>> + Send>;

/// Player lines, read lazily so that `-` works interactively.
fn input_lines(input: Option<&Path>) -> std::io::Result<Lines> {
    Ok(match input {
        None => Box::new(std::iter::empty()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::iter::from_fn(|| {
            // Locks stdin per line, so the iterator can move to the reading thread.
            let mut line = String::new();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) => None,
                Ok(_) => Some(Ok(line.trim_end_matches(['\n', '\r']).to_string())),
                Err(e) => Some(Err(e)),
            }
        })),
        Some(p) => Box::new(std::io::BufReader::new(std::fs::File::open(p)?).lines()),
    })
}

/// What the player does next.
enum Turn {
    Says(String),
    /// Nothing yet (watching: the player may still type).
    Nothing,
    /// The input is exhausted.
    Done,
}

/// Where player lines come from: straight from the reader, or (watching) from a thread that
/// reads them, so that waiting for the player never blocks reloading.
enum Player {
    Blocking(Lines),
    Polled(Receiver<std::io::Result<String>>),
}

impl Player {
    /// The player's next turn; `consumed` counts every line taken, comments included (what a
    /// snapshot records).
    fn next(&mut self, consumed: &mut u64) -> std::io::Result<Turn> {
        loop {
            let line = match self {
                Player::Blocking(lines) => match lines.next() {
                    Some(l) => l?,
                    None => return Ok(Turn::Done),
                },
                Player::Polled(rx) => match rx.try_recv() {
                    Ok(l) => l?,
                    Err(TryRecvError::Empty) => return Ok(Turn::Nothing),
                    Err(TryRecvError::Disconnected) => return Ok(Turn::Done),
                },
            };
            *consumed += 1;
            if !line.trim_start().starts_with('#') {
                return Ok(Turn::Says(line));
            }
        }
    }
}

fn write_events(scene: &mut Simulation, options: &Options, io: &mut Io<'_>) -> bool {
    // Always flushed: interactive use shows the agent's answer before blocking on the next line.
    write_trace(scene.take_events(), options, true, io)
}

/// Runs the conversation `scene` (a [`Simulation`] of kind `Chat`, just started, or restored
/// from a snapshot that had consumed `skip` input lines), then saves it if asked.
pub fn run(
    mut scene: Simulation,
    path: &Path,
    program_name: &str,
    skip: u64,
    mut watcher: Option<FileWatcher>,
    options: &Options,
    io: &mut Io<'_>,
) -> i32 {
    let input = options.input.as_deref().unwrap_or(Path::new("-"));
    let mut lines = match input_lines(options.input.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot read {}: {e}", input.display());
            return EXIT_CANNOT_RUN;
        }
    };
    // The lines the saved run had consumed: the restored one goes on after them.
    let mut consumed = 0u64;
    while consumed < skip {
        match lines.next() {
            Some(Ok(_)) => consumed += 1,
            Some(Err(e)) => {
                let _ = writeln!(io.err, "error: cannot read {}: {e}", input.display());
                return EXIT_CANNOT_RUN;
            }
            None => {
                let _ = writeln!(
                    io.err,
                    "warning: the snapshot had consumed {skip} input lines but {} has {consumed}; the player has nothing more to say",
                    input.display()
                );
                break;
            }
        }
    }
    let mut player = if watcher.is_some() {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in lines {
                if tx.send(line).is_err() {
                    break; // the scene has ended
                }
            }
        });
        Player::Polled(rx)
    } else {
        Player::Blocking(lines)
    };
    let speed = options.speed;
    let started = Instant::now();
    let mut heard = 0u64;
    for tick in 1..=options.ticks {
        if let Some(w) = watcher.as_mut() {
            // Real time: wait for the iteration's moment, reloading on every change meanwhile.
            let due = super::later(started, tick as f64 * scene.dt() / speed);
            while let Some(change) = w.wait_until(due) {
                reload(&mut scene, path, &change, io);
                if !write_events(&mut scene, options, io) {
                    return EXIT_OK;
                }
            }
        }
        if scene.awaits_player() {
            match player.next(&mut consumed) {
                Ok(Turn::Says(line)) => {
                    heard += 1;
                    scene.say(&line);
                }
                Ok(Turn::Nothing) => {}
                // Watching, the scene goes on after the player has finished.
                Ok(Turn::Done) if watcher.is_some() => {}
                Ok(Turn::Done) => break,
                Err(e) => {
                    let _ = writeln!(io.err, "error: cannot read the input: {e}");
                    return EXIT_CANNOT_RUN;
                }
            }
        }
        scene.tick();
        if !write_events(&mut scene, options, io) {
            return EXIT_OK;
        }
    }
    if let Some(file) = &options.save {
        let mut snapshot = SnapshotWriter::new(scene.program(), program_name);
        if let Err(e) = scene.save(&mut snapshot) {
            let _ = writeln!(io.err, "error: cannot save the scene: {e}");
            return EXIT_ERRORS;
        }
        snapshot.put(ensemble_compiler::run::INPUT_SECTION, &consumed);
        if let Err(code) = write_snapshot(&snapshot, file, scene.tick_count(), options.json, io) {
            return code;
        }
    }
    if !options.json {
        let _ = writeln!(
            io.err,
            "ran {} iterations ({heard} player lines, {:.1} s of scene time)",
            scene.tick_count(),
            scene.now()
        );
    }
    EXIT_OK
}
