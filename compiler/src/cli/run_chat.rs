//! `ensemble run --scene CHAT [--input FILE]`: a conversation scene. One iteration per tick; the
//! player speaks (the next line of `--input`, `-` for stdin) whenever the agent has nothing of
//! its own to hear. The run ends when the input is exhausted and the agent has fallen silent,
//! or after `--ticks` iterations.
//!
//! Input lines: `hi there` (says), `/nods` or `/waves hi` (an emote), an empty line (the player
//! stays silent for one iteration), `# ...` (a comment, skipped).

use super::run_scene::Options;
use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use ensemble_runtime::Program;
use ensemble_runtime::hpmm::ChatScene;
use ensemble_runtime::hpmm::chat::parse_player_line;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

/// Player lines, read lazily so that `-` works interactively.
fn input_lines(
    input: Option<&Path>,
) -> std::io::Result<Box<dyn Iterator<Item = std::io::Result<String>>>> {
    Ok(match input {
        None => Box::new(std::iter::empty()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::io::stdin().lock().lines()),
        Some(p) => Box::new(std::io::BufReader::new(std::fs::File::open(p)?).lines()),
    })
}

pub fn run(program: Arc<Program>, options: &Options, io: &mut Io<'_>) -> i32 {
    if options.watch {
        let _ = writeln!(
            io.err,
            "error: --watch is not supported for conversation scenes yet"
        );
        return EXIT_CANNOT_RUN;
    }
    let mut scene = match ChatScene::new(program, &options.scene, options.seed) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_ERRORS;
        }
    };
    let mut lines = match input_lines(options.input.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            let input = options.input.as_deref().unwrap_or(Path::new("-"));
            let _ = writeln!(io.err, "error: cannot read {}: {e}", input.display());
            return EXIT_CANNOT_RUN;
        }
    };
    let mut heard = 0u64;
    for _ in 0..options.ticks {
        if scene.awaits_player() {
            let line = loop {
                match lines.next() {
                    Some(Ok(l)) if l.trim_start().starts_with('#') => continue,
                    Some(Ok(l)) => break Some(l),
                    Some(Err(e)) => {
                        let _ = writeln!(io.err, "error: cannot read the input: {e}");
                        return EXIT_CANNOT_RUN;
                    }
                    None => break None,
                }
            };
            let Some(line) = line else { break };
            heard += 1;
            scene.hear(parse_player_line(&line));
        }
        scene.step();
        for e in scene.take_events() {
            let line = if options.json {
                e.to_json()
            } else {
                e.to_text()
            };
            if writeln!(io.out, "{line}").is_err() {
                return EXIT_OK; // reader went away
            }
        }
        // Interactive use: show the agent's answer before blocking on the next line.
        let _ = io.out.flush();
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
