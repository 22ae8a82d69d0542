//! A conversation with lines shown in the game's UI: the player types, a social agent (the
//! innkeeper of `samples/innkeeper`, HMM spaces) answers, and the game shows each line in its
//! chat box with the id its recorded voice-over is found under. Build the program, then run it:
//! `ensemble build samples/innkeeper -o target` and
//! `cargo run -p ensemble-runtime --example conversation -- target/innkeeper.ensb`.
//!
//! It teaches the conversation scene's loop: `hear` what the player typed when the agent
//! `awaits_player`, `step` once a tick, and show `last_output` — its words in the scene's
//! locale and its line ids (`Output::line_ids`), the same in every locale.

use ensemble_runtime::Program;
use ensemble_runtime::hpmm::ChatScene;
use ensemble_runtime::hpmm::chat::parse_player_line;
use std::error::Error;
use std::path::Path;
use std::sync::Arc;

/// What the player types, one line a turn (`/nods` is an emote).
const PLAYER: &[&str] = &[
    "hi there",
    "i need a new sword",
    "how much is it",
    "thanks, bye",
];

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("give the built program: innkeeper.ensb")?;
    for line in conversation(Path::new(&path), PLAYER)? {
        println!("{line}");
    }
    Ok(())
}

/// The chat box after the player has said `typed`, a line each (`voice:` the line ids).
pub fn conversation(program: &Path, typed: &[&str]) -> Result<Vec<String>, Box<dyn Error>> {
    let program = Arc::new(Program::load(program)?);
    let mut chat = ChatScene::new(program.clone(), "chat", 7)?;
    let mut typed = typed.iter();
    let mut chat_box = Vec::new();
    // One iteration a tick; the player has a turn whenever the innkeeper has nothing to hear.
    for _tick in 0..600 {
        if chat.awaits_player() {
            let Some(line) = typed.next() else { break };
            chat_box.push(format!("you:       {line}"));
            chat.hear(parse_player_line(line));
        }
        chat.step();
        if let Some(said) = chat.last_output() {
            let voice: Vec<&str> = said.line_ids(&program).collect();
            let words = if said.text.is_empty() {
                format!("*{}*", said.emote)
            } else {
                said.text.clone()
            };
            chat_box.push(format!(
                "innkeeper: {words}   (voice: {})",
                voice.join(", ")
            ));
        }
    }
    Ok(chat_box)
}
