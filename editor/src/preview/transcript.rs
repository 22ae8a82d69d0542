//! The transcript: every line said up to the tick shown — who, the text, the sentence state it
//! realises. Clicking a line shows the scene as it was when it was said.

use super::model::Preview;
use crate::live::agent_color;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_sim::simulation::{Line, LineKind};

const ROW: f32 = 20.0;

pub fn show(p: &mut Preview, ui: &mut Ui) {
    let Some(snapshot) = p.shown() else { return };
    let tick = snapshot.tick;
    // Speakers' colours follow their agents'.
    let colors: Vec<(String, egui::Color32)> = snapshot
        .agents
        .iter()
        .map(|a| (a.name.to_string(), agent_color(a.id.index())))
        .collect();
    let lines: Vec<Line> = p.history.transcript_until(tick).cloned().collect();
    if lines.is_empty() {
        ui.label(RichText::new("Nothing has been said yet.").color(theme::TEXT_WEAK));
        return;
    }
    let mut go_to = None;
    let live = p.viewing.is_none();
    // Rows wrap, so they differ in height: the scroll area lays out every line (a transcript
    // keeps at most TRANSCRIPT_LINES) instead of fixed-height rows.
    egui::ScrollArea::vertical()
        .id_salt("preview-transcript")
        .auto_shrink([false, false])
        .stick_to_bottom(live)
        .show(ui, |ui| {
            for l in &lines {
                let color = colors
                    .iter()
                    .find(|(n, _)| *n == *l.speaker)
                    .map_or(theme::TEXT, |(_, c)| *c);
                let r = ui
                    .horizontal_top(|ui| {
                        ui.set_min_height(ROW);
                        // The row takes the click (it scrubs), not its texts.
                        ui.style_mut().interaction.selectable_labels = false;
                        ui.label(
                            RichText::new(format!("{:>6.1}s", l.time))
                                .monospace()
                                .small()
                                .color(theme::TEXT_WEAK),
                        );
                        let who = match &l.kind {
                            LineKind::Player { emote, .. } if &**emote != "says" => {
                                format!("{} /{emote}", l.speaker)
                            }
                            LineKind::Output { emote } if &**emote != "says" => {
                                format!("{} /{emote}", l.speaker)
                            }
                            _ => l.speaker.to_string(),
                        };
                        ui.label(RichText::new(who).color(color).strong());
                        // The text wraps in the room left of the sentence state's tag, so a
                        // long line is read whole and never widens the pane.
                        let tag = l.sentence.as_ref().map(|s| {
                            egui::WidgetText::from(RichText::new(&**s).small().color(theme::SPEECH))
                                .into_galley(
                                    ui,
                                    Some(egui::TextWrapMode::Extend),
                                    f32::INFINITY,
                                    egui::TextStyle::Small,
                                )
                        });
                        let reserve = tag
                            .as_ref()
                            .map_or(0.0, |t| t.size().x + ui.spacing().item_spacing.x);
                        ui.scope(|ui| {
                            ui.set_max_width((ui.available_width() - reserve).max(24.0));
                            ui.add(
                                egui::Label::new(RichText::new(&l.text).color(theme::TEXT)).wrap(),
                            );
                        });
                        if let Some(tag) = tag {
                            ui.label(tag)
                                .on_hover_text("the sentence state this line realises");
                        }
                    })
                    .response
                    .interact(egui::Sense::click());
                // The timeline counts ticks: the row says which one.
                if r.on_hover_text(format!("Show the scene when this was said (tick {})", l.tick))
                    .clicked()
                {
                    go_to = Some(l.tick);
                }
                // Why the agent understood the player's line as it did: the words that named a
                // concept or a category, and the evidence that counted.
                if let LineKind::Player {
                    understood: Some(u),
                    ..
                } = &l.kind
                {
                    let text = if u.is_empty() {
                        "understood: nothing (no word it knows)".to_string()
                    } else {
                        format!("understood: {u}")
                    };
                    ui.horizontal_wrapped(|ui| {
                        ui.add_space(56.0);
                        ui.label(RichText::new(text).small().color(theme::TEXT_WEAK))
                            .on_hover_text("which words counted for which concept or category, and the evidence the line gave: what chose the reply first, then the strongest of the rest");
                    });
                }
            }
        });
    if let Some(t) = go_to {
        p.viewing = Some(t);
    }
}
