//! The Help menu's first steps: what a first-time designer builds with which starter, and
//! where to see it run. (Both Xvfb designers found only the shortcuts there.)

use crate::theme;
use eframe::egui::{RichText, Ui};

/// (what you want, how to get there), in the words of the editor's own menus.
const STEPS: [(&str, &str); 6] = [
    (
        "An NPC that walks between places",
        "+ New asset… › Patrol, then Preview › ▶",
    ),
    (
        "Two NPCs that talk",
        "+ New asset… › Conversation pair (one asks, one answers; each side runs in a host machine's TalkStateMachine), or Seller and buyer, a whole working example",
    ),
    (
        "A character the player talks to",
        "+ New asset… › Character the player talks to; in the Preview pick its chat scene, press ▶ and type as the player. It understands what its evidence matches and says what its actions say",
    ),
    ("An NPC that plans", "+ New asset… › Plan-driven agent"),
    (
        "Why it did that, and how to get there",
        "the Preview's timeline and transcript; right-click a state › How do I get here? finds a play that reaches it, and Save as test keeps it (Tests tab)",
    ),
    (
        "Another language",
        "the Localisation tab: export for translators, import, or edit a line in place",
    ),
];

/// Draws the first steps.
pub fn first_steps(ui: &mut Ui) {
    ui.label(RichText::new("First steps").strong());
    for (want, how) in STEPS {
        ui.label(RichText::new(want).color(theme::TEXT));
        ui.label(RichText::new(how).small().color(theme::TEXT_WEAK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::templates::Template;

    /// The first steps name every starter template by its menu title (so a renamed or added
    /// template is not left out of them).
    #[test]
    fn the_first_steps_name_every_template() {
        let text: String = STEPS.iter().map(|(a, b)| format!("{a} {b} ")).collect();
        for t in Template::ALL {
            assert!(
                text.contains(t.title()),
                "{} is not in the first steps",
                t.title()
            );
        }
    }
}
