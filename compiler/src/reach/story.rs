//! A found play as a reader follows it: the inputs it makes, then what happened tick by tick
//! (states entered at the top of each agent, lines said, actions, plans, messages handled,
//! player lines and replies), ending at the target.

use super::Play;
use crate::content_test::asset::{DrawKind, SetupAsset, TestEvent};
use ensemble_runtime::trace::{EventKind, TraceEvent};

/// The most trace lines a story shows; the middle of a longer one is elided.
pub const MAX_LINES: usize = 60;

/// Whether a trace event is worth a line of the story.
fn tells(e: &TraceEvent) -> bool {
    match &e.kind {
        EventKind::Enter { depth, .. } => *depth <= 1,
        EventKind::Message { handled, .. } => *handled,
        EventKind::Exit { .. } | EventKind::Path { .. } | EventKind::Door { .. } => false,
        _ => true,
    }
}

/// The story of `play`, whose `trace` ends with the target event.
pub fn story_of(scene: &str, play: &Play, trace: &[TraceEvent]) -> String {
    let mut s = format!("scene `{scene}`, seed {}\n", play.seed);
    for setup in &play.setup {
        match setup {
            SetupAsset::Action { action, .. } => {
                s.push_str(&format!("  setup: every `{action}` fails\n"))
            }
            SetupAsset::Variable { agent, name, value } => s.push_str(&format!(
                "  setup: {agent} starts with {name} = {value:?}\n"
            )),
            SetupAsset::World { name, at: None } => s.push_str(&format!(
                "  setup: the world event `{name}` never happens\n"
            )),
            SetupAsset::World { name, at: Some(at) } => s.push_str(&format!(
                "  setup: the world event `{name}` may happen from {at} s\n"
            )),
            SetupAsset::Draw { kind, n, value } => s.push_str(&match kind {
                DrawKind::Line => format!(
                    "  setup: line draw #{n} picks the line at index {value}, not the seed's\n"
                ),
                DrawKind::Chance => format!(
                    "  setup: chance #{n} {}, not as the seed drew\n",
                    if *value == 1 {
                        "comes true"
                    } else {
                        "does not come true"
                    }
                ),
            }),
            _ => {}
        }
    }
    for e in &play.events {
        let what = match e {
            TestEvent::Send { to, message, .. } => format!("the game sends `{message}` to {to}"),
            TestEvent::Interact { location, .. } => {
                format!("the player reacts to the icon of `{location}`")
            }
            TestEvent::Input { fact, .. } => format!("the player inputs `{fact}`"),
            TestEvent::Push { proxy, fact, .. } => format!("proxy {proxy} reports `{fact}`"),
            TestEvent::Leave { .. } => "the player walks away".to_string(),
        };
        s.push_str(&format!("  at tick {}: {what}\n", e.tick()));
    }
    for (i, line) in play.chat.iter().enumerate() {
        s.push_str(&format!("  player line {}: {line:?}\n", i + 1));
    }
    let Some((last, before)) = trace.split_last() else {
        return s;
    };
    let lines: Vec<String> = before
        .iter()
        .filter(|e| tells(e))
        .map(TraceEvent::to_text)
        .collect();
    let keep_head = 15;
    if lines.len() > MAX_LINES {
        for l in &lines[..keep_head] {
            s.push_str(&format!("  {l}\n"));
        }
        let tail = MAX_LINES - keep_head;
        s.push_str(&format!(
            "  ... {} more events ...\n",
            lines.len() - keep_head - tail
        ));
        for l in &lines[lines.len() - tail..] {
            s.push_str(&format!("  {l}\n"));
        }
    } else {
        for l in &lines {
            s.push_str(&format!("  {l}\n"));
        }
    }
    s.push_str(&format!("  {}   <- the target\n", last.to_text()));
    s
}
